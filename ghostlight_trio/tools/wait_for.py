"""``wait_for``: wait until an element is visible, present or gone, or the page settles.

It polls the page's ``wait_probe`` content mechanism, checkpointing between polls so a cancelled
call stops promptly. Page-sourced text is fenced as untrusted page content (see
``shared/provenance.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
import trio

from ..browser.errors import BrowserError
from ..browser.failures import OUT_OF_REACH_CODES, UNANSWERED_CODES
from ..engine.contracts import ToolCall, ToolResult
from ..untrusted.excerpt import quoted
from .shared.channel import PageChannel
from .shared.guard import ToolInputError
from .shared.provenance import fenced_place, page_facts, page_url, provenance, wrap_page_text
from .shared.shaping import actionable, element_line

WAIT_STATES = ("visible", "present", "gone", "settled")
WAIT_DEFAULT_MS = 10_000
WAIT_MAX_MS = 30_000
"""Half the caller's 60 s: a wait that runs out still answers in time, with room to spare."""
POLL_SECONDS = 0.15
"""Spacing of the page observations while waiting."""
AT_REST_OUT_OF_REACH_S = 1.0
"""How long a page no extension may read must stay so, with the tab at rest, before wait_for
says waiting cannot help: a navigation a script has just asked for may not show yet."""
QUIET_MS = 500
"""A page whose DOM did not change for this long (document complete) has settled."""
RATE_WINDOW_MS = 1_000
PROBE_WAIT_MS = 4_000
PROBE_BOUND = 6.0
FATAL_PROBE_CODES = frozenset(
    {"bad_selector", "bad_args", "tab_not_found", "unknown_mechanism", "page_crashed",
     "page_unloaded"}
)  # fmt: skip



