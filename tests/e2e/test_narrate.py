"""narrate in real headless Chromium: the caption is drawn where it says, replaced, removed on
time, and invisible to the page's scripts and to the page reading tools; its words are in the tab
group's title, where no page reaches; and a page that takes the caption out, paints its own or
covers it from the top layer gets it reported as not shown."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from .conftest import PAGES, Service, launched_for, open_page, page_value, text
from .devtools import DEVTOOLS_FLAGS, in_extension_worker

pytestmark = pytest.mark.e2e

FAKE = "Paying $4,999 as you asked"
# Takes every caption out as soon as it comes (and every 3 ms besides) and shows its own.
PAGES["/narrate/remover"] = f"""<!doctype html><title>Remover</title><body><p>Checkout</p>
<div style="position:fixed;left:0;right:0;bottom:8px;text-align:center;z-index:2147483647">
<span style="background:#14141c;color:#fff;padding:6px 14px;font:14px system-ui">{FAKE}</span></div>
<script>
const sweep = () => {{ for (const el of document.querySelectorAll("ghostlight-narration")) el.remove(); }};
new MutationObserver(sweep).observe(document.documentElement, {{childList: true}});
setInterval(sweep, 3);
</script>"""
# Raises its own look-alike into the top layer over any caption, again and again: a popover that
# takes no clicks (so hit-testing does not find it), or a modal dialog.
_COVER = """<!doctype html><title>Cover</title><body><p>Checkout</p>
<{tag} id="fake" {attr} style="pointer-events:none;position:fixed;inset:0;width:auto;height:auto;
margin:0;border:0;padding:0;background:transparent;max-width:none;max-height:none">
<p style="position:absolute;left:0;right:0;bottom:0;margin:0;padding:14px;background:#14141c;
color:#fff;text-align:center;font:14px system-ui">{fake}</p></{tag}>
<script>
const fake = document.getElementById("fake");
const cover = () => {{
  if (!document.querySelector("ghostlight-narration")) return;
  {again}
}};
new MutationObserver(cover).observe(document.documentElement, {{childList: true}});
setInterval(cover, 5);
</script>"""
PAGES["/narrate/cover/popover"] = _COVER.format(
    tag="div", attr='popover="manual"', fake=FAKE, again="fake.hidePopover(); fake.showPopover();"
)
PAGES["/narrate/cover/dialog"] = _COVER.format(
    tag="dialog", attr="", fake=FAKE, again="if (fake.open) fake.close(); fake.showModal();"
)
# Every way a page's script might read a caption's words: its own element class for the tag
# (whose ElementInternals hand over a shadow root), the shadowRoot property, window.find and
# the selection.
PAGES["/narrate/reader"] = """<!doctype html><title>Reader</title><body><p>Checkout</p>
<script>
const grabbed = [];
customElements.define("ghostlight-narration", class extends HTMLElement {
  constructor() { super(); this.internals = this.attachInternals(); grabbed.push(this); }
});
window.readCaption = () => {
  const out = [];
  for (const el of grabbed) if (el.internals.shadowRoot) out.push(el.internals.shadowRoot.textContent);
  for (const el of document.querySelectorAll("ghostlight-narration")) {
    if (el.shadowRoot) out.push(el.shadowRoot.textContent);
  }
  if (window.find("Secret")) out.push(String(getSelection()));
  getSelection().selectAllChildren(document.documentElement);
  out.push(String(getSelection()));
  return [grabbed.length, out.join("|")];
};
</script>"""
# Rules of the page's own for the caption's element: what they may not reach.
PAGES["/narrate/restyle"] = f"""<!doctype html><title>Restyle</title><style>
ghostlight-narration::after {{ content: "{FAKE}" !important; display: block !important; }}
ghostlight-narration::first-letter {{ font-size: 120px !important; }}
ghostlight-narration::first-line {{ color: transparent !important; }}
</style><body><p>Checkout</p>"""
# A zoom on the root shrinks every box of the page, the caption's too, past reading.
PAGES["/narrate/zoom"] = "<!doctype html><title>Zoom</title><style>html { zoom: 0.1 }</style><p>x</p>"
GROUP_TITLES = "chrome.tabGroups.query({}).then((groups) => groups.map((group) => group.title))"


async def _titles_become(profile: Any, expected: list[str]) -> list[str]:
    """The tab groups' titles once they are ``expected`` (or as they are after 8 s)."""
    with trio.move_on_after(8):
        while (titles := await in_extension_worker(profile, GROUP_TITLES)) != expected:  # noqa: ASYNC110 - the browser's state
            await trio.sleep(0.2)
    return titles


