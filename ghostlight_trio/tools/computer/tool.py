"""``computer``: screenshots and mouse, keyboard, scroll and zoom input in one tab via CDP.

Model coordinates are screenshot pixels and go through the tab's latest screenshot context;
coordinates from refs are CSS pixels already and are used as they are. Input events go out as
one sequence per action; a JavaScript dialog that opens stops the sequence and the action
reports what was delivered and that the dialog is open (see ``shared/dialogs.py``). Where an
action aims is ``targeting``, how its input goes out ``input``, what it answers ``receipt``;
the actions are ``pointer``, ``keyboard`` and ``view``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ...engine.contracts import ToolCall, ToolResult
from ..shared.channel import PageChannel
from ..shared.guard import ToolInputError, guarded
from ..shared.image_store import ImageStore
from ..shared.screenshots import ContextBook
from . import keyboard, pointer, view
from .frame_reach import OtherSiteRefused
from .parts import ComputerParts
from .receipt import dialog_outcome
from .targeting import RefUnreachable

Action = Callable[[ComputerParts, ToolCall, int], Awaitable[ToolResult]]
ACTIONS: dict[str, Action] = {
    "left_click": pointer.click,
    "right_click": pointer.click,
    "double_click": pointer.click,
    "triple_click": pointer.click,
    "hover": pointer.hover,
    "type": keyboard.type_text,
    "key": keyboard.key,
    "screenshot": view.screenshot,
    "zoom": view.zoom,
    "scroll": view.scroll,
    "scroll_to": view.scroll_to,
    "left_click_drag": pointer.drag,
    "wait": view.wait,
}


class ComputerTool:
    """The ``computer`` tool over the shared channel, coordinate models and kept screenshots."""

    def __init__(
        self, channel: PageChannel, contexts: ContextBook, images: ImageStore | None = None
    ) -> None:
        self._parts = ComputerParts(channel, contexts, images)
        self._handler = guarded(self._run, on_dialog=dialog_outcome)

    async def __call__(self, call: ToolCall) -> ToolResult:
        return await self._handler(call)

    async def _run(self, call: ToolCall, tab: int) -> ToolResult:
        action = str(call.arguments.get("action", ""))
        run = ACTIONS.get(action)
        if run is None:
            raise ToolInputError(f'Unknown computer action "{action}".')
        try:
            return await run(self._parts, call, tab)
        except OtherSiteRefused as refused:
            return ToolResult.text(str(refused), kind="denied")
        except RefUnreachable as refused:
            return refused.result
