"""A ref names the element as find showed it, in real headless Chromium: a node the page
relabels in place (a non-keyed list re-render) is refused as stale by computer and act_on, and
the page's handler does not run; typing into a field, toggling a checkbox and a fresh ref keep
working. Effects are read back through the test's own CDP requests."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import PAGES, Service, open_page, page_value, text

pytestmark = pytest.mark.e2e

PAGES.update(
    {
        # Each button does what it reads when clicked, as a list item's handler does.
        "/refs/list": """<!doctype html><title>Relabel</title>
<style>body{margin:0;font:16px sans-serif} button{margin:6px}</style>
<main id="view"><button onclick="events.push('home ' + this.textContent.toLowerCase())">Delete</button
><button onclick="events.push('home ' + this.textContent.toLowerCase())">Keep</button></main>
<label>Email <input id="email"></label>
<label><input id="news" type="checkbox"> Newsletter</label>
<button id="follow" onclick="follows += 1; this.textContent = this.textContent === 'Follow' ? 'Following' : 'Follow'"
>Follow</button>
<script>window.events = []; window.follows = 0;
// A non-keyed re-render: the same two nodes, their labels swapped.
function relabel() {
  const [a, b] = document.querySelectorAll('#view button');
  [a.textContent, b.textContent] = [b.textContent, a.textContent];
  return [a.textContent, b.textContent];
}</script>""",
        # Two pages alike: the same button, doing different things.
        "/refs/first": """<!doctype html><title>First</title><script>window.events = []</script>
<button onclick="events.push('first')">Send</button>""",
        "/refs/second": """<!doctype html><title>Second</title><script>window.events = []</script>
<p>Another page</p><button onclick="events.push('second')">Send</button>""",
    }
)

RELABELLED = (
    'was button "Keep" when issued; the element is now button "Delete". Nothing was done.'
    " Get a fresh ref (find / read_page) before acting."
)


async def _ref(service: Service, ws: str, tab: int, name: str, role: str = "button") -> str:
    """The ref find gives the one element of ``role`` named ``name``."""
    found = await service.call("find", ws, tabId=tab, query=name)
    assert found.kind == "ok", text(found)
    results = found.structured["results"]
    [hit] = [r for r in results if r.get("name") == name and r.get("role") == role]
    return str(hit["ref"])


async def test_a_relabelled_node_is_refused_by_computer_and_act_on(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/refs/list")
    keep = await _ref(service, ws, tab, "Keep")
    assert await page_value(service, ws, tab, "relabel()") == ["Keep", "Delete"]

    clicked = await service.call("computer", ws, tabId=tab, action="left_click", ref=keep)
    assert clicked.kind == "tool_error", text(clicked)
    assert text(clicked).startswith(f"[hop: page] {keep} {RELABELLED.rstrip('.')}"), text(clicked)

    acted = await service.call("act_on", ws, tabId=tab, target={"ref": keep}, action="left_click")
    assert acted.kind == "tool_error", text(acted)
    blocked = "interaction receipt: blocked before action: stale_ref."
    assert text(acted).startswith(blocked), text(acted)
    assert f"{keep} {RELABELLED}" in text(acted), text(acted)
    [blocker] = acted.structured["interactionReceipt"]["blockers"]
    assert blocker["kind"] == "stale_ref"
    assert acted.structured["interactionReceipt"]["targetAssurance"] == "none"

    # Neither click reached the page.
    assert await page_value(service, ws, tab, "window.events") == []

    # The next step works: a fresh find names the node that now reads "Keep", under a new ref.
    fresh = await _ref(service, ws, tab, "Keep")
    assert fresh != keep
    clicked = await service.call("computer", ws, tabId=tab, action="left_click", ref=fresh)
    assert clicked.kind == "ok", text(clicked)
    assert await page_value(service, ws, tab, "window.events") == ["home keep"]


async def test_own_input_keeps_a_ref_and_a_label_changed_by_a_click_is_refused(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/refs/list")
    email = await _ref(service, ws, tab, "Email", "textbox")
    news = await _ref(service, ws, tab, "Newsletter", "checkbox")
    follow = await _ref(service, ws, tab, "Follow")

    # A field's name is its label, not its value: typing twice through one ref works.
    for value in ("ada@example.test", "grace@example.test"):
        typed = await service.call("form_input", ws, tabId=tab, ref=email, value=value)
        assert typed.kind == "ok", text(typed)
    # A checkbox's state is no part of its name: set by form_input, then clicked by ref.
    ticked = await service.call("form_input", ws, tabId=tab, ref=news, value=True)
    assert ticked.kind == "ok", text(ticked)
    unticked = await service.call("computer", ws, tabId=tab, action="left_click", ref=news)
    assert unticked.kind == "ok", text(unticked)
    state = await page_value(service, ws, tab, "[email.value, news.checked]")
    assert state == ["grace@example.test", False]

    # The page renames the button in answer to the click: the ref named "Follow", so a second
    # click through it (which would press "Following") is refused, and nothing is pressed.
    first = await service.call("computer", ws, tabId=tab, action="left_click", ref=follow)
    assert first.kind == "ok", text(first)
    second = await service.call("computer", ws, tabId=tab, action="left_click", ref=follow)
    assert second.kind == "tool_error", text(second)
    assert (
        f'{follow} was button "Follow" when issued; the element is now button "Following".'
        " Nothing was done." in text(second)
    ), text(second)
    assert await page_value(service, ws, tab, "[window.follows, follow.textContent]") == [
        1,
        "Following",
    ]
    # A fresh ref names it as it is now, and acts.
    following = await _ref(service, ws, tab, "Following")
    assert following != follow
    again = await service.call("computer", ws, tabId=tab, action="left_click", ref=following)
    assert again.kind == "ok", text(again)
    assert await page_value(service, ws, tab, "[window.follows, follow.textContent]") == [
        2,
        "Follow",
    ]


async def test_a_ref_read_on_another_page_or_tab_is_not_taken_for_an_element_here(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    """A ref stands for the element of the page it was read from. After a navigation, and in
    another tab, a page that numbered its own "Send" button is not clicked through the old
    ref, even though role and name are alike: refused, and the page's handler does not run."""
    service = extended_service
    ws, tab = await open_page(service, f"{web}/refs/first")
    first = await _ref(service, ws, tab, "Send")
    landed = await service.call("navigate", ws, url=f"{web}/refs/second", tabId=tab)
    assert landed.kind == "ok", text(landed)
    second = await _ref(service, ws, tab, "Send")
    assert second != first

    stale = await service.call("computer", ws, tabId=tab, action="left_click", ref=first)
    assert stale.kind == "tool_error", text(stale)
    assert "not on this page" in text(stale) and "another page" in text(stale)
    assert await page_value(service, ws, tab, "events") == []

    _, other = await open_page(service, f"{web}/refs/second", ws)
    elsewhere = await _ref(service, ws, other, "Send")
    assert elsewhere not in (first, second)
    crossed = await service.call("computer", ws, tabId=other, action="left_click", ref=second)
    assert crossed.kind == "tool_error", text(crossed)
    assert "not on this page" in text(crossed)
    assert await page_value(service, ws, other, "events") == []

    own = await service.call("computer", ws, tabId=tab, action="left_click", ref=second)
    assert own.kind == "ok", text(own)
    assert await page_value(service, ws, tab, "events") == ["second"]
