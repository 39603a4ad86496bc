"""``python -m tests.load.probe SECONDS``: one MCP client of its own, in a process of its own,
asking the service a service-local call (update_plan) every few milliseconds for SECONDS, and
printing ``{"calls": answered, "seconds": [each timed call's]}`` as one JSON object (every
call answered was run, and audited, by the service).

Every real MCP client is a process of its own. The load run drives its many connectors from
one Python process, which also decodes every screenshot and page the others receive; a call
timed there waits behind that work too. This probe times what one client sees of the service
under the load, through a real ``ghostlight-mcp-connector``, and nothing else.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

PLAN = {"domains": ["127.0.0.1"], "approach": ["read the page"]}
SPACING = 0.05
"""Pause between two calls: the probe asks, it does not add load of its own."""


def _ask(connector: subprocess.Popen[bytes], request_id: int, method: str, params: dict) -> dict:  # type: ignore[type-arg]
    assert connector.stdin is not None and connector.stdout is not None
    line = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    connector.stdin.write(json.dumps(line).encode() + b"\n")
    connector.stdin.flush()
    while True:
        answer = json.loads(connector.stdout.readline())
        if answer.get("id") == request_id:
            return answer


def main(seconds: float) -> None:
    connector = subprocess.Popen(
        [sys.executable, "-m", "ghostlight_mcp_connector"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        _ask(connector, 0, "initialize", {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "load-probe", "version": "1"},
        })  # fmt: skip
        assert connector.stdin is not None
        connector.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        connector.stdin.flush()
        times: list[float] = []
        answered = 0
        end = time.monotonic() + seconds
        request_id = 1
        while time.monotonic() < end:
            started = time.perf_counter()
            answer = _ask(connector, request_id, "tools/call", {"name": "update_plan", "arguments": PLAN})
            elapsed = time.perf_counter() - started
            answered += 1
            if "result" in answer and not answer["result"].get("isError"):
                times.append(elapsed)
            request_id += 1
            time.sleep(SPACING)
        # The first calls make the connection: not timed.
        print(json.dumps({"calls": answered, "seconds": times[5:]}))
    finally:
        connector.kill()
        connector.wait()


if __name__ == "__main__":
    main(float(sys.argv[1]))
