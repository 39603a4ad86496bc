"""Service code outside transport never names an MCP revision, JSON-RPC, stdio or initialize.

Two modules outside transport face MCP clients by design and are named here, file by file:
the demo's MCP client (it drives the connector as a client does) and the client-config
formats the installer writes (they name the transport a client starts a local server with).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "ghostlight_trio"
MCP_CLIENT_FACING = {Path("cli/mcp_client.py"), Path("install/client_configs.py")}
FORBIDDEN = re.compile(
    r"2025-11-25|2026-07-28|2025_11_25|2026_07_28|json-?rpc|stdio|initialize|mcp tasks",
    re.IGNORECASE,
)


def _service_sources() -> list[Path]:
    return [
        path
        for path in SERVICE.rglob("*.py")
        if "transport" not in path.relative_to(SERVICE).parts
        and path.relative_to(SERVICE) not in MCP_CLIENT_FACING
    ]


def test_there_is_service_code_to_check() -> None:
    assert len(_service_sources()) >= 5
    assert all((SERVICE / path).is_file() for path in MCP_CLIENT_FACING)


def test_service_code_is_protocol_neutral() -> None:
    offenders = []
    for path in _service_sources():
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if FORBIDDEN.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "protocol words in service code:\n" + "\n".join(offenders)


def test_the_check_would_catch_an_offender() -> None:
    assert FORBIDDEN.search('if method == "initialize":')
    assert FORBIDDEN.search("revision = '2026-07-28'")
    assert not FORBIDDEN.search("workspace_id = mint()")
