"""form_fill in real headless Chromium: fields matched by what the page calls them, filled the
way form_input fills them, submitted with a real click. Every value is read back through the
test's own CDP requests."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import PAGES, Service, open_page, page_value, text

pytestmark = pytest.mark.e2e

FORM_PAGES = {
    "/fill/signup": """<!doctype html><title>Sign up</title>
<form id="search" onsubmit="window.searched=(window.searched||0)+1; return false">
<input name="q" placeholder="Search the site"><button>Search</button></form>
<form id="signup" onsubmit="event.preventDefault(); window.submitted=(window.submitted||0)+1">
<label>Email address <input id="email" type="email"></label>
<label>Password <input id="pw" type="password"></label>
<label><input id="news" type="checkbox"> Newsletter</label>
<fieldset><legend>Plan</legend>
<label><input type="radio" name="plan" value="basic" checked> Basic</label>
<label><input id="pro" type="radio" name="plan" value="pro"> Pro</label></fieldset>
<label>Country <select id="country"><option value="fr">France</option>
<option value="jp">Japan</option></select></label>
<label>Phone (home) <input id="home"></label> <label>Phone (work) <input id="work"></label>
<button type="button" onclick="window.helped=true">Help</button>
<button type="submit">Create account</button>
</form>""",
}
FORM_PAGES["/fill/components"] = """<!doctype html><title>Components</title>
<script>
customElements.define("text-field", class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({mode: "open"});
    root.innerHTML = '<input part="box">';
  }
});
</script>
<form id="profile" onsubmit="event.preventDefault(); window.saved=(window.saved||0)+1">
<label>Display name <text-field id="display"></text-field></label>
<text-field id="city" aria-label="Home city"></text-field>
<button type="submit">Save</button>
</form>
<iframe id="billing" srcdoc='<form onsubmit="event.preventDefault(); parent.paid=(parent.paid||0)+1">
<label>Card holder <input id="holder"></label><button>Pay</button></form>'></iframe>"""
FORM_PAGES["/fill/checks"] = """<!doctype html><title>Contact</title>
<form id="contact" onsubmit="event.preventDefault(); window.sent=(window.sent||0)+1;
 window.body=[...new FormData(this).keys()]">
<label>Name <input id="name"></label>
<label>Phone <input id="phone" required></label>
<label>Birthday <input id="bday" type="date"></label>
<label>Volume <input id="vol" type="range" min="0" max="10"></label>
<label>Zip <input id="zip" maxlength="5"></label>
<label>Notes <textarea id="notes"></textarea></label>
<label>Size <select id="size" name="size"><option value="s">Small</option>
<option value="m" disabled>Medium</option><option value="l">Large</option></select></label>
<label>Toppings <select id="tops" name="tops" multiple><option>Cheese</option>
<option>Olives</option><option>Ham</option></select></label>
<button>Send</button></form>
<div id="bio" contenteditable="true" role="textbox" aria-label="Bio"
 oninput="if (this.textContent.length > 5) this.textContent = this.textContent.slice(0, 5)"></div>"""
