"""The parts of ``ghostlight bundle`` on their own: which dependencies go in, what the manifest
promises, and how the bundle's entry point treats the settings Claude Desktop passes."""

from __future__ import annotations

import os

import pytest
from ghostlight_mcp_connector.bundled import prepare

from ghostlight_trio.install.bundle_contents import canonical, dependencies, holds
from ghostlight_trio.install.bundle_manifest import manifest


def test_markers_are_evaluated_for_this_interpreter() -> None:
    assert holds("") and holds("python_version >= '3.11'")
    assert not holds("python_version < '3.0'")


def test_only_runtime_dependencies_whose_markers_hold_go_in() -> None:
    names = {canonical(dist.metadata["Name"]) for dist in dependencies()}
    assert {"trio", "attrs", "cattrs", "cbor2", "jsonschema", "rpds-py", "pillow"} <= names
    assert "ghostlight-trio" not in names
    assert names.isdisjoint({"pytest", "mypy", "mcp", "nox", "hypothesis"})  # the dev extra
    if os.name != "nt":
        assert "cffi" not in names  # trio needs it on Windows only


def test_a_pure_bundle_names_no_platform_and_a_compiled_one_its_own() -> None:
    pure = manifest("1.0.0", "d", compiled=[], python="3.11")
    assert "platforms" not in pure["compatibility"]
    assert pure["compatibility"]["runtimes"]["python"] == ">=3.11"
    tied = manifest("1.0.0", "d", compiled=["pillow"], python="3.11")
    assert tied["compatibility"]["runtimes"]["python"] == ">=3.11 <3.12"
    assert len(tied["compatibility"]["platforms"]) == 1
    env = tied["server"]["mcp_config"]["env"]
    assert env["GHOSTLIGHT_INSTANCE"] == "${user_config.instance}"
    assert env["GHOSTLIGHT_MANIFEST"] == "${user_config.policy_manifest}"
    assert set(tied["user_config"]) == {"instance", "policy_manifest"}


def test_the_entry_point_drops_empty_settings_and_puts_lib_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["/elsewhere", "/b/lib"]))
    monkeypatch.setenv("GHOSTLIGHT_INSTANCE", "work")
    monkeypatch.setenv("GHOSTLIGHT_MANIFEST", "${user_config.policy_manifest}")
    prepare("/b/lib")
    assert os.environ["PYTHONPATH"] == os.pathsep.join(["/b/lib", "/elsewhere"])
    assert os.environ["GHOSTLIGHT_INSTANCE"] == "work"
    assert "GHOSTLIGHT_MANIFEST" not in os.environ
    monkeypatch.setenv("GHOSTLIGHT_INSTANCE", " ")
    prepare("/b/lib")
    assert "GHOSTLIGHT_INSTANCE" not in os.environ
