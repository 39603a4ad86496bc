"""Pure decisions: one tier (a parsed manifest) and the intersection of tiers.

Inside a tier: default deny; the first grant (in manifest order) whose hosts admit the host and
whose ``allowed`` covers the call's needs allows it. A grant admits a host when its most
specific matching pattern is in ``allow`` (exact host > longer ``*.suffix`` > ``*``; an exact
tie between allow and deny denies). Across tiers: every tier must allow (intersection), a deny
anywhere stands, and the first enforced deny in tier order (org, user, restriction) is the one
reported. An allow is reported as the first tier's, so adding a tier that allows everything
changes no decision at all.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from .denial import denial_id
from .directory import Requirement
from .hosts import (
    Blank,
    Host,
    HostPattern,
    HostResolution,
    Indeterminate,
    OutOfScope,
    parent_suffixes,
)
from .manifest import CAPABILITIES, Grant, Manifest, Mode

_CACHE_LIMIT = 4096


@attrs.frozen
class TierDecision:
    verdict: str
    """``allow``, ``deny`` or ``shadow_deny`` (an observe-mode deny: the call still runs)."""
    rule: str
    grant: str = ""
    missing: tuple[str, ...] = ()


FREE = TierDecision("allow", "free")
BLANK = TierDecision("allow", "blank")


class _CompiledGrant:
    """A grant's patterns as lookup tables: exact hosts, ``*.`` suffixes and ``*``."""

    __slots__ = ("grant", "exact", "suffixes", "anything")

    def __init__(self, grant: Grant) -> None:
        self.grant = grant
        self.exact: dict[str, bool] = {}
        self.suffixes: dict[str, bool] = {}
        self.anything: bool | None = None
        # True = allow; a deny for the same pattern overwrites (exact ties deny).
        for patterns, admits in ((grant.allow, True), (grant.deny, False)):
            for pattern in patterns:
                self._add(pattern, admits)

    def _add(self, pattern: HostPattern, admits: bool) -> None:
        if pattern.kind == "any":
            self.anything = admits if self.anything is None else (self.anything and admits)
            return
        table = self.exact if pattern.kind == "exact" else self.suffixes
        table[pattern.host] = table.get(pattern.host, True) and admits

    def polarity(self, host: str) -> bool | None:
        """True when the grant admits ``host``, False when it carves it out, None if silent."""
        found = self.exact.get(host)
        if found is not None:
            return found
        for suffix in parent_suffixes(host):
            found = self.suffixes.get(suffix)
            if found is not None:
                return found
        return self.anything


class TierPolicy:
    """One tier's compiled manifest; ``decide`` is pure and cached per host and need."""

    def __init__(self, manifest: Manifest) -> None:
        self.manifest = manifest
        self._grants = [_CompiledGrant(grant) for grant in manifest.grants]
        self._union = frozenset().union(*(grant.allowed for grant in manifest.grants))
        self._observes = manifest.mode == "observe" or any(
            grant.mode == "observe" for grant in manifest.grants
        )
        self._cache: dict[tuple[str, frozenset[str]], TierDecision] = {}

    def reachable(self, needs: frozenset[str]) -> bool:
        """Could any call with these needs be allowed (or merely observed)? For advertising."""
        return not needs or self._observes or needs <= self._union

    def decide(self, requirement: Requirement, where: HostResolution | None) -> TierDecision:
        needs = requirement.needs
        if needs is None:
            return self._deny("unknown_action", None)
        if not needs:
            return FREE
        if where is None:
            if needs <= self._union:
                return TierDecision("allow", "domainless")
            return self._deny("capability", None, _missing(needs, self._union))
        if isinstance(where, Host):
            key = (where.name, needs)
            cached = self._cache.get(key)
            if cached is None:
                if len(self._cache) >= _CACHE_LIMIT:
                    self._cache.clear()
                cached = self._cache[key] = self._decide_host(where.name, needs)
            return cached
        if isinstance(where, Blank):
            return BLANK
        if isinstance(where, OutOfScope):
            return self._deny(f"scheme/{where.scheme}", None)
        assert isinstance(where, Indeterminate)
        return self._deny("indeterminate_host", None)

    def _decide_host(self, host: str, needs: frozenset[str]) -> TierDecision:
        admitting: list[Grant] = []
        excluded_by: Grant | None = None
        for compiled in self._grants:
            polarity = compiled.polarity(host)
            if polarity:
                if needs <= compiled.grant.allowed:
                    return TierDecision("allow", "grant", compiled.grant.id)
                admitting.append(compiled.grant)
            elif polarity is False and excluded_by is None:
                excluded_by = compiled.grant
        if admitting:
            first = admitting[0]
            return self._deny("capability", first, _missing(needs, first.allowed))
        if excluded_by is not None:
            return self._deny("denied_domain", excluded_by)
        return self._deny("unmatched_domain", None)

    def _deny(self, rule: str, grant: Grant | None, missing: tuple[str, ...] = ()) -> TierDecision:
        mode: Mode = (grant.mode if grant is not None else None) or self.manifest.mode
        verdict = "shadow_deny" if mode == "observe" else "deny"
        return TierDecision(verdict, rule, grant.id if grant is not None else "", missing)