# An editor that keeps its own model, as Lexical or Slate do: it takes every edit through
# beforeinput, cancels the browser's own, and renders its model back a moment later.
FORM_PAGES["/fill/editor"] = """<!doctype html><title>Editor</title>
<div id="md" contenteditable="true" aria-label="Markdown"></div>
<div id="plainnotes" contenteditable="true" aria-label="Plain notes"></div>
<script>
window.model = "";
md.addEventListener('beforeinput', (e) => {
  e.preventDefault();
  const all = getSelection().toString() === md.textContent;
  if (e.inputType === 'insertText') model = (all ? '' : model) + e.data;
  else if (e.inputType.startsWith('delete')) model = all ? '' : model.slice(0, -1);
  queueMicrotask(() => { md.textContent = model; });
});
</script>"""
# Controls whose page keeps its own state: a box whose click is prevented, one a component
# renders back in a microtask, and a list its change handler sets back.
FORM_PAGES["/fill/kept"] = """<!doctype html><title>Kept</title>
<form id="prefs" onsubmit="event.preventDefault()">
<label><input id="terms" type="checkbox" onclick="event.preventDefault()"> Terms</label>
<label><input id="alerts" type="checkbox" checked
 onchange="queueMicrotask(() => { this.checked = true; })"> Alerts</label>
<label>Region <select id="region" onchange="if (this.value === 'mars') this.value = 'eu'">
<option value="eu">Europe</option><option value="mars">Mars</option></select></label>
<label>Nickname <input id="nick"></label>
<button>Save</button></form>"""
# Styled boxes a person clicks through their labels: the real inputs are hidden (no size, or
# display:none with a <label for> as the control), and radio groups named only by a legend.
FORM_PAGES["/fill/styled"] = """<!doctype html><title>Order</title>
<style>.sr{position:absolute;opacity:0;width:0;height:0;margin:0}
.box{display:inline-block;width:14px;height:14px;border:1px solid #333}</style>
<form id="order" onsubmit="event.preventDefault()">
<label><input id="terms" type="checkbox" class="sr"><span class="box"></span> I accept the terms</label>
<input id="gift" type="checkbox" hidden>
<label for="gift" onclick="window.labelClicks=(window.labelClicks||0)+1">Gift wrap</label>
<fieldset><legend>Delivery</legend>
<label><input id="std" type="radio" name="d" value="std"> Standard</label>
<label><input id="exp" type="radio" name="d" value="exp"> Express</label></fieldset>
<fieldset><legend>Payment</legend>
<input id="card" type="radio" name="pay" value="card" hidden><label for="card">Card</label>
<input id="cash" type="radio" name="pay" value="cash" hidden><label for="cash">Cash</label></fieldset>
<button>Order</button></form>"""
# Forms whose submit the page stops, or lets go: a submit handler's own check, a click handler
# that prevents the submit, a form the browser sends into a frame, and one that navigates.
FORM_PAGES["/fill/submits"] = """<!doctype html><title>Submits</title>
<p id="note" role="alert"></p>
<form id="terms" action="/second" onsubmit="if (!agree.checked) {
 note.textContent = 'Please accept the terms'; return false; }">
<label>Full name <input id="fullname" name="fullname"></label>
<label><input id="agree" type="checkbox" name="agree"> I agree</label>
<button>Send</button></form>
<form id="check" action="/second">
<label>Code <input id="code" name="code"></label>
<button onclick="event.preventDefault(); note.textContent = 'Wrong code'">Verify</button></form>
<form id="ask" action="/second" target="sink">
<label>Topic <input id="topic" name="topic"></label><button>Ask</button></form>
<iframe name="sink"></iframe>"""
FORM_PAGES["/fill/typing"] = """<!doctype html><title>Typing</title>
<label>First <input id="first"></label><label>Second <input id="second"></label>"""
PAGES.update(FORM_PAGES)




async def _ref_of(service: Service, ws: str, tab: int, name: str) -> str:
    """The ref of find's best match for ``name``."""
    found = await service.call("find", ws, tabId=tab, query=name)
    return str(found.structured["results"][0]["ref"])


