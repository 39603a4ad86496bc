"""Files in an instance's directories are opened without following links: a link, a second
name (hard link) or a foreign file where Ghostlight keeps its own is refused with the path and
what to do, and the file it leads to is neither written, truncated, chmodded nor trusted."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import pytest

from ghostlight_trio.audit.log import RotatingAuditLog
from ghostlight_trio.browser.managed import write_host_wrapper
from ghostlight_trio.cli.doctor_checks import secret_file
from ghostlight_trio.files.safe import UnsafeFile
from ghostlight_trio.governance.sources import MANIFEST_RECORD, record_manifest
from ghostlight_trio.launch.spawn import spawn_service
from ghostlight_trio.service.lock import instance_lock
from ghostlight_trio.service.logs import configure_logging
from ghostlight_trio.transport.endpoints import Endpoints, UnsafeDirectoryError
from ghostlight_trio.transport.proof import SecretFileError, load_or_create_secret, load_secret

BEFORE = b"the user's own file\n"


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A file of the user's that a link in the data directory points at."""
    path = tmp_path / "victim"
    path.write_bytes(BEFORE)
    path.chmod(0o600)
    return path


def _plant(where: Path, victim: Path, *, hard: bool = False) -> None:
    where.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    where.unlink(missing_ok=True)
    if hard:
        os.link(victim, where)
    else:
        where.symlink_to(victim)


@pytest.mark.parametrize("hard", [False, True], ids=["symlink", "hard-link"])
def test_the_lock_file_is_never_truncated_through_a_link(endpoints: Endpoints, victim, hard) -> None:
    endpoints.ensure_private_dirs()
    lock = endpoints.data_dir / "service.lock"
    _plant(lock, victim, hard=hard)
    with pytest.raises(UnsafeFile) as caught, instance_lock(endpoints):
        pass
    assert victim.read_bytes() == BEFORE
    said = str(caught.value)
    assert said.startswith(f"{lock} ")
    assert ("is a symbolic link" if not hard else "other name(s) (hard links)") in said
    assert "remove" in said  # and what to do


def test_the_service_log_is_never_appended_through_a_link(endpoints: Endpoints, victim, capsys) -> None:
    endpoints.ensure_private_dirs()
    _plant(endpoints.log_file, victim)
    root = logging.getLogger("ghostlight")
    handlers = list(root.handlers)
    try:
        configure_logging(endpoints)
        logging.getLogger("ghostlight.test").warning("a line for the log")
    finally:
        for handler in root.handlers[len(handlers):]:
            handler.close()
        root.handlers[:] = handlers
    assert victim.read_bytes() == BEFORE
    assert f"not logging to {endpoints.log_file}: {endpoints.log_file} is a symbolic link" in (
        capsys.readouterr().err
    )
    with pytest.raises(UnsafeFile):  # nor does a background start send its output there
        spawn_service(endpoints)
    assert victim.read_bytes() == BEFORE


def test_the_audit_is_never_appended_through_a_link(endpoints: Endpoints, victim, caplog) -> None:
    endpoints.ensure_private_dirs()
    _plant(endpoints.audit_file, victim)
    audit = RotatingAuditLog(endpoints.audit_file)
    with caplog.at_level(logging.ERROR, logger="ghostlight.audit"):
        audit.event("policy")
    audit.close()
    assert victim.read_bytes() == BEFORE
    assert f"{endpoints.audit_file} is a symbolic link" in caplog.text


@pytest.mark.parametrize("hard", [False, True], ids=["symlink", "hard-link"])
def test_another_0600_file_is_never_taken_for_the_secret(endpoints: Endpoints, victim, hard) -> None:
    victim.write_bytes(os.urandom(64))
    _plant(endpoints.secret_file, victim, hard=hard)
    with pytest.raises(SecretFileError) as caught:
        load_secret(endpoints.secret_file)
    said = str(caught.value)
    assert said.startswith(f"{endpoints.secret_file} must be owned by you and mode 0600")
    assert "delete it and start the service again" in said
    with pytest.raises(SecretFileError):
        load_or_create_secret(endpoints.secret_file)
    # doctor says so too rather than passing what the service refuses
    row = secret_file(endpoints, required=True)
    assert row.verdict == "fail", row
    assert row.detail == f"{endpoints.secret_file} " + (
        "has 1 other name(s) (hard links)" if hard else "is a symbolic link, not a file"
    )


@pytest.mark.parametrize("which", ["data", "parent"])
def test_a_linked_instance_directory_is_refused_not_chmodded(
    endpoints: Endpoints, tmp_path: Path, which: str
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    elsewhere.chmod(0o755)
    linked = endpoints.data_dir if which == "data" else endpoints.data_dir.parent
    linked.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    linked.symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(UnsafeDirectoryError) as caught:
        endpoints.ensure_private_dirs()
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o755  # its target is left as it was
    said = str(caught.value)
    assert said.startswith(f"{linked} is a symbolic link;")
    assert "Remove it (Ghostlight makes the directory again)" in said


def test_the_manifest_record_is_never_written_through_a_planted_link(
    endpoints: Endpoints, victim
) -> None:
    endpoints.ensure_private_dirs()
    for name in (f".{MANIFEST_RECORD}.{os.getpid()}", MANIFEST_RECORD):
        _plant(endpoints.data_dir / name, victim)
    record_manifest(endpoints.data_dir, Path("/somewhere/policy.json"))
    assert victim.read_bytes() == BEFORE
    record = endpoints.data_dir / MANIFEST_RECORD
    assert not record.is_symlink() and record.read_text() == "/somewhere/policy.json\n"


def test_the_host_wrapper_is_never_written_or_chmodded_through_a_link(
    endpoints: Endpoints, victim
) -> None:
    endpoints.ensure_private_dirs()
    wrapper = endpoints.data_dir / "native-host" / "ghostlight-browser-connector"
    _plant(wrapper, victim)
    assert write_host_wrapper(endpoints) == wrapper
    assert victim.read_bytes() == BEFORE and stat.S_IMODE(victim.stat().st_mode) == 0o600
    assert not wrapper.is_symlink() and stat.S_IMODE(wrapper.stat().st_mode) == 0o700
