"""``python -m ghostlight_trio``: the same CLI as ``ghostlight``."""

from __future__ import annotations

import sys

from .cli.main import main

if __name__ == "__main__":
    sys.exit(main())
