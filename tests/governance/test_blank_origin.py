"""A blank page that a site opened runs with that site's origin and can reach it: the gate
judges it as that site, so a never-touch site's popup is never-touch too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ghostlight_trio.engine.contracts import WorkspaceId
from ghostlight_trio.governance.assembly import governance_parts
from ghostlight_trio.governance.sources import PolicyFiles


class BlankTab:
    def __init__(self, origin: str) -> None:
        self.origin = origin

    async def request(self, workspace_id: Any, op: str, args: dict[str, Any], *, timeout: float) -> dict[str, Any]:  # noqa: ASYNC109
        if op == "tab_info":
            return {"url": "about:blank"}
        assert op == "cdp" and args["params"]["expression"] == "self.origin"
        return {"result": {"result": {"type": "string", "value": self.origin}}}


async def test_a_blank_page_is_judged_by_the_origin_it_runs_with(tmp_path: Path) -> None:
    files = PolicyFiles(org=None, user=None, settings=None)
    opened = governance_parts(files, BlankTab("http://bank.test:8080"))
    probe = opened.gate._tabs._probe  # the probe the gate reads hosts with
    assert probe is not None
    assert await probe(WorkspaceId("ws"), 7) == "http://bank.test:8080"
    empty = governance_parts(files, BlankTab("null"))
    assert await empty.gate._tabs._probe(WorkspaceId("ws"), 7) == "about:blank"  # type: ignore[misc]
    # A tab the extension parked or created runs with the extension's origin: still empty.
    parked = governance_parts(files, BlankTab("chrome-extension://abcdefghijklmnopabcdefghijklmnop"))
    assert await parked.gate._tabs._probe(WorkspaceId("ws"), 7) == "about:blank"  # type: ignore[misc]