def _missing(needs: frozenset[str], allowed: frozenset[str]) -> tuple[str, ...]:
    return tuple(cap for cap in CAPABILITIES if cap in needs and cap not in allowed)


@attrs.frozen
class Decision:
    """The combined decision for one call, with everything audit and denials need."""

    verdict: str
    rule: str
    grant: str = ""
    tier: str = ""
    manifest_hash: str = ""
    manifest: str | None = None
    missing: tuple[str, ...] = ()

    @property
    def denial_id(self) -> str:
        if self.verdict == "allow":
            return ""
        return denial_id(self.manifest_hash, self.grant, self.rule)


ALL_OPEN = Decision("allow", "all_open")


def combine(
    tiers: Sequence[tuple[str, TierPolicy]],
    requirement: Requirement,
    where: HostResolution | None,
) -> Decision:
    """Intersect the tiers: the first enforced deny stands, else the first observed deny is
    recorded, else the first tier's allow is reported."""
    if not tiers:
        return ALL_OPEN
    first_allow: Decision | None = None
    shadow: Decision | None = None
    for name, tier in tiers:
        decided = tier.decide(requirement, where)
        if decided.verdict == "deny":
            return _lift(name, tier, decided)
        if decided.verdict == "shadow_deny":
            shadow = shadow or _lift(name, tier, decided)
        elif first_allow is None:
            first_allow = _lift(name, tier, decided)
    return shadow or first_allow or ALL_OPEN


def _lift(name: str, tier: TierPolicy, decided: TierDecision) -> Decision:
    manifest = tier.manifest
    return Decision(
        verdict=decided.verdict,
        rule=decided.rule,
        grant=decided.grant,
        tier=name,
        manifest_hash=manifest.hash,
        manifest=manifest.label,
        missing=decided.missing,
    )


NEVER_TOUCH_TIER = "sacred"
"""The tier of a never-touch denial; its rule is ``sacred/<pattern>``. Both are the names the
audit trail, denial ids and the files (``sacred``, ``sacred_domains``) have always used."""


def never_touch_decision(pattern: HostPattern) -> Decision:
    """Never-touch denials carry no manifest or grant: the id depends on the pattern alone."""
    return Decision("deny", f"sacred/{pattern.text}", tier=NEVER_TOUCH_TIER)


FILE_SCHEMES = frozenset({"file"})
"""The computer's own files: not the web, and a page the agent reads could name the file."""
PRIVILEGED_SCHEMES = frozenset(
    {
        "about",  # about:settings and the like are the browser's own pages (blank is not)
        "chrome",
        "chrome-extension",
        "chrome-untrusted",
        "chrome-search",
        "chrome-native",
        "chrome-devtools",
        "devtools",
        "edge",
        "brave",
        "opera",
        "vivaldi",
        "extension",
        "isolated-app",
        "moz-extension",
    }
)
"""The browser's own pages and every extension's: script there runs with the browser's or an
extension's powers (Ghostlight's own pages reach chrome.tabs and chrome.debugger, every tab of
every workspace and the computer's files), so no agent is let in, under any policy."""
PROTECTED_SCHEMES = FILE_SCHEMES | PRIVILEGED_SCHEMES
"""Never opened for an agent, whatever the policy (all-open included); no grant opens them."""


PROTECTED_PAGE = "page"
"""The rule's tail when the browser itself refused a call on such a page (the tab was there)."""


def protected_decision(scheme: str) -> Decision:
    return Decision("deny", f"protected/{scheme}", tier="protected")


def never_touch_match(patterns: Sequence[HostPattern], where: HostResolution | None) -> HostPattern | None:
    """The first never-touch pattern (list order) matching the host, if any."""
    if not patterns or not isinstance(where, Host):
        return None
    host = where.name
    for pattern in patterns:
        if pattern.specificity(host) is not None:
            return pattern
    return None
