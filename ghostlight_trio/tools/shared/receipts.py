"""Interaction receipts: what the page showed after an input action, observed not assumed.

After the action the page itself waits until it has come to rest and answers once (the
extension's ``settle``: a rendered frame, a quiet DOM, the requests the action started
finished, or at once a navigation away); the difference from the observation before becomes
``structuredContent.interactionReceipt`` and one text line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from ...browser.errors import BrowserFailure
from ...engine.contracts import ToolCall, ToolResult
from .channel import SETTLE_WITHIN, PageChannel
from .provenance import page_facts, page_title, page_url, provenance, wrap_page_text
from .shaping import actionable

SETTLE_MAX_SECONDS = SETTLE_WITHIN
"""Longest wait for a page that keeps changing (or is between documents) before reporting."""
FOLLOW_SECONDS = 0.02
"""Spacing of the looks at a tab between documents, after its page began to leave."""
SETTLE_POLL_SECONDS = 0.05
"""Spacing of the observations of an extension without ``settle``, which is polled."""

Observation = dict[str, Any]


async def observe_settled(
    channel: PageChannel, call: ToolCall, tab: int, where: dict[str, Any], *,
    settled: dict[str, Any] | None = None,
) -> Observation | None:  # fmt: skip
    """The page observed once it came to rest after ``call``'s action (``where``: the
    observation's own arguments: a ref, near, a press watch).

    One request when the page stays: the page answers when it is at rest, or at the bound
    still changing (``rest``: ``moving``), or with requests of the action still under way
    (``loading``). A page that begins to leave is followed to the document it goes to, which
    is observed at rest in turn; a tab still between documents at the bound gives the last
    real observation (of the page it leaves, with where it is going), or none.

    ``settled``: the answer the action's last input request already brought (the same wait,
    sent with it), taken as the first."""
    deadline = trio.current_time() + SETTLE_MAX_SECONDS
    last: Observation | None = None
    while True:
        left = max(0.0, deadline - trio.current_time())
        try:
            if settled is not None:
                seen, settled = channel.settled_value(settled), None
            else:
                seen = await channel.settle(call, tab, where, within=left)
        except BrowserFailure:
            seen = False  # between documents, or no page a script can enter
        if seen is None:
            return await _polled(lambda: channel.observe(call, tab, where), deadline)
        if isinstance(seen, dict):
            leaving = last is not None and seen.get("document") == last.get("document")
            if seen.get("rest") != "leaving" and not leaving:
                return seen
            last = {**seen, "rest": "leaving"}
        if trio.current_time() >= deadline:
            return last
        await trio.sleep(FOLLOW_SECONDS)


async def _polled(
    observe: Callable[[], Awaitable[Observation | None]], deadline: float
) -> Observation | None:
    """An extension without ``settle``: observations a poll apart until two agree (mutation
    count, render serial, URL, title), the last real one at the bound."""
    last: Observation | None = None
    while True:
        await trio.sleep(SETTLE_POLL_SECONDS)
        current = await observe()
        if current is not None and last is not None and _signature(current) == _signature(last):
            return current
        if current is not None:
            last = current
        if trio.current_time() >= deadline:
            if last is not None:
                last = {**last, "rest": "moving"}
            return last


def _signature(observation: Observation) -> tuple[Any, ...]:
    keys = ("mutations", "renderSerial", "url", "title", "nearby")
    return tuple(observation.get(key) for key in keys)


FACTS_LIMIT = 420


def build_receipt(
    action: str,
    tab_id: int,
    before: dict[str, Any] | None,
    after: dict[str, Any],
    *,
    assurance: str,
    target: dict[str, Any] | None,
) -> dict[str, Any]:
    """The catalog's interaction-receipt object from two observations."""
    before = before or {}
    observed: dict[str, Any] = {}
    if before.get("url") and after.get("url") != before.get("url"):
        observed["urlChanged"] = str(after.get("url", ""))
    if "title" in before and after.get("title") != before.get("title"):
        observed["titleChanged"] = str(after.get("title", ""))
    was, now = before.get("document"), after.get("document")
    if was and now and was != now:
        # A reload or navigation: the page's own counts started again, so they compare nothing.
        observed["newDocument"] = True
        observed["renderAdvanced"] = True
    else:
        if isinstance(before.get("mutations"), int) and isinstance(after.get("mutations"), int):
            observed["mutations"] = max(0, after["mutations"] - before["mutations"])
        if isinstance(before.get("renderSerial"), int):
            observed["renderAdvanced"] = after.get("renderSerial", 0) > before["renderSerial"]
        revealed = _revealed(before.get("nearby"), after.get("nearby"))
        if revealed:
            observed["revealed"] = revealed
    focused = after.get("focused")
    if isinstance(focused, dict) and focused.get("ref") != _ref(before.get("focused")):
        observed["changedElements"] = [actionable(focused)]
    pending = after.get("pendingUrl")
    if isinstance(pending, str) and pending and pending != before.get("pendingUrl"):
        observed["navigationPending"] = pending
    pressed = after.get("pressed")
    if target and isinstance(pressed, dict) and pressed.get("reached") is False:
        # A press the page saw go down (or, ``release``, come up) on something other than the
        # target: what came over it at that instant, or what took its place.
        landed = pressed.get("target")
        instead: dict[str, Any] = {"role": "element", "name": ""}
        if isinstance(landed, dict):
            instead = actionable(landed)
        if pressed.get("release") is True:
            instead["release"] = True
        observed["pressedInstead"] = instead
    new_status = [
        t for t in after.get("statusTexts") or [] if t not in (before.get("statusTexts") or [])
    ]
    if new_status:
        observed["alertOrStatus"] = new_status[0]
    observed.update(_rest(after))
    receipt: dict[str, Any] = {}
    if target:
        receipt["target"] = actionable(target)
    receipt.update(
        {
            "targetAssurance": assurance,
            "action": action,
            "observedAfter": observed,
            "blockers": [],
            "page": page_facts(
                tab_id,
                str(after.get("url", "")),
                str(after.get("title", "")),
                int(after.get("renderSerial", 0)),
            ),
            "more": False,
        }
    )
    return receipt


