"""Secrets from --command-config files, profiles and the environment never appear in anything
kadmin prints: stdout, stderr, Python logging at DEBUG, and the tracebacks of --debug.

Each case runs a real command down a failure path (unreachable cluster, bad properties, bad
values, ZooKeeper refusing a wrong password, a plaintext cluster asked for SASL), through Click's
runner with and without --debug, and a few as real processes; every output is scanned for every
secret string (the count is printed at the end of the run).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
import traceback
from pathlib import Path

import pytest
from click.testing import CliRunner

from kadmin.commands.root import cli
from tests.support.zookeeper import free_port

SASL_PASSWORD = "saslPw-4417-s3cret"
KEY_PASSWORD = "keyPw-9921-s3cret"
TRUSTSTORE_PASSWORD = "trustPw-3310-s3cret"
KEYSTORE_PASSWORD = "keystorePw-8812-s3cret"
ZK_PASSWORD = "zkPw-5561-s3cret"
PROFILE_PASSWORD = "profilePw-7702-s3cret"
FAKE_KEY_BODY = "MIIfakeKeyBody0042s3cretAAAABBBBCCCC"


@pytest.fixture(scope="module")
def pem(tmp_path_factory):
    """A throwaway certificate and its private key, encrypted with KEY_PASSWORD."""
    d = tmp_path_factory.mktemp("pem")
    try:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-keyout", str(d / "key.pem"),
                        "-out", str(d / "cert.pem"), "-days", "2", "-subj", "/CN=localhost",
                        "-passout", f"pass:{KEY_PASSWORD}"], check=True, capture_output=True, timeout=60)
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"openssl cannot make a test certificate: {e}")
    key = (d / "key.pem").read_text()
    (d / "client.pem").write_text(key + (d / "cert.pem").read_text())
    return d


@pytest.fixture
def secrets(pem):
    key_lines = (pem / "key.pem").read_text().splitlines()[1:-1]
    return {
        "sasl password": SASL_PASSWORD, "ssl.key.password": KEY_PASSWORD,
        "ssl.truststore.password": TRUSTSTORE_PASSWORD, "ssl.keystore.password": KEYSTORE_PASSWORD,
        "zookeeper digest password": ZK_PASSWORD, "profile password": PROFILE_PASSWORD,
        "inline key body": FAKE_KEY_BODY,
        # Each line of the real private key is a secret; a sample from its start, middle and end.
        "PEM key line 1": key_lines[0], "PEM key middle line": key_lines[len(key_lines) // 2],
        "PEM key last line": key_lines[-1],
    }


def jaas(mechanism_module="org.apache.kafka.common.security.plain.PlainLoginModule", password=SASL_PASSWORD):
    return f'{mechanism_module} required username="alice" password="{password}";'


def write(path: Path, text: str) -> str:
    path.write_text(textwrap.dedent(text))
    return str(path)


def pem_property(pem: Path) -> str:
    """The key and chain inline, as Kafka's PEM properties take them (continued lines)."""
    key = (pem / "key.pem").read_text().strip().replace("\n", "\\n\\\n")
    chain = (pem / "cert.pem").read_text().strip().replace("\n", "\\n\\\n")
    return f"ssl.keystore.key={key}\nssl.keystore.certificate.chain={chain}\n"


def unreachable() -> str:
    return f"127.0.0.1:{free_port()}"


# --- the cases: (name, properties text, extra args, env) ---------------------------------------


