"""``peers``: Ghostlight beside the current peer MCP servers, operation by operation.

Contenders, each driven over stdio by our own ``McpClient`` (MCP 2025-11-25), each driving
/usr/bin/chromium headless with its viewport set to 1280x720 before the runs:

* Ghostlight: ``ghostlight-mcp-connector`` → service → native host → extension in the
  managed headless Chromium of an isolated instance (``resize_window`` sets the viewport);
* @playwright/mcp as shipped, and again with ``--timeout-settle 0`` (its post-action settle
  wait removed) — two configurations, two processes (``browser_resize``);
* chrome-devtools-mcp (``resize_page``).

All load the same pages from one loopback server: ``/shop``, the snapshot section's generated
shop page (``snapshot_bench.build_page``, about 105 KB of HTML, 1,468 interactive elements);
``/ops``, the same page with a text field that counts the Enter presses it receives inserted
under the header, its title naming this run; ``/ops-small``, the navigate section's small page
with the same click target and field (the peers answer an action with a snapshot of the page,
so their action times grow with the page: both sizes are measured); ``/bench``, the navigate
section's page whose title names each navigation.

Operations (each after ``WARMUP`` warm-up calls, ``--rounds`` timed calls, round-robin so that
background load hits every contender alike), each answer checked before its time counts:

* read_page / snapshot on ``/shop``: Ghostlight ``read_page`` as an agent calls it by default
  (no filter: all elements, max_chars 50,000), with ``filter: "all"`` and max_chars raised so
  nothing is cut, and with ``filter: "interactive"``; the peers' one snapshot form. Time and
  characters of the result text; the answer must list the "Add to basket" button.
* find (Ghostlight only; the peers have no equivalent): the answer must name the button.
* screenshot of the viewport (each tool's default format): time and bytes of the image data;
  the image must decode to the viewport's size.
* click (this and the next three on ``/ops-small``, then on ``/ops``): the button by the ref
  (uid) of a snapshot taken before, untimed; the page's click counter read back after every
  call must have grown by one (Ghostlight's answer must also carry its interaction receipt
  naming the button).
* type 20 characters into the focused field, a key event pair per character (Ghostlight
  ``computer`` type after a click on the field; @playwright/mcp ``browser_type`` with
  ``slowly``; chrome-devtools-mcp ``type_text`` after a click on the field): the field's value
  must end with them.
* fill: set the field to 20 characters at once (Ghostlight ``form_input``; @playwright/mcp
  ``browser_type`` without ``slowly``, which fills; chrome-devtools-mcp ``fill``): the field
  must hold exactly them. Typing and filling are different mechanisms (a page sees key events
  only for the first), so each is measured beside its own kind.
* key Enter in that field: its Enter counter must have grown by one.
* evaluate ``document.title``: the value must be the run's title.
* navigate to ``/bench?run=N``: the title the answer reports must name N.

And once per contender: cold start (spawn → ``initialize`` answered, service warm, no browser
yet: ``edge_bench.cold_starts``) and the size of the ``tools/list`` result in compact JSON with
the managed browser connected (Ghostlight in revisions 2025-11-25 and 2026-07-28).

A call that errs or whose check fails ends its row: the row prints FAILED with the reason, its
times count for nothing, and the section exits non-zero after printing. The performance goals
are printed last as PASS/FAIL lines computed from this run (a goal on actions must hold on both
pages; read_page's is judged on the call an agent makes by default).
"""

from __future__ import annotations

import base64
import json
import os
import re
import secrets
import statistics
import struct
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urljoin

import trio

from ghostlight_trio.cli.mcp_client import (
    REVISION_2025_11_25,
    REVISION_2026_07_28,
    McpClient,
    McpError,
    result_text,
)

from . import peers, snapshot_bench
from .edge_bench import ColdStart, cold_starts
from .harness import isolated_instance, percentile, running_service
from .peers import BenchError, checked

ROUNDS = 20
WARMUP = 2
VIEWPORT = (1280, 720)
OUR_MAX_CHARS = 2_000_000
CLICK_NAME = snapshot_bench.CLICK_NAME
FIELD_NAME = "Note"
KEY = "Enter"
TYPED = 20
TOOLS_LIST_LIMIT = 20_000
FIND_QUERY = f"{CLICK_NAME} button"
STATE_JS = (
    "'[[' + (window.benchClicks || 0) + '|' + (window.benchKeys || 0) + '|'"
    " + document.getElementById('bench-field').value + ']]'"
)
_STATE = re.compile(r"^\[\[(\d+)\|(\d+)\|(.*)\]\]$", re.DOTALL)
_JSON_STRING = re.compile(r'^"(?:[^"\\]|\\.)*"$', re.MULTILINE)
_CUT = re.compile(r"\[showing (\d+) of (\d+) elements")
FIXTURE = (
    '<section aria-label="Bench fixture"><label>' + FIELD_NAME + ' <input id="bench-field"'
    ' type="text" autocomplete="off"></label> <span id="keys">Enter pressed 0 times</span>'
    "<script>window.benchKeys=0;document.getElementById('bench-field').addEventListener("
    "'keydown',function(e){if(e.key==='Enter'){window.benchKeys+=1;"
    "document.getElementById('keys').textContent='Enter pressed '+window.benchKeys+' times'}})"
    "</script></section>"
)
PAGES = {"small page": "/ops-small", "shop page": "/ops"}
"""Where click, type, key and evaluate run: each page, in turn."""
FAILURES = (BenchError, McpError, EOFError, OSError, ValueError, KeyError)
"""What ends a row: an error answer, a failed check, a server gone."""


