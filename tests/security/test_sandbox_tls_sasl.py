"""kadmin against a secured sandbox, through the real CLI with --command-config in Kafka's
properties format: TLS (and a wrong CA), SASL/PLAIN and SCRAM-SHA-256/512 over SASL_PLAINTEXT and
SASL_SSL, a wrong password (one line naming authentication, exit 1, within --timeout), a user
without cluster permission (one line naming the permission, exit 1, nothing changed). Every
output, --debug included, is scanned for every password (the scanner of tests/security)."""

from __future__ import annotations

import dataclasses
import json
import logging
import subprocess
import sys
import time
import traceback

import pytest
from click.testing import CliRunner

from kadmin.commands.root import cli
from kadmin.sandbox import Sandbox

PASSWORDS = {"admin": "adm1n-Pw-5527-s3cret", "nobody": "n0body-Pw-6638-s3cret", "viewer": "v1ewer-Pw-8819-s3cret",
             # a repr shows these differently than typed (P\xc3\xa4ss, Inv\u200bis): see the secret scanner
             "intl": "Pässwörd-Pw-8812-s3cret", "hidden": "Inv\u200bis\u2060ible-Pw-3301-s3cret"}
WRONG_PASSWORD = "wr0ng-Pw-7749-s3cret"
MECHANISMS = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]
COMMANDS = [["log-dirs", "describe"], ["reassign", "list"], ["throttle", "show"]]
TIMEOUT = 3.0  # failure paths: a refused login costs the whole --timeout, keep it short
OK_TIMEOUT = 20.0  # paths that must succeed: a loaded CI machine must not turn them into timeouts


def _sandbox(**kwargs) -> Sandbox:
    sb = Sandbox(brokers=2, log_dirs=2, manual_clock=True, **kwargs).start()
    sb.create_topic("orders", assignment={0: [0, 1], 1: [1, 0]}, size_bytes=1000)
    return sb


@pytest.fixture(scope="module")
def sandboxes(tls):
    """One sandbox per security protocol, all with the same users and authorizer."""
    sasl = dict(sasl_users=PASSWORDS, super_users={"admin", "intl", "hidden"}, cluster_acls={"viewer": {"DESCRIBE", "DESCRIBE_CONFIGS"}})
    started = {
        "SSL": _sandbox(tls=(str(tls.cert), str(tls.key))),
        "SASL_PLAINTEXT": _sandbox(**sasl),
        "SASL_SSL": _sandbox(tls=(str(tls.cert), str(tls.key)), **sasl),
        "PLAINTEXT": _sandbox(),
    }
    yield started
    for sb in started.values():
        sb.stop()


@pytest.fixture
def properties(tmp_path, tls):
    """properties(protocol, user=None, password=None, mechanism=None, ca=None) -> path."""
    count = iter(range(1000))

    def write(protocol, user=None, password=None, mechanism="SCRAM-SHA-256", ca=None):
        lines = [f"security.protocol={protocol}"]
        if "SSL" in protocol:
            lines += ["ssl.truststore.type=PEM", f"ssl.truststore.location={ca or tls.ca}"]
        if protocol.startswith("SASL"):
            module = ("org.apache.kafka.common.security.plain.PlainLoginModule" if mechanism == "PLAIN"
                      else "org.apache.kafka.common.security.scram.ScramLoginModule")
            password = password if password is not None else PASSWORDS[user]
            lines += [f"sasl.mechanism={mechanism}",
                      f'sasl.jaas.config={module} required username="{user}" password="{password}";']
        path = tmp_path / f"client-{next(count)}.properties"
        path.write_text("\n".join(lines) + "\n")
        return path

    return write


