"""Connection settings: precedence, profiles, Java properties, and the mapping to both clients."""

from __future__ import annotations

import shutil
import ssl
import subprocess
import tempfile
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kadmin.config import (
    MAX_TIMEOUT,
    ConnectionSettings,
    bootstrap_addresses,
    Secret,
    parse_jaas_config,
    parse_properties,
    parse_timeout,
    redact,
    resolve_connection,
    to_confluent,
    to_kafka_python,
    zookeeper_hosts,
)
from kadmin.client_config import tls_context
from kadmin.errors import EXIT_USAGE, ConfigError, UsageError

PASSWORD = "s3cr3t-Pa55"
PLAIN_JAAS = f'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="{PASSWORD}";'
SCRAM_JAAS = f'org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" password="{PASSWORD}";'


# --- Java properties -----------------------------------------------------------------------


def test_properties_separators_comments_and_escapes():
    text = (
        "# a comment\n"
        "! another comment\n"
        "   \n"
        "security.protocol=SASL_SSL\n"
        "sasl.mechanism : PLAIN\n"
        "client.id   kadmin-tool\n"
        "key\\=with\\:seps = v\\u00e9\\tx\n"
        "empty.value=\n"
        "lonely.key\n"
        "client.id=last-wins\n"
    )
    assert parse_properties(text) == {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "PLAIN",
        "client.id": "last-wins",
        "key=with:seps": "v\u00e9\tx",
        "empty.value": "",
        "lonely.key": "",
    }


def test_properties_line_continuations_as_java():
    text = (
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\\n"
        '    username="alice" \\\n'
        '    password="p";\n'
        "path=C:\\\\dir\\\\\n"  # an even number of backslashes does not continue
        "next=1\n"
        "# a comment ending in a backslash does not continue \\\n"
        "after.comment=2\r\n"
        "crlf=3\r"
        "cr=4"
    )
    props = parse_properties(text)
    assert props["sasl.jaas.config"] == (
        'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="p";'
    )
    assert props["path"] == "C:\\dir\\"
    assert props["next"] == "1"
    assert props["after.comment"] == "2"
    assert props["crlf"] == "3" and props["cr"] == "4"


def test_properties_bad_unicode_escape_is_a_config_error_without_the_value(tmp_path):
    f = tmp_path / "client.properties"
    f.write_text(f"# creds\nsasl.username=u\nssl.key.password={PASSWORD}\\u12\n")
    with pytest.raises(ConfigError, match=r"client.properties: line 3 \(ssl.key.password\): malformed") as info:
        resolve_connection(bootstrap_server="b:9092", command_config=str(f), env={}, config_path=tmp_path / "none.toml")
    assert PASSWORD not in str(info.value)


# --- precedence ------------------------------------------------------------------------------


def write_profiles(tmp_path, text):
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


PROFILES = """
default_cluster = "dev"

[clusters.dev]
bootstrap_server = "dev:9092"
timeout = "5s"

[clusters.prod]
bootstrap_server = "prod-1:9093,prod-2:9093"
command_config = "prod.properties"
properties = { "client.id" = "from-profile", "security.protocol" = "SASL_SSL" }
timeout = "2m"

[clusters.legacy]
zookeeper = "zk-1:2181,zk-2:2181/kafka"
"""


def test_flags_beat_environment_beat_profile(tmp_path):
    path = write_profiles(tmp_path, PROFILES)
    env = {"KADMIN_BOOTSTRAP_SERVER": "env:9092", "KADMIN_CLUSTER": "legacy", "KADMIN_TIMEOUT": "7s"}

    s = resolve_connection(bootstrap_server="flag:9092", timeout="1s", env=env, config_path=path)
    assert (s.bootstrap_servers, s.zookeeper, s.timeout, s.source) == ("flag:9092", None, 1.0, "flags")

    s = resolve_connection(env=env, config_path=path)  # the named profile's target; the env's timeout
    assert (s.bootstrap_servers, s.zookeeper, s.timeout) == (None, "zk-1:2181,zk-2:2181/kafka", 7.0)

    s = resolve_connection(env={k: v for k, v in env.items() if k != "KADMIN_CLUSTER"}, config_path=path)
    assert (s.bootstrap_servers, s.zookeeper, s.timeout, s.source) == ("env:9092", None, 7.0, "environment")

    s = resolve_connection(env={"KADMIN_CLUSTER": "legacy"}, config_path=path)
    assert (s.bootstrap_servers, s.zookeeper, s.profile) == (None, "zk-1:2181,zk-2:2181/kafka", "legacy")
    assert s.source == "profile legacy"


def test_a_profile_named_with_cluster_outranks_the_environments_target(tmp_path):
    """KADMIN_BOOTSTRAP_SERVER left from a sandbox session must not receive prod's credentials
    when the operator names prod (--cluster or KADMIN_CLUSTER)."""
    path = write_profiles(tmp_path, PROFILES)
    (tmp_path / "prod.properties").write_text("sasl.mechanism=PLAIN\n")
    env = {"KADMIN_BOOTSTRAP_SERVER": "127.0.0.1:40000"}
    s = resolve_connection(cluster="prod", env=env, config_path=path)
    assert (s.bootstrap_servers, s.source) == ("prod-1:9093,prod-2:9093", "profile prod")
    s = resolve_connection(env={**env, "KADMIN_CLUSTER": "prod"}, config_path=path)
    assert (s.bootstrap_servers, s.source) == ("prod-1:9093,prod-2:9093", "profile prod")
    s = resolve_connection(cluster="prod", bootstrap_server="prod-3:9093", env=env, config_path=path)
    assert (s.bootstrap_servers, s.source) == ("prod-3:9093", "flags")


