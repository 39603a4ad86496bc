"""get_page_text's choice of text, accessible names of ARIA widgets and selects, and read_page's
text content, in real headless Chromium over loopback HTTP. Effects are read back through the
test's own CDP requests."""

from __future__ import annotations

import re
from typing import Any

import pytest
import trio

from .conftest import PAGES, Service, open_page, page_value, text

pytestmark = pytest.mark.e2e


def _cards(count: int, size: int) -> str:
    return "".join(
        f"<article><h2>Result {i}</h2><p>{f'Summary of result number {i}, '.ljust(size, 'x')}</p></article>"
        for i in range(count)
    )


_ROWS = "".join(
    f"<tr><td>SKU-{i}</td><td>Lantern model {i}</td><td>${i}.00</td></tr>" for i in range(150)
)

PAGES.update(
    {
        # Search results: each card is a fragment of the page, short or long.
        "/names/results": "<!doctype html><title>Results</title><header>Search results</header>"
        + f"<div id='list'>{_cards(10, 90)}</div>",
        "/names/long-results": "<!doctype html><title>Long results</title>"
        + f"<header>Search results</header><div id='list'>{_cards(10, 520)}</div>",
        # A price table in main, a review beside it in an aside.
        "/names/shop": """<!doctype html><title>Shop</title><nav>Home Shop Cart</nav>
<main><h1>Prices</h1><table>"""
        + _ROWS
        + """</table><p>Checkout total: $11175.00</p></main>
<aside><article><h2>Review</h2><p>"""
        + "A long and thoughtful review of this lantern shop. " * 13
        + "</p></article></aside>",
        # One clear article between navigation and footer.
        "/names/story": """<!doctype html><title>Story</title>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article><h1>The lantern keeper</h1><p>"""
        + "The keeper walked the shore at dusk and lit every lantern by hand. " * 20
        + """</p></article><footer>Copyright Lantern News</footer>""",
        "/names/widgets": """<!doctype html><title>Widgets</title>
<style>body{margin:0;font:14px sans-serif} [role=tab],[role=menuitem],[role=checkbox]{display:inline-block;padding:4px}</style>
<div role="tablist"><div role="tab" id="t1" aria-selected="true" tabindex="0">Account</div><div role="tab" id="t2"
 aria-selected="false" tabindex="-1" onclick="window.tabClicked=this.textContent"><span>Billing</span></div></div>
<div role="menu"><div role="menuitem" tabindex="-1">Export</div></div>
<span role="link" tabindex="0" onclick="window.docs=1">Docs</span>
<form onsubmit="return false">
<div role="checkbox" id="remember" aria-checked="false" tabindex="0"
 onclick="this.setAttribute('aria-checked', this.getAttribute('aria-checked') === 'true' ? 'false' : 'true')">Remember me</div>
<label for="country">Country</label>
<select id="country"><option value="">--</option><option value="fr">France</option><option value="jp">Japan</option></select>
<label for="size">Size</label>
<select id="size"><option value="s">Small</option><option value="m" selected>Medium</option><option value="l">Large</option></select>
<label>Multi <select id="multi" multiple><option selected>One</option><option>Two</option><option selected>Three</option></select></label>
</form>
<p>Plain paragraph with <b>bold words</b> inside.</p>
<p dir="rtl" lang="ar">مرحبا بالعالم، هذه فقرة عربية.</p>
<p lang="zh">这是一个中文段落。</p>""",
        # Text and controls laid out where no person can see them, beside what a person sees.
        "/names/hidden": """<!doctype html><title>Hidden</title><p>VISIBLE_MARK</p>
<p style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)">CLIP_MARK</p>
<p aria-hidden="true">ARIAHIDDEN_MARK</p>
<p style="opacity:0">OPACITY_MARK</p>
<p style="position:absolute;left:-9999px">OFFSCREEN_MARK</p>
<p style="font-size:0">FONTZERO_MARK</p>
<div style="height:0;overflow:hidden">ZEROHEIGHT_MARK</div>
<div style="opacity:0"><p>Nested <b>NESTEDOPACITY_MARK</b></p></div>
<button style="opacity:0">Invisible button</button>
<button style="position:absolute;left:-9999px">Offscreen button</button>
<button>Plain button</button>
<label><input type="checkbox" style="opacity:0;position:absolute"><span>Remember me</span></label>
<p style="color:transparent">CLEARTEXT_MARK</p>
<p style="color:rgba(0,0,0,0)">Some <span>CLEARSPAN_MARK</span></p>
<p style="color:transparent;background:linear-gradient(red,blue);-webkit-background-clip:text;background-clip:text">GRADIENT_MARK</p>
<p style="color:transparent;-webkit-text-stroke:1px black">STROKE_MARK</p>
<p style="color:transparent;text-shadow:0 0 2px black">SHADOW_MARK</p>""",
        "/names/svg": """<!doctype html><title>SVG</title>
<svg width="300" height="100"><text x="10" y="40">SVG_TEXT_MARK</text>
<a href="/second"><text x="10" y="80">SVG link</text></a></svg>
<svg width="16" height="16"><path d="M0 0h16v16z"/></svg>""",
        "/names/closed-div": """<!doctype html><title>Closed div</title><p>light text</p>
<div id="closeddiv"></div>
<script>
const root = document.getElementById('closeddiv').attachShadow({mode: 'closed'});
root.innerHTML = '<b>CLOSED_DIV_MARK</b><button>Closed div btn</button>';
root.querySelector('button').onclick = () => { window.divClicks = (window.divClicks || 0) + 1; };
</script>""",
    }
)


