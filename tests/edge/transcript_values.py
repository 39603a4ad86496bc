"""Rewrite ``conformance_transcripts/values/`` from what the connector answers now.

usage: python -m tests.edge.transcript_values

The values are whole results the transcripts expect byte for byte (the tool lists of both
revisions, the initialize and discover results). Run this after a deliberate change to the
catalog or the instructions, then read the diff: every changed byte is a change clients see.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from ghostlight_mcp_connector import __version__

from .harness import INIT, META, Connector, Instance
from .transcript import VALUES

READ_ONLY = (
    '{"schema":3,"name":"read-only","version":"1","grants":[{"id":"read","hosts":{"allow":["*"]},'
    '"allowed":["read"]}]}'
)
"""The restriction T106 lists under: reading, everywhere."""


def _ask(connector: Connector, method: str, params: str) -> dict[str, Any]:
    connector.send(f'{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}')
    result: dict[str, Any] = connector.read()["result"]
    return result


def _write(name: str, value: Any) -> None:
    text = json.dumps(value, ensure_ascii=False, indent=1)
    version = json.dumps({"version": __version__}, separators=(",", ":"))[1:-1]
    text = text.replace(version.replace(":", ": "), '"version": "$VERSION"')
    (VALUES / f"{name}.json").write_text(text + "\n", "utf-8")


def main() -> None:
    instance = Instance(Path(tempfile.mkdtemp()), kind="fake")
    instance.start_service()
    try:
        handshake = Connector(instance)
        _write("INITIALIZE_RESULT", _ask(handshake, "initialize", INIT))
        handshake.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        _write("TOOLS_2025_11_25", _ask(handshake, "tools/list", "{}")["tools"])
        handshake.terminate()
        stateless = Connector(instance)
        _write("DISCOVER_RESULT", _ask(stateless, "server/discover", f'{{"_meta":{META}}}'))
        _write("TOOLS_2026_07_28", _ask(stateless, "tools/list", f'{{"_meta":{META}}}')["tools"])
        narrowed = f'{{"_meta":{META[:-1]},"io.ghostlight/restriction":{READ_ONLY}}}}}'
        _write("TOOLS_2026_07_28_READ_ONLY", _ask(stateless, "tools/list", narrowed)["tools"])
        stateless.terminate()
    finally:
        instance.stop_service()
        instance.stop_launched_services()


if __name__ == "__main__":
    main()