@pytest.mark.parametrize(
    "kwargs, flag",
    [
        ({"bootstrap_server": ""}, "--bootstrap-server: empty (no HOST:PORT given)"),
        ({"bootstrap_server": "  "}, "--bootstrap-server: empty (no HOST:PORT given)"),
        ({"zookeeper": ""}, "--zookeeper: empty (no HOST:PORT given)"),
        ({"command_config": " "}, "--command-config: empty (no FILE given)"),
        ({"cluster": ""}, "--cluster: empty (no profile NAME given)"),
        ({"timeout": ""}, "--timeout: empty (no DURATION given)"),
    ],
)
def test_a_flag_given_empty_is_a_usage_error_not_the_next_level(tmp_path, kwargs, flag):
    """-b "$BOOTSTRAP" with the variable unset: read as "not given" it fell back to the
    environment's target or the default profile, perhaps production."""
    path = write_profiles(tmp_path, PROFILES)
    env = {"KADMIN_BOOTSTRAP_SERVER": "env:9092", "KADMIN_CLUSTER": "prod"}
    for environment in ({}, env):
        with pytest.raises(UsageError) as info:
            resolve_connection(**kwargs, env=environment, config_path=path)
        assert str(info.value) == flag and info.value.exit_code == EXIT_USAGE


def test_a_kadmin_variable_set_empty_is_unset(tmp_path):
    """``export KADMIN_BOOTSTRAP_SERVER=`` is how a shell unsets a variable (the README says so)."""
    path = write_profiles(tmp_path, PROFILES)
    names = ("KADMIN_BOOTSTRAP_SERVER", "KADMIN_ZOOKEEPER", "KADMIN_CLUSTER", "KADMIN_COMMAND_CONFIG", "KADMIN_TIMEOUT")
    blank = dict.fromkeys(names, " ")
    s = resolve_connection(env=blank, config_path=path)
    assert (s.bootstrap_servers, s.profile, s.timeout, s.source) == ("dev:9092", "dev", 5.0, "profile dev")


def test_a_kadmin_cluster_from_the_environment_is_ignored_next_to_a_target_flag(tmp_path):
    """KADMIN_CLUSTER=prod left from a prod session, then -b sandbox: prod's credentials (and
    timeout) are not sent there; a note says the variable is ignored."""
    path = write_profiles(tmp_path, PROFILES)
    (tmp_path / "prod.properties").write_text(f"sasl.mechanism=PLAIN\nsasl.jaas.config={PLAIN_JAAS}\n")
    for flag, kwargs in (("--bootstrap-server", {"bootstrap_server": "sandbox:9092"}),
                         ("--zookeeper", {"zookeeper": "zk:2181"})):
        s = resolve_connection(**kwargs, env={"KADMIN_CLUSTER": "prod"}, config_path=path)
        assert (s.profile, dict(s.properties), s.timeout, s.source) == (None, {}, 30.0, "flags")
        assert s.notes == (
            f"KADMIN_CLUSTER=prod is ignored because {flag} was given: profile 'prod' and its settings are not "
            f"used for {kwargs.popitem()[1]} (give --cluster prod to use them)",
        )
    # without a target flag the variable names the profile, as before
    s = resolve_connection(env={"KADMIN_CLUSTER": "prod"}, config_path=path)
    assert (s.bootstrap_servers, s.properties["sasl.mechanism"], s.notes) == ("prod-1:9093,prod-2:9093", "PLAIN", ())


def test_cluster_and_a_target_flag_together_send_the_profile_with_a_note(tmp_path):
    path = write_profiles(tmp_path, PROFILES)
    (tmp_path / "prod.properties").write_text(f"sasl.mechanism=PLAIN\nsasl.jaas.config={PLAIN_JAAS}\n")
    s = resolve_connection(cluster="prod", bootstrap_server="tunnel:19093", env={}, config_path=path)
    assert s.properties["sasl.mechanism"] == "PLAIN"
    assert s.notes == (
        "--cluster prod with --bootstrap-server: the settings of profile 'prod' (its command_config and properties, "
        "credentials included) are sent to tunnel:19093, which the profile does not name",
    )
    assert PASSWORD not in repr(s) and PASSWORD not in s.notes[0]
    # no note when the flag names the profile's own servers, or the profile carries no security settings
    assert resolve_connection(cluster="prod", bootstrap_server=" prod-1:9093, prod-2:9093", env={},
                              config_path=path).notes == ()
    assert resolve_connection(cluster="dev", bootstrap_server="tunnel:19093", env={}, config_path=path).notes == ()


def test_a_profile_naming_no_server_says_so(tmp_path):
    """Not "no cluster given: use --bootstrap-server ...": the operator did name a profile. A
    named profile without a server is not passed over for KADMIN_BOOTSTRAP_SERVER either (its
    credentials would go there)."""
    path = write_profiles(tmp_path, 'default_cluster = "nothing"\n[clusters.nothing]\ntimeout = "5s"\n')
    for kwargs, env, which in (
        ({"cluster": "nothing"}, {}, "profile 'nothing'"),
        ({}, {"KADMIN_CLUSTER": "nothing", "KADMIN_BOOTSTRAP_SERVER": "env:9092"}, "profile 'nothing'"),
        ({}, {}, "default_cluster 'nothing'"),
    ):
        with pytest.raises(ConfigError) as info:
            resolve_connection(**kwargs, env=env, config_path=path)
        assert str(info.value) == f"{which} has no bootstrap_server or zookeeper, so it names no cluster to connect to"
        assert "[clusters.nothing]" in info.value.hint and info.value.exit_code == EXIT_USAGE
    # a target flag next to it is the operator's choice: the profile gives the timeout
    s = resolve_connection(cluster="nothing", bootstrap_server="b:9092", env={}, config_path=path)
    assert (s.bootstrap_servers, s.timeout, s.notes) == ("b:9092", 5.0, ())


def test_a_dotted_property_name_left_unquoted_is_explained():
    import tomllib

    from kadmin.config import validate_profiles

    data = tomllib.loads('[clusters.x]\nbootstrap_server = "a:1"\n[clusters.x.properties]\nsecurity.protocol = "SSL"\n')
    assert validate_profiles(data) == [
        "clusters.x.properties.security: must be of type ['string', 'integer', 'boolean'] "
        '(quote a property name with dots: "security.protocol" = ...)'
    ]


