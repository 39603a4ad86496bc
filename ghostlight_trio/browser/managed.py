"""The managed browser: Chromium with its own profile, the extension and the native host wired in.

``ghostlight browser launch``, the demo and the e2e tests use it. Everything lives under the
instance data directory, so named instances never share a profile or a host manifest.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
import trio

from ..files.safe import open_private, read_regular, replace_private
from ..transport.endpoints import HOME_ENV, INSTANCE_ENV, Endpoints, ensure_private_dir
from ..transport.native_host import NATIVE_HOST_NAME, host_manifest
from .devtools_pipe import PIPE_SWITCHES
from .discovery import PATH_NAMES, installed_browsers
from .priority import run_in_background
from .quiet import quiet_arguments, with_quiet_preferences

CONNECT_TIMEOUT = 30.0
LOAD_WAIT = 45.0
"""How long a pipe holder may take to start the browser and load the extension."""
STOP_GRACE = 5.0
_EXTENSION_ID = re.compile(r"^[a-p]{32}$")


HEADLESS_SCREEN = "1920x1080"


PROFILE_IN_USE_EXIT = 21
"""Chromium's exit code when another browser holds its profile."""


def exit_words(code: int) -> str:
    """``code N``, and what it means when Chromium's codes say (only the profile lock is a
    common one here: two launches of one instance at once)."""
    if code == PROFILE_IN_USE_EXIT:
        return f"code {code}: another browser holds the instance's profile"
    return f"code {code}"


class ManagedBrowserError(RuntimeError):
    """The managed browser cannot be found, prepared or connected; the message says what to do."""


def default_extension_dir() -> Path:
    """The unpacked extension: in a source checkout (and an editable install) the repository's
    own ``extension/``; in an installed package (wheel, ``pip install .``, pipx) the copy it
    carries as ``ghostlight_trio/extension`` (pyproject.toml maps the one onto the other).

    Missing from both, the packaged place is returned, so the error names where it should be."""
    package = Path(__file__).resolve().parents[1]
    packaged = package / "extension"
    checkout = package.parent / "extension"
    if (package.parent / "pyproject.toml").is_file() and (checkout / "manifest.json").is_file():
        return checkout
    return packaged


def find_browser(explicit: str | None = None) -> Path:
    """The Chromium-family executable to run: ``explicit`` if given, else the first found on
    PATH or in the standard install places (``discovery``)."""
    if explicit:
        found = shutil.which(explicit) or (explicit if Path(explicit).is_file() else None)
        if found and os.access(found, os.X_OK):
            return Path(found)
        raise ManagedBrowserError(
            f"Browser {explicit!r} was not found or is not executable; pass the full path of a"
            " Chromium-family browser"
        )
    installed = installed_browsers()
    if installed:
        return installed[0]
    raise ManagedBrowserError(
        "No Chromium-family browser found on PATH (looked for " + ", ".join(PATH_NAMES) + ")"
        " nor where Chrome, Chromium, Edge and Brave install."
        " Install Chromium (e.g. `apt install chromium`) or pass --browser-path /path/to/chrome"
    )


def extension_id(extension_dir: Path) -> str:
    """The extension's fixed id (pinned by its manifest key), read from ``extension-id.txt``."""
    id_file = extension_dir / "extension-id.txt"
    try:
        value = id_file.read_text(encoding="utf-8").strip()
    except OSError:
        raise ManagedBrowserError(
            f"{id_file} is missing: the extension id is needed to allow the native host"
        ) from None
    if not _EXTENSION_ID.match(value):
        raise ManagedBrowserError(f"{id_file} does not hold an extension id (got {value!r})")
    return value


def profile_dir(endpoints: Endpoints) -> Path:
    """The instance's managed browser profile."""
    return endpoints.data_dir / "browser-profile"


def running_browser(endpoints: Endpoints) -> int | None:
    """The pid of the instance's managed browser while one runs, else None."""
    return profile_in_use(profile_dir(endpoints))


