"""find on a page too big to search whole says how much it searched, never a bare 'none'."""

from __future__ import annotations

from typing import Any

from browser.session_driver import text  # tests/ is on sys.path (rootdir packages)

from .fakes import ScriptedBrowser, handler, tool_call

HIT = {"ref": "ref_1", "role": "button", "name": "Go", "visible": True, "enabled": True,
       "box": {"x": 1, "y": 1, "width": 2, "height": 2}, "renderSerial": 1,
       "mechanicalActions": [], "x": 2, "y": 2}  # fmt: skip


def _page(results: list[dict[str, Any]], **found: Any) -> ScriptedBrowser:
    def answer(op: str, args: dict[str, Any]) -> dict[str, Any]:
        if args["fn"] == "find_text":
            return {"value": {"results": results, **found}}
        return {"value": {"url": "http://a.test/", "title": "A", "renderSerial": 1}}

    return ScriptedBrowser(answer)


async def test_a_capped_search_says_how_far_it_went() -> None:
    none = handler("find", _page([], capped=True, scanned=200_000))
    said = text(await none(tool_call("find", query="Btn 9999")))
    assert 'No elements matching "Btn 9999" in the first 200000 elements of the page' in said
    some = handler("find", _page([HIT], capped=True, scanned=200_000, more=True, total=40))
    said = text(await some(tool_call("find", query="Go")))
    assert "[at least 40 elements matched" in said
    assert "[searched the first 200000 elements of the page; more may match further down]" in said
    whole = handler("find", _page([HIT]))
    assert "searched the first" not in text(await whole(tool_call("find", query="Go")))
