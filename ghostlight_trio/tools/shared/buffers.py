"""Reading, filtering and wording the per-tab console and network buffers the extension keeps
(for ``read_console_messages`` and ``read_network_requests``).

Capture starts at the first read for a tab, so an empty answer must say so (and how to get
load-time entries) instead of suggesting the page is quiet.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import regex

from ...engine.contracts import ToolCall, ToolResult
from ...transport.bridge import TextBlock
from .channel import PageChannel
from .provenance import page_result, provenance

CAPTURE_BOUND = 20.0
DEFAULT_LIMIT = 100
MAX_LIMIT = 1_000
ERROR_LEVELS = frozenset({"error", "exception", "assert"})
FIRST_USE_NOTE = {
    "console": (
        "Capture for this tab started with this call: messages logged earlier are here only as"
        " far as Chrome still kept them. Reload the page (navigate to the same URL) to capture"
        " load-time entries as they happen."
    ),
    "network": (
        "Capture for this tab started with this call; requests made earlier are not included."
        " Reload the page (navigate to the same URL) to capture load-time requests."
    ),
}


def bounded_limit(raw: Any) -> int:
    """The ``limit`` argument as 1..MAX_LIMIT (default when missing or not a number)."""
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return DEFAULT_LIMIT
    return max(1, min(MAX_LIMIT, int(raw)))


def limit_notes(raw: Any) -> list[str]:
    """What the answer must say when ``limit`` was not taken as given."""
    if isinstance(raw, bool) or not isinstance(raw, int | float) or raw == bounded_limit(raw):
        return []
    used = bounded_limit(raw)
    return [f"Note: limit {raw:g} is not a whole number from 1 to {MAX_LIMIT}; {used} was used."]


PATTERN_BUDGET = 0.25
"""Seconds of matching one read may spend on a pattern, over all its entries. A pattern that
backtracks without end (``(a|aa)+$`` against page text) would otherwise hold the whole service,
and every other client with it."""


SLOW_PATTERN_NOTE = (
    f"Note: the pattern took longer than {PATTERN_BUDGET:g} s as a regular expression (it"
    " backtracks heavily, as nested repeats like (a|aa)+ do), so it was matched as plain text."
)


INVALID_PATTERN_NOTE = (
    "Note: the pattern is not a valid regular expression, so it was matched as plain text"
    " (escape characters such as ( [ + with a backslash to match them literally in a regex)."
)


def _compiles(pattern: str) -> bool:
    try:
        regex.compile(pattern, regex.IGNORECASE)
    except (regex.error, OverflowError, RecursionError):
        return False
    return True


class PatternTooSlow(Exception):
    """A pattern used up its matching budget."""


def text_matcher(pattern: str | None, *, literal: bool = False) -> Callable[[str], bool]:
    """Case-insensitive regex match; an invalid regex (or ``literal``) matches as a plain
    substring. Raises ``PatternTooSlow`` once matching has taken ``PATTERN_BUDGET`` in all."""
    if not pattern:
        return lambda _text: True
    needle = pattern.lower()
    if literal:
        return lambda text: needle in text.lower()
    try:
        compiled = regex.compile(pattern, regex.IGNORECASE)
    except (regex.error, OverflowError, RecursionError):
        return lambda text: needle in text.lower()
    deadline = time.monotonic() + PATTERN_BUDGET  # made just before the entries are matched

    def matches(text: str) -> bool:
        left = deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            return compiled.search(text, timeout=left) is not None
        except TimeoutError:
            raise PatternTooSlow(pattern) from None

    return matches


def console_lines(
    entries: list[dict[str, Any]], *, pattern: str | None, only_errors: bool, limit: int
) -> tuple[list[str], int, list[str]]:
    """Matching console entries as ``[level] text`` lines (newest ``limit`` kept), their count,
    and notes on the matching (a pattern too slow as a regex is matched as plain text)."""
    if pattern and not _compiles(pattern):
        lines, count = _console_lines(entries, pattern, only_errors, limit, literal=True)
        return lines, count, [INVALID_PATTERN_NOTE]
    try:
        return (*_console_lines(entries, pattern, only_errors, limit, literal=False), [])
    except PatternTooSlow:
        lines, count = _console_lines(entries, pattern, only_errors, limit, literal=True)
        return lines, count, [SLOW_PATTERN_NOTE]


def _console_lines(
    entries: list[dict[str, Any]],
    pattern: str | None,
    only_errors: bool,
    limit: int,
    *,
    literal: bool,
) -> tuple[list[str], int]:
    matches = text_matcher(pattern, literal=literal)
    kept = [
        entry
        for entry in entries
        if (not only_errors or entry.get("level") in ERROR_LEVELS)
        and matches(str(entry.get("text", "")))
    ]
    lines = []
    for entry in kept[-limit:]:
        where = (
            f" ({entry['url']}:{entry['line']})" if entry.get("url") and entry.get("line") else ""
        )
        lines.append(f"[{entry.get('level', 'log')}] {entry.get('text', '')}{where}")
    return lines, len(kept)


def withheld_request(call: ToolCall, entry: dict[str, Any]) -> dict[str, Any]:
    """A request to, or made for a document of, a site this workspace may not read (an embedded
    frame of a never-touch site loading, and what it loads in turn) keeps its method and status
    but not its address: its path, query and redirect target are that site's."""
    shown = {key: value for key, value in entry.items() if key != "documentURL"}
    for url in (entry.get("url"), entry.get("documentURL")):
        closed = call.effects.closed_at(url) if isinstance(url, str) and url else None
        if closed:
            return shown | {"url": f"(withheld: a request of {closed}, which this workspace may not read)"}
    return shown