@pytest.mark.parametrize("written, shown", [("10", "10"), ('"10"', "10"), ("2.5", "2.5"), ('" 10000 "', "10000")])
def test_a_profile_timeout_without_a_unit_is_refused_as_the_flag_and_a_fleet_inventory_refuse_it(
    tmp_path, written, shown
):
    # Was read as seconds (TOML numbers and strings of digits alike), while --timeout 10,
    # KADMIN_TIMEOUT=10 and a fleet inventory's timeout = 10 ask for the unit.
    path = write_profiles(tmp_path, f'[clusters.a]\nbootstrap_server = "a:1"\ntimeout = {written}\n')
    with pytest.raises(ConfigError) as info:
        resolve_connection(cluster="a", env={}, config_path=path)
    assert info.value.problems == [
        f"clusters.a.timeout: {shown} has no unit: write {shown}ms (as Kafka's tool meant it) or {shown}s"
    ]
    assert info.value.exit_code == EXIT_USAGE
    with pytest.raises(UsageError, match=f"^--timeout: {shown} has no unit: write {shown}ms"):
        parse_timeout(shown)
    with pytest.raises(UsageError, match=f"^KADMIN_TIMEOUT: {shown} has no unit: write {shown}ms"):
        resolve_connection(bootstrap_server="b:1", env={"KADMIN_TIMEOUT": shown}, config_path=tmp_path / "none.toml")


def test_a_profile_timeout_with_its_unit_is_read_as_the_flag_reads_it(tmp_path):
    path = write_profiles(tmp_path, '[clusters.a]\nbootstrap_server = "a:1"\ntimeout = "1m30s"\n')
    assert resolve_connection(cluster="a", env={}, config_path=path).timeout == 90.0


def test_the_target_is_chosen_as_a_pair(tmp_path):
    # A ZooKeeper flag overrides a bootstrap server from the environment: no usage error.
    s = resolve_connection(zookeeper="zk:2181/kafka", env={"KADMIN_BOOTSTRAP_SERVER": "env:9092"},
                           config_path=tmp_path / "none.toml")
    assert (s.bootstrap_servers, s.zookeeper) == (None, "zk:2181/kafka")


@pytest.mark.parametrize(
    "kwargs, env, needle",
    [
        ({"bootstrap_server": "b:9092", "zookeeper": "z:2181"}, {}, "--bootstrap-server and --zookeeper"),
        ({}, {"KADMIN_BOOTSTRAP_SERVER": "b:9092", "KADMIN_ZOOKEEPER": "z:2181"}, "KADMIN_BOOTSTRAP_SERVER and KADMIN_ZOOKEEPER"),
    ],
)
def test_both_targets_at_one_level_is_a_usage_error(tmp_path, kwargs, env, needle):
    with pytest.raises(UsageError, match=needle) as info:
        resolve_connection(**kwargs, env=env, config_path=tmp_path / "none.toml")
    assert info.value.exit_code == EXIT_USAGE


def test_both_targets_in_one_profile_is_a_usage_error(tmp_path):
    path = write_profiles(tmp_path, '[clusters.x]\nbootstrap_server = "b:1"\nzookeeper = "z:2"\n')
    with pytest.raises(UsageError, match="profile 'x'"):
        resolve_connection(cluster="x", env={}, config_path=path)


@pytest.mark.parametrize("servers, addresses", [
    ("kafka-1:9092", [("kafka-1", 9092)]),
    (" a:1 , b:65535 ,", [("a", 1), ("b", 65535)]),  # spaces and empty entries, as Kafka's clients read them
    ("[::1]:9092,[fe80::1%eth0]:9093", [("::1", 9092), ("fe80::1%eth0", 9093)]),
])
def test_bootstrap_addresses(servers, addresses):
    assert bootstrap_addresses(servers) == addresses


@pytest.mark.parametrize("servers", ["localhost", "kafka:", ":9092", "kafka:0", "kafka:65536", "kafka:9o92",
                                     "kafka:99999", "[::1", "[::1]]:9092", ",", " ",
                                     # characters no host name has (Kafka's clients read only part of it)
                                     "bad host:9092", "a:9092,b c:9092", "k/x:9092", "kafka.ü:9092", "[kafka]:9092"])
def test_a_bootstrap_list_no_client_could_use_is_refused_before_connecting(tmp_path, servers):
    """Kafka's clients refuse it too ("Invalid url in bootstrap.servers"); kadmin used to try it
    until --timeout and say no broker answered."""
    none = tmp_path / "none.toml"
    if servers.strip(" ,"):  # "," and " " name no server: refused too, never read as no flag
        with pytest.raises(UsageError, match="--bootstrap-server: .*HOST:PORT") as info:
            resolve_connection(bootstrap_server=servers, env={}, config_path=none)
        assert info.value.exit_code == EXIT_USAGE
        with pytest.raises(UsageError, match="KADMIN_BOOTSTRAP_SERVER: .*HOST:PORT"):
            resolve_connection(env={"KADMIN_BOOTSTRAP_SERVER": servers}, config_path=none)
        path = write_profiles(tmp_path, f'[clusters.x]\nbootstrap_server = "{servers}"\n')
        with pytest.raises(ConfigError, match="bootstrap_server in profile 'x': .*HOST:PORT"):
            resolve_connection(cluster="x", env={}, config_path=path)
    else:
        with pytest.raises(UsageError, match=r"^--bootstrap-server: (empty \()?no HOST:PORT given"):
            resolve_connection(bootstrap_server=servers, env={}, config_path=none)


@pytest.mark.parametrize("connect, hosts, chroot", [
    ("zk-1:2181,zk-2:2182/kafka", [("zk-1", 2181), ("zk-2", 2182)], "/kafka"),
    ("zk", [("zk", 2181)], None),  # ZooKeeper's default port
    ("[::1]:2181/a/b", [("::1", 2181)], "/a/b"),
    ("zk:2181/", [("zk", 2181)], None),  # "/" alone is no chroot
])
def test_zookeeper_hosts(connect, hosts, chroot):
    assert zookeeper_hosts(connect) == (hosts, chroot)


