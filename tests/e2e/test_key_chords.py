"""``computer key`` chords as a real page sees them: shifted symbols and command chords.

The page records every keydown itself; the test reads the record back over the shore.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import PAGES, Service, open_page, page_value, text

pytestmark = pytest.mark.e2e

PAGES["/keys/record"] = """<!doctype html><title>Key record</title>
<p>Shortcuts: ? for help, ctrl+K for search.</p>
<script>
window.pressed = [];
addEventListener('keydown', (e) => pressed.push(
  {key: e.key, code: e.code, ctrl: e.ctrlKey, shift: e.shiftKey, alt: e.altKey, meta: e.metaKey}));
</script>"""


def down(key: str, code: str, *, ctrl: bool = False, shift: bool = False) -> dict[str, Any]:
    """One keydown as the page records it."""
    return {"key": key, "code": code, "ctrl": ctrl, "shift": shift, "alt": False, "meta": False}


async def keydowns(service: Service, ws: str, tab: int, chord: str) -> list[dict[str, Any]]:
    """The keydowns the page saw for one ``computer key`` call."""
    await page_value(service, ws, tab, "pressed.length = 0")
    pressed = await service.call("computer", ws, tabId=tab, action="key", text=chord)
    assert pressed.kind == "ok", text(pressed)
    return await page_value(service, ws, tab, "pressed")


async def test_shifted_symbols_and_command_chords_reach_the_page_as_a_keyboard_sends_them(
    more_service: Service, more_browser: Any, web: str
) -> None:
    service = more_service
    ws, tab = await open_page(service, f"{web}/keys/record")
    assert await keydowns(service, ws, tab, "shift+slash") == [
        down("Shift", "ShiftLeft", shift=True),
        down("?", "Slash", shift=True),
    ]
    assert await keydowns(service, ws, tab, "question") == [down("?", "Slash", shift=True)]
    assert await keydowns(service, ws, tab, "shift+1") == [
        down("Shift", "ShiftLeft", shift=True),
        down("!", "Digit1", shift=True),
    ]
    # ctrl+K is ctrl and the K key: no shift, so a handler for ctrl+k fires.
    assert await keydowns(service, ws, tab, "ctrl+K") == [
        down("Control", "ControlLeft", ctrl=True),
        down("k", "KeyK", ctrl=True),
    ]
    assert await keydowns(service, ws, tab, "ctrl+shift+k") == [
        down("Control", "ControlLeft", ctrl=True),
        down("Shift", "ShiftLeft", ctrl=True, shift=True),
        down("K", "KeyK", ctrl=True, shift=True),
    ]