@pytest.fixture
def run_kadmin(tmp_path, caplog, scanner_factory, monkeypatch):
    """Run kadmin through Click's runner with DEBUG logs captured; every output is scanned."""
    scanner = scanner_factory({**{f"{user} password": pw for user, pw in PASSWORDS.items()},
                               "wrong password": WRONG_PASSWORD})
    monkeypatch.setenv("KADMIN_CONFIG", str(tmp_path / "no-config.toml"))
    for var in ("KADMIN_BOOTSTRAP_SERVER", "KADMIN_ZOOKEEPER", "KADMIN_COMMAND_CONFIG", "KADMIN_CLUSTER",
                "KADMIN_TIMEOUT", "KADMIN_DEBUG"):
        monkeypatch.delenv(var, raising=False)

    def run(sb, config, *args, debug=False, timeout=TIMEOUT):
        caplog.clear()
        caplog.set_level(logging.DEBUG)
        argv = (["--debug"] if debug else []) + [*args, "--bootstrap-server", sb.bootstrap,
                                                 "--command-config", str(config), "--timeout", f"{timeout:g}s"]
        started = time.monotonic()
        result = CliRunner().invoke(cli, argv, catch_exceptions=True)
        result.elapsed = time.monotonic() - started
        texts = {"stdout": result.stdout, "stderr": result.stderr, "log": caplog.text,
                 "log args": "\n".join(repr(r.args) for r in caplog.records)}
        if result.exc_info and not isinstance(result.exception, SystemExit):
            texts["traceback"] = "".join(traceback.format_exception(*result.exc_info))
        for where, text in texts.items():
            scanner.scan(f"{' '.join(args)}: {where}", text)
        return result

    return run


def _one_line_error(result) -> str:
    assert result.exit_code == 1, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kadmin: error: "), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


# --- connecting ---


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("protocol", ["SASL_PLAINTEXT", "SASL_SSL"])
def test_sasl_mechanisms_over_both_protocols(sandboxes, properties, run_kadmin, protocol, mechanism):
    sb = sandboxes[protocol]
    config = properties(protocol, "admin", mechanism=mechanism)
    listed = run_kadmin(sb, config, "reassign", "list", timeout=OK_TIMEOUT)
    assert listed.exit_code == 0, listed.output
    assert "No partition reassignments" in listed.stdout
    dirs = run_kadmin(sb, config, "log-dirs", "describe", "--output", "json", timeout=OK_TIMEOUT)
    assert dirs.exit_code == 0, dirs.output
    brokers = json.loads(dirs.stdout)["brokers"]
    assert [b["broker"] for b in brokers] == [0, 1] and not any(b["error"] for b in brokers)
    assert {d["path"] for b in brokers for d in b["log_dirs"]} == {"/var/lib/kafka/data0", "/var/lib/kafka/data1"}
    shown = run_kadmin(sb, config, "throttle", "show", timeout=OK_TIMEOUT)
    assert shown.exit_code == 0, shown.output


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("user", ["intl", "hidden"])
def test_a_non_ascii_or_invisible_password_logs_in_and_debug_shows_it_nowhere(
        sandboxes, properties, run_kadmin, user, mechanism):
    """kafka-python logs the SASL/PLAIN bytes it sends at DEBUG; a password whose UTF-8 bytes a
    repr escapes (b'u1\\x00u1\\x00P\\xc3\\xa4ss...') was shown by --debug."""
    config = properties("SASL_PLAINTEXT", user, mechanism=mechanism)
    for command in (["log-dirs", "describe", "--output", "json"], ["reassign", "list"]):
        result = run_kadmin(sandboxes["SASL_PLAINTEXT"], config, *command, debug=True, timeout=OK_TIMEOUT)
        assert result.exit_code == 0, result.output


def test_tls_works_and_a_wrong_ca_fails_clearly(sandboxes, properties, run_kadmin, tls):
    sb = sandboxes["SSL"]
    for command in COMMANDS:
        ok = run_kadmin(sb, properties("SSL"), *command, timeout=OK_TIMEOUT)
        assert ok.exit_code == 0, (command, ok.output)
    for command in (["log-dirs", "describe"], ["throttle", "show"]):
        bad = run_kadmin(sb, properties("SSL", ca=tls.other_ca), *command)
        line = _one_line_error(bad)
        assert "certificate verify failed" in line and "ssl.truststore.location" in line, line
        assert bad.elapsed < TIMEOUT + 5