@pytest.mark.parametrize("connect, needle", [
    ("127.0.0.1:abc", "HOST\\[:PORT\\]"), ("zk:99999", "HOST\\[:PORT\\]"), ("zk:0", "HOST\\[:PORT\\]"),
    ("zk:2181/a//b", "chroot '/a//b'"), ("zk:2181/kafka/", "chroot '/kafka/'"), ("zk/../x", "chroot '/../x'"),
    (",", "no HOST"),
    # urlsplit (and kazoo) read these as hosts: kadmin then waited the whole --timeout
    ("bad zk string", "'bad zk string' is not a host name"), ("zk one:2181/kafka", "'zk one' is not a host name"),
    ("user@zk:2181", "'user@zk' is not a host name"), ("zk.ü", "'zk.ü' is not a host name"),
])
def test_a_zookeeper_connect_string_no_client_could_use_is_refused_before_connecting(tmp_path, connect, needle):
    """kazoo raised ValueError for some of these (shown as "a bug in kadmin"); others waited the
    whole --timeout."""
    none = tmp_path / "none.toml"
    with pytest.raises(UsageError, match=f"--zookeeper: .*{needle}") as info:
        resolve_connection(zookeeper=connect, env={}, config_path=none)
    assert info.value.exit_code == EXIT_USAGE
    with pytest.raises(UsageError, match=f"KADMIN_ZOOKEEPER: .*{needle}"):
        resolve_connection(env={"KADMIN_ZOOKEEPER": connect}, config_path=none)
    path = write_profiles(tmp_path, f'[clusters.x]\nzookeeper = "{connect}"\n')
    with pytest.raises(ConfigError, match=f"zookeeper in profile 'x': .*{needle}"):
        resolve_connection(cluster="x", env={}, config_path=path)


HOSTS = ["zk", "kafka-1.example.com", "127.0.0.1", "[::1]", "[fe80::1%eth0]", "::1", "", " ", "a b", "[::1", "h]"]
PORTS = ["", ":2181", ":9092", ":0", ":1", ":65535", ":65536", ":abc", ":", ":-1", ":+5", ": 5", ":٣", ":09092"]
CHROOTS = ["", "/", "/kafka", "/a/b", "/a//b", "/a/", "/./x", "/k/../x"]
entries = st.tuples(st.sampled_from(HOSTS), st.sampled_from(PORTS)).map("".join)
target_strings = st.tuples(st.lists(entries, min_size=1, max_size=3), st.sampled_from([",", ", ", ",,", " ,"]),
                           st.sampled_from(CHROOTS)).map(lambda t: t[1].join(t[0]) + t[2]) | st.text(max_size=30)


@given(target_strings)
@settings(deadline=None)  # the first example imports the client library: slow on a loaded machine
def test_a_zookeeper_string_kadmin_accepts_reads_the_same_in_kazoo(text):
    """The connect string goes to kazoo as kadmin passes it on: kazoo must read it, and read the
    same hosts and chroot."""
    from kazoo.hosts import collect_hosts

    try:
        settings = resolve_connection(zookeeper=text, env={}, config_path="/nonexistent/kadmin.toml")
    except UsageError:
        return
    assert collect_hosts(settings.zookeeper) == zookeeper_hosts(text)


@given(target_strings)
@settings(deadline=None)  # the first example imports the client library: slow on a loaded machine
def test_a_bootstrap_list_kadmin_accepts_reads_the_same_in_kafka_python(text):
    from kafka.cluster import collect_hosts

    try:
        settings = resolve_connection(bootstrap_server=text, env={}, config_path="/nonexistent/kadmin.toml")
    except UsageError:
        return
    read = [(host, port) for host, port, _ in collect_hosts(settings.bootstrap_servers, randomize=False)]
    assert read == bootstrap_addresses(text)


def test_no_target_explains_the_three_ways(tmp_path):
    with pytest.raises(UsageError) as info:
        resolve_connection(env={}, config_path=tmp_path / "none.toml")
    msg = str(info.value)
    assert "--bootstrap-server" in msg and "KADMIN_BOOTSTRAP_SERVER" in msg and "--cluster" in msg
    assert str(tmp_path / "none.toml") in msg
    assert info.value.exit_code == EXIT_USAGE


def test_default_cluster_applies_only_without_a_target(tmp_path):
    path = write_profiles(tmp_path, PROFILES)
    s = resolve_connection(env={}, config_path=path)
    assert (s.bootstrap_servers, s.profile, s.timeout) == ("dev:9092", "dev", 5.0)
    # An explicit bootstrap server never picks up the default profile's settings.
    s = resolve_connection(bootstrap_server="other:9092", env={}, config_path=path)
    assert (s.profile, s.timeout, dict(s.properties)) == (None, 30.0, {})


def test_named_profile_with_command_config_relative_to_the_file(tmp_path):
    path = write_profiles(tmp_path, PROFILES)
    (tmp_path / "prod.properties").write_text(f"sasl.mechanism=PLAIN\nsasl.jaas.config={PLAIN_JAAS}\nclient.id=from-file\n")
    s = resolve_connection(cluster="prod", env={}, config_path=path)
    assert s.bootstrap_servers == "prod-1:9093,prod-2:9093"
    assert s.timeout == 120.0
    assert s.properties["security.protocol"] == "SASL_SSL"  # inline property
    assert s.properties["client.id"] == "from-file"  # the file wins over inline properties
    # A flag keeps the profile's security settings but points elsewhere.
    s = resolve_connection(cluster="prod", bootstrap_server="tunnel:19093", env={}, config_path=path)
    assert s.bootstrap_servers == "tunnel:19093" and s.properties["sasl.mechanism"] == "PLAIN"


