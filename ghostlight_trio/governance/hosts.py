"""Host names, host patterns and what a URL's host is, under one normalisation.

Manifests, tab URLs and navigate targets are all compared only after the normalisation the
browser itself applies, so spelling tricks cannot move a URL into a grant: userinfo and port
are dropped, a backslash in a web URL's authority is a slash, tabs and newlines vanish,
percent-escapes in the host are decoded, case is folded, trailing dots are removed, IDN labels
become punycode A-labels and numeric IPv4 spellings become a dotted quad. A host that cannot be
normalised resolves as ``Indeterminate`` and governance fails closed on it.

Host identity: every name and address of the machine the browser runs on is one host,
``localhost`` (``LOCAL_MACHINE``), for every check. A rule naming ``127.0.0.1`` and a URL
reaching the same server as ``[::1]``, ``0.0.0.0`` or ``app.localhost`` meet on that one name.
"""

from __future__ import annotations

import functools
import ipaddress
import os
import re
import socket
import stat
from pathlib import Path
from urllib.parse import unquote, urlsplit

import attrs
import idna

WEB_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp"})
"""Schemes whose URLs name a host that grants can cover."""
BLANK_URLS = frozenset({"about:blank", "about:srcdoc"})
_WRAPPING_SCHEMES = frozenset({"blob", "view-source", "filesystem"})
"""``blob:https://host/...`` and ``view-source:https://...`` are judged by the inner URL."""
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$")
_NUMERIC_LABEL = re.compile(r"^(?:0x[0-9a-f]*|[0-9]+)$")
_INVISIBLE = re.compile(r"[\t\n\r]")


@attrs.frozen
class Host:
    """A normalised host name (or bracketed IPv6 literal)."""

    name: str


@attrs.frozen
class Blank:
    """``about:blank`` and ``about:srcdoc``: nothing to protect, always allowed."""


@attrs.frozen
class OutOfScope:
    """A URL whose scheme names no grantable host (``data:``, ``file:``, ``chrome:`` ...)."""

    scheme: str


@attrs.frozen
class Indeterminate:
    """No trustworthy host could be read; a policy denies, the never-touch check cannot match."""

    reason: str


HostResolution = Host | Blank | OutOfScope | Indeterminate


LOCAL_MACHINE = "localhost"
"""The one name of the machine the browser runs on: loopback and unspecified addresses in every
spelling, ``localhost`` and ``*.localhost``, the machine's host name and the names the hosts
file gives those addresses (see ``specs/governance.md``, Host identity)."""
HOSTS_FILE = Path("/etc/hosts")
_HOSTS_FILE_LIMIT = 64 << 20
_LOOPBACK_V4 = ipaddress.IPv4Network("127.0.0.0/8")
_UNSPECIFIED_V4 = ipaddress.IPv4Address("0.0.0.0")
_EMBEDDING_V4 = (
    ipaddress.IPv6Network("::ffff:0:0/96"),  # IPv4-mapped
    ipaddress.IPv6Network("::/96"),  # IPv4-compatible (also holds ::1 and ::)
    ipaddress.IPv6Network("::ffff:0:0:0/96"),  # IPv4-translated
    ipaddress.IPv6Network("64:ff9b::/96"),  # NAT64, well-known prefix
)
"""IPv6 ranges whose low 32 bits are an IPv4 address the packet is meant for."""


def normalize_host(raw: str) -> str | None:
    """The canonical form of a host (``LOCAL_MACHINE`` for any name or address of this
    machine), or None when it is not a valid host name."""
    host = _spelled(raw)
    if host is None:
        return None
    return LOCAL_MACHINE if _is_local_machine(host) else host


def _is_local_machine(host: str) -> bool:
    """Whether ``host`` (as ``_spelled`` gives it) names the machine the browser runs on."""
    if host.startswith("["):
        try:
            return _machine_address(ipaddress.IPv6Address(host[1:-1]))
        except ValueError:
            return False
    if host[-1:].isdigit():  # a dotted quad, or a name whose last label ends in a digit
        try:
            return _machine_address(ipaddress.IPv4Address(host))
        except ValueError:
            pass
    return host == LOCAL_MACHINE or host.endswith("." + LOCAL_MACHINE) or host in local_machine_names()


