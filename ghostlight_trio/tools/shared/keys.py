"""Key names, combos and typed characters as CDP key events (US layout).

``key`` takes space-separated combos such as ``ctrl+a Return shift+Tab``; ``type`` sends each
character as a key press when the layout has it and as inserted text otherwise.
"""

from __future__ import annotations

import string

import attrs

from .guard import ToolInputError

ALT, CTRL, META, SHIFT = 1, 2, 4, 8
"""CDP modifier bits."""


@attrs.frozen
class KeyDef:
    key: str
    code: str
    key_code: int
    text: str = ""
    shift: bool = False


def _printable_keys() -> list[tuple[str, str, str, int]]:
    """(plain, shifted, code, key code) for every printable key of the US layout."""
    rows = [(ch, ch.upper(), f"Key{ch.upper()}", ord(ch.upper())) for ch in string.ascii_lowercase]
    rows += [
        (digit, shifted, f"Digit{digit}", ord(digit))
        for digit, shifted in zip("0123456789", ")!@#$%^&*(", strict=True)
    ]
    return rows + [
        ("`", "~", "Backquote", 192),
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
    ]


def _build() -> dict[str, KeyDef]:
    keys: dict[str, KeyDef] = {}
    for plain, shifted, code, key_code in _printable_keys():
        keys[plain] = KeyDef(plain, code, key_code, plain)
        keys[shifted] = KeyDef(shifted, code, key_code, shifted, shift=True)
    keys[" "] = KeyDef(" ", "Space", 32, " ")
    return keys


CHARACTERS = _build()
"""Printable characters the US layout types directly."""

SHIFTED = {CHARACTERS[shifted].code: CHARACTERS[shifted] for _, shifted, _, _ in _printable_keys()}
"""What each printable key produces with shift held, by ``code`` (KeyA -> "A", Digit1 -> "!")."""

SYMBOL_NAMES = {
    "grave": "`",
    "quoteleft": "`",
    "asciitilde": "~",
    "exclam": "!",
    "at": "@",
    "numbersign": "#",
    "dollar": "$",
    "percent": "%",
    "asciicircum": "^",
    "ampersand": "&",
    "asterisk": "*",
    "parenleft": "(",
    "parenright": ")",
    "minus": "-",
    "underscore": "_",
    "equal": "=",
    "plus": "+",
    "bracketleft": "[",
    "braceleft": "{",
    "bracketright": "]",
    "braceright": "}",
    "backslash": "\\",
    "bar": "|",
    "semicolon": ";",
    "colon": ":",
    "apostrophe": "'",
    "quoteright": "'",
    "quotedbl": '"',
    "comma": ",",
    "less": "<",
    "period": ".",
    "greater": ">",
    "slash": "/",
    "question": "?",
}
"""xdotool (X keysym) names of the US layout's symbols; a shifted symbol's name implies shift."""

NAMED = {
    "enter": KeyDef("Enter", "Enter", 13, "\r"),
    "tab": KeyDef("Tab", "Tab", 9),
    "backspace": KeyDef("Backspace", "Backspace", 8),
    "escape": KeyDef("Escape", "Escape", 27),
    "delete": KeyDef("Delete", "Delete", 46),
    "insert": KeyDef("Insert", "Insert", 45),
    "home": KeyDef("Home", "Home", 36),
    "end": KeyDef("End", "End", 35),
    "pageup": KeyDef("PageUp", "PageUp", 33),
    "pagedown": KeyDef("PageDown", "PageDown", 34),
    "arrowleft": KeyDef("ArrowLeft", "ArrowLeft", 37),
    "arrowup": KeyDef("ArrowUp", "ArrowUp", 38),
    "arrowright": KeyDef("ArrowRight", "ArrowRight", 39),
    "arrowdown": KeyDef("ArrowDown", "ArrowDown", 40),
    "space": CHARACTERS[" "],
    "capslock": KeyDef("CapsLock", "CapsLock", 20),
    "contextmenu": KeyDef("ContextMenu", "ContextMenu", 93),
    "shift": KeyDef("Shift", "ShiftLeft", 16),
    "control": KeyDef("Control", "ControlLeft", 17),
    "alt": KeyDef("Alt", "AltLeft", 18),
    "meta": KeyDef("Meta", "MetaLeft", 91),
    **{f"f{n}": KeyDef(f"F{n}", f"F{n}", 111 + n) for n in range(1, 25)},
}

