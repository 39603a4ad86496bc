"""The audit trail: exactly one content-free line per call however it ends, rotation that keeps
every line, and simulate reproducing live denial ids."""

from __future__ import annotations

import json

import trio

from ghostlight_trio.audit import unsettled
from ghostlight_trio.audit.log import RotatingAuditLog
from ghostlight_trio.audit.records import CALL_KEYS, call_records, generations, read_lines
from ghostlight_trio.catalog.registry import load_specs
from ghostlight_trio.engine.audit import AuditRecord
from ghostlight_trio.engine.contracts import ToolCall, ToolResult
from ghostlight_trio.governance.simulate import simulate

from .harness import (
    TAB,
    FakeBrowser,
    GovernedHarness,
    grant,
    manifest,
    navigating_handler,
    state,
)

SECRET_PATH = "/private-path-7f3a/inner"
SECRET_QUERY = "token=QUERY-9d2e"
TYPED = "TYPED-VALUE-51c0"
POLICY = manifest(
    grant("docs", ["docs.test", "*.docs.test"], ["read", "action"], deny=["admin.docs.test"]),
    grant("tools", ["tools.test"], ["read", "write"]),
)


def _handlers(browser: FakeBrowser):
    async def slow(call: ToolCall) -> ToolResult:
        async def effect() -> None:
            await trio.sleep(float(call.arguments.get("text", "0") or 0))

        await call.effects.atomic(effect)
        return ToolResult.text("typed")

    async def broken(call: ToolCall) -> ToolResult:
        raise RuntimeError("handler bug")

    async def plan(call: ToolCall) -> ToolResult:
        return ToolResult.text("ok")

    return {
        "navigate": navigating_handler(browser),
        "computer": slow,
        "get_page_text": broken,
        "update_plan": plan,
    }


def _harness(nursery, tmp_path, policy=None):
    browser = FakeBrowser()
    return GovernedHarness(nursery, _handlers(browser), tmp_path / "audit.jsonl", policy, browser)


def _type(seconds: float) -> dict:
    # The typed text doubles as the fake effect's duration; only digits reach the effect.
    return {"action": "type", "text": str(seconds), "tabId": TAB}


async def test_exactly_one_record_per_call_however_it_ends(nursery, tmp_path, autojump_clock):
    h = _harness(nursery, tmp_path, state(POLICY))
    ws = h.workspace(TAB)
    h.browser.urls[TAB] = f"https://docs.test{SECRET_PATH}?{SECRET_QUERY}"
    works = {}
    works["allow"] = h.start("update_plan", {"domains": [TYPED], "approach": [TYPED]})
    works["deny"] = h.start("navigate", {"url": f"https://evil.test{SECRET_PATH}?{SECRET_QUERY}", "tabId": TAB}, ws)
    works["fault"] = h.start("get_page_text", {"tabId": TAB}, ws)
    await h.settled()
    h.governor.hold()
    works["held"] = h.start("computer", _type(0), ws)
    await h.settled()
    h.governor.resume()
    works["cancelled"] = h.start("computer", _type(10), ws)
    await trio.sleep(1)
    h.session.cancel(works["cancelled"])
    await h.settled()
    works["late"] = h.start("computer", _type(90), ws)  # answered at 60 s, settles at 90 s
    await trio.sleep(1)
    works["cut"] = h.start("computer", _type(500), ws)  # queued behind it, retired unstarted
    await h.settled()
    works["unknown"] = h.start("computer", _type(500), ws)  # cut at 180 s
    await h.settled()

    kinds = {name: h.outcomes[work].kind for name, work in works.items()}
    assert kinds == {
        "allow": "ok", "deny": "denied", "fault": "tool_error", "held": "held",
        "cancelled": "cancelled", "late": "outcome_unknown", "cut": "tool_error",
        "unknown": "outcome_unknown",
    }
    records = h.records()
    assert sorted(r["call"] for r in records) == sorted(works.values())  # exactly once each
    by_call = {r["call"]: r for r in records}
    assert by_call[works["late"]]["outcome"] == "ok"
    assert by_call[works["late"]]["reported"] == "outcome_unknown"
    assert by_call[works["unknown"]]["outcome"] == "outcome_unknown"
    assert by_call[works["held"]]["decision"] == "held"
    assert by_call[works["deny"]]["decision"] == "deny"
    for record in records:
        assert tuple(record) == CALL_KEYS

    raw = h.audit_path.read_text()
    for secret in (ws, TYPED, SECRET_PATH, "private-path", SECRET_QUERY, "QUERY-9d2e", "handler bug"):
        assert secret not in raw, secret
    assert "evil.test" in raw and "docs.test" in raw  # hosts only
    events = [r["event"] for r in read_lines(h.audit_path) if "event" in r]
    assert [event for event in events if event != "dispatched"] == ["hold", "resume"]
    # Written ahead by each call that sent an effect (never by one that was stopped first).
    ahead = [r["call"] for r in read_lines(h.audit_path) if r.get("event") == "dispatched"]
    assert sorted(ahead) == sorted(works[name] for name in ("cancelled", "late", "unknown"))


