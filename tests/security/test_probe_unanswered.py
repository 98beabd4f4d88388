"""Bootstrap servers that do not answer, or are not Kafka, and a SASL mechanism the listener does
not enable: said at once (or at --timeout, naming the silent server), never hung on.

Seen by hand (tester, 4.3 sandboxes):
- A TLS bootstrap server that accepts TCP and never answers: `reassign list --command-config
  ssl.props --timeout 3s` still running after 30 s (kafka-python's TLS handshake waits with no
  deadline); with a live SSL broker after it in the list, 1 run in 3 hung.
- A dead server in the list hid the fast 'wrong protocol' errors: `-b 127.0.0.1:1,<SSL listener>`
  took 5.3 s for 'no broker answered' (alone: 0.9 s 'speaks TLS'); with SSL settings against
  `<SASL_PLAINTEXT>,127.0.0.1:1`: 5.3 s and a trust-store hint.
- A SASL mechanism the listener does not enable waited the whole --timeout, then said 'no broker
  answered', though the listener's SaslHandshake answer names its mechanisms.
- A ZooKeeper (or other non-Kafka) address with --command-config: 5.4 s and a TLS or 'no broker
  answered' message, where without settings it is 'no Kafka broker at ...' at once.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from kadmin.commands.root import cli
from kadmin.sandbox import Sandbox

PASSWORD = "adm1n-Pw-3391-s3cret"
TIMEOUT = 3.0
FAST = 2.0  # seconds a said-at-once answer takes at most (a loaded machine included)
COMMANDS = [["reassign", "list"], ["throttle", "show"]]


@pytest.fixture(scope="module")
def sandboxes(tls):
    cert = (str(tls.cert), str(tls.key))
    started = {
        "SSL": Sandbox(brokers=1, log_dirs=1, manual_clock=True, tls=cert),
        "SASL_PLAINTEXT": Sandbox(brokers=1, log_dirs=1, manual_clock=True, sasl_users={"admin": PASSWORD},
                                  sasl_mechanisms=("PLAIN",)),
        "SASL_SSL": Sandbox(brokers=1, log_dirs=1, manual_clock=True, tls=cert, sasl_users={"admin": PASSWORD},
                            sasl_mechanisms=("SCRAM-SHA-512",)),
    }
    for sb in started.values():
        sb.start()
    yield started
    for sb in started.values():
        sb.stop()


@pytest.fixture(scope="module")
def silent():
    """host:port of a server that accepts TCP connections (the kernel does) and never sends a byte."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    yield f"127.0.0.1:{s.getsockname()[1]}"
    s.close()


@pytest.fixture(scope="module")
def dead():
    """host:port where nothing listens: connections are refused (the port is held, not listened on)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    yield f"127.0.0.1:{s.getsockname()[1]}"
    s.close()


@pytest.fixture(scope="module")
def closer():
    """host:port of a server that closes every connection at its first bytes, as ZooKeeper does
    with a Kafka request or a TLS ClientHello."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            with contextlib.suppress(OSError):
                c, _ = s.accept()
                with contextlib.suppress(OSError):
                    c.settimeout(2)
                    c.recv(1024)
                c.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield f"127.0.0.1:{s.getsockname()[1]}"
    stop.set()
    s.close()


@pytest.fixture
def config(tmp_path, tls):
    count = iter(range(1000))

    def write(protocol, mechanism="PLAIN"):
        lines = [f"security.protocol={protocol}"]
        if "SSL" in protocol:
            lines += ["ssl.truststore.type=PEM", f"ssl.truststore.location={tls.ca}"]
        if protocol.startswith("SASL"):
            module = ("org.apache.kafka.common.security.plain.PlainLoginModule" if mechanism == "PLAIN"
                      else "org.apache.kafka.common.security.scram.ScramLoginModule")
            lines += [f"sasl.mechanism={mechanism}",
                      f'sasl.jaas.config={module} required username="admin" password="{PASSWORD}";']
        path = tmp_path / f"client-{next(count)}.properties"
        path.write_text("\n".join(lines) + "\n")
        return str(path)

    return write


