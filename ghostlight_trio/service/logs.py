"""Service logging: stderr plus the instance log file. Never raw workspace handles."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from ..files.safe import PrivateFileHandler
from ..transport.endpoints import Endpoints

_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_logging(endpoints: Endpoints, *, level: int = logging.INFO) -> None:
    root = logging.getLogger("ghostlight")
    root.setLevel(level)
    formatter = logging.Formatter(_FORMAT)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    try:
        endpoints.ensure_private_dirs()
        if not _stderr_is(endpoints.log_file):  # a background start already sends stderr there
            handlers.append(PrivateFileHandler(endpoints.log_file))
    except OSError as exc:
        print(f"ghostlight: not logging to {endpoints.log_file}: {exc}", file=sys.stderr)
    for handler in handlers:
        handler.setFormatter(formatter)
        root.addHandler(handler)


def _stderr_is(path: Path) -> bool:
    try:
        ours, theirs = os.fstat(sys.stderr.fileno()), path.stat()
    except (OSError, ValueError, AttributeError):
        return False
    return (ours.st_dev, ours.st_ino) == (theirs.st_dev, theirs.st_ino)
