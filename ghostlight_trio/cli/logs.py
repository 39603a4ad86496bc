"""``ghostlight logs``: the tail of the instance's service log, optionally followed."""

from __future__ import annotations

import io
import sys
import time
from collections import deque
from typing import IO

from ..files.safe import open_private_reader
from ..transport.endpoints import Endpoints
from . import json_output

POLL_INTERVAL = 0.25
"""How often a followed log (or one not yet written) is looked at again."""


def show(endpoints: Endpoints, lines: int, follow: bool, *, as_json: bool = False) -> int:
    path = endpoints.log_file
    try:
        handle = _open(endpoints)
    except OSError as exc:  # a link, a FIFO, another user's file: not the instance's log
        return json_output.refuse(f"{path} cannot be read as the service log ({exc.strerror or exc})", as_json)
    if handle is None and not follow:
        return json_output.refuse(f"no log yet at {path} (the service has not run)", as_json)
    if handle is None:
        # As `audit tail -f` does: wait for the service to write its first line.
        print(f"==> {path} <== (not written yet; waiting for it)", file=sys.stderr, flush=True)
        while handle is None:
            time.sleep(POLL_INTERVAL)
            handle = _open(endpoints)
    with handle:
        if as_json:
            json_output.emit({"path": str(path), "lines": [line.rstrip("\n") for line in deque(handle, maxlen=lines)]})
            return 0
        print(f"==> {path} <==", file=sys.stderr)
        sys.stdout.writelines(deque(handle, maxlen=lines))
        sys.stdout.flush()
        while follow:
            chunk = handle.readline()
            if chunk:
                sys.stdout.write(chunk)
                sys.stdout.flush()
            else:
                time.sleep(POLL_INTERVAL)
    return 0


def _open(endpoints: Endpoints) -> IO[str] | None:
    """The log opened for reading; None while there is none."""
    try:
        raw = open_private_reader(endpoints.log_file)
    except FileNotFoundError:
        return None
    return io.TextIOWrapper(raw, encoding="utf-8", errors="replace")