def _run(bootstrap, *argv, config=None, timeout=TIMEOUT):
    args = [*argv, "--bootstrap-server", bootstrap, "--timeout", f"{timeout:g}s"]
    if config:
        args += ["--command-config", config]
    started = time.monotonic()
    result = CliRunner().invoke(cli, args, catch_exceptions=True)
    return result, time.monotonic() - started


def _line(result) -> str:
    assert result.exit_code == 1, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kadmin: error: "), result.stderr
    return lines[0]


# --- a silent TLS bootstrap server ---


@pytest.mark.parametrize("protocol", ["SSL", "SASL_SSL"])
def test_a_silent_tls_bootstrap_server_ends_at_timeout_naming_it(silent, config, tmp_path, protocol):
    """A real process (a hang would hold the test runner): exit 1 about --timeout after the start,
    the silent server named with what it did not do."""
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "kadmin", "reassign", "list", "--bootstrap-server", silent,
                           "--command-config", config(protocol), "--timeout", f"{TIMEOUT:g}s"],
                          capture_output=True, text=True, timeout=60,
                          env={"KADMIN_CONFIG": str(tmp_path / "none.toml"), "PATH": "/usr/bin:/bin"})
    elapsed = time.monotonic() - started
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip() == (
        f"kadmin: error: no broker answered at {silent} within {TIMEOUT:g}s: {silent} (the TLS handshake timed out) "
        "(check --bootstrap-server, the network and the security settings)"
    ), proc.stderr
    assert TIMEOUT * 0.9 < elapsed < TIMEOUT + 5, elapsed


def test_a_silent_server_before_a_live_tls_broker_is_left_out(sandboxes, silent, config, env):
    """The library clients are given the live broker only (kafka-python picks a bootstrap server
    at random, and waits for a silent one's TLS handshake with no deadline: 1 run in 3 hung)."""
    from kadmin.backends.admin_clients import AdminClients
    from kadmin.config import ConnectionSettings
    from kadmin.java_properties import read_properties_file

    sb = sandboxes["SSL"]
    settings = ConnectionSettings(bootstrap_servers=f"{silent},{sb.bootstrap}", timeout=TIMEOUT,
                                  properties=read_properties_file(Path(config("SSL"))))
    with AdminClients(settings) as clients:
        # what the admin client and kadmin's throttle-record consumer and producer are given
        assert clients.library_bootstrap_servers() == [sb.bootstrap]
    r, elapsed = _run(f"{silent},{sb.bootstrap}", "reassign", "list", config=config("SSL"))
    assert r.exit_code == 0, r.output
    assert elapsed < TIMEOUT, elapsed


def test_the_throttle_record_clients_leave_a_silent_server_out_too():
    """kadmin's throttle-record consumer and producer (kafka-python clients of their own) get the
    bootstrap list the probe left, not every --bootstrap-server: `throttle show -b <silent>,<TLS
    broker>` hung at the silent one's TLS handshake in 3 runs of 6."""
    from types import SimpleNamespace

    from kadmin.backends.admin_records import RecordTopic
    from kadmin.config import ConnectionSettings

    backend = SimpleNamespace(
        settings=ConnectionSettings(bootstrap_servers="127.0.0.1:1,127.0.0.1:2", timeout=TIMEOUT),
        library_bootstrap_servers=lambda: ["127.0.0.1:2"],
    )
    assert RecordTopic(backend, "__kadmin_throttle_records")._client_kwargs()["bootstrap_servers"] == ["127.0.0.1:2"]


# --- a dead server does not hide what the others are ---


def test_a_dead_server_does_not_hide_a_listener_of_another_protocol(sandboxes, dead, config, env):
    sasl = sandboxes["SASL_PLAINTEXT"].bootstrap
    for bootstrap in (f"{sasl},{dead}", f"{dead},{sasl}"):
        r, elapsed = _run(bootstrap, "reassign", "list", config=config("SSL"))
        assert _line(r) == (
            f"kadmin: error: {sasl} did not take a TLS handshake and answered ApiVersions in plaintext, then closed "
            "the connection at the next request, as Kafka's SASL listeners do before a login: it speaks "
            "SASL_PLAINTEXT, not SSL (set security.protocol=SASL_PLAINTEXT, sasl.mechanism and sasl.jaas.config in "
            "--command-config)"
        )
        assert elapsed < FAST, elapsed