def prepare_profile(endpoints: Endpoints, extension_dir: Path | None = None) -> Path:
    """Create the instance's browser profile with the native host registered in it."""
    extension_dir = extension_dir or default_extension_dir()
    ext_id = extension_id(extension_dir)
    ensure_private_dir(endpoints.data_dir)
    profile = profile_dir(endpoints)
    ensure_private_dir(profile)
    wrapper = write_host_wrapper(endpoints)
    hosts = profile / "NativeMessagingHosts"
    ensure_private_dir(hosts)
    manifest = host_manifest(wrapper, ext_id)
    text = json.dumps(manifest, indent=2) + "\n"
    replace_private(hosts / f"{NATIVE_HOST_NAME}.json", text.encode())
    keep_downloads_in(profile, endpoints.data_dir / "downloads")
    refresh_extension_worker(profile, extension_dir)
    return profile


EXTENSION_FINGERPRINT = "ghostlight-extension.sha256"


def extension_fingerprint(extension_dir: Path) -> str:
    """A digest of every file of the unpacked extension (names and contents)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in extension_dir.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(extension_dir)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def refresh_extension_worker(profile: Path, extension_dir: Path) -> bool:
    """Make the browser run the extension as it is on disk now. Chrome keeps an extension's
    service worker from an earlier start in the profile and goes on running that old code when
    the files change without a new version (an upgraded Ghostlight in a kept profile). When the
    files differ from those the profile last ran, the kept workers are dropped (sites' service
    workers in this profile go too, and register again). True when they were dropped."""
    marker = profile / EXTENSION_FINGERPRINT
    current = extension_fingerprint(extension_dir)
    try:
        kept = read_regular(marker, limit=4096)
        if kept is not None and kept.decode(errors="replace").strip() == current:
            return False
    except OSError:
        pass
    shutil.rmtree(profile / "Default" / "Service Worker", ignore_errors=True)
    replace_private(marker, f"{current}\n".encode())
    return True


def keep_downloads_in(profile: Path, directory: Path) -> None:
    """Point the profile's downloads at ``directory``: a link an agent follows in the managed
    browser saves its file with the instance, not in the user's own Downloads folder. The
    preferences that keep the browser quiet (``quiet.QUIET_PREFERENCES``) are written with it."""
    ensure_private_dir(directory)
    preferences = profile / "Default" / "Preferences"
    ensure_private_dir(preferences.parent)
    try:
        settings = json.loads(read_regular(preferences, limit=_MAX_PREFERENCES) or b"{}")
    except (OSError, ValueError):
        settings = {}
    if not isinstance(settings, dict):
        settings = {}
    kept = settings.get("download")
    download: dict[str, Any] = dict(kept) if isinstance(kept, dict) else {}
    download.update(default_directory=str(directory), prompt_for_download=False)
    settings["download"] = download
    replace_private(preferences, json.dumps(with_quiet_preferences(settings)).encode())


_MAX_PREFERENCES = 16 * 1024 * 1024
"""Far past what the browser keeps there; a larger file is taken for none."""


def write_host_wrapper(endpoints: Endpoints) -> Path:
    """A per-instance script Chrome runs as the host: pins the instance, then runs the relay."""
    directory = endpoints.data_dir / "native-host"
    ensure_private_dir(directory)
    exports = {INSTANCE_ENV: endpoints.instance}
    for name in (HOME_ENV, "XDG_RUNTIME_DIR"):
        if os.environ.get(name):
            exports[name] = os.environ[name]
    lines = ["#!/bin/sh", "# Written by Ghostlight for this instance's managed browser."]
    lines += [f"export {name}={shlex.quote(value)}" for name, value in exports.items()]
    # Chromium runs with a TMPDIR of the instance's own (``browser_environment``), and the host
    # it starts inherits it; without XDG_RUNTIME_DIR the instance's sockets are found through
    # the temporary directory, so the host gets back the one every other process sees.
    tmp = os.environ.get("TMPDIR")
    lines.append(f"export TMPDIR={shlex.quote(tmp)}" if tmp else "unset TMPDIR")
    lines.append(f'exec {shlex.quote(sys.executable)} -m ghostlight_browser_connector "$@"')
    wrapper = directory / "ghostlight-browser-connector"
    replace_private(wrapper, ("\n".join(lines) + "\n").encode(), mode=0o700)
    return wrapper


def browser_arguments(
    browser: Path, profile: Path, extension_dir: Path, *, headless: bool, no_sandbox: bool,
    through_pipe: bool = False,
) -> list[str]:
    """The command line of a managed browser (no remote debugging port is ever opened).
    ``through_pipe``: the extension is loaded over the DevTools pipe (``pipe_holder``), not by
    ``--load-extension``, which branded Chrome 137 and later ignores."""
    args = [str(browser)]
    if headless:
        # A headless screen is 800x600 unless told otherwise, and Chrome refuses a window that
        # is not at least half on screen: resize_window to 1280x800 would fail.
        args += ["--headless", f"--screen-info={{{HEADLESS_SCREEN}}}"]
    if no_sandbox:
        args.append("--no-sandbox")
    args += quiet_arguments()
    args.append(f"--user-data-dir={profile}")
    if through_pipe:
        args += PIPE_SWITCHES
    else:
        # Chromium loads the extension from either switch (``--disable-extensions-except``
        # alone does it too); branded Chrome 137 and later from neither.
        args += [f"--load-extension={extension_dir}", f"--disable-extensions-except={extension_dir}"]
    args.append("about:blank")
    return args


@attrs.define(eq=False)
class ManagedBrowser:
    """A running managed browser: its process, profile and log."""

    process: trio.Process
    """The browser, or the ``pipe_holder`` that started it and leads its process group."""
    profile: Path
    log_path: Path
    browser_pid: int | None = None
    """The browser's own pid when ``process`` is its pipe holder."""

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def through_pipe(self) -> bool:
        return self.browser_pid is not None

    async def wait_connected(
        self, is_connected: Callable[[], bool], *, within: float = CONNECT_TIMEOUT
    ) -> None:
        """Return once ``is_connected()`` holds; raise with a diagnosis if it never does."""
        with trio.move_on_after(within):
            while not is_connected():
                if self.process.returncode is not None:
                    raise ManagedBrowserError(
                        f"The browser exited ({exit_words(self.process.returncode)}) before the"
                        f" extension connected; see {self.log_path}"
                    )
                await trio.sleep(0.1)
            return
        raise ManagedBrowserError(
            f"The Ghostlight extension did not connect within {within:g}s. Check that the"
            f" extension loads (see {self.log_path}) and that"
            f" {self.profile / 'NativeMessagingHosts'} names the right extension id"
        )

    async def aclose(self) -> None:
        """Stop the browser: a polite signal first, a kill after a short grace."""
        with trio.CancelScope(shield=True):
            if self.process.returncode is None:
                self.process.send_signal(signal.SIGTERM)
                with trio.move_on_after(STOP_GRACE):
                    await self.process.wait()
            if self.process.returncode is None:
                self.process.kill()
                with trio.move_on_after(STOP_GRACE):  # a kill is prompt; a hung kernel is not
                    await self.process.wait()
            # Its own session (``launch``): whatever of it outlived it (a renderer, the native
            # host) is in the group the browser led, and goes with it.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)


