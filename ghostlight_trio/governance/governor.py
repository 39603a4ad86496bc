"""The live governance state: current tiers, never-touch list, hold, panic and attention.

One ``Governor`` per service. Policy snapshots are immutable and swapped whole on reload, so a
call always decides against one consistent policy. Hold and panic are global; attention is per
workspace.
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs
import trio

from ..catalog.registry import ToolSpec
from .attention import AttentionCircuits
from .directory import capability_rows
from .hosts import HostPattern
from .manifest import Manifest, ManifestError, canonical_hash, parse_manifest_object
from .policy import TierPolicy
from .settings import Settings
from .sources import Loaded, PolicySources
from .switches import Switches, UnreadableSwitches, load_switches, read_switches, save_switches

log = logging.getLogger("ghostlight.governance")

_RESTRICTION_CACHE = 64

Fingerprint = Callable[[Any], str | None]
"""A workspace handle to its keyed audit name (``WorkspaceRegistry.fingerprint``)."""


@attrs.frozen
class PolicyState:
    """One consistent snapshot of everything a decision reads."""

    tiers: tuple[tuple[str, TierPolicy], ...] = ()
    never_touch: tuple[HostPattern, ...] = ()
    redact_secrets: bool = True
    problems: tuple[str, ...] = ()

    @property
    def all_open(self) -> bool:
        return not self.tiers

    @property
    def manifests(self) -> list[tuple[str, Manifest]]:
        return [(name, tier.manifest) for name, tier in self.tiers]


def state_from(loaded: Loaded) -> PolicyState:
    tiers = tuple(
        (name, TierPolicy(manifest))
        for name, manifest in (("org", loaded.org), ("user", loaded.user))
        if manifest is not None
    )
    never_touch = _union_patterns(
        [loaded.settings.never_touch] + [tier.manifest.never_touch for _, tier in tiers]
    )
    return PolicyState(
        tiers=tiers,
        never_touch=never_touch,
        redact_secrets=loaded.settings.redact_secrets,
        problems=loaded.problems,
    )


def _union_patterns(lists: Iterable[tuple[HostPattern, ...]]) -> tuple[HostPattern, ...]:
    seen: dict[str, HostPattern] = {}
    for patterns in lists:
        for pattern in patterns:
            seen.setdefault(pattern.text, pattern)
    return tuple(seen.values())


@attrs.frozen
class Restriction:
    """A per-request tighten-only tier; ``tier`` is None when the restriction is invalid."""

    tier: TierPolicy | None
    never_touch: tuple[HostPattern, ...]
    hash: str
    problem: str = ""


class Governor:
    """Owns the policy snapshot and the safety switches."""

    def __init__(
        self,
        sources: PolicySources | None = None,
        *,
        clock: Callable[[], float] | None = None,
        fingerprint: Fingerprint | None = None,
        record_event: Callable[..., None] | None = None,
        switches_file: Path | None = None,
    ) -> None:
        self.sources = sources
        self.state = state_from(sources.load(initial=True)) if sources else PolicyState()
        self._switches_file = switches_file
        kept = load_switches(switches_file) if switches_file is not None else Switches()
        self.held = kept.held
        self.panicked = kept.panicked
        self._known: Switches | None = None
        """What the record said when this service last looked at it or wrote it (None: not
        since it started). A record that differs was saved by someone else: the CLI."""
        self._unreadable = ""
        self._from_record: set[str] = set()
        """Switches this service took from the record rather than from a command it answered."""
        if kept.held or kept.panicked:
            on = " and ".join(n for n, v in (("hold", kept.held), ("kill switch", kept.panicked)) if v)
            log.warning("%s still on from before this start: calls stop until resume", on)
        self.attention = AttentionCircuits()
        self.fingerprint = fingerprint
        """How audit names a workspace handle; the user addresses one paused workspace by it.
        Given by whoever owns the workspace registry; None: workspaces resume only all at once."""
        self.listeners: list[Callable[[str], None]] = []
        """Called with ``hold``, ``panic``, ``resume``, ``resume_workspace`` or ``policy``."""
        self.record_event = record_event
        """Writes one audit event (a name and fields), so every switch, reload and pause leaves a
        line in the trail; None: no trail (a governor on its own, in a test)."""
        self._restrictions: OrderedDict[str, Restriction] = OrderedDict()
        self._clock = clock

    # --- policy ------------------------------------------------------------------------------

    def set_state(self, state: PolicyState) -> None:
        self.state = state
        self._notify("policy")

    def reload_if_changed(self) -> bool:
        """Re-read the sources when a file changed; True when a new snapshot was installed.
        The switches record is looked at on the same beat, so a hold the CLI saved while this
        service did not answer (stopped, frozen) applies within a poll of its running again."""
        self.catch_up_saved_switches()
        if self.sources is None or not self.sources.changed():
            return False
        self.set_state(state_from(self.sources.load()))
        return True

    async def reload_off_loop_if_changed(self) -> bool:
        """``reload_if_changed`` with the files read in a worker thread, so a slow disk never
        holds the service up (each read is bounded besides). True when a snapshot was installed.
        Whether anything changed is looked at here (a ``stat`` of each file, which never waits
        on what is there), so an unchanged poll costs no thread."""
        self.catch_up_saved_switches()
        sources = self.sources
        if sources is None or not sources.changed():
            return False
        reading = await trio.to_thread.run_sync(sources.read_if_changed)
        if reading is None:
            return False
        loaded = sources.install(reading)
        if loaded is None:  # a reload installed meanwhile; the next poll looks again
            return False
        self.set_state(state_from(loaded))
        return True

    def restriction(self, raw: Mapping[str, Any]) -> Restriction:
        """The parsed per-request restriction (cached by content; invalid ones fail closed)."""
        key = json.dumps(raw, sort_keys=True, separators=(",", ":"), default=str)
        cached = self._restrictions.get(key)
        if cached is not None:
            self._restrictions.move_to_end(key)
            return cached
        try:
            manifest = parse_manifest_object(raw, source="restriction")
            parsed = Restriction(TierPolicy(manifest), manifest.never_touch, manifest.hash)
        except ManifestError as exc:
            parsed = Restriction(None, (), canonical_hash(key), problem="; ".join(exc.problems))
        self._restrictions[key] = parsed
        if len(self._restrictions) > _RESTRICTION_CACHE:
            self._restrictions.popitem(last=False)
        return parsed

    def advertised(
        self,
        specs: Iterable[ToolSpec],
        names: Iterable[str],
        restriction: Restriction | None = None,
    ) -> set[str]:
        """Tools some variant of which the service tiers could allow, and a request's
        ``restriction`` too when it has one (an invalid one allows only the tools every policy
        leaves open). A convenience for the model, never a boundary: every call is still
        enforced."""
        available = set(names)
        tiers = [tier for _, tier in self.state.tiers]
        if restriction is not None and restriction.tier is not None:
            tiers.append(restriction.tier)
        invalid = restriction is not None and restriction.tier is None
        shown = set()
        for spec in specs:
            if spec.name not in available:
                continue
            if spec.governance.always_open or (
                not invalid
                and all(
                    any(tier.reachable(needs) for _, needs in capability_rows(spec))
                    for tier in tiers
                )
            ):
                shown.add(spec.name)
        return shown

    # --- safety switches ---------------------------------------------------------------------

    def hold(self) -> str:
        already = self.held
        self.held = True
        unsaved = self._save_switches()
        self._notify("hold")
        said = "Already held." if already else "Held: agents' browser calls now stop until resume."
        return said + unsaved

    def panic(self) -> str:
        already = self.panicked
        self.panicked = True
        unsaved = self._save_switches()
        self._notify("panic")
        said = "Kill switch already engaged" if already else "Kill switch engaged"
        return f"{said}: browser work stopped; calls are refused until resume.{unsaved}"

    def catch_up_saved_switches(self) -> tuple[str, ...]:
        """Apply a hold or kill switch saved since this service last read or wrote the record:
        the CLI saves one itself when no service takes it (pressed while this one was starting,
        stopped or frozen). Only switches on: a saved "off" that did not reach this service
        must not release what it holds unasked; status shows the difference, and a `resume`
        that reaches it releases it. Returns the switches applied, as answers name them."""
        saved = self._changed_record()
        if saved is None:
            return ()
        caught = tuple(
            (command, name)
            for command, name, on, now in (
                ("panic", "kill switch", saved.panicked, self.panicked),
                ("hold", "hold", saved.held, self.held),
            )
            if on and not now
        )
        if not caught:
            return ()
        log.warning(
            "%s was saved while this service did not answer: applied now",
            " and ".join(name for _, name in caught),
        )
        self.panicked = self.panicked or saved.panicked
        self.held = self.held or saved.held
        self._from_record.update(name for _, name in caught)
        self._save_switches()
        for command, _ in caught:
            self._notify(command)
        return tuple(name for _, name in caught)

    def _changed_record(self) -> Switches | None:
        """The saved record when it differs from what this service last read or wrote; None
        when it is the same, absent from this service, or unreadable (logged once: a running
        service keeps its switches, the next start takes the kill switch)."""
        if self._switches_file is None:
            return None
        try:
            saved = read_switches(self._switches_file)
        except UnreadableSwitches as exc:
            if str(exc) != self._unreadable:
                log.error("%s: this service keeps its switches as they are", exc)
            self._unreadable = str(exc)
            return None
        self._unreadable = ""
        if saved == self._known:
            return None
        self._known = saved
        return saved

    def resume(self) -> str:
        late = self.catch_up_saved_switches()
        was = [self._released(name, late) for name in Switches(self.held, self.panicked).names]
        paused = self.attention.resume_all()
        self.held = False
        self.panicked = False
        self._from_record.clear()
        unsaved = self._save_switches()
        if paused:
            was.append(f"{paused} paused workspace{'s' if paused != 1 else ''}")
        self._notify("resume")
        return (f"Resumed ({', '.join(was)})." if was else "Nothing was held.") + unsaved

    def _released(self, name: str, late: tuple[str, ...]) -> str:
        """How a resume names a switch it released: one saved while this service did not
        answer says so, and whether this service had applied it before the resume came."""
        if name in late:
            return f"{name} saved while this service did not answer, not applied until now"
        if name in self._from_record:
            return f"{name} saved while this service did not answer"
        return name

    def _save_switches(self) -> str:
        """Keep the switches for the next start; what to add to the answer if that failed."""
        if self._switches_file is None:
            return ""
        try:
            save_switches(self._switches_file, Switches(self.held, self.panicked))
        except OSError as exc:
            log.error("the safety switches could not be saved to %s: %s", self._switches_file, exc)
            return f" (Not saved to {self._switches_file}: {exc}; a restart would not keep it.)"
        self._known = Switches(self.held, self.panicked)
        return ""

    def resume_workspace(self, fingerprint: str) -> tuple[bool, str]:
        """Close the attention circuit of the one paused workspace audit names ``fingerprint``;
        hold and the kill switch are left as they are."""
        name = self.fingerprint
        if name is None:
            return False, "This service cannot resume one workspace; `ghostlight resume` does all."
        paused = {name(workspace): workspace for workspace in self.attention.paused()}
        workspace = paused.get(fingerprint)
        if workspace is None:
            known = ", ".join(sorted(str(fp) for fp in paused)) or "none"
            return False, f"No paused workspace {fingerprint!r} (paused now: {known})."
        carried = self.attention.resume_one(workspace) - 1
        self._notify("resume_workspace", workspace=fingerprint)
        switches = [
            label for label, on in (("hold", self.held), ("kill switch", self.panicked)) if on
        ]
        still = f" ({' and '.join(switches)} still on until `ghostlight resume`)" if switches else ""
        also = (
            f", and the {carried} workspace{'s' if carried != 1 else ''} its client opened while"
            " it was paused"
            if carried
            else ""
        )
        return True, f"Resumed workspace {fingerprint}{also}{still}."

    def control(self, command: str) -> tuple[bool, str]:
        """A control command from the CLI: ``hold``, ``resume``, ``resume workspace <ws-…>``,
        ``panic`` or ``reload``."""
        self.catch_up_saved_switches()  # before a command saves the record over it
        words = command.split()
        if words[:2] == ["resume", "workspace"]:
            if len(words) != 3:
                return False, "Usage: resume workspace <fingerprint>."
            return self.resume_workspace(words[2])
        if command == "hold":
            return True, self.hold()
        if command == "resume":
            return True, self.resume()
        if command == "panic":
            return True, self.panic()
        if command == "reload":
            changed = self.reload_if_changed()
            problems = self.state.problems
            if problems:
                return False, "Kept the last good policy: " + "; ".join(problems)
            return True, "Policy reloaded." if changed else "Policy unchanged."
        return False, f"Unknown control command {command!r}."

    def _notify(self, what: str, **fields: str | None) -> None:
        self.event(what, **fields)
        for listener in list(self.listeners):
            try:
                listener(what)
            except Exception:
                log.exception("governance listener failed")

    def event(self, what: str, **fields: str | None) -> None:
        """One audit event; never fails the caller."""
        record = self.record_event
        if record is None:
            return
        try:
            record(what, **fields)
        except Exception:
            log.exception("governance event %s not recorded", what)

    def name_of(self, workspace: object) -> str | None:
        """How logs and audit name a workspace: its fingerprint, never the handle (None when
        there is no workspace)."""
        name = self.fingerprint
        return name(workspace) if name is not None else "(a workspace)"

    @property
    def settings(self) -> Settings:
        loaded = self.sources.current if self.sources else Loaded()
        return loaded.settings
