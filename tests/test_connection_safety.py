"""Which cluster a command reaches, and with whose credentials, through the real CLI.

- A connection flag given empty or blank (``-b "$BOOTSTRAP"`` with the variable unset) is a usage
  error naming the flag, exit 2, before anything connects: read as "not given", the command
  acted on the default profile's cluster (perhaps production), throttle set and all.
- A profile's credentials go only to the servers it names: a ``KADMIN_CLUSTER`` left in the
  environment is ignored next to ``--bootstrap-server`` (a warning says so); ``--cluster`` and
  ``--bootstrap-server`` together send them, and a warning says that too.
- A profile naming no server says so, in a command and in a fleet inventory, instead of
  advising ``--bootstrap-server``.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kadmin.commands.root import cli

# Every command that connects (each has the connection flags), with what it requires besides.
PLAN = '{"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": [1, 2]}]}'
COMMANDS = [
    ["leaders", "elect", "--dry-run"],
    ["leaders", "show"],
    ["log-dirs", "balance"],
    ["log-dirs", "describe"],
    ["reassign", "balance"],
    ["reassign", "cancel", "--all"],  # 127.0.0.1:1: nothing to cancel there
    ["reassign", "execute", "--reassignment-json-file", "{plan}", "--dry-run"],
    ["reassign", "generate", "--topics-to-move-json-file", "{topics}", "--broker-list", "1,2"],
    ["reassign", "list"],
    ["reassign", "progress"],
    ["reassign", "verify", "--reassignment-json-file", "{plan}"],
    ["throttle", "clear", "--all", "--dry-run"],
    ["throttle", "set", "--rate", "7MB/s", "--brokers", "0", "--dry-run"],
    ["throttle", "show"],
]
FLAGS = [
    ("--bootstrap-server", "HOST:PORT"),
    ("--zookeeper", "HOST:PORT"),
    ("--command-config", "FILE"),
    ("--cluster", "profile NAME"),
    ("--timeout", "DURATION"),
]


@pytest.fixture
def default_profile(tmp_path, monkeypatch):
    """A config file whose default_cluster is a server nothing listens on, found through
    KADMIN_CONFIG: a command falling back to it fails to connect (exit 1) within 1s."""
    config = tmp_path / "config.toml"
    config.write_text('default_cluster = "prod"\n[clusters.prod]\nbootstrap_server = "127.0.0.1:1"\ntimeout = "1s"\n')
    for name in ("KADMIN_BOOTSTRAP_SERVER", "KADMIN_ZOOKEEPER", "KADMIN_CLUSTER", "KADMIN_COMMAND_CONFIG",
                 "KADMIN_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("KADMIN_CONFIG", str(config))
    (tmp_path / "plan.json").write_text(PLAN)
    (tmp_path / "topics.json").write_text('{"version": 1, "topics": [{"topic": "orders"}]}')
    return tmp_path


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
@pytest.mark.parametrize("flag, what", FLAGS, ids=[f for f, _ in FLAGS])
@pytest.mark.parametrize("value", ["", " "], ids=["empty", "blank"])
def test_a_connection_flag_given_empty_is_a_usage_error_not_the_default_cluster(
    default_profile, command, flag, what, value
):
    args = [a.format(plan=default_profile / "plan.json", topics=default_profile / "topics.json") for a in command]
    r = CliRunner().invoke(cli, [*args, flag, value])
    assert r.exit_code == 2, r.output
    assert f"kadmin: error: {flag}: empty (no {what} given)" in r.output, r.output


def test_a_fleet_report_refuses_an_empty_connection_flag_too(default_profile):
    """A fleet report refuses the connection flags: given empty, they were not even seen."""
    inventory = default_profile / "fleet.toml"
    inventory.write_text('[[clusters]]\nname = "a"\nbootstrap_server = "127.0.0.1:1"\ntimeout = "1s"\n')
    r = CliRunner().invoke(cli, ["log-dirs", "describe", "--fleet", str(inventory), "--bootstrap-server", ""])
    assert r.exit_code == 2, r.output
    assert "--bootstrap-server: empty (no HOST:PORT given)" in r.output, r.output


def test_an_empty_kadmin_variable_is_unset(default_profile, monkeypatch):
    """``export KADMIN_CLUSTER=`` is how a shell unsets a variable: the default profile is used,
    as with the variable unset (README: empty KADMIN_* variables count as unset)."""
    monkeypatch.setenv("KADMIN_CLUSTER", "")
    monkeypatch.setenv("KADMIN_BOOTSTRAP_SERVER", " ")
    r = CliRunner().invoke(cli, ["throttle", "show"])
    assert r.exit_code == 1 and "127.0.0.1:1" in r.output, r.output  # the default profile's server


def test_a_profile_naming_no_server_says_so(default_profile):
    (default_profile / "config.toml").write_text('[clusters.nothing]\ntimeout = "5s"\n')
    r = CliRunner().invoke(cli, ["throttle", "show", "--cluster", "nothing"])
    assert r.exit_code == 2, r.output
    assert "profile 'nothing' has no bootstrap_server or zookeeper" in r.output, r.output
    assert "--bootstrap-server" not in r.output and "KADMIN_" not in r.output, r.output

    inventory = default_profile / "fleet.toml"
    inventory.write_text('[[clusters]]\nname = "n"\nprofile = "nothing"\n')
    r = CliRunner().invoke(cli, ["log-dirs", "describe", "--fleet", str(inventory)])
    assert r.exit_code == 2, r.output
    assert "clusters.0.profile: profile 'nothing' has no bootstrap_server or zookeeper" in r.output, r.output
    assert "--bootstrap-server" not in r.output and "KADMIN_" not in r.output, r.output


@pytest.fixture
def sasl_sandbox(sandbox_factory, default_profile):
    """A sandbox that knows only alice, and a profile "prod" carrying user u's login (PLAIN)."""
    sb = sandbox_factory(brokers=1, log_dirs=1, manual_clock=True, sasl_users={"alice": "al1ce-Pw-3391"})
    (default_profile / "prod.properties").write_text(
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
        'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" '
        'password="u-Pw-2207";\n'
    )
    (default_profile / "config.toml").write_text(
        '[clusters.prod]\nbootstrap_server = "127.0.0.1:1"\ncommand_config = "prod.properties"\n'
    )
    return sb