def ops_page(shop_html: str, title: str) -> str:
    """The shop page with the bench field under its header, titled ``title``."""
    page = shop_html.replace("</header>", "</header>" + FIXTURE, 1)
    return page.replace("<title>Ghostlight bench shop</title>", f"<title>{title}</title>", 1)


def small_ops_page(title: str) -> str:
    """The navigate section's small page with the click target and the bench field."""
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title></head>"
        "<body><h1>Bench</h1><p>A small static page served on loopback.</p>"
        f"<a href='#x'>link</a> {snapshot_bench.CLICK_TARGET}{FIXTURE}</body></html>"
    )


def typed_text(index: int) -> str:
    """The ``TYPED`` characters typed in call ``index``: different in every call."""
    return (f"r{index:03d}" + "abcdefghijklmnopqrstuvwxyz")[:TYPED]


def image_facts(data: bytes) -> tuple[str, int, int]:
    """Format, width and height of a PNG or JPEG image; ``ValueError`` for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return "png", width, height
    if data.startswith(b"\xff\xd8"):
        at = 2
        while at + 9 < len(data):
            if data[at] != 0xFF:
                raise ValueError("a JPEG segment does not start with 0xFF")
            marker = data[at + 1]
            length = struct.unpack(">H", data[at + 2 : at + 4])[0]
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                height, width = struct.unpack(">HH", data[at + 5 : at + 9])
                return "jpeg", width, height
            at += 2 + length
        raise ValueError("a JPEG without a frame header")
    raise ValueError(f"not a PNG or JPEG image (starts {data[:8]!r})")


def json_value(text: str, who: str) -> str:
    """The first line of a tool's text that is a JSON string, decoded: where each of the three
    puts an evaluated string (inside the page-content markers, under "### Result", in a json
    code block)."""
    found = _JSON_STRING.search(text)
    if not found:
        raise BenchError(f"{who}: no JSON string in the answer {text[:200]!r}")
    value: str = json.loads(found.group(0))
    return value


class Answer(NamedTuple):
    text: str
    size: int
    """Characters of the result's text, or bytes of the image."""
    note: str = ""


def text_answer(result: dict[str, Any]) -> Answer:
    text = result_text(result)
    return Answer(text, len(text))


def value_answer(result: dict[str, Any], who: str) -> Answer:
    """An evaluated string as ``text``; ``size``: characters of the whole result text."""
    text = result_text(result)
    return Answer(json_value(text, who), len(text))


def image_answer(result: dict[str, Any], who: str) -> Answer:
    images = [block for block in result.get("content", []) if block.get("type") == "image"]
    if len(images) != 1:
        raise BenchError(f"{who}: {len(images)} images in the answer, expected one")
    data = base64.b64decode(images[0]["data"])
    kind, width, height = image_facts(data)
    if (width, height) != VIEWPORT:
        raise BenchError(
            f"{who}: a {width}x{height} image of a {VIEWPORT[0]}x{VIEWPORT[1]} viewport"
        )
    return Answer(result_text(result), len(data), f"{kind} {width}x{height}")


# -- the contenders ---------------------------------------------------------------------------

Call = Callable[[], Awaitable[Answer]]


class Driver:
    """One contender's tools for each operation, named as the table names them."""

    short = ""
    snapshot_tools: tuple[str, ...] = ()
    click_tool = type_tool = fill_tool = key_tool = screenshot_tool = evaluate_tool = ""
    navigate_tool = ""
    find_tool: str | None = None

    def __init__(self, client: McpClient, label: str) -> None:
        self.client = client
        self.label = label
        self.navigate: peers.Navigate | None = None

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return checked(await self.client.call_tool(tool, arguments), f"{self.short} {tool}")

    async def setup(self) -> None:
        """Open the tab or page, set the viewport, bind ``navigate``."""
        raise NotImplementedError

    def snapshots(self) -> list[Call]:
        """One call per form of ``snapshot_tools``."""
        raise NotImplementedError

    async def ref(self, role: str, name: str) -> str:
        """The ref (uid) of the element by a fresh snapshot."""
        raise NotImplementedError

    async def click(self, ref: str) -> Answer:
        raise NotImplementedError

    async def focus(self, ref: str) -> None:
        """Put the keyboard focus in the field before ``type`` (untimed)."""

    async def type(self, ref: str, text: str) -> Answer:
        """Type ``text`` one key at a time (key events per character)."""
        raise NotImplementedError

    async def fill(self, ref: str, text: str) -> Answer:
        """Set the field's value to ``text`` at once."""
        raise NotImplementedError

    async def key(self) -> Answer:
        raise NotImplementedError

    async def screenshot(self) -> Answer:
        raise NotImplementedError

    async def evaluated(self, expression: str) -> Answer:
        """The string an expression evaluates to in the page, and the size of the answer."""
        raise NotImplementedError

    async def evaluate(self, expression: str) -> str:
        return (await self.evaluated(expression)).text

    async def find(self) -> Answer:
        raise BenchError(f"{self.short} has no find")

    def lists(self, ref: str, role: str, name: str, text: str) -> bool:
        """Whether a snapshot's text lists the element with ``ref``."""
        raise NotImplementedError