def test_command_config_flag_beats_env_beats_profile(tmp_path):
    path = write_profiles(tmp_path, PROFILES)
    (tmp_path / "prod.properties").write_text("client.id=profile-file\n")
    (tmp_path / "env.properties").write_text("client.id=env-file\n")
    (tmp_path / "flag.properties").write_text("client.id=flag-file\n")
    env = {"KADMIN_COMMAND_CONFIG": str(tmp_path / "env.properties")}
    assert resolve_connection(cluster="prod", env=env, config_path=path,
                              command_config=str(tmp_path / "flag.properties")).properties["client.id"] == "flag-file"
    assert resolve_connection(cluster="prod", env=env, config_path=path).properties["client.id"] == "env-file"
    assert resolve_connection(cluster="prod", env={}, config_path=path).properties["client.id"] == "profile-file"


def test_settings_name_where_the_target_and_the_properties_came_from(tmp_path):
    """Messages name what set a value (the flag, the variable or the profile), as a bad timeout
    does: 'check --bootstrap-server' for a target from a profile pointed at a flag not given."""
    path = write_profiles(tmp_path, PROFILES + '[clusters.zk]\nzookeeper = "zk:2181"\n')
    (tmp_path / "prod.properties").write_text("client.id=profile-file\n")
    (tmp_path / "env.properties").write_text("client.id=env-file\n")
    env_file = str(tmp_path / "env.properties")
    s = resolve_connection(bootstrap_server="b:9092", command_config=env_file, env={}, config_path=path)
    assert (s.target_where, s.properties_where) == ("--bootstrap-server", "--command-config")
    s = resolve_connection(env={"KADMIN_BOOTSTRAP_SERVER": "b:9092", "KADMIN_COMMAND_CONFIG": env_file},
                           config_path=path)
    assert (s.target_where, s.properties_where) == ("KADMIN_BOOTSTRAP_SERVER", f"KADMIN_COMMAND_CONFIG ({env_file})")
    s = resolve_connection(env={"KADMIN_ZOOKEEPER": "zk:2181"}, config_path=path)
    assert (s.target_where, s.properties_where) == ("KADMIN_ZOOKEEPER", "--command-config")  # none given: the flag
    s = resolve_connection(cluster="prod", env={}, config_path=path)
    assert s.target_where == "bootstrap_server of profile 'prod'"
    assert s.properties_from == ("the properties of profile 'prod'", "command_config of profile 'prod' (prod.properties)")
    assert s.properties_where == "command_config of profile 'prod' (prod.properties)"  # the file's keys win
    s = resolve_connection(cluster="zk", env={"KADMIN_COMMAND_CONFIG": env_file}, config_path=path)
    assert (s.target_where, s.properties_where) == ("zookeeper of profile 'zk'", f"KADMIN_COMMAND_CONFIG ({env_file})")
    assert s.with_bootstrap("b:9092").target_where == (
        "the brokers' addresses registered in ZooKeeper (zookeeper of profile 'zk')")


@pytest.mark.parametrize("where", ["environment", "profile properties", "profile command_config", "flag"])
def test_a_properties_error_names_the_variable_or_profile_that_gave_them(tmp_path, where):
    """KADMIN_COMMAND_CONFIG=ssl-nopem.props said 'ssl.truststore.type is not set, ...', naming
    neither the variable nor the file; a missing key password said 'set ssl.key.password in
    --command-config', a flag not given."""
    pem = tmp_path / "ca.pem"
    pem.write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    (tmp_path / "c.properties").write_text(f"security.protocol=SSL\nssl.truststore.location={pem}\n")
    path = write_profiles(tmp_path, f"""
[clusters.inline]
bootstrap_server = "b:9092"
properties = {{ "security.protocol" = "SSL", "ssl.truststore.location" = "{pem}" }}
[clusters.file]
bootstrap_server = "b:9092"
command_config = "c.properties"
""")
    kwargs, source = {
        "environment": ({"env": {"KADMIN_BOOTSTRAP_SERVER": "b:9092", "KADMIN_COMMAND_CONFIG": "c.properties"}},
                        "KADMIN_COMMAND_CONFIG (c.properties): "),
        "profile properties": ({"cluster": "inline", "env": {}}, "the properties of profile 'inline': "),
        "profile command_config": ({"cluster": "file", "env": {}}, "command_config of profile 'file' (c.properties): "),
        "flag": ({"bootstrap_server": "b:9092", "command_config": "c.properties", "env": {}}, ""),
    }[where]
    import os

    cwd = os.getcwd()
    os.chdir(tmp_path)  # the variable and the flag name the file relative to the working directory
    try:
        s = resolve_connection(config_path=path, **kwargs)
    finally:
        os.chdir(cwd)
    for convert in (to_confluent, to_kafka_python):
        with pytest.raises(ConfigError) as info:
            convert(replace(s, properties={**s.properties, "ssl.truststore.location": str(pem)}))
        assert str(info.value) == f"{source}ssl.truststore.type is not set, so Kafka takes ssl.truststore.location " \
            f"for a JKS store (its default), but {pem} is a PEM file"
    if shutil.which("openssl") is None:
        return
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-days", "1", "-subj", "/CN=kadmin-test",
                    "-passout", "pass:unsaid", "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem")],
                   check=True, capture_output=True)
    (tmp_path / "client.pem").write_text((tmp_path / "key.pem").read_text() + (tmp_path / "cert.pem").read_text())
    encrypted = {**s.properties, "ssl.truststore.type": "PEM", "ssl.truststore.location": str(tmp_path / "cert.pem"),
                 "ssl.keystore.type": "PEM", "ssl.keystore.location": str(tmp_path / "client.pem")}
    with pytest.raises(ConfigError) as info:
        tls_context(replace(s, properties=encrypted))
    assert str(info.value) == f"{source}the private key is encrypted and ssl.key.password is not set"
    assert info.value.hint == f"set ssl.key.password in {s.properties_where}, or use a key that is not encrypted"
    assert ("--command-config" in info.value.hint) == (where == "flag")