ALIASES = {
    "return": "enter",
    "kpenter": "enter",
    "esc": "escape",
    "spacebar": "space",
    "bksp": "backspace",
    "del": "delete",
    "ins": "insert",
    "pgup": "pageup",
    "pgdn": "pagedown",
    "up": "arrowup",
    "down": "arrowdown",
    "left": "arrowleft",
    "right": "arrowright",
    "ctrl": "control",
    "option": "alt",
    "opt": "alt",
    "cmd": "meta",
    "command": "meta",
    "win": "meta",
    "windows": "meta",
    "super": "meta",
}

MODIFIER_BITS = {"alt": ALT, "control": CTRL, "meta": META, "shift": SHIFT}


class KeyComboError(ToolInputError):
    """A key name or combo that cannot be pressed (an argument the agent can correct)."""


def modifier_bits(text: str | None) -> int:
    """Bits for a ``modifiers`` argument such as ``ctrl+shift``; unknown names are refused."""
    bits = 0
    for part in (text or "").replace(" ", "+").split("+"):
        if not part:
            continue
        name = ALIASES.get(part.lower(), part.lower())
        if name not in MODIFIER_BITS:
            raise KeyComboError(f'"{part}" is not a modifier (use ctrl, shift, alt or cmd)')
        bits |= MODIFIER_BITS[name]
    return bits


def lookup(name: str) -> KeyDef:
    """One key by name, alias, symbol name (``slash``) or character."""
    if name in CHARACTERS:
        return CHARACTERS[name]
    normal = name.lower().replace("_", "").replace("-", "")
    normal = ALIASES.get(normal, normal)
    if normal in NAMED:
        return NAMED[normal]
    if normal in SYMBOL_NAMES:
        return CHARACTERS[SYMBOL_NAMES[normal]]
    raise KeyComboError(
        f'Unknown key "{name}": name a key such as Enter, Tab, Escape, Backspace, ArrowDown,'
        " PageDown, F5, a letter, a digit, or a symbol as itself or by its xdotool name"
        " (/ or slash, ? or question, { or braceleft), optionally with modifiers (ctrl+a,"
        " shift+Tab, shift+slash); to enter text, use action type."
    )


COMMAND_BITS = CTRL | ALT | META
"""Modifiers that make a chord a command rather than typed text."""


def _chord_key(name: str, modifiers: list[KeyDef]) -> KeyDef:
    """The key a chord presses. In a command chord an uppercase letter names the letter's key,
    as in xdotool: ``ctrl+K`` is ctrl and the K key, with no shift the agent did not ask for."""
    key = lookup(name)
    bits = sum(MODIFIER_BITS[mod.key.lower()] for mod in modifiers)
    if bits & COMMAND_BITS and len(name) == 1 and name in string.ascii_uppercase:
        return CHARACTERS[name.lower()]
    return key


@attrs.frozen
class Combo:
    """One key with the modifiers held while it is pressed."""

    modifiers: tuple[KeyDef, ...]
    key: KeyDef
    text: str

    @property
    def bits(self) -> int:
        return sum(MODIFIER_BITS[ALIASES.get(m.key.lower(), m.key.lower())] for m in self.modifiers)

    @property
    def is_reload(self) -> bool:
        """Ctrl/Cmd+R and F5 reload the page (shift: bypassing the cache)."""
        if self.key.key == "F5":
            return True
        return self.key.code == "KeyR" and bool(self.bits & (CTRL | META))


