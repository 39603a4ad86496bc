"""``act_on``: find one element by ref, query or accessible name, act on it, and optionally wait
for what should follow.

The target is resolved first and the action refused, with nothing sent, when it is not one
clear element: no match (``target_missing``), several equally good ones (``ambiguous_target``,
with up to five candidates), a stale ref (``stale_ref``), or, for pointer actions, something
else on top of it (``covered_target``). The action itself is the computer tool's real input
(clicks, hover, scroll_to) or form_input's (set_value), under this call's own lease; ``expect``
then runs wait_for's condition and says whether it was met. A click whose press the page saw go
down or come up on something else (an overlay shown at that instant) is an error, as computer's
is, and nothing is waited for after it. An ``expect`` selector the page cannot parse is refused
before anything is done, as it could only fail after the action.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import attrs

from ..browser.errors import BrowserError, BrowserFailure
from ..engine.contracts import ToolCall, ToolHandler, ToolResult
from ..untrusted.excerpt import quoted
from .shared.channel import KEPT_MOVING, PageChannel
from .shared.guard import ToolInputError
from .shared.provenance import page_facts, provenance, wrap_page_text
from .shared.shaping import actionable, element_line, mechanical_actions

POINTER_ACTIONS = frozenset({"left_click", "right_click", "double_click", "hover"})
log = logging.getLogger("ghostlight.tools")
CONTROL_ROLES = frozenset(
    {"button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox",
     "menuitem", "menuitemcheckbox", "menuitemradio", "option", "tab", "switch", "slider",
     "spinbutton", "treeitem"}
)  # fmt: skip
"""Roles of controls: for an action on a control, they win over text that merely mentions it."""
EXPECT_DEFAULT_MS = 5_000
CANDIDATES_MAX = 5
FIND_LIMIT = 20
CUE_BOUND = 3.0
PROBE_BOUND = 6.0
EXPECT_STATES = {
    "visible": ("an element matching {} is visible", "an element matching {} would be visible"),
    "present": ("an element matching {} is present", "an element matching {} would be present"),
    "gone": ("no element matching {} is visible", "no element matching {} would be visible"),
}
"""The expectation in words, as met and as still awaited."""
NEXT_STEPS = {
    "target_missing": "check the page with find or read_page, then name the element as it appears",
    "ambiguous_target": "pick one of the candidates by its ref (target {\"ref\": ...}), or name"
    " the element more exactly (add a role)",
    "stale_ref": "the page changed since that ref was read: read it again with find or read_page",
    "covered_target": "close or scroll away what covers it (see candidates), then retry",
    "moving_target": "wait for the page to settle (wait_for with state settled), then retry",
}


@attrs.frozen
class Blocked(Exception):
    kind: str
    summary: str
    candidates: tuple[dict[str, Any], ...] = ()


@attrs.frozen
class ActOn:
    _channel: PageChannel
    _computer: ToolHandler
    _form_input: ToolHandler
    _wait_for: ToolHandler

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        arguments = call.arguments
        action = str(arguments["action"])
        target, how = _target_spec(arguments)
        expect = _expect_spec(arguments)
        if expect is not None and "selector" in expect:
            await self._check_selector(call, tab, str(expect["selector"]))
        try:
            element, assurance = await self._resolve(call, tab, target, how, action)
            if action in POINTER_ACTIONS:
                await self._check_reachable(call, tab, element)
        except Blocked as blocked:
            return await self._blocked(call, tab, action, blocked)
        ref = str(element["ref"])
        await self._cue(call, tab, ref)
        if action == "set_value":
            done = await self._form_input(
                _sub(call, {"ref": ref, "value": arguments["value"], "tabId": arguments["tabId"]})
            )
        else:
            done = await self._computer(
                _sub(call, {"action": action, "ref": ref, "tabId": arguments["tabId"]})
            )
        structured = dict(done.structured or {})
        receipt = dict(structured.get("interactionReceipt") or {})
        missed = "pressedInstead" in receipt.get("observedAfter", {})
        if done.kind != "ok" and not missed:
            return done
        lines = [f"act_on {action} on {ref} (target found by {how}, assurance {assurance})."]
        lines += [getattr(block, "text", "") for block in done.content]
        if receipt:
            receipt["targetAssurance"] = assurance
            receipt["action"] = action
        if missed:
            # The press went out but landed on something else (an overlay shown at that
            # instant): the target was not acted on, so what should follow is not waited for.
            if expect is not None:
                lines.append(
                    f"The expectation was not waited for: the target did not take the {action}."
                )
            structured["interactionReceipt"] = receipt
            return ToolResult.text("\n".join(lines), kind="tool_error", structured=structured)
        if expect is not None:
            await call.effects.checkpoint()
            waited = await self._wait_for(_sub(call, {**expect, "tabId": arguments["tabId"]}))
            met = waited.kind == "ok" and bool((waited.structured or {}).get("found"))
            structured["wait"] = waited.structured or {"error": _text(waited)}
            if receipt:
                receipt["observedAfter"] = {**receipt.get("observedAfter", {}), "expectMet": met}
            lines.append(_expect_line(expect, waited, met))
        if receipt:
            structured["interactionReceipt"] = receipt
        return ToolResult.text("\n".join(lines), structured=structured)

    async def _check_selector(self, call: ToolCall, tab: int, selector: str) -> None:
        """Refuse an expect selector the page cannot parse before anything is done: afterwards
        the action could not be taken back. One read-only look, as wait_for takes."""
        try:
            await self._channel.content(
                call, tab, "wait_probe", {"selector": selector}, PROBE_BOUND, read=True
            )
        except BrowserError as error:
            if error.code != "bad_selector":
                raise
            raise ToolInputError(
                f"expect selector {quoted(selector)} is not a valid CSS selector"
                f" ({error.message.rstrip('.')}); nothing was done."
            ) from None

    async def _resolve(
        self, call: ToolCall, tab: int, target: Mapping[str, Any], how: str, action: str
    ) -> tuple[dict[str, Any], str]:
        if how == "ref":
            seen = await self._channel.content(
                call, tab, "observe", {"ref": target["ref"]}, read=True
            )
            problem = seen.get("targetError") if isinstance(seen, dict) else None
            if isinstance(problem, dict):
                code = str(problem.get("code", ""))
                kind = "stale_ref" if code == "stale_ref" else "target_missing"
                raise Blocked(kind, str(problem.get("message", "")))
            return seen["target"], "ref"
        query = str(target.get("query") or target.get("name"))
        # Strict: a description matched loosely is for a reader to judge, never to act on.
        found = await self._channel.content(
            call, tab, "find_text", {"query": query, "limit": FIND_LIMIT, "strict": True}, read=True
        )
        fitting = list(found.get("results", []))
        if how == "name":
            wanted = " ".join(query.lower().split())
            role = str(target["role"]).strip().lower() if target.get("role") else None
            fitting = [
                r for r in fitting
                if " ".join(str(r.get("name", "")).lower().split()) == wanted
                and (role is None or str(r.get("role", "")).lower() == role)
            ]  # fmt: skip
        results = [r for r in fitting if _can(r, action)]
        if not results:
            disabled = [r for r in fitting if r.get("enabled") is False]
            raise Blocked(
                "target_missing",
                f"nothing on the page fits {how} {quoted(query)}"
                + (f" with role {quoted(str(target['role']))}" if target.get("role") else "")
                + f" and can take {action}"
                + (f": {', '.join(str(r.get('ref')) for r in disabled[:3])} fits but is disabled"
                   " (the page has not enabled it yet)." if disabled else "."),  # fmt: skip
                tuple((disabled or found.get("results", []))[:CANDIDATES_MAX]),
            )
        if action != "scroll_to" and any(r.get("role") in CONTROL_ROLES for r in results):
            results = [r for r in results if r.get("role") in CONTROL_ROLES]
        elif action in POINTER_ACTIONS and how == "query" and not any(
            r.get("interactive") for r in results
        ):
            # Only text mentions it (a paragraph saying "Next shipment ... page 1"): clicking
            # words is not what was asked for, and would report a click on nothing.
            raise Blocked(
                "target_missing",
                f"only text that is no control mentions {quoted(query)}; nothing was done.",
                tuple(results[:CANDIDATES_MAX]),
            )
        best = min(r.get("matchRank", 0) for r in results)
        top = [r for r in results if r.get("matchRank", 0) == best]
        if len(top) > 1:
            raise Blocked(
                "ambiguous_target",
                f"{len(top)} elements fit {how} {quoted(query)} equally well; nothing was done.",
                tuple(top[:CANDIDATES_MAX]),
            )
        return top[0], "semantic"

    async def _cue(self, call: ToolCall, tab: int, ref: str) -> None:
        """Outline the target for the person watching (best effort: a page that does not take
        it changes nothing about the action)."""
        try:
            await self._channel.content(call, tab, "cue", {"ref": ref}, CUE_BOUND, read=True)
        except BrowserFailure as failure:
            log.debug("no cue on tab %s: %s", tab, failure.message)

    async def _check_reachable(self, call: ToolCall, tab: int, element: dict[str, Any]) -> None:
        ref = str(element["ref"])
        hit = await self._channel.reach_ref(call, tab, ref, in_view=bool(element.get("inViewport")))
        if hit.get("moving"):
            raise Blocked(
                "moving_target",
                f"{ref} {KEPT_MOVING}: a click aimed at it could land elsewhere, so nothing was"
                " done.",
            )
        if not hit.get("hit"):
            covering = hit.get("covering")
            raise Blocked(
                "covered_target",
                f"another element lies on top of {ref} at its centre; a click would reach that"
                " instead, so nothing was done.",
                (covering,) if isinstance(covering, dict) else (),
            )

    async def _blocked(self, call: ToolCall, tab: int, action: str, blocked: Blocked) -> ToolResult:
        step = NEXT_STEPS[blocked.kind]
        ping = await self._channel.content(call, tab, "ping", read=True)
        url = str(ping.get("url", ""))
        page = page_facts(tab, url, str(ping.get("title", "")), ping.get("renderSerial"))
        candidates = [actionable(c) for c in blocked.candidates]
        receipt = {
            "targetAssurance": "none",
            "action": action,
            "observedAfter": {},
            "blockers": [{"kind": blocked.kind, "summary": blocked.summary, "nextStep": step}],
            "page": page,
            "more": False,
            "provenance": provenance(call.context.workspace_id, page["origin"]),
        }
        text = f"interaction receipt: blocked before action: {blocked.kind}. "
        text += _sentence(blocked.summary)
        text += f" Next step: {step}."
        if candidates:
            listed = "\n".join(
                element_line(c, raw.get("text"))
                for c, raw in zip(candidates, blocked.candidates, strict=True)
            )
            text += "\nCandidates:\n" + wrap_page_text(listed, call.context.workspace_id, page["origin"])
        structured: dict[str, Any] = {"interactionReceipt": receipt}
        if candidates:
            structured["candidates"] = candidates
        return ToolResult.text(text, kind="tool_error", structured=structured)


def _target_spec(arguments: Mapping[str, Any]) -> tuple[Mapping[str, Any], str]:
    target = arguments.get("target") or {}
    given = [key for key in ("ref", "query", "name") if target.get(key)]
    if len(given) != 1:
        raise ToolInputError(
            "target needs exactly one of ref, query or name (with role only beside name);"
            " nothing was done."
        )
    if target.get("role") and given[0] != "name":
        raise ToolInputError("target role goes with name only; nothing was done.")
    action = arguments.get("action")
    if (action == "set_value") != ("value" in arguments):
        raise ToolInputError(
            "value is required with action set_value and accepted with no other; nothing was done."
        )
    return target, given[0]


def _expect_spec(arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    expect = arguments.get("expect")
    if expect is None:
        return None
    given = [key for key in ("selector", "text") if str(expect.get(key) or "").strip()]
    if len(given) != 1:
        raise ToolInputError("expect needs exactly one of selector or text; nothing was done.")
    if expect.get("state") is not None and expect["state"] not in EXPECT_STATES:
        raise ToolInputError('expect state must be "visible", "present" or "gone"; nothing was done.')
    out = {key: expect[key] for key in (*given, "state") if expect.get(key)}
    out["timeout_ms"] = expect.get("timeout_ms", EXPECT_DEFAULT_MS)
    return out


def _expect_line(expect: Mapping[str, Any], waited: ToolResult, met: bool) -> str:
    """What became of the expectation, in act_on's words, with wait_for's last observation."""
    if waited.kind != "ok":
        return f"Expectation could not be checked: {_text(waited)}"
    what = (
        f"selector {quoted(str(expect['selector']))}" if "selector" in expect
        else f"text {quoted(str(expect['text']))}"
    )  # fmt: skip
    is_, would_be = EXPECT_STATES[str(expect.get("state") or "visible")]
    if met:
        elapsed = (waited.structured or {}).get("elapsed_ms", 0)
        # Cross-origin frames were not searched: an absence holds for this document only (the
        # frames are named in the observation carried below).
        unsearched = "unsearchedFrames" in (waited.structured or {})
        only = " for this document only" if unsearched and expect.get("state") == "gone" else ""
        head = f"Expectation met after {elapsed} ms{only}: {is_.format(what)}."
    else:
        head = (
            f"Expectation NOT met within {expect['timeout_ms']:g} ms: expected that"
            f" {would_be.format(what)}."
        )
    first, _, rest = _text(waited).partition("\n")
    seen = first.rfind(" Last observation: ")
    if seen >= 0:
        head += first[seen:]
    return "\n".join(part for part in (head, rest) if part)


def _sentence(text: str) -> str:
    """``text`` ending with a full stop (page messages may end without one)."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _can(element: Mapping[str, Any], action: str) -> bool:
    mechanical = mechanical_actions(dict(element))
    if action in POINTER_ACTIONS:
        return "hover" in mechanical if action == "hover" else "click" in mechanical
    return action in mechanical


def _sub(call: ToolCall, arguments: dict[str, Any]) -> ToolCall:
    """The same call (context, effects, lease) asking an underlying tool for one part."""
    return ToolCall(call.context, arguments, call.effects)


def _text(result: ToolResult) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)