LONG = 8.0  # the --timeout a listener of another protocol used to cost in full


@pytest.mark.parametrize(
    "given, listener, seen, verdict, fix",
    [
        # TLS spoken to a SASL_SSL listener: the handshake works, ApiVersions is answered, and the
        # broker closes the connection at the next request, waiting for a login
        ("SSL", "SASL_SSL", "answered TLS, then closed the connection at Kafka's second request (Metadata), "
         "as Kafka's SASL listeners do before a login", "it may want SASL_SSL, not SSL",
         "set security.protocol=SASL_SSL, sasl.mechanism and sasl.jaas.config in --command-config"),
        # plaintext spoken to a TLS listener: it fails the handshake at Kafka's first request
        *[("SASL_PLAINTEXT", tls_listener, "closed the connection at Kafka's first request (ApiVersions) in "
           "plaintext and answered it over TLS", "it speaks TLS (SASL_SSL or SSL), not SASL_PLAINTEXT",
           "set security.protocol=SASL_SSL (or SSL), ssl.truststore.type=PEM and ssl.truststore.location "
           "in --command-config") for tls_listener in ("SASL_SSL", "SSL")],
        # TLS spoken to a plaintext listener: Kafka reads the ClientHello as a 369 MB request and closes
        *[(tls_given, "SASL_PLAINTEXT", "did not take a TLS handshake and answered ApiVersions in plaintext, then "
           "closed the connection at the next request, as Kafka's SASL listeners do before a login",
           f"it speaks SASL_PLAINTEXT, not {tls_given}", f"set security.protocol=SASL_PLAINTEXT{extra} in --command-config")
          for tls_given, extra in (("SSL", ", sasl.mechanism and sasl.jaas.config"), ("SASL_SSL", ""))],
        ("SASL_SSL", "PLAINTEXT", "did not take a TLS handshake and answered Kafka's requests in plaintext",
         "it speaks PLAINTEXT, not SASL_SSL", "set security.protocol=PLAINTEXT in --command-config"),
    ],
)
def test_a_listener_of_another_security_protocol_is_said_at_once_with_what_to_set(
        sandboxes, properties, run_kadmin, given, listener, seen, verdict, fix):
    """Seen by hand (3.9 KRaft, TLS and SASL): security.protocol=SSL, or SASL_PLAINTEXT, against
    the SASL_SSL listener waited the whole --timeout 8s, then said 'no broker answered at ...
    within 8s' (the library clients retry such a listener): kadmin's plaintext first contact,
    which says so at once, was not used with security settings. Now the listener is probed
    with the protocol given, and what it does instead said, within a second or two."""
    sb = sandboxes[listener]
    config = properties(given, "admin" if given.startswith("SASL") else None)
    for command in COMMANDS:
        r = run_kadmin(sb, config, *command, timeout=LONG)
        line = _one_line_error(r)
        assert line == f"kadmin: error: {sb.bootstrap} {seen}: {verdict} ({fix})", line
        assert r.elapsed < 3, (command, r.elapsed)


@pytest.mark.parametrize("protocol", ["SSL", "SASL_SSL"])
def test_a_certificate_the_trust_store_does_not_trust_is_said_at_once(sandboxes, properties, run_kadmin, tls, protocol):
    """Seen by hand: a trust store holding another CA than the one that signed the broker's
    certificate waited the whole --timeout 8s, then said 'no broker answered at ... within 8s'
    (the library clients retry the handshake). The probe sees the certificate refused and says
    it at once, in the ssl module's words, with what to check."""
    sb = sandboxes[protocol]
    config = properties(protocol, "admin" if protocol.startswith("SASL") else None, ca=tls.other_ca)
    for command in COMMANDS:
        r = run_kadmin(sb, config, *command, timeout=LONG)
        line = _one_line_error(r)
        assert line == (
            f"kadmin: error: {sb.bootstrap}: the TLS handshake failed: certificate verify failed: unable to get local "
            "issuer certificate (check ssl.truststore.location: it must hold the CA that signed the broker's "
            "certificate)"
        ), line
        assert r.elapsed < LONG / 2, (command, r.elapsed)


