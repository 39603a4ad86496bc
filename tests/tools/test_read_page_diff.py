"""read_page ``diff`` compares like with like: a tree read with another filter, depth or
max_chars lists other elements, so it is never the baseline of a diff."""

from __future__ import annotations

from typing import Any

from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from .fakes import ScriptedBrowser, handler, tool_call

FULL = 'heading "Title" [ref_1]\nform [ref_2]\n textbox "Name" [ref_3]\nViewport: 800x600'
INTERACTIVE = 'textbox "Name" [ref_3]\n[interactive filter: ...]\nViewport: 800x600'


def _page(op: str, args: dict[str, Any]) -> dict[str, Any]:
    assert op == "content", op
    if args["fn"] == "read_page":
        tree = INTERACTIVE if args["args"].get("filter") == "interactive" else FULL
        return {"value": {"text": tree, "renderSerial": 1}}
    return {"value": {"url": "http://a.test/", "title": "A", "renderSerial": 1}}


async def test_a_diff_compares_reads_with_the_same_options_only() -> None:
    read = handler("read_page", ScriptedBrowser(_page))
    await read(tool_call("read_page"))
    other = await read(tool_call("read_page", filter="interactive", diff=True))
    assert "(no baseline: no earlier read of this page with these options; full tree)" in text(
        other
    )
    assert "- heading" not in text(other)
    # The interactive read did not replace the full tree's baseline.
    same = await read(tool_call("read_page", diff=True))
    assert "(no changes since your last read)" in text(same), text(same)
    again = await read(tool_call("read_page", filter="interactive", diff=True))
    assert "(no changes since your last read)" in text(again), text(again)