def _rest(after: dict[str, Any]) -> dict[str, Any]:
    """Whether the page was at rest when observed: ``settled`` false when it was still
    changing at the bound, had requests of the action under way (``requestsPending``), or
    was leaving for another document that had not loaded (``leaving``)."""
    rest = after.get("rest")
    if rest not in ("quiet", "moving", "loading", "leaving"):
        return {}
    facts: dict[str, Any] = {"settled": rest == "quiet"}
    pending = after.get("requestsPending")
    if rest == "loading" and type(pending) is int and pending > 0:
        facts["requestsPending"] = pending
    if rest == "moving":
        facts["stillChanging"] = True
    if rest == "leaving":
        facts["leaving"] = True
    return facts


REVEALED_LISTED = 5
"""Elements a receipt names of those an action revealed near its target."""


def _revealed(before: Any, after: Any) -> list[dict[str, str]]:
    """Interactive elements shown near the target after the action and not before (a menu a
    hover opened), as ``{ref, role, name}``; none unless both sides were listed whole.

    Compared by role and name, not by ref: a page that rebuilds a list it already showed (a
    sort, a re-render) gives its items new nodes and refs, and none of them came into view."""
    lists = (before, after)
    if not all(isinstance(x, dict) and x.get("complete") is True for x in lists):
        return []
    was, now = before.get("shown"), after.get("shown")
    if not isinstance(was, dict) or not isinstance(now, dict):
        return []
    seen_before = Counter(_label(seen) for seen in was.values() if isinstance(seen, dict))
    revealed = []
    for ref, seen in now.items():
        if not isinstance(seen, dict):
            continue
        label = _label(seen)
        if seen_before[label] > 0:
            seen_before[label] -= 1
            continue
        revealed.append({"ref": str(ref), "role": label[0], "name": label[1]})
    return revealed


def _label(seen: dict[str, Any]) -> tuple[str, str]:
    return str(seen.get("role", "")), str(seen.get("name", ""))


def _ref(element: Any) -> Any:
    return element.get("ref") if isinstance(element, dict) else None


REACTIONS = (
    "urlChanged", "titleChanged", "newDocument", "navigationPending", "mutations",
    "changedElements", "alertOrStatus", "tabClosed", "tabReloaded", "revealed", "leaving",
)  # fmt: skip
"""The receipt facts that show the page reacted to an action (what ``receipt_facts`` words)."""


def page_reacted(observed: dict[str, Any]) -> bool:
    """Whether a receipt saw the page react at all to the action."""
    return any(observed.get(key) for key in REACTIONS)