def test_a_leftover_kadmin_cluster_sends_no_credentials_to_a_bootstrap_server_flag(sasl_sandbox, monkeypatch):
    """KADMIN_CLUSTER=prod from an earlier session, then -b another cluster: u's password is not
    sent there (the sandbox is asked without a login: it wants one), and a warning says why."""
    monkeypatch.setenv("KADMIN_CLUSTER", "prod")
    r = CliRunner().invoke(cli, ["log-dirs", "describe", "-b", sasl_sandbox.bootstrap, "--timeout", "5s"])
    assert r.exit_code == 1, r.output
    assert (
        f"kadmin: warning: KADMIN_CLUSTER=prod is ignored because --bootstrap-server was given: profile 'prod' "
        f"and its settings are not used for {sasl_sandbox.bootstrap}"
    ) in r.output, r.output
    assert "asks for a login" in r.output, r.output  # no SASL tried
    assert "Invalid username or password" not in r.output, r.output


def test_cluster_and_bootstrap_server_on_the_command_line_send_the_profile_and_say_so(sasl_sandbox):
    r = CliRunner().invoke(
        cli, ["log-dirs", "describe", "--cluster", "prod", "-b", sasl_sandbox.bootstrap, "--timeout", "5s"]
    )
    assert r.exit_code == 1, r.output
    assert (
        "kadmin: warning: --cluster prod with --bootstrap-server: the settings of profile 'prod' (its "
        f"command_config, credentials included) are sent to {sasl_sandbox.bootstrap}, which the profile does not name"
    ) in r.output, r.output
    assert "Invalid username or password" in r.output, r.output  # as the operator asked


@pytest.mark.parametrize("where, args, env", [
    ("--zookeeper", ["--zookeeper", "127.0.0.1:9"], {}),
    ("KADMIN_ZOOKEEPER", [], {"KADMIN_ZOOKEEPER": "127.0.0.1:9"}),
], ids=["flag", "variable"])
def test_a_zookeeper_that_does_not_answer_names_where_its_address_came_from(default_profile, monkeypatch, where,
                                                                             args, env):
    """What to check is the setting the user gave: the variable when it came from the variable,
    not a --zookeeper flag never given."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(cli, ["reassign", "list", *args, "--timeout", "1s"])
    assert result.exit_code == 1, result.output
    assert f"(check the {where} host:port (and that the server is up), or use --bootstrap-server)" in result.stderr