@pytest.mark.parametrize("protocol", ["SSL", "SASL_SSL"])
def test_a_trust_store_that_cannot_be_loaded_is_said_at_once(sandboxes, properties, run_kadmin, tmp_path, protocol):
    """A missing or non-PEM ssl.truststore.location: exit 2 before any connection, naming the
    property and the file (the client libraries would retry until --timeout, then blame the network)."""
    sb = sandboxes[protocol]
    not_pem = tmp_path / "ca.txt"
    not_pem.write_text("not a certificate\n")
    for ca in (tmp_path / "missing-ca.pem", not_pem):
        for command in (["log-dirs", "describe"], ["throttle", "show"], ["reassign", "list"]):
            r = run_kadmin(sb, properties(protocol, "admin", ca=ca), *command, timeout=60)
            assert r.exit_code == 2, (command, r.output)
            line = r.stderr.strip().splitlines()[0]
            assert line.startswith(f"kadmin: error: cannot load the PEM file {ca} of ssl.truststore.location: "), line
            assert r.elapsed < 10, r.elapsed


@pytest.mark.zookeeper
def test_zookeeper_mode_finds_the_brokers_secured_listener(zk_connect, tls, properties, tmp_path):
    """In ZooKeeper mode a SASL_SSL sandbox registers its brokers' listener as SASL_SSL in
    /brokers/ids (as a real broker does), so --zookeeper with --command-config reaches them."""
    from tests.support.zookeeper import znode_json

    sasl = dict(sasl_users=PASSWORDS, super_users={"admin"})
    sb = _sandbox(tls=(str(tls.cert), str(tls.key)), zookeeper=zk_connect, kafka_version="2.8", **sasl)
    try:
        doc = znode_json(zk_connect, "/brokers/ids/0")
        assert doc["endpoints"] == [f"SASL_SSL://127.0.0.1:{sb.ports[0]}"]
        assert doc["listener_security_protocol_map"] == {"SASL_SSL": "SASL_SSL"}
        r = CliRunner().invoke(cli, ["log-dirs", "describe", "--zookeeper", zk_connect, "-o", "json", "--command-config",
                                     str(properties("SASL_SSL", "admin")), "--timeout", "20s"])
        assert r.exit_code == 0, r.output
        assert [b["broker"] for b in json.loads(r.stdout)["brokers"]] == [0, 1]
    finally:
        sb.stop()


# --- a wrong password ---


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c))
@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-512"])
def test_wrong_password_is_one_line_naming_authentication(sandboxes, properties, run_kadmin, command, mechanism):
    sb = sandboxes["SASL_SSL"]
    before = sb.snapshot()
    result = run_kadmin(sb, properties("SASL_SSL", "admin", WRONG_PASSWORD, mechanism), *command)
    line = _one_line_error(result)
    assert "AUTHENTICATION" in line.upper(), line
    assert mechanism in line or "Invalid username or password" in line, line
    assert result.elapsed < TIMEOUT + 5, f"took {result.elapsed:.1f}s"
    assert sb.snapshot().partitions == before.partitions


def test_wrong_password_shows_the_authentication_error_under_debug(sandboxes, properties, run_kadmin):
    result = run_kadmin(sandboxes["SASL_PLAINTEXT"], properties("SASL_PLAINTEXT", "admin", WRONG_PASSWORD),
                        "reassign", "list", debug=True)
    assert result.exit_code == 1  # --debug adds the traceback, the exit code stays
    assert "Traceback" in result.stderr and "kadmin.errors.AuthenticationError" in result.stderr


# --- a missing permission ---


