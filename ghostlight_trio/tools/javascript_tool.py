"""javascript_tool: run a script in the page and say truthfully what it gave back.

The script runs as the console runs it (``replMode``: top-level ``await``, the last
expression's value). What comes back is a handle, not a copy, so that each kind of value is
answered as what it is: a promise is awaited (its value, or its rejection as an error), a plain
object or array is copied out as JSON, and what JSON cannot carry (a page element, an Error, a
Map, a function) is named by its description instead of being flattened to ``{}``.

Every wait is bounded: Chrome stops a script busy for ``JS_TIMEOUT_MS``; one still waiting on
an ``await`` or a promise at that point is left running in the page and said to be pending,
never reported as a value. When the page itself answers nothing (busy with a script of its own,
hung or crashed), the script may not have started at all: that is an unknown outcome.
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs
import trio

from ..browser.errors import BrowserError
from ..engine.contracts import ToolCall, ToolResult
from ..transport.bridge import TextBlock
from .shared.channel import INFO_BOUND, PageChannel
from .shared.dialogs import PageDialog, dialog_name, dialog_result
from .shared.guard import ToolInputError
from .shared.provenance import (
    fenced_place,
    page_facts,
    page_result,
    page_url,
    provenance,
    wrap_page_text,
)
from .shared.shaping import clip_text

JS_RESULT_LIMIT = 50 * 1024
"""Characters of a javascript_tool result shown before it is cut."""
JS_TIMEOUT_MS = 30_000
JS_BOUND = 40.0
"""The request's own bound, past the script's: an extension that never answers."""
PENDING_AFTER_MS = JS_TIMEOUT_MS + 2_000
"""When the extension answers "still pending" for a command Chrome has not answered: past the
script's own time bound, so a busy script is stopped by Chrome first and said to be."""
PAGE_PROBE_MS = 1_500
"""How long a script still unanswered is followed by a check that the page answers at all."""
ILLEGAL_RETURN = "Illegal return statement"
UNRETURNABLE = ("Object couldn't be returned by value", "Object reference chain is too long")
"""Chrome's refusals to copy a result out of the page: the script has run by then."""
NAVIGATED = "Inspected target navigated or closed"
"""Chrome's answer to a script still running (or whose value was being read) when its page
navigated away, reloaded or closed: most often the script's own doing (a submit, a click on a
link, a reload). The page it ran in is gone, and its value with it."""
OBJECT_GROUP = "ghostlight-javascript"
"""The handles a call takes out live in this group and are released when it ends."""
COPY_OUT = "function () { return this; }"

_DESCRIBED = frozenset(
    {"node", "error", "date", "regexp", "map", "set", "weakmap", "weakset", "iterator",
     "generator", "proxy", "arraybuffer", "dataview", "webassemblymemory", "wasmvalue",
     "trustedtype"}
)  # fmt: skip
"""Object subtypes whose JSON copy is ``{}``: their description says more."""
_LISTS_OF_NODES = frozenset({"NodeList", "HTMLCollection", "RadioNodeList", "HTMLAllCollection"})

_NAMED_ERROR = re.compile(r"^(?:[A-Z][A-Za-z]*)?Error(?::|$)")
"""The text of a thrown Error, which starts with its name (``Error: boom``, ``TypeError: …``)."""


class _StillPending(Exception):
    """Chrome had not answered a command by ``PENDING_AFTER_MS``: the script is waiting."""


