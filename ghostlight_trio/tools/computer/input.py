"""Sending a computer action's input events: in runs of one request each, a cancel seen only
between runs, and a JavaScript dialog that stops the run recorded with how far it got."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import Any

import attrs
import trio

from ...browser.errors import BrowserError
from ...engine.contracts import ToolCall
from ..shared.channel import Observed, PageChannel
from ..shared.dialogs import PageDialog

CLICKS = {
    "left_click": ("left", 1),
    "right_click": ("right", 1),
    "double_click": ("left", 2),
    "triple_click": ("left", 3),
}
BUTTON_BITS = {"left": 1, "right": 2, "middle": 4}
MOUSE = "Input.dispatchMouseEvent"
KEY = "Input.dispatchKeyEvent"

Step = tuple[str, dict[str, Any], float, bool]
"""One input event: CDP method, params, pause before it (seconds), checkpoint before it."""
RUN_STEPS = 64
"""Input events sent as one request before the next checkpoint (32 typed characters)."""
MAX_RUN_STEPS = 256
"""The most commands the extension takes in one ``cdp_sequence``."""


@attrs.frozen
class Look:
    """The page observed just before an action's first events, in their own request.

    ``hold_if``: the observation's facts on which the extension holds the events unsent;
    ``judge``: the check the action makes of the observation before anything goes out (it
    raises to refuse, and reads only those facts, so events sent unheld never needed it);
    ``bound``: the observation's own bound."""

    hold_if: tuple[str, ...]
    judge: Callable[[Observed], Awaitable[None]]
    bound: float


@attrs.frozen
class Sent:
    """What sending an action brought back: the page before it (with a ``Look``) and the
    page's answer once it came to rest (with ``settle``)."""

    before: Observed = None
    settled: dict[str, Any] | None = None


async def send(
    channel: PageChannel,
    call: ToolCall,
    tab: int,
    steps: list[Step],
    *,
    summary: str,
    started: bool = False,
    final: bool = True,
    done: Mapping[int, str] | None = None,
    settle: dict[str, Any] | None = None,
    look: Look | None = None,
) -> Sent:
    """Send input events in order. A dialog that opens stops the rest; the ``PageDialog``
    records whether anything of the action went out (``started``: earlier events did) and
    whether its last event was delivered (``final``: these are the action's last events).
    ``done`` maps a step's index to what has taken effect once it is sent, for a call
    stopped part way to report.

    Events go out in runs (``_runs``), each one request, so typing costs a round trip per
    run, not per key. A cancel stops the action only between runs, at a checkpoint step (or
    before anything went out): the rest of a press goes out shielded, since a key or button
    left down would stay down in the page.

    ``settle`` (what the receipt's observation names): the last run also asks the page to come
    to rest, in the same request; what it answered (for ``finish``), or None.

    ``look``: the page is observed first, in the first run's request (``Look``)."""
    settled: dict[str, Any] | None = None
    before: Observed = None
    for first, end in _runs(steps):
        _, _, pause, checkpoint = steps[first]
        if pause:
            await trio.sleep(pause)
        if checkpoint:
            await call.effects.checkpoint()
        continuing = not checkpoint and (started or first > 0)
        try:
            with trio.CancelScope(shield=continuing):
                last = settle if end == len(steps) else None
                run = [(method, params) for method, params, _, _ in steps[first:end]]
                joined = _joined(steps[first:end])
                went = False  # with the page observed before it, in one request
                if look is not None and first == 0:
                    before, went, settled = await _looked_run(
                        channel, call, tab, look, run, last, joined
                    )
                if not went and len(run) == 1 and last is None:
                    await channel.cdp(call, tab, *run[0])
                elif not went:
                    settled = await channel.cdp_sequence(call, tab, run, settle=last, joined=joined)
        except PageDialog as stop:
            index = first + stop.completed  # the event the dialog met
            _note_done(call, done, index)
            went_out = started or index > 0 or stop.delivered
            stop.stage = "during" if went_out else "before"
            stop.complete = final and stop.delivered and first + stop.sent == len(steps)
            stop.summary = summary
            raise
        except BrowserError as error:
            if error.completed is not None:
                _note_done(call, done, first + error.completed)
            raise
        _note_done(call, done, end)
    return Sent(before, settled)


async def _looked_run(
    channel: PageChannel, call: ToolCall, tab: int, look: Look,
    run: list[tuple[str, dict[str, Any]]], last: dict[str, Any] | None, joined: frozenset[int],
) -> tuple[Observed, bool, dict[str, Any] | None]:  # fmt: skip
    """The first run, sent with the page observed just before it: the observation, whether
    the run went out with it, and the settled answer. A run the extension held (or an
    extension that cannot observe first) is judged here and left for the caller to send."""
    looked = await channel.observed_sequence(
        call, tab, run, hold_if=look.hold_if, settle=last, joined=joined, observe_bound=look.bound
    )
    if looked is None:  # an extension without the op: observed on its own
        before, went, settled = await channel.observe(call, tab, {}, look.bound), False, None
    else:
        before, went, settled = looked
    if not went:
        await look.judge(before)
    return before, went, settled


def _joined(run: list[Step]) -> frozenset[int]:
    """The steps of ``run`` that go out at once behind the one before them: the rest of a
    key's press (its release, modifiers' releases), which no checkpoint or pause splits. The
    browser delivers them in order, and typing costs one wait per key instead of two."""
    return frozenset(
        index
        for index in range(1, len(run))
        if run[index][0] == KEY and run[index - 1][0] == KEY
        and not run[index][3] and not run[index][2]
    )  # fmt: skip


def _runs(steps: list[Step]) -> Iterator[tuple[int, int]]:
    """Runs of steps sent as one request, as ``(first, end)``: a run ends before a step with a
    pause (waited out here) and, once it holds ``RUN_STEPS`` steps, before the next checkpoint
    step, so a cancel is seen every ``RUN_STEPS`` events or so."""
    first = 0
    for index in range(1, len(steps) + 1):
        if (
            index == len(steps)
            or steps[index][2] > 0
            or (steps[index][3] and index - first >= RUN_STEPS)
            or index - first >= MAX_RUN_STEPS
        ):
            yield first, index
            first = index


def _note_done(call: ToolCall, done: Mapping[int, str] | None, sent: int) -> None:
    """Report the furthest point of ``done`` reached once the first ``sent`` steps went out."""
    if done is None:
        return
    reached = [index for index in done if index < sent]
    if reached:
        call.effects.done_so_far(done[max(reached)])


def mouse_step(kind: str, x: float, y: float, *, pause: float = 0.0, **extra: Any) -> Step:
    return (MOUSE, {"type": kind, "x": x, "y": y, **extra}, pause, False)
