"""Which name a recorded step finds its target by: role and accessible name first, then the
label, then visible text, a CSS path only as the last resort; a page's answer of another shape
gives no locator, and a secret field says only that it is one."""

from __future__ import annotations

from ghostlight_trio.tools.record_actions.locator import Locator, locator_of
from ghostlight_trio.tools.record_actions.steps import step_of


def test_role_and_name_come_first() -> None:
    found = locator_of({"role": "button", "name": "Place order", "text": "Place order", "css": "#go"})
    assert found is not None and found.by == "role"
    assert found.target() == {"name": "Place order", "role": "button"}


def test_then_label_then_text_then_css() -> None:
    labelled = locator_of({"role": "", "name": "", "label": "Email", "text": "", "css": "input"})
    assert labelled is not None and labelled.by == "label" and labelled.target() == {"name": "Email"}
    shown = locator_of({"role": "", "name": "", "text": "Read more", "css": "div > span"})
    assert shown is not None and shown.by == "text" and shown.target() == {"query": "Read more"}
    bare = locator_of({"role": "", "name": "", "css": "div:nth-of-type(3)"})
    assert bare is not None and bare.by == "css" and bare.target() is None


def test_a_role_no_replay_names_falls_back() -> None:
    found = locator_of({"role": "generic", "name": "Card", "text": "Card body"})
    assert found is not None and found.by == "text"


def test_nothing_usable_is_no_locator() -> None:
    assert locator_of(None) is None
    assert locator_of("button") is None
    assert locator_of({"role": "", "name": "", "css": ""}) is None


def test_names_are_collapsed_and_bounded() -> None:
    found = locator_of({"role": "link", "name": "  Next \n  page " + "x" * 500})
    assert found is not None and found.name.startswith("Next page x") and len(found.name) == 160


def test_frames_and_secret_are_kept() -> None:
    found = locator_of({"role": "textbox", "name": "Password", "type": "password", "secret": True,
                        "frames": ["#login"]})  # fmt: skip
    assert found is not None and found.secret and found.frames == ("#login",)


def test_a_click_on_a_checkbox_is_kept_as_the_state_it_left() -> None:
    box = Locator(role="checkbox", name="Gift wrap", type="checkbox", checked=False)
    step = step_of("computer", {"action": "left_click", "ref": "ref_3"}, box, None)
    assert step is not None and (step.kind, step.checked) == ("check", True)


def test_a_select_is_chosen_and_reads_are_no_steps() -> None:
    size = Locator(role="combobox", name="Size", label="Size", tag="select")
    step = step_of("form_input", {"ref": "ref_4", "value": "Medium"}, size, None)
    assert step is not None and (step.kind, step.value) == ("select", "Medium")
    assert step_of("computer", {"action": "screenshot"}, None, None) is None
    assert step_of("computer", {"action": "hover", "ref": "ref_1"}, size, None) is None
    assert step_of("dialog", {"action": "status"}, None, None) is None
    assert step_of("tab_control", {"action": "focus"}, None, None) is None


def test_typing_is_withheld_where_the_field_is_secret_or_unknown() -> None:
    secret = Locator(role="textbox", name="Password", label="Password", type="password", secret=True)
    typed = step_of("computer", {"action": "type", "text": "hunter2"}, secret, None)
    assert typed is not None and typed.secret == "PASSWORD" and typed.value == ""
    unknown = step_of("form_input", {"ref": "ref_9", "value": "hunter2"}, None, None)
    assert unknown is not None and unknown.secret == "SECRET" and unknown.value == ""
    plain = Locator(role="textbox", name="Name", label="Name")
    named = step_of("act_on", {"action": "set_value", "value": "Ada", "target": {"name": "Name"}}, plain, None)
    assert named is not None and (named.kind, named.value, named.secret) == ("fill", "Ada", "")


def test_form_fill_keeps_only_what_the_answer_showed_in_clear() -> None:
    arguments = {"fields": {"Email": "a@b.c", "Password": "hunter2", "Missing": "x"}, "submit": True}
    answered = {"filled": [{"label": "Email", "value": "a@b.c"}, {"label": "Password", "value": "********"}]}
    step = step_of("form_fill", arguments, None, answered)
    assert step is not None and step.submit
    assert step.fields == (("Email", "a@b.c", ""), ("Password", "", "PASSWORD"), ("Missing", "", "MISSING"))


def test_a_cut_text_is_matched_by_its_start() -> None:
    cut = Locator(text="Read the whole story about lanterns\u2026")
    assert cut.shown_text == ("Read the whole story about lanterns", False)
    assert cut.target() == {"query": "Read the whole story about lanterns"}
    assert Locator(text="Read more").shown_text == ("Read more", True)


def test_a_click_never_unchecks_a_radio_and_a_wheel_over_a_container_is_no_step() -> None:
    radio = Locator(role="radio", name="Express", checked=True)
    step = step_of("computer", {"action": "left_click", "ref": "ref_1"}, radio, None)
    assert step is not None and (step.kind, step.checked) == ("check", True)
    container = Locator(css="main > div", text="Lots of text")
    assert step_of("computer", {"action": "scroll", "coordinate": [1, 2]}, container, None) is None
    named = Locator(role="listbox", name="Results")
    scrolled = step_of("computer", {"action": "scroll", "coordinate": [1, 2]}, named, None)
    assert scrolled is not None and scrolled.kind == "scroll_to"