async def test_fields_are_found_by_their_labels_filled_and_the_form_submitted(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/fill/signup")
    fields = {
        "email": "ada@example.com",
        "password": "s3cret-value",
        "newsletter": True,
        "plan": "pro",
        "country": "Japan",
    }
    outcome = await service.call("form_fill", ws, tabId=tab, fields=fields, submit=True)
    assert outcome.kind == "ok", text(outcome)
    read = "[email.value, pw.value, news.checked, pro.checked, country.value, window.submitted]"
    assert await page_value(service, ws, tab, read) == [
        "ada@example.com", "s3cret-value", True, True, "jp", 1
    ]
    assert await page_value(service, ws, tab, "[window.searched, window.helped]") == [None, None]
    structured = outcome.structured
    assert structured["submitted"] is True and structured["unmatched"] == []
    by_label = {item["label"]: item for item in structured["filled"]}
    assert by_label["Password"]["value"] == "********"
    assert "s3cret" not in text(outcome)
    assert by_label["Email address"]["value"] == "ada@example.com"
    assert text(outcome).startswith("Filled 5/5 fields. submitted: true.")
    # What the page showed after the submit is fenced once, with the rest of the details.
    assert text(outcome).count("--- GHOSTLIGHT PAGE CONTENT") == 1, text(outcome)
    assert structured["observation"].startswith(f"clicked {structured['submit_ref']}; then ")


async def test_a_key_two_fields_fit_equally_is_left_unmatched_and_nothing_is_guessed(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/fill/signup")
    outcome = await service.call("form_fill", ws, tabId=tab, fields={"phone": "555"})
    assert outcome.kind == "tool_error"
    [unmatched] = outcome.structured["unmatched"]
    assert unmatched["key"] == "phone"
    assert unmatched["candidates"] == ["Phone (home)", "Phone (work)"]
    assert await page_value(service, ws, tab, "[home.value, work.value]") == ["", ""]
    exact = await service.call("form_fill", ws, tabId=tab, fields={"phone work": "555"})
    assert exact.kind == "ok", text(exact)
    assert await page_value(service, ws, tab, "[home.value, work.value]") == ["", "555"]


async def test_the_form_the_keys_name_best_is_the_one_filled(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/fill/signup")
    outcome = await service.call("form_fill", ws, tabId=tab, fields={"search": "lanterns"}, submit=True)
    assert outcome.kind == "ok", text(outcome)
    assert await page_value(service, ws, tab, "[document.querySelector('[name=q]').value, window.searched, window.submitted]") == [
        "lanterns", 1, None
    ]


async def test_fields_inside_web_components_and_same_origin_frames_are_filled(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/fill/components")
    await page_value(service, ws, tab, "new Promise(r => billing.contentDocument.readyState === 'complete' ? r() : billing.onload = r)")
    shadow = "[display.shadowRoot.querySelector('input').value, city.shadowRoot.querySelector('input').value, window.saved]"
    outcome = await service.call(
        "form_fill", ws, tabId=tab, fields={"display name": "Ada", "home city": "Paris"}, submit=True
    )
    assert outcome.kind == "ok", text(outcome)
    assert await page_value(service, ws, tab, shadow) == ["Ada", "Paris", 1]

    paid = await service.call("form_fill", ws, tabId=tab, fields={"card holder": "A. Lovelace"}, submit=True)
    assert paid.kind == "ok", text(paid)
    holder = "[billing.contentDocument.getElementById('holder').value, window.paid]"
    assert await page_value(service, ws, tab, holder) == ["A. Lovelace", 1]


async def test_values_a_field_refuses_and_a_form_the_browser_would_refuse_are_said_not_hidden(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/fill/checks")
    fields = {"name": "Ada", "birthday": "2024-13-45", "volume": "50", "zip": "1234567890",
              "notes": "n" * 5000}  # fmt: skip
    outcome = await service.call("form_fill", ws, tabId=tab, fields=fields, submit=True)
    structured = outcome.structured
    by_label = {item["label"]: item for item in structured["filled"]}
    [birthday] = structured["skipped"]
    assert birthday["label"] == "Birthday" and "did not take '2024-13-45'" in birthday["reason"]
    assert (by_label["Volume"]["value"], by_label["Volume"]["asked"]) == ("10", "50")
    # Past maxlength: said, but the browser does not refuse it (only typing is held to it).
    assert "more than the field's limit of 5" in by_label["Zip"]["overLimit"]
    assert "invalid" not in by_label["Zip"]
    assert "a person could not have typed it all" in text(outcome)
    assert len(by_label["Notes"]["value"]) < 300  # a long value is not echoed back whole
    # The empty required Phone would block the submit: not clicked.
    assert structured["submitted"] is False
    assert "Not submitted: the browser would refuse the form (Phone: " in structured["observation"]
    assert "Zip" not in structured["observation"]
    assert await page_value(service, ws, tab, "[window.sent, bday.value, vol.value]") == [None, "", "10"]

    fixed = await service.call("form_fill", ws, tabId=tab, fields={"phone": "555"}, submit=True)
    assert fixed.kind == "ok" and fixed.structured["submitted"] is True, text(fixed)
    assert await page_value(service, ws, tab, "[window.sent, zip.value]") == [1, "1234567890"]

    # A disabled option is never chosen: the form would leave the field out while "Set" is said.
    disabled = await service.call("form_fill", ws, tabId=tab, fields={"size": "Medium"}, submit=True)
    assert disabled.structured["submitted"] is False, text(disabled)
    assert 'The option "Medium" is disabled' in text(disabled)
    assert await page_value(service, ws, tab, "[size.value, window.sent]") == ["s", 1]


async def test_form_input_says_what_the_field_holds_not_what_it_was_sent(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/fill/checks")

    birthday, volume, zip_code = [
        await _ref_of(service, ws, tab, name) for name in ("Birthday", "Volume", "Zip")
    ]
    refused = await service.call("form_input", ws, tabId=tab, ref=birthday, value="yesterday")
    assert refused.kind == "tool_error"
    assert text(refused).startswith(f'{birthday} did not take "yesterday": the field cannot hold')
    clamped = await service.call("form_input", ws, tabId=tab, ref=volume, value=50)
    assert clamped.kind == "ok" and text(clamped).startswith(
        f'Set {volume} = "10" (asked 50; the field changed it).'
    ), text(clamped)
    long = await service.call("form_input", ws, tabId=tab, ref=zip_code, value="1234567890")
    assert "would refuse" not in text(long)
    assert (
        "The value is longer than the field allows (10 characters, more than the field's limit"
        " of 5): a person could not have typed it all. The browser still sends the whole value"
    ) in text(long)
    size = await _ref_of(service, ws, tab, "Size")
    refused_option = await service.call("form_input", ws, tabId=tab, ref=size, value="Medium")
    assert refused_option.kind == "tool_error", text(refused_option)
    assert 'The option "Medium" is disabled' in text(refused_option)
    assert 'options that can be chosen: "Small", "Large"' in text(refused_option)
    assert await page_value(service, ws, tab, "[bday.value, vol.value]") == ["", "10"]
    # An editor that rewrites what it is given is read back like any field.
    bio = await _ref_of(service, ws, tab, "Bio")
    edited = await service.call("form_input", ws, tabId=tab, ref=bio, value="abcdefgh")
    assert edited.kind == "ok" and text(edited).startswith(f'Set {bio} = "abcde" (asked '), text(edited)
    assert "the field changed it" in text(edited)
    assert await page_value(service, ws, tab, "bio.textContent") == "abcde"


async def test_a_list_that_takes_several_options_is_set_to_all_of_them(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/fill/checks")
    found = await service.call("find", ws, tabId=tab, query="Toppings")
    tops = found.structured["results"][0]
    assert tops["role"] == "listbox", text(found)
    chosen = "[...tops.selectedOptions].map(o => o.text)"
    both = await service.call("form_input", ws, tabId=tab, ref=tops["ref"], value="Cheese, olives")
    assert both.kind == "ok", text(both)
    assert await page_value(service, ws, tab, chosen) == ["Cheese", "Olives"]
    unknown = await service.call("form_input", ws, tabId=tab, ref=tops["ref"], value="Cheese, Tuna")
    assert unknown.kind == "tool_error" and 'No option matching "Tuna"' in text(unknown)
    assert await page_value(service, ws, tab, chosen) == ["Cheese", "Olives"]  # left as it was
    filled = await service.call("form_fill", ws, tabId=tab, fields={"toppings": "Ham"})
    assert filled.kind == "ok", text(filled)
    assert await page_value(service, ws, tab, chosen) == ["Ham"]


async def test_a_rich_editor_that_keeps_its_own_model_takes_the_value_through_its_events(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/fill/editor")
    found = await service.call("find", ws, tabId=tab, query="Markdown")
    editor = found.structured["results"][0]
    assert editor["role"] == "textbox", text(found)  # an editable root, as the browser has it
    assert "set_value" in editor["mechanicalActions"]
    done = await service.call("form_input", ws, tabId=tab, ref=editor["ref"], value="# Title")
    assert done.kind == "ok" and text(done).startswith(f'Set {editor["ref"]} = "# Title".'), text(done)
    assert await page_value(service, ws, tab, "[window.model, md.textContent]") == ["# Title", "# Title"]
    again = await service.call(
        "act_on", ws, tabId=tab, target={"name": "Markdown"}, action="set_value", value="Body"
    )
    assert again.kind == "ok", text(again)
    assert await page_value(service, ws, tab, "[window.model, md.textContent]") == ["Body", "Body"]
    # Lines are read back as a person sees them: two lines are what was asked for.
    notes = (await service.call("find", ws, tabId=tab, query="Plain notes")).structured["results"][0]
    lines = await service.call("form_input", ws, tabId=tab, ref=notes["ref"], value="line one\nline two")
    assert lines.kind == "ok" and "changed it" not in text(lines), text(lines)
    assert await page_value(service, ws, tab, "plainnotes.innerText") == "line one\nline two"


async def test_a_box_or_list_the_page_keeps_as_it_was_is_never_reported_set(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/fill/kept")

    for name, value, held in [("Terms", True, "still unchecked"), ("Alerts", False, "still checked")]:
        ref = await _ref_of(service, ws, tab, name)
        kept = await service.call("form_input", ws, tabId=tab, ref=ref, value=value)
        assert kept.kind == "tool_error", text(kept)
        assert f"clicked and is {held}: the page's own script prevented the change" in text(kept)
    ref = await _ref_of(service, ws, tab, "Region")
    region = await service.call("form_input", ws, tabId=tab, ref=ref, value="Mars")
    assert region.kind == "tool_error", text(region)
    assert 'set to "Mars" and shows "Europe"' in text(region)

    fields = {"Terms": True, "Alerts": False, "Region": "Mars", "Nickname": "ada"}
    filled = await service.call("form_fill", ws, tabId=tab, fields=fields)
    assert filled.kind == "ok", text(filled)
    assert [item["label"] for item in filled.structured["filled"]] == ["Nickname"]
    skipped = {item["label"]: item["reason"] for item in filled.structured["skipped"]}
    assert set(skipped) == {"Terms", "Alerts", "Region"}, skipped
    assert "still unchecked" in skipped["Terms"] and "shows" in skipped["Region"]
    read = "[terms.checked, alerts.checked, region.value, nick.value]"
    assert await page_value(service, ws, tab, read) == [False, True, "eu", "ada"]


async def test_styled_boxes_and_radio_groups_named_by_a_legend_are_filled_through_their_labels(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/fill/styled")
    fields = {"I accept the terms": True, "Gift wrap": True, "Delivery": "Standard", "Payment": "Cash"}
    outcome = await service.call("form_fill", ws, tabId=tab, fields=fields)
    assert outcome.kind == "ok", text(outcome)
    structured = outcome.structured
    assert structured["unmatched"] == [] and structured["skipped"] == [], text(outcome)
    labels = [item["label"] for item in structured["filled"]]
    assert labels == ["I accept the terms", "Gift wrap", "Delivery", "Payment"], labels
    read = "[terms.checked, gift.checked, std.checked, cash.checked, window.labelClicks]"
    # The hidden box was checked by clicking its label, whose own handler saw the click.
    assert await page_value(service, ws, tab, read) == [True, True, True, True, 1]


async def test_a_submit_says_whether_the_browser_sent_the_form_or_the_page_stopped_it(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/fill/submits")

    async def submit(fields: dict[str, Any]) -> Any:
        outcome = await service.call("form_fill", ws, tabId=tab, fields=fields, submit=True)
        assert outcome.kind == "ok", text(outcome)
        # The click went out: the page's script may have sent the data itself, so the form is
        # never said not sent (that would invite a second submission).
        assert outcome.structured["submitted"] is True, text(outcome)
        return outcome

    refused = await submit({"full name": "Ada"})
    assert refused.structured["submission"] == "cancelled_by_page", text(refused)
    assert "the page's own script cancelled the browser's sending" in text(refused)
    assert "either sends the form itself or its own check refused it" in text(refused)
    assert 'status: "Please accept the terms"' in refused.structured["observation"]

    stopped = await submit({"code": "123"})
    assert stopped.structured["submission"] == "no_submit_event", text(stopped)
    assert "No submit event went out: the browser did not submit the form" in text(stopped)

    asked = await submit({"topic": "lanterns"})
    assert asked.structured["submission"] == "sent", text(asked)
    assert await page_value(service, ws, tab, "location.pathname") == "/fill/submits"

    agreed = await submit({"full name": "Ada", "I agree": True})
    # Loaded by the time the click's receipt settles, or on its way if the machine is slow.
    assert agreed.structured["submission"] in ("navigated", "navigating"), text(agreed)
    assert "the form was sent" in text(agreed)


async def test_a_tab_typed_moves_to_the_next_field_as_the_tab_key_does(
    extended_service: Service, extended_browser: Any, web: str
) -> None:
    service = extended_service
    ws, tab = await open_page(service, f"{web}/fill/typing")
    first = await _ref_of(service, ws, tab, "First")
    clicked = await service.call("computer", ws, tabId=tab, action="left_click", ref=first)
    assert clicked.kind == "ok", text(clicked)
    typed = await service.call("computer", ws, tabId=tab, action="type", text="a\tb")
    assert typed.kind == "ok", text(typed)
    assert await page_value(service, ws, tab, "[first.value, second.value]") == ["a", "b"]