@pytest.mark.parametrize("command,permission", [
    (["log-dirs", "describe"], "DESCRIBE on CLUSTER"),
    (["reassign", "list"], "CLUSTER"),
    (["throttle", "show"], "DESCRIBE_CONFIGS on CLUSTER"),
], ids=["log-dirs describe", "reassign list", "throttle show"])
def test_missing_cluster_permission_is_one_line(sandboxes, properties, run_kadmin, command, permission):
    sb = sandboxes["SASL_SSL"]
    result = run_kadmin(sb, properties("SASL_SSL", "nobody", mechanism="SCRAM-SHA-256"), *command)
    line = _one_line_error(result)
    assert "CLUSTER_AUTHORIZATION_FAILED" in line and permission in line, line


def test_unauthorized_execute_changes_nothing(sandboxes, properties, run_kadmin, tmp_path):
    sb = sandboxes["SASL_PLAINTEXT"]
    before = sb.snapshot()
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "orders", "partition": 0, "replicas": [1, 0], "log_dirs": ["any", "any"]}]}))
    config = properties("SASL_PLAINTEXT", "nobody", mechanism="PLAIN")
    # No --throttle: the plan only reorders replicas, so a rate has nothing to throttle (refused, exit 2)
    execute = ["reassign", "execute", "--reassignment-json-file", str(plan)]
    line = _one_line_error(run_kadmin(sb, config, *execute))
    assert "AUTHORIZATION_FAILED" in line, line
    debug = run_kadmin(sb, config, *execute, debug=True)
    assert debug.exit_code == 1 and "kadmin.errors.AuthorizationError" in debug.stderr, debug.stderr
    line = _one_line_error(run_kadmin(sb, config, "throttle", "set", "--rate", "10MB/s", "--brokers", "0,1"))
    assert "CLUSTER_AUTHORIZATION_FAILED" in line and "DESCRIBE_CONFIGS on CLUSTER" in line, line
    # A user who may read broker configs but not change them is refused at the change.
    viewer = properties("SASL_PLAINTEXT", "viewer", mechanism="SCRAM-SHA-512")
    line = _one_line_error(run_kadmin(sb, viewer, "throttle", "set", "--rate", "10MB/s", "--brokers", "0,1"))
    # (kadmin first creates its throttle record topic: CREATE is refused before any config changes)
    assert "TOPIC_AUTHORIZATION_FAILED" in line and "CREATE on CLUSTER" in line, line
    assert run_kadmin(sb, viewer, "reassign", "list", timeout=OK_TIMEOUT).exit_code == 0
    line = _one_line_error(run_kadmin(sb, viewer, *execute))
    assert "CLUSTER_AUTHORIZATION_FAILED" in line, line
    after = sb.snapshot()
    assert dataclasses.replace(after, now=before.now) == before  # replicas, configs, throttles: all unchanged


# --- a real process ---


def test_real_process_wrong_password_with_debug_shows_no_secret(sandboxes, properties, scanner_factory, tmp_path):
    scanner = scanner_factory({"wrong password": WRONG_PASSWORD})
    config = properties("SASL_SSL", "admin", WRONG_PASSWORD, "SCRAM-SHA-256")
    for debug in ([], ["--debug"]):
        proc = subprocess.run([sys.executable, "-m", "kadmin", *debug, "reassign", "list",
                               "--bootstrap-server", sandboxes["SASL_SSL"].bootstrap,
                               "--command-config", str(config), "--timeout", f"{TIMEOUT:g}s"],
                              capture_output=True, text=True, timeout=60,
                              env={"KADMIN_CONFIG": str(tmp_path / "none.toml"), "PATH": "/usr/bin:/bin"})
        assert proc.returncode == 1, proc.stderr
        scanner.scan(f"process {debug} stdout", proc.stdout)
        scanner.scan(f"process {debug} stderr", proc.stderr)
        if not debug:
            assert proc.stderr.strip().splitlines() == [proc.stderr.strip()], proc.stderr
            assert "SASL_AUTHENTICATION_FAILED" in proc.stderr