class Ghostlight(Driver):
    short = "ghostlight"
    snapshot_tools = (
        "read_page (default call: filter all, max_chars 50,000)",
        f"read_page filter=all max_chars={OUR_MAX_CHARS:,}",
        "read_page filter=interactive",
    )
    click_tool = "computer left_click ref (+receipt)"
    type_tool = "computer type (focused field)"
    fill_tool = "form_input ref"
    key_tool = f"computer key {KEY}"
    screenshot_tool = "computer screenshot"
    evaluate_tool = "javascript_tool javascript_exec"
    navigate_tool = "navigate"
    find_tool = "find"
    tab = 0

    async def setup(self) -> None:
        self.tab = await peers.ghostlight_tab(self.client)
        width, height = VIEWPORT
        await self.call("resize_window", {"width": width, "height": height, "tabId": self.tab})
        self.navigate = peers.ghostlight_navigate(self.client, self.tab)

    def _reader(self, arguments: dict[str, Any]) -> Call:
        async def read() -> Answer:
            answer = text_answer(await self.call("read_page", {"tabId": self.tab, **arguments}))
            cut = _CUT.search(answer.text)
            note = f"cut: {cut.group(1)} of {cut.group(2)} elements" if cut else "complete"
            if "filter" in arguments and arguments["filter"] == "interactive":
                note = "elements in the viewport"
            return answer._replace(note=note)

        return read

    def snapshots(self) -> list[Call]:
        return [
            self._reader({}),
            self._reader({"filter": "all", "max_chars": OUR_MAX_CHARS}),
            self._reader({"filter": "interactive"}),
        ]

    async def ref(self, role: str, name: str) -> str:
        args = {"tabId": self.tab, "filter": "all", "max_chars": OUR_MAX_CHARS}
        tree = result_text(await self.call("read_page", args))
        found = re.search(rf'^\s*{role} "{re.escape(name)}" \[(ref_\d+)\]', tree, re.MULTILINE)
        if not found:
            raise BenchError(f"ghostlight: no {role} {name!r} in read_page")
        return found.group(1)

    def lists(self, ref: str, role: str, name: str, text: str) -> bool:
        return (
            re.search(rf'^\s*{role} "{re.escape(name)}" \[{ref}\]', text, re.MULTILINE) is not None
        )

    async def click(self, ref: str) -> Answer:
        args = {"tabId": self.tab, "action": "left_click", "ref": ref}
        result = await self.call("computer", args)
        receipt = (result.get("structuredContent") or {}).get("interactionReceipt") or {}
        if (receipt.get("target") or {}).get("name") != CLICK_NAME:
            raise BenchError(f"ghostlight: the click's receipt names {receipt.get('target')!r}")
        return text_answer(result)

    async def focus(self, ref: str) -> None:
        await self.call("computer", {"tabId": self.tab, "action": "left_click", "ref": ref})

    async def type(self, ref: str, text: str) -> Answer:
        args = {"tabId": self.tab, "action": "type", "text": text}
        return text_answer(await self.call("computer", args))

    async def fill(self, ref: str, text: str) -> Answer:
        args = {"tabId": self.tab, "ref": ref, "value": text}
        return text_answer(await self.call("form_input", args))

    async def key(self) -> Answer:
        args = {"tabId": self.tab, "action": "key", "text": KEY}
        return text_answer(await self.call("computer", args))

    async def screenshot(self) -> Answer:
        args = {"tabId": self.tab, "action": "screenshot"}
        return image_answer(await self.call("computer", args), self.short)

    async def evaluated(self, expression: str) -> Answer:
        args = {"tabId": self.tab, "action": "javascript_exec", "text": expression}
        return value_answer(await self.call("javascript_tool", args), self.short)

    async def find(self) -> Answer:
        return text_answer(await self.call("find", {"tabId": self.tab, "query": FIND_QUERY}))


