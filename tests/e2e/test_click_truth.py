"""What a click by ref says happened is what happened, in real headless Chromium.

A ref's element may be scrolled out of its scroll container, sit under a sticky header, lie
under an overlay or be hidden: the click either reaches it (scrolled into view first) or is
refused with nothing sent. find and wait_for say when cross-origin frames were left unsearched,
so that "no match" and "gone" are never read as "not on the screen". Every effect is read back
through the test's own CDP requests, never from the tool's echo.
"""

from __future__ import annotations

from typing import Any

import pytest
import trio

from .conftest import PAGES, Service, held_page_server, open_page, page_value, text

pytestmark = pytest.mark.e2e

PAGES.update(
    {
        # The box's button is 200 px down in a 100 px scroll box: inside the viewport, but cut
        # away by the box. "Open modal" goes under the 80 px sticky header once scrolled.
        "/truth/ui": """<!doctype html><title>Click truth</title>
<style>body{margin:0;font:16px sans-serif}
header{position:sticky;top:0;height:80px;background:#fd0;z-index:10}
#box{height:100px;overflow:auto;width:300px;margin:10px 20px;border:2px solid blue}
.spacer{height:1500px}
#veil{display:none;position:fixed;inset:0;background:rgba(0,0,0,.4);z-index:50}</style>
<header onclick="L('header')">Sticky Header</header>
<div id="box"><div style="height:200px">top of box</div>
<button id="deep" onclick="L('deep')" onmouseover="L('deep over')"
 ondblclick="L('deep dbl')">Deep Button</button><div style="height:200px"></div></div>
<button id="open" onclick="L('open')">Open modal</button>
<div class="spacer">spacer</div>
<div id="veil" role="dialog" aria-label="Cookie consent" onclick="L('veil')"></div>
<script>window.events = []; function L(m) { events.push(m); }</script>""",
        # "Catch me" jumps aside when the pointer arrives, once; "Shy" hides from it.
        "/truth/evasive": """<!doctype html><title>Evasive</title>
<style>body{margin:0;font:16px sans-serif} #catch{position:relative}</style>
<div><button id="catch" onmouseenter="this.style.left='250px'" onclick="L('catch')">Catch me</button></div>
<div><button id="shy" onmouseenter="this.style.visibility='hidden'" onclick="L('shy')">Shy</button></div>
<script>window.events = []; function L(m) { events.push(m); }</script>""",
        # Spun for good by the test that loads it (the page itself only waits for it).
        "/truth/spin": """<!doctype html><title>spinning</title><p>busy soon</p>""",
        # A same-origin frame and a cross-origin one (the same server reached as localhost).
        "/truth/frames": """<!doctype html><title>Frames truth</title>
<h1>Frames page</h1>
<iframe id="same" src="/truth/inner?who=same" width="400" height="120"></iframe>
<script>
const cross = document.createElement('iframe');
cross.id = 'cross'; cross.width = 400; cross.height = 120;
cross.src = 'http://localhost:' + location.port + '/truth/inner?who=cross';
document.body.append(cross);
</script>""",
        # "Show banner" grows a banner over half a second, pushing "Buy now" down as it goes;
        # "Drifter" never stops sliding.
        "/truth/shift": """<!doctype html><title>Layout shift</title>
<style>body{margin:0;font:16px sans-serif} #banner{height:0;transition:height .5s linear;
background:#fd0} #banner.open{height:300px}
@keyframes drift{from{margin-left:0}to{margin-left:600px}}
#drifter{animation:drift .4s linear infinite alternate}</style>
<button id="show" onclick="banner.classList.add('open'); L('show')">Show banner</button>
<div id="banner"></div>
<button id="buy" onclick="L('buy')">Buy now</button>
<div><button id="drifter" onclick="L('drifter')">Drifter</button></div>
<script>window.events = []; function L(m) { events.push(m); }</script>""",
        # A control inside a closed <details>: laid out by nothing the user can see.
        "/truth/details": """<!doctype html><title>Details</title>
<details id="ship"><summary>Shipping details</summary>
<button id="change" onclick="L('change')">Change address</button>
<label>API key <input id="key"></label></details>
<button aria-expanded="false" aria-controls="m">Menu</button>
<script>window.events = []; function L(m) { events.push(m); }</script>""",
        # A field that lower-cases, drops symbols and stops at 8 characters.
        "/truth/typing": """<!doctype html><title>Typing</title>
<label>User <input id="user" maxlength="8"
 oninput="this.value = this.value.toLowerCase().replace(/[^a-z0-9]/g, '')"></label>
<label>Note <input id="note"></label>""",
        "/truth/plain": "<!doctype html><title>Plain</title><p>plain</p>",
        # Parsing stops at a script whose server never answers (for 13 s).
        "/truth/stalled": """<!doctype html><title>Stalled</title>
<h1>Above the script</h1><button onclick="window.pressed = 1">Press me</button>
<script src="/unanswered"></script><p>Below the script</p>""",
        # Words inside longer words, text that only mentions a control, a list that re-renders.
        "/truth/words": """<!doctype html><title>Words</title>
<a href="#blog">Blog index</a> <a href="#design">Design inspiration</a>
<a href="#toons">Cartoons</a>
<p onclick="L('para')">Page 1 of 3. Next shipment arrives Monday.</p>
<button id="sort" onclick="L('sort'); list.innerHTML = list.innerHTML">Sort by name</button>
<ul id="list"><li><a href="#ann">Ann</a></li><li><a href="#bob">Bob</a></li></ul>
<script>window.events = []; function L(m) { events.push(m); }</script>""",
        # A menu a script shows on mouseenter, a sibling of what opens it, under the body.
        "/truth/jsmenu": """<!doctype html><title>Script menu</title>
<div id="acc" style="display:inline-block;padding:8px">Profile menu</div>
<div id="m" style="display:none"><a href="#prof">Your profile</a> <a href="#out">Log out</a></div>
<script>acc.addEventListener('mouseenter', () => { m.style.display = 'block'; });</script>""",
        # A menu shown by CSS alone: hovering "Account" changes no DOM node.
        "/truth/menu": """<!doctype html><title>Hover menu</title>
<style>body{margin:0;font:16px sans-serif} nav{padding:20px}
.menu{display:none} li.drop:hover .menu{display:block}</style>
<nav><ul><li><a href="#home">Home</a></li>
<li class="drop"><a href="#account">Account</a>
<ul class="menu"><li><a href="#settings">Settings</a></li><li><a href="#out">Sign out</a></li></ul>
</li></ul></nav><p style="margin-top:200px">elsewhere</p>""",
        "/truth/inner?who=same": "<title>Inner</title><p>Frame text same content</p>",
        "/truth/inner?who=cross": "<title>Inner</title><p>Frame text cross content</p>",
    }
)


