"""security.protocol=SASL_PLAINTEXT against a PLAINTEXT listener is said at once, with what to set.

Tester E (4.3 sandbox): ``kadmin log-dirs describe --command-config sasl.properties`` (SASL_PLAINTEXT,
PLAIN, a JAAS config) against a PLAINTEXT listener took 30.15 s and ended with librdkafka's
'_AUTHENTICATION (... SASL Handshake not supported by broker ...)', exit 1; in a --fleet entry
kafka-python's 'UNSUPPORTED_VERSION ([Error 35] IncompatibleBrokerVersion ...)'. The listener
probe now asks SaslHandshake (naming the configured mechanism, nothing secret) and reads Kafka's
ILLEGAL_SASL_STATE, the answer of a listener without SASL (KafkaApis.handleSaslHandshakeRequest).
"""

from __future__ import annotations

import time

import pytest
from click.testing import CliRunner

from kadmin.commands.root import cli
from kadmin.sandbox import Sandbox

LONG = 8.0  # the --timeout the mistake used to cost in full
JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="pw-4417-s3cret";'
COMMANDS = [["log-dirs", "describe"], ["reassign", "list"], ["throttle", "show"]]


@pytest.fixture(scope="module", params=["3.3", "4.3"])
def plaintext(request):
    sb = Sandbox(brokers=2, log_dirs=2, manual_clock=True, kafka_version=request.param).start()
    sb.create_topic("orders", assignment={0: [0, 1], 1: [1, 0]}, size_bytes=1000)
    yield sb
    sb.stop()


@pytest.fixture
def sasl_config(tmp_path):
    path = tmp_path / "sasl.properties"
    path.write_text(f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config={JAAS}\n")
    return path


def _run(*argv):
    started = time.monotonic()
    result = CliRunner().invoke(cli, list(argv), catch_exceptions=True)
    return result, time.monotonic() - started


SEEN = ("answered ApiVersions in plaintext and SaslHandshake with ILLEGAL_SASL_STATE, as Kafka's listeners "
        "without SASL do")
VERDICT = "it speaks PLAINTEXT, not SASL_PLAINTEXT"
FIX = "set security.protocol=PLAINTEXT in --command-config"


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_sasl_plaintext_against_a_plaintext_listener_is_one_line_with_what_to_set(plaintext, sasl_config, env,
                                                                                   command):
    result, elapsed = _run(*command, "--bootstrap-server", plaintext.bootstrap, "--command-config",
                           str(sasl_config), "--timeout", f"{LONG:g}s")
    assert result.exit_code == 1, result.output
    assert result.stderr.strip().splitlines() == [
        f"kadmin: error: {plaintext.bootstrap} {SEEN}: {VERDICT} ({FIX})"], result.stderr
    assert elapsed < 1.5, elapsed
    assert "SaslAuthenticate" not in {name for _, name, _ in plaintext.requests}  # no credentials sent


def test_settings_from_kadmin_command_config_are_told_to_be_fixed_there(plaintext, sasl_config, env, monkeypatch):
    """The fix names where the properties came from: the variable (and its file), not a
    --command-config that was never given."""
    monkeypatch.setenv("KADMIN_COMMAND_CONFIG", str(sasl_config))
    result, _ = _run("reassign", "list", "--bootstrap-server", plaintext.bootstrap, "--timeout", f"{LONG:g}s")
    assert result.exit_code == 1, result.output
    fix = f"set security.protocol=PLAINTEXT in KADMIN_COMMAND_CONFIG ({sasl_config})"
    assert result.stderr.strip() == f"kadmin: error: {plaintext.bootstrap} {SEEN}: {VERDICT} ({fix})", result.stderr


def test_in_a_fleet_entry_too(plaintext, sasl_config, env, tmp_path):
    inventory = tmp_path / "fleet.toml"
    inventory.write_text(f'timeout = "{LONG:g}s"\n[[clusters]]\nname = "plain"\n'
                         f'bootstrap_server = "{plaintext.bootstrap}"\ncommand_config = "{sasl_config}"\n')
    result, elapsed = _run("log-dirs", "describe", "--fleet", str(inventory))
    assert result.exit_code == 1, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("kadmin: warning: cluster plain")]
    # In a fleet the settings come from the inventory entry, so the fix names it, not the flag fleet refuses.
    fix = "set security.protocol=PLAINTEXT in command_config of inventory entry 'plain'"
    assert warnings and f"{plaintext.bootstrap} {SEEN}: {VERDICT} ({fix})" in warnings[0], result.stderr
    assert "UNSUPPORTED_VERSION" not in result.output and "IncompatibleBrokerVersion" not in result.output
    assert elapsed < 2, elapsed


def test_a_listener_whose_api_versions_lists_no_sasl_handshake_is_told_by_metadata(plaintext, monkeypatch):
    """A broker that does not list SaslHandshake (none since Kafka 0.10) has no SASL: Metadata for no
    topic, answered without a login, says so."""
    from kadmin.backends import listener_probe

    real = listener_probe.Connection

    class WithoutSasl(real):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.versions.pop(17, None)

    monkeypatch.setattr(listener_probe, "Connection", WithoutSasl)
    host, port = plaintext.bootstrap.split(",")[0].rsplit(":", 1)
    said = listener_probe.probe_listener(host, int(port), "SASL_PLAINTEXT", None, 2.0, "PLAIN")
    assert said is not None
    assert (said.seen, said.verdict, said.fix) == (
        "answered Kafka's requests in plaintext without a login, and its ApiVersions lists no SaslHandshake",
        VERDICT, FIX)