class Playwright(Driver):
    short = "playwright"
    snapshot_tools = ("browser_snapshot",)
    click_tool = "browser_click target=ref"
    type_tool = "browser_type target=ref slowly (keys)"
    fill_tool = "browser_type target=ref (fills)"
    key_tool = f"browser_press_key {KEY}"
    screenshot_tool = "browser_take_screenshot"
    evaluate_tool = "browser_evaluate"
    navigate_tool = "browser_navigate"

    def __init__(self, client: McpClient, label: str, short: str) -> None:
        super().__init__(client, label)
        self.short = short

    async def setup(self) -> None:
        width, height = VIEWPORT
        await self.call("browser_resize", {"width": width, "height": height})
        self.navigate = peers.playwright_navigate(self.client)

    async def _snapshot(self) -> Answer:
        return text_answer(await self.call("browser_snapshot", {}))

    def snapshots(self) -> list[Call]:
        return [self._snapshot]

    async def ref(self, role: str, name: str) -> str:
        tree = (await self._snapshot()).text
        found = re.search(rf'- {role} "{re.escape(name)}" \[ref=(\w+)\]', tree)
        if not found:
            raise BenchError(f"{self.short}: no {role} {name!r} in browser_snapshot")
        return found.group(1)

    def lists(self, ref: str, role: str, name: str, text: str) -> bool:
        return f'- {role} "{name}" [ref={ref}]' in text

    async def click(self, ref: str) -> Answer:
        args = {"element": f"{CLICK_NAME} button", "target": ref}
        return text_answer(await self.call("browser_click", args))

    async def type(self, ref: str, text: str) -> Answer:
        args = {"element": f"{FIELD_NAME} field", "target": ref, "text": text, "slowly": True}
        return text_answer(await self.call("browser_type", args))

    async def fill(self, ref: str, text: str) -> Answer:
        args = {"element": f"{FIELD_NAME} field", "target": ref, "text": text}
        return text_answer(await self.call("browser_type", args))

    async def key(self) -> Answer:
        return text_answer(await self.call("browser_press_key", {"key": KEY}))

    async def screenshot(self) -> Answer:
        answer = await self.call("browser_take_screenshot", {"scale": "css"})
        return image_answer(answer, self.short)

    async def evaluated(self, expression: str) -> Answer:
        answer = await self.call("browser_evaluate", {"function": f"() => ({expression})"})
        return value_answer(answer, self.short)


class DevTools(Driver):
    short = "chrome-devtools-mcp"
    snapshot_tools = ("take_snapshot",)
    click_tool = "click uid"
    type_tool = "type_text (focused field)"
    fill_tool = "fill uid"
    key_tool = f"press_key {KEY}"
    screenshot_tool = "take_screenshot"
    evaluate_tool = "evaluate_script"
    navigate_tool = "navigate_page"
    page = 0

    async def setup(self) -> None:
        self.page = await peers.cdm_page(self.client)
        width, height = VIEWPORT
        await self.call("resize_page", {"pageId": self.page, "width": width, "height": height})
        self.navigate = peers.cdm_navigate(self.client, self.page)

    async def _snapshot(self) -> Answer:
        return text_answer(await self.call("take_snapshot", {"pageId": self.page}))

    def snapshots(self) -> list[Call]:
        return [self._snapshot]

    async def ref(self, role: str, name: str) -> str:
        tree = (await self._snapshot()).text
        found = re.search(rf'^\s*uid=(\S+) {role} "{re.escape(name)}"', tree, re.MULTILINE)
        if not found:
            raise BenchError(f"{self.short}: no {role} {name!r} in take_snapshot")
        return found.group(1)

    def lists(self, ref: str, role: str, name: str, text: str) -> bool:
        return re.search(rf'^\s*uid=\S+ {role} "{re.escape(name)}"', text, re.MULTILINE) is not None

    async def click(self, ref: str) -> Answer:
        return text_answer(await self.call("click", {"uid": ref, "pageId": self.page}))

    async def focus(self, ref: str) -> None:
        await self.click(ref)

    async def type(self, ref: str, text: str) -> Answer:
        return text_answer(await self.call("type_text", {"text": text, "pageId": self.page}))

    async def fill(self, ref: str, text: str) -> Answer:
        args = {"uid": ref, "value": text, "pageId": self.page}
        return text_answer(await self.call("fill", args))

    async def key(self) -> Answer:
        return text_answer(await self.call("press_key", {"key": KEY, "pageId": self.page}))

    async def screenshot(self) -> Answer:
        answer = await self.call("take_screenshot", {"pageId": self.page})
        return image_answer(answer, self.short)

    async def evaluated(self, expression: str) -> Answer:
        args = {"function": f"() => ({expression})", "pageId": self.page}
        return value_answer(await self.call("evaluate_script", args), self.short)


# -- rows and the contest --------------------------------------------------------------------


class Row:
    """One operation of one contender: ``call(i)`` timed, then ``check(i, answer)`` untimed."""

    def __init__(
        self,
        contender: str,
        tool: str,
        call: Callable[[int], Awaitable[Answer]],
        check: Callable[[int, Answer], Awaitable[None]] | None = None,
    ) -> None:
        self.contender = contender
        self.tool = tool
        self.call = call
        self.check = check
        self.samples: list[float] = []
        self.sizes: list[int] = []
        self.note = ""
        self.problem: str | None = None

    @property
    def measured(self) -> bool:
        return self.problem is None and bool(self.samples)

    @property
    def p50_ms(self) -> float:
        """The median, as the other sections print it."""
        return statistics.median(self.samples) * 1000

    @property
    def size(self) -> float:
        """The median size of the answers."""
        return statistics.median(self.sizes)

    def fail(self, exc: BaseException) -> None:
        self.problem = f"{type(exc).__name__}: {exc}"
        self.samples, self.sizes = [], []


async def contest(rows: Sequence[Row], rounds: int) -> None:
    """``WARMUP`` + ``rounds`` calls of every row, round-robin; a row whose call errs or whose
    check fails stops there, its samples dropped."""
    for index in range(WARMUP + rounds):
        for row in rows:
            if row.problem is not None:
                continue
            try:
                started = time.perf_counter()
                answer = await row.call(index)
                elapsed = time.perf_counter() - started
                if row.check is not None:
                    await row.check(index, answer)
            except FAILURES as exc:
                row.fail(exc)
                continue
            if index >= WARMUP:
                row.samples.append(elapsed)
                row.sizes.append(answer.size)
                row.note = answer.note