async def test_rotation_never_loses_splits_or_rewrites_a_line(tmp_path):
    path = tmp_path / "audit.jsonl"
    log = RotatingAuditLog(path, max_bytes=4096, keep=100)
    for index in range(600):
        log(AuditRecord(
            time=1_700_000_000 + index, work_id=f"w{index}", workspace="ws-x", operation="update_plan",
            outcome="ok", reported="ok", duration=0.001, effects_dispatched=0,
        ))
    log.close()
    files = generations(path)
    assert len(files) > 10
    for file in files:
        data = file.read_bytes()
        assert data.endswith(b"\n") and len(data) <= 4096
        assert all(json.loads(line) for line in data.splitlines())
    assert [r["call"] for r in call_records(path)] == [f"w{i}" for i in range(600)]

    bounded = RotatingAuditLog(tmp_path / "b.jsonl", max_bytes=1024, keep=2)
    for index in range(200):
        bounded.event("tick", n=index)
    assert len(generations(tmp_path / "b.jsonl")) == 3  # bounded: current + 2


def _record(work_id: str, outcome: str = "ok", tool: str = "computer") -> AuditRecord:
    return AuditRecord(
        time=1_700_000_000, work_id=work_id, workspace="ws-x", operation=tool, outcome=outcome,
        reported=outcome, duration=0.5, effects_dispatched=1, client="agent", action="left_click",
        host="docs.test", decision="allow", rule="all_open",
    )


async def test_the_next_service_records_the_calls_a_stopped_one_was_cut_off_during(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(unsettled, "CHUNK", 97)  # lines cut across reads
    path = tmp_path / "audit.jsonl"
    old = RotatingAuditLog(path, max_bytes=1600, keep=3)  # the stopped service's trail
    old.dispatched(_record("1.a", "dispatched"))
    old(_record("1.a"))
    old.dispatched(_record("2.a", "dispatched", tool="navigate"))  # cut off
    old.event("hold")
    old.dispatched(_record("3.a", "dispatched"))
    old(_record("3.a/1", "ok"))  # a step's record is not its composition's
    old.dispatched(_record("4.a", "dispatched"))
    old(_record("4.a", "cancelled"))  # after a rotation: still settled
    older, current = generations(path)
    assert b'"call":"4.a"' in older.read_bytes() and b'"call":"4.a"' in current.read_bytes()
    old.close()

    trail = unsettled.Trail.open(path)
    new = RotatingAuditLog(path, max_bytes=1600, keep=3)
    new.dispatched(_record("1.b", "dispatched"))  # the new service's own work, in flight
    assert await unsettled.record_unsettled(trail, new) == 2
    records = {r["call"]: r for r in call_records(path)}
    for work_id, tool in (("2.a", "navigate"), ("3.a", "computer")):
        recovered = records[work_id]
        assert tuple(recovered) == CALL_KEYS
        assert recovered["tool"] == tool and recovered["workspace"] == "ws-x"
        assert recovered["time"] == "2023-11-14T22:13:20.000Z"  # when it was dispatched
        assert (recovered["outcome"], recovered["reported"], recovered["duration_ms"]) == (
            "outcome_unknown", None, None,
        )
        assert (recovered["action"], recovered["host"], recovered["client"]) == (
            "left_click", "docs.test", "agent",
        )
    assert "1.b" not in records
    # The next start finds nothing more: a recovered record settles its call.
    assert await unsettled.record_unsettled(unsettled.Trail.open(path), new) == 1  # only 1.b
    assert await unsettled.record_unsettled(unsettled.Trail.open(path), new) == 0


async def test_simulate_reproduces_live_denial_ids(nursery, tmp_path):
    policy = state(POLICY, never_touch=["bank.test"])
    h = _harness(nursery, tmp_path, policy)
    ws = h.workspace(TAB)
    for url in ["https://docs.test/", "https://evil.test/", "https://admin.docs.test/",
                "https://bank.test/", "data:text/html,hi", "https://a.docs.test/"]:
        await h.call("navigate", {"url": url, "tabId": TAB}, ws)
    h.browser.urls[TAB] = "https://tools.test/x"
    await h.call("computer", _type(0), ws)  # action not granted on tools.test
    h.governor.resume()  # five denials paused the workspace
    h.browser.urls[TAB] = "https://docs.test/x"
    await h.call("computer", _type(0), ws)
    records = h.records()
    assert sum(1 for r in records if r["denial_id"]) == 5
    specs = {spec.name: spec for spec in load_specs()}
    replayed = simulate(call_records(h.audit_path), specs, policy)
    assert len(replayed) == len(records)
    assert [item.decision.denial_id for item in replayed] == [r["denial_id"] for r in records]
    # A different candidate policy gives different verdicts, and says so.
    wider = state(manifest(grant("all", ["*"], ["read", "action", "write", "execute"])), never_touch=["bank.test"])
    changed = [item for item in simulate(call_records(h.audit_path), specs, wider) if item.changed]
    assert {item.record["host"] for item in changed} == {"evil.test", "admin.docs.test", "data:", "tools.test"}


async def test_simulate_refuses_local_files_as_live_calls_do_whatever_the_policy(nursery, tmp_path):
    h = _harness(nursery, tmp_path, state(POLICY))
    ws = h.workspace(TAB)
    refused = await h.call("navigate", {"url": "file:///etc/passwd", "tabId": TAB}, ws)
    assert refused.kind == "denied"
    specs = {spec.name: spec for spec in load_specs()}
    wide = state(manifest(grant("all", ["*"], ["read", "action", "write", "execute"])))
    for candidate in (state(POLICY), wide, state()):
        [replayed] = simulate(call_records(h.audit_path), specs, candidate)
        assert not replayed.changed and replayed.decision.rule == "protected/file"
