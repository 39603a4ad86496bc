"""A command that acts on an instance refuses a name no instance has, and an empty one, before
it touches the disk; the commands that set an instance up may still name a new one."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from ghostlight_trio.cli import instances
from ghostlight_trio.cli.main import main
from ghostlight_trio.transport.endpoints import Endpoints, InstanceNameError, instances_root

CHECKED = [
    ["hold"], ["panic"], ["resume"], ["status"], ["watch"], ["logs"], ["audit", "tail"], ["audit", "show"],
    ["policy", "explain"], ["policy", "simulate", "x.jsonl"], ["service", "stop"],
    ["service", "restart"], ["doctor"],
]  # fmt: skip


def tree(*roots: Path) -> set[Path]:
    return {path for root in roots if root.exists() for path in root.rglob("*")}


def roots(endpoints: Endpoints) -> tuple[Path, Path]:
    return endpoints.runtime_dir.parent, instances_root().parent


@pytest.mark.parametrize("argv", CHECKED, ids=" ".join)
def test_an_unknown_name_is_refused_naming_the_known_ones(set_up_instance, capsys, argv) -> None:
    before = tree(*roots(set_up_instance))
    assert main([*argv, "--instance", "not-there"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1  # one line
    assert f"no instance 'not-there' (known: {set_up_instance.instance})" in err
    assert "`ghostlight service start --instance not-there`" in err
    assert tree(*roots(set_up_instance)) == before  # nothing made, under either root


def test_with_nothing_set_up_the_default_is_unknown_too(instance_env, monkeypatch, capsys) -> None:
    monkeypatch.delenv("GHOSTLIGHT_INSTANCE")
    assert main(["panic"]) == 2
    err = capsys.readouterr().err
    assert "no instance 'default': nothing is set up yet" in err
    assert "`ghostlight install`" in err and "`ghostlight service start`" in err
    assert not Path(instance_env["GHOSTLIGHT_HOME"]).exists()


def test_doctor_diagnoses_the_default_even_before_anything_is_set_up(instance_env) -> None:
    args = argparse.Namespace(command="doctor", instance="default")
    assert instances.endpoints_for(args).instance == "default"
    named = argparse.Namespace(command="doctor", instance="typo")
    with pytest.raises(InstanceNameError, match="no instance 'typo'"):
        instances.endpoints_for(named)


@pytest.mark.parametrize(
    "namespace",
    [
        {"command": "service", "action": None},
        {"command": "service", "action": "start"},
        {"command": "service", "action": "stop", "manifest": "none"},
        {"command": "browser", "browser_command": "launch"},
        {"command": "install"},
        {"command": "demo"},
        {"command": "uninstall"},
        {"command": "policy", "policy_command": "check"},
    ],
    ids=lambda values: " ".join(str(v) for v in values.values() if v),
)
def test_commands_that_set_an_instance_up_may_name_a_new_one(instance_env, namespace) -> None:
    args = argparse.Namespace(instance="brand-new", **namespace)
    assert instances.endpoints_for(args).instance == "brand-new"


def test_the_demo_keeps_its_own_instance(instance_env) -> None:
    assert instances.endpoints_for(argparse.Namespace(command="demo")).instance == "demo"


@pytest.mark.parametrize("name", ["", " ", "\t"])
@pytest.mark.parametrize("argv", [["panic"], ["status"], ["service"], ["instances"]], ids=" ".join)
def test_an_empty_instance_name_is_refused_for_every_command(
    set_up_instance, capsys, argv, name
) -> None:
    assert main(["--instance", name, *argv]) == 2
    err = capsys.readouterr().err
    assert "--instance is empty" in err if name == "" else "instance" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("name", ["", "  "])
def test_an_empty_environment_name_is_refused(set_up_instance, monkeypatch, capsys, name) -> None:
    monkeypatch.setenv("GHOSTLIGHT_INSTANCE", name)
    assert main(["hold"]) == 2
    assert "$GHOSTLIGHT_INSTANCE is set but empty" in capsys.readouterr().err
    assert main(["instances", "--json"]) == 0  # it reads no instance: no matter there


def test_known_lists_data_directories_only(set_up_instance, tmp_path) -> None:
    root = instances_root()
    (root / "Not A Name").mkdir()
    (root / "stray-file").write_text("")
    assert instances.known() == [set_up_instance.instance]