CAPTIONS = "document.querySelectorAll('ghostlight-narration').length"
EDGE = (
    "(() => { const r = document.querySelector('ghostlight-narration').getBoundingClientRect();"
    " return [r.top === 0, Math.round(r.bottom) === innerHeight]; })()"
)


async def test_a_caption_is_shown_replaced_and_removed_on_time(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/")
    first = await service.call("narrate", ws, tabId=tab, text="Reading the page", duration_ms=5000)
    assert first.kind == "ok", text(first)
    assert text(first) == (
        "Narration shown at bottom for 5000ms; the page left it intact for the 1000 ms it was"
        " watched. Its words are in the tab group's title too, where pages cannot reach."
    )
    assert first.structured == {
        "shown": True, "position": "bottom", "duration_ms": 5000, "replaced": False,
        "removed": 0, "covered": 0, "watched_ms": 1000, "in_tab_group": True,
    }  # fmt: skip
    assert await page_value(service, ws, tab, CAPTIONS) == 1
    assert await page_value(service, ws, tab, EDGE) == [False, True]
    # The page's own scripts cannot read the words; the reading tools do not see them.
    assert await page_value(service, ws, tab, "document.querySelector('ghostlight-narration').shadowRoot") is None
    read = await service.call("get_page_text", ws, tabId=tab)
    assert "Reading the page" not in text(read)
    found = await service.call("find", ws, tabId=tab, query="Reading the page")
    assert "Reading the page" not in str(found.structured["results"])

    second = await service.call(
        "narrate", ws, tabId=tab, text="Now clicking next", position="top", duration_ms=1000
    )
    assert second.structured["replaced"] is True and second.structured["position"] == "top"
    assert await page_value(service, ws, tab, CAPTIONS) == 1
    assert await page_value(service, ws, tab, EDGE) == [True, False]
    with trio.move_on_after(4):  # gone after its 1000 ms, late timers allowed; the default is 5 s
        while await page_value(service, ws, tab, CAPTIONS) != 0:  # noqa: ASYNC110 - the page's state
            await trio.sleep(0.1)
    assert await page_value(service, ws, tab, CAPTIONS) == 0


async def test_where_it_cannot_be_drawn_the_answer_says_so_and_why(
    extended_service: Service, extended_browser: Any
) -> None:
    service = extended_service
    created = await service.call("tabs_create_mcp")  # a new tab shows about:blank
    ws, tab = created.workspace_id, created.structured["tabId"]
    outcome = await service.call("narrate", ws, tabId=tab, text="Starting")
    assert text(outcome).startswith("Narration not shown: ")
    assert outcome.structured["shown"] is False and outcome.structured["reason"]
    # The browser's own UI still carries it.
    assert outcome.structured["in_tab_group"] is True
    assert text(outcome).endswith(" Its words are in the tab group's title instead.")


async def test_blank_text_is_a_tool_error_and_nothing_is_drawn(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/")
    outcome = await service.call("narrate", ws, tabId=tab, text="   ")
    assert outcome.kind == "tool_error", text(outcome)
    assert text(outcome) == "narrate needs some text to show; nothing was shown."
    assert await page_value(service, ws, tab, CAPTIONS) == 0


async def test_a_page_rule_cannot_hide_the_caption(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/")
    hide = (
        "const s = document.createElement('style');"
        " s.textContent = 'ghostlight-narration { display: none !important; opacity: 0 !important }';"
        " document.head.appendChild(s); 1"
    )
    await page_value(service, ws, tab, hide)
    shown = await service.call("narrate", ws, tabId=tab, text="Still here")
    assert shown.structured["shown"] is True, text(shown)
    drawn = "getComputedStyle(document.querySelector('ghostlight-narration')).display"
    assert await page_value(service, ws, tab, drawn) == "flex"


async def test_a_page_that_takes_the_caption_out_and_paints_its_own_gets_it_reported(
    extended_service: Service, web: str
) -> None:
    service = extended_service
    async with launched_for(service, *DEVTOOLS_FLAGS) as launched:
        ws, tab = await open_page(service, f"{web}/narrate/remover")
        [own] = await in_extension_worker(launched.profile, GROUP_TITLES)
        outcome = await service.call(
            "narrate", ws, tabId=tab, text="Reading the receipt", duration_ms=4000
        )
        assert outcome.kind == "ok", text(outcome)
        assert outcome.structured["shown"] is False, text(outcome)
        assert outcome.structured["removed"] > 0 and outcome.structured["in_tab_group"] is True
        assert text(outcome).startswith("Narration not shown intact: in its first ")
        assert "the page took it out " in text(outcome)
        # The tab strip shows the true words, whatever the page paints.
        titles = await in_extension_worker(launched.profile, GROUP_TITLES)
        assert titles == [f"{own}: Reading the receipt"]
        # Putting it back never held the page up, and the group gets its own title back.
        assert await page_value(service, ws, tab, "document.title") == "Remover"
        assert await _titles_become(launched.profile, [own]) == [own]


@pytest.mark.parametrize("cover", ["popover", "dialog"])
async def test_a_page_that_covers_the_caption_from_the_top_layer_gets_it_reported(
    extended_service: Service, web: str, cover: str
) -> None:
    service = extended_service
    async with launched_for(service, *DEVTOOLS_FLAGS) as launched:
        ws, tab = await open_page(service, f"{web}/narrate/cover/{cover}")
        [own] = await in_extension_worker(launched.profile, GROUP_TITLES)
        outcome = await service.call("narrate", ws, tabId=tab, text="Reading the receipt")
        assert outcome.kind == "ok", text(outcome)
        assert outcome.structured["shown"] is False, text(outcome)
        assert outcome.structured["covered"] > 0
        assert "the page hid it or drew over it " in text(outcome)
        titles = await in_extension_worker(launched.profile, GROUP_TITLES)
        assert titles == [f"{own}: Reading the receipt"]


async def _narrated_on(service: Service, url: str, words: str) -> tuple[str, int, Any]:
    """A new tab on ``url``, and narrate's outcome there for ``words``."""
    ws, tab = await open_page(service, url)
    return ws, tab, await service.call("narrate", ws, tabId=tab, text=words)


async def _shown_on(service: Service, url: str, words: str) -> tuple[str, int]:
    """A new tab on ``url`` where narrate shows ``words`` intact."""
    ws, tab, shown = await _narrated_on(service, url, words)
    assert shown.structured["shown"] is True, text(shown)
    return ws, tab


async def test_the_page_cannot_read_the_caption_words_even_with_its_own_element_class(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    ws, tab = await _shown_on(extended_service, f"{web}/narrate/reader", "Secret words 4711")
    grabbed, read = await page_value(extended_service, ws, tab, "readCaption()")
    assert grabbed == 1  # the page's class did take the caption's element
    assert "Secret" not in read and "4711" not in read


async def test_the_page_rules_for_the_caption_element_reach_neither_its_words_nor_its_box(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    ws, tab = await _shown_on(extended_service, f"{web}/narrate/restyle", "Checking the total")
    drawn = (
        "(() => { const el = document.querySelector('ghostlight-narration');"
        " return [getComputedStyle(el, '::after').content, el.getBoundingClientRect().height]; })()"
    )
    after, height = await page_value(extended_service, ws, tab, drawn)
    assert after == "none" and height < 60  # one line of 14 px text, not a 120 px letter


async def test_a_caption_the_page_shrinks_past_reading_is_not_reported_shown(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    _, _, outcome = await _narrated_on(extended_service, f"{web}/narrate/zoom", "Checking it")
    assert outcome.structured["shown"] is False, text(outcome)
    assert outcome.structured["covered"] > 0
