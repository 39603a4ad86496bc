"""A stand-in for Chromium on the DevTools pipe: reads NUL-ended JSON commands on fd 3, answers
on fd 4, and exits when fd 3 closes, as Chromium does. ``Extensions.loadUnpacked`` answers
with the id given as the first argument ("refuse" answers with an error); the reply is written
in two parts with an event before it, so the reader must join partial reads."""

from __future__ import annotations

import json
import os
import sys
import time

answer = sys.argv[1]
pending = b""
while True:
    data = os.read(3, 65536)
    if not data:
        sys.exit(0)  # the pipe closed: the browser ends
    pending += data
    while b"\0" in pending:
        raw, _, pending = pending.partition(b"\0")
        command = json.loads(raw)
        if answer == "refuse":
            reply = {"id": command["id"], "error": {"code": -32000, "message": "no way"}}
        else:
            reply = {"id": command["id"], "result": {"id": answer}}
        os.write(4, json.dumps({"method": "Target.targetCreated", "params": {}}).encode() + b"\0")
        encoded = json.dumps(reply).encode() + b"\0"
        os.write(4, encoded[:7])
        time.sleep(0.05)
        os.write(4, encoded[7:])