class Results:
    def __init__(self) -> None:
        self.ops: dict[str, list[Row]] = {}
        self.tools_list: list[tuple[str, str, int, int]] = []
        """(contender, revision, tools, compact JSON chars)."""
        self.setup_problems: dict[str, str] = {}
        self.viewports: dict[str, str] = {}


async def _state(driver: Driver) -> tuple[int, int, str]:
    value = await driver.evaluate(STATE_JS)
    found = _STATE.match(value)
    if not found:
        raise BenchError(f"{driver.short}: page state {value[:100]!r}")
    return int(found.group(1)), int(found.group(2)), found.group(3)


async def _compact_tools_list(client: McpClient) -> tuple[int, int]:
    result = await client.request("tools/list")
    return len(result["tools"]), len(json.dumps(result, separators=(",", ":")))


async def _contest(results: Results, name: str, rows: list[Row], rounds: int) -> None:
    """Run ``rows`` as operation ``name`` of the table."""
    results.ops[name] = rows
    await contest(rows, rounds)


async def _interactions(
    results: Results, ready: list[Driver], page: str, url: str, ops_title: str, rounds: int
) -> None:
    """click, type, key and evaluate on ``url`` (loaded fresh, so its counters start at 0),
    each call checked by the page's own counters or title."""
    refs: dict[str, str] = {}
    fields: dict[str, str] = {}
    for driver in list(ready):
        try:
            assert driver.navigate is not None
            title = await driver.navigate(url)
            if title != ops_title:
                raise BenchError(f"{driver.short}: the {page}'s title read {title!r}")
            refs[driver.short] = await driver.ref("button", CLICK_NAME)
            fields[driver.short] = await driver.ref("textbox", FIELD_NAME)
        except FAILURES as exc:
            results.setup_problems[f"{driver.short} ({page})"] = f"{type(exc).__name__}: {exc}"
            ready.remove(driver)

    rows: list[Row] = []
    for driver in ready:

        async def click(index: int, driver: Driver = driver) -> Answer:
            return await driver.click(refs[driver.short])

        async def counted(index: int, answer: Answer, driver: Driver = driver) -> None:
            clicks, _, _ = await _state(driver)
            if clicks != index + 1:
                raise BenchError(
                    f"{driver.short}: the page counted {clicks} clicks after {index + 1}"
                )

        rows.append(Row(driver.short, driver.click_tool, click, counted))
    await _contest(results, f"click ({page})", rows, rounds)

    rows = []
    for driver in ready:
        try:
            await driver.focus(fields[driver.short])
        except FAILURES as exc:
            results.setup_problems[f"{driver.short} ({page})"] = f"{type(exc).__name__}: {exc}"
            continue

        async def typing(index: int, driver: Driver = driver) -> Answer:
            return await driver.type(fields[driver.short], typed_text(index))

        async def typed(index: int, answer: Answer, driver: Driver = driver) -> None:
            _, _, value = await _state(driver)
            if not value.endswith(typed_text(index)):
                raise BenchError(
                    f"{driver.short}: the field holds {value[-40:]!r} after typing {typed_text(index)!r}"
                )

        rows.append(Row(driver.short, driver.type_tool, typing, typed))
    await _contest(results, f"type ({page})", rows, rounds)

    rows = []
    for driver in ready:

        async def filling(index: int, driver: Driver = driver) -> Answer:
            return await driver.fill(fields[driver.short], typed_text(index))

        async def filled(index: int, answer: Answer, driver: Driver = driver) -> None:
            _, _, value = await _state(driver)
            if value != typed_text(index):
                raise BenchError(
                    f"{driver.short}: the field holds {value[-40:]!r} after filling in {typed_text(index)!r}"
                )

        rows.append(Row(driver.short, driver.fill_tool, filling, filled))
    await _contest(results, f"fill ({page})", rows, rounds)

    rows = []
    for driver in ready:
        _, keys_before, _ = await _state(driver)

        async def press(index: int, driver: Driver = driver) -> Answer:
            return await driver.key()

        async def pressed(
            index: int, answer: Answer, driver: Driver = driver, base: int = keys_before
        ) -> None:
            _, keys, _ = await _state(driver)
            if keys != base + index + 1:
                raise BenchError(
                    f"{driver.short}: the field counted {keys - base} {KEY} presses after {index + 1}"
                )

        rows.append(Row(driver.short, driver.key_tool, press, pressed))
    await _contest(results, f"key ({page})", rows, rounds)

    rows = []
    for driver in ready:

        async def evaluate(index: int, driver: Driver = driver) -> Answer:
            return await driver.evaluated("document.title")

        async def titled(index: int, answer: Answer) -> None:
            if answer.text != ops_title:
                raise BenchError(f"document.title read {answer.text!r}, expected {ops_title!r}")

        rows.append(Row(driver.short, driver.evaluate_tool, evaluate, titled))
    await _contest(results, f"evaluate ({page})", rows, rounds)


