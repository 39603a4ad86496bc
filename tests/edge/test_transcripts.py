"""Replay every conformance transcript against the real connector and a service."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .harness import Instance, browser_available
from .transcript import parse, replay

TRANSCRIPTS = Path(__file__).resolve().parents[2] / "conformance_transcripts"
FAKE_HOOKS = {"catalog-change-hook"}
REAL_HOOKS = {"catalog-change-hook", "compositions", "browser"}
"""What each service offers a case that ``! requires`` it: the fake's catalog toggle; the real
service's policy reload, its compositions (browser_batch, which the fake does not run) and a
browser (a managed headless Chromium with the real extension and native host, for a case of its
own: a workspace, tabs, slow calls that report progress)."""
OWN_INSTANCE = {"catalog-change-hook", "browser"}
ALL_ENV = "GHOSTLIGHT_TRANSCRIPTS_ALL"
"""Set (``nox -s transcripts``): a case the service cannot run fails instead of being skipped."""


def _cases() -> list[Path]:
    return sorted(TRANSCRIPTS.glob("T*.jsonl"))


def test_enough_transcripts() -> None:
    assert len(_cases()) >= 100


@pytest.mark.parametrize("path", _cases(), ids=lambda p: p.stem)
def test_transcript(
    path: Path, shared_instance: Instance, tmp_path_factory: pytest.TempPathFactory
) -> None:
    transcript = parse(path)
    offered = FAKE_HOOKS if shared_instance.kind == "fake" else REAL_HOOKS
    if not browser_available():  # no Chromium or no built extension here
        offered = offered - {"browser"}
    missing = [need for need in transcript.requires if need not in offered]
    if missing:
        why = f"the {shared_instance.kind} service does not offer {', '.join(missing)}"
        if os.environ.get(ALL_ENV):
            pytest.fail(why)
        pytest.skip(why)
    if transcript.service_env or OWN_INSTANCE.intersection(transcript.requires):
        instance = Instance(tmp_path_factory.mktemp(path.stem), kind=shared_instance.kind)
        env = dict(transcript.service_env)
        if instance.kind == "real" and "catalog-change-hook" in transcript.requires:
            instance.write_allow_all_manifest(1)
            env["GHOSTLIGHT_MANIFEST"] = str(instance.manifest_path)
        instance.start_service(**env)
        try:
            if "browser" in transcript.requires:
                instance.launch_browser()
            replay(transcript, instance)
        finally:
            instance.stop_browser()
            instance.stop_service()
            instance.stop_launched_services()
    else:
        replay(transcript, shared_instance)


def test_every_expected_line_is_whole() -> None:
    """No subset matching: each server line is compared whole (after normalising minted values)."""
    for path in _cases():
        kinds = {line.split(" ", 1)[0] for line in path.read_text("utf-8").splitlines() if line}
        assert "<~" not in kinds, path.name
