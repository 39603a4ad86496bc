"""ADR-0096 gate: a process id is diagnostic only, never a routing or authority key.

The rule, over every module of the shipped code (``ghostlight_trio/``, ``connectors/``), read
as syntax (``ast``):

A *pid* is ``os.getpid()``, ``os.getppid()``, any ``<expression>.pid`` attribute (a peer's
credentials, a child process, a status report), or a name ``pid``, ``*_pid`` or ``*Pid``.
No pid may be

1. a subscript: ``table[pid]`` (a lookup or an entry keyed by it);
2. a key of a dict display or dict comprehension: ``{pid: ...}``;
3. the key given to a mapping or set method: ``.get``, ``.pop``, ``.setdefault``, ``.add``,
   ``.discard``, ``.remove``, ``.__contains__``;
4. the left operand of ``in`` / ``not in``: ``pid in admitted``;
5. a field of a message on the private bridge other than the diagnostic ``StatusReport.pid``
   (nothing keyed, routed or admitted on the bridge can carry one);
6. compared with ``==`` or ``!=`` anywhere but the few places that recognise a process, named
   in ``RECOGNISING`` with their reason (``is None`` tests whether one is known, and is free).

Admission uses the peer's uid (``transport/peercred.py``); workspaces, work and browser routes
are keyed by service-minted ids.
"""

from __future__ import annotations

import ast
from pathlib import Path

import attrs

from ghostlight_trio.transport import bridge

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = (ROOT / "ghostlight_trio", ROOT / "connectors")
KEY_METHODS = frozenset({"get", "pop", "setdefault", "add", "discard", "remove", "__contains__"})
PID_CALLS = frozenset({"getpid", "getppid"})
RECOGNISING = {
    "connectors/ghostlight_mcp_connector/parent_watch.py": "the parent changed: it exited",
    "ghostlight_trio/cli/background.py": "the lock holder is the service this command started",
    "ghostlight_trio/browser/priority.py": "the browser leads a session of its own",
    "ghostlight_trio/browser/processes.py": "the browser leads its own process group",
}
"""Where a pid may be compared for equality: recognising a process, never granting or routing."""


def is_pid(node: ast.AST) -> bool:
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return name in PID_CALLS
    if isinstance(node, ast.Attribute):
        return node.attr == "pid"
    if isinstance(node, ast.Name):
        return node.id == "pid" or node.id.endswith(("_pid", "Pid"))
    return False


def offences(source: str, filename: str = "<source>") -> list[str]:
    """Each use of a pid as a key in ``source``, as ``file:line: what``."""
    recognising = filename in RECOGNISING
    found: list[str] = []

    def note(node: ast.AST, what: str) -> None:
        found.append(f"{filename}:{getattr(node, 'lineno', 0)}: {what}")

    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Subscript) and is_pid(node.slice):
            note(node, "a pid as a subscript")
        elif isinstance(node, ast.Dict) and any(k is not None and is_pid(k) for k in node.keys):
            note(node, "a pid as a dict key")
        elif isinstance(node, ast.DictComp) and is_pid(node.key):
            note(node, "a pid as a dict comprehension key")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in KEY_METHODS
            and node.args
            and is_pid(node.args[0])
        ):
            note(node, f"a pid given to .{node.func.attr}()")
        elif isinstance(node, ast.Compare) and is_pid(node.left):
            if any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
                note(node, "a pid tested for membership")
        if (
            isinstance(node, ast.Compare)
            and not recognising
            and any(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops)
            and any(is_pid(part) for part in (node.left, *node.comparators))
        ):
            note(node, "a pid compared for equality")
    return found


def _shipped_modules() -> list[Path]:
    return sorted(path for top in SHIPPED for path in top.rglob("*.py"))


def test_there_is_code_to_scan() -> None:
    modules = _shipped_modules()
    assert len(modules) > 100
    # The scan sees the pids the code does read (diagnostics): the rule is not vacuous.
    sources = "\n".join(path.read_text("utf-8") for path in modules)
    assert "os.getpid()" in sources and ".pid" in sources


def test_no_shipped_code_uses_a_pid_as_a_key() -> None:
    found: list[str] = []
    for path in _shipped_modules():
        found += offences(path.read_text("utf-8"), str(path.relative_to(ROOT)))
    assert not found, "a pid used as a routing or authority key:\n" + "\n".join(found)


def test_no_bridge_message_but_the_status_report_carries_a_pid() -> None:
    carriers = [
        f"{cls.__name__}.{field.name}"
        for cls in bridge.MESSAGE_TYPES.values()
        for field in attrs.fields(cls)
        if "pid" in field.name.lower()
    ]
    assert carriers == ["StatusReport.pid"], carriers


PLANTED = """
import os

def route(streams, peer, message, admitted, process):
    streams[peer.pid].send(message)
    table = {os.getpid(): "me"}
    by_pid = {p.pid: p for p in process}
    if peer.pid in admitted:
        return streams.get(peer_pid)
    admitted.add(os.getppid())
    if peer.pid == owner_pid:
        return True
"""


def test_the_rule_catches_a_planted_key() -> None:
    found = offences(PLANTED)
    kinds = [line.split(": ", 1)[1] for line in found]
    assert len(found) == 7, found
    assert {
        "a pid as a subscript",
        "a pid as a dict key",
        "a pid as a dict comprehension key",
        "a pid tested for membership",
        "a pid given to .get()",
        "a pid given to .add()",
        "a pid compared for equality",
    } == set(kinds)


def test_the_rule_leaves_diagnostics_alone() -> None:
    allowed = """
import os
log.info("service pid %d", os.getpid())
report = StatusReport(pid=os.getpid())
if report.pid is None:
    exit()
os.kill(process.pid, 15)
text = f"pid {peer.pid}"
"""
    assert offences(allowed) == []


def test_only_the_recognising_places_compare_pids() -> None:
    assert all((ROOT / path).is_file() for path in RECOGNISING)
    watch = "if os.getppid() != original:\n    exit()\n"
    assert offences(watch, "connectors/ghostlight_mcp_connector/parent_watch.py") == []
    assert offences(watch, "ghostlight_trio/engine/session.py") != []
