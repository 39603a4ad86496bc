"""Per-user autostart of the service: a systemd ``--user`` unit or a launchd agent.

Only the file is written; enabling it is a command the user runs (and tests never do).
"""

from __future__ import annotations

import plistlib
import sys
from pathlib import Path

from ..transport.endpoints import DEFAULT_INSTANCE, INSTANCE_ENV, Endpoints
from .identity import pinned_env
from .places import Place


def unit_name(instance: str) -> str:
    return "ghostlight" if instance == DEFAULT_INSTANCE else f"ghostlight-{instance}"


def agent_label(instance: str) -> str:
    return "io.ghostlight.trio.service" + ("" if instance == DEFAULT_INSTANCE else f".{instance}")


def service_argv(endpoints: Endpoints) -> list[str]:
    return [
        sys.executable, "-m", "ghostlight_trio", "service",
        "--instance", endpoints.instance, "--keep-warm",
    ]


def autostart_path(place: Place, instance: str) -> Path:
    if place.platform == "darwin":
        return place.home / "Library" / "LaunchAgents" / f"{agent_label(instance)}.plist"
    return place.xdg_config / "systemd" / "user" / f"{unit_name(instance)}.service"


def autostart_text(place: Place, endpoints: Endpoints) -> str:
    env = {INSTANCE_ENV: endpoints.instance, **pinned_env()}
    argv = service_argv(endpoints)
    if place.platform == "darwin":
        plist = {
            "Label": agent_label(endpoints.instance),
            "ProgramArguments": argv,
            "EnvironmentVariables": env,
            "RunAtLoad": True,
            "KeepAlive": {"SuccessfulExit": False},
            "StandardErrorPath": str(endpoints.data_dir / "launchd.err"),
        }
        return plistlib.dumps(plist).decode("utf-8")
    quoted = " ".join(_systemd_quote(a) for a in argv)
    lines = [
        "[Unit]",
        f"Description=Ghostlight service (instance {endpoints.instance})",
        "",
        "[Service]",
        f"ExecStart={quoted}",
        *(f'Environment="{k}={v}"' for k, v in env.items()),
        "Restart=on-failure",
        "",
        "[Install]",
        "WantedBy=default.target",
    ]
    return "\n".join(lines) + "\n"


def activation_hint(place: Place, instance: str) -> str:
    if place.platform == "darwin":
        path = autostart_path(place, instance)
        return f"launchctl bootstrap gui/$(id -u) {path}"
    return f"systemctl --user daemon-reload && systemctl --user enable --now {unit_name(instance)}"


def _systemd_quote(value: str) -> str:
    if value and all(c.isalnum() or c in "/._-+=:," for c in value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