class _NotCopyable(Exception):
    """Chrome refused to copy the script's value out of the page (it has run by then)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    @classmethod
    def from_refusal(cls, refused: BrowserError) -> BrowserError | _NotCopyable:
        """The refusal as a value that cannot be copied; other failures (a page that
        navigated, a tab that closed) stay what they are."""
        known = next((text for text in UNRETURNABLE if text in refused.message), None)
        if known is not None:
            return cls(
                f"{known}: e.g. a window, a symbol, a BigInt inside an object, or an object"
                " that contains itself"
            )
        if "Internal error" in refused.message:  # Chrome's answer when a getter throws
            return cls(
                "reading it failed inside the browser, most often because one of its"
                " properties is a getter that throws"
            )
        return refused


@attrs.frozen
class JavascriptTool:
    _channel: PageChannel

    async def __call__(self, call: ToolCall, tab: int) -> ToolResult:
        if call.arguments.get("action") != "javascript_exec":
            raise ToolInputError('action must be "javascript_exec".')
        code = str(call.arguments.get("text", ""))
        if not code.strip():
            raise ToolInputError("text must hold the JavaScript to run.")
        script = _Script(self._channel, call, tab)
        try:
            text = await script.run(code)
        except _StillPending:
            if await script.page_answers():
                return ToolResult.error(
                    f"The script started and was still waiting after {JS_TIMEOUT_MS // 1000} s"
                    " (an await or a promise that has not settled). It was not stopped: it goes"
                    " on in the page, and its result will not be reported. What it did before it"
                    " waited stays done. Await something that settles, or bound the wait in the"
                    " script (e.g. Promise.race with a timeout)."
                )
            return ToolResult.text(
                f"The page has not answered for {JS_TIMEOUT_MS // 1000} s: it is busy (a script"
                " of its own, say) or its renderer hangs or crashed. Whether this script has"
                " started is not known; it was not stopped, and it may still run once the page"
                " is free. Do not run it again automatically: look at the page first"
                " (get_page_text once it answers), or reload the tab with tab_control.",
                kind="outcome_unknown",
            )
        except _NotCopyable as uncopyable:
            return page_result(
                call,
                f"The script ran, but its value cannot be copied out of the page as JSON"
                f" ({uncopyable.reason}). To see it, end the script with a plain value, such as"
                " a string or a plain object of the fields you need.",
                await self._channel.tab_page(call, tab),
            )
        except BrowserError as error:
            if NAVIGATED in error.message:
                return await self._navigated_away(call, tab)
            if script.busy_to_the_bound():
                # Chrome ends a script at the evaluation's own timeout with a bare "Internal
                # error": say what happened instead.
                return ToolResult.error(
                    f"The script ran for {JS_TIMEOUT_MS // 1000} s without finishing and was"
                    " stopped there (an endless loop, or work too long for one call); what it"
                    " changed before that stays changed. Run less at once, or await a promise"
                    " instead of waiting in a loop."
                )
            raise
        except PageDialog as stop:
            if not stop.delivered:
                raise
            lead = (
                f"The script ran and {dialog_name(stop.dialog)} opened on tab {tab}; the script"
                " is paused in it, so its result is not available (once the dialog is answered"
                " the script finishes on its own, unreported)."
            )
            return dialog_result(call, tab, lead, stop.dialog)
        finally:
            await script.release()
        text = clip_text(text, JS_RESULT_LIMIT)
        result = await self._answer(call, tab, text, script.tab_seen)
        if not script.threw:
            return result
        # The script failed: an error the agent can act on, the page's words still fenced.
        threw = TextBlock(text="The script threw (what it did before that stays done):")
        return ToolResult(
            kind="tool_error", content=[threw, *result.content], structured=result.structured
        )

    async def _navigated_away(self, call: ToolCall, tab: int) -> ToolResult:
        """The page the script ran in navigated, reloaded or closed before its value came
        back. It had started, so what it set going may have happened (a submitted form): an
        unknown outcome, never a failure an agent would simply retry."""
        lead = (
            "The script started, but its page navigated away, reloaded or closed before its"
            " value came back (most likely the script's own doing: a form submit, a link, a"
            " reload), so its result is lost. What it did stays done."
        )
        advice = (
            "Do not run it again automatically: read the page first to see whether its effect"
            " happened (a submitted form may have been sent)."
        )
        structured: dict[str, Any] | None = None
        place = ""  # where the tab is: the page's to say (a script sets location), so fenced
        try:
            info = await self._channel.read(call, "tab_info", {"tabId": tab}, INFO_BOUND)
        except BrowserError as gone:
            if gone.code != "tab_not_found":
                raise
            where = "Its tab is gone now (it closed)."
        else:
            pending, url = info.get("pendingUrl"), info.get("url")
            if isinstance(pending, str) and pending:
                structured = {"pendingUrl": page_url(pending)}
                where = "The tab is on its way to another page: pendingUrl, below."
            elif isinstance(url, str) and url:
                structured = {"url": page_url(url)}
                where = "Where the tab is now: url, below (it may still be loading)."
            else:
                where = ""
            if structured is not None:
                place = "\n" + fenced_place(structured, call.context.workspace_id)
        words = " ".join(part for part in (lead, where, advice) if part) + place
        return ToolResult.text(words, kind="outcome_unknown", structured=structured)

    async def _answer(
        self, call: ToolCall, tab: int, text: str, seen: dict[str, Any] | None = None
    ) -> ToolResult:
        """The script's text as page content of the tab (which its script may have closed).
        ``seen``: where the browser said the tab was once the script's last command was done,
        which spares a listing of its own."""
        if seen is not None:
            facts = page_facts(tab, str(seen.get("url", "")), str(seen.get("title", "")), None)
            return page_result(call, text, facts)
        try:
            page = await self._channel.tab_page(call, tab)
        except BrowserError as gone:
            if gone.code != "tab_not_found":
                raise
            ws = call.context.workspace_id
            fenced = wrap_page_text(text, ws, "unknown")
            return ToolResult.text(
                f"{fenced}\nThe script ran; its tab is gone now (it closed).",
                structured={"provenance": provenance(ws, "unknown")},
            )
        return page_result(call, text, page)


class _Script:
    """One script's run on one tab: the commands it takes and the handles it holds."""

    def __init__(self, channel: PageChannel, call: ToolCall, tab: int) -> None:
        self._channel = channel
        self._call = call
        self._tab = tab
        self._started = trio.current_time()
        self._holds_handles = False
        self.threw = False
        """Set when the script threw or its promise rejected."""
        self.tab_seen: dict[str, Any] | None = None
        """The tab's url and title as the browser gave them after the last command."""

    async def page_answers(self) -> bool:
        """Whether the page runs commands now. Commands to a page run in order: one that is
        answered while the script's is not means the script started and is waiting on a
        promise; a page that answers nothing is busy (or gone), and may not have started it."""
        args = {
            "tabId": self._tab,
            "method": "Runtime.evaluate",
            "params": {"expression": "0", "returnByValue": True},
            "wait_ms": PAGE_PROBE_MS,
        }
        try:
            answer = await self._channel.read(self._call, "cdp", args, PAGE_PROBE_MS / 1000 + 3)
        except BrowserError:
            return False
        return answer.get("pending") is not True

    def busy_to_the_bound(self) -> bool:
        return trio.current_time() - self._started >= JS_TIMEOUT_MS / 1000 - 1

    async def run(self, code: str) -> str:
        """The script's value, or ``Error: ...`` for what it threw or its promise rejected
        (then ``threw`` is set)."""
        evaluated = await self._evaluate(code)
        details = evaluated.get("exceptionDetails")
        if details and ILLEGAL_RETURN in str((details.get("exception") or {}).get("description")):
            # A top-level ``return``: the console does not take one, a function body does.
            evaluated = await self._evaluate(f"(async () => {{\n{code}\n}})()")
            details = evaluated.get("exceptionDetails")
        remote = evaluated.get("result") or {}
        if not details and remote.get("subtype") == "promise":
            evaluated = await self._command(
                "Runtime.awaitPromise",
                {"promiseObjectId": remote.get("objectId"), "returnByValue": False},
                effect=False,
            )
            details = evaluated.get("exceptionDetails")
            remote = evaluated.get("result") or {}
        if details:
            self.threw = True
            thrown = await self._thrown(details)
            # An Error's own text names its kind already ("TypeError: ..."): said once.
            return thrown if _NAMED_ERROR.match(thrown) else f"Error: {thrown}"
        return await self._value(remote)

    async def _evaluate(self, code: str) -> dict[str, Any]:
        params = {
            "expression": code,
            "replMode": True,
            "awaitPromise": True,
            "returnByValue": False,
            "objectGroup": OBJECT_GROUP,
            "userGesture": True,
            "timeout": JS_TIMEOUT_MS,
        }
        return await self._command("Runtime.evaluate", params, effect=True)

    async def _command(
        self, method: str, params: dict[str, Any], *, effect: bool
    ) -> dict[str, Any]:
        args = {"tabId": self._tab, "method": method, "params": params, "tabFacts": True}
        args["wait_ms"] = max(1_000, PENDING_AFTER_MS - self._elapsed_ms())
        if effect:
            answer = await self._channel.request(self._call, "cdp", args, JS_BOUND)
        else:
            answer = await self._channel.read(self._call, "cdp", args, JS_BOUND)
        if answer.get("pending") is True:
            raise _StillPending
        seen = answer.get("tab")
        self.tab_seen = seen if isinstance(seen, dict) else None
        result = answer.get("result")
        result = result if isinstance(result, dict) else {}
        self._holds_handles = self._holds_handles or _has_handle(result)
        return result

    def _elapsed_ms(self) -> int:
        return int((trio.current_time() - self._started) * 1000)

    async def _value(self, remote: dict[str, Any]) -> str:
        """A returned value as the text an agent reads."""
        described = _described(remote)
        if described is not None:
            return described
        try:
            copied = await self._command(
                "Runtime.callFunctionOn",
                {"objectId": remote["objectId"], "functionDeclaration": COPY_OUT,
                 "returnByValue": True, "objectGroup": OBJECT_GROUP},
                effect=False,
            )  # fmt: skip
        except BrowserError as refused:
            raise _NotCopyable.from_refusal(refused) from None
        if copied.get("exceptionDetails"):  # a getter that throws while being copied
            return f"Error: {_plain_exception_text(copied['exceptionDetails'])}"
        return _remote_text(copied.get("result") or {})

    async def _thrown(self, details: dict[str, Any]) -> str:
        """What was thrown: an Error's own text, a thrown value as itself."""
        exception = details.get("exception") or {}
        if exception.get("subtype") == "error" or "objectId" not in exception:
            return _plain_exception_text(details)
        try:
            value = await self._value(exception)
        except (BrowserError, _NotCopyable):
            return _plain_exception_text(details)
        return f"{details.get('text') or 'Uncaught'} {value}"

    async def release(self) -> None:
        """Free the handles this run took out (best effort: the tab may be gone)."""
        if not self._holds_handles:
            return
        self._holds_handles = False
        args = {
            "tabId": self._tab,
            "method": "Runtime.releaseObjectGroup",
            "params": {"objectGroup": OBJECT_GROUP},
        }
        try:
            with trio.move_on_after(5):
                await self._channel.read(self._call, "cdp", args, 5.0)
        except (BrowserError, PageDialog):
            pass


