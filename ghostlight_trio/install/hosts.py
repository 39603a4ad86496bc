"""Native-messaging host manifests for Chrome, Chromium, Edge and Brave (per-user locations).

The extension hard-codes one host name, so each browser can point it at one instance only; a
manifest that belongs to another instance is left alone and reported.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs

from ..transport.endpoints import Endpoints
from ..transport.native_host import NATIVE_HOST_NAME, host_manifest
from . import ledger
from .changes import FileChange, UnreadableFile, read_text
from .identity import wrapper_path
from .places import Place


@attrs.frozen
class BrowserTarget:
    id: str
    label: str
    linux_dir: str
    mac_dir: str
    binaries: tuple[str, ...]
    mac_app: str

    def user_dir(self, place: Place) -> Path:
        if place.platform == "darwin":
            return place.app_config / self.mac_dir
        return place.xdg_config / self.linux_dir

    def manifest_path(self, place: Place) -> Path:
        return self.user_dir(place) / "NativeMessagingHosts" / f"{NATIVE_HOST_NAME}.json"

    def detected(self, place: Place) -> bool:
        if self.user_dir(place).is_dir():
            return True
        if place.platform == "darwin":
            return (Path("/Applications") / self.mac_app).exists()
        return any(place.which(b) for b in self.binaries)


BROWSERS: tuple[BrowserTarget, ...] = (
    BrowserTarget(
        "chrome", "Google Chrome", "google-chrome", "Google/Chrome",
        ("google-chrome", "google-chrome-stable"), "Google Chrome.app",
    ),
    BrowserTarget(
        "chromium", "Chromium", "chromium", "Chromium", ("chromium", "chromium-browser"),
        "Chromium.app",
    ),
    BrowserTarget(
        "edge", "Microsoft Edge", "microsoft-edge", "Microsoft Edge",
        ("microsoft-edge", "microsoft-edge-stable"), "Microsoft Edge.app",
    ),
    BrowserTarget(
        "brave", "Brave", "BraveSoftware/Brave-Browser", "BraveSoftware/Brave-Browser",
        ("brave-browser", "brave"), "Brave Browser.app",
    ),
)
BROWSER_IDS = tuple(b.id for b in BROWSERS)


def browser(browser_id: str) -> BrowserTarget:
    return next(b for b in BROWSERS if b.id == browser_id)


def manifest_text(program: Path, extension_ids: list[str]) -> str:
    manifest = host_manifest(program, extension_ids[0])
    manifest["allowed_origins"] = [f"chrome-extension://{i}/" for i in extension_ids]
    return json.dumps(manifest, indent=2) + "\n"


def read_manifest(path: Path) -> dict[str, Any] | None:
    """The manifest (None: absent; empty: unreadable or not a manifest)."""
    try:
        text = read_text(path)
    except UnreadableFile:
        return {}
    if text is None:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def owner_instance(manifest: dict[str, Any], endpoints: Endpoints) -> str | None:
    """Which instance a manifest serves, as far as its program path tells (None: unknown).

    Only the tail a wrapper's path always has, ``instances/NAME/native-host/<wrapper>``, is
    read: a directory named ``instances`` higher up (in the data root or the home) is not."""
    program = str(manifest.get("path", ""))
    if program and Path(program) == wrapper_path(endpoints):
        return endpoints.instance
    parts = Path(program).parts
    tail = wrapper_path(endpoints).parts[-2:]
    if len(parts) >= 4 and parts[-2:] == tail and parts[-4] == "instances":
        return parts[-3]
    if program.endswith("/ghostlight-browser-connector"):
        return "default"
    return None


def plan_manifest(
    target: BrowserTarget, place: Place, endpoints: Endpoints, program: Path,
    extension_ids: list[str], *, remove: bool = False,
) -> tuple[FileChange | None, str]:
    """The manifest change for one browser, or None with the reason it is left alone."""
    path = target.manifest_path(place)
    before = read_text(path)  # UnreadableFile: the caller reports it
    existing = read_manifest(path)
    if existing is not None and existing.get("name") == NATIVE_HOST_NAME:
        owner = owner_instance(existing, endpoints)
        if owner is not None and owner != endpoints.instance:
            return None, (
                f"serves instance {owner!r}; the extension connects to one host per browser"
                f" (use `ghostlight browser launch --instance {endpoints.instance}` for a"
                " managed browser, or uninstall the other instance first)"
            )
    store = ledger.store_for(endpoints.data_dir)
    if remove:
        if existing is None:
            return FileChange(path, None, None), "not installed"
        if existing.get("name") != NATIVE_HOST_NAME:
            return None, "not a Ghostlight manifest"
        created = ledger.lookup(store, path)
        tidy = tuple(Path(d) for d in created.dirs) if created else ()
        record = ledger.Update(store, path, None, tidy)
        return FileChange(path, before, None, mode=0o644, backup=False, record=record), ""
    text = manifest_text(program, extension_ids)
    created_record = ledger.Update(store, path, ledger.Created(file=True)) if before is None else None
    return FileChange(path, before, text, mode=0o644, backup=False, record=created_record), ""
