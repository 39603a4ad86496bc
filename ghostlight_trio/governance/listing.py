"""A tab listing shows pages the workspace may not read by their origin only.

A listing names each tab's address and title: page content. For a tab on a site the
workspace may not read (never-touch, or denied read) both are withheld, and so is the path of
an address it is on its way to on such a site (``pendingUrl``), in the structured value
and in the text alike, as a rewrite of the structured value: the text shows each listed tab as
the JSON of its entry without its id (one line, the ``tabList`` the catalog declares), and that
rendering of a withheld tab is replaced by the rendering of what is shown instead, so nothing
else of the text changes. A text that does not show every withheld tab that way is replaced by
the withheld structured value: where else it holds the page's words cannot be known.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

import attrs

from ..catalog.facts import TabList
from ..engine.contracts import ToolResult
from ..transport.bridge import ContentBlock, TextBlock
from .hosts import Host, resolve_url

Closed = Callable[[Host], bool]
"""Whether the workspace may not read pages on this host."""


@attrs.frozen
class _Swap:
    """One withheld tab: its entry's rendering in the text, and what is shown in its place."""

    before: str
    after: str


def withhold_listed(result: ToolResult, tab_list: TabList, closed: Closed) -> ToolResult:
    """``result`` with every listed tab on a closed host shown by its origin only."""
    structured = dict(result.structured or {})
    tabs = structured.get(tab_list.field)
    if not isinstance(tabs, list):
        return result
    swaps: list[_Swap] = []
    shown: list[Any] = []
    for tab in tabs:
        withheld = _withheld(tab, closed)
        if withheld is None:
            shown.append(tab)
            continue
        swaps.append(_Swap(_rendering(tab, tab_list.id), _rendering(withheld, tab_list.id)))
        shown.append(withheld)
    if not swaps:
        return result
    structured[tab_list.field] = shown
    content = _rewritten(result.content, swaps, structured)
    return attrs.evolve(result, content=content, structured=structured)


def _withheld(tab: object, closed: Closed) -> dict[str, Any] | None:
    """The entry shown for a tab on a closed host, or on its way to one (``pendingUrl``: an
    address the page chose as much as the agent); None for one that is shown as it is."""
    if not isinstance(tab, dict):
        return None
    shown = dict(tab)
    where = _closed_host(tab.get("url"), closed)
    if where is not None:
        shown["url"] = _origin(str(tab["url"]), where)
        shown["title"] = f"(withheld: {where.name} may not be read under the policy)"
    going = _closed_host(tab.get("pendingUrl"), closed)
    if going is not None:
        shown["pendingUrl"] = _origin(str(tab["pendingUrl"]), going)
    return shown if shown != tab else None


def _closed_host(url: object, closed: Closed) -> Host | None:
    where = resolve_url(url) if isinstance(url, str) else None
    return where if isinstance(where, Host) and closed(where) else None


def _origin(url: str, where: Host) -> str:
    return f"{urlsplit(url).scheme}://{where.name}/"


def _rendering(entry: dict[str, Any], id_key: str) -> str:
    """How a listing's text shows one tab: its entry without its id, as one JSON line."""
    place = {key: value for key, value in entry.items() if key != id_key}
    return json.dumps(place, ensure_ascii=False)


def _rewritten(
    content: Sequence[ContentBlock], swaps: list[_Swap], structured: dict[str, Any]
) -> list[ContentBlock]:
    texts = [block.text for block in content if isinstance(block, TextBlock)]
    if not all(any(swap.before in text for text in texts) for swap in swaps):
        others = [block for block in content if not isinstance(block, TextBlock)]
        return [TextBlock(text=json.dumps(structured)), *others]
    rewritten: list[ContentBlock] = []
    for block in content:
        if isinstance(block, TextBlock):
            text = block.text
            for swap in swaps:
                text = text.replace(swap.before, swap.after)
            block = TextBlock(text=text)
        rewritten.append(block)
    return rewritten
