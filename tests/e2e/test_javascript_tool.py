"""javascript_tool against real pages: each kind of value is answered as what it is.

A promise is awaited (its value, or its rejection as the error), ``return`` works at the top
level, plain objects come back as JSON, what JSON cannot carry is named rather than flattened
to ``{}``, thrown values keep their content, and a script left waiting on a promise that never
settles is reported as such while the tab stays usable.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
import trio

from ghostlight_trio.tools import javascript_tool as javascript

from .conftest import Service, held_page_server, open_page, page_value, text

pytestmark = pytest.mark.e2e


async def _run(service: Service, ws: str, tab: int, code: str) -> Any:
    return await service.call(
        "javascript_tool", ws, tabId=tab, action="javascript_exec", text=code
    )


def _value(outcome: Any) -> str:
    """The script's answer between the untrusted-content fences."""
    body = text(outcome)
    return body.split("UNTRUSTED ---\n", 1)[1].split("\n--- END", 1)[0]


async def test_each_kind_of_value_is_answered_as_what_it_is(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    service = tools_service
    ws, tab = await open_page(service, f"{web}/form")
    expected = {
        "fetch(location.href).then(r => r.status)": "200",
        "Promise.resolve(7)": "7",
        "return 5": "5",
        "const r = await fetch(location.href); return r.status": "200",
        "(async () => 'later')()": '"later"',
        "({a: 1, b: [1, 2], c: null})": '{"a": 1, "b": [1, 2], "c": null}',
        "[1, 'two']": '[1, "two"]',
        "undefined": "undefined",
        "null": "null",
        "10n ** 20n": "100000000000000000000n",
    }
    # What a script throws (or its promise rejects with) is an error, named once.
    thrown = {
        "throw 'thrown-str'": "Error: Uncaught thrown-str",
        "throw {code: 9}": 'Error: Uncaught {"code": 9}',
        "null.x": "TypeError: Cannot read properties of null (reading 'x')",
    }
    for code, answer in (*expected.items(), *thrown.items()):
        got = await _run(service, ws, tab, code)
        if code in thrown:
            assert got.kind == "tool_error", (code, text(got))
            assert text(got).startswith("The script threw (what it did before that stays done):")
            assert _value(got).startswith(answer), (code, text(got))
        else:
            assert got.kind == "ok" and _value(got) == answer, (code, text(got))

    rejection = await _run(service, ws, tab, "Promise.reject(new Error('bare-rej'))")
    rejected = _value(rejection)
    assert rejection.kind == "tool_error" and rejected.startswith("Error: bare-rej"), rejected
    began = time.monotonic()
    slow = await _run(service, ws, tab, "new Promise(r => setTimeout(() => r('slow'), 1500))")
    assert _value(slow) == '"slow"' and time.monotonic() - began >= 1.4
    body = _value(await _run(service, ws, tab, "document.body"))
    assert body.startswith("HTMLBodyElement body (page elements cannot be returned as JSON")
    listed = _value(await _run(service, ws, tab, "document.querySelectorAll('label')"))
    assert listed.startswith("NodeList NodeList(") and ".textContent" in listed
    assert _value(await _run(service, ws, tab, "new Map([[1, 2]])")).startswith("Map(1) (not JSON")
    assert _value(await _run(service, ws, tab, "new Error('as value')")).startswith(
        "Error: as value"
    )
    assert _value(await _run(service, ws, tab, "Symbol('s')")) == "Symbol(s)"
    assert "(a function)" in _value(await _run(service, ws, tab, "function named() {}; named"))
    # Every handle the calls took out was released: nothing of them is left in the page.
    left = await service.shore.request(
        ws,
        "cdp",
        {
            "tabId": tab,
            "method": "Runtime.releaseObjectGroup",
            "params": {"objectGroup": javascript.OBJECT_GROUP},
        },
        timeout=20,
    )
    assert "result" in left


async def test_a_promise_that_never_settles_is_reported_waiting_and_the_tab_stays_usable(
    tools_service: Service, tools_browser: Any, web: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(javascript, "PENDING_AFTER_MS", 3_000)
    service = tools_service
    ws, tab = await open_page(service, f"{web}/form")
    for code in ("await new Promise(() => {})", "new Promise(() => {})"):
        began = time.monotonic()
        waiting = await _run(service, ws, tab, f"window.began = (window.began || 0) + 1; {code}")
        assert waiting.kind == "tool_error", text(waiting)
        assert text(waiting).startswith("The script started and was still waiting after")
        assert time.monotonic() - began < 10
        assert await page_value(service, ws, tab, "window.began") in (1, 2)
    after = await _run(service, ws, tab, "6 * 7")
    assert after.kind == "ok" and _value(after) == "42"
    began = time.monotonic()
    moved = await service.call("navigate", ws, tabId=tab, url=f"{web}/frames")
    assert moved.kind == "ok", text(moved)
    assert time.monotonic() - began < 10


async def test_a_script_behind_a_busy_page_is_an_unknown_outcome_not_a_started_one(
    tools_service: Service, tools_browser: Any, web: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's own script holds its main thread: the agent's script is queued behind it and
    has not started. That is said as not known, never as "started and waiting"; it runs once
    the page is free."""
    monkeypatch.setattr(javascript, "PENDING_AFTER_MS", 3_000)
    service = tools_service
    ws, tab = await open_page(service, f"{web}/form")
    with held_page_server("/spinning", hold_s=0) as (port, spinning):
        # The page says, by a request its server sees, that it is about to spin: a timer's
        # delay alone (throttled, or late on a loaded machine) would leave it free still.
        mark = f"http://127.0.0.1:{port}/spinning"
        busy = await _run(
            service, ws, tab,
            "setTimeout(() => { try { const x = new XMLHttpRequest(); x.open('GET', '" + mark + "', false);"
            " x.send(); } catch (e) {} const end = Date.now() + 8000; while (Date.now() < end) {} }, 100); 1",
        )  # fmt: skip
        assert busy.kind == "ok", text(busy)
        assert await trio.to_thread.run_sync(spinning.wait, 10), "the page never began to spin"
    await trio.sleep(0.2)
    queued = await _run(service, ws, tab, "window.ranLater = true; 2")
    assert queued.kind == "outcome_unknown", text(queued)
    assert "Whether this script has started is not known" in text(queued)
    with trio.fail_after(20):
        while await page_value(service, ws, tab, "window.ranLater === true") is not True:  # noqa: ASYNC110
            await trio.sleep(0.5)


async def test_a_script_whose_page_navigates_away_is_an_unknown_outcome_naming_the_new_page(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    """A script that submits a form or follows a link ran: its page is gone before its value
    comes back. That is never a plain failure an agent would retry (a second order)."""
    service = tools_service
    ws, tab = await open_page(service, f"{web}/form")
    moved = await _run(
        service, ws, tab,
        "location.href = '/missing'; await new Promise(r => setTimeout(r, 3000)); 'done'",
    )
    assert moved.kind == "outcome_unknown", text(moved)
    assert text(moved).startswith(
        "The script started, but its page navigated away, reloaded or closed before its value"
        " came back"
    )
    # Where the tab is going, whether or not the new page has committed yet: the page's to
    # say (its script set location), so inside the fence, last.
    assert (
        f'\n{{"url": "{web}/missing"}}\n--- END GHOSTLIGHT PAGE CONTENT' in text(moved)
        or f'\n{{"pendingUrl": "{web}/missing"}}\n--- END GHOSTLIGHT PAGE CONTENT' in text(moved)
    ), text(moved)
    assert f"{web}/missing" not in text(moved).split("--- GHOSTLIGHT PAGE CONTENT")[0]
    assert "Do not run it again automatically" in text(moved)
    assert "Runtime.evaluate" not in text(moved)


async def test_a_value_whose_getter_throws_is_said_to_have_run(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    service = tools_service
    ws, tab = await open_page(service, f"{web}/form")
    got = await _run(service, ws, tab, "window.ran = 1; ({get x() { throw new Error('g') }})")
    assert got.kind == "ok", text(got)
    assert "The script ran, but its value cannot be copied out of the page as JSON" in text(got)
    assert "a getter that throws" in text(got)
    assert await page_value(service, ws, tab, "window.ran") == 1