async def _bench(
    base_url: str,
    env: dict[str, str],
    logs: Path,
    peer_problem: str | None,
    rounds: int,
    ops_title: str,
) -> Results:
    results = Results()
    shop = urljoin(base_url, "/shop")
    pw_label = peers.peer_label("@playwright/mcp")
    async with peers.managed_browser(), peers.SessionPool() as pool:
        session = await pool.open(peers.connector_argv(), env, logs / "ghostlight.log")
        drivers: list[Driver] = [Ghostlight(session.client, "ghostlight")]
        if peer_problem is None:
            (pw_argv, pw_env), (fast_argv, fast_env), (cdm_argv, cdm_env) = peers.peer_launches(
                logs
            )
            pw = await pool.open(pw_argv, pw_env, logs / "playwright.log")
            fast = await pool.open(fast_argv, fast_env, logs / "playwright-settle-0.log")
            cdm = await pool.open(cdm_argv, cdm_env, logs / "cdm.log")
            drivers += [
                Playwright(pw.client, pw_label, "playwright"),
                Playwright(fast.client, f"{pw_label} --timeout-settle 0", "playwright settle-0"),
                DevTools(cdm.client, peers.peer_label("chrome-devtools-mcp")),
            ]

        # tools/list with the browser connected: the full catalog.
        ours_2026 = await pool.open(
            peers.connector_argv(), env, logs / "ghostlight.log", REVISION_2026_07_28
        )
        for driver in drivers:
            results.tools_list.append(
                (driver.short, REVISION_2025_11_25, *await _compact_tools_list(driver.client))
            )
            if driver.short == "ghostlight":
                results.tools_list.append(
                    (
                        driver.short,
                        REVISION_2026_07_28,
                        *await _compact_tools_list(ours_2026.client),
                    )
                )

        # Each contender: its tab or page at the viewport, on the shop page.
        ready: list[Driver] = []
        for driver in drivers:
            try:
                await driver.setup()
                assert driver.navigate is not None
                title = await driver.navigate(shop)
                if title != "Ghostlight bench shop":
                    raise BenchError(f"{driver.short}: the shop page's title read {title!r}")
                size = await driver.evaluate(
                    "innerWidth + 'x' + innerHeight + '@' + devicePixelRatio"
                )
                results.viewports[driver.short] = size
                if size != f"{VIEWPORT[0]}x{VIEWPORT[1]}@1":
                    raise BenchError(
                        f"{driver.short}: viewport {size}, not {VIEWPORT[0]}x{VIEWPORT[1]}@1"
                    )
                ready.append(driver)
            except FAILURES as exc:
                results.setup_problems[driver.short] = f"{type(exc).__name__}: {exc}"

        def make(driver: Driver, call: Call) -> Callable[[int], Awaitable[Answer]]:
            async def timed(index: int) -> Answer:
                return await call()

            return timed

        # read_page / snapshot, find, screenshot: on /shop.
        rows: list[Row] = []
        refs = {d.short: await d.ref("button", CLICK_NAME) for d in ready}
        for driver in ready:
            for tool, call in zip(driver.snapshot_tools, driver.snapshots(), strict=True):

                async def lists(index: int, answer: Answer, driver: Driver = driver) -> None:
                    if not driver.lists(refs[driver.short], "button", CLICK_NAME, answer.text):
                        raise BenchError(
                            f"{driver.short}: the snapshot does not list the {CLICK_NAME!r} button"
                        )

                rows.append(Row(driver.short, tool, make(driver, call), lists))
        await _contest(results, "read_page", rows, rounds)

        rows = []
        for driver in ready:
            if driver.find_tool is None:
                continue

            async def named(index: int, answer: Answer, driver: Driver = driver) -> None:
                if not re.search(rf'\[{refs[driver.short]}\] button "{CLICK_NAME}"', answer.text):
                    raise BenchError(f"{driver.short}: find did not name the {CLICK_NAME!r} button")

            rows.append(Row(driver.short, driver.find_tool, make(driver, driver.find), named))
        await _contest(results, "find", rows, rounds)

        rows = [Row(d.short, d.screenshot_tool, make(d, d.screenshot)) for d in ready]
        await _contest(results, "screenshot", rows, rounds)

        for page, path in PAGES.items():
            await _interactions(results, ready, page, urljoin(base_url, path), ops_title, rounds)

        # navigate last: it leaves /ops.
        run_number = 0
        rows = []
        for driver in ready:

            async def navigate(index: int, driver: Driver = driver) -> Answer:
                nonlocal run_number
                run_number += 1
                assert driver.navigate is not None
                title = await driver.navigate(f"{base_url}?run={run_number}")
                if title != peers.page_title(run_number):
                    raise BenchError(
                        f"{driver.short}: navigated to run {run_number}, the answer says {title!r}"
                    )
                return Answer(title, len(title))

            rows.append(Row(driver.short, driver.navigate_tool, navigate))
        await _contest(results, "navigate", rows, rounds)
    return results


# -- report -----------------------------------------------------------------------------------

