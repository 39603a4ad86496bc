"""Scheduler: fairness, bounds, queue deadline, quarantine, reentrancy, browser-wide exclusion."""

from __future__ import annotations

import pytest
import trio

from ghostlight_trio.scheduler import (
    SERVICE_LOCAL,
    BrowserWide,
    Busy,
    LeaseOrderError,
    QueueDeadlineExceeded,
    ResourceQuarantined,
    Scheduler,
    SchedulerLimits,
    TabSurface,
    WorkspaceTopology,
)

SURFACE = TabSurface(1, 7)


async def hold(
    scheduler, key, producer, name, log, seconds=1.0, *, task_status=trio.TASK_STATUS_IGNORED
):
    request = scheduler.lease(key, producer=producer, holder=name)
    task_status.started()
    async with request:
        log.append((name, trio.current_time()))
        await trio.sleep(seconds)


async def test_producers_interleave_round_robin(autojump_clock):
    scheduler = Scheduler()
    log: list[tuple[str, float]] = []
    async with trio.open_nursery() as nursery:
        await nursery.start(hold, scheduler, SURFACE, "x", "blocker", log)
        for n in range(3):
            await nursery.start(hold, scheduler, SURFACE, "A", f"A{n}", log)
        for n in range(3):
            await nursery.start(hold, scheduler, SURFACE, "B", f"B{n}", log)
    assert [name for name, _ in log] == ["blocker", "A0", "B0", "A1", "B1", "A2", "B2"]


async def test_different_tabs_run_in_parallel_and_browser_wide_excludes_the_slot(autojump_clock):
    scheduler = Scheduler()
    log: list[tuple[str, float]] = []
    async with trio.open_nursery() as nursery:
        await nursery.start(hold, scheduler, TabSurface(1, 1), "p", "t1", log, 5)
        await nursery.start(hold, scheduler, TabSurface(1, 2), "q", "t2", log, 5)
        await nursery.start(hold, scheduler, BrowserWide(1), "r", "bw", log, 5)
        await nursery.start(hold, scheduler, TabSurface(1, 3), "s", "t3", log, 1)  # after bw
        await nursery.start(hold, scheduler, TabSurface(2, 3), "s", "other", log, 1)
        await nursery.start(hold, scheduler, WorkspaceTopology(None, "w"), "w", "topo", log, 1)
    starts = dict(log)
    assert starts["t1"] == starts["t2"] == 0
    assert starts["other"] == 0  # another browser is unaffected
    assert starts["bw"] == 5  # waited for both tabs of browser 1
    assert starts["t3"] == 10  # arrived after bw, so it waits for bw
    assert starts["topo"] == 10  # an unbound topology lane counts as inside every browser


async def test_bounds_reject_with_busy(autojump_clock):
    limits = SchedulerLimits(per_resource=2, per_producer=3, global_queued=4)
    scheduler = Scheduler(limits)
    log: list[tuple[str, float]] = []

    async def attempt(key, producer):
        try:
            async with scheduler.lease(key, producer=producer, holder=object()):
                await trio.sleep(1)
        except Busy as busy:
            return busy
        return None

    async with trio.open_nursery() as nursery:
        for tab in (1, 2, 3):
            await nursery.start(hold, scheduler, TabSurface(1, tab), "z", f"hold{tab}", log, 100)
        await nursery.start(hold, scheduler, TabSurface(1, 1), "a", "q1", log)
        await nursery.start(hold, scheduler, TabSurface(1, 1), "b", "q2", log)
        per_resource = await attempt(TabSurface(1, 1), "c")
        assert per_resource is not None and per_resource.scope == "resource"
        assert "nothing was started" in per_resource.message
        await nursery.start(hold, scheduler, TabSurface(1, 2), "a", "q3", log)
        await nursery.start(hold, scheduler, TabSurface(1, 3), "a", "q4", log)
        per_producer = await attempt(TabSurface(1, 3), "a")
        assert per_producer is not None and per_producer.scope == "producer"
        global_bound = await attempt(TabSurface(1, 3), "d")
        assert global_bound is not None and global_bound.scope == "global"
        assert scheduler.queued == 4
        nursery.cancel_scope.cancel()


async def test_queue_deadline(autojump_clock):
    scheduler = Scheduler(SchedulerLimits(queue_deadline=30))
    log: list[tuple[str, float]] = []
    async with trio.open_nursery() as nursery:
        await nursery.start(hold, scheduler, SURFACE, "a", "long", log, 100)
        with pytest.raises(QueueDeadlineExceeded, match="waited 30 s"):
            async with scheduler.lease(SURFACE, producer="b", holder="late"):
                pass
        assert trio.current_time() == 30
        assert scheduler.queued == 0


