"""Developer sessions. The README's test command is ``nox -s lint tests``."""

from __future__ import annotations

import shutil
from pathlib import Path

import nox

nox.options.sessions = ["lint", "tests"]
nox.options.reuse_existing_virtualenvs = True

ROOT = Path(__file__).parent
NODE_CLIENT_DIR = ROOT / "tests" / "edge" / "node"
NODE_BUNDLE_DIR = ROOT / "tests" / "bundle" / "node"
NODE_RECORD_DIR = ROOT / "tests" / "record" / "node"


def _install(session: nox.Session) -> None:
    session.install("-e", ".[dev]")


def _node_clients(session: nox.Session, *folders: Path) -> None:
    """Install the TypeScript MCP SDK used by the client tests, the official mcpb CLI the
    bundle tests validate with and the Playwright Test runner that runs recorded flows (dev
    only, never shipped), each from its lock file."""
    for folder in folders or (NODE_CLIENT_DIR, NODE_BUNDLE_DIR, NODE_RECORD_DIR):
        if (folder / "package.json").exists() and shutil.which("npm"):
            with session.chdir(folder):
                session.run("npm", "ci", "--no-audit", "--no-fund", "--silent", external=True)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff, mypy --strict over the service and both connectors, import-linter, architecture
    tests."""
    _install(session)
    session.run("ruff", "check", "ghostlight_trio", "connectors", "tests", "noxfile.py")
    session.run("mypy", "ghostlight_trio", "connectors")
    session.run("lint-imports")
    session.run("pytest", "-q", "tests/architecture")


@nox.session
def tests(session: nox.Session) -> None:
    """Everything a change must pass: unit, seam, process, transcripts, quick fuzz, real-browser
    e2e, and the extension's own unit tests (node), unless arguments pick some tests out."""
    _install(session)
    _node_clients(session)
    session.run("pytest", "-q", "-p", "no:cacheprovider", *session.posargs)
    if not session.posargs:
        _extension_unit_tests(session)


def _extension_unit_tests(session: nox.Session) -> None:
    """The extension's JavaScript, with node's own test runner (fakes of chrome.* and a DOM)."""
    if shutil.which("node") is None:
        session.error("the extension's unit tests need node (Node 18 or later) on PATH")
    session.run("node", "--test", "tests/extension/", external=True)


@nox.session
def transcripts(session: nox.Session) -> None:
    """Replay conformance_transcripts/ against the real connector and the real service, every
    case run (a case that cannot run fails rather than being skipped; the cases that need a
    browser get a managed headless Chromium), and print the count."""
    _install(session)
    session.run(
        "pytest", "-q", "-rfEs", "tests/edge/test_transcripts.py", *session.posargs,
        env={"GHOSTLIGHT_EDGE_SERVICE": "real", "GHOSTLIGHT_TRANSCRIPTS_ALL": "1"},
    )


@nox.session
def e2e(session: nox.Session) -> None:
    """Real headless Chromium with the real extension and native host."""
    _install(session)
    session.run("pytest", "-q", "-m", "e2e", *session.posargs)


@nox.session
def fuzz(session: nox.Session) -> None:
    """Long Hypothesis runs over the parsers and the engine."""
    _install(session)
    session.run(
        "pytest", "-q", "-p", "no:logging", "tests", "-k", "fuzz or hypothesis or codec",
        *session.posargs,
        env={"GHOSTLIGHT_FUZZ_PROFILE": "long", "GHOSTLIGHT_FUZZ_SAVE": "1"},
    )


@nox.session
def faults(session: nox.Session) -> None:
    """The process-level fault matrix against real executables, printed as a table."""
    _install(session)
    session.run("python", "-m", "tests.faults", *session.posargs)


@nox.session
def load(session: nox.Session) -> None:
    """16 connectors and more coming and going, one service, one headless Chromium, judged as
    goals (service RSS and open fds flat after warm-up among them); a soak is e.g.
    ``nox -s load -- --seconds 600``."""
    _install(session)
    session.run("python", "-m", "tests.load", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks printed as ratios against a baseline measured in the same run."""
    _install(session)
    _node_clients(session, NODE_CLIENT_DIR)
    session.run("python", "-m", "tests.bench", *session.posargs)
