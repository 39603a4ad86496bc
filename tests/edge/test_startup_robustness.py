"""Real connector processes at startup: a bad log level, a byte-order mark, a signal while the
modules load, a service this process has no secret for, and several connectors at once."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import textwrap

from ghostlight_mcp_connector.__main__ import log_level

from .harness import META, Connector, Instance

BOM = "\ufeff".encode()
DISCOVER = {
    "jsonrpc": "2.0",
    "id": "d",
    "method": "server/discover",
    "params": {"_meta": json.loads(META)},
}
CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"_meta": json.loads(META), "name": "update_plan", "arguments": {}},
}
"""A call in the stateless revision: it needs the service, but no handshake first."""
STARTED = "started the Ghostlight service"


def _finish(connector: Connector) -> str:
    connector.close_stdin()
    assert connector.wait_exit() == 0
    connector.process.wait()
    return connector.stderr.decode(errors="replace")


def test_log_levels_are_read_leniently_and_never_fatal() -> None:
    assert log_level(None) == (logging.INFO, None)
    assert log_level(" ") == (logging.INFO, None)
    assert log_level("debug") == (logging.DEBUG, None)
    assert log_level("Warning") == (logging.WARNING, None)
    assert log_level("10") == (10, None)
    for value in ("verbose", "\u00b2", "-1", "info debug"):
        level, warning = log_level(value)
        assert level == logging.INFO and warning is not None, value
        assert warning.startswith(f"GHOSTLIGHT_LOG={value!r} is not a log level; using INFO")
    level, warning = log_level("x" * 5000)
    assert level == logging.INFO and warning is not None and len(warning) < 200


def test_an_unknown_log_level_falls_back_with_one_warning(own_instance: Instance) -> None:
    """A typo in a client's config used to kill the connector with a traceback before it
    could answer initialize; now it serves at the default level after one warning line."""
    connector = Connector(own_instance, GHOSTLIGHT_LOG="verbose")
    try:
        connector.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert connector.read() == {"jsonrpc": "2.0", "id": 1, "result": {}}
        connector.send(DISCOVER)
        assert connector.read()["id"] == "d"
        stderr = _finish(connector)
    finally:
        connector.terminate()
    assert "Traceback" not in stderr, stderr
    warned = [line for line in stderr.splitlines() if "GHOSTLIGHT_LOG" in line]
    assert warned == [
        "ghostlight-mcp-connector: WARNING ghostlight_mcp_connector: GHOSTLIGHT_LOG='verbose' is"
        " not a log level; using INFO (set it to DEBUG, INFO, WARNING, ERROR or CRITICAL)"
    ], stderr
    assert "INFO ghostlight_mcp_connector.runtime: stdin closed" in stderr  # INFO, as by default


def test_a_byte_order_mark_before_the_first_line_is_ignored(own_instance: Instance) -> None:
    """The first request is answered to its id; a mark in front of a later line is answered to
    that line's id too, as an invalid request, and the connector keeps serving."""
    connector = Connector(own_instance)
    try:
        connector.send_raw(BOM + json.dumps(DISCOVER).encode() + b"\n")
        first = connector.read()
        assert first["id"] == "d" and "result" in first, first
        connector.send_raw(BOM + b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n')
        second = connector.read()
        assert second["id"] == 2 and second["error"]["code"] == -32600, second
        assert "byte-order mark" in second["error"]["message"]
        connector.send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
        assert connector.read() == {"jsonrpc": "2.0", "id": 3, "result": {}}
        _finish(connector)
    finally:
        connector.terminate()


_SIGNAL_WHILE_LOADING = textwrap.dedent(
    """
    import importlib.abc, os, signal, sys

    class SignalOnce(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "ghostlight_mcp_connector.era":
                sys.meta_path.remove(self)
                os.kill(os.getpid(), signal.SIGINT)
            return None

    sys.meta_path.insert(0, SignalOnce())
    sys.argv[0] = "ghostlight-mcp-connector"
    from ghostlight_mcp_connector.__main__ import main
    sys.exit(main())
    """
)


def test_an_interrupt_while_the_modules_load_is_a_quiet_shutdown(own_instance: Instance) -> None:
    """Ctrl-C (or a client's SIGINT) as the connector starts: no KeyboardInterrupt traceback
    on stderr, and the runtime still shuts down gracefully. The signal is sent as the router's
    modules are imported, so this does not depend on timing."""
    done = subprocess.run(
        [sys.executable, "-c", _SIGNAL_WHILE_LOADING],
        env=own_instance.env,
        stdin=subprocess.PIPE,
        capture_output=True,
        timeout=60,
    )
    stderr = done.stderr.decode(errors="replace")
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    assert f"received signal {int(signal.SIGINT)} before the runtime started" in stderr, stderr
    assert done.returncode == 0
    assert done.stdout == b""


def test_a_service_whose_secret_this_process_lacks_is_named_at_once(
    own_instance: Instance, tmp_path
) -> None:
    """The service runs, but the connector resolves another data directory (the shell had
    GHOSTLIGHT_HOME or XDG_DATA_HOME, the client does not): the call fails at once with what
    is wrong and what to do, no service is started in vain, and nothing is called a
    squatter."""
    own_instance.start_service()
    other_home = tmp_path / "other-home"
    missing = other_home / "instances" / own_instance.name / "bridge.secret"
    connector = Connector(own_instance, GHOSTLIGHT_HOME=str(other_home))
    try:
        connector.send(CALL)
        answer = connector.read(timeout=60)
        stderr = _finish(connector)
    finally:
        connector.terminate()
    assert answer["id"] == 1 and answer["error"]["code"] == -33001, answer
    message = answer["error"]["message"]
    assert f"a Ghostlight service is listening on {own_instance.socket_path}" in message, message
    assert f"this process has no secret at {missing}" in message
    assert "different data directories (GHOSTLIGHT_HOME / XDG_DATA_HOME)" in message
    assert "re-run `ghostlight install` from the same environment as the service" in message
    assert "did not answer" not in message and "squatting" not in message
    assert STARTED not in stderr, stderr
    assert not missing.exists()
    assert own_instance.service is not None and own_instance.service.poll() is None


def test_connectors_started_together_start_one_service(own_instance: Instance) -> None:
    """Several connectors find no service and all need it: one starts it, the others wait for
    its socket. Counted from the service log: one start listened, none lost the race."""
    connectors = [Connector(own_instance) for _ in range(4)]
    try:
        for connector in connectors:  # every one is up before any asks for the service
            connector.send(DISCOVER)
            assert connector.read()["id"] == "d"
        for connector in connectors:
            connector.send(CALL)
        for connector in connectors:
            answer = connector.read(timeout=60)
            assert answer["id"] == 1 and "result" in answer, answer
        stderrs = [_finish(connector) for connector in connectors]
    finally:
        for connector in connectors:
            connector.terminate()
    log = (own_instance.home / "instances" / own_instance.name / "service.log").read_text()
    assert log.count(f"service for instance {own_instance.name!r} listening") == 1, log
    assert "is already running" not in log, log
    assert sum(stderr.count(STARTED) for stderr in stderrs) <= 1
    assert os.path.exists(own_instance.runtime / "ghostlight-trio" / own_instance.name / "spawn.lock")