@attrs.frozen
class WaitFor:
    _channel: PageChannel

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        plan = _wait_plan(call.arguments)
        watch = _Settling()
        start = trio.current_time()
        deadline = start + plan.timeout_ms / 1000
        last: dict[str, Any] | None = None
        last_error: BrowserError | None = None
        out_of_reach_since: float | None = None
        met = False
        while True:
            try:
                last = await self._probe(call, tab, plan, deadline)
                last_error = None
            except BrowserError as error:
                if error.code in FATAL_PROBE_CODES:
                    raise
                # Out of reach, and not a tab on its way elsewhere (the read says that with
                # navigation_pending): the page stays as it is, unless a navigation just asked
                # for has yet to show.
                at_rest = error.code in OUT_OF_REACH_CODES
                if not at_rest:
                    out_of_reach_since = None
                elif out_of_reach_since is None:
                    out_of_reach_since = trio.current_time()
                elif trio.current_time() - out_of_reach_since >= AT_REST_OUT_OF_REACH_S:
                    raise  # it stays what it is: waiting cannot make it readable
                last_error = error  # between documents, or a page not answering yet
            elapsed_ms = (trio.current_time() - start) * 1000
            if last is not None and last_error is None:
                watch.note(elapsed_ms, last)
                met = _condition(plan, last, watch)
                settled_ok = not plan.settle or watch.settled
                if met and settled_ok and elapsed_ms >= plan.min_ms:
                    break
            if trio.current_time() >= deadline:
                break
            await call.effects.checkpoint()
            await trio.sleep(POLL_SECONDS)
            await call.effects.checkpoint()
        elapsed_ms = round((trio.current_time() - start) * 1000)
        if last is None:
            assert last_error is not None
            if last_error.code in UNANSWERED_CODES:
                # The last probe's own bound is only what was left of the wait: say how long
                # nothing answered over the whole call.
                who = "page" if last_error.code == "page_timeout" else "browser"
                raise BrowserError(
                    f"The {who} did not answer during the {elapsed_ms} ms this call waited"
                    f" (timeout_ms {plan.timeout_ms}), so the condition could not be checked;"
                    " nothing was changed",
                    hop=last_error.hop,
                    code=last_error.code,
                )
            raise last_error
        return self._wait_result(call, tab, plan, last, watch, met, elapsed_ms)

    async def _probe(
        self, call: ToolCall, tab: int, plan: _WaitPlan, deadline: float
    ) -> dict[str, Any]:
        remaining = max(1.0, deadline - trio.current_time() + 1.0)
        bound = min(PROBE_BOUND, remaining)
        wait_ms = int(min(PROBE_WAIT_MS, max(500.0, (bound - 1.0) * 1000)))
        probe_args: dict[str, Any] = {}
        if plan.selector is not None:
            probe_args["selector"] = plan.selector
        if plan.text is not None:
            probe_args["text"] = plan.text
        value = await self._channel.content(
            call, tab, "wait_probe", probe_args, bound, read=True, wait_ms=wait_ms
        )
        if not isinstance(value, dict):
            raise BrowserError("The page gave no observation", hop="page", code="no_answer")
        return value

    def _wait_result(
        self,
        call: ToolCall,
        tab: int,
        plan: _WaitPlan,
        last: dict[str, Any],
        watch: _Settling,
        met: bool,
        elapsed_ms: int,
    ) -> ToolResult:
        ws = call.context.workspace_id
        page = page_facts(
            tab, str(last.get("url", "")), str(last.get("title", "")), last.get("renderSerial")
        )
        settling = plan.settle or plan.state == "settled"
        found = met and (not plan.settle or watch.settled)
        structured: dict[str, Any] = {"found": found, "elapsed_ms": elapsed_ms}
        element = last.get("element") if isinstance(last.get("element"), dict) else None
        if found and element is not None and plan.state != "gone":
            structured["ref"] = str(element.get("ref", ""))
        if settling:
            structured.update(
                settled=watch.settled,
                peak_mutations=watch.peak,
                final_rate=watch.final_rate(),
            )
        target = plan.describe()
        if found and plan.state == "gone" and _unsearched(last) is not None:
            summary = f"Condition met after {elapsed_ms} ms for this document only: {target}."
        elif found:
            summary = f"Condition met after {elapsed_ms} ms: {target}."
        elif met:
            summary = (
                f"Condition met ({target}) but the page had not settled"
                f" within {plan.timeout_ms} ms."
            )
        else:
            summary = f"Not met within {plan.timeout_ms} ms: expected that {target}."
        if plan.state in ("visible", "gone") and plan.has_target():
            count, visible = int(last.get("count", 0)), int(last.get("visible", 0))
            checked = last.get("visibleChecked")
            among = f" among the first {checked} checked" if isinstance(checked, int) else ""
            summary += f" Last observation: {count} matching element(s), {visible} visible{among}."
        unsearched = _unsearched(last) if plan.has_target() else None
        if unsearched is not None:
            structured["unsearchedFrames"] = unsearched
            summary += _unsearched_note(unsearched, plan.state, met)
        if last.get("capped"):
            scanned = int(last.get("scanned", 0) or 0)
            summary += (
                f" Could not check the whole page ({scanned} elements searched, the rest not):"
                " an absence there is not confirmed."
            )
        if settling:
            summary += (
                f" Settled: {'yes' if watch.settled else 'no'}; peak {watch.peak} DOM"
                f" mutation(s) between polls; {watch.final_rate()} mutation(s)/s at the end."
            )
        pending = last.get("pendingUrl")
        going = None
        if isinstance(pending, str) and pending:
            summary += (
                " The tab is navigating to another page (pendingUrl, below), which has not"
                " loaded yet: what was observed is the page it is leaving."
            )
            structured["pendingUrl"] = page_url(pending)
            going = fenced_place({"pendingUrl": structured["pendingUrl"]}, ws)
        structured["page"] = page
        structured["provenance"] = provenance(ws, page["origin"])
        blocks = [summary] if going is None else [summary, going]
        if element is not None and plan.state != "gone":
            blocks.append(
                wrap_page_text(
                    element_line(actionable(element), element.get("text")), ws, page["origin"]
                )
            )
        return ToolResult.text("\n".join(blocks), structured=structured)


@attrs.frozen
class _WaitPlan:
    selector: str | None
    text: str | None
    state: str
    timeout_ms: int
    min_ms: int
    settle: bool

    def has_target(self) -> bool:
        return self.selector is not None or self.text is not None

    def describe(self) -> str:
        if self.state == "settled":
            return "the page settles (document complete, no DOM changes for 500 ms)"
        parts = []
        if self.selector is not None:
            parts.append(f"selector {quoted(self.selector)}")
        if self.text is not None:
            parts.append(f"text {quoted(self.text)}")
        what = " with ".join(parts)
        return {
            "visible": f"an element matching {what} is visible",
            "present": f"an element matching {what} is present",
            "gone": f"no element matching {what} is visible",
        }[self.state]


