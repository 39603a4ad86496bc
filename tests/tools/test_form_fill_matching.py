"""form_fill's matching rules, on field lists shaped as the page's ``form_fields`` gives them."""

from __future__ import annotations

from ghostlight_trio.tools.form_fill.matching import (
    EXACT,
    SUBSTRING,
    best_plan,
    pick_submit,
    plan_form,
)

from .fakes import handler


def field(ref: str, **facts: str) -> dict[str, str]:
    return {"ref": ref, "type": facts.pop("type", "text"), **facts}


def chosen(plan) -> dict[str, str]:
    return {match.key: match.control.ref for match in plan.matches}


def test_an_exact_name_beats_a_label_that_only_starts_with_the_key() -> None:
    fields = [field("ref_1", label="Email address"), field("ref_2", name="email")]
    plan = plan_form(0, fields, ["email"])
    assert chosen(plan) == {"email": "ref_2"} and plan.matches[0].tier == EXACT


def test_longer_keys_go_first_and_a_control_is_used_once() -> None:
    fields = [field("ref_1", label="First name"), field("ref_2", label="Last name")]
    plan = plan_form(0, fields, ["name", "last_name"])
    assert chosen(plan) == {"last_name": "ref_2", "name": "ref_1"}
    assert {m.key: m.tier for m in plan.matches}["name"] == SUBSTRING


def test_equal_best_fits_leave_the_key_unmatched_with_candidates() -> None:
    fields = [field("ref_1", label="Phone (home)"), field("ref_2", label="Phone (work)")]
    plan = plan_form(0, fields, ["phone"])
    assert plan.matches == ()
    assert plan.unmatched == (
        {"key": "phone", "candidates": ["Phone (home)", "Phone (work)"], "refs": ["ref_1", "ref_2"]},
    )


def test_an_unmatched_key_says_when_its_field_is_taken_or_sits_in_another_form() -> None:
    names = {"fields": [field("ref_1", label="First name"), field("ref_2", label="Email")]}
    plan = best_plan([names], ["first name", "first"])
    assert chosen(plan) == {"first name": "ref_1"}
    assert plan.unmatched == ({"key": "first", "candidates": [], "taken_by": "first name"},)
    search = {"fields": [field("ref_3", placeholder="Search")]}
    plan = best_plan([names, search], ["email", "search"])
    assert chosen(plan) == {"email": "ref_2"}
    assert plan.unmatched == ({"key": "search", "candidates": [], "elsewhere": "Search"},)


def test_radios_of_one_name_are_one_control_named_by_the_group() -> None:
    fields = [
        field("ref_1", type="radio", name="plan", value="basic", label="Basic"),
        field("ref_2", type="radio", name="plan", value="pro", label="Pro"),
        field("ref_3", label="Plan notes"),
    ]
    plan = plan_form(0, fields, ["plan"])
    [match] = plan.matches
    assert match.control.kind == "radio" and match.tier == EXACT
    assert [option["ref"] for option in match.control.options] == ["ref_1", "ref_2"]


def test_the_form_the_keys_name_best_wins_and_no_form_means_no_plan() -> None:
    login = {"fields": [field("ref_1", label="User"), field("ref_2", label="Password")]}
    search = {"fields": [field("ref_3", placeholder="Search")]}
    assert best_plan([search, login], ["user", "password"]).form == 1
    assert best_plan([search, login], ["search"]).form == 0
    assert best_plan([], ["x"]) is None


def test_the_submit_is_the_forms_own_native_one_named_like_a_submit() -> None:
    submits = [
        {"ref": "ref_1", "name": "Search", "native": True, "named": True},
        {"ref": "ref_2", "name": "Create account", "native": True, "named": False},
        {"ref": "ref_3", "name": "Save draft", "native": False, "named": True},
    ]
    assert pick_submit(submits)["ref"] == "ref_1"  # native and named like a submit
    assert pick_submit(submits[1:])["ref"] == "ref_2"
    assert pick_submit(submits[2:])["ref"] == "ref_3"
    assert pick_submit([]) is None


async def test_more_fields_than_a_call_takes_are_refused_before_the_page_is_read() -> None:
    from ghostlight_trio.tools.form_fill.tool import MAX_FIELDS

    from .fakes import tool_call

    class NoBrowser:
        async def request(self, *args: object, **kwargs: object) -> dict:
            raise AssertionError("nothing may reach the page")

    fill = handler("form_fill", NoBrowser())
    fields = {f"field {n}": "x" for n in range(MAX_FIELDS + 1)}
    result = await fill(tool_call("form_fill", fields=fields))
    assert result.kind == "tool_error" and "Nothing was filled" in result.content[0].text  # type: ignore[union-attr]


def test_keys_match_whole_words_never_a_piece_inside_a_word() -> None:
    fields = [field("ref_1", label="Your name"), field("ref_2", label="Message", type="textarea")]
    assert chosen(plan_form(0, fields, ["age"])) == {}
    assert chosen(plan_form(0, fields, ["e"])) == {}
    assert chosen(plan_form(0, [field("ref_3", placeholder="Search")], ["e", "arch"])) == {}
    # A key's last word may still be the start of a word, and spacing does not matter.
    phones = [field("ref_4", label="Telephone"), field("ref_5", id="firstName")]
    assert chosen(plan_form(0, phones, ["tel", "first name"])) == {"tel": "ref_4", "first name": "ref_5"}


def test_a_radio_group_is_named_by_the_legend_over_it() -> None:
    fields = [
        field("ref_1", type="radio", name="d", value="std", label="Standard", group="Delivery"),
        field("ref_2", type="radio", name="d", value="exp", label="Express", group="Delivery"),
        field("ref_3", label="Delivery notes"),
    ]
    plan = plan_form(0, fields, ["Delivery"])
    [match] = plan.matches
    assert match.control.kind == "radio" and match.tier == EXACT
    assert match.control.label == "Delivery"
    assert [option["ref"] for option in match.control.options] == ["ref_1", "ref_2"]
    # Its name attribute still names it.
    assert chosen(plan_form(0, fields, ["d"])) == {"d": "d"}


def test_what_followed_a_submit_click_is_named_from_the_receipt_and_the_watch() -> None:
    from ghostlight_trio.tools.form_fill.tool import SUBMISSIONS, submission_of

    assert submission_of({"newDocument": True}, {"known": False}) == "navigated"
    assert submission_of({"navigationPending": "http://x.test/done"}, None) == "navigating"
    sent = {"known": True, "submitEvent": True, "cancelled": False}
    assert submission_of({"mutations": 3}, sent) == "sent"
    cancelled = {"known": True, "submitEvent": True, "cancelled": True}
    assert submission_of({"mutations": 3}, cancelled) == "cancelled_by_page"
    assert submission_of({}, {"known": True, "submitEvent": False}) == "no_submit_event"
    assert submission_of({}, None) == "not_seen"
    assert submission_of({}, {"known": False}) == "not_seen"
    assert "either sends the form itself or its own check refused it" in SUBMISSIONS["cancelled_by_page"]
    assert "the browser did not submit the form" in SUBMISSIONS["no_submit_event"]
