"""Replay one conformance transcript against a real connector process.

Format (one directive per line; see conformance_transcripts/README.md):
  # text              comment
  > json              line written to the connector's stdin ($M, $I, and the last nextCursor,
                      workspaceId and tabId seen as $CURSOR, $WORKSPACE and $TAB, substituted)
  >hex HEX            raw bytes written to stdin (a newline is appended)
  >big N              one line of N bytes that is not JSON
  < json              next stdout line, whole and byte-exact once the values the service or
                      connector mint are normalised (``harness.normalise``: workspace ids, tab
                      ids, tab group ids, fence nonces, cursors, times) and the variables
                      substituted (``substitute``; $TAB and the like as seen in that line)
  ! unordered N       the next N expectation lines may arrive in any order
  ! quiet SECONDS     no stdout line for that long
  ! sleep SECONDS
  ! handshake         the 2025-11-25 initialize + notifications/initialized exchange
  ! catalog-change    make the service change its tool set
  ! kill-service      SIGKILL the service (a case with its own service: ! service-env)
  ! signal NAME       send a signal to the connector (TERM, ...)
  ! eof               close stdin
  ! env K=V           connector environment (header only)
  ! service-env K=V   this case needs its own service with that environment (header only)
  ! requires WHAT     skip unless the service offers WHAT (header only)
At the end stdin is closed; no further stdout line may appear and the exit code must be 0
within 2 s. Every line the connector writes is also checked against the official schema of its
revision (``schema_oracle.SchemaOracle``).
"""

from __future__ import annotations

import functools
import json
import re
import signal
import time
from pathlib import Path
from typing import Any

import attrs
from ghostlight_mcp_connector import __version__

from .harness import INIT, META, Connector, Instance, normalise


@attrs.define
class Transcript:
    path: Path
    steps: list[tuple[str, str]]
    env: dict[str, str]
    service_env: dict[str, str]
    requires: list[str]


def parse(path: Path) -> Transcript:
    steps: list[tuple[str, str]] = []
    env: dict[str, str] = {}
    service_env: dict[str, str] = {}
    requires: list[str] = []
    for raw in path.read_text("utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        if raw.startswith("! env "):
            key, _, value = raw[6:].partition("=")
            env[key] = value
        elif raw.startswith("! service-env "):
            key, _, value = raw[14:].partition("=")
            service_env[key] = value
        elif raw.startswith("! requires "):
            requires.append(raw[11:].strip())
        elif raw.startswith("! handshake"):
            steps += [
                (">", '{"jsonrpc":"2.0","id":0,"method":"initialize","params":$I}'),
                ("<", '{"jsonrpc":"2.0","id":0,"result":$INITIALIZE_RESULT}'),
                (">", '{"jsonrpc":"2.0","method":"notifications/initialized"}'),
            ]
        else:
            kind, _, rest = raw.partition(" ")
            steps.append((kind if kind != "!" else "!" + rest.split(" ")[0], rest))
    return Transcript(path, steps, env, service_env, requires)


VALUES = Path(__file__).resolve().parents[2] / "conformance_transcripts" / "values"
_VARIABLE = re.compile(r"\$([A-Z][A-Z0-9_]*)(?:\[(\d+):(\d+)\])?")


@functools.cache
def _value(name: str) -> str | None:
    """The JSON text of ``values/NAME.json``, compact as the connector writes it (None: no
    such file)."""
    path = VALUES / f"{name}.json"
    return _compact(json.loads(path.read_text("utf-8"))) if path.is_file() else None


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def substitute(text: str, seen: dict[str, str] | None = None) -> str:
    """``text`` with its variables replaced: ``$M``, ``$I``, ``$VERSION`` (the connector's), the
    minted values ``seen`` last (``$CURSOR``, ``$WORKSPACE``, ``$TAB``), and each file of
    ``conformance_transcripts/values/`` by its name (``$TOOLS_2025_11_25``,
    ``$INITIALIZE_RESULT``, ...), a list one sliced as ``$NAME[a:b]``."""

    def expand(found: re.Match[str]) -> str:
        name, start, stop = found.group(1), found.group(2), found.group(3)
        fixed = {"M": META, "I": INIT, "VERSION": __version__, **(seen or {})}
        if name in fixed and start is None:
            return fixed[name]
        value = _value(name)
        if value is None:
            return found.group(0)
        if start is not None:
            value = _compact(json.loads(value)[int(start) : int(stop)])
        return substitute(value, seen)

    return _VARIABLE.sub(expand, text)


def _matches(expected: str, line: bytes, seen: dict[str, str] | None = None) -> bool:
    text = line.decode("utf-8").rstrip("\n")
    return normalise(text) == normalise(substitute(expected, seen))


_MINTED = {
    "CURSOR": re.compile(r'"nextCursor":"([^"]*)"'),
    "WORKSPACE": re.compile(r'"workspaceId":"([^"]*)"'),
    "TAB": re.compile(r'"tabId":(-?\d+)'),
}
"""The values the service mints that a later request names, as they appear in a line."""


def _note_minted(line: bytes, seen: dict[str, str]) -> None:
    text = line.decode("utf-8", errors="replace")
    for name, pattern in _MINTED.items():
        if found := pattern.search(text):
            seen[name] = found.group(1)


def replay(transcript: Transcript, instance: Instance) -> None:
    connector = Connector(instance, **transcript.env)  # which checks each line's schema
    closed = False
    seen = {"CURSOR": ""}
    send, read = connector.send_raw, connector.read_line

    try:
        steps = list(transcript.steps)
        while steps:
            kind, rest = steps.pop(0)
            if kind == ">":
                send(substitute(rest, seen).encode("utf-8") + b"\n")
            elif kind == ">hex":
                send(bytes.fromhex(rest) + b"\n")
            elif kind == ">big":
                send(b"x" * int(rest) + b"\n")
            elif kind == "<":
                line = read()
                _note_minted(line, seen)
                assert _matches(rest, line, seen), (
                    f"{transcript.path.name}: expected\n  {substitute(rest, seen)}"
                    f"\ngot\n  {line.decode()!r}"
                )
            elif kind == "!unordered":
                count = int(rest.split()[1])
                expected = [steps.pop(0) for _ in range(count)]
                got = [read() for _ in range(count)]
                for line in got:
                    hit = next((e for e in expected if _matches(e[1], line)), None)
                    assert hit is not None, f"{transcript.path.name}: unexpected {line!r}"
                    expected.remove(hit)
            elif kind == "!quiet":
                connector.expect_quiet(float(rest.split()[1]))
            elif kind == "!sleep":
                time.sleep(float(rest.split()[1]))
            elif kind == "!catalog-change":
                instance.change_catalog()
            elif kind == "!kill-service":
                instance.kill_service()
            elif kind == "!signal":
                connector.process.send_signal(getattr(signal, "SIG" + rest.split()[1]))
                closed = True
            elif kind == "!eof":
                connector.close_stdin()
                closed = True
            else:
                raise AssertionError(f"unknown transcript step {kind!r}")
        if not closed:
            connector.close_stdin()
        assert connector.wait_exit(2.0) == 0, "connector did not exit 0"
        leftover = connector.lines.get(timeout=1.0)
        assert leftover is None, f"{transcript.path.name}: unexpected output {leftover!r}"
    finally:
        connector.terminate()