def _machine_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Loopback (``127.0.0.0/8``, ``::1``) and unspecified (``0.0.0.0``, ``::``) addresses,
    the IPv4 ones also as IPv6 carries them: a connection to any of them reaches this machine."""
    if isinstance(address, ipaddress.IPv6Address):
        plain = ipaddress.IPv6Address(int(address))  # without a zone (``%lo``)
        if plain.is_loopback or plain.is_unspecified:
            return True
        if not any(plain in network for network in _EMBEDDING_V4):
            return False
        address = ipaddress.IPv4Address(int(plain) & 0xFFFFFFFF)
    return address in _LOOPBACK_V4 or address == _UNSPECIFIED_V4


def local_names(hosts_text: str, hostname: str) -> frozenset[str]:
    """The names a hosts file (its text) gives to this machine's addresses, and its host name,
    each as ``_spelled`` gives it."""
    names: set[str] = set()
    for line in hosts_text.splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) < 2:
            continue
        try:
            address = ipaddress.ip_address(fields[0])
        except ValueError:
            continue
        if _machine_address(address):
            names.update(fields[1:])
    names.add(hostname)
    spelled = (_spelled(name) for name in names)
    return frozenset(name for name in spelled if name is not None and not _ip_literal(name))


@functools.cache
def local_machine_names() -> frozenset[str]:
    """``local_names`` of this machine, read once per process: patterns parsed and URLs
    resolved later all fold the same names."""
    return local_names(_read_hosts_file(HOSTS_FILE), socket.gethostname())


def _read_hosts_file(path: Path) -> str:
    """The hosts file's text; empty when it cannot be read. The open never waits and only a
    regular file is read."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return ""
        chunks = []
        left = _HOSTS_FILE_LIMIT
        while left > 0 and (chunk := os.read(descriptor, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks).decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        os.close(descriptor)


def _ip_literal(host: str) -> bool:
    if host.startswith("["):
        return True
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        return False
    return True


def _spelled(raw: str) -> str | None:
    """A host as the browser spells it (case, escapes, IDN, IPv4 forms), or None."""
    text = _INVISIBLE.sub("", raw).strip()
    if "%" in text:
        text = unquote(text)
    if text.startswith("[") and text.endswith("]"):
        try:
            address = ipaddress.IPv6Address(text[1:-1])
        except ValueError:
            return None
        # An IPv4 address written as IPv6 (``[::ffff:10.0.0.4]``) reaches that IPv4 host, so
        # it is that host: rules name it once, in its dotted form.
        mapped = address.ipv4_mapped
        return str(mapped) if mapped is not None else f"[{address.compressed}]"
    text = text.rstrip(".")
    if not text:
        return None
    if not text.isascii():
        try:
            text = idna.encode(text, uts46=True).decode("ascii")
        except (idna.IDNAError, UnicodeError, ValueError):
            return None
    text = text.lower()
    labels = text.split(".")
    if _NUMERIC_LABEL.match(labels[-1]):
        return _ipv4(text)
    if len(text) > 253 or not all(_LABEL.match(label) for label in labels):
        return None
    if any(label.startswith("xn--") for label in labels):
        try:
            idna.decode(text)
        except (idna.IDNAError, UnicodeError, ValueError):
            return None
    return text


def _ipv4(text: str) -> str | None:
    """Every IPv4 spelling a browser accepts (``0x7f.1``, ``2130706433``) as a dotted quad."""
    try:
        return socket.inet_ntoa(socket.inet_aton(text))
    except OSError:
        return None


def resolve_url(url: str) -> HostResolution:
    """What host a URL the browser will load belongs to."""
    text = _INVISIBLE.sub("", url).strip(" \x00\x0b\x0c")
    if text.lower().split("#", 1)[0].split("?", 1)[0] in BLANK_URLS:
        return Blank()
    match = _SCHEME.match(text)
    if match is None:
        return Indeterminate("no scheme")
    scheme = match.group(1).lower()
    if scheme in _WRAPPING_SCHEMES:
        inner = resolve_url(text[match.end() :])
        # What is shown is the inner URL's: view-source:file:... reads a file like file: does.
        return inner if isinstance(inner, Host | OutOfScope) else OutOfScope(scheme)
    if scheme not in WEB_SCHEMES:
        return OutOfScope(scheme)
    rest = text[match.end() :].replace("\\", "/")
    try:
        parts = urlsplit(f"{scheme}:{rest}")
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return Indeterminate("malformed authority")
    host = parts.hostname
    if not host:
        return Indeterminate("no host")
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    normalized = normalize_host(host)
    return Host(normalized) if normalized is not None else Indeterminate("invalid host")


class PatternError(ValueError):
    """A host pattern outside the grammar: ``*``, ``*.domain`` or an exact host."""


@attrs.frozen
class HostPattern:
    """One parsed pattern. ``*.x`` matches strict subdomains of ``x``, never ``x`` itself;
    every name under ``localhost`` being this machine, ``*.localhost`` is ``localhost``."""

    text: str
    """The pattern as written (what rules and explanations quote)."""
    kind: str
    """``any``, ``subdomains`` or ``exact``."""
    host: str
    """The normalised host (the suffix for ``subdomains``; empty for ``any``)."""

    @classmethod
    def parse(cls, text: object) -> HostPattern:
        if not isinstance(text, str):
            raise PatternError("a host pattern must be a string")
        if text == "*":
            return cls(text=text, kind="any", host="")
        body, kind = (text[2:], "subdomains") if text.startswith("*.") else (text, "exact")
        if any(mark in body for mark in ("*", "/", "@", "\\", "?", "#")) or "://" in text:
            raise PatternError(
                f"{text!r} is not a host pattern: use '*', '*.example.com' or 'example.com'"
                " (no scheme, path, port or partial wildcard)"
            )
        if ":" in body and not body.startswith("["):
            if _ipv6_literal(body):
                raise PatternError(
                    f"{text!r} is an IPv6 address: write IPv6 addresses in brackets,"
                    f' e.g. "[{body}]"'
                )
            raise PatternError(f"{text!r} names a port; patterns match hosts only")
        if kind == "exact":
            host = normalize_host(body)
            if host is None:
                raise PatternError(f"{text!r} is not a valid host name")
            return cls(text=text, kind=kind, host=host)
        # A suffix is taken as written: ``*.devbox`` is the names under ``devbox``, even when
        # ``devbox`` itself is this machine's name.
        suffix = _spelled(body)
        if suffix is None:
            raise PatternError(f"{text!r} is not a valid host name")
        if suffix.startswith("["):
            raise PatternError(f"{text!r}: an IP address has no subdomains")
        if suffix == LOCAL_MACHINE or suffix.endswith("." + LOCAL_MACHINE):
            # Every name under localhost is this machine, which is the one host LOCAL_MACHINE:
            # ``*.localhost`` names it, as ``localhost`` does (else it could match nothing).
            return cls(text=text, kind="exact", host=LOCAL_MACHINE)
        return cls(text=text, kind=kind, host=suffix)

    def specificity(self, host: str) -> tuple[int, int] | None:
        """How specifically this pattern matches ``host`` (higher wins), None if it does not."""
        if self.kind == "any":
            return (0, 0)
        if self.kind == "exact":
            return (2, len(self.host)) if host == self.host else None
        return (1, len(self.host)) if host.endswith("." + self.host) else None


def _ipv6_literal(text: str) -> bool:
    """A bare IPv6 address (``::1``): its colons are not a port's."""
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def parent_suffixes(host: str) -> list[str]:
    """``a.b.example.com`` -> ``[b.example.com, example.com, com]``: what ``*.x`` could name."""
    if host.startswith("["):
        return []
    labels = host.split(".")
    return [".".join(labels[index:]) for index in range(1, len(labels))]