async def test_quarantine_refuses_until_exact_proof(autojump_clock):
    scheduler = Scheduler()
    log: list[tuple[str, float]] = []
    async with trio.open_nursery() as nursery:
        await nursery.start(hold, scheduler, SURFACE, "a", "first", log, 10)
        queued = scheduler.lease(SURFACE, producer="b", holder="queued")

        async def wait_queued():
            with pytest.raises(ResourceQuarantined):
                async with queued:
                    pass

        nursery.start_soon(wait_queued)
        await trio.sleep(1)
        scheduler.quarantine(SURFACE, "req-42")  # e.g. no terminal ack for request 42
        await trio.sleep(20)
        for key in (SURFACE, BrowserWide(1)):
            # Named by the id the agent knows the tab by (slot 1, native 7), not the native id.
            with pytest.raises(
                ResourceQuarantined,
                match=r"Not started: tab 4294967303 is quarantined because .*nothing ran\."
                r" Continue in a new tab \(tabs_create_mcp\), or close this one",
            ):
                async with scheduler.lease(key, producer="c", holder="c"):
                    pass
        async with scheduler.lease(TabSurface(1, 8), producer="c", holder="c"):
            pass  # other tabs are fine
        await trio.sleep(10_000)  # time never lifts quarantine
        assert scheduler.is_quarantined(SURFACE)
        assert not scheduler.clear_quarantine(SURFACE, "req-41")
        assert scheduler.is_quarantined(SURFACE)
        assert scheduler.clear_quarantine(SURFACE, "req-42")
        async with scheduler.lease(SURFACE, producer="c", holder="c"):
            pass


async def test_destroyed_surface_and_restarted_browser_are_proof(autojump_clock):
    scheduler = Scheduler()
    scheduler.quarantine(SURFACE, "p")
    scheduler.surface_destroyed(SURFACE)
    assert not scheduler.is_quarantined(SURFACE)
    scheduler.quarantine(SURFACE, "p")
    scheduler.browser_restarted(1)
    assert not scheduler.is_quarantined(SURFACE)


async def test_the_late_answer_to_the_uncertain_request_is_proof(autojump_clock):
    """The browser answered after all: that outcome is known, so its quarantine (and only its)
    lifts, whichever key it was on."""
    scheduler = Scheduler()
    other = TabSurface(1, 8)
    scheduler.quarantine(SURFACE, "browser:1:r5")
    scheduler.quarantine(other, "browser:1:r6")
    assert not scheduler.clear_proven("browser:1:r7")
    assert not scheduler.clear_proven("browser:1:r")
    assert scheduler.clear_proven("browser:1:r5")
    assert not scheduler.is_quarantined(SURFACE) and scheduler.is_quarantined(other)
    assert not scheduler.clear_proven("browser:1:r5")  # spent


async def test_work_that_ends_the_surface_passes_its_quarantine(autojump_clock):
    """Closing the tab is allowed on a quarantined tab: the tab's end is the proof that lifts
    it. It still waits its turn behind a holder, and a quarantine set meanwhile spares it."""
    scheduler = Scheduler()
    log: list[tuple[str, float]] = []
    scheduler.quarantine(SURFACE, "p")
    with pytest.raises(ResourceQuarantined):
        async with scheduler.lease(SURFACE, producer="a", holder="read"):
            pass
    async with scheduler.lease(SURFACE, producer="a", holder="close", ends_surface=True):
        assert scheduler.is_quarantined(SURFACE)
    scheduler.surface_destroyed(SURFACE)
    scheduler.quarantine(BrowserWide(1), "b")  # its browser's uncertainty is not the tab's
    with pytest.raises(ResourceQuarantined, match="browser 1 is quarantined"):
        async with scheduler.lease(SURFACE, producer="a", holder="close", ends_surface=True):
            pass
    scheduler.browser_restarted(1)

    async with trio.open_nursery() as nursery:
        await nursery.start(hold, scheduler, SURFACE, "a", "first", log, 10)
        closing = scheduler.lease(SURFACE, producer="b", holder="close", ends_surface=True)
        granted_at: list[float] = []

        async def close_when_granted() -> None:
            async with closing:
                granted_at.append(trio.current_time())

        nursery.start_soon(close_when_granted)
        await trio.sleep(1)
        scheduler.quarantine(SURFACE, "q")  # the holder's effect went uncertain
    assert granted_at == [10]


async def test_holder_reenters_its_own_lease(autojump_clock):
    scheduler = Scheduler()
    async with scheduler.lease(BrowserWide(1), producer="a", holder="me"):
        async with scheduler.lease(BrowserWide(1), producer="a", holder="me"):
            async with scheduler.lease(SURFACE, producer="a", holder="me"):
                assert scheduler.holds(SURFACE, "me")
        assert scheduler.holds(BrowserWide(1), "me")
    assert scheduler.active == 0
    async with scheduler.lease(SURFACE, producer="a", holder="me"):
        with pytest.raises(LeaseOrderError):
            async with scheduler.lease(BrowserWide(1), producer="a", holder="me"):
                pass


async def test_service_local_bypasses_everything(autojump_clock):
    scheduler = Scheduler()
    scheduler.quarantine(BrowserWide(None), "p")
    async with scheduler.lease(SERVICE_LOCAL, producer="a", holder="a") as lease:
        assert lease.key is SERVICE_LOCAL
    assert trio.current_time() == 0


async def test_cancel_while_queued_leaves_no_trace(autojump_clock):
    scheduler = Scheduler()
    log: list[tuple[str, float]] = []
    async with trio.open_nursery() as nursery:
        await nursery.start(hold, scheduler, SURFACE, "a", "first", log, 10)
        with trio.move_on_after(2):
            async with scheduler.lease(SURFACE, producer="b", holder="b"):
                pytest.fail("granted while held")
        assert scheduler.queued == 0
    assert scheduler.active == 0
