"""What governance needs to know of a tool, as its catalog entry declares it (``governance``).

Governance judges a call by these facts and never by the tool's name: which argument names the
page a call goes to, where a result says the tab landed, which field of a result lists tabs,
which arguments change what an action needs, and whether the tool is the policy's own
explanation. They stay in the service: a tool's descriptor (what clients are shown) carries
none of them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import attrs


@attrs.frozen
class PageArgument:
    """The argument naming the page a call takes its tab to: the call is judged at that page's
    host, not at the tab's. ``history`` values move through the tab's history instead (where
    they lead is known only from the tab, then from the landing)."""

    name: str
    history: frozenset[str] = frozenset()


@attrs.frozen
class LandingFields:
    """Where a result says its tab landed (``url``), and the fields that say it has not landed
    yet (``pending``: the server has not answered) or will not (``no_page``: a download)."""

    url: str
    pending: str
    no_page: str


@attrs.frozen
class TabList:
    """The result field listing tabs, and the member naming each tab's id; the rest of an entry
    (its address and title) is what its page shows, so it is page content."""

    field: str
    id: str


ArgumentPath = tuple[str, ...]


@attrs.frozen
class Refinement:
    """A change of what one call needs, made by the arguments it was given: a click found by
    a query first reads the page, an export placed on the page writes there."""

    actions: frozenset[str]
    present: tuple[ArgumentPath, ...] = ()
    """Applies when any of these arguments is there (whatever its value)."""
    given: tuple[ArgumentPath, ...] = ()
    """Applies when any of these arguments is there with a value (not null)."""
    add: frozenset[str] = frozenset()
    remove: frozenset[str] = frozenset()

    def applies(self, action: str | None, arguments: Mapping[str, Any]) -> bool:
        if action not in self.actions:
            return False
        found = [_lookup(arguments, path) for path in self.present]
        given = [_lookup(arguments, path) for path in self.given]
        return any(hit is not _ABSENT for hit in found) or any(
            hit is not _ABSENT and hit is not None for hit in given
        )

    def refine(self, needs: frozenset[str]) -> frozenset[str]:
        return (needs - self.remove) | self.add


@attrs.frozen
class GovernanceFacts:
    """Everything governance reads of one tool besides its capability rows."""

    page_argument: PageArgument | None = None
    landing: LandingFields | None = None
    tab_list: TabList | None = None
    always_open: bool = False
    """The policy's own explanation: advertised, and answered, under any policy and whatever
    switch is on (so a user or agent can always learn why something is refused)."""
    refinements: tuple[Refinement, ...] = ()

    def needs(
        self, action: str | None, arguments: Mapping[str, Any], row: Collection[str]
    ) -> frozenset[str] | None:
        """What ``row`` needs once the first refinement that applies has changed it; None
        when none applies."""
        for refinement in self.refinements:
            if refinement.applies(action, arguments):
                return refinement.refine(frozenset(row))
        return None


_ABSENT = object()


def _lookup(arguments: Mapping[str, Any], path: ArgumentPath) -> object:
    value: object = arguments
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return _ABSENT
        value = value[key]
    return value


_KEYS = {"pageArgument", "landing", "tabList", "alwaysOpen", "refinements"}


def governance_facts(raw: Mapping[str, Any]) -> GovernanceFacts:
    """The facts of one catalog entry's ``governance`` object; a key this build does not know
    is an error (a misspelt fact would silently govern nothing)."""
    unknown = set(raw) - _KEYS
    if unknown:
        raise ValueError(f"unknown governance facts: {sorted(unknown)}")
    page = raw.get("pageArgument")
    landing = raw.get("landing")
    tabs = raw.get("tabList")
    return GovernanceFacts(
        page_argument=None
        if page is None
        else PageArgument(page["name"], frozenset(page.get("history", ()))),
        landing=None
        if landing is None
        else LandingFields(landing["url"], landing["pending"], landing["noPage"]),
        tab_list=None if tabs is None else TabList(tabs["field"], tabs["id"]),
        always_open=raw.get("alwaysOpen", False) is True,
        refinements=tuple(_refinement(item) for item in raw.get("refinements", ())),
    )


def _refinement(raw: Mapping[str, Any]) -> Refinement:
    return Refinement(
        actions=frozenset(raw["actions"]),
        present=_paths(raw.get("whenPresent", ())),
        given=_paths(raw.get("whenGiven", ())),
        add=frozenset(raw.get("add", ())),
        remove=frozenset(raw.get("remove", ())),
    )


def _paths(dotted: Sequence[str]) -> tuple[ArgumentPath, ...]:
    return tuple(tuple(text.split(".")) for text in dotted)
