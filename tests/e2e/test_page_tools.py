"""The trained page tools in real headless Chromium with the real extension.

Every effect is read back independently of the tool that caused it: through a direct CDP
``Runtime.evaluate`` sent by the test over the browser shore, never from the tool's own echo.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import trio

from ghostlight_trio.tools.navigate import NOW_SHOWS
from ghostlight_trio.tools.shared.screenshots import jpeg_size
from ghostlight_trio.transport.bridge import ImageBlock, Outcome
from ghostlight_trio.transport.bridge_codec import encode_message

from .conftest import Service, launch_for, open_page, page_value, tab_info, text

pytestmark = pytest.mark.e2e


def image_of(outcome: Outcome) -> bytes:
    [image] = [block for block in outcome.content if isinstance(block, ImageBlock)]
    assert image.mime_type == "image/jpeg"
    return image.data


def ref_for(tree: str, fragment: str) -> str:
    for line in tree.splitlines():
        if fragment in line:
            match = re.search(r"\[(ref_\d+)\]", line)
            if match:
                return match.group(1)
    raise AssertionError(f"no line with {fragment!r} in:\n{tree}")


async def shot_point(
    service: Service, ws: str, tab: int, element_id: str, shot: Outcome
) -> list[float]:
    """Screenshot pixel coordinates of an element's centre, from its real CSS box.

    The image keeps the viewport's aspect, so one factor (image width / CSS width) serves both
    axes; the viewport height may shrink later (e.g. the debugging infobar) without moving
    the content.
    """
    width, _ = jpeg_size(image_of(shot)) or (0, 0)
    box = await page_value(
        service,
        ws,
        tab,
        f"(() => {{ const r = document.getElementById('{element_id}').getBoundingClientRect();"
        " return {x: r.left + r.width / 2, y: r.top + r.height / 2, w: innerWidth, h: innerHeight}; })()",
    )
    factor = width / box["w"]
    return [box["x"] * factor, box["y"] * factor]


async def test_form_tools_set_real_values_and_redact_secrets(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    service = tools_service
    ws, tab = await open_page(service, f"{web}/form")

    read = await service.call("read_page", ws, tabId=tab)
    assert read.kind == "ok", text(read)
    tree = text(read)
    assert "GHOSTLIGHT PAGE CONTENT" in tree and "UNTRUSTED" in tree
    assert "hunter2" not in tree and 'value="[value redacted]"' in tree
    assert read.structured["provenance"]["topOrigin"] == web
    assert re.fullmatch(r"[0-9a-f]{32}", read.structured["provenance"]["sessionNonce"])
    assert "Shadow action" in tree  # open shadow roots are walked

    email = ref_for(tree, 'textbox "Email"')
    outcome = await service.call("form_input", ws, tabId=tab, ref=email, value="a@b.test")
    assert outcome.kind == "ok", text(outcome)
    assert text(outcome).startswith(f'Set {email} = "a@b.test".')
    assert outcome.structured["interactionReceipt"]["target"]["ref"] == email
    checkbox = ref_for(tree, 'checkbox "Newsletter"')
    pro = ref_for(tree, 'radio "Pro"')
    country = ref_for(tree, 'combobox "Country"')
    bio = ref_for(tree, '"Bio"')
    for ref, value in ((checkbox, True), (pro, "on"), (country, "Japan"), (bio, "new bio")):
        done = await service.call("form_input", ws, tabId=tab, ref=ref, value=value)
        assert done.kind == "ok", text(done)
    state = await page_value(
        service,
        ws,
        tab,
        "({email: email.value, news: news.checked, pro: r2.checked, basic: r1.checked,"
        " country: country.value, bio: bio.textContent})",
    )
    assert state == {
        "email": "a@b.test",
        "news": True,
        "pro": True,
        "basic": False,
        "country": "jp",
        "bio": "new bio",
    }

    basic = ref_for(tree, 'radio "Basic"')
    refused = await service.call("form_input", ws, tabId=tab, ref=pro, value=False)
    assert refused.kind == "tool_error" and text(refused).startswith("[hop: page]")
    assert "Next step:" in text(refused)
    assert basic

    again = await service.call("read_page", ws, tabId=tab, diff=True)
    assert "(no changes since your last read)" in text(again) or "~ " in text(again)
    gone = ref_for(tree, 'button "Remove me"')
    await page_value(service, ws, tab, "document.getElementById('gone').remove(); true")
    stale = await service.call("form_input", ws, tabId=tab, ref=gone, value="x")
    assert stale.kind == "tool_error"
    assert "[hop: page]" in text(stale) and "stale" in text(stale)
    diffed = await service.call("read_page", ws, tabId=tab, diff=True)
    assert "- " in text(diffed) and gone in text(diffed)

    found = await service.call("find", ws, tabId=tab, query="Shadow action")
    assert found.kind == "ok", text(found)
    best = found.structured["results"][0]
    assert best["name"] == "Shadow action" and "click" in best["mechanicalActions"]
    clicked = await service.call("computer", ws, tabId=tab, action="left_click", ref=best["ref"])
    assert clicked.kind == "ok", text(clicked)
    assert clicked.structured["interactionReceipt"]["targetAssurance"] == "ref"
    assert await page_value(service, ws, tab, "window.shadowClicks") == 1


async def test_clicks_keys_and_typing_land_on_screenshot_coordinates(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    service = tools_service
    ws, tab = await open_page(service, f"{web}/targets")
    shot = await service.call("computer", ws, tabId=tab, action="screenshot")
    assert shot.kind == "ok", text(shot)
    assert text(shot).startswith("Screenshot captured (jpeg).")
    assert jpeg_size(image_of(shot)) is not None

    point = await shot_point(service, ws, tab, "b", shot)
    clicked = await service.call("computer", ws, tabId=tab, action="left_click", coordinate=point)
    assert clicked.kind == "ok", text(clicked)
    receipt = clicked.structured["interactionReceipt"]
    assert receipt["targetAssurance"] == "coordinate" and receipt["target"]["name"] == "Bravo"
    assert "interaction receipt: observed after left_click:" in text(clicked)
    for action in ("double_click", "right_click", "hover"):
        done = await service.call("computer", ws, tabId=tab, action=action, coordinate=point)
        assert done.kind == "ok", text(done)
    hits = await page_value(service, ws, tab, "hits")
    assert "b:click:1" in hits and "b:dblclick" in hits and "b:click:2" in hits
    assert "b:contextmenu" in hits and "b:over" in hits
    assert not any(hit.startswith(("a:click", "c:click")) for hit in hits)
    # A point off the page (past the screenshot's edge) is refused with nothing sent.
    width, _ = jpeg_size(image_of(shot)) or (0, 0)
    for off in ([width * 3, 10], [-4, 10]):
        missed = await service.call("computer", ws, tabId=tab, action="left_click", coordinate=off)
        assert missed.kind == "tool_error", text(missed)
        assert "is outside the visible page" in text(missed) and "nothing was sent" in text(missed)
    assert await page_value(service, ws, tab, "hits.length") == len(hits)

    field = await shot_point(service, ws, tab, "field", shot)
    await service.call("computer", ws, tabId=tab, action="left_click", coordinate=field)
    typed = await service.call("computer", ws, tabId=tab, action="type", text="Hé, World!")
    assert typed.kind == "ok", text(typed)
    assert await page_value(service, ws, tab, "field.value") == "Hé, World!"
    pressed = await service.call(
        "computer", ws, tabId=tab, action="key", text="BackSpace", repeat=3
    )
    assert pressed.kind == "ok", text(pressed)
    assert await page_value(service, ws, tab, "field.value") == "Hé, Wor"
    await service.call("computer", ws, tabId=tab, action="key", text="ctrl+a Delete")
    assert await page_value(service, ws, tab, "field.value") == ""
    bad = await service.call("computer", ws, tabId=tab, action="key", text="ctrl+nosuchkey")
    assert bad.kind == "tool_error"
    # Text that would take longer to type than the call may last is refused, nothing typed.
    long = await service.call("computer", ws, tabId=tab, action="type", text="y" * 2001)
    assert long.kind == "tool_error" and "nothing was typed" in text(long)
    assert "form_input" in text(long)
    assert await page_value(service, ws, tab, "field.value") == ""
    # With nothing focused the text reaches no field: said so, as a failure, not "Typed".
    await page_value(service, ws, tab, "document.activeElement.blur()")
    lost = await service.call("computer", ws, tabId=tab, action="type", text="lost")
    assert lost.kind == "tool_error", text(lost)
    assert "nothing on the page had keyboard focus: no field received the text" in text(lost)
    assert await page_value(service, ws, tab, "field.value") == ""

    resized = await service.call("resize_window", ws, tabId=tab, width=640, height=480)
    assert resized.kind == "ok", text(resized)
    assert text(resized).startswith(f"Set tab {tab}'s viewport to 640x480 CSS px: this tab only")
    await page_value(service, ws, tab, "hits.length = 0")
    shot2 = await service.call("computer", ws, tabId=tab, action="screenshot")
    assert await page_value(service, ws, tab, "innerWidth") == 640
    point_b = await shot_point(service, ws, tab, "b", shot2)
    await service.call("computer", ws, tabId=tab, action="left_click", coordinate=point_b)
    assert await page_value(service, ws, tab, "hits.filter(h => h.includes('click:'))") == [
        "b:click:1"
    ]


async def test_clicks_land_at_device_scale_two_and_zoom_maps_back(
    tools_service: Service, web: str
) -> None:
    service = tools_service
    # A large window, so the screenshot is downscaled as well as device-scaled.
    launched = await launch_for(
        service,
        "--force-device-scale-factor=2",
        "--screen-info={0,0 3600x2400}",
        "--window-size=1800,1200",
    )
    try:
        ws, tab = await open_page(service, f"{web}/targets")
        assert await page_value(service, ws, tab, "devicePixelRatio") == 2
        shot = await service.call("computer", ws, tabId=tab, action="screenshot")
        assert shot.kind == "ok", text(shot)
        width, _ = jpeg_size(image_of(shot)) or (0, 0)
        assert width < await page_value(service, ws, tab, "innerWidth")  # really downscaled
        point = await shot_point(service, ws, tab, "a", shot)
        await service.call("computer", ws, tabId=tab, action="left_click", coordinate=point)
        assert await page_value(service, ws, tab, "hits.filter(h => h.includes('click:'))") == [
            "a:click:1"
        ]
        # Zoom on the region around Bravo, then click the middle of the zoomed image.
        box = await page_value(
            service,
            ws,
            tab,
            "(() => { const r = b.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom,"
            " innerWidth]; })()",
        )
        width, _ = jpeg_size(image_of(shot)) or (0, 0)
        factor = width / box[4]
        region = [
            (box[0] - 20) * factor,
            (box[1] - 20) * factor,
            (box[2] + 20) * factor,
            (box[3] + 20) * factor,
        ]
        zoomed = await service.call("computer", ws, tabId=tab, action="zoom", region=region)
        assert zoomed.kind == "ok", text(zoomed)
        zw, zh = jpeg_size(image_of(zoomed)) or (0, 0)
        await service.call(
            "computer", ws, tabId=tab, action="left_click", coordinate=[zw / 2, zh / 2]
        )
        assert "b:click:1" in await page_value(service, ws, tab, "hits")
    finally:
        await launched.aclose()


async def test_scroll_scroll_to_and_wait(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    service = tools_service
    ws, tab = await open_page(service, f"{web}/long")
    scrolled = await service.call(
        "computer", ws, tabId=tab, action="scroll", scroll_direction="down", scroll_amount=5
    )
    assert scrolled.kind == "ok", text(scrolled)
    assert image_of(scrolled)
    assert await page_value(service, ws, tab, "scrollY") >= 400
    up = await service.call(
        "computer", ws, tabId=tab, action="scroll", scroll_direction="up", scroll_amount=10
    )
    assert up.kind == "ok" and await page_value(service, ws, tab, "scrollY") == 0

    found = await service.call("find", ws, tabId=tab, query="Bottom button")
    ref = found.structured["results"][0]["ref"]
    moved = await service.call("computer", ws, tabId=tab, action="scroll_to", ref=ref)
    assert moved.kind == "ok", text(moved)
    assert await page_value(service, ws, tab, "scrollY") > 4000
    clicked = await service.call("computer", ws, tabId=tab, action="left_click", ref=ref)
    assert clicked.kind == "ok", text(clicked)
    assert await page_value(service, ws, tab, "window.bottomClicked") is True

    started = trio.current_time()
    waited = await service.call("computer", ws, tabId=tab, action="wait", duration=0.5)
    assert waited.kind == "ok" and text(waited) == "Waited 0.5s."
    assert trio.current_time() - started >= 0.5
    missing = await service.call("computer", ws, tabId=tab, action="left_click")
    assert missing.kind == "tool_error" and "coordinate or ref is required" in text(missing)


async def test_console_and_network_buffers(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    service = tools_service
    ws, tab = await open_page(service, f"{web}/noisy")
    first = await service.call("read_console_messages", ws, tabId=tab)
    assert first.kind == "ok", text(first)
    assert "started with this call" in text(first)
    net_first = await service.call("read_network_requests", ws, tabId=tab)
    assert "started with this call" in text(net_first)

    await service.call("javascript_tool", ws, tabId=tab, action="javascript_exec", text="go()")
    await trio.sleep(1.0)
    logs = await service.call("read_console_messages", ws, tabId=tab)
    assert "[log] hello from the page 42" in text(logs)
    assert "[warning] careful now" in text(logs) and "[error] something failed" in text(logs)
    errors = await service.call("read_console_messages", ws, tabId=tab, onlyErrors=True)
    assert "something failed" in text(errors) and "careful now" not in text(errors)
    patterned = await service.call(
        "read_console_messages", ws, tabId=tab, pattern="CAREful", limit=5, clear=True
    )
    assert "careful now" in text(patterned) and "hello" not in text(patterned)
    emptied = await service.call("read_console_messages", ws, tabId=tab)
    assert "No console entries captured" in text(emptied)

    requests = await service.call("read_network_requests", ws, tabId=tab, urlPattern="/api/")
    assert f"GET {web}/api/data?x=1 -> 200" in text(requests)
    assert "missing-thing" not in text(requests)
    everything = await service.call("read_network_requests", ws, tabId=tab)
    assert "missing-thing" in text(everything)


async def test_javascript_page_text_and_throwing_page(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    service = tools_service
    ws, tab = await open_page(service, f"{web}/throws")
    js = await service.call(
        "javascript_tool",
        ws,
        tabId=tab,
        action="javascript_exec",
        text="const a = await Promise.resolve(20); a + 22",
    )
    assert js.kind == "ok", text(js)
    assert "\n42\n" in text(js)
    thrown = await service.call(
        "javascript_tool",
        ws,
        tabId=tab,
        action="javascript_exec",
        text="throw new TypeError('nope')",
    )
    assert thrown.kind == "tool_error" and "\nTypeError: nope" in text(thrown), text(thrown)
    wrong = await service.call("javascript_tool", ws, tabId=tab, action="run", text="1")
    assert wrong.kind == "tool_error"
    # A value Chrome cannot copy out as JSON: the script still ran (once), and says so.
    for value in ("window", "({big: 1n})"):
        unreturnable = await service.call(
            "javascript_tool",
            ws,
            tabId=tab,
            action="javascript_exec",
            text=f"window.runs = (window.runs || 0) + 1; {value}",
        )
        assert unreturnable.kind == "ok", text(unreturnable)
        assert "The script ran, but its value cannot be copied out of the page" in text(unreturnable)
    assert await page_value(service, ws, tab, "window.runs") == 2

    page = await service.call("get_page_text", ws, tabId=tab, max_chars=300)
    assert page.kind == "ok", text(page)
    assert "Source element: article" in text(page)
    assert "[Truncated: showing the first" in text(page)
    assert "Call get_page_text with a larger max_chars" in text(page)  # a tool the agent has
    assert page.structured["page"]["title"] == "Throwing page"

    await service.call("read_console_messages", ws, tabId=tab)
    await service.call("navigate", ws, url=f"{web}/throws", tabId=tab)
    logs = await service.call("read_console_messages", ws, tabId=tab, onlyErrors=True)
    assert "load-time kaboom" in text(logs), text(logs)


async def test_text_a_page_cut_mid_emoji_reads_with_replacement_characters(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    """Half a surrogate pair in page text (an emoji cut by ``slice``) reaches the agent as
    U+FFFD in every page tool; before, the service could not encode the result and stopped."""
    service = tools_service
    ws, tab = await open_page(service, f"{web}/halves")
    page = await service.call("get_page_text", ws, tabId=tab)
    tree = await service.call("read_page", ws, tabId=tab)
    found = await service.call("find", ws, tabId=tab, query="Cut")
    js = await service.call(
        "javascript_tool", ws, tabId=tab, action="javascript_exec", text="document.title"
    )
    for outcome in (page, tree, found, js):
        assert outcome.kind == "ok", text(outcome)
        encode_message(outcome)  # what the bridge does with it
    assert "Cut here \ufffd and \ufffd twice" in text(page)
    assert 'value="typed\ufffd"' in text(tree)
    assert "Found 1 element(s)" in text(found)
    assert "Half \ufffd title" in text(js)
    assert page.structured["page"]["title"] == "Half \ufffd title"


async def test_navigation_reports_a_failed_load_and_one_the_browser_ignored(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    """A load that ends on the browser's error page is not 'Navigated to', and neither is a
    navigation the browser never acted on; each report matches the tab read independently."""
    service = tools_service
    ws, tab = await open_page(service, f"{web}/form")
    refused = "http://127.0.0.1:1/"  # nothing listens on port 1
    failed = await service.call("navigate", ws, tabId=tab, url=refused)
    assert failed.kind == "tool_error", text(failed)
    assert text(failed).startswith(f"Navigated to {refused}, but the page did not load")
    assert (await tab_info(service, ws, tab))["url"] == refused
    unreadable = await service.call("get_page_text", ws, tabId=tab)
    assert unreadable.kind == "tool_error"
    assert "The tab shows the browser's error page" in text(unreadable)
    assert "script injection blocked" not in text(unreadable)

    await service.call("navigate", ws, tabId=tab, url=f"{web}/form")
    ignored = await service.call("navigate", ws, tabId=tab, url="data:text/html,<p>hi</p>")
    now = (await tab_info(service, ws, tab))["url"]
    if ignored.kind == "tool_error":
        assert text(ignored).startswith("The navigation to data:text/html,<p>hi</p> did not start")
        assert now == f"{web}/form"
    else:  # a browser that follows it says so, and is there
        assert text(ignored).startswith("Navigated to data:") and now.startswith("data:")


async def test_typing_cancelled_part_way_says_how_much_was_typed(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    """A cancel stops typing between keys; the result says exactly how far it got, which the
    field itself confirms, and the tab is usable at once."""
    from ghostlight_trio.transport.bridge import RequestContext, Start

    service = tools_service
    ws, tab = await open_page(service, f"{web}/form")
    await page_value(service, ws, tab, "document.getElementById('email').focus()")
    started = service.session.start(
        Start(
            sequence=901,
            operation="computer",
            arguments={"tabId": tab, "action": "type", "text": "z" * 1500},
            workspace_id=ws,
            context=RequestContext(client_label="e2e"),
        )
    )
    with trio.fail_after(30):  # typing has begun
        while True:
            if await page_value(service, ws, tab, "document.getElementById('email').value"):
                break
            await trio.sleep(0.05)
    service.session.cancel(started.work_id)
    with trio.fail_after(30):
        while started.work_id not in service.sink.outcomes:
            await service.sink.changed.wait()
    stopped = service.sink.outcomes[started.work_id]
    typed = await page_value(service, ws, tab, "document.getElementById('email').value.length")
    assert stopped.kind == "cancelled", text(stopped)
    assert 0 < typed < 1500
    assert text(stopped).endswith(f"Done before it stopped: typed {typed} of 1500 characters.")
    again = await service.call("computer", ws, tabId=tab, action="type", text="!")
    assert again.kind == "ok", text(again)


async def test_the_managed_browser_keeps_downloads_with_the_instance_and_fits_common_sizes(
    tools_service: Service, tools_browser: Any, web: str
) -> None:
    service = tools_service
    ws, tab = await open_page(service, f"{web}/")
    # A file link starts a download, not a page: the tab stays, and the file lands with the
    # instance, never in the user's own Downloads folder.
    followed = await service.call("navigate", ws, tabId=tab, url=f"{web}/report.bin")
    assert followed.kind == "ok" and "the answer was not a page to show" in text(followed), text(followed)
    # Said once the browser dropped the navigation (``noPage``), not at the load bound.
    assert "downloads" in text(followed) and followed.structured["noPage"] is True
    missing = await service.call("navigate", ws, tabId=tab, url=f"{web}/missing")
    assert missing.kind == "ok" and missing.structured["httpStatus"] == 404, text(missing)
    said = text(missing).splitlines()
    assert said[0] == (
        f"Navigated to {web}/missing, but the server answered HTTP 404 (Not Found): the page is"
        f" its error page. {NOW_SHOWS}"
    )
    assert said[2] == json.dumps({"url": f"{web}/missing", "title": "Not here"}), said
    fine = await service.call("navigate", ws, tabId=tab, url=f"{web}/")
    assert fine.kind == "ok" and "httpStatus" not in fine.structured, text(fine)
    empty = await service.call("navigate", ws, tabId=tab, url=f"{web}/nothing")
    assert empty.kind == "ok" and empty.structured.get("noPage") is True, text(empty)
    assert empty.structured["url"] == f"{web}/"  # the tab stays on its page
    saved = service.endpoints.data_dir / "downloads" / "report.bin"
    with trio.fail_after(10):
        while not saved.exists():  # noqa: ASYNC110 - the browser writes it
            await trio.sleep(0.1)
    assert saved.read_bytes() == b"data"
    # A headless screen as big as a common one: Chrome keeps a window at least half on screen.
    for width, height in ((1280, 800), (1920, 1080)):
        resized = await service.call("resize_window", ws, tabId=tab, width=width, height=height)
        assert resized.kind == "ok", text(resized)
    await service.call("resize_window", ws, tabId=tab, width=800, height=600)
