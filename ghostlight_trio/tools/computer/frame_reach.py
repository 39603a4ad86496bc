"""Which embedded frames input would reach, named by the URL the browser committed in each.

A call is judged by its page's host; input that lands in an embedded frame reaches that frame's
site instead, which has to be judged on its own. A frame's ``src`` attribute cannot say which
site that is: a frame with no ``src`` filled by ``window.open(url, name)``, a ``src`` that
redirects, a frame that navigated itself all show another page than the attribute names. So
the frame is found by the browser's own hit test (``DOM.getNodeForLocation``) and named by the
URL the browser committed there: the frame tree for frames in the page's own process, the
frame's target for a frame of another site (which lives in a process of its own).

Typing and keys go where the keyboard focus is: the browser's hit test at the focused element
names its frame; where it names none, every frame of the page's process is judged.

Limits, said plainly: what a frame of another site embeds in turn cannot be hit-tested from the
top page, and the page could move a frame under the point between this check and the press.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ...browser.errors import BrowserError
from ...engine.contracts import ToolCall
from ..shared.channel import UNKNOWN_OP, PageChannel


class OtherSiteRefused(Exception):
    """Input would reach an embedded frame of a site this call may not act on."""


_NOTHING_THERE = "no node found"
FRAME_URL_TIMEOUT = 5.0


async def refuse_frames_at(channel: PageChannel, call: ToolCall, tab: int, x: float, y: float) -> None:
    """Raise ``OtherSiteRefused`` when input at the point (CSS px of the viewport) would reach
    a frame of a site this call may not act on; nothing is sent to the page."""
    reached = await _frame_at(channel, call, tab, x, y)
    if reached is None:
        return
    frames = await _FrameMap.read(channel, call, tab)
    if reached != frames.main:
        _judge(call, await frames.under(channel, call, tab, reached))


async def refuse_frames_focused(
    channel: PageChannel, call: ToolCall, tab: int, point: tuple[float, float] | None
) -> None:
    """Raise ``OtherSiteRefused`` when the keyboard focus is inside an embedded frame of a site
    this call may not act on. ``point``: the middle of the focused element as the page's
    content script saw it; the browser's hit test there names the frame. Where it names none
    (the frame is covered, or has no size), every frame the tab's page holds is judged."""
    frames = await _FrameMap.read(channel, call, tab)
    reached = await _frame_at(channel, call, tab, *point) if point is not None else None
    if reached is not None and reached != frames.main:
        _judge(call, await frames.under(channel, call, tab, reached))
    else:
        _judge(call, frames.embedded())


async def _frame_at(channel: PageChannel, call: ToolCall, tab: int, x: float, y: float) -> str | None:
    """The id of the frame whose document takes input at the point, by the browser's hit test."""
    try:
        found = await channel.cdp(
            call, tab, "DOM.getNodeForLocation",
            {"x": round(x), "y": round(y), "includeUserAgentShadowDOM": True},
            read=True,
        )  # fmt: skip
    except BrowserError as error:
        if _NOTHING_THERE in error.message.lower():
            return None  # outside every element: the page itself takes it
        raise
    reached = found.get("frameId")
    node = found.get("backendNodeId")
    if isinstance(node, int):
        described = await channel.cdp(call, tab, "DOM.describeNode", {"backendNodeId": node}, read=True)
        owned = (described.get("node") or {}).get("frameId")
        if isinstance(owned, str) and owned:
            reached = owned  # a frame element: the input goes to the document it holds
    return reached if isinstance(reached, str) and reached else None


def _judge(call: ToolCall, urls: Iterable[str]) -> None:
    for url in urls:
        denied = call.effects.denied_at(url)
        if denied is not None:
            raise OtherSiteRefused(denied)


class _FrameMap:
    """The frames of the tab's page process (the frame tree): id -> (committed URL, parent)."""

    def __init__(self, main: str, frames: dict[str, tuple[str, str | None]]) -> None:
        self.main = main
        self.frames = frames

    @classmethod
    async def read(cls, channel: PageChannel, call: ToolCall, tab: int) -> _FrameMap:
        tree = await channel.cdp(call, tab, "Page.getFrameTree", read=True)
        root = tree.get("frameTree") or {}
        frames = {frame["id"]: (str(frame.get("url", "")), parent) for frame, parent in _walk(root, None)}
        return cls(str((root.get("frame") or {}).get("id", "")), frames)

    async def under(self, channel: PageChannel, call: ToolCall, tab: int, top: str) -> list[str]:
        """The committed URLs of frame ``top`` and of the frames the tree lists under it. A frame
        of another site lives in a process of its own and is absent from the tree: the browser
        names its page by its target (whose id is the frame's); what it embeds in turn is out
        of this page's sight. A frame the browser cannot name gives no URL to go by, which the
        gate refuses under a policy."""
        if top not in self.frames:
            try:
                named = await channel.read(
                    call, "frame_url", {"tabId": tab, "frameId": top}, FRAME_URL_TIMEOUT
                )
            except BrowserError as error:
                if error.code != UNKNOWN_OP:
                    raise
                return [""]  # an extension too old to name it: unnamed, as below
            url = named.get("url")
            return [url if isinstance(url, str) else ""]
        inside = {top}
        grew = True
        while grew:
            grew = False
            for ident, (_url, parent) in self.frames.items():
                if parent in inside and ident not in inside:
                    inside.add(ident)
                    grew = True
        return [self.frames[ident][0] for ident in sorted(inside)]

    def embedded(self) -> list[str]:
        return [url for ident, (url, _parent) in self.frames.items() if ident != self.main]


def _walk(node: dict[str, Any], parent: str | None) -> Iterator[tuple[dict[str, Any], str | None]]:
    frame = node.get("frame")
    if not isinstance(frame, dict) or not isinstance(frame.get("id"), str):
        return
    yield frame, parent
    for child in node.get("childFrames") or ():
        if isinstance(child, dict):
            yield from _walk(child, frame["id"])