def receipt_facts(receipt: dict[str, Any]) -> str:
    """The receipt's facts as one short sentence (page-sourced: the caller fences it)."""
    observed = receipt["observedAfter"]
    facts: list[str] = []
    instead = observed.get("pressedInstead")
    if isinstance(instead, dict):
        facts.append(_pressed_fact(receipt, instead))
    if "urlChanged" in observed:
        facts.append(f"URL changed to {page_url(str(observed['urlChanged']))}")
    if "titleChanged" in observed:
        facts.append(f'title changed to "{page_title(str(observed["titleChanged"]))}"')
    if observed.get("tabClosed"):
        facts.append("the tab is closed")
    if observed.get("tabReloaded"):
        facts.append("the tab reloaded")
    if observed.get("tabFocused"):
        facts.append("the tab is the active tab of its window")
    if observed.get("newDocument"):
        facts.append("a new document loaded (the page reloaded or navigated)")
    if "navigationPending" in observed:
        going = page_url(str(observed["navigationPending"]))
        facts.append(
            f"a navigation to {going} started and has not loaded yet"
            " (the tab still shows the page it leaves; wait_for state settled waits for it)"
        )
    if observed.get("mutations"):
        facts.append(f"{observed['mutations']} DOM mutation(s)")
    if observed.get("renderAdvanced") and not observed.get("newDocument"):
        facts.append("page re-rendered")
    for element in observed.get("changedElements", []):
        facts.append(f'focus on {element["role"]} "{element["name"]}" [{element["ref"]}]')
    if "alertOrStatus" in observed:
        facts.append(f'status: "{observed["alertOrStatus"]}"')
    revealed = observed.get("revealed") or []
    if revealed:
        named = ", ".join(
            f'{e["role"]} "{e["name"]}" [{e["ref"]}]' for e in revealed[:REVEALED_LISTED]
        )
        more = (
            f" and {len(revealed) - REVEALED_LISTED} more"
            if len(revealed) > REVEALED_LISTED
            else ""
        )
        facts.append(f"{len(revealed)} element(s) came into view: {named}{more}")
    facts.extend(_unrest_facts(observed))
    text = "; ".join(facts) if facts else "no other page change seen"
    return text if len(text) <= FACTS_LIMIT else text[: FACTS_LIMIT - 1] + "…"


def _unrest_facts(observed: dict[str, Any]) -> list[str]:
    """What kept the page from coming to rest within the receipt's bound, said as such: what
    the receipt reports is what had happened by then, not all the action will do."""
    bound = f"{int(SETTLE_MAX_SECONDS * 1000)} ms"
    facts = []
    if observed.get("leaving") and "navigationPending" not in observed:
        facts.append("the page began to leave for another document, which had not loaded yet")
    if observed.get("stillChanging"):
        facts.append(
            f"the page was still changing {bound} after the action (an animation, or"
            " content still arriving)"
        )
    pending = observed.get("requestsPending")
    if pending:
        facts.append(f"{pending} request(s) the action started were still under way after {bound}")
    return facts


def _pressed_fact(receipt: dict[str, Any], instead: dict[str, Any]) -> str:
    """Where a press went instead of its target: down on another element, or (``release``)
    down on the target but up on another, so that no click reached the target."""
    named = str(instead.get("role", "")) + (f' "{instead["name"]}"' if instead.get("name") else "")
    named += f" [{instead['ref']}]" if instead.get("ref") else ""
    aimed = _ref(receipt.get("target"))
    if receipt.get("targetAssurance") == "coordinate" or not aimed:
        meant = "what was at the point before the pointer came"
    else:
        meant = f"the target [{aimed}]"
    if instead.get("release"):
        return f"the press went down on {meant} but came up on {named}, so no click reached it"
    return f"the press landed on {named}, not on {meant}"


def receipt_text(receipt: dict[str, Any], workspace_id: str | None) -> str:
    """The receipt line; only the page-sourced facts sit inside the untrusted fence."""
    origin = receipt["page"]["origin"]
    facts = wrap_page_text(receipt_facts(receipt), workspace_id, origin)
    return f"interaction receipt: observed after {receipt['action']}:\n{facts}"


def receipt_result(
    summary: str, receipt: dict[str, Any] | None, workspace_id: str | None
) -> ToolResult:
    """An input action's result: the summary, and the receipt when the page could be observed."""
    if receipt is None:
        return ToolResult.text(summary, structured={})
    origin = receipt["page"]["origin"]
    structured = {"interactionReceipt": {**receipt, "provenance": provenance(workspace_id, origin)}}
    return ToolResult.text(
        f"{summary}\n{receipt_text(receipt, workspace_id)}", structured=structured
    )


async def settled_receipt(
    action: str,
    tab_id: int,
    summary: str,
    before: dict[str, Any] | None,
    settle: tuple[PageChannel, ToolCall, dict[str, Any]],
    *,
    assurance: str,
    workspace_id: str | None,
    settled: dict[str, Any] | None = None,
) -> ToolResult:
    """An input action's result once the page settled: ``summary`` and the receipt from
    ``before`` to the settled observation (``settle``: the channel, the call and what the
    observation names; ``settled``: the answer the action's own request brought, if any),
    whose own ``target`` it names. A page between documents for the whole settling bound
    gives no observation, and then no receipt."""
    channel, call, where = settle
    after = await observe_settled(channel, call, tab_id, where, settled=settled)
    if after is None:
        return receipt_result(summary, None, workspace_id)
    target = after.get("target") if isinstance(after.get("target"), dict) else None
    receipt = build_receipt(action, tab_id, before, after, assurance=assurance, target=target)
    return receipt_result(summary, receipt, workspace_id)
