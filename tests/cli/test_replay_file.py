"""What ``ghostlight replay`` reads: an exported script in any of the shapes an export gives it,
refused with a reason otherwise; each placeholder filled from ``--value`` only where a typed
value stands (never in a name the page chose), and a missing value refused before anything
starts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ghostlight_trio.cli.replay_file import ReplayFileError, fill, needed, parse_values, read_steps

STEPS = [
    {"tool": "navigate", "args": {"url": "http://127.0.0.1:1/login"}},
    {"tool": "act_on", "args": {"target": {"name": "{{secret:PASSWORD}}"}, "action": "left_click"}},
    {"tool": "act_on", "args": {"target": {"name": "Password"}, "action": "set_value", "value": "{{secret:PASSWORD}}"}},
    {"tool": "form_fill", "args": {"fields": {"PIN": "{{secret:PIN}}", "Name": "Ada"}}},
]


@pytest.mark.parametrize("shape", [{"steps": STEPS}, STEPS, {"format": "script", "steps": STEPS, "secrets": []}])
def test_every_export_shape_reads(tmp_path: Path, shape: object) -> None:
    path = tmp_path / "flow.json"
    path.write_text(json.dumps(shape))
    assert read_steps(path) == STEPS


@pytest.mark.parametrize("text", ["", "{}", '{"steps": []}', "[1]", '[{"tool": "x", "args": []}]'])
def test_anything_else_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "flow.json"
    path.write_text(text)
    with pytest.raises(ReplayFileError):
        read_steps(path)


def test_placeholders_are_filled_only_where_a_typed_value_stands() -> None:
    assert needed(STEPS) == ["PASSWORD", "PIN"]
    filled = fill(STEPS, parse_values(["password=s3cret", "PIN=1234"]))
    assert filled[1]["args"]["target"] == {"name": "{{secret:PASSWORD}}"}  # a page's name stays
    assert filled[2]["args"]["value"] == "s3cret"
    assert filled[3]["args"]["fields"] == {"PIN": "1234", "Name": "Ada"}
    assert STEPS[2]["args"]["value"] == "{{secret:PASSWORD}}"  # the file's steps are not changed


def test_a_missing_value_is_refused_with_the_flag_to_give() -> None:
    with pytest.raises(ReplayFileError, match=r"--value PIN=\.\.\."):
        fill(STEPS, {"PASSWORD": "x"})
    with pytest.raises(ReplayFileError):
        parse_values(["no-equals-sign"])
