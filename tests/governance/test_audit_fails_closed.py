"""The audit fails closed: while its lines cannot be written (a full disk), a call that would
reach a page is refused with the reason and the fix before anything of it is sent, service-local
calls still answer, status and doctor say so, and recording resumes, held lines first, once a
write goes through again."""

from __future__ import annotations

import errno
import os
from typing import Any

import pytest

import ghostlight_trio.audit.log as audit_log
from ghostlight_trio.audit.records import read_lines
from ghostlight_trio.engine.contracts import ToolCall, ToolResult
from ghostlight_trio.service.status import status_report
from ghostlight_trio.service.streams import LiveStreams
from ghostlight_trio.transport.bridge_codec import decode_message, encode_message
from ghostlight_trio.transport.endpoints import Endpoints

from .harness import TAB, FakeBrowser, GovernedHarness, navigating_handler

FULL = os.strerror(errno.ENOSPC)


class Disk:
    """``os`` as the audit writer sees it, with a disk that can fill up: ``full`` fails every
    write as a full disk does; ``torn`` writes half of the next line, then fills up."""

    def __init__(self) -> None:
        self.full = False
        self.torn = False

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def write(self, fd: int, data: bytes) -> int:
        if self.torn:
            self.torn, self.full = False, True
            return os.write(fd, data[: len(data) // 2])
        if self.full:
            raise OSError(errno.ENOSPC, FULL)
        return os.write(fd, data)


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> Disk:
    disk = Disk()
    monkeypatch.setattr(audit_log, "os", disk)
    return disk


def _harness(nursery, tmp_path) -> GovernedHarness:
    browser = FakeBrowser()

    async def read(call: ToolCall) -> ToolResult:
        async def effect() -> str:
            browser.navigations.append((int(call.arguments["tabId"]), "read"))
            return "page text"

        return ToolResult.text(await call.effects.atomic(effect))

    async def plan(call: ToolCall) -> ToolResult:
        return ToolResult.text("planned")

    handlers = {"navigate": navigating_handler(browser), "get_page_text": read, "update_plan": plan}
    return GovernedHarness(nursery, handlers, tmp_path / "audit.jsonl", browser=browser)


def _refusal(h: GovernedHarness) -> str:
    return (
        f"Refused: the audit log cannot be written ({FULL} at {h.audit_path}); Ghostlight does"
        " not act unrecorded. Free space on that disk (or fix the file), then call again."
    )


PLAN = {"domains": ["a.test"], "approach": ["look"]}


async def test_calls_that_reach_a_page_are_refused_while_the_audit_cannot_be_written(
    nursery, tmp_path, disk
) -> None:
    h = _harness(nursery, tmp_path)
    ws = h.workspace(TAB)
    disk.full = True
    planned = await h.call("update_plan", PLAN)  # service-local: answers, and finds out
    assert planned.kind == "ok"
    assert h.engine.audit_problem() == f"{FULL} at {h.audit_path}"
    for tool, arguments in (
        ("navigate", {"url": "https://a.test/", "tabId": TAB}),
        ("get_page_text", {"tabId": TAB}),
    ):
        refused = await h.call(tool, arguments, ws)
        assert (refused.kind, refused.content[0].text) == ("held", _refusal(h)), tool  # type: ignore[union-attr]
    assert h.browser.navigations == []  # nothing reached the browser
    assert not h.audit_path.exists() or h.audit_path.read_bytes() == b""

    disk.full = False  # space returns: the next call writes what was held, then runs
    done = await h.call("navigate", {"url": "https://a.test/", "tabId": TAB}, ws)
    assert done.kind == "ok" and h.browser.navigations == [(TAB, "https://a.test/")]
    assert h.engine.audit_problem() == ""
    lines = list(read_lines(h.audit_path))
    calls = [(r.get("tool"), r.get("outcome"), r.get("rule")) for r in lines if "event" not in r]
    assert calls == [
        ("update_plan", "ok", "all_open"),
        ("navigate", "held", "audit_unwritable"),
        ("get_page_text", "held", "audit_unwritable"),
        ("navigate", "ok", "all_open"),
    ]
    [resumed] = [r for r in lines if r.get("event") == "audit_resumed"]
    assert resumed["error"] == f"{FULL} at {h.audit_path}" and resumed["lost"] == 0
    assert lines.index(resumed) == 3  # after the three held records, before the new call


async def test_a_call_whose_dispatched_line_is_not_written_sends_nothing(
    nursery, tmp_path, disk
) -> None:
    """The disk fills between a call's start and its first browser request: the line written
    ahead of that request fails, so the request is never sent."""
    h = _harness(nursery, tmp_path)
    ws = h.workspace(TAB)
    disk.full = True  # nothing was written yet: the service cannot know before this call
    refused = await h.call("navigate", {"url": "https://a.test/", "tabId": TAB}, ws)
    assert (refused.kind, refused.content[0].text) == ("held", _refusal(h))  # type: ignore[union-attr]
    assert h.browser.navigations == []


async def test_a_line_the_disk_cut_short_is_taken_back(nursery, tmp_path, disk) -> None:
    h = _harness(nursery, tmp_path)
    ws = h.workspace(TAB)
    assert (await h.call("update_plan", PLAN)).kind == "ok"
    disk.torn = True
    assert (await h.call("update_plan", PLAN)).kind == "ok"  # its record: half written
    disk.full = False
    assert (await h.call("navigate", {"url": "https://a.test/", "tabId": TAB}, ws)).kind == "ok"
    text = h.audit_path.read_text()
    assert all(line.startswith("{") and line.endswith("}") for line in text.splitlines()), text
    assert [r.get("tool") for r in h.records()] == ["update_plan", "update_plan", "navigate"]


async def test_status_and_doctor_say_the_audit_is_not_written(
    nursery, tmp_path, disk, endpoints: Endpoints
) -> None:
    from ghostlight_trio.cli.doctor import _audit_row
    from ghostlight_trio.cli.status import audit_line

    h = _harness(nursery, tmp_path)
    disk.full = True
    await h.call("update_plan", PLAN)
    report = status_report(
        1, service_version="x", streams=LiveStreams(), workspaces=h.workspaces,
        engine=h.engine, browser=None, governor=h.governor,
    )
    problem = f"{FULL} at {h.audit_path}"
    assert decode_message(encode_message(report)) == report  # it reaches the CLI
    assert report.audit_problem == problem
    assert audit_line(report.audit_problem).startswith(f"NOT WRITTEN: {problem}. Calls that")
    row = _audit_row(endpoints, report)
    assert row.verdict == "fail" and problem in row.detail
    assert "free space on that disk" in row.fix
