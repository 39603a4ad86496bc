"""A tab listing's withheld tabs are rewritten in the structured value and re-rendered in the
text, byte for byte as the string replacement that did it before, on the real tools' results.

``_replaced`` is that replacement as it was (each withheld URL and title, as JSON strings,
replaced wherever they stood in the text). The two agree on every listing where the old
replacement touched only the withheld tab's own values and no tab was on its way to a closed
site; where it also touched another tab's (two tabs with the same title, say) the rewrite leaves
the other tab alone, and an address on the way to a closed site is shown by its origin (the old
replacement showed it whole).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

import attrs
import pytest
import trio
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ghostlight_trio.catalog.registry import load_specs
from ghostlight_trio.engine.contracts import ToolCall, ToolResult, WorkContext
from ghostlight_trio.governance.hosts import Host, resolve_url
from ghostlight_trio.governance.listing import withhold_listed
from ghostlight_trio.tools.tabs import TabTools
from ghostlight_trio.transport.bridge import TextBlock
from ghostlight_trio.workspace import WorkspaceRegistry, compose_tab_id

T = TypeVar("T")
SPECS = {spec.name: spec for spec in load_specs()}
LISTING_TOOLS = [name for name, spec in SPECS.items() if spec.governance.tab_list is not None]
CLOSED = ("bank.test", "mail.example")


def _closed(host: Host) -> bool:
    return host.name in CLOSED or host.name.endswith(".bank.test")


def _replaced(result: ToolResult) -> ToolResult:
    """The string replacement as governance did it before (its code, with ``_closed`` for the
    policy's read decision)."""
    structured = dict(result.structured or {})
    replaced: list[tuple[str, str]] = []
    tabs = []
    for tab in structured["tabs"]:
        where = resolve_url(str(tab.get("url", ""))) if isinstance(tab, dict) else None
        closed = isinstance(where, Host) and _closed(where)
        if not closed or not isinstance(where, Host):
            tabs.append(tab)
            continue
        title = f"(withheld: {where.name} may not be read under the policy)"
        shown = {**tab, "url": f"{urlsplit(tab['url']).scheme}://{where.name}/", "title": title}
        replaced += [(json.dumps(tab["url"], ensure_ascii=False), json.dumps(shown["url"])),
                     (json.dumps(tab["title"], ensure_ascii=False), json.dumps(title))]  # fmt: skip
        tabs.append(shown)
    if not replaced:
        return result
    structured["tabs"] = tabs
    content = []
    for block in result.content:
        if isinstance(block, TextBlock):
            text = block.text
            for old, new in replaced:
                text = text.replace(old, new)
            block = TextBlock(text=text)
        content.append(block)
    return attrs.evolve(result, content=content, structured=structured)


class _Effects:
    async def atomic(self, effect: Callable[[], Awaitable[T]]) -> T:
        return await effect()

    async def checkpoint(self) -> None:
        await trio.lowlevel.checkpoint()

    def caller_cancelled(self) -> trio.Event:
        return trio.Event()


class _Browser:
    def __init__(self, tabs: list[dict[str, Any]]) -> None:
        self.tabs = tabs

    async def request(self, workspace_id: Any, op: str, args: dict[str, Any], **bounds: Any) -> dict[str, Any]:
        await trio.lowlevel.checkpoint()
        if op == "tabs_create":
            return {**self.tabs[-1], "groupId": 4, "tabs": self.tabs}
        return {"groupId": 4, "tabs": self.tabs}


def _listed(tool: str, tabs: list[dict[str, Any]]) -> ToolResult:
    """What the real tool answers when the browser lists ``tabs``."""

    async def answer() -> ToolResult:
        registry = WorkspaceRegistry()
        ws, _ = registry.open(None, "agent")
        tools = TabTools(registry, _Browser(tabs))  # type: ignore[arg-type]
        handler = {"tabs_context_mcp": tools.tabs_context, "tabs_create_mcp": tools.tabs_create}[tool]
        context = WorkContext(work_id="w1", operation=tool, workspace_id=ws)
        call = ToolCall(context=context, arguments={}, effects=_Effects())  # type: ignore[arg-type]
        return await handler(call)

    return trio.run(answer)


def _rewritten(tool: str, result: ToolResult) -> ToolResult:
    tab_list = SPECS[tool].governance.tab_list
    assert tab_list is not None
    return withhold_listed(result, tab_list, _closed)


HOSTS = ["docs.example.com", "bank.test", "www.bank.test", "mail.example", "127.0.0.1:8443",
         "b\u00fccher.example", "shop.test:8080"]  # fmt: skip
_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
_tab = st.fixed_dictionaries(
    {
        "scheme": st.sampled_from(["https", "http"]),
        "host": st.sampled_from(HOSTS),
        "path": _text,
        "title": _text,
        "pending": st.one_of(st.none(), st.sampled_from(HOSTS)),
    }
)


def _browser_tabs(drawn: list[dict[str, Any]]) -> list[dict[str, Any]]:
    tabs = []
    for number, tab in enumerate(drawn, start=1):
        entry = {
            "tabId": compose_tab_id(1, number),
            "title": tab["title"],
            "url": f"{tab['scheme']}://{tab['host']}/{tab['path']}",
        }
        if tab["pending"] is not None:
            entry["pendingUrl"] = f"https://{tab['pending']}/next"
        tabs.append(entry)
    return tabs


def _only_own_values(result: ToolResult) -> bool:
    """Whether each withheld URL and title, as a JSON string, stands once in the text: the
    old replacement then touched only that tab's own values; and whether no tab is on its way
    to a closed site, which the old replacement did not withhold."""
    text = "".join(block.text for block in result.content if isinstance(block, TextBlock))
    for tab in (result.structured or {})["tabs"]:
        going = resolve_url(tab.get("pendingUrl", ""))
        if isinstance(going, Host) and _closed(going):
            return False
        where = resolve_url(tab["url"])
        if isinstance(where, Host) and _closed(where):
            for value in (tab["url"], tab["title"]):
                if text.count(json.dumps(value, ensure_ascii=False)) != 1:
                    return False
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool=st.sampled_from(LISTING_TOOLS), drawn=st.lists(_tab, min_size=1, max_size=5))
def test_the_rewrite_is_byte_identical_to_the_old_replacement(
    tool: str, drawn: list[dict[str, Any]]
) -> None:
    result = _listed(tool, _browser_tabs(drawn))
    assume(_only_own_values(result))
    new, old = _rewritten(tool, result), _replaced(result)
    assert new.content == old.content
    assert json.dumps(new.structured) == json.dumps(old.structured)


