"""Whether a windowed browser can open here, and the headless fallback when it cannot."""

from __future__ import annotations

import os
import sys


def has_screen() -> bool:
    """Whether a windowed browser can open here: macOS always has one; elsewhere an X or
    Wayland display must be named."""
    return sys.platform == "darwin" or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    )


def headless_here(headless: bool) -> bool:
    """``headless``, or True with a one-line note when no screen is here: a windowed Chromium
    would exit at once with "Missing X server or $DISPLAY", and a launch could only say that it
    exited."""
    if headless or has_screen():
        return headless
    print(
        "ghostlight: no screen here (neither DISPLAY nor WAYLAND_DISPLAY is set), so the"
        " browser is launched headless.",
        file=sys.stderr,
    )
    return True
