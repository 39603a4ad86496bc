"""JavaScript dialogs opened by agent actions, in real headless Chromium with the real extension.

A dialog pauses its page, and Chrome answers an input event or a script evaluation only after
the dialog closes. These tests show that the action that opened one returns at once and says so,
that page requests while it is open fail fast instead of hanging, and that the tab works
normally (it is not quarantined) once the dialog is answered with the ``dialog`` tool. Each
call is bounded by ``trio.fail_after(HANG_GUARD)``, well below the 20 s request bound that a
hanging call would run into. Page state is read back independently of the tool that changed it.
"""

from __future__ import annotations

from typing import Any

import pytest
import trio

from ghostlight_trio.browser.errors import BrowserError
from ghostlight_trio.transport.bridge import Outcome

from .conftest import PAGES, Service, dialog_when_open, open_page, page_value, tab_info, text
from .test_page_tools import ref_for

pytestmark = pytest.mark.e2e

HANG_GUARD = 10.0

DIALOG_PAGES = {
    "/dialogs": """<!doctype html><title>Dialogs</title>
<style>body{margin:0;font:16px sans-serif} button,input{display:block;margin:8px}</style>
<button id="alert" onclick="alert('hi'); document.title = 'after alert'">Say hi</button>
<button id="confirm"
 onclick="document.getElementById('out').textContent = 'confirm:' + confirm('Proceed?')"
 >Ask to proceed</button>
<button id="prompt"
 onclick="document.getElementById('out').textContent = 'prompt:' + prompt('Name?', 'nobody')"
 >Ask a name</button>
<input id="enter" aria-label="Enter field"
 onkeydown="if (event.key === 'Enter') alert('enter pressed')"
 onkeyup="if (event.key === 'Enter') window.enterUp = (window.enterUp || 0) + 1">
<input id="typed" aria-label="Typed field"
 oninput="if (this.value.length === 2) alert('two: ' + this.value)">
<button id="later" onclick="setTimeout(() => alert('later'), 0)">Alert later</button>
<button id="twice" onclick="alert('first'); alert('second'); document.title = 'both seen'"
 >Alert twice</button>
<p id="out">nothing yet</p>""",
    "/dialogs/leave": """<!doctype html><title>Leave guard</title>
<button id="touch" onclick="window.touched = true">Touch</button>
<script>addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = ''; });
</script>""",
    "/dialogs/plain": "<!doctype html><title>Plain dialog page</title><p>plain</p>",
    "/dialogs/opener": """<!doctype html><title>Opener</title>
<a id="open" href="/dialogs/greeter" target="_blank">Open the greeter</a>""",
    "/dialogs/greeter": "<!doctype html><title>Greeter</title><script>alert('welcome')</script>",
}
PAGES.update(DIALOG_PAGES)


async def call(service: Service, tool: str, ws: str, **arguments: Any) -> Outcome:
    """One tool call that must settle well before a hanging browser request would."""
    with trio.fail_after(HANG_GUARD):
        return await service.call(tool, ws, **arguments)


async def ref_of(service: Service, ws: str, tab: int, name: str) -> str:
    tree = await call(service, "read_page", ws, tabId=tab, filter="interactive")
    assert tree.kind == "ok", text(tree)
    return ref_for(text(tree), name)


async def click_named(service: Service, ws: str, tab: int, name: str) -> Outcome:
    """Left-click the interactive element named ``name`` (found with ``read_page``)."""
    ref = await ref_of(service, ws, tab, name)
    return await call(service, "computer", ws, tabId=tab, action="left_click", ref=ref)


async def answer(service: Service, ws: str, tab: int, action: str, **extra: Any) -> Outcome:
    done = await call(service, "dialog", ws, tabId=tab, action=action, **extra)
    assert done.kind == "ok", text(done)
    assert done.structured["resolved"] is True, text(done)
    return done