def test_every_tool_that_lists_tabs_declares_it() -> None:
    assert sorted(LISTING_TOOLS) == ["tabs_context_mcp", "tabs_create_mcp"]


def test_a_listing_on_open_sites_only_is_left_as_it_is() -> None:
    result = _listed("tabs_context_mcp", [{"tabId": compose_tab_id(1, 1), "title": "Docs",
                                          "url": "https://docs.example.com/"}])  # fmt: skip
    assert _rewritten("tabs_context_mcp", result) is result


def test_another_tab_with_the_same_title_keeps_its_own() -> None:
    """Two tabs both titled "Inbox", one on a closed site: only that one's title is withheld
    (the old replacement withheld both, in the text)."""
    tabs = [
        {"tabId": compose_tab_id(1, 1), "title": "Inbox", "url": "https://mail.example/u/0"},
        {"tabId": compose_tab_id(1, 2), "title": "Inbox", "url": "https://docs.example.com/in"},
    ]
    result = _listed("tabs_context_mcp", tabs)
    text = "".join(b.text for b in _rewritten("tabs_context_mcp", result).content if isinstance(b, TextBlock))
    assert '{"title": "Inbox", "url": "https://docs.example.com/in"}' in text
    assert "/u/0" not in text and "(withheld: mail.example" in text


def test_a_text_that_is_not_the_listing_s_rendering_is_replaced_by_the_withheld_value() -> None:
    """Where the text does not show a withheld tab as its rendering, where else it holds the
    page's words cannot be known: the withheld structured value stands in for it."""
    listing = {"mcpGroupId": 1, "tabs": [
        {"tabId": 1, "title": "Balance: 1,234", "url": "https://bank.test/acct?id=9"}]}  # fmt: skip
    result = ToolResult.text(f"You are on Balance: 1,234 ({listing['tabs'][0]['url']})", structured=listing)
    out = _rewritten("tabs_context_mcp", result)
    assert out.content == [TextBlock(text=json.dumps(out.structured))]
    assert "Balance" not in json.dumps(out.content[0].text) and "acct" not in out.content[0].text


@pytest.mark.parametrize(
    ("url", "pending"),
    [("https://docs.example.com/in", "https://bank.test/statement?acct=9"),
     ("https://bank.test/home", "https://bank.test/statement?acct=9")],
)  # fmt: skip
def test_an_address_on_the_way_to_a_closed_site_is_shown_by_its_origin(url: str, pending: str) -> None:
    """A tab navigating to a closed site (a link followed, a redirect) shows where it is going
    by origin only, in the structured value and the text, whichever site it is on now."""
    tabs = [{"tabId": compose_tab_id(1, 1), "title": "Docs", "url": url, "pendingUrl": pending}]
    out = _rewritten("tabs_context_mcp", _listed("tabs_context_mcp", tabs))
    text = "".join(b.text for b in out.content if isinstance(b, TextBlock))
    shown = (out.structured or {})["tabs"][0]
    assert shown["pendingUrl"] == "https://bank.test/"
    assert "acct" not in text and "statement" not in text and '"https://bank.test/"' in text
    if url.startswith("https://docs."):
        assert shown["url"] == url and shown["title"] == "Docs"
