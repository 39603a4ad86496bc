"""The policy manifest: one strict parser for the org file, the user file and restrictions.

All-or-nothing: unknown fields, duplicate keys, duplicate grant ids, bad patterns or unknown
capabilities reject the whole manifest, and every problem is reported with where it is (a line
and column for JSON syntax, a field path for everything else). The identity hash is taken over
the canonical JSON form, so reformatting a file does not change denial ids.
"""

from __future__ import annotations

import errno
import hashlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

import attrs

from ..files.safe import UnsafeFile, read_regular
from ..untrusted.unicode import has_lone_surrogate
from .hosts import HostPattern, PatternError

SCHEMA_VERSION = 3
CAPABILITIES = ("read", "action", "write", "execute")
Mode = Literal["observe", "enforce"]
MODES = ("observe", "enforce")

_TOP_FIELDS = {"schema", "name", "version", "description", "mode", "grants", "sacred"}
_GRANT_FIELDS = {"id", "description", "hosts", "allowed", "mode"}
_HOSTS_FIELDS = {"allow", "deny"}


class ManifestError(ValueError):
    """The manifest was rejected; ``problems`` lists every reason, each with its location."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        super().__init__(f"{source}: " + "; ".join(problems))


@attrs.frozen
class Grant:
    """One grant: the capabilities ``allowed`` on the hosts ``allow`` admits, less ``deny``."""

    id: str
    allow: tuple[HostPattern, ...]
    deny: tuple[HostPattern, ...]
    allowed: frozenset[str]
    mode: Mode | None = None
    description: str = ""


@attrs.frozen
class Manifest:
    """One parsed policy file (or restriction): its grants in order and its own never-touch
    list (the file's ``sacred``)."""

    name: str
    version: str
    mode: Mode
    grants: tuple[Grant, ...]
    never_touch: tuple[HostPattern, ...]
    hash: str
    """SHA-256 (hex) of the canonical JSON form: the manifest's identity in ids and audit."""
    description: str = ""

    @property
    def label(self) -> str:
        """``name@version#hash8``: how audit and explanations name this manifest."""
        return f"{self.name}@{self.version}#{self.hash[:8]}"


def canonical_hash(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    # surrogatepass: total, so even text no manifest may hold still gets an identity.
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def load_manifest(path: Path) -> Manifest:
    """Read and parse a manifest file; raises ``ManifestError`` (also for unreadable files)."""
    try:
        # A link is followed (an administrator's or the user's own arrangement); what it leads
        # to must be a regular file all the same, and the manifest may be someone else's.
        data = read_regular(path, limit=MAX_MANIFEST_BYTES, follow_links=True, owned=False)
        if data is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory")
        text = data.decode("utf-8")
    except UnsafeFile as exc:
        raise ManifestError(str(path), [exc.reason]) from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ManifestError(str(path), [f"cannot read the file: {reason.lower()}"]) from None
    return parse_manifest_text(text, source=str(path))


MAX_MANIFEST_BYTES = 1024 * 1024
"""Far past any real manifest; a larger file is refused unread, so none can hold the reader up."""


def parse_manifest_text(text: str, *, source: str = "manifest") -> Manifest:
    try:
        value = json.loads(text, object_pairs_hook=_refuse_duplicates)
    except json.JSONDecodeError as exc:
        raise ManifestError(source, [f"line {exc.lineno} column {exc.colno}: {exc.msg}"]) from None
    except _DuplicateKey as exc:
        raise ManifestError(source, [str(exc)]) from None
    except RecursionError:
        raise ManifestError(source, [_TOO_DEEP]) from None
    return parse_manifest_object(value, source=source)


_TOO_DEEP = "arrays and objects nest too deeply to read"
_LONE_SURROGATE = "a \\u escape names half a surrogate pair, which is not a character"


def parse_manifest_object(value: Any, *, source: str = "manifest") -> Manifest:
    """Parse an already decoded manifest (the per-request restriction arrives this way)."""
    problems: list[str] = []
    try:
        if has_lone_surrogate(value):  # it could be neither audited nor logged
            raise ManifestError(source, [_LONE_SURROGATE])
        manifest = _Parser(problems).manifest(value)
    except RecursionError:
        raise ManifestError(source, [_TOO_DEEP]) from None
    if problems or manifest is None:
        raise ManifestError(source, problems or ["not a manifest"])
    return manifest


class _DuplicateKey(ValueError):
    pass


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, item in pairs:
        if key in seen:
            raise _DuplicateKey(f"duplicate key {key!r}")
        seen[key] = item
    return seen


class _Parser:
    """Collects every problem instead of stopping at the first."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems

    def fail(self, where: str, what: str) -> None:
        self.problems.append(f"{where}: {what}" if where else what)

    def fields(self, value: Any, where: str, allowed: set[str], required: set[str]) -> bool:
        if not isinstance(value, Mapping):
            self.fail(where, "must be an object")
            return False
        for key in value:
            if key not in allowed:
                self.fail(_join(where, key), f"unknown field (allowed: {', '.join(sorted(allowed))})")
        for key in sorted(required - value.keys()):
            self.fail(_join(where, key), "is required")
        return True

    def text(self, value: Any, where: str, *, required: bool = True) -> str:
        if value is None:
            return ""  # a missing required field was already reported by ``fields``
        if not isinstance(value, str) or (required and not value.strip()):
            self.fail(where, "must be a non-empty string" if required else "must be a string")
            return ""
        return value

    def mode(self, value: Any, where: str) -> Mode | None:
        if value is None:
            return None
        if value not in MODES:
            self.fail(where, "must be 'observe' or 'enforce'")
            return None
        return value  # type: ignore[no-any-return]

    def patterns(self, value: Any, where: str) -> tuple[HostPattern, ...]:
        if value is None:
            return ()
        if not isinstance(value, list):
            self.fail(where, "must be a list of host patterns")
            return ()
        parsed = []
        for index, item in enumerate(value):
            try:
                parsed.append(HostPattern.parse(item))
            except PatternError as exc:
                self.fail(f"{where}[{index}]", str(exc))
        return tuple(parsed)

    def capabilities(self, value: Any, where: str) -> frozenset[str]:
        if not isinstance(value, list):
            self.fail(where, "must be a list of capabilities")
            return frozenset()
        for index, item in enumerate(value):
            if item not in CAPABILITIES:
                self.fail(f"{where}[{index}]", f"unknown capability {item!r} (use {', '.join(CAPABILITIES)})")
        return frozenset(item for item in value if item in CAPABILITIES)

    def grant(self, value: Any, where: str) -> Grant | None:
        if not self.fields(value, where, _GRANT_FIELDS, {"id", "allowed"}):
            return None
        hosts = value.get("hosts", {})
        allow: tuple[HostPattern, ...] = ()
        deny: tuple[HostPattern, ...] = ()
        if self.fields(hosts, _join(where, "hosts"), _HOSTS_FIELDS, set()):
            allow = self.patterns(hosts.get("allow"), _join(where, "hosts.allow"))
            deny = self.patterns(hosts.get("deny"), _join(where, "hosts.deny"))
        return Grant(
            id=self.text(value.get("id"), _join(where, "id")),
            allow=allow,
            deny=deny,
            allowed=self.capabilities(value.get("allowed"), _join(where, "allowed")),
            mode=self.mode(value.get("mode"), _join(where, "mode")),
            description=self.text(value.get("description"), _join(where, "description"), required=False),
        )

    def manifest(self, value: Any) -> Manifest | None:
        if not self.fields(value, "", _TOP_FIELDS, {"schema", "name", "version", "grants"}):
            return None
        schema = value.get("schema")
        if schema is not None and (type(schema) is not int or schema != SCHEMA_VERSION):
            self.fail("schema", f"must be {SCHEMA_VERSION}")
        grants_value = value.get("grants", [])
        grants: list[Grant] = []
        if not isinstance(grants_value, list):
            self.fail("grants", "must be a list")
        else:
            for index, item in enumerate(grants_value):
                grant = self.grant(item, f"grants[{index}]")
                if grant is not None:
                    grants.append(grant)
            for grant_id in _duplicates(grant.id for grant in grants):
                self.fail("grants", f"duplicate grant id {grant_id!r}")
        return Manifest(
            name=self.text(value.get("name"), "name"),
            version=self.text(value.get("version"), "version"),
            mode=self.mode(value.get("mode"), "mode") or "enforce",
            grants=tuple(grants),
            never_touch=self.patterns(value.get("sacred"), "sacred"),
            hash=canonical_hash(value),
            description=self.text(value.get("description"), "description", required=False),
        )


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _duplicates(items: Iterator[str]) -> list[str]:
    seen: set[str] = set()
    repeated: list[str] = []
    for item in items:
        if item in seen and item not in repeated:
            repeated.append(item)
        seen.add(item)
    return repeated