async def test_a_click_that_opens_an_alert_returns_at_once_and_the_tab_stays_usable(
    more_service: Service, more_browser: Any, web: str
) -> None:
    service = more_service
    ws, tab = await open_page(service, f"{web}/dialogs")
    button = await ref_of(service, ws, tab, '"Say hi"')

    clicked = await call(service, "computer", ws, tabId=tab, action="left_click", ref=button)
    assert clicked.kind == "ok", text(clicked)
    said = text(clicked)
    assert said.startswith(f"left_click at {button}")
    assert "The input was delivered and a JavaScript alert dialog opened" in said
    assert "call dialog with tabId" in said and "action accept" in said
    assert "UNTRUSTED ---\nhi\n--- END" in said  # the page's message, fenced as page text
    assert clicked.structured["dialog"] == {"open": True, "type": "alert", "message": "hi"}
    assert clicked.structured["provenance"]["topOrigin"] == web

    # While it is open, requests that need the page fail fast and say why; nothing hangs.
    for tool, arguments in (
        ("computer", {"action": "screenshot"}),
        ("computer", {"action": "left_click", "ref": button}),
        ("read_page", {}),
        ("find", {"query": "Say hi"}),
        ("javascript_tool", {"action": "javascript_exec", "text": "document.title"}),
    ):
        refused = await call(service, tool, ws, tabId=tab, **arguments)
        assert refused.kind == "tool_error", (tool, text(refused))
        assert "alert dialog is open on tab" in text(refused), (tool, text(refused))
        assert "nothing was sent" in text(refused) and "call dialog" in text(refused)
    with pytest.raises(BrowserError) as raw:  # the wire itself refuses, carrying the dialog
        await page_value(service, ws, tab, "1")
    assert raw.value.code == "dialog_open" and raw.value.dialog["message"] == "hi"

    status = await call(service, "dialog", ws, tabId=tab, action="status")
    assert status.structured["open"] is True and status.structured["message"] == "hi"
    await answer(service, ws, tab, "accept")

    # The click's handler went on after the alert, and the tab takes new work: no quarantine.
    assert await page_value(service, ws, tab, "document.title") == "after alert"
    shot = await call(service, "computer", ws, tabId=tab, action="screenshot")
    assert shot.kind == "ok", text(shot)
    title = await call(
        service, "javascript_tool", ws, tabId=tab, action="javascript_exec", text="document.title"
    )
    assert title.kind == "ok" and '"after alert"' in text(title), text(title)
    again = await call(service, "dialog", ws, tabId=tab, action="status")
    assert again.structured["open"] is False


async def test_confirm_dismissed_and_prompt_answered_reach_the_page(
    more_service: Service, more_browser: Any, web: str
) -> None:
    service = more_service
    ws, tab = await open_page(service, f"{web}/dialogs")

    asked = await click_named(service, ws, tab, '"Ask to proceed"')
    assert asked.kind == "ok", text(asked)
    assert asked.structured["dialog"]["type"] == "confirm"
    assert "action accept (OK) or dismiss (Cancel)" in text(asked)
    dismissed = await answer(service, ws, tab, "dismiss")
    assert dismissed.structured["type"] == "confirm"
    page = await call(service, "get_page_text", ws, tabId=tab)
    assert "confirm:false" in text(page), text(page)

    asked = await click_named(service, ws, tab, '"Ask a name"')
    assert asked.structured["dialog"] == {
        "open": True,
        "type": "prompt",
        "message": "Name?",
        "defaultPrompt": "nobody",
    }
    assert "action respond with text" in text(asked)
    await answer(service, ws, tab, "respond", text="Ada")
    assert await page_value(service, ws, tab, "document.getElementById('out').textContent") == (
        "prompt:Ada"
    )


async def test_a_dialog_opening_just_after_a_click_is_reported_by_that_click(
    more_service: Service, more_browser: Any, web: str
) -> None:
    service = more_service
    ws, tab = await open_page(service, f"{web}/dialogs")
    clicked = await click_named(service, ws, tab, '"Alert later"')
    assert clicked.kind == "ok", text(clicked)
    assert f"Then a JavaScript alert dialog opened on tab {tab} and is still open." in text(clicked)
    assert clicked.structured["dialog"]["message"] == "later"
    await answer(service, ws, tab, "accept")
    shot = await call(service, "computer", ws, tabId=tab, action="screenshot")
    assert shot.kind == "ok", text(shot)