def test_a_dead_server_does_not_hide_a_tls_listener_or_a_non_kafka_port_without_settings(
        sandboxes, dead, closer, env):
    ssl_listener = sandboxes["SSL"].bootstrap
    r, elapsed = _run(f"{dead},{ssl_listener}", "reassign", "list")
    assert _line(r).startswith(f"kadmin: error: {ssl_listener} speaks TLS: "), r.stderr
    assert elapsed < FAST, elapsed
    r, elapsed = _run(f"{dead},{closer}", "reassign", "list")
    assert _line(r).startswith(
        f"kadmin: error: no Kafka broker at {dead},{closer}: {dead}: connection refused; {closer}: closed the "
        "connection at Kafka's first request (ApiVersions) (a ZooKeeper address goes to --zookeeper"
    ), r.stderr
    assert elapsed < FAST, elapsed


# --- a SASL mechanism the listener does not enable ---


@pytest.mark.parametrize("protocol, mechanism, enabled", [("SASL_PLAINTEXT", "SCRAM-SHA-256", "PLAIN"),
                                                          ("SASL_SSL", "PLAIN", "SCRAM-SHA-512")])
def test_a_sasl_mechanism_the_listener_does_not_enable_is_said_at_once(
        sandboxes, config, env, protocol, mechanism, enabled):
    sb = sandboxes[protocol]
    for command in COMMANDS:
        r, elapsed = _run(sb.bootstrap, *command, config=config(protocol, mechanism), timeout=8)
        assert _line(r) == (
            f"kadmin: error: {sb.bootstrap} answered SaslHandshake for {mechanism} with UNSUPPORTED_SASL_MECHANISM: "
            f"the SASL mechanism {mechanism} is not enabled there; it enables {enabled} (set sasl.mechanism={enabled} "
            "and sasl.jaas.config to match in --command-config)"
        )
        assert elapsed < FAST, (command, elapsed)
    r, _ = _run(sb.bootstrap, "reassign", "list", config=config(protocol, enabled), timeout=20)
    assert r.exit_code == 0, r.output


# --- not a Kafka listener, with settings ---


@pytest.mark.parametrize("protocol, seen", [
    ("SSL", "did not take a TLS handshake and closed the connection at Kafka's first request (ApiVersions) in "
            "plaintext"),
    ("SASL_SSL", "did not take a TLS handshake and closed the connection at Kafka's first request (ApiVersions) in "
                 "plaintext"),
    ("SASL_PLAINTEXT", "closed the connection at Kafka's first request (ApiVersions) in plaintext and at a TLS "
                       "handshake"),
])
def test_a_server_that_is_not_kafka_is_said_at_once_with_settings(closer, config, env, protocol, seen):
    for command in COMMANDS:
        r, elapsed = _run(closer, *command, config=config(protocol), timeout=8)
        assert _line(r) == (
            f"kadmin: error: {closer} {seen}: no Kafka listener there (a ZooKeeper address goes to --zookeeper; a "
            "broker at its max.connections.per.ip closes new connections too)"
        )
        assert elapsed < FAST, (command, elapsed)


def test_sasl_ssl_settings_at_an_ssl_listener_are_said_at_once(sandboxes, config, env):
    """Its SaslHandshake answer over TLS (ILLEGAL_SASL_STATE) says it has no SASL."""
    sb = sandboxes["SSL"]
    r, elapsed = _run(sb.bootstrap, "reassign", "list", config=config("SASL_SSL"), timeout=8)
    assert _line(r) == (
        f"kadmin: error: {sb.bootstrap} took a TLS handshake and answered ApiVersions and SaslHandshake with "
        "ILLEGAL_SASL_STATE, as Kafka's listeners without SASL do: it speaks SSL, not SASL_SSL (set "
        "security.protocol=SSL in --command-config)"
    )
    assert elapsed < FAST, elapsed