_ON_PAGES = {
    "click": "click the button by ref, answer (with receipt) received",
    "type": f"type {TYPED} characters into the focused field, one key event pair each",
    "fill": f"set the field to {TYPED} characters at once",
    "key": f"key {KEY} in the focused field",
    "evaluate": "evaluate document.title",
}
OPERATIONS = {
    "cold start": "connector cold start: spawn -> initialize answered (service warm, no browser)",
    "read_page": "read_page / snapshot of /shop: time, characters of the result text",
    "find": "find the button on /shop (the peers have no equivalent)",
    "screenshot": "screenshot of the viewport: time, bytes of the image data",
    **{
        f"{op} ({page})": f"{text}, on {path}"
        for op, text in _ON_PAGES.items()
        for page, path in PAGES.items()
    },
    "navigate": "navigate to a loopback page, title read from the answer",
}
UNITS = {"screenshot": "bytes", "cold start": "", "navigate": ""}
"""The size column: characters of the result text unless named here ("": not shown)."""


def ratio(value: float, base: float | None) -> str:
    return f"x{value / base:.2f}" if base else "n/a"


def format_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()
) -> list[str]:
    """Columns padded to their widest cell, those at the indexes in ``right`` aligned right;
    a row of one cell is a heading spanning the table."""
    widths = [len(cell) for cell in header]
    for row in rows:
        if len(row) > 1:
            widths = [max(width, len(cell)) for width, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        padded = [
            cell.rjust(width) if index in right else cell.ljust(width)
            for index, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(padded).rstrip()

    out = [line(header), line(["-" * width for width in widths])]
    for row in rows:
        out.append(row[0] if len(row) == 1 else line(row))
    return out


def fastest_peer(rows: Sequence[Row]) -> Row | None:
    measured = [row for row in rows if row.contender != "ghostlight" and row.measured]
    return min(measured, key=lambda row: row.p50_ms) if measured else None


def _size(row: Row, unit: str) -> str:
    return f"{row.size:,.0f} {unit}" if unit else ""


def report(results: Results, cold: list[ColdStart], ops_note: str) -> list[str]:
    """The table and the goal lines, as printed."""
    table: list[list[str]] = []
    for op, title in OPERATIONS.items():
        table.append([f"{op}: {title}"])
        if op == "cold start":
            rows = [Row(c.name, "initialize", _never) for c in cold]
            for row, contender in zip(rows, cold, strict=True):
                row.samples = contender.samples
        else:
            rows = results.ops.get(op, [])
        base = fastest_peer(rows)
        for row in rows:
            if not row.measured:
                table.append(
                    [
                        f"  {row.contender}",
                        row.tool,
                        "FAILED",
                        "",
                        "",
                        "",
                        row.problem or "no samples",
                    ]
                )
                continue
            p90 = percentile(row.samples, 0.9) * 1000
            table.append(
                [
                    f"  {row.contender}",
                    row.tool,
                    f"{row.p50_ms:.1f}",
                    f"{p90:.1f}",
                    _size(row, UNITS.get(op, "chars")),
                    ratio(row.p50_ms, base.p50_ms if base else None),
                    row.note,
                ]
            )
        if op == "find":
            table.append(
                [
                    "  playwright, playwright settle-0, chrome-devtools-mcp",
                    "(none)",
                    "n/a",
                    "n/a",
                    "",
                    "n/a",
                    "",
                ]
            )
    lines = format_table(
        ["operation / contender", "tool", "p50 ms", "p90 ms", "size", "vs fastest peer", "note"],
        table,
        right=(2, 3, 4),
    )
    lines.append("")
    lines += format_table(
        ["tools/list", "revision", "tools", "compact JSON chars"],
        [
            [f"  {who}", revision, str(count), f"{chars:,}"]
            for who, revision, count, chars in results.tools_list
        ],
        right=(2, 3),
    )
    for who, problem in results.setup_problems.items():
        lines.append(f"  SETUP FAILED {who}: {problem}")
    lines.append(f"  note: {ops_note}")
    lines.append("")
    lines += goals(results)
    return lines


async def _never(index: int) -> Answer:
    raise AssertionError("cold-start rows are measured by edge_bench.cold_starts")


def _goal(ok: bool, text: str) -> str:
    return f"{'PASS' if ok else 'FAIL'}  {text}"


def _p50_goal(groups: dict[str, Sequence[Row]], what: str) -> str:
    """PASS when on every page of ``groups`` our p50 is at most the fastest peer's."""
    parts: list[str] = []
    ok = bool(groups)
    for page, rows in groups.items():
        where = f"{page}: " if page else ""
        ours = next((row for row in rows if row.contender == "ghostlight"), None)
        base = fastest_peer(rows)
        if ours is None or not ours.measured:
            ok = False
            parts.append(f"{where}ours not measured ({ours.problem if ours else 'no row'})")
        elif base is None:
            ok = False
            parts.append(f"{where}no peer measured; ours {ours.p50_ms:.1f} ms")
        else:
            ok = ok and ours.p50_ms <= base.p50_ms
            parts.append(
                f"{where}ghostlight {ours.p50_ms:.1f} ms vs {base.contender} {base.p50_ms:.1f} ms"
                f" ({ratio(ours.p50_ms, base.p50_ms)})"
            )
    return _goal(ok, f"{what} p50 <= fastest peer configuration's p50: {'; '.join(parts)}")


def _on_pages(results: Results, op: str) -> dict[str, Sequence[Row]]:
    return {page: results.ops.get(f"{op} ({page})", []) for page in PAGES}


def goals(results: Results) -> list[str]:
    lines = ["goals (this run):"]
    lines.append(_p50_goal(_on_pages(results, "click"), "click with receipt"))
    lines.append(_p50_goal(_on_pages(results, "type"), "type (key events per character)"))
    lines.append(_p50_goal(_on_pages(results, "fill"), "type as a fill (the value set at once)"))
    lines.append(_p50_goal({"": results.ops.get("navigate", [])}, "navigate"))
    reads = results.ops.get("read_page", [])
    peer_reads = [row for row in reads if row.contender != "ghostlight" and row.measured]
    ours = [row for row in reads if row.contender == "ghostlight"]
    text = "read_page (default call) time <= 1.0x fastest peer snapshot, chars <= 0.5x smallest"
    if not ours or not ours[0].measured or not peer_reads:
        lines.append(_goal(False, f"{text}: not measured"))
    else:
        fastest = min(peer_reads, key=lambda row: row.p50_ms)
        smallest = min(peer_reads, key=lambda row: row.size)
        small = smallest.size
        default = ours[0]
        chars = default.size
        time_ratio, char_ratio = default.p50_ms / fastest.p50_ms, chars / small
        lines.append(
            _goal(
                time_ratio <= 1.0 and char_ratio <= 0.5,
                f"{text}: {default.p50_ms:.1f} ms vs {fastest.contender} {fastest.p50_ms:.1f} ms (x{time_ratio:.2f}),"
                f" {chars:,.0f} vs {smallest.contender} {small:,.0f} chars (x{char_ratio:.2f}; {default.note})",
            )
        )
        for row in ours[1:]:
            if row.measured:
                row_chars = row.size
                lines.append(
                    f"      ({row.tool}: x{row.p50_ms / fastest.p50_ms:.2f} time,"
                    f" {row_chars:,.0f} chars = x{row_chars / small:.2f}; {row.note})"
                )
    lines.append(_p50_goal(_on_pages(results, "evaluate"), "evaluate"))
    ours_lists = [(rev, chars) for who, rev, _, chars in results.tools_list if who == "ghostlight"]
    for revision in (REVISION_2025_11_25, REVISION_2026_07_28):
        listed = next((c for rev, c in ours_lists if rev == revision), None)
        text = f"tools/list <= {TOOLS_LIST_LIMIT:,} chars compact JSON, revision {revision}"
        if listed is None:
            lines.append(_goal(False, f"{text}: not measured"))
        else:
            lines.append(_goal(listed <= TOOLS_LIST_LIMIT, f"{text}: {listed:,}"))
    return lines


def run(rounds: int = ROUNDS) -> None:
    peer_problem = peers.ensure_peers()
    html, facts = snapshot_bench.build_page()
    ops_title = f"Ghostlight bench ops {secrets.token_hex(4)}"
    pages = {
        "/shop": html,
        "/ops": ops_page(html, ops_title),
        "/ops-small": small_ops_page(ops_title),
    }
    with (
        tempfile.TemporaryDirectory(prefix="glt-bench-peers-") as tmp,
        peers.loopback_page(pages) as base_url,
    ):
        logs = Path(tmp)
        with (
            isolated_instance("bench-peers") as env,
            running_service(env),
            peers.instance_environ(env),
        ):
            connector = peers.connector_argv()
            cold = [
                ColdStart(
                    "ghostlight", connector, env, REVISION_2025_11_25, logs / "cold-ghostlight.log"
                )
            ]
            if peer_problem is None:
                names = ("playwright", "playwright settle-0", "chrome-devtools-mcp")
                for name, (argv, penv) in zip(names, peers.peer_launches(logs), strict=True):
                    cold.append(
                        ColdStart(name, argv, penv, REVISION_2025_11_25, logs / f"cold-{name}.log")
                    )
            trio.run(cold_starts, cold, rounds)
            results = trio.run(_bench, base_url, env, logs, peer_problem, rounds, ops_title)

    versions = f"{peers.peer_label('@playwright/mcp')}, {peers.peer_label('chrome-devtools-mcp')}"
    print(
        f"\n== peers: Ghostlight beside {versions} (playwright settle-0: --timeout-settle 0),"
        f" MCP {REVISION_2025_11_25} over stdio, headless {peers.CHROMIUM}, viewport {VIEWPORT[0]}x{VIEWPORT[1]},"
        f" {rounds} rounds after {WARMUP} warm-up, round-robin"
    )
    if peer_problem is not None:
        print(f"  peers skipped: {peer_problem}")
    load = os.getloadavg()
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    note = (
        f"/shop is {facts['bytes'] / 1024:.0f} KB of HTML with {facts['interactive']:,} interactive"
        f" elements; {when}, {os.cpu_count()} CPUs, load average {load[0]:.2f}"
    )
    for line in report(results, cold, note):
        print(f"  {line}" if line else "")
    failed = [
        f"{op} / {row.contender}: {row.problem}"
        for op, rows in results.ops.items()
        for row in rows
        if row.problem is not None
    ] + [f"setup / {who}: {problem}" for who, problem in results.setup_problems.items()]
    if failed:
        raise SystemExit(
            "peers: results that failed their checks (not timed as successes):\n  "
            + "\n  ".join(failed)
        )
