"""One browser request per engine effect, for the page tools.

Every request that may change the page runs inside ``call.effects.atomic`` (once sent it
drains, even on cancel) and an unknown outcome is handed to the engine as ``UncertainEffect`` so
it can quarantine the tab. Pure reads (``PageChannel.read``) change nothing, so an unanswered
read is reported as a plain failure and leaves the tab usable. A JavaScript dialog that answers or
refuses a request is raised as ``PageDialog`` (see ``dialogs.py``); ``guard.guarded`` turns it,
bad arguments and browser failures into the tool's result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import trio

from ...browser.errors import BrowserError, BrowserFailure, OutcomeUnknown
from ...browser.failures import OUT_OF_REACH_CODES, UNANSWERED_CODES
from ...engine.contracts import ToolCall
from .atomic import atomic_request
from .dialogs import PageDialog, check_answer, refusal
from .guard import ToolInputError
from .protocols import BrowserRequests
from .provenance import page_facts

CDP_TIMEOUT = 20.0
"""Bound on one CDP command through the extension."""
CONTENT_TIMEOUT = 20.0
"""Bound on one content-script mechanism, including injection."""
CONTENT_WAIT_MS = 15_000
"""How long the extension waits for the page's answer."""
INFO_BOUND = 10.0
"""Bound on a ``tab_info`` read."""
SEQUENCE_ALLOWANCE = 0.05
"""Added to ``CDP_TIMEOUT`` per command of a ``cdp_sequence``."""
PENDING_PROBE = 3.0
"""Bound on the ``tab_info`` that tells an unanswered read of a navigating tab."""
UNKNOWN_OP = "unknown_op"
Observed = dict[str, Any] | None
"""A page observation, or None where no script could look."""
ACTED_KEPT = 1024
"""Tabs whose last acting call is remembered (for ``settle``)."""
SETTLE_WITHIN = 0.6
"""Longest wait for a page to come to rest after an action (it answers then, still moving)."""
SETTLED_ANSWER = 0.4
"""How long past its rest bound a page may take to answer a settle sent with an input."""
SETTLED_MARGIN = 0.5
"""Added to a request's bound for the extension's own part of such a settle."""
SINCE_SLACK_MS = 20
"""Added to how long ago an action began, so a request it started is never judged older."""
KEPT_MOVING = "kept moving for a second (an animation, or a page still laying itself out)"
"""What ``hit_test``'s ``moving`` means, as every tool that aims at a ref says it."""
SETTLE_THEN_RETRY = (
    "Wait for the page to settle (wait_for with state settled) and retry, or take a screenshot"
    " and act at a point of it."
)