def test_config_file_location_from_env_and_xdg(tmp_path):
    xdg = tmp_path / "xdg"
    (xdg / "kadmin").mkdir(parents=True)
    (xdg / "kadmin" / "config.toml").write_text('[clusters.a]\nbootstrap_server = "xdg:9092"\n')
    other = write_profiles(tmp_path, '[clusters.a]\nbootstrap_server = "explicit:9092"\n')
    assert resolve_connection(cluster="a", env={"XDG_CONFIG_HOME": str(xdg)}).bootstrap_servers == "xdg:9092"
    env = {"XDG_CONFIG_HOME": str(xdg), "KADMIN_CONFIG": str(other)}
    assert resolve_connection(cluster="a", env=env).bootstrap_servers == "explicit:9092"
    home = tmp_path / "home"
    (home / ".config" / "kadmin").mkdir(parents=True)
    (home / ".config" / "kadmin" / "config.toml").write_text('[clusters.a]\nbootstrap_server = "home:9092"\n')
    assert resolve_connection(cluster="a", env={"HOME": str(home)}).bootstrap_servers == "home:9092"


def test_unknown_profile_names_the_known_ones(tmp_path):
    path = write_profiles(tmp_path, PROFILES)
    with pytest.raises(ConfigError) as info:
        resolve_connection(cluster="staging", env={}, config_path=path)
    assert "'staging'" in str(info.value) and "dev, legacy, prod" in info.value.hint
    assert info.value.exit_code == EXIT_USAGE


def test_invalid_profile_file_lists_every_problem_without_values(tmp_path):
    path = write_profiles(tmp_path, (
        'default_cluster = "a"\nsurprise = 1\n'
        f'[clusters.a]\nbootstrap_server = 9092\npassword = "{PASSWORD}"\ntimeout = "soon"\n'
    ))
    with pytest.raises(ConfigError) as info:
        resolve_connection(cluster="a", env={}, config_path=path)
    problems = info.value.problems
    assert any(p.startswith("(top level): unknown key: surprise") for p in problems)
    assert any(p.startswith("clusters.a: unknown key: password") for p in problems)
    assert any(p.startswith("clusters.a.bootstrap_server: must be of type string") for p in problems)
    assert any(p.startswith("clusters.a.timeout") for p in problems)
    assert PASSWORD not in " ".join(problems) + str(info.value)