async def test_answering_a_dialog_says_when_the_page_opens_another_at_once(
    more_service: Service, more_browser: Any, web: str
) -> None:
    service = more_service
    ws, tab = await open_page(service, f"{web}/dialogs")
    clicked = await click_named(service, ws, tab, '"Alert twice"')
    assert clicked.structured["dialog"]["message"] == "first", text(clicked)
    first = await answer(service, ws, tab, "accept")
    assert first.structured["message"] == "first"
    assert first.structured["open"] is True
    assert first.structured["next"] == {"type": "alert", "message": "second"}
    assert "The page opened another JavaScript alert dialog at once" in text(first)
    status = await call(service, "dialog", ws, tabId=tab, action="status")
    assert status.structured["message"] == "second", text(status)
    second = await answer(service, ws, tab, "accept")
    assert second.structured["open"] is False and "next" not in second.structured
    assert "another" not in text(second)
    title = await page_value(service, ws, tab, "document.title")
    assert title == "both seen"


async def test_javascript_tool_calling_alert_returns_at_once(
    more_service: Service, more_browser: Any, web: str
) -> None:
    service = more_service
    ws, tab = await open_page(service, f"{web}/dialogs/plain")

    code = "window.before = 1; alert('from script'); window.after = 2; 'finished' + '-script'"
    ran = await call(service, "javascript_tool", ws, tabId=tab, action="javascript_exec", text=code)
    assert ran.kind == "ok", text(ran)
    assert "The script ran and a JavaScript alert dialog opened" in text(ran)
    assert "result is not available" in text(ran) and "finished-script" not in text(ran)
    assert ran.structured["dialog"]["message"] == "from script"
    await answer(service, ws, tab, "accept")
    # The script went on once the alert was answered.
    assert await page_value(service, ws, tab, "[window.before, window.after]") == [1, 2]
    after = await call(
        service, "javascript_tool", ws, tabId=tab, action="javascript_exec", text="'ok-' + 6 * 7"
    )
    assert after.kind == "ok" and '"ok-42"' in text(after), text(after)


async def test_key_and_type_stop_at_the_dialog_they_open(
    more_service: Service, more_browser: Any, web: str
) -> None:
    service = more_service
    ws, tab = await open_page(service, f"{web}/dialogs")

    focused = await click_named(service, ws, tab, '"Enter field"')
    assert focused.kind == "ok" and "dialog" not in focused.structured, text(focused)
    pressed = await call(service, "computer", ws, tabId=tab, action="key", text="Enter")
    assert pressed.kind == "ok", text(pressed)
    assert pressed.structured["dialog"]["message"] == "enter pressed"
    # The key's release went out behind its press: the page takes it once the alert is answered.
    assert text(pressed).startswith("Pressed: Enter (x1). A JavaScript alert dialog opened")
    assert "the key's release reaches the page once it is answered" in text(pressed)
    await answer(service, ws, tab, "accept")
    released = [await page_value(service, ws, tab, "window.enterUp || 0")]
    for _ in range(50):  # the page takes it a moment after the alert closed
        if released[-1]:
            break
        await trio.sleep(0.02)
        released.append(await page_value(service, ws, tab, "window.enterUp || 0"))
    assert released[-1] == 1, released

    await click_named(service, ws, tab, '"Typed field"')
    typed = await call(service, "computer", ws, tabId=tab, action="type", text="abcd")
    assert typed.kind == "ok", text(typed)
    assert typed.structured["dialog"]["message"] == "two: ab"
    assert "the rest of it was not sent" in text(typed)
    await answer(service, ws, tab, "accept")
    # Only what went out before the dialog reached the field, nothing after it.
    assert await page_value(service, ws, tab, "document.getElementById('typed').value") == "ab"
    more = await call(service, "computer", ws, tabId=tab, action="type", text="!")
    assert more.kind == "ok", text(more)
    assert await page_value(service, ws, tab, "document.getElementById('typed').value") == "ab!"