class PageChannel:
    """The browser requests the page tools make, each as one effect of the calling work.

    Methods that take ``read=True`` send a side-effect-free request through ``read`` instead.
    """

    def __init__(self, browser: BrowserRequests) -> None:
        self._browser = browser
        self._sequences = True
        """False once an extension answered that it has no ``cdp_sequence`` (an older one)."""
        self._settles = True
        """False once an extension answered that it has no ``settle`` (an older one)."""
        self._observes = True
        """False once an extension answered that it has no ``observed`` (an older one)."""
        self._acted: dict[int, tuple[int, float, float]] = {}
        """Per tab: the call that last changed it, when its first and its last change went out."""

    def _note_acting(self, call: ToolCall, args: dict[str, Any]) -> None:
        tab = args.get("tabId")
        if not isinstance(tab, int):
            return
        now = trio.current_time()
        who, first, _ = self._acted.get(tab, (None, now, now))
        if len(self._acted) >= ACTED_KEPT and tab not in self._acted:
            self._acted.clear()  # tabs long closed: a call only ever asks of its own
        self._acted[tab] = (id(call), first if who == id(call) else now, now)

    def acted_for(self, call: ToolCall, tab: int) -> tuple[float, float]:
        """Seconds since ``call`` first and last changed ``tab`` (0 when it has not)."""
        who, first, last = self._acted.get(tab, (None, 0.0, 0.0))
        if who != id(call):
            return 0.0, 0.0
        now = trio.current_time()
        return now - first, now - last

    async def request(
        self, call: ToolCall, op: str, args: dict[str, Any], bound: float, *,
        wait_ends_on_cancel: bool = False,
    ) -> dict[str, Any]:  # fmt: skip
        ws = _workspace(call)
        self._note_acting(call, args)
        try:
            answer = await atomic_request(
                call, self._browser, ws, op, args, bound, wait_ends_on_cancel=wait_ends_on_cancel
            )
        except BrowserError as error:
            raise refusal(error) or error from None
        return check_answer(answer)

    async def read(
        self, call: ToolCall, op: str, args: dict[str, Any], bound: float
    ) -> dict[str, Any]:
        """A request with no effect on the page (a probe, a screenshot), outside the effect path.

        A read that gets no answer is an error, not an uncertain effect: nothing can have
        changed, so the tab is not quarantined.
        """
        ws = _workspace(call)
        await call.effects.checkpoint()
        try:
            return check_answer(await self._browser.request(ws, op, args, timeout=bound))
        except BrowserError as error:
            error.delivered = False  # a read changes nothing, whatever became of it
            stop = refusal(error)
            if stop is not None:
                raise stop from None
            unanswered = error
        except OutcomeUnknown as unknown:
            unanswered = BrowserError(
                f"The browser did not answer the read-only {op} request in time; nothing"
                f" was changed ({unknown.message})",
                hop="extension",
                code="read_timeout",
            )
        if unanswered.code in UNANSWERED_CODES or unanswered.code in OUT_OF_REACH_CODES:
            unanswered = await self._navigating(ws, op, args, unanswered)
        raise unanswered

    async def _quick_info(self, ws: Any, tab: int) -> dict[str, Any]:
        """The tab's ``tab_info`` within a short bound; empty when it cannot be read."""
        try:
            info: dict[str, Any] = await self._browser.request(
                ws, "tab_info", {"tabId": tab}, timeout=PENDING_PROBE
            )
        except BrowserFailure:
            return {}
        return info

    async def _navigating(
        self, ws: Any, op: str, args: dict[str, Any], unanswered: BrowserError
    ) -> BrowserError:
        """Why a read failed when the tab is on its way to another page (a link to a slow
        server, a new tab's first page): that, not a busy page or one no extension may read
        (the about:blank a new tab shows until then), is the reason to give. So a read that
        fails this way with ``navigation_pending`` may succeed later; with its own code, the
        tab was at rest when asked (or could not be asked)."""
        tab = args.get("tabId")
        if not isinstance(tab, int):
            return unanswered
        info = await self._quick_info(ws, tab)
        pending = info.get("pendingUrl")
        out_of_reach = unanswered.code in OUT_OF_REACH_CODES
        if isinstance(pending, str) and pending:
            heading = f"navigating to {pending}"
        elif out_of_reach and info.get("status") == "loading":
            heading = "loading another page"  # a script's navigation, before Chrome names it
        else:
            return unanswered
        if out_of_reach:
            why = "the page it shows until then is one no extension may read"
        else:
            why = (
                f"the page it is leaving did not answer the {op} request (a script of its own"
                " may hold it, and the navigation with it)"
            )
        return BrowserError(
            f"Tab {tab} is {heading}, which has not loaded yet, and {why}; nothing was changed",
            hop="page",
            code="navigation_pending",
        )

    async def cdp(
        self, call: ToolCall, tab: int, method: str, params: dict[str, Any] | None = None,
        bound: float = CDP_TIMEOUT, *, read: bool = False,
    ) -> dict[str, Any]:  # fmt: skip
        """One CDP command on the tab; its result object."""
        send = self.read if read else self.request
        answer = await send(
            call, "cdp", {"tabId": tab, "method": method, "params": params or {}}, bound
        )
        result = answer.get("result")
        return result if isinstance(result, dict) else {}

    async def cdp_sequence(
        self, call: ToolCall, tab: int, commands: Sequence[tuple[str, dict[str, Any]]], *,
        settle: dict[str, Any] | None = None, joined: frozenset[int] = frozenset(),
    ) -> dict[str, Any] | None:  # fmt: skip
        """CDP commands on the tab, sent in order as one request (one round trip for a whole
        run of input events). A dialog raises ``PageDialog`` and a failure ``BrowserError``,
        each with ``completed``: how many of the commands were answered before it.

        ``settle`` (what the observation names): once the commands went through, the page is
        asked to come to rest in the same request (see ``settle``); its answer, unread (a
        dialog in it is the caller's to raise, as one met after the action), or None.

        ``joined``: the indexes of commands sent at once behind the one before them, without
        waiting for its answer (a key's release behind its press)."""
        if self._sequences:
            args, bound = self._sequence_request(call, tab, commands, settle, joined)
            self._note_acting(call, args)
            answer = await self._newer_request(call, "cdp_sequence", args, bound)
            if answer is not None:
                return _sequence_settled(answer)
            self._sequences = False
        for done, (method, params) in enumerate(commands):
            try:
                await self.cdp(call, tab, method, params)
            except (PageDialog, BrowserError) as stop:
                stop.completed = done
                raise
        return None

    def _sequence_request(
        self, call: ToolCall, tab: int, commands: Sequence[tuple[str, dict[str, Any]]],
        settle: dict[str, Any] | None, joined: frozenset[int],
    ) -> tuple[dict[str, Any], float]:  # fmt: skip
        """A ``cdp_sequence`` request's arguments, and its bound."""
        listed = [
            {"method": method, "params": params, **({"joined": True} if i in joined else {})}
            for i, (method, params) in enumerate(commands)
        ]
        args: dict[str, Any] = {"tabId": tab, "commands": listed}
        bound = CDP_TIMEOUT + SEQUENCE_ALLOWANCE * len(commands)
        if settle is not None:
            # The page gets a short while to answer: a page busy past it is asked again on its
            # own, and the commands' own bound barely grows (an input the page never takes is
            # still told from one it took in time).
            args["settle"] = self._settle_sent_with(call, tab, settle)
            bound += SETTLE_WITHIN + SETTLED_ANSWER + SETTLED_MARGIN
        return args, bound

    def _settle_sent_with(self, call: ToolCall, tab: int, where: dict[str, Any]) -> dict[str, Any]:
        """The ``settle`` argument of a request that acts, for the page to come to rest once
        it did (a short while to answer it)."""
        asked = self._settle_request(call, tab, where, SETTLE_WITHIN, after=True)
        asked["timeoutMs"] = int((SETTLE_WITHIN + SETTLED_ANSWER) * 1000)
        return asked

    async def observed_sequence(
        self, call: ToolCall, tab: int, commands: Sequence[tuple[str, dict[str, Any]]], *,
        hold_if: Sequence[str], settle: dict[str, Any] | None = None,
        joined: frozenset[int] = frozenset(), observe_bound: float = CONTENT_TIMEOUT,
    ) -> tuple[Observed, bool, dict[str, Any] | None] | None:  # fmt: skip
        """``cdp_sequence`` with the page observed just before, in the same request: the
        observation (None where no script runs), whether the commands went out, and the
        settled answer. The extension holds them unsent when the page shows one of
        ``hold_if``'s facts: the caller judges the observation and sends them itself. None
        from an extension without ``observed`` (nothing was sent)."""
        args, bound = self._sequence_request(call, tab, commands, settle, joined)
        answer = await self._observed(
            call, tab, "cdp_sequence", args, bound + observe_bound, hold_if, observe_bound
        )
        if answer is None:
            return None
        before, then = answer
        return (before, False, None) if then is None else (before, True, _sequence_settled(then))

    async def observed_content(
        self, call: ToolCall, tab: int, fn: str, args: dict[str, Any], *,
        settle: dict[str, Any] | None = None, observe_bound: float = CONTENT_TIMEOUT,
    ) -> tuple[Observed, Any, dict[str, Any] | None] | None:  # fmt: skip
        """The content mechanism ``fn`` with the page observed just before it and, with
        ``settle``, asked to come to rest after it, all in one request: the observation (None
        where no script runs), the mechanism's value and the settled answer (unread), or None
        from an extension without ``observed`` (nothing was sent)."""
        request: dict[str, Any] = {
            "tabId": tab, "fn": fn, "args": args, "timeoutMs": _page_wait_ms(CONTENT_TIMEOUT),
        }  # fmt: skip
        bound = CONTENT_TIMEOUT + observe_bound
        if settle is not None:
            request["settle"] = self._settle_sent_with(call, tab, settle)
            bound += SETTLE_WITHIN + SETTLED_ANSWER + SETTLED_MARGIN
        answer = await self._observed(call, tab, "content", request, bound, (), observe_bound)
        if answer is None:
            return None
        before, then = answer
        if then is None:  # held: nothing names a fact to hold on, so only a foreign answer
            raise BrowserError(
                f"The browser held the {fn} request unasked", hop="extension", code="bad_answer"
            )
        settled = then.get("settled")
        value = _page_value(check_answer(then), fn)
        return before, value, settled if isinstance(settled, dict) else None

    async def _observed(
        self, call: ToolCall, tab: int, op: str, args: dict[str, Any], bound: float,
        hold_if: Sequence[str], observe_bound: float,
    ) -> tuple[Observed, dict[str, Any] | None] | None:  # fmt: skip
        """One ``observed`` request: the observation and the answer of ``op``, or None as that
        answer when it was held; None from an extension without the op. A dialog met by the
        observation raises ``PageDialog``: nothing was sent."""
        if not self._observes:
            return None
        request = {
            "tabId": tab,
            "observe": {"args": {}, "timeoutMs": _page_wait_ms(observe_bound)},
            "holdIf": list(hold_if),
            "then": {"op": op, "args": args},
        }
        self._note_acting(call, args)
        answer = await self._newer_request(call, "observed", request, bound)
        if answer is None:
            self._observes = False
            return None
        seen = answer.get("observed")
        dialog = seen.get("dialog") if isinstance(seen, dict) else None
        if isinstance(dialog, dict):  # the page was paused before anything was sent
            raise PageDialog(dialog, delivered=False)
        before = _page_value(seen, "observe") if isinstance(seen, dict) else None
        then = answer.get("answer")
        return (before if isinstance(before, dict) else None), (
            then if isinstance(then, dict) and not answer.get("held") else None
        )

    async def _newer_request(
        self, call: ToolCall, op: str, args: dict[str, Any], bound: float
    ) -> dict[str, Any] | None:
        """A request of an op an older extension lacks: its answer, or None when the extension
        answered that it has no such op (refused unread: nothing of it ran)."""
        try:
            return await atomic_request(call, self._browser, _workspace(call), op, args, bound)
        except BrowserError as error:
            if error.code != UNKNOWN_OP:
                raise refusal(error) or error from None
            return None

    async def content(
        self,
        call: ToolCall,
        tab: int,
        fn: str,
        args: dict[str, Any] | None = None,
        bound: float = CONTENT_TIMEOUT,
        *,
        read: bool = False,
        wait_ms: int | None = None,
        op: str = "content",
    ) -> Any:
        """One content-script mechanism in the tab's top frame; its value.

        ``wait_ms``: how long the extension waits for the page (by default what ``bound``
        leaves, at most ``CONTENT_WAIT_MS``). ``op``: ``settle`` asks the extension to wait
        for the requests the action started as well (see ``settle``).
        """
        if wait_ms is None:
            wait_ms = _page_wait_ms(bound)
        request = {"tabId": tab, "fn": fn, "args": args or {}, "timeoutMs": wait_ms}
        send = self.read if read else self.request
        try:
            answer = await send(call, op, request, bound)
        except BrowserError as error:
            if read or error.code != "page_timeout":
                raise
            # The page took the request and did not answer in time (busy with a script of its
            # own): it may still act on it once it is free, so this is no failure, and no
            # success either.
            unknown = OutcomeUnknown(
                f"{error.message.rstrip('.')}; the {fn} request was handed to the page, which may"
                " still carry it out once it is free"
            )
            unknown.hop = "page"
            raise unknown from None
        return _page_value(answer, fn)

    async def page_of(self, call: ToolCall, tab: int, answer: Any) -> dict[str, Any]:
        """The page a read's answer came from (``url``, ``title``, ``renderSerial``, and
        ``pendingUrl`` while the tab is on its way elsewhere), as the page made it once the
        answer was ready: from the answer itself, or asked for after it (``ping``, one more trip
        to the page) from an extension whose answers do not carry it."""
        page = answer.get("page") if isinstance(answer, dict) else None
        if not isinstance(page, dict):
            asked = await self.content(call, tab, "ping", read=True)
            return asked if isinstance(asked, dict) else {}
        pending = answer.get("pendingUrl")
        return {**page, "pendingUrl": pending} if pending else dict(page)

    async def observe(
        self, call: ToolCall, tab: int, where: dict[str, Any], bound: float = CONTENT_TIMEOUT
    ) -> dict[str, Any] | None:
        """One best-effort page observation (None where the content script cannot run)."""
        try:
            seen = await self.content(call, tab, "observe", where, bound, read=True)
        except BrowserFailure:
            return None
        return seen if isinstance(seen, dict) else None

    async def settle(
        self, call: ToolCall, tab: int, where: dict[str, Any], *, within: float
    ) -> Any:
        """The page observed once it came to rest after ``call``'s action (one request: the
        page waits for its DOM to go quiet, the extension for the requests the action
        started), at most ``within`` seconds; None from an extension without ``settle``."""
        if not self._settles:
            return None
        request = self._settle_request(call, tab, where, within, after=False)
        try:
            return await self.content(
                call, tab, "settle", request["args"], within + CONTENT_TIMEOUT, read=True,
                op="settle", wait_ms=request["timeoutMs"],
            )  # fmt: skip
        except BrowserError as error:
            if error.code != UNKNOWN_OP:
                raise
            self._settles = False
            return None

    def _settle_request(
        self, call: ToolCall, tab: int, where: dict[str, Any], within: float, *, after: bool
    ) -> dict[str, Any]:
        """The settle op's arguments. ``after``: sent with the action's last input, which the
        page takes just before it is asked, so its moment counts from then."""
        first, last = self.acted_for(call, tab)
        args = {
            **where,
            "maxMs": int(within * 1000),
            "requestsSinceMs": int(first * 1000) + SINCE_SLACK_MS,
            "sinceMs": 0 if after else int(last * 1000),
        }
        wait_ms = int(min(CONTENT_WAIT_MS, within * 1000 + CONTENT_TIMEOUT * 1000 - 2000))
        return {"args": args, "timeoutMs": wait_ms}

    def settled_value(self, answer: dict[str, Any]) -> Any:
        """The observation a ``cdp_sequence``'s ``settled`` answer carries, read as a
        ``content`` answer is (a dialog raises ``PageDialog``)."""
        return _page_value(check_answer(answer), "settle")

    async def evaluate(
        self, call: ToolCall, tab: int, expression: str, *, read: bool = False
    ) -> Any:
        """The by-value result of an expression evaluated in the page."""
        params = {"expression": expression, "returnByValue": True}
        result = await self.cdp(call, tab, "Runtime.evaluate", params, read=read)
        return (result.get("result") or {}).get("value")

    async def observe_ref(
        self,
        call: ToolCall,
        tab: int,
        ref: str,
        bound: float = CONTENT_TIMEOUT,
        *,
        near: bool = False,
        watch_press: dict[str, Any] | None = None,
        hit: bool = False,
    ) -> dict[str, Any]:
        """The page observed with the element behind ``ref`` as its ``target`` (and with
        ``near``, what is shown around it; with ``watch_press``, the page watches where the
        action's presses land on it, and ``pressWatch`` names that watch; with ``hit``, what a
        click at its centre would reach at once, when it is in view); a ref the page cannot
        resolve (stale, gone) is a page-hop ``BrowserError`` with the page's code."""
        args: dict[str, Any] = {"ref": ref, "near": True} if near else {"ref": ref}
        if watch_press is not None:
            args["watchPress"] = watch_press
        if hit:
            args["hit"] = True
        seen = await self.content(call, tab, "observe", args, bound, read=True)
        if not isinstance(seen, dict):
            raise BrowserError("The page gave no answer", hop="page", code="no_answer")
        problem = seen.get("targetError")
        if isinstance(problem, dict):
            raise BrowserError(
                str(problem.get("message", "")), hop="page", code=problem.get("code")
            )
        return seen

    async def reach_ref(
        self, call: ToolCall, tab: int, ref: str, *, in_view: bool,
        still: dict[str, Any] | None = None,
    ) -> dict[str, Any]:  # fmt: skip
        """What a click at the ref's centre would reach (the page's ``hit_test``: ``hit``,
        ``target``, ``covering``), once the ref is where it can be reached: out of view (below
        the fold, or scrolled away in a scroll container) it is scrolled to the middle first;
        covered where it stands (a sticky header over it), it is scrolled to the middle once
        and looked at again. ``still``: its box a rendered frame ago; where it has not moved
        since, it is not watched for another frame. Whether to act on a miss is the caller's
        to say."""
        if not in_view:
            await self.content(call, tab, "scroll_into_view", {"ref": ref})
        hit = await self._hit_test(call, tab, ref, still if in_view else None)
        if not hit.get("hit") and in_view:
            await self.content(call, tab, "scroll_into_view", {"ref": ref})
            hit = await self._hit_test(call, tab, ref)
        return hit

    async def _hit_test(
        self, call: ToolCall, tab: int, ref: str, still: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        args: dict[str, Any] = {"ref": ref} if still is None else {"ref": ref, "still": still}
        hit = await self.content(call, tab, "hit_test", args, read=True)
        if not isinstance(hit, dict) or not isinstance(hit.get("target"), dict):
            raise BrowserError("The page gave no answer", hop="page", code="no_answer")
        return hit

    async def tab_page(self, call: ToolCall, tab: int) -> dict[str, Any]:
        """The tab's page facts (url, title, origin) from a ``tab_info`` read."""
        info = await self.read(call, "tab_info", {"tabId": tab}, INFO_BOUND)
        return page_facts(tab, str(info.get("url", "")), str(info.get("title", "")), None)


def _page_wait_ms(bound: float) -> int:
    """How long the extension waits for the page within a request bounded by ``bound``
    seconds: what the bound leaves for the way back, at most ``CONTENT_WAIT_MS``."""
    return int(min(CONTENT_WAIT_MS, max(1.0, bound - 2.0) * 1000))


def _sequence_settled(answer: dict[str, Any]) -> dict[str, Any] | None:
    """A ``cdp_sequence`` answer read: a dialog raises ``PageDialog`` (with how many commands
    were answered and sent before it); else the settled answer it carries, or None."""
    dialog = answer.get("dialog")
    if isinstance(dialog, dict):
        completed, sent = answer.get("completed"), answer.get("sent")
        raise PageDialog(
            dialog,
            delivered=answer.get("delivered") is not False,
            completed=completed if type(completed) is int else 0,
            sent=sent if type(sent) is int else None,
        )
    settled = answer.get("settled")
    return settled if isinstance(settled, dict) else None


def _page_value(answer: dict[str, Any], fn: str) -> Any:
    """A content mechanism's value from the extension's answer, with where the tab is going
    when it is on its way to another page (the value is then of the page it leaves)."""
    if "value" not in answer:  # an extension's broken answer, never read as "nothing found"
        raise BrowserError(
            f"The extension's answer to the {fn} request carried no value",
            hop="extension",
            code="bad_answer",
        )
    value = answer.get("value")
    pending = answer.get("pendingUrl")
    if isinstance(value, dict) and isinstance(pending, str) and pending:
        value = {**value, "pendingUrl": pending}
    return value


def _workspace(call: ToolCall) -> Any:
    ws = call.context.workspace_id
    if ws is None:
        raise ToolInputError(f"{call.context.operation} needs a workspace; none was given.")
    return ws