def cases(pem: Path) -> dict[str, str]:
    """Properties files, each with secrets, each leading to a failure."""
    return {
        "sasl_plaintext": f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config={jaas()}\n",
        "sasl_ssl_pem_files": (
            f"security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
            f"sasl.jaas.config={jaas('org.apache.kafka.common.security.scram.ScramLoginModule')}\n"
            f"ssl.truststore.type=PEM\nssl.truststore.location={pem / 'cert.pem'}\n"
            f"ssl.truststore.password={TRUSTSTORE_PASSWORD}\n"
            f"ssl.keystore.type=PEM\nssl.keystore.location={pem / 'client.pem'}\nssl.key.password={KEY_PASSWORD}\n"),
        "ssl_inline_pem": (
            f"security.protocol=SSL\nssl.keystore.type=PEM\nssl.truststore.type=PEM\n"
            f"ssl.truststore.location={pem / 'cert.pem'}\nssl.key.password={KEY_PASSWORD}\n" + pem_property(pem)),
        "ssl_inline_pem_wrong_key_password": (
            f"security.protocol=SSL\nssl.keystore.type=PEM\nssl.key.password=wrong-{KEY_PASSWORD}\n" + pem_property(pem)),
        "inline_key_garbage": (
            "security.protocol=SSL\nssl.keystore.type=PEM\n"
            f"ssl.keystore.key=-----BEGIN PRIVATE KEY-----\\n{FAKE_KEY_BODY}\\n-----END PRIVATE KEY-----\n"
            f"ssl.keystore.certificate.chain=-----BEGIN CERTIFICATE-----\\n{FAKE_KEY_BODY}\\n-----END CERTIFICATE-----\n"
            f"ssl.key.password={KEY_PASSWORD}\n"),
        "jaas_unterminated": (
            "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
            f'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="a" password="{SASL_PASSWORD}\n'),
        "jaas_wrong_module": (
            f"security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-256\nsasl.jaas.config={jaas()}\n"),
        "jaas_bad_flag": (
            "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
            f'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule {SASL_PASSWORD} password="x";\n'),
        "bad_unicode_escape_on_a_password": f"ssl.key.password={KEY_PASSWORD}\\uZZ{KEY_PASSWORD}\n",
        "jks_keystore": (
            f"security.protocol=SSL\nssl.keystore.type=JKS\nssl.keystore.location=/nonexistent/client.jks\n"
            f"ssl.keystore.password={KEYSTORE_PASSWORD}\nssl.key.password={KEY_PASSWORD}\n"),
        "unknown_mechanism": (
            f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\nsasl.jaas.config={jaas()}\n"),
        "zookeeper_digest_on_brokers": (
            f"zookeeper.auth.digest=kafka:{ZK_PASSWORD}\nsecurity.protocol=SASL_PLAINTEXT\n"
            f"sasl.mechanism=PLAIN\nsasl.jaas.config={jaas()}\n"),
    }


COMMANDS = [
    ["log-dirs", "describe"],
    ["throttle", "show"],
]


@pytest.fixture
def run_kadmin(tmp_path, caplog, scanner_factory, secrets, monkeypatch):
    """Run kadmin through Click's runner, logging captured at DEBUG; scan every output."""
    scanner = scanner_factory(secrets)
    monkeypatch.setenv("KADMIN_CONFIG", str(tmp_path / "no-config.toml"))
    for var in ("KADMIN_BOOTSTRAP_SERVER", "KADMIN_ZOOKEEPER", "KADMIN_COMMAND_CONFIG", "KADMIN_CLUSTER",
                "KADMIN_TIMEOUT", "KADMIN_DEBUG"):
        monkeypatch.delenv(var, raising=False)

    def run(args, env=None, label=""):
        caplog.clear()
        caplog.set_level(logging.DEBUG)
        result = CliRunner().invoke(cli, args, env=env, catch_exceptions=True)
        texts = {"stdout": result.stdout, "stderr": result.stderr, "log": caplog.text,
                 "log args": "\n".join(repr(r.args) for r in caplog.records)}
        if result.exc_info and not isinstance(result.exception, SystemExit):
            texts["traceback"] = "".join(traceback.format_exception(*result.exc_info))
        for where, text in texts.items():
            scanner.scan(f"{label} {' '.join(args)}: {where}", text)
        return result

    return run


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "debug"])
@pytest.mark.parametrize("case", [
    "sasl_plaintext", "sasl_ssl_pem_files", "ssl_inline_pem", "ssl_inline_pem_wrong_key_password",
    "inline_key_garbage", "jaas_unterminated", "jaas_wrong_module", "jaas_bad_flag",
    "bad_unicode_escape_on_a_password", "jks_keystore", "unknown_mechanism", "zookeeper_digest_on_brokers"])