def test_broken_toml_is_a_config_error(tmp_path):
    path = write_profiles(tmp_path, "[clusters.a\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        resolve_connection(cluster="a", env={}, config_path=path)


@pytest.mark.parametrize("text, seconds", [("30s", 30.0), ("500ms", 0.5), ("2m", 120.0), ("1h", 3600.0), (10, 10.0), (2.5, 2.5)])
def test_timeout_units(text, seconds):
    assert parse_timeout(text) == seconds


@pytest.mark.parametrize("text", ["soon", "0s", "-1", "", "5 minutes"])
def test_bad_timeout_is_a_usage_error(text):
    with pytest.raises(UsageError, match="--timeout"):
        parse_timeout(text)


@pytest.mark.parametrize(
    "text, bound",
    [
        ("10000h", "1h"),  # was "unexpected error: 'i' format requires ..." (a bug in kadmin), or a hang
        ("99999999999h", "1h"),  # was an unexpected KafkaException: socket.timeout.ms -1225977472
        ("61m", "60m"),
        ("3601s", "3600s"),
        ("3600001ms", "3600000ms"),
        ("2d", "1h"),
        ("1h" + "9" * 400 + "ms", "1h"),
        (3601, "3600s"),
        (float("inf"), "3600s"),  # TOML's `timeout = inf`
    ],
)
def test_a_timeout_over_an_hour_is_refused_naming_the_bound_in_the_users_units(text, bound):
    with pytest.raises(UsageError) as e:
        parse_timeout(text)
    assert e.value.message == (
        f"--timeout: at most {bound} (librdkafka, the Kafka client kadmin uses, refuses longer request timeouts), "
        f"got {text!r}"
    )
    assert e.value.exit_code == EXIT_USAGE


def test_a_timeout_is_from_1ms_to_1h():
    assert parse_timeout("1h") == parse_timeout("60m") == MAX_TIMEOUT == 3600.0
    assert parse_timeout("1ms") == 0.001
    with pytest.raises(UsageError, match=r"^--timeout: at least 1ms \(Kafka's request timeouts are whole milliseconds"):
        parse_timeout("0.5ms")
    with pytest.raises(UsageError, match="must be greater than zero"):
        parse_timeout("0ms")


@given(st.integers(min_value=0, max_value=10**20), st.sampled_from(["ms", "s", "m", "h", "d"]))
def test_every_timeout_accepted_fits_the_client_libraries(n, unit):
    try:
        seconds = parse_timeout(f"{n}{unit}")
    except UsageError as e:
        assert n == 0 or "at most" in e.message
        return
    # confluent-kafka's request_timeout (0..3600000 ms); kafka-python's INT32 timeout_ms, at least 1
    assert 1 <= int(seconds * 1000) <= 3_600_000


def test_a_timeout_too_long_is_refused_wherever_it_comes_from(tmp_path):
    path = write_profiles(tmp_path, '[clusters.a]\nbootstrap_server = "a:1"\ntimeout = "7200s"\n')
    with pytest.raises(UsageError, match=r"^KADMIN_TIMEOUT: at most 1h "):
        resolve_connection(bootstrap_server="b:1", env={"KADMIN_TIMEOUT": "2h"}, config_path=path.parent / "none")
    with pytest.raises(ConfigError) as info:
        resolve_connection(cluster="a", env={}, config_path=path)
    assert [p.split(" (")[0] for p in info.value.problems] == ["clusters.a.timeout: at most 3600s"]


def test_a_unitless_timeout_from_kafkas_tool_asks_for_the_unit():
    # kafka-reassign-partitions.sh --timeout 10000 meant 10 seconds (milliseconds), not hours.
    with pytest.raises(UsageError, match="10000ms"):
        parse_timeout("10000")
    with pytest.raises(UsageError, match="1.5 has no unit"):  # a decimal is no less ambiguous
        parse_timeout("1.5")


# --- mapping to the client libraries -------------------------------------------------------


def settings(**props) -> ConnectionSettings:
    return ConnectionSettings(bootstrap_servers="b1:9092,b2:9092", properties=props, timeout=12.0)


def test_plaintext_maps_to_both_libraries():
    s = settings(**{"client.id": "ops"})
    assert to_confluent(s) == {"bootstrap.servers": "b1:9092,b2:9092", "security.protocol": "plaintext", "client.id": "ops"}
    assert to_kafka_python(s) == {
        "bootstrap_servers": ["b1:9092", "b2:9092"], "security_protocol": "PLAINTEXT",
        "request_timeout_ms": 12000, "client_id": "ops",
    }


@pytest.mark.parametrize("jaas, mechanism, user", [(PLAIN_JAAS, "PLAIN", "alice"), (SCRAM_JAAS, "SCRAM-SHA-512", "bob")])
def test_sasl_ssl_with_pem_files(jaas, mechanism, user):
    s = settings(**{
        "security.protocol": "SASL_SSL", "sasl.mechanism": mechanism, "sasl.jaas.config": jaas,
        "ssl.truststore.type": "PEM", "ssl.truststore.location": "/etc/kafka/ca.pem",
        "ssl.keystore.type": "PEM", "ssl.keystore.location": "/etc/kafka/client.pem",
        "ssl.key.password": "kp", "ssl.endpoint.identification.algorithm": "",
    })
    assert to_confluent(s) == {
        "bootstrap.servers": "b1:9092,b2:9092", "security.protocol": "sasl_ssl",
        "ssl.ca.location": "/etc/kafka/ca.pem", "ssl.certificate.location": "/etc/kafka/client.pem",
        "ssl.key.location": "/etc/kafka/client.pem", "ssl.key.password": "kp",
        "ssl.endpoint.identification.algorithm": "none",
        "sasl.mechanism": mechanism, "sasl.username": user, "sasl.password": PASSWORD,
    }
    kw = to_kafka_python(s)
    assert kw == {
        "bootstrap_servers": ["b1:9092", "b2:9092"], "security_protocol": "SASL_SSL", "request_timeout_ms": 12000,
        "ssl_check_hostname": False, "ssl_cafile": "/etc/kafka/ca.pem", "ssl_certfile": "/etc/kafka/client.pem",
        "ssl_keyfile": "/etc/kafka/client.pem", "ssl_password": "kp",
        "sasl_mechanism": mechanism, "sasl_plain_username": user, "sasl_plain_password": PASSWORD,
    }


def test_sasl_plaintext_scram_256():
    s = settings(**{"security.protocol": "sasl_plaintext", "sasl.mechanism": "SCRAM-SHA-256", "sasl.jaas.config": SCRAM_JAAS})
    conf = to_confluent(s)
    assert (conf["security.protocol"], conf["sasl.mechanism"], conf["sasl.username"]) == ("sasl_plaintext", "SCRAM-SHA-256", "bob")
    assert "ssl.ca.location" not in conf


@pytest.mark.parametrize("store", ["ssl.truststore", "ssl.keystore"])
def test_a_pem_store_without_its_type_is_refused_saying_the_type_is_not_set_and_the_line_to_add(tmp_path, store):
    # Was: "ssl.truststore.type=JKS cannot be used ... convert it: keytool -exportcert ...", for a
    # PEM file and a type the user never wrote. Kafka's clients take a store without its type for
    # JKS, so Kafka's tools fail on this file too: kadmin says so, and what to add.
    pem = tmp_path / "store.pem"
    pem.write_text("Bag Attributes\n    friendlyName: ca\n-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    for convert in (to_confluent, to_kafka_python):
        with pytest.raises(ConfigError) as info:
            convert(settings(**{"security.protocol": "SSL", f"{store}.location": str(pem)}))
        assert info.value.message == (
            f"{store}.type is not set, so Kafka takes {store}.location for a JKS store (its default), "
            f"but {pem} is a PEM file"
        )
        assert info.value.hint == f"add {store}.type=PEM; Kafka's own tools need it too"
        assert info.value.exit_code == EXIT_USAGE
    with pytest.raises(ConfigError) as info:  # a type written that the file is not
        to_confluent(settings(**{"security.protocol": "SSL", f"{store}.type": "JKS", f"{store}.location": str(pem)}))
    assert info.value.message == f"{store}.type=JKS cannot be used ({store}.location): {pem} is a PEM file"
    assert info.value.hint == f"set {store}.type=PEM"
    binary = tmp_path / "store.jks"
    binary.write_bytes(b"\xfe\xed\xfe\xed\x00\x00\x00\x02")
    with pytest.raises(ConfigError) as info:  # a real JKS store: the conversion, as before
        to_confluent(settings(**{"security.protocol": "SSL", f"{store}.location": str(binary)}))
    assert info.value.message == f"{store}.type=JKS cannot be used ({store}.location): only PEM stores are supported"
    assert info.value.hint.startswith(f"{store}.type is not set: JKS is Kafka's default; convert it")
    conf = to_confluent(settings(**{"security.protocol": "SSL", f"{store}.type": "pem", f"{store}.location": str(pem)}))
    assert str(pem) in conf.values()


@pytest.mark.parametrize(
    "props, names",
    [
        ({"security.protocol": "SSL", "ssl.truststore.location": "/x.jks"}, "ssl.truststore.type=JKS"),
        ({"security.protocol": "SSL", "ssl.truststore.type": "PKCS12", "ssl.truststore.location": "/x.p12"}, "ssl.truststore.type=PKCS12"),
        ({"security.protocol": "SSL", "ssl.keystore.location": "/k.jks"}, "ssl.keystore.type=JKS"),
        ({"security.protocol": "SASL_SSL", "sasl.mechanism": "GSSAPI", "sasl.jaas.config": PLAIN_JAAS}, "sasl.mechanism=GSSAPI"),
        ({"security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER", "sasl.jaas.config": PLAIN_JAAS}, "sasl.mechanism=OAUTHBEARER"),
        ({"security.protocol": "SASL_SSL", "sasl.jaas.config": PLAIN_JAAS}, "sasl.mechanism is not set"),
        ({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN"}, "sasl.jaas.config is required"),
        ({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256", "sasl.jaas.config": PLAIN_JAAS}, "ScramLoginModule"),
        ({"security.protocol": "TLS"}, "security.protocol=TLS"),
        ({"sasl.login.callback.handler.class": "com.example.Handler"}, "sasl.login.callback.handler.class"),
    ],
)
def test_what_cannot_be_mapped_names_the_property(props, names):
    for convert in (to_confluent, to_kafka_python):
        with pytest.raises(ConfigError) as info:
            convert(settings(**props))
        assert names in str(info.value)
        assert PASSWORD not in str(info.value) + str(info.value.hint)


def test_jaas_parsing_quotes_escapes_and_errors():
    login = parse_jaas_config(
        'org.apache.kafka.common.security.plain.PlainLoginModule required\n username="a b" password="q\\"x;y" other=word ;'
    )
    assert login.module.endswith("PlainLoginModule") and login.flag == "required"
    assert login.option("username") == "a b" and login.option("password") == 'q"x;y'
    assert isinstance(login.options["password"], Secret) and "q\\\"x" not in repr(login)
    for bad in ["PlainLoginModule", 'M required username="u" password="p"', f"M maybe password=\"{PASSWORD}\";",
                f'M required password "{PASSWORD}";', 'M required a="1"; N required b="2";']:
        with pytest.raises(ConfigError) as info:
            parse_jaas_config(bad)
        assert PASSWORD not in str(info.value)


def test_secrets_never_in_reprs():
    s = settings(**{"sasl.jaas.config": PLAIN_JAAS, "ssl.key.password": PASSWORD, "ssl.keystore.key": PASSWORD, "client.id": "ok"})
    assert PASSWORD not in repr(s) and "ok" in repr(s)
    assert PASSWORD not in repr(Secret(PASSWORD)) and Secret(PASSWORD).reveal() == PASSWORD
    red = redact({"sasl.password": PASSWORD, "nested": {"ssl.key.pem": PASSWORD}, "bootstrap.servers": "b:1"})
    assert red == {"sasl.password": "******", "nested": {"ssl.key.pem": "******"}, "bootstrap.servers": "b:1"}
    assert PASSWORD not in str(redact(to_confluent(settings(**{
        "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config": PLAIN_JAAS}))))


# --- inline PEM certificates ----------------------------------------------------------------


@pytest.fixture(scope="module")
def pem_pair(tmp_path_factory):
    if shutil.which("openssl") is None:
        pytest.skip("openssl not installed")
    d = tmp_path_factory.mktemp("pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=kadmin-test",
         "-keyout", str(d / "key.pem"), "-out", str(d / "cert.pem")],
        check=True, capture_output=True,
    )
    return (d / "cert.pem").read_text(), (d / "key.pem").read_text()


def test_inline_pem_builds_an_ssl_context_and_leaves_no_file(pem_pair, tmp_path, monkeypatch):
    cert, key = pem_pair
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    s = settings(**{
        "security.protocol": "SSL", "ssl.truststore.type": "PEM", "ssl.truststore.certificates": cert,
        "ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": cert, "ssl.keystore.key": key,
    })
    conf = to_confluent(s)
    assert (conf["ssl.ca.pem"], conf["ssl.certificate.pem"], conf["ssl.key.pem"]) == (cert.strip(), cert.strip(), key.strip())
    kw = to_kafka_python(s)
    ctx = kw["ssl_context"]
    assert isinstance(ctx, ssl.SSLContext) and ctx.check_hostname
    assert any(c.get("subject") == ((("commonName", "kadmin-test"),),) for c in ctx.get_ca_certs())
    assert not any(k in ("ssl_cafile", "ssl_certfile", "ssl_keyfile") for k in kw)
    assert list(tmp_path.iterdir()) == []  # the key file lived only while the context read it


def test_inline_key_that_does_not_match_is_a_config_error(pem_pair):
    cert, _ = pem_pair
    s = settings(**{"security.protocol": "SSL", "ssl.keystore.type": "PEM",
                    "ssl.keystore.certificate.chain": cert, "ssl.keystore.key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"})
    with pytest.raises(ConfigError, match="cannot load the PEM"):
        to_kafka_python(s)


# --- the libraries accept what the mapping produces -----------------------------------------


def test_both_libraries_accept_the_mapped_settings(pem_pair, tmp_path):
    """librdkafka validates names, values and the PEM files when a client is built (no broker
    needed); kafka-python's KafkaAdminClient takes only the keyword arguments it knows."""
    from confluent_kafka.admin import AdminClient
    from kafka.admin import KafkaAdminClient

    cert, key = pem_pair
    (tmp_path / "ca.pem").write_text(cert)
    (tmp_path / "client.pem").write_text(key + cert)
    cases = [
        {},
        {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256", "sasl.jaas.config": SCRAM_JAAS},
        {"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN", "sasl.jaas.config": PLAIN_JAAS,
         "ssl.truststore.type": "PEM", "ssl.truststore.location": str(tmp_path / "ca.pem"),
         "ssl.keystore.type": "PEM", "ssl.keystore.location": str(tmp_path / "client.pem"),
         "ssl.endpoint.identification.algorithm": ""},
        {"security.protocol": "SSL", "ssl.truststore.type": "PEM", "ssl.truststore.certificates": cert,
         "ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": cert, "ssl.keystore.key": key},
    ]
    for props in cases:
        s = ConnectionSettings(bootstrap_servers="127.0.0.1:1", properties=props)
        AdminClient(to_confluent(s))  # raises KafkaException on an unknown key, bad value or unreadable PEM
        assert set(to_kafka_python(s)) <= set(KafkaAdminClient.DEFAULT_CONFIG)