def _line(tree: str, pattern: str) -> str:
    for line in tree.splitlines():
        if re.search(pattern, line):
            return line
    raise AssertionError(f"no line matching {pattern!r} in:\n{tree}")


def _ref(line: str) -> str:
    match = re.search(r"\[(ref_\d+)\]", line)
    assert match, line
    return match.group(1)


async def test_page_text_reads_the_page_not_one_fragment_of_it(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/names/results")
    for path in ("/names/results", "/names/long-results"):
        if path != "/names/results":
            await service.call("navigate", ws, url=f"{web}{path}", tabId=tab)
        got = await service.call("get_page_text", ws, tabId=tab)
        assert got.kind == "ok", text(got)
        body = text(got)
        assert "Source element: body\n" in body, body[:300]
        assert all(f"Result {i}" in body for i in range(10)), body

    await service.call("navigate", ws, url=f"{web}/names/shop", tabId=tab)
    got = await service.call("get_page_text", ws, tabId=tab)
    assert got.kind == "ok", text(got)
    body = text(got)
    assert "SKU-42" in body and "Checkout total" in body
    match = re.search(
        r"Source element: main \(([\d,]+) of ([\d,]+) characters of the page's text\)", body
    )
    assert match, body[:300]
    shown, whole = (int(n.replace(",", "")) for n in match.groups())
    page_chars = await page_value(service, ws, tab, "document.body.innerText.trim().length")
    assert shown < whole and abs(whole - page_chars) < 50, (shown, whole, page_chars)

    await service.call("navigate", ws, url=f"{web}/names/story", tabId=tab)
    got = await service.call("get_page_text", ws, tabId=tab)
    body = text(got)
    assert re.search(
        r"Source element: article \([\d,]+ of [\d,]+ characters of the page's text\)", body
    ), body[:300]
    assert "The lantern keeper" in body and "Copyright Lantern News" not in body


async def test_aria_widgets_and_selects_are_named_and_text_is_read_by_get_page_text(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/names/widgets")
    read = await service.call("read_page", ws, tabId=tab, filter="all")
    assert read.kind == "ok", text(read)
    tree = text(read)
    _line(tree, r'^\s*tab "Billing" \[ref_\d+\]')
    _line(tree, r'^\s*menuitem "Export" \[ref_\d+\]')
    _line(tree, r'^\s*link "Docs" \[ref_\d+\]')
    _line(tree, r'^\s*checkbox "Remember me" \[ref_\d+\] unchecked')
    _line(tree, r'^\s*combobox "Country" \[ref_\d+\] value="--"')
    size = _line(tree, r'^\s*combobox "Size" \[ref_\d+\] value="Medium"')
    _line(tree, r'^\s*listbox "Multi" \[ref_\d+\] value="One, Three"')
    assert 'tab ""' not in tree and "Multi One" not in tree
    # Text is get_page_text's: the outline lists elements, not paragraphs.
    assert "Plain paragraph" not in tree, tree
    page_text = text(await service.call("get_page_text", ws, tabId=tab))
    assert "Plain paragraph with bold words inside." in page_text
    assert "这是一个中文段落。" in page_text and "مرحبا بالعالم" in page_text

    # The select's name stays when its value changes; the value shows the change.
    changed = await service.call("form_input", ws, tabId=tab, ref=_ref(size), value="Large")
    assert changed.kind == "ok", text(changed)
    again = text(await service.call("read_page", ws, tabId=tab, filter="all"))
    _line(again, rf'^\s*combobox "Size" \[{_ref(size)}\] value="Large"')

    found = await service.call("find", ws, tabId=tab, query="Billing tab")
    assert found.kind == "ok", text(found)
    best = found.structured["results"][0]
    assert (best["role"], best["name"]) == ("tab", "Billing"), text(found)

    country = await service.call("find", ws, tabId=tab, query="Country")
    assert country.kind == "ok", text(country)
    best = country.structured["results"][0]
    assert (best["role"], best["name"]) == ("combobox", "Country"), text(country)

    acted = await service.call(
        "act_on", ws, tabId=tab, target={"name": "Billing", "role": "tab"}, action="left_click"
    )
    assert acted.kind == "ok", text(acted)
    assert await page_value(service, ws, tab, "window.tabClicked") == "Billing"


async def test_form_fill_checks_an_aria_checkbox_by_its_text(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/names/widgets")
    outcome = await service.call("form_fill", ws, tabId=tab, fields={"Remember me": True})
    assert outcome.kind == "ok", text(outcome)
    assert await page_value(service, ws, tab, "remember.getAttribute('aria-checked')") == "true"
    [filled] = outcome.structured["filled"]
    assert filled["label"] == "Remember me" and filled["value"] is True
    # Already checked: nothing to click, and it stays checked.
    again = await service.call("form_fill", ws, tabId=tab, fields={"Remember me": "yes"})
    assert again.kind == "ok", text(again)
    assert await page_value(service, ws, tab, "remember.getAttribute('aria-checked')") == "true"


async def test_text_and_controls_no_person_can_see_are_not_read_as_seen(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/names/hidden")
    got = await service.call("get_page_text", ws, tabId=tab)
    assert got.kind == "ok", text(got)
    body = text(got)
    for mark in ("VISIBLE_MARK", "CLIP_MARK", "ARIAHIDDEN_MARK", "Plain button", "Remember me",
                 "GRADIENT_MARK", "STROKE_MARK", "SHADOW_MARK"):  # fmt: skip
        assert mark in body, body
    for mark in ("OPACITY_MARK", "OFFSCREEN_MARK", "FONTZERO_MARK", "ZEROHEIGHT_MARK",
                 "NESTEDOPACITY_MARK", "Invisible button", "Offscreen button", "CLEARTEXT_MARK",
                 "CLEARSPAN_MARK"):  # fmt: skip
        assert mark not in body, body
    assert "[Left out: the text of 11 element(s) that the page lays out where no person" in body

    tree = text(await service.call("read_page", ws, tabId=tab, filter="all"))
    _line(tree, r'^\s*button "Plain button" \[ref_\d+\]')
    # The transparent native checkbox is the one the page draws over: still seen.
    _line(tree, r'^\s*checkbox "Remember me" \[ref_\d+\]')
    assert "Invisible button" not in tree and "Offscreen button" not in tree, tree

    for query in ("Invisible button", "Offscreen button"):
        found = await service.call("find", ws, tabId=tab, query=query)
        assert found.kind == "ok", text(found)
        assert found.structured["results"] == [], text(found)
        assert "1 control(s) that match are not shown now" in text(found), text(found)


async def test_svg_text_and_links_are_read_found_and_clicked(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/names/svg")
    tree = text(await service.call("read_page", ws, tabId=tab, filter="all"))
    _line(tree, r'^\s*text "SVG_TEXT_MARK" \[ref_\d+\]')
    _line(tree, r'^\s*link "SVG link" \[ref_\d+\] href="/second"')
    assert "path" not in tree, tree

    found = await service.call("find", ws, tabId=tab, query="SVG link")
    assert found.kind == "ok", text(found)
    best = found.structured["results"][0]
    assert (best["role"], best["name"], best["href"]) == ("link", "SVG link", "/second"), best
    clicked = await service.call("computer", ws, tabId=tab, action="left_click", ref=best["ref"])
    assert clicked.kind == "ok", text(clicked)
    for _ in range(50):
        if str(await page_value(service, ws, tab, "location.pathname")) == "/second":
            break
        await trio.sleep(0.1)
    assert await page_value(service, ws, tab, "location.pathname") == "/second"


async def test_a_closed_shadow_root_on_a_div_is_read_found_and_clicked(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/names/closed-div")
    body = text(await service.call("get_page_text", ws, tabId=tab))
    assert "CLOSED_DIV_MARK" in body and "light text" in body, body
    tree = text(await service.call("read_page", ws, tabId=tab, filter="all"))
    _line(tree, r'^\s*button "Closed div btn" \[ref_\d+\]')
    found = await service.call("find", ws, tabId=tab, query="Closed div btn")
    assert found.kind == "ok" and found.structured["results"], text(found)
    best = found.structured["results"][0]
    assert best["name"] == "Closed div btn", text(found)
    clicked = await service.call("computer", ws, tabId=tab, action="left_click", ref=best["ref"])
    assert clicked.kind == "ok", text(clicked)
    assert await page_value(service, ws, tab, "window.divClicks") == 1
