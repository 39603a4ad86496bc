"""act_on in real headless Chromium: one clear target or nothing is done. Every effect is read
back through the test's own CDP requests."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import PAGES, Service, open_page, page_value, text

pytestmark = pytest.mark.e2e

PAGES.update(
    {
        "/act": """<!doctype html><title>Act page</title>
<style>body{margin:0;font:16px sans-serif} button{margin:6px}
#veil{position:absolute;left:0;top:200px;width:400px;height:80px;background:#eee}
#under{position:absolute;left:20px;top:220px}</style>
<h2>Save your work</h2>
<button onclick="window.saves=(window.saves||0)+1; setTimeout(() => {
  const p = document.createElement('p'); p.textContent = 'Saved!'; document.body.append(p);
}, 300)">Save</button>
<button class="del" onclick="window.deletes=(window.deletes||0)+1">Delete</button>
<button class="del" onclick="window.deletes=(window.deletes||0)+1">Delete</button>
<label>Nickname <input id="nick"></label>
<button id="under" onclick="window.underClicks=(window.underClicks||0)+1">Hidden behind</button>
<div id="veil">a banner over the button</div>
<script>
window.added = [];
new MutationObserver((records) => records.forEach((r) => r.addedNodes.forEach((n) => added.push(n.nodeName))))
  .observe(document.documentElement, {childList: true});
</script>""",
    }
)


async def test_a_named_button_is_clicked_and_the_expected_text_waited_for(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/act")
    outcome = await service.call(
        "act_on", ws, tabId=tab, target={"name": "Save", "role": "button"}, action="left_click",
        expect={"text": "Saved!", "timeout_ms": 5000},
    )
    assert outcome.kind == "ok", text(outcome)
    assert await page_value(service, ws, tab, "window.saves") == 1
    receipt = outcome.structured["interactionReceipt"]
    assert receipt["targetAssurance"] == "semantic" and receipt["action"] == "left_click"
    assert receipt["observedAfter"]["expectMet"] is True
    assert receipt["target"]["name"] == "Save" and "Expectation met" in text(outcome)
    # The person watching saw the target outlined before the click.
    assert await page_value(service, ws, tab, "window.added.includes('GHOSTLIGHT-CUE')") is True


async def test_set_value_by_query_fills_the_field(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/act")
    outcome = await service.call(
        "act_on", ws, tabId=tab, target={"query": "Nickname"}, action="set_value", value="Ada"
    )
    assert outcome.kind == "ok", text(outcome)
    assert await page_value(service, ws, tab, "nick.value") == "Ada"


async def test_nothing_is_done_unless_the_target_is_one_clear_reachable_element(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/act")
    cases = [
        ({"query": "Delete"}, "ambiguous_target", 2),
        ({"name": "Hidden behind"}, "covered_target", 1),
        ({"name": "Publish"}, "target_missing", None),
        ({"ref": "ref_4242"}, None, None),
    ]
    for target, kind, candidates in cases:
        outcome = await service.call("act_on", ws, tabId=tab, target=target, action="left_click")
        assert outcome.kind == "tool_error", (target, text(outcome))
        assert text(outcome).startswith("interaction receipt: blocked before action: "), text(outcome)
        [blocker] = outcome.structured["interactionReceipt"]["blockers"]
        if kind is not None:
            assert blocker["kind"] == kind, (target, blocker)
        if candidates is not None:
            assert len(outcome.structured["candidates"]) == candidates
    done = "[window.deletes, window.underClicks, window.saves, window.added.length]"
    assert await page_value(service, ws, tab, done) == [None, None, None, 0]  # not even a cue
    # find says so too: the button is visible, and a click at its point lands on the banner.
    found = await service.call("find", ws, tabId=tab, query="Hidden behind")
    line = next((line for line in text(found).splitlines() if "Hidden behind" in line), text(found))
    assert "; covered by " in line and "(a click at its point lands there)" in line, line
    clear = await service.call("find", ws, tabId=tab, query="Save")
    assert "Save" in text(clear) and "covered by" not in text(clear), text(clear)


async def test_an_unparsable_expectation_is_refused_before_the_click_and_results_read_well(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/act")
    outcome = await service.call(
        "act_on", ws, tabId=tab, target={"name": "Save", "role": "BUTTON"}, action="left_click",
        expect={"selector": "##bad(("},
    )
    assert outcome.kind == "tool_error", text(outcome)
    assert text(outcome).startswith('expect selector "##bad((" is not a valid CSS selector')
    assert text(outcome).endswith("; nothing was done.")
    assert await page_value(service, ws, tab, "[window.saves, window.added.length]") == [None, 0]
    # The same call with a role in capitals and a selector that parses does click.
    outcome = await service.call(
        "act_on", ws, tabId=tab, target={"name": "Save", "role": "BUTTON"}, action="left_click",
        expect={"selector": "#nowhere", "state": "gone", "timeout_ms": 0},
    )
    assert outcome.kind == "ok", text(outcome)
    assert await page_value(service, ws, tab, "window.saves") == 1
    assert "Expectation met after " in text(outcome), text(outcome)
    outcome = await service.call(
        "act_on", ws, tabId=tab, target={"name": "Save", "role": "button"}, action="hover",
        expect={"selector": "h2", "state": "gone", "timeout_ms": 0},
    )
    assert outcome.kind == "ok", text(outcome)
    assert text(outcome).split("\n")[-1] == (
        'Expectation NOT met within 0 ms: expected that no element matching selector "h2" would'
        " be visible. Last observation: 1 matching element(s), 1 visible."
    )


async def test_a_click_a_cover_takes_at_the_instant_of_the_press_is_not_reported_as_done(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    """The button is clear when act_on finds it and checks it, and a dialog comes over it at
    the very instant of the press: the answer is an error that names the dialog inside the
    page fence, waits for no expectation, and never says the button was clicked."""
    service = extended_service
    ws, tab = await open_page(service, f"{web}/cover/press")
    by_name = await service.call(
        "act_on", ws, tabId=tab, target={"name": "Pay now", "role": "button"},
        action="left_click", expect={"text": "Paid", "timeout_ms": 3000},
    )  # fmt: skip
    said = text(by_name)
    assert by_name.kind == "tool_error", said
    assert said.startswith("act_on left_click on ref_") and "target found by name" in said, said
    assert "the press came up on another element" in said and "got no click" in said, said
    assert 'came up on dialog "Flash sale"' in said.split("---", 1)[1], said
    assert "The expectation was not waited for" in said and "Expectation met" not in said, said
    receipt = by_name.structured["interactionReceipt"]
    assert receipt["targetAssurance"] == "semantic" and receipt["target"]["name"] == "Pay now"
    assert receipt["observedAfter"]["pressedInstead"]["name"] == "Flash sale", receipt
    assert "wait" not in by_name.structured
    assert await page_value(service, ws, tab, "window.events") == []
    # By query, a double click whose second press the dialog takes whole.
    ws, tab = await open_page(service, f"{web}/cover/after", ws)
    by_query = await service.call(
        "act_on", ws, tabId=tab, target={"query": "Pay now"}, action="double_click"
    )
    said = text(by_query)
    assert by_query.kind == "tool_error", said
    assert 'the press landed on dialog "Flash sale"' in said.split("---", 1)[1], said
    assert await page_value(service, ws, tab, "window.events") == ["pay", "cover"]