def _has_handle(result: dict[str, Any]) -> bool:
    for key in ("result", "exceptionDetails"):
        part = result.get(key)
        if isinstance(part, dict) and (
            "objectId" in part or "objectId" in (part.get("exception") or {})
        ):
            return True
    return False


def _described(remote: dict[str, Any]) -> str | None:
    """The text for a value that needs no copy (or that a copy would flatten to ``{}``);
    None for a plain object or array, which is copied out as JSON."""
    if "objectId" not in remote:
        return _remote_text(remote)
    kind, subtype = remote.get("type"), remote.get("subtype")
    description = str(remote.get("description") or remote.get("className") or kind)
    if kind == "function":
        return f"{description} (a function)"
    if kind != "object" or subtype == "null":
        return _remote_text(remote)
    if subtype == "node" or remote.get("className") in _LISTS_OF_NODES:
        return (
            f"{remote.get('className') or 'Node'} {description} (page elements cannot be returned"
            " as JSON: return what you need from them, e.g. .textContent, .outerHTML or .value)"
        )
    if subtype in ("error", "date", "regexp"):
        return description
    if subtype in _DESCRIBED:
        return (
            f"{description} (not JSON: convert it first, e.g. Object.fromEntries(value) or"
            " [...value])"
        )
    return None


def _remote_text(remote: dict[str, Any]) -> str:
    """A CDP RemoteObject that carries its value (or is described) as the text an agent reads."""
    if "value" in remote:
        return json.dumps(remote["value"], ensure_ascii=False)
    if "unserializableValue" in remote:
        return str(remote["unserializableValue"])
    if remote.get("type") == "undefined":
        return "undefined"
    return str(remote.get("description") or remote.get("type") or "undefined")


def _plain_exception_text(details: dict[str, Any]) -> str:
    exception = details.get("exception") or {}
    lead = str(details.get("text") or "Uncaught")
    if "value" in exception or "unserializableValue" in exception:
        value = exception.get("value")
        shown = value if isinstance(value, str) else _remote_text(exception)
        return f"{lead} {shown}"
    return str(exception.get("description") or lead)