BROWSER_TEMP = "t"
"""The managed browser's temporary directory, in the instance's runtime directory."""
_SINGLETON_PATH = len("/org.chromium.Chromium.XXXXXX/SingletonSocket")
_SUN_PATH_LIMIT = 107


def browser_environment(endpoints: Endpoints) -> dict[str, str] | None:
    """The managed browser's environment: its temporary files (the singleton socket it leaves
    behind when stopped) in a directory of the instance's own, emptied at each launch, rather
    than a new directory in /tmp every time. None (the inherited one) when Chromium's socket
    path would not fit there."""
    temp = endpoints.runtime_dir / BROWSER_TEMP
    if len(str(temp)) + _SINGLETON_PATH > _SUN_PATH_LIMIT:
        return None
    endpoints.ensure_private_dirs()
    shutil.rmtree(temp, ignore_errors=True)  # one managed browser per instance: none runs now
    ensure_private_dir(temp)
    return {**os.environ, "TMPDIR": str(temp)}


def profile_in_use(profile: Path) -> int | None:
    """The pid of a live Chromium holding ``profile`` (its ``SingletonLock`` link names
    ``host-pid``), or None. A second Chromium on the same profile would hand its window to the
    first and exit at once, and the launch would look as if it had worked."""
    try:
        target = os.readlink(profile / "SingletonLock")
    except OSError:
        return None
    host, _, pid_text = target.rpartition("-")
    if not pid_text.isdigit() or host != socket.gethostname():
        return None
    pid = int(pid_text)
    try:
        # Where /proc tells: a live process of that pid whose command names this profile (not
        # a zombie left by a kill, nor another program that got the pid later).
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return None
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return pid
    return pid if f"--user-data-dir={profile}".encode() in command else None