def _wait_plan(arguments: Mapping[str, Any]) -> _WaitPlan:
    selector = arguments.get("selector")
    text = arguments.get("text")
    if isinstance(text, str) and not text.strip():
        raise ToolInputError(
            "text is blank: give the words to wait for, or leave text out"
            " (state settled waits for the page to settle)."
        )
    selector = selector if isinstance(selector, str) and selector.strip() else None
    text = text if isinstance(text, str) else None
    state = arguments.get("state")
    if state is None:
        state = "visible" if selector is not None or text is not None else "settled"
    if state not in WAIT_STATES:
        raise ToolInputError('state must be "visible", "present", "gone" or "settled".')
    if state != "settled" and selector is None and text is None:
        raise ToolInputError(f"state {state} needs a selector or text to wait for.")
    asked = arguments.get("timeout_ms")
    if isinstance(asked, int | float) and not isinstance(asked, bool) and asked > WAIT_MAX_MS:
        raise ToolInputError(
            f"timeout_ms is at most {WAIT_MAX_MS} ({WAIT_MAX_MS // 1000} s); nothing was waited"
            " for. To wait longer, call wait_for again."
        )
    timeout_ms = _bounded_ms(asked, WAIT_DEFAULT_MS, WAIT_MAX_MS)
    min_ms = min(_bounded_ms(arguments.get("min_ms"), 0, WAIT_MAX_MS), timeout_ms)
    settle = arguments.get("settle") is True
    return _WaitPlan(selector, text, state, timeout_ms, min_ms, settle)


def _bounded_ms(value: Any, default: int, ceiling: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return default
    return int(min(max(0, value), ceiling))


class _Settling:
    """Mutation bookkeeping across observations: peak per poll, rate at the end, quiet time."""

    def __init__(self) -> None:
        self.peak = 0
        self.settled = False
        self._history: list[tuple[float, int]] = []  # (elapsed ms, mutations added since start)
        self._total = 0
        self._last: tuple[Any, int] | None = None  # (url, mutations)
        self._quiet_since: float | None = None

    def note(self, at_ms: float, observation: dict[str, Any]) -> None:
        mutations = observation.get("mutations")
        mutations = mutations if isinstance(mutations, int) else 0
        url = observation.get("url")
        delta = 0
        changed = False
        if self._last is not None:
            last_url, last_mutations = self._last
            if url != last_url or mutations < last_mutations:
                changed = True  # a new document (the counter restarted)
                delta = max(0, mutations)
            else:
                delta = mutations - last_mutations
                changed = delta > 0
        self._last = (url, mutations)
        self.peak = max(self.peak, delta)
        self._total += delta
        self._history.append((at_ms, self._total))
        if changed or self._quiet_since is None:
            self._quiet_since = at_ms
        # A tab on its way to another page has not settled, however still the page it leaves.
        complete = observation.get("readyState") == "complete" and not observation.get("pendingUrl")
        self.settled = complete and (at_ms - self._quiet_since) >= QUIET_MS

    def final_rate(self) -> float:
        """DOM mutations per second over the last second observed."""
        if len(self._history) < 2:
            return 0.0
        end_ms, end_total = self._history[-1]
        start_ms, start_total = self._history[0]
        for at_ms, total in self._history:
            if end_ms - at_ms <= RATE_WINDOW_MS:
                start_ms, start_total = at_ms, total
                break
        span = end_ms - start_ms
        if span <= 0:
            return 0.0
        return round((end_total - start_total) * 1000 / span, 1)


def _unsearched(observation: dict[str, Any]) -> dict[str, Any] | None:
    """The shown cross-origin frames an observation could not search ({count, origins})."""
    frames = observation.get("opaqueFrames")
    if not isinstance(frames, dict) or not int(frames.get("count", 0) or 0):
        return None
    origins = [str(o) for o in frames.get("origins", []) if isinstance(o, str)]
    return {"count": int(frames["count"]), "origins": origins}


def _unsearched_note(frames: dict[str, Any], state: str, met: bool) -> str:
    """Where the answer stops: an absence (gone met, visible or present not met) holds for this
    document only, as what the frames show was not searched."""
    if (state == "gone") != met:
        return ""  # a match was seen, or "gone" failed on this document already
    count = frames["count"]
    which = f" ({', '.join(frames['origins'])})" if frames["origins"] else ""
    if count == 1:
        return (
            f" 1 cross-origin frame{which} was not searched: what it shows was not checked; use a"
            " screenshot and coordinates inside it."
        )
    return (
        f" {count} cross-origin frames{which} were not searched: what they show was not checked;"
        " use a screenshot and coordinates inside them."
    )


def _condition(plan: _WaitPlan, observation: dict[str, Any], watch: _Settling) -> bool:
    if plan.state == "settled":
        return watch.settled
    count = int(observation.get("count", 0) or 0)
    visible = int(observation.get("visible", 0) or 0)
    if plan.state == "present":
        return count > 0
    if plan.state == "visible":
        return visible > 0
    # gone: a page not read whole proves no absence.
    return visible == 0 and not observation.get("capped")
