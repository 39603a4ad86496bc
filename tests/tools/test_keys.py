"""Key combos, modifiers and typing plans as CDP key events."""

from __future__ import annotations

import pytest

from ghostlight_trio.tools.keys import (
    CTRL,
    META,
    SHIFT,
    KeyComboError,
    combo_events,
    modifier_bits,
    parse_combo,
    parse_keys,
    type_steps,
)


def test_space_separated_combos_with_aliases() -> None:
    combos = parse_keys("ctrl+a Return shift+Tab Page_Down esc F5")
    assert [c.key.key for c in combos] == ["a", "Enter", "Tab", "PageDown", "Escape", "F5"]
    assert combos[0].bits == CTRL and combos[2].bits == SHIFT


def test_cmd_and_win_are_meta_and_plus_can_be_pressed() -> None:
    assert parse_combo("cmd+c").bits == META
    assert parse_combo("win+d").bits == META
    assert parse_combo("ctrl++").key.key == "+"
    assert parse_combo("+").key.key == "+"


def test_unknown_keys_and_modifiers_are_refused() -> None:
    with pytest.raises(KeyComboError):
        parse_keys("ctrl+nosuchkey")
    with pytest.raises(KeyComboError):
        parse_combo("a+b")
    with pytest.raises(KeyComboError):
        parse_keys("   ")
    with pytest.raises(KeyComboError):
        modifier_bits("ctrl+banana")
    assert modifier_bits("ctrl+shift") == CTRL | SHIFT
    assert modifier_bits(None) == 0


def test_reload_combos_are_recognised() -> None:
    assert parse_combo("ctrl+r").is_reload and parse_combo("cmd+shift+r").is_reload
    assert parse_combo("F5").is_reload and not parse_combo("r").is_reload


def test_a_chord_presses_modifiers_around_the_key_without_text() -> None:
    events = combo_events(parse_combo("ctrl+shift+a"))
    assert [(e["type"], e["key"], e["modifiers"]) for e in events] == [
        ("rawKeyDown", "Control", CTRL),
        ("rawKeyDown", "Shift", CTRL | SHIFT),
        ("rawKeyDown", "a", CTRL | SHIFT),
        ("keyUp", "a", CTRL | SHIFT),
        ("keyUp", "Shift", CTRL),
        ("keyUp", "Control", 0),
    ]
    assert all("text" not in e for e in events)


def test_enter_types_a_carriage_return() -> None:
    down, up = combo_events(parse_combo("Enter"))
    assert down["type"] == "keyDown" and down["text"] == "\r" and up["type"] == "keyUp"


def test_typing_plan_presses_mapped_characters_and_inserts_the_rest() -> None:
    steps = type_steps("Hé!\r\nok ✓✓")
    keys = [s.key.key if s.key else f"insert:{s.insert}" for s in steps]
    assert keys == ["H", "insert:é", "!", "Enter", "o", "k", " ", "insert:✓✓"]
    assert steps[0].key is not None and steps[0].key.shift