def test_command_config_secrets_never_shown(case, debug, pem, tmp_path, run_kadmin):
    cfg = write(tmp_path / "client.properties", cases(pem)[case])
    target = unreachable()
    for command in COMMANDS:
        args = (["--debug"] if debug else []) + command + [
            "--bootstrap-server", target, "--command-config", cfg, "--timeout", "1s"]
        result = run_kadmin(args, label=case)
        assert result.exit_code != 0
        if not debug:  # one clear line, no traceback
            assert "Traceback" not in result.stderr
            assert result.stderr.startswith("kadmin: error: "), result.stderr


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "debug"])
def test_profile_and_environment_secrets_never_shown(debug, tmp_path, run_kadmin):
    config = write(tmp_path / "config.toml", f"""\
        [clusters.prod]
        bootstrap_server = "{unreachable()}"
        timeout = "1s"
        [clusters.prod.properties]
        "security.protocol" = "SASL_PLAINTEXT"
        "sasl.mechanism" = "SCRAM-SHA-256"
        "sasl.jaas.config" = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" password="{PROFILE_PASSWORD}";'
        """)
    env = {"KADMIN_CONFIG": config, "KADMIN_CLUSTER": "prod"}
    for command in COMMANDS:
        result = run_kadmin((["--debug"] if debug else []) + command, env=env, label="profile")
        assert result.exit_code != 0
    # A profile file that is not TOML (an unterminated string holding the password).
    broken = write(tmp_path / "broken.toml", f"""\
        [clusters.prod.properties]
        "sasl.jaas.config" = 'x required password="{PROFILE_PASSWORD}";
        """)
    result = run_kadmin(["reassign", "list", "--cluster", "prod"], env={"KADMIN_CONFIG": broken}, label="broken")
    assert result.exit_code == 2 and "not valid TOML" in result.stderr
    # Profile values failing the schema: the error names the key, not the value.
    bad = write(tmp_path / "bad.toml", f"""\
        [clusters.prod]
        bootstrap_server = "127.0.0.1:1"
        password = "{PROFILE_PASSWORD}"
        timeout = "{PROFILE_PASSWORD}"
        [clusters.prod.properties]
        "sasl.jaas.config" = ["{PROFILE_PASSWORD}"]
        """)
    result = run_kadmin(["reassign", "list"], env={"KADMIN_CONFIG": bad, "KADMIN_CLUSTER": "prod"}, label="schema")
    assert result.exit_code == 2 and "profile file" in result.stderr
    # Secrets file named by the environment, with a bad timeout in the environment.
    cfg = write(tmp_path / "env.properties", f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config={jaas()}\n")
    env = {"KADMIN_BOOTSTRAP_SERVER": unreachable(), "KADMIN_COMMAND_CONFIG": cfg, "KADMIN_TIMEOUT": "soon"}
    result = run_kadmin(["reassign", "list"], env=env, label="env")
    assert result.exit_code == 2 and "KADMIN_TIMEOUT" in result.stderr


def test_sasl_against_a_plaintext_cluster_shows_no_secret(sandbox, tmp_path, run_kadmin):
    """The client tries its SASL handshake on a listener that does not speak it."""
    cfg = write(tmp_path / "client.properties", f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config={jaas()}\n")
    for debug in ([], ["--debug"]):
        for command in COMMANDS:
            result = run_kadmin(debug + command + ["-b", sandbox.bootstrap, "--command-config", cfg, "--timeout", "2s"],
                                label="sasl-on-plaintext")
            assert result.exit_code != 0
    assert sandbox.mutating_requests() == []


@pytest.mark.zookeeper
def test_zookeeper_wrong_digest_and_unreachable_zookeeper_show_no_secret(zk_connect, tmp_path, run_kadmin):
    from kazoo.client import KazooClient
    from kazoo.security import make_digest_acl

    zk = KazooClient(hosts=zk_connect)
    zk.start(timeout=15)
    try:
        zk.ensure_path("/brokers")
        zk.create("/brokers/ids", b"", acl=[make_digest_acl("kafka", "the-real-one", all=True)])
    finally:
        zk.stop()
        zk.close()
    cfg = write(tmp_path / "zk.properties", f"zookeeper.auth.digest=kafka:{ZK_PASSWORD}\nzookeeper.set.acl=true\n")
    for debug in ([], ["--debug"]):
        result = run_kadmin(debug + ["log-dirs", "describe", "--zookeeper", zk_connect, "--command-config", cfg,
                                     "--timeout", "5s"], label="zk-acl")
        assert result.exit_code == 1
        if not debug:
            assert "refused access to user 'kafka'" in result.stderr
        result = run_kadmin(debug + ["reassign", "list", "--zookeeper", unreachable(), "--command-config", cfg,
                                     "--timeout", "1s"], label="zk-down")
        assert result.exit_code == 1


@pytest.mark.parametrize("case", ["sasl_plaintext", "ssl_inline_pem", "jaas_unterminated", "inline_key_garbage"])
def test_debug_process_output_shows_no_secret(case, pem, tmp_path, scanner_factory, secrets):
    """A real process with --debug: logging configured by kadmin itself, tracebacks printed."""
    cfg = write(tmp_path / "client.properties", cases(pem)[case])
    env = {k: v for k, v in os.environ.items() if not k.startswith("KADMIN_")}
    env["KADMIN_CONFIG"] = str(tmp_path / "none.toml")
    proc = subprocess.run([sys.executable, "-m", "kadmin", "--debug", "log-dirs", "describe", "-b", unreachable(),
                           "--command-config", cfg, "--timeout", "1s"],
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode != 0
    scanner = scanner_factory(secrets)
    scanner.scan(f"process {case}: stdout", proc.stdout)
    scanner.scan(f"process {case}: stderr", proc.stderr)


@pytest.mark.parametrize("where", ["kafka", "zookeeper"])
def test_an_encrypted_key_without_its_password_is_refused_at_once_not_prompted_for(pem, tmp_path, where):
    """OpenSSL asks for a pass phrase on the terminal when a key is encrypted and no password is
    given: the command hung on 'Enter PEM pass phrase:' past --timeout. Kafka's clients never
    prompt; kadmin names the missing setting, exit 2, before connecting anywhere."""
    if where == "kafka":
        props = write(tmp_path / "c.properties", f"""\
            security.protocol=SSL
            ssl.truststore.type=PEM
            ssl.truststore.location={pem / 'cert.pem'}
            ssl.keystore.type=PEM
            ssl.keystore.location={pem / 'client.pem'}
            """)
        args, setting = ["-b", unreachable()], "ssl.key.password"
    else:
        props = write(tmp_path / "c.properties", f"""\
            zookeeper.ssl.client.enable=true
            zookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty
            zookeeper.ssl.truststore.location={pem / 'cert.pem'}
            zookeeper.ssl.keystore.location={pem / 'client.pem'}
            """)
        args, setting = ["--zookeeper", unreachable()], "zookeeper.ssl.keystore.password"
    run = subprocess.run([sys.executable, "-m", "kadmin", "reassign", "list", *args, "--command-config", props,
                          "--timeout", "5s"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert run.returncode == 2, run.stderr
    assert f"the private key is encrypted and {setting} is not set" in run.stderr
    assert "pass phrase" not in run.stderr + run.stdout


# --- passwords a repr or an encoding changes --------------------------------------------------

# Each shown differently by a repr than as typed: kafka-python logged the SASL/PLAIN bytes it
# sends under --debug, auth_bytes=b'u1\x00u1\x00P\xc3\xa4ssw\xc3\xb6rd', which masking the
# password as typed did not catch.
TRICKY_PASSWORDS = {
    "non-ASCII": "Pässwörd-8812-s3cret",
    "invisible characters": "Inv\u200bis\u2060ible\u00ad-3301-s3cret",
    "quotes and backslashes": "Qu\"o'te\\Back-4410-s3cret",
    "control characters": "Tab\tBell\x07-5520-s3cret",
}


def properties_value(text: str) -> str:
    """``text`` as a .properties value: backslashes doubled, non-printable characters as \\uXXXX."""
    return "".join(
        "\\\\" if c == "\\" else c if c.isprintable() else f"\\u{ord(c):04x}" for c in text)


def jaas_quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@pytest.mark.parametrize("source", ["sasl PLAIN", "sasl SCRAM", "ssl.key.password", "zookeeper digest"])
@pytest.mark.parametrize("password", TRICKY_PASSWORDS.values(), ids=TRICKY_PASSWORDS.keys())
def test_log_records_mask_every_form_of_a_password(source, password, tmp_path, caplog, scanner_factory):
    from kadmin.backends.zk_auth import zk_security
    from kadmin.client_config import security_config
    from kadmin.config import read_properties_file

    module = {"sasl PLAIN": "plain.PlainLoginModule", "sasl SCRAM": "scram.ScramLoginModule"}.get(source, "")
    text = {
        "ssl.key.password": f"security.protocol=SSL\nssl.key.password={properties_value(password)}\n",
        "zookeeper digest": f"zookeeper.auth.digest=kafka:{properties_value(password)}\n",
    }.get(source) or (
        f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism={'PLAIN' if 'PLAIN' in source else 'SCRAM-SHA-256'}\n"
        f"sasl.jaas.config=org.apache.kafka.common.security.{module} required username=\"u1\" "
        f"password={properties_value(jaas_quoted(password))};\n")
    (tmp_path / "c.properties").write_text(text, encoding="utf-8")
    properties = read_properties_file(tmp_path / "c.properties")
    if source == "zookeeper digest":
        assert zk_security(properties).digest.reveal() == f"kafka:{password}"
    else:
        security = security_config(properties)
        read = security.password if source.startswith("sasl") else security.key_password
        assert read.reveal() == password  # the test's escaping gave kadmin the password itself
    encoded = password.encode()
    caplog.set_level(logging.DEBUG)
    log = logging.getLogger("kafka.protocol.parser")
    log.debug("Sending request 3 SaslAuthenticateRequest(version=2, auth_bytes=%r)", b"u1\x00u1\x00" + encoded)
    log.debug("Send: %r", bytearray(b"\x00\x00\x00(\x00$\x06kadmin\x00\x16u1\x00u1\x00" + encoded + b"\x00"))
    log.debug("Starting KafkaAdminClient with configuration: %s", {"sasl_plain_password": password})
    log.debug("%r", f"password=\"{password}\" and 'quotes'")  # repr escapes ' next to a "
    log.debug("auth %s", json.dumps({"password": password}))
    log.debug("auth %s", json.dumps({"password": password}, ensure_ascii=False))
    try:
        raise ValueError(encoded)
    except ValueError:
        log.debug("failed", exc_info=True)
    records = caplog.records[-7:]
    assert len(records) == 7 and all("******" in (r.getMessage() + (r.exc_text or "")) for r in records)
    texts = caplog.text + "\n".join(repr(r.args) for r in records)
    scanner_factory({f"{source} password": password}).scan(f"{source} log records", texts)
