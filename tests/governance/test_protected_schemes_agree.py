"""The service's protected-scheme rule and the extension's own floor name the same schemes: a
scheme added on one side only would be refused by one and let through by the other."""

from __future__ import annotations

import re
from pathlib import Path

from ghostlight_trio.governance.policy import PROTECTED_SCHEMES

FLOOR = Path(__file__).parents[2] / "extension" / "lib" / "privileged.js"


def test_the_extensions_floor_refuses_exactly_the_protected_schemes():
    source = FLOOR.read_text()
    listed = source.split("const PRIVILEGED_SCHEMES = new Set([", 1)[1].split("]);", 1)[0]
    assert set(re.findall(r'"([a-z-]+)"', listed)) == PROTECTED_SCHEMES