def parse_combo(text: str) -> Combo:
    """``ctrl+shift+a`` -> modifiers and key; a trailing ``+`` names the plus key."""
    parts = text.split("+")
    if text.endswith("+"):
        parts = [*text[:-1].rstrip("+").split("+"), "+"] if text.strip("+") else ["+"]
    if any(not part for part in parts):
        raise KeyComboError(f'"{text}" is not a key combo')
    *mods, last = parts
    modifiers: list[KeyDef] = []
    for mod in mods:
        key = lookup(mod)
        if key.key.lower() not in MODIFIER_BITS:
            raise KeyComboError(f'"{mod}" in "{text}" is not a modifier')
        if key not in modifiers:
            modifiers.append(key)
    return Combo(tuple(modifiers), _chord_key(last, modifiers), text)


def parse_keys(text: str) -> list[Combo]:
    """Space-separated combos, in order."""
    combos = [parse_combo(part) for part in text.split()]
    if not combos:
        raise KeyComboError("text must name at least one key, e.g. Enter or ctrl+a")
    return combos


def key_events(key: KeyDef, bits: int) -> list[dict[str, object]]:
    """keyDown/keyUp params for one key press under modifier ``bits``. With shift held a
    printable key reports what it prints shifted (shift+a: "A", shift+1: "!"), as a real
    keyboard does, so page shortcuts keyed on those characters fire."""
    if key.shift:
        bits |= SHIFT
    if bits & SHIFT:
        key = SHIFTED.get(key.code, key)
    # Ctrl/Alt/Meta chords are commands, not text.
    text = key.text if key.text and not bits & COMMAND_BITS else ""
    down: dict[str, object] = {
        "type": "keyDown" if text else "rawKeyDown",
        "key": key.key,
        "code": key.code,
        "windowsVirtualKeyCode": key.key_code,
        "nativeVirtualKeyCode": key.key_code,
        "modifiers": bits,
    }
    if text:
        down["text"] = text
        down["unmodifiedText"] = text
    up = {k: v for k, v in down.items() if k not in ("text", "unmodifiedText")}
    up["type"] = "keyUp"
    return [down, up]


def combo_events(combo: Combo) -> list[dict[str, object]]:
    """Every key event of one combo: modifiers down, the key, modifiers up in reverse."""
    events: list[dict[str, object]] = []
    bits = 0
    for mod in combo.modifiers:
        bits |= MODIFIER_BITS[mod.key.lower()]
        events.append(key_events(mod, bits)[0])
    if combo.key.key.lower() in MODIFIER_BITS and not combo.modifiers:
        bits = MODIFIER_BITS[combo.key.key.lower()]
    events += key_events(combo.key, bits)
    for mod in reversed(combo.modifiers):
        bits &= ~MODIFIER_BITS[mod.key.lower()]
        events.append(key_events(mod, bits)[1])
    return events


@attrs.frozen
class TypeStep:
    """Either one key press (``key``) or a run of text to insert as-is (``insert``)."""

    key: KeyDef | None = None
    insert: str = ""


def type_steps(text: str) -> list[TypeStep]:
    """Typing plan: mapped characters as key presses, runs of other characters inserted. A
    line break presses Enter and a tab presses Tab, as a person's typing does: Tab moves focus
    on, it never puts a tab character into a field."""
    steps: list[TypeStep] = []
    normal = text.replace("\r\n", "\n").replace("\r", "\n")
    for ch in normal:
        if ch == "\n":
            steps.append(TypeStep(key=NAMED["enter"]))
        elif ch == "\t":
            steps.append(TypeStep(key=NAMED["tab"]))
        elif ch in CHARACTERS:
            steps.append(TypeStep(key=CHARACTERS[ch]))
        elif steps and steps[-1].key is None:
            steps[-1] = TypeStep(insert=steps[-1].insert + ch)
        else:
            steps.append(TypeStep(insert=ch))
    return steps
