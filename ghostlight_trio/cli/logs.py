"""``ghostlight logs``: the tail of the instance's service log, optionally followed."""

from __future__ import annotations

import io
import sys
import time
from collections import deque

from ..files.safe import open_private_reader
from ..transport.endpoints import Endpoints


def show(endpoints: Endpoints, lines: int, follow: bool) -> int:
    path = endpoints.log_file
    try:
        handle = io.TextIOWrapper(open_private_reader(path), encoding="utf-8", errors="replace")
    except FileNotFoundError:
        print(f"ghostlight: no log yet at {path} (the service has not run)", file=sys.stderr)
        return 1
    except OSError as exc:  # a link, a FIFO, another user's file: not the instance's log
        print(f"ghostlight: {exc}", file=sys.stderr)
        return 1
    with handle:
        print(f"==> {path} <==", file=sys.stderr)
        sys.stdout.writelines(deque(handle, maxlen=lines))
        sys.stdout.flush()
        while follow:
            chunk = handle.readline()
            if chunk:
                sys.stdout.write(chunk)
                sys.stdout.flush()
            else:
                time.sleep(0.25)
    return 0
