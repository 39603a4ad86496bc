"""``uninstall --client X`` takes out only those client entries: the browsers' native host (which
every other client's calls reach the browser through) and the autostart stay. ``--browser``
takes out only that browser's host; a full uninstall takes out everything.

And doctor, for a named instance whose browsers' host belongs to another instance, points at
the supported way (a managed browser) instead of a failure whose fix changes nothing."""

from __future__ import annotations

import argparse

import pytest

from ghostlight_trio.cli import install_command
from ghostlight_trio.cli.doctor import collect, render
from ghostlight_trio.install import autostart, clients, hosts
from ghostlight_trio.install.identity import server_name, wrapper_path
from ghostlight_trio.install.places import Place
from ghostlight_trio.install.plan import Options, plan_install, plan_uninstall
from ghostlight_trio.transport.endpoints import Endpoints

from .helpers import EXT_ID, apply_all


def registered(place: Place, endpoints: Endpoints, client_id: str) -> bool:
    name = server_name(endpoints.instance)
    return clients.current_entry(clients.client(client_id), place, name) is not None


@pytest.fixture
def everything(place: Place, endpoints: Endpoints) -> Place:
    options = Options(
        clients=("cursor", "claude-code"), browsers=("chromium", "brave"),
        autostart=True, extension_ids=(EXT_ID,),
    )
    apply_all(plan_install(place, endpoints, options))
    return place


def host_files(place: Place, endpoints: Endpoints) -> list[bool]:
    return [
        hosts.browser("chromium").manifest_path(place).exists(),
        hosts.browser("brave").manifest_path(place).exists(),
        wrapper_path(endpoints).exists(),
    ]


def test_uninstalling_one_client_keeps_the_host_and_the_other_clients(
    everything: Place, endpoints: Endpoints
) -> None:
    place = everything
    actions = plan_uninstall(place, endpoints, Options(clients=("cursor",)))
    apply_all(actions)
    assert not registered(place, endpoints, "cursor")
    assert registered(place, endpoints, "claude-code")
    assert host_files(place, endpoints) == [True, True, True]
    assert autostart.autostart_path(place, endpoints.instance).exists()
    kept = next(a for a in actions if a.label == "Browsers")
    assert kept.change is None and not kept.failed and "native host kept" in kept.note
    assert f"ghostlight uninstall --browser ID --instance {endpoints.instance}" in kept.note


def test_uninstalling_one_browser_keeps_the_clients(everything: Place, endpoints: Endpoints) -> None:
    place = everything
    apply_all(plan_uninstall(place, endpoints, Options(browsers=("chromium",))))
    assert host_files(place, endpoints) == [False, True, True]  # brave still runs the program
    assert registered(place, endpoints, "cursor") and registered(place, endpoints, "claude-code")
    assert autostart.autostart_path(place, endpoints.instance).exists()


def test_a_full_uninstall_takes_everything(everything: Place, endpoints: Endpoints) -> None:
    place = everything
    apply_all(plan_uninstall(place, endpoints, Options()))
    assert host_files(place, endpoints) == [False, False, False]
    assert not registered(place, endpoints, "cursor")
    assert not registered(place, endpoints, "claude-code")
    assert not autostart.autostart_path(place, endpoints.instance).exists()


def test_client_and_browser_together_take_both(everything: Place, endpoints: Endpoints) -> None:
    place = everything
    both = Options(clients=("cursor",), browsers=("chromium", "brave"))
    apply_all(plan_uninstall(place, endpoints, both))
    assert host_files(place, endpoints) == [False, False, False]
    assert not registered(place, endpoints, "cursor")
    assert registered(place, endpoints, "claude-code")


def test_no_note_about_a_host_that_is_not_there(place: Place, endpoints: Endpoints) -> None:
    apply_all(plan_install(place, endpoints, Options(clients=("cursor",), browsers=())))
    actions = plan_uninstall(place, endpoints, Options(clients=("cursor",)))
    assert [a.label for a in actions if a.label == "Browsers"] == []


def test_the_command_line_keeps_the_host(
    everything: Place, endpoints: Endpoints, capsys: pytest.CaptureFixture[str]
) -> None:
    args = argparse.Namespace(dry_run=False, client=["cursor"], no_clients=False, browser=None)
    assert install_command.run(endpoints, args, installing=False) == 0
    out = capsys.readouterr().out
    assert "Cursor" in out and "native host kept" in out
    assert "Chromium" not in out and "Brave" not in out and "Native host program" not in out
    assert host_files(everything, endpoints) == [True, True, True]


# -- doctor: the browsers' host belongs to another instance ------------------------------------------


async def test_doctor_points_a_named_instance_at_a_managed_browser(
    place: Place, endpoints: Endpoints
) -> None:
    first = Endpoints.for_instance(endpoints.instance + "-a")
    options = Options(clients=("cursor",), browsers=("chromium",), extension_ids=(EXT_ID,))
    apply_all(plan_install(place, first, options))
    apply_all(plan_install(place, endpoints, options))  # skips Chromium: it serves the first
    rows = await collect(endpoints, place)
    assert [r for r in rows if r.verdict == "fail"] == []
    chromium = next(r for r in rows if r.name == "Chromium")
    assert chromium.verdict == "info" and repr(first.instance) in chromium.detail
    anywhere = next(r for r in rows if r.name == "any browser")
    assert anywhere.verdict == "warn"
    launch = f"ghostlight browser launch --instance {endpoints.instance}"
    assert launch in anywhere.detail and anywhere.fix.startswith(launch)
    assert f"Chromium (instance {first.instance!r})" in anywhere.detail
    assert "verdict: OK" in render(rows, endpoints)


async def test_doctor_still_fails_with_no_host_anywhere(place: Place, endpoints: Endpoints) -> None:
    apply_all(plan_install(place, endpoints, Options(clients=("cursor",), browsers=())))
    hosts.browser("chromium").user_dir(place).mkdir(parents=True)
    anywhere = next(r for r in await collect(endpoints, place) if r.name == "any browser")
    assert anywhere.verdict == "fail"
    assert anywhere.fix.startswith(f"ghostlight install --instance {endpoints.instance}")