async def test_navigation_meets_beforeunload_and_closes_an_open_alert(
    more_service: Service, more_browser: Any, web: str
) -> None:
    service = more_service
    ws, tab = await open_page(service, f"{web}/dialogs/leave")
    # Chrome asks before unloading only a page the user interacted with.
    await click_named(service, ws, tab, '"Touch"')
    assert await page_value(service, ws, tab, "window.touched") is True

    leaving = await call(service, "navigate", ws, tabId=tab, url=f"{web}/dialogs/plain")
    assert leaving.kind == "ok", text(leaving)
    assert leaving.structured["dialog"]["type"] == "beforeunload"
    assert "the navigation waits for the answer" in text(leaving)
    assert "accept to leave the page, or dismiss to stay" in text(leaving)
    assert (await tab_info(service, ws, tab))["url"] == f"{web}/dialogs/leave"
    # While the page is being asked, another navigation or a reload would only wait behind
    # the answer (and then report a page that never changed): both are refused, unsent.
    again = await call(service, "navigate", ws, tabId=tab, url=f"{web}/dialogs")
    reload = await call(service, "tab_control", ws, tabId=tab, action="reload")
    for refused, tool in ((again, "navigate"), (reload, "tab_control")):
        assert refused.kind == "tool_error", text(refused)
        assert text(refused).startswith(
            f"{tool} did not run: a beforeunload dialog (the page asks whether to leave it) is"
            f" open on tab {tab}; nothing was sent."
        )
        assert "navigating included, are refused" in text(refused)
    left = await answer(service, ws, tab, "accept")
    assert "The page is leaving" in text(left)
    settled = await call(service, "wait_for", ws, tabId=tab, state="settled", timeout_ms=5000)
    assert settled.kind == "ok", text(settled)
    assert (await tab_info(service, ws, tab))["url"] == f"{web}/dialogs/plain"

    # An alert left open does not block a navigation: Chrome closes it, and the result says so.
    await page_value(service, ws, tab, "setTimeout(() => alert('left open'), 10)")
    await dialog_when_open(service, ws, tab, within=HANG_GUARD)
    moved = await call(service, "navigate", ws, tabId=tab, url=f"{web}/dialogs")
    assert moved.kind == "ok", text(moved)
    assert "the alert dialog that was open is closed" in text(moved)
    assert (await tab_info(service, ws, tab))["url"] == f"{web}/dialogs"
    status = await call(service, "dialog", ws, tabId=tab, action="status")
    assert status.structured["open"] is False


async def test_a_dialog_that_opened_before_the_tab_was_watched_is_reported_not_waited_on(
    more_service: Service, more_browser: Any, web: str
) -> None:
    service = more_service
    ws, tab = await open_page(service, f"{web}/dialogs/opener")
    opened = await click_named(service, ws, tab, '"Open the greeter"')
    assert opened.kind == "ok", text(opened)
    # The page opened a tab that greets with an alert before anything of ours touched it.
    with trio.fail_after(HANG_GUARD):
        while True:
            listed = await call(service, "tabs_context_mcp", ws)
            children = [t["tabId"] for t in listed.structured["tabs"] if t["tabId"] != tab]
            if children:
                break
            await trio.sleep(0.1)
    [child] = children

    for tool, arguments in (("dialog", {"action": "status"}), ("read_page", {})):
        stuck = await call(service, tool, ws, tabId=child, **arguments)
        assert stuck.kind == "tool_error", text(stuck)
        assert f"The page in tab {child} is not responding" in text(stuck)
        assert "answer it in the browser window (or close the tab with tab_control)" in text(stuck)
    closed = await call(service, "tab_control", ws, tabId=child, action="close")
    assert closed.kind == "ok", text(closed)
    # The opener was never affected.
    assert await page_value(service, ws, tab, "document.title") == "Opener"
