"""What the install tests share: the extension's id and applying a plan's changes."""

from __future__ import annotations

from ghostlight_trio.browser import managed
from ghostlight_trio.install.changes import apply
from ghostlight_trio.install.plan import Options

EXT_ID = managed.extension_id(managed.default_extension_dir())


def apply_all(actions) -> None:
    """Apply every change of a plan, failing the test on an action that could not be planned."""
    for action in actions:
        assert not action.failed, action
        if action.change is not None and action.change.changes_anything:
            apply(action.change)


def only(client_id: str) -> Options:
    """Install options for one client and no browser."""
    return Options(clients=(client_id,), browsers=())
