"""How workspaces look in the browser: each one's tab-group title and colour, and which ended.

Presentation only, never routing. The shore sends what this decides; nothing here does I/O.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from .ports import WorkspaceDirectory

GROUP_TITLE_PREFIX = "Ghostlight · "
GROUP_COLORS = ("blue", "red", "yellow", "green", "pink", "purple", "cyan", "orange")
"""Chrome's tab-group colours a live workspace may get (grey marks an ended one)."""
ENDED_SUFFIX = " (ended)"
KNOWN_WORKSPACES = 256


class TabGroups:
    """The group presentation of workspaces, and the memory of those sent to a browser."""

    def __init__(self, workspaces: WorkspaceDirectory) -> None:
        self._workspaces = workspaces
        self._known: OrderedDict[Any, str] = OrderedDict()
        """Workspaces recently sent to a browser, with their group's title (most recent last)."""
        self._ended: OrderedDict[str, str] = OrderedDict()
        """Browser keys of workspaces that ended, with their ended group title, for browsers
        attaching later.
        An extension that reads the welcome's ``liveWorkspaces`` needs no replay; an older one
        (a browser still running the extension it loaded before an update) does."""

    def presentation(self, workspace_id: Any) -> dict[str, str]:
        """The visible tab-group title and colour of a workspace: the client's label, numbered
        when other live workspaces share it, and a colour no other live workspace has while
        there are enough."""
        try:
            shown = self._workspaces.presentation(workspace_id)
        except Exception:  # a missing presentation must never fail a browser call
            return {"groupTitle": "Ghostlight"}
        title = GROUP_TITLE_PREFIX + shown.label if shown.label else "Ghostlight"
        if shown.ordinal > 1:
            title += f" {shown.ordinal}"
        return {"groupTitle": title, "groupColor": GROUP_COLORS[shown.hue % len(GROUP_COLORS)]}

    def sent(self, workspace_id: Any) -> dict[str, str]:
        """The presentation of a workspace a request is about to carry, remembered as sent."""
        presentation = self.presentation(workspace_id)
        self._known[workspace_id] = presentation["groupTitle"]
        self._known.move_to_end(workspace_id)
        while len(self._known) > KNOWN_WORKSPACES:
            self._known.popitem(last=False)
        return presentation

    def recently_sent(self) -> list[Any]:
        """Workspaces sent to a browser, the most recent first (a copy)."""
        return list(reversed(self._known))

    def ended(self, workspace_id: Any) -> tuple[str, str] | None:
        """A workspace is over: its browser key and ended group title, kept for browsers that
        attach later; None when nothing of it ever reached a browser."""
        title = self._known.pop(workspace_id, None)
        if title is None:
            return None
        key = self._workspaces.browser_key(workspace_id)
        ended = self._ended
        ended[key] = title + ENDED_SUFFIX
        while len(ended) > KNOWN_WORKSPACES:
            ended.popitem(last=False)
        return key, ended[key]

    def all_ended(self) -> list[tuple[str, str]]:
        """Every ended workspace remembered, oldest first, for a browser attaching now."""
        return list(self._ended.items())
