"""Key combos, modifiers and typing plans as CDP key events."""

from __future__ import annotations

import pytest

from ghostlight_trio.tools.shared.keys import (
    ALT,
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
        ("rawKeyDown", "A", CTRL | SHIFT),
        ("keyUp", "A", CTRL | SHIFT),
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


MODIFIER_NAMES = ("Control", "Shift", "Alt", "Meta")


def press(text: str) -> list[dict[str, object]]:
    """Every CDP key event one ``computer key`` combo sends."""
    return combo_events(parse_combo(text))


def key_down(text: str) -> dict[str, object]:
    """The pressed key's own keyDown (after any modifiers went down)."""
    events = press(text)
    return next(e for e in events if e["type"] != "keyUp" and e["key"] not in MODIFIER_NAMES)


def typed(key: str, code: str, key_code: int, text: str, modifiers: int) -> dict[str, object]:
    """A keyDown that types ``text``."""
    return {
        "type": "keyDown",
        "key": key,
        "code": code,
        "windowsVirtualKeyCode": key_code,
        "nativeVirtualKeyCode": key_code,
        "modifiers": modifiers,
        "text": text,
        "unmodifiedText": text,
    }


def command(key: str, code: str, key_code: int, modifiers: int) -> dict[str, object]:
    """A rawKeyDown of a command chord (no text)."""
    return {
        "type": "rawKeyDown",
        "key": key,
        "code": code,
        "windowsVirtualKeyCode": key_code,
        "nativeVirtualKeyCode": key_code,
        "modifiers": modifiers,
    }


def test_shift_a_presses_shift_then_types_a_capital() -> None:
    shift_down, down, up, shift_up = press("shift+a")
    assert shift_down == command("Shift", "ShiftLeft", 16, SHIFT)
    assert down == typed("A", "KeyA", 65, "A", SHIFT)
    assert up == {**command("A", "KeyA", 65, SHIFT), "type": "keyUp"}
    assert shift_up == {**command("Shift", "ShiftLeft", 16, 0), "type": "keyUp"}


def test_shift_on_the_digit_row_types_its_symbols() -> None:
    assert key_down("shift+1") == typed("!", "Digit1", 49, "!", SHIFT)
    shifted = [key_down(f"shift+{digit}")["key"] for digit in "1234567890"]
    assert "".join(map(str, shifted)) == "!@#$%^&*()"


def test_shift_slash_types_a_question_mark() -> None:
    assert key_down("shift+slash") == typed("?", "Slash", 191, "?", SHIFT)
    assert key_down("shift+/") == typed("?", "Slash", 191, "?", SHIFT)


@pytest.mark.parametrize(
    ("plain", "shifted", "code", "key_code"),
    [
        ("-", "_", "Minus", 189),
        ("=", "+", "Equal", 187),
        ("[", "{", "BracketLeft", 219),
        ("]", "}", "BracketRight", 221),
        ("\\", "|", "Backslash", 220),
        (";", ":", "Semicolon", 186),
        ("'", '"', "Quote", 222),
        (",", "<", "Comma", 188),
        (".", ">", "Period", 190),
        ("/", "?", "Slash", 191),
        ("`", "~", "Backquote", 192),
        ("z", "Z", "KeyZ", 90),
    ],
)
def test_shift_on_punctuation_types_the_us_shifted_symbol(
    plain: str, shifted: str, code: str, key_code: int
) -> None:
    assert key_down(f"shift+{plain}") == typed(shifted, code, key_code, shifted, SHIFT)


def test_ctrl_with_a_capital_letter_is_ctrl_and_that_key_without_shift() -> None:
    assert [(e["type"], e["key"], e["modifiers"]) for e in press("ctrl+K")] == [
        ("rawKeyDown", "Control", CTRL),
        ("rawKeyDown", "k", CTRL),
        ("keyUp", "k", CTRL),
        ("keyUp", "Control", 0),
    ]
    assert key_down("ctrl+K") == command("k", "KeyK", 75, CTRL)
    assert key_down("alt+K") == command("k", "KeyK", 75, ALT)
    assert parse_combo("cmd+R").is_reload


def test_ctrl_shift_k_reports_the_shifted_key_without_text() -> None:
    assert key_down("ctrl+shift+k") == command("K", "KeyK", 75, CTRL | SHIFT)
    assert key_down("ctrl+shift+K") == command("K", "KeyK", 75, CTRL | SHIFT)


def test_a_capital_letter_alone_still_types_it_with_shift() -> None:
    assert press("K") == [
        typed("K", "KeyK", 75, "K", SHIFT),
        {**command("K", "KeyK", 75, SHIFT), "type": "keyUp"},
    ]


def test_xdotool_symbol_names_press_their_keys() -> None:
    assert key_down("slash") == typed("/", "Slash", 191, "/", 0)
    assert key_down("question") == typed("?", "Slash", 191, "?", SHIFT)
    assert key_down("braceleft") == typed("{", "BracketLeft", 219, "{", SHIFT)
    assert key_down("ctrl+slash") == command("/", "Slash", 191, CTRL)
    assert key_down("Slash") == key_down("slash")


@pytest.mark.parametrize(
    ("name", "char"),
    [
        ("backslash", "\\"),
        ("minus", "-"),
        ("equal", "="),
        ("plus", "+"),
        ("comma", ","),
        ("period", "."),
        ("semicolon", ";"),
        ("apostrophe", "'"),
        ("quotedbl", '"'),
        ("grave", "`"),
        ("bracketleft", "["),
        ("bracketright", "]"),
        ("braceright", "}"),
        ("exclam", "!"),
        ("at", "@"),
        ("numbersign", "#"),
        ("dollar", "$"),
        ("percent", "%"),
        ("asciicircum", "^"),
        ("ampersand", "&"),
        ("asterisk", "*"),
        ("parenleft", "("),
        ("parenright", ")"),
        ("underscore", "_"),
        ("colon", ":"),
        ("less", "<"),
        ("greater", ">"),
        ("bar", "|"),
        ("asciitilde", "~"),
    ],
)
def test_every_xdotool_symbol_name_presses_the_same_key_as_its_character(
    name: str, char: str
) -> None:
    assert press(name) == press(char)
    assert press(f"ctrl+{name}") == press(f"ctrl+{char}")


def test_existing_chords_keep_their_events() -> None:
    assert key_down("ctrl+a") == command("a", "KeyA", 65, CTRL)
    assert key_down("shift+Tab") == command("Tab", "Tab", 9, SHIFT)
    assert key_down("Return") == typed("Enter", "Enter", 13, "\r", 0)
    assert key_down("a") == typed("a", "KeyA", 65, "a", 0)
    assert key_down("?") == typed("?", "Slash", 191, "?", SHIFT)
    assert key_down("shift+space") == typed(" ", "Space", 32, " ", SHIFT)
    assert press("space") == press(" ")


def test_unknown_key_names_are_refused_with_what_is_accepted() -> None:
    with pytest.raises(KeyComboError, match="xdotool name") as refused:
        parse_keys("ctrl+slashy")
    assert "slash" in str(refused.value) and "action type" in str(refused.value)


def test_a_tab_in_typed_text_presses_the_tab_key() -> None:
    steps = type_steps("a\tb")
    assert [s.key.key if s.key else f"insert:{s.insert}" for s in steps] == ["a", "Tab", "b"]
    assert steps[1].key == parse_combo("Tab").key
    down = combo_events(parse_combo("Tab"))[0]
    assert down["type"] == "rawKeyDown" and "text" not in down  # moves focus, types nothing