def network_lines(
    entries: list[dict[str, Any]], *, url_pattern: str | None, limit: int
) -> tuple[list[str], int]:
    """Matching requests as ``METHOD url -> status`` lines (newest ``limit`` kept) and the count."""
    needle = (url_pattern or "").lower()
    kept = [entry for entry in entries if needle in str(entry.get("url", "")).lower()]
    lines = []
    for entry in kept[-limit:]:
        head = f"{entry.get('method', 'GET')} {entry.get('url', '')}"
        if "status" not in entry:
            lines.append(f"{head} (pending)")
            continue
        error = f" ({entry['errorText']})" if entry.get("errorText") else ""
        status = entry["status"] or "failed, no response"  # 0: it never got an HTTP status
        lines.append(f"{head} -> {status}{error}")
    return lines, len(kept)


def buffer_notes(answer: dict[str, Any], *, total: int, matched: int, noun: str) -> list[str]:
    """Notes about capture state: first use, a reset, dropped entries, nothing matching."""
    notes: list[str] = []
    if answer.get("reset"):
        notes.append(f"Note: the {noun} buffer was reset ({answer['reset']}).")
    if answer.get("started"):
        notes.append(FIRST_USE_NOTE.get(noun, FIRST_USE_NOTE["network"]))
    if answer.get("dropped"):
        notes.append(f"Note: {answer['dropped']} older {noun} entries were dropped (buffer full).")
    if matched == 0:
        notes.append(
            f"No {noun} entries matched ({total} buffered for this tab)."
            if total
            else f"No {noun} entries captured for this tab yet."
        )
    return notes


async def read_buffer(channel: PageChannel, call: ToolCall, tab: int, kind: str) -> dict[str, Any]:
    args = {"tabId": tab, "kind": kind, "clear": call.arguments.get("clear") is True}
    # Reading (and clearing) what the extension captured touches nothing in the page: a
    # read left unanswered is an error, and the tab stays usable.
    return await channel.read(call, "capture_read", args, CAPTURE_BOUND)


async def buffer_result(
    channel: PageChannel,
    call: ToolCall,
    tab: int,
    answer: dict[str, Any],
    lines: list[str],
    *,
    matched: int,
    total: int,
    noun: str,
    notes: list[str] | None = None,
) -> ToolResult:
    """The answer to a buffer read: the ``lines`` shown of ``matched`` entries (of ``total``
    read), fenced as the page's, then ``notes`` and what the buffer itself says."""
    notes = [*(notes or []), *limit_notes(call.arguments.get("limit"))]
    notes += buffer_notes(answer, total=total, matched=matched, noun=noun)
    page = await channel.tab_page(call, tab)
    head = f"{len(lines)} of {matched} matching entries (newest last)." if lines else ""
    parts = [part for part in (head, "\n".join(lines)) if part]
    cleared = " The buffer was cleared after this read." if call.arguments.get("clear") else ""
    own = ("\n".join(notes) + cleared).strip()
    if not parts:
        return ToolResult.text(
            own,
            structured={
                "page": page,
                "provenance": provenance(call.context.workspace_id, page["origin"]),
            },
        )
    result = page_result(call, "\n".join(parts), page)
    if own:
        return ToolResult(
            kind="ok",
            content=[*result.content, TextBlock(text=own)],
            structured=result.structured,
        )
    return result
