"""Run a stdio server and record both directions of its conversation, line by line.

usage: python wire_tap.py LOG -- <server command> [args...]
Each line the client writes is recorded as ``>`` + line, each the server writes as ``<`` + line,
in the order they passed; the bytes themselves pass through unchanged.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import BinaryIO


def main() -> int:
    log_path, separator, *command = sys.argv[1:]
    assert separator == "--", __doc__
    lock = threading.Lock()
    log = open(log_path, "wb")  # noqa: SIM115 - closed at exit
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None

    def record(mark: bytes, line: bytes) -> None:
        with lock:
            log.write(mark + line + (b"" if line.endswith(b"\n") else b"\n"))
            log.flush()

    def pump(source: BinaryIO, sink: BinaryIO, mark: bytes) -> None:
        for line in iter(source.readline, b""):
            record(mark, line)
            try:
                sink.write(line)
                sink.flush()
            except BrokenPipeError:
                break
        sink.close()

    upstream = threading.Thread(
        target=pump, args=(sys.stdin.buffer, child.stdin, b">"), daemon=True
    )
    upstream.start()
    pump(child.stdout, sys.stdout.buffer, b"<")
    code = child.wait()
    log.close()
    return code


if __name__ == "__main__":
    sys.exit(main())