async def found_ref(service: Service, ws: str, tab: int, query: str) -> tuple[str, str]:
    """The best match's ref for ``query`` and its line in find's answer."""
    found = await service.call("find", ws, tabId=tab, query=query)
    assert found.kind == "ok" and found.structured["results"], text(found)
    ref = found.structured["results"][0]["ref"]
    line = next(line for line in text(found).splitlines() if f"[{ref}]" in line)
    return ref, line


async def events(service: Service, ws: str, tab: int) -> list[str]:
    return await page_value(service, ws, tab, "window.events")


async def test_a_click_by_ref_scrolls_its_target_into_the_scroll_box_that_hides_it(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/truth/ui")
    # Scrolled out of its box, it is not in view: the interactive snapshot leaves it out.
    in_view = await service.call("read_page", ws, tabId=tab, filter="interactive")
    assert "Deep Button" not in text(in_view) and "Open modal" in text(in_view), text(in_view)
    ref, _ = await found_ref(service, ws, tab, "Deep Button")
    clicked = await service.call("computer", ws, tabId=tab, action="left_click", ref=ref)
    assert clicked.kind == "ok", text(clicked)
    assert await events(service, ws, tab) == ["deep over", "deep"]
    assert await page_value(service, ws, tab, "document.getElementById('box').scrollTop") > 0
    in_view = await service.call("read_page", ws, tabId=tab, filter="interactive")
    assert "Deep Button" in text(in_view), text(in_view)
    # Scrolled back out of the box, a double click finds it the same way.
    await page_value(service, ws, tab, "document.getElementById('box').scrollTop = 0; true")
    doubled = await service.call("computer", ws, tabId=tab, action="double_click", ref=ref)
    assert doubled.kind == "ok", text(doubled)
    assert (await events(service, ws, tab))[-1] == "deep dbl"


async def test_a_click_by_ref_under_a_sticky_header_reaches_the_button_not_the_header(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/truth/ui")
    ref, _ = await found_ref(service, ws, tab, "Open modal")
    top = await page_value(
        service, ws, tab,
        "const b = document.getElementById('open'); scrollTo(0, b.offsetTop - 30);"
        " b.getBoundingClientRect().top",
    )  # fmt: skip
    assert top < 80  # under the header
    clicked = await service.call("computer", ws, tabId=tab, action="left_click", ref=ref)
    assert clicked.kind == "ok", text(clicked)
    assert await events(service, ws, tab) == ["open"]
    # act_on centres it the same way, rather than refusing what the header covers.
    await page_value(service, ws, tab, "scrollTo(0, document.getElementById('open').offsetTop - 30); true")
    acted = await service.call("act_on", ws, tabId=tab, target={"ref": ref}, action="left_click")
    assert acted.kind == "ok", text(acted)
    assert await events(service, ws, tab) == ["open", "open"]


async def test_a_pointer_action_by_ref_that_cannot_reach_its_target_is_refused_unsent(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/truth/ui")
    ref, _ = await found_ref(service, ws, tab, "Open modal")
    await page_value(service, ws, tab, "document.getElementById('veil').style.display = 'block'")
    for action in ("left_click", "hover"):
        refused = await service.call("computer", ws, tabId=tab, action=action, ref=ref)
        said = text(refused)
        assert refused.kind == "tool_error", said
        assert said.startswith(
            f"{action} was not done: no input was sent, because {ref} is covered"
        )
        assert 'dialog "Cookie consent"' in said and "Close or move what covers it" in said
        assert refused.structured["covering"]["name"] == "Cookie consent"
    assert await events(service, ws, tab) == []

    # A hidden target has no point to click at: refused, not clicked at (0, 0).
    await page_value(
        service, ws, tab,
        "document.getElementById('veil').style.display = 'none';"
        " document.getElementById('open').style.display = 'none'",
    )  # fmt: skip
    refused = await service.call("computer", ws, tabId=tab, action="left_click", ref=ref)
    assert refused.kind == "tool_error", text(refused)
    assert f"because {ref} is not visible on the page" in text(refused)
    assert await events(service, ws, tab) == []


async def test_find_says_a_target_is_clipped_by_its_scroll_container_not_covered(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/truth/ui")
    _, line = await found_ref(service, ws, tab, "Deep Button")
    assert "covered by" not in line, line  # the box clips it; nothing lies on top of it
    assert line.endswith("; clipped by its scroll container (scroll it into view)"), line
    await page_value(service, ws, tab, "document.getElementById('box').scrollTop = 180; true")
    _, line = await found_ref(service, ws, tab, "Deep Button")
    assert "clipped" not in line and "covered" not in line, line


async def test_find_and_wait_for_name_the_cross_origin_frames_they_could_not_search(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/truth/frames")
    # The cross-origin frame really shows the text (read inside it, not through the tools).
    port = web.rsplit(":", 1)[1]
    assert await page_value(service, ws, tab, "document.getElementById('cross').src") == (
        f"http://localhost:{port}/truth/inner?who=cross"
    )
    note = (
        "[1 cross-origin frame(s) not searched: their contents cannot be read from this page;"
        " use a screenshot and coordinates inside them]"
    )
    missing = await service.call("find", ws, tabId=tab, query="Frame text cross")
    assert missing.kind == "ok", text(missing)
    assert 'No elements matching "Frame text cross".' in text(missing)
    assert note in text(missing), text(missing)
    same = await service.call("find", ws, tabId=tab, query="Frame text same")
    assert same.structured["results"] and note in text(same), text(same)

    gone = await service.call(
        "wait_for", ws, tabId=tab, text="Frame text cross", state="gone", timeout_ms=1000
    )
    said = text(gone)
    assert gone.kind == "ok", said
    assert "for this document only" in said, said
    assert f"1 cross-origin frame (http://localhost:{port}) was not searched" in said, said
    assert gone.structured["unsearchedFrames"] == {
        "count": 1, "origins": [f"http://localhost:{port}"]
    }  # fmt: skip
    # Text this document does show is not gone, frames or no frames.
    shown = await service.call(
        "wait_for", ws, tabId=tab, text="Frame text same", state="gone", timeout_ms=300
    )
    assert shown.structured["found"] is False, text(shown)


async def test_hovering_names_the_menu_it_reveals_by_css_alone(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/truth/menu")
    ref, _ = await found_ref(service, ws, tab, "Account")
    hovered = await service.call("computer", ws, tabId=tab, action="hover", ref=ref)
    said = text(hovered)
    assert hovered.kind == "ok", said
    observed = hovered.structured["interactionReceipt"]["observedAfter"]
    assert observed.get("mutations", 0) == 0  # nothing for a mutation count to see
    revealed = [(e["role"], e["name"]) for e in observed["revealed"]]
    assert revealed == [("link", "Settings"), ("link", "Sign out")], said
    assert '2 element(s) came into view: link "Settings" [' in said
    assert await page_value(
        service, ws, tab, "getComputedStyle(document.querySelector('.menu')).display"
    ) == "block"
    # A revealed item's ref is usable at once.
    settings = observed["revealed"][0]["ref"]
    clicked = await service.call("computer", ws, tabId=tab, action="left_click", ref=settings)
    assert clicked.kind == "ok", text(clicked)
    assert await page_value(service, ws, tab, "location.hash") == "#settings"
    # A menu a script opens beside its opener is named too.
    ws, other = await open_page(service, f"{web}/truth/jsmenu", ws)
    opener, _ = await found_ref(service, ws, other, "Profile menu")
    opened = await service.call("computer", ws, tabId=other, action="hover", ref=opener)
    shown = [e["name"] for e in opened.structured["interactionReceipt"]["observedAfter"]["revealed"]]
    assert shown == ["Your profile", "Log out"], text(opened)
    # Hovering elsewhere hides it again: nothing is said to have come into view.
    away = await service.call("computer", ws, tabId=tab, action="hover", coordinate=[300, 400])
    assert away.kind == "ok", text(away)
    assert "came into view" not in text(away)


async def test_a_click_by_ref_waits_for_its_target_to_stop_moving_and_refuses_one_that_never_does(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/truth/shift")
    # Shown, so that it draws frames: a background tab animates nothing (its timeline stands
    # still), and there a click simply lands where the element is.
    focused = await service.call("tab_control", ws, tabId=tab, action="focus")
    assert focused.kind == "ok", text(focused)
    assert await page_value(service, ws, tab, "document.visibilityState") == "visible"
    show, _ = await found_ref(service, ws, tab, "Show banner")
    buy, _ = await found_ref(service, ws, tab, "Buy now")
    shown = await service.call("computer", ws, tabId=tab, action="left_click", ref=show)
    assert shown.kind == "ok", text(shown)
    # At once, while the banner still grows and "Buy now" slides down under the pointer.
    bought = await service.call("computer", ws, tabId=tab, action="left_click", ref=buy)
    assert bought.kind == "ok", text(bought)
    assert await events(service, ws, tab) == ["show", "buy"]

    drifter, _ = await found_ref(service, ws, tab, "Drifter")
    for tool, arguments in (
        ("computer", {"action": "left_click", "ref": drifter}),
        ("act_on", {"action": "left_click", "target": {"ref": drifter}}),
    ):
        refused = await service.call(tool, ws, tabId=tab, **arguments)
        said = text(refused)
        assert "kept moving for a second" in said, said
        assert "moving_target" in said or refused.kind == "tool_error", said
    assert await events(service, ws, tab) == ["show", "buy"]  # nothing was sent to it


async def test_a_control_inside_a_closed_details_is_hidden_until_its_summary_opens_it(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/truth/details")
    found = await service.call("find", ws, tabId=tab, query="Change address")
    assert found.structured["results"] == [], text(found)
    assert "1 control(s) that match are not shown now (in a collapsed section" in text(found)
    key = await service.call("find", ws, tabId=tab, query="API key")
    assert "1 control(s) that match are not shown now" in text(key), text(key)
    outline = text(await service.call("read_page", ws, tabId=tab, filter="interactive"))
    assert 'summary "Shipping details"' not in outline or "collapsed" in outline, outline
    assert "Change address" not in outline, outline
    assert 'button "Menu"' in outline and "collapsed" in outline
    summary, _ = await found_ref(service, ws, tab, "Shipping details")
    opened = await service.call("computer", ws, tabId=tab, action="left_click", ref=summary)
    assert opened.kind == "ok", text(opened)
    change, _ = await found_ref(service, ws, tab, "Change address")
    clicked = await service.call("computer", ws, tabId=tab, action="left_click", ref=change)
    assert clicked.kind == "ok", text(clicked)
    assert await events(service, ws, tab) == ["change"]
    everything = text(await service.call("read_page", ws, tabId=tab, filter="all"))
    assert "expanded" in everything, everything


async def test_find_takes_a_description_and_says_the_match_is_loose(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/truth/ui")
    found = await service.call("find", ws, tabId=tab, query="the button that opens the modal")
    said = text(found)
    assert found.kind == "ok", said
    assert found.structured["results"][0]["name"] == "Open modal", said
    assert (
        '\nNo element has every word of "the button that opens the modal"; found 1 that have at'
        " least 2 of its words (button, opens, modal), closest first:\n"
    ) in said, said
    # act_on never acts on a loose match.
    acted = await service.call(
        "act_on", ws, tabId=tab, target={"query": "the button that opens the modal"},
        action="left_click",
    )  # fmt: skip
    assert "target_missing" in text(acted), text(acted)
    assert await events(service, ws, tab) == []


async def test_typing_says_what_a_field_kept_when_the_page_cut_or_rewrote_it(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/truth/typing")
    user, _ = await found_ref(service, ws, tab, "User")
    await service.call("computer", ws, tabId=tab, action="left_click", ref=user)
    typed = await service.call("computer", ws, tabId=tab, action="type", text="JohnDoe_1990")
    said = text(typed)
    assert typed.kind == "ok", said
    held = await page_value(service, ws, tab, "user.value")
    assert held == "johndoe1"
    assert 'The field now holds "johndoe1": not all of what was typed' in said, said
    note, _ = await found_ref(service, ws, tab, "Note")
    await service.call("computer", ws, tabId=tab, action="left_click", ref=note)
    plain = await service.call("computer", ws, tabId=tab, action="type", text="Hello there")
    assert "now holds" not in text(plain), text(plain)


async def test_a_page_still_parsing_is_read_as_far_as_it_got_without_waiting_out_the_bound(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/truth/plain")
    went = await service.call("navigate", ws, tabId=tab, url=f"{web}/truth/stalled")
    assert went.kind == "ok", text(went)
    assert await page_value(service, ws, tab, "document.readyState") == "loading"
    with trio.fail_after(5):  # the page's own bound is 20 s; the script stalls it for 13 s
        page = await service.call("get_page_text", ws, tabId=tab)
        found = await service.call("find", ws, tabId=tab, query="Press me")
    assert "Above the script" in text(page) and "Below the script" not in text(page), text(page)
    assert found.structured["results"][0]["name"] == "Press me", text(found)


async def test_words_match_whole_words_and_act_on_clicks_controls_not_text(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/truth/words")
    for query in ("log in", "sign in", "cart"):
        acted = await service.call(
            "act_on", ws, tabId=tab, target={"query": query}, action="left_click"
        )
        assert "target_missing" in text(acted), (query, text(acted))
    # The paragraph has every word, and a click handler of its own: a control by that.
    mentioned = await service.call(
        "act_on", ws, tabId=tab, target={"query": "next shipment"}, action="left_click"
    )
    assert mentioned.kind == "ok", text(mentioned)
    await page_value(service, ws, tab, "document.querySelector('p').removeAttribute('onclick')")
    words_only = await service.call(
        "act_on", ws, tabId=tab, target={"query": "next page"}, action="left_click"
    )
    assert "only text that is no control mentions" in text(words_only), text(words_only)
    assert await page_value(service, ws, tab, "location.hash") == ""
    # A list rebuilt with the same items: nothing came into view.
    sort, _ = await found_ref(service, ws, tab, "Sort by name")
    sorted_ = await service.call("computer", ws, tabId=tab, action="left_click", ref=sort)
    assert sorted_.kind == "ok", text(sorted_)
    assert "came into view" not in text(sorted_), text(sorted_)
    assert await events(service, ws, tab) == ["para", "sort"]


async def test_a_click_by_ref_follows_a_target_that_moves_when_the_pointer_arrives(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    """The pointer reaches the element before the button goes down, as a person's does: one
    that jumps aside is followed and clicked there; one that hides is not clicked at all, and
    the answer says only the pointer moved."""
    service = extended_service
    ws, tab = await open_page(service, f"{web}/truth/evasive")
    catch, _ = await found_ref(service, ws, tab, "Catch me")
    caught = await service.call("computer", ws, tabId=tab, action="left_click", ref=catch)
    assert caught.kind == "ok", text(caught)
    assert await events(service, ws, tab) == ["catch"]
    shy, _ = await found_ref(service, ws, tab, "Shy")
    missed = await service.call("computer", ws, tabId=tab, action="left_click", ref=shy)
    assert missed.kind == "tool_error", text(missed)
    assert "the pointer was moved onto" in text(missed) and "no button was pressed" in text(missed)
    assert await events(service, ws, tab) == ["catch"]


async def test_a_click_at_a_point_whose_target_jumps_away_says_where_the_press_landed(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    """A click by coordinate goes where it was aimed, but what was there may move as the
    pointer arrives: the answer then names what the press really went down on, instead of
    reporting the element that had been at the point. One that stays put is not remarked."""
    service = extended_service
    ws, tab = await open_page(service, f"{web}/truth/evasive")
    found = await service.call("find", ws, tabId=tab, query="Catch me")
    button = found.structured["results"][0]
    at = [round(button["x"]), round(button["y"])]
    missed = await service.call("computer", ws, tabId=tab, action="left_click", coordinate=at)
    assert missed.kind == "tool_error", text(missed)
    assert await events(service, ws, tab) == []  # the button jumped aside: it got no click
    receipt = missed.structured["interactionReceipt"]
    assert receipt["target"]["name"] == "Catch me"  # what was at the point before
    instead = receipt["observedAfter"]["pressedInstead"]
    assert instead["name"] != "Catch me", instead
    assert "the press landed on another element" in text(missed)
    assert "the press landed on" in text(missed).split("---", 1)[1]  # named inside the fence
    moved = await service.call("find", ws, tabId=tab, query="Catch me")
    now = moved.structured["results"][0]
    assert now["x"] > button["x"] + 100, now
    caught = await service.call(
        "computer", ws, tabId=tab, action="left_click", coordinate=[round(now["x"]), round(now["y"])]
    )
    assert caught.kind == "ok", text(caught)
    assert await events(service, ws, tab) == ["catch"]
    assert "pressedInstead" not in caught.structured["interactionReceipt"]["observedAfter"]
    assert "landed on another element" not in text(caught)


def said_pressed_elsewhere(outcome: Any, *, came_up: bool) -> None:
    """The answer of an action whose press the "Flash sale" cover took (as it went down, or
    with ``came_up``, as it came up): an error that names the cover inside the page fence."""
    said = text(outcome)
    assert outcome.kind == "tool_error", said
    if came_up:
        assert "the press came up on another element" in said and "got no click" in said, said
    else:
        assert "the press landed on another element" in said and "did not take the" in said, said
    instead = outcome.structured["interactionReceipt"]["observedAfter"]["pressedInstead"]
    assert instead["name"] == "Flash sale" and instead.get("release", False) is came_up, instead
    fenced = said.split("---", 1)[1]
    landed = 'came up on dialog "Flash sale"' if came_up else 'landed on dialog "Flash sale"'
    assert landed in fenced, said


async def test_a_press_a_cover_takes_at_its_instant_is_never_said_to_have_clicked_the_target(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    """A dialog comes over the button at the very instant of a press (the press itself shows
    it): the page gets the press on the dialog and the button no click. Every way of pressing
    (by ref, at a point, each kind of click, a drag) says the press landed elsewhere, names
    what took it inside the page fence, and answers an error, never a click on the button."""
    service = extended_service
    ws, tab = await open_page(service, f"{web}/cover/press")
    pay, _ = await found_ref(service, ws, tab, "Pay now")
    for action in ("left_click", "right_click", "double_click", "triple_click"):
        missed = await service.call("computer", ws, tabId=tab, action=action, ref=pay)
        said_pressed_elsewhere(missed, came_up=True)
    found = await service.call("find", ws, tabId=tab, query="Pay now")
    button = found.structured["results"][0]
    at = [round(button["x"]), round(button["y"])]
    missed = await service.call("computer", ws, tabId=tab, action="left_click", coordinate=at)
    said_pressed_elsewhere(missed, came_up=True)
    assert await events(service, ws, tab) == []  # neither the button nor the cover: no click
    # The cover comes once the button took a click: a double click's second press lands on it.
    ws, tab = await open_page(service, f"{web}/cover/after", ws)
    pay, _ = await found_ref(service, ws, tab, "Pay now")
    missed = await service.call("computer", ws, tabId=tab, action="double_click", ref=pay)
    said_pressed_elsewhere(missed, came_up=False)
    assert await events(service, ws, tab) == ["pay", "cover"]
    # The cover comes as the pointer arrives: a drag from the button grabs the cover.
    ws, tab = await open_page(service, f"{web}/cover/arrive", ws)
    dragged = await service.call(
        "computer", ws, tabId=tab, action="left_click_drag", start_coordinate=at,
        coordinate=[at[0] + 200, at[1] + 200],
    )  # fmt: skip
    said_pressed_elsewhere(dragged, came_up=False)
    assert "not on what was at the start point" in text(dragged), text(dragged)


async def test_input_a_stuck_page_never_answers_about_is_an_unknown_outcome_not_a_success(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    """The page's own script holds it: the browser takes the input, and nothing tells whether
    the page did. Said as unknown, with what to do, never as a plain success."""
    service = extended_service
    ws, tab = await open_page(service, f"{web}/truth/spin")
    with held_page_server("/spinning", hold_s=0) as (port, spinning):
        # The page spins for good once it has told its server so (a synchronous request): a
        # timer's delay alone could leave it free still on a loaded machine.
        mark = f"http://127.0.0.1:{port}/spinning"
        await page_value(
            service, ws, tab,
            "setTimeout(() => { try { const x = new XMLHttpRequest(); x.open('GET', '" + mark + "', false);"
            " x.send(); } catch (e) {} while (true) {} }, 0); 1",
        )  # fmt: skip
        assert await trio.to_thread.run_sync(spinning.wait, 10), "the page never began to spin"
    await trio.sleep(0.2)  # now spinning
    # A navigation to the same site cannot commit while the stuck page holds its process.
    await service.call("navigate", ws, url=f"{web}/truth/plain", tabId=tab)
    for arguments in ({"action": "left_click", "coordinate": [100, 50]}, {"action": "type", "text": "hi"}):
        sent = await service.call("computer", ws, tabId=tab, **arguments)
        if sent.kind == "outcome_unknown" and "page has not answered since" not in text(sent):
            continue  # the input itself was not taken in time: unknown as well, and quarantined
        assert sent.kind == "outcome_unknown", text(sent)
        assert "whether it took the input is not known" in text(sent), text(sent)
    closed = await service.call("tab_control", ws, tabId=tab, action="close")
    assert closed.kind in ("ok", "tool_error", "denied"), text(closed)