async def launch(
    endpoints: Endpoints,
    *,
    headless: bool = True,
    browser_path: str | None = None,
    extension_dir: Path | None = None,
    no_sandbox: bool | None = None,
    extra_args: Sequence[str] = (),
    through_pipe: bool = False,
) -> ManagedBrowser:
    """Start the managed browser for this instance; the caller owns ``aclose()``.

    ``no_sandbox`` defaults to on only when running as root (Chromium refuses otherwise).
    ``through_pipe``: started by a ``pipe_holder`` that loads the extension over the DevTools
    pipe; this returns once the extension is loaded, and raises when it cannot be.
    """
    browser = find_browser(browser_path)
    extension_dir = extension_dir or default_extension_dir()
    running = running_browser(endpoints)
    if running is not None:
        raise ManagedBrowserError(
            f"the managed browser of instance {endpoints.instance!r} is already running (pid"
            f" {running}); it serves every client of the instance. Stop it first"
            f" (`ghostlight browser stop`, or `kill {running}`) to start a new one."
        )
    profile = prepare_profile(endpoints, extension_dir)
    if no_sandbox is None:
        no_sandbox = os.geteuid() == 0
    args = browser_arguments(
        browser, profile, extension_dir, headless=headless, no_sandbox=no_sandbox,
        through_pipe=through_pipe,
    )  # fmt: skip
    args[-1:-1] = list(extra_args)
    if through_pipe:
        holder = [sys.executable, "-m", "ghostlight_trio.browser.pipe_holder"]
        args = [*holder, str(extension_dir), extension_id(extension_dir), *args]
    log_path = endpoints.data_dir / "browser.log"
    log_fd = open_private(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        # A session of its own, so that its scheduling group is its own (see ``priority``).
        process = await trio.lowlevel.open_process(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE if through_pipe else log_fd,
            stderr=log_fd,
            start_new_session=True,
            env=browser_environment(endpoints),
        )
    finally:
        os.close(log_fd)
    launched = ManagedBrowser(process=process, profile=profile, log_path=log_path)
    try:
        run_in_background(process.pid)
        if through_pipe:
            launched.browser_pid = await pipe_loaded(process, log_path)
    except BaseException:  # Ctrl-C here: the caller never gets the browser to stop
        await launched.aclose()
        raise
    return launched


async def pipe_loaded(holder: trio.Process, log_path: Path) -> int:
    """The browser's pid, once its ``pipe_holder`` reports the extension loaded; raises with
    the holder's reason when it could not be."""
    assert holder.stdout is not None
    line = b""
    with trio.move_on_after(LOAD_WAIT):
        while not line.endswith(b"\n") and len(line) < 4096:
            data = await holder.stdout.receive_some(4096)
            if not data:
                break
            line += data
    await holder.stdout.aclose()
    try:
        report = json.loads(line)
    except ValueError:
        report = {"error": f"its pipe holder said nothing within {LOAD_WAIT:g}s"}
    if not isinstance(report, dict) or not isinstance(report.get("browser_pid"), int):
        reason = report.get("error") if isinstance(report, dict) else report
        raise ManagedBrowserError(
            f"The extension could not be loaded over the DevTools pipe: {reason}; see {log_path}"
        )
    return int(report["browser_pid"])
