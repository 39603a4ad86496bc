"""``read_page``: the page's accessibility tree with refs, or (``diff``) what changed in it
since the last read of the tab with the same options."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import attrs

from ..engine.contracts import ToolCall, ToolResult
from .shared.channel import PageChannel
from .shared.provenance import page_facts, page_result
from .shared.shaping import actionable, redact_secrets, tree_diff

BASELINE_READS = 512
"""Last read_page trees kept for ``diff``, one per tab and set of read options."""


@attrs.frozen
class ReadPage:
    """``redact`` says, at each read, whether password-like field values are hidden (the user's
    setting)."""

    _channel: PageChannel
    _redact: Callable[[], bool]
    _baselines: OrderedDict[tuple[int, tuple[Any, ...]], tuple[str, str]] = attrs.field(
        factory=OrderedDict, init=False
    )

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        args: dict[str, Any] = {}
        for key in ("filter", "depth", "ref_id", "max_chars"):
            if call.arguments.get(key) is not None:
                args[key] = call.arguments[key]
        tree = await self._channel.content(call, tab, "read_page", args, read=True)
        ping = await self._channel.page_of(call, tab, tree)
        url = str(ping.get("url", ""))
        page = page_facts(tab, url, str(ping.get("title", "")), tree.get("renderSerial"))
        text = redact_secrets(str(tree.get("text", "")), redact=self._redact())
        extra: dict[str, Any] = {}
        if "ref_id" in args:
            target = await self._channel.content(
                call, tab, "element_rect", {"ref": args["ref_id"]}, read=True
            )
            extra["target"] = actionable(target)
        else:
            view = (args.get("filter"), args.get("depth"), args.get("max_chars"))
            text = self._diffed((tab, view), url, text, bool(call.arguments.get("diff")))
        return page_result(call, text, page, ping, **extra)

    def _diffed(self, key: tuple[int, tuple[Any, ...]], url: str, text: str, diff: bool) -> str:
        """Record a full read as the baseline of its tab and options (a tree read with another
        filter, depth or max_chars lists other elements, so it is no baseline for this one);
        with ``diff``, answer the changes since the last read like it."""
        previous = self._baselines.get(key)
        self._baselines[key] = (url, text)
        self._baselines.move_to_end(key)
        while len(self._baselines) > BASELINE_READS:
            self._baselines.popitem(last=False)
        if not diff:
            return text
        if previous is None:
            return f"(no baseline: no earlier read of this page with these options; full tree)\n{text}"
        if previous[0] != url:
            return f"(no baseline: the tab shows another page now; full tree)\n{text}"
        return tree_diff(previous[1], text)
