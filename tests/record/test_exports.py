"""The two exports of a recording. Page-chosen names are data in both: a hostile accessible name
can neither end a TypeScript string literal nor become a reference or a step of the script; a
withheld password appears in neither, only its placeholder does."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ghostlight_trio.tools.record_actions.locator import Locator
from ghostlight_trio.tools.record_actions.playwright_export import keys_of, literal, playwright_of
from ghostlight_trio.tools.record_actions.script_export import script_of, secrets_of
from ghostlight_trio.tools.record_actions.steps import RecordedStep, Shown, step_of

HOSTILE = [
    "Buy\"); await page.evaluate(\"steal()\"); (\"",
    "it's `${process.exit(1)}` */ // \\",
    "line\nbreak\u2028sep\u2029end </script>",
    "$1.results.0.ref",
    "$prev",
    "{{secret:PASSWORD}}",
]


def _flow(name: str) -> list[RecordedStep]:
    button = Locator(role="button", name=name)
    password = Locator(role="textbox", name="Password", label="Password", type="password", secret=True)
    typed = step_of("computer", {"action": "type", "text": "hunter2-secret"}, password, None)
    assert typed is not None
    return [
        RecordedStep("goto", value="http://127.0.0.1:1/form", after=Shown("http://127.0.0.1:1/form", name)),
        RecordedStep("fill", Locator(label="Name", tag="input"), value=name),
        typed,
        RecordedStep("click", button, after=Shown("http://127.0.0.1:1/done", "Done", "heading", name)),
    ]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_name_stays_one_string_literal(name: str) -> None:
    source, warnings = playwright_of(_flow(name))
    assert not warnings
    body = [line.strip() for line in source.splitlines()[3:-2]]
    # One statement a line, each a call on page or an expect: nothing the name could add.
    assert all(re.fullmatch(r"await (page|expect\(page).*\);", line) for line in body), source
    assert source.count(literal(name)) == 4  # the first title, the fill, the click, the heading
    for line in body:
        for found in re.findall(r'"(?:[^"\\]|\\.)*"', line):
            assert json.loads(found) in {name, "http://127.0.0.1:1/form", "http://127.0.0.1:1/done",
                                         "Name", "Password", "Done", "GHOSTLIGHT_SECRET_PASSWORD", "textbox", "button"}  # fmt: skip


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_generated_file_parses_as_a_module(tmp_path: Path) -> None:
    """The file is plain JavaScript too (no type annotations): node parses it whole."""
    source, _ = playwright_of([step for name in HOSTILE for step in _flow(name)])
    module = tmp_path / "flow.mjs"
    module.write_text(source, "utf-8")
    subprocess.run(["node", "--check", str(module)], check=True, capture_output=True, timeout=60)


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_name_adds_no_step_and_no_reference(name: str) -> None:
    steps, warnings = script_of(_flow(name))
    assert not warnings
    assert [(s["tool"], s["args"].get("action")) for s in steps] == [
        ("navigate", None), ("act_on", "set_value"), ("act_on", "set_value"), ("act_on", "left_click"),
    ]  # fmt: skip
    click = steps[3]["args"]["target"]
    assert click["role"] == "button"
    # A script reads "$..." as a reference to an earlier result; "$$" is its literal "$".
    assert click["name"] == ("$" + name if name.startswith("$") else name)
    assert steps[1]["args"]["value"] == click["name"]


def test_a_password_is_in_neither_export() -> None:
    steps = _flow("Sign in")
    source, _ = playwright_of(steps)
    script, _ = script_of(steps)
    assert "hunter2" not in source and "hunter2" not in json.dumps(script)
    assert 'process.env["GHOSTLIGHT_SECRET_PASSWORD"]' in source
    assert script[2]["args"]["value"] == "{{secret:PASSWORD}}"
    assert secrets_of(steps) == ["PASSWORD"]


def test_assertions_follow_what_changed() -> None:
    source, _ = playwright_of(_flow("Sign in"))
    assert 'await expect(page).toHaveURL("http://127.0.0.1:1/done");' in source
    assert 'await expect(page).toHaveTitle("Done");' in source
    assert "getByRole('heading', { name: \"Sign in\", exact: true }).first()).toBeVisible();" in source
    assert source.count("toHaveURL") == 2


def test_targets_without_a_name_are_said_not_guessed() -> None:
    bare = RecordedStep("click", Locator(css="div > span:nth-of-type(2)"))
    nothing = RecordedStep("click", None)
    steps, warnings = script_of([bare, nothing, RecordedStep("upload", Locator(label="CV"), value="cv.pdf")])
    assert steps == [] and len(warnings) == 3
    source, left = playwright_of([bare, nothing])
    assert 'page.locator("div > span:nth-of-type(2)").click()' in source and len(left) == 1


def test_keys_in_playwright_words() -> None:
    assert keys_of("ctrl+a Return") == ["Control+a", "Enter"]
    assert keys_of("shift+Tab esc") == ["Shift+Tab", "Escape"]


def test_a_click_that_only_focused_a_field_is_left_to_the_typing() -> None:
    field, other = Locator(label="Name", tag="input"), Locator(role="button", name="Go")
    steps = [RecordedStep("click", field), RecordedStep("fill", field, value="Ada"),
             RecordedStep("click", other), RecordedStep("fill", field, value="Bo")]  # fmt: skip
    script, _ = script_of(steps)
    assert [s["args"]["action"] for s in script] == ["set_value", "left_click", "set_value"]


def test_a_dialog_is_answered_by_a_handler_set_before_the_step_that_opened_it() -> None:
    opener = RecordedStep("click", Locator(role="button", name="Delete"))
    source, _ = playwright_of([RecordedStep("goto", value="http://x.test/"), opener,
                               RecordedStep("dialog", value="yes", button="respond")])  # fmt: skip
    lines = [line.strip() for line in source.splitlines()]
    at = lines.index("page.once('dialog', (d) => d.accept(\"yes\"));")
    assert lines[at + 1] == 'await page.getByRole("button", { name: "Delete", exact: true }).click();'
    assert sum("dialog" in line for line in lines) == 1


def test_an_address_without_a_scheme_goes_where_it_landed() -> None:
    source, _ = playwright_of([RecordedStep("goto", value="example.test", after=Shown("https://example.test/"))])
    assert 'await page.goto("https://example.test/");' in source
    script, _ = script_of([RecordedStep("goto", value="example.test")])
    assert script == [{"tool": "navigate", "args": {"url": "example.test"}}]
