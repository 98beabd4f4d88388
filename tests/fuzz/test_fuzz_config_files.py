"""Fuzzed configuration: Kafka client properties files (--command-config), kadmin's TOML profile
files and fleet inventories. Loading either succeeds or is a ConfigError/InputError (exit 2) with
one clear message; nothing else escapes, the CLI never shows a traceback, the cluster is unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kadmin.errors import InputError
from tests.fuzz.support import EXAMPLES, FUZZ, check_outcome, check_unchanged, invoke, scratch_dir

# --- properties ----------------------------------------------------------------------------

PROPERTY_KEYS = [
    "security.protocol", "sasl.mechanism", "sasl.jaas.config", "ssl.truststore.type", "ssl.truststore.location",
    "ssl.truststore.certificates", "ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.certificate.chain",
    "ssl.keystore.key", "ssl.key.password", "ssl.endpoint.identification.algorithm", "ssl.truststore.password",
    "client.id", "zookeeper.auth.digest", "zookeeper.set.acl", "zookeeper.ssl.client.enable", "ssl.unknown",
    "sasl.login.class", "request.timeout.ms", "", "key with spaces", "ключ", "a\\=b", "#notacomment",
]
PROPERTY_VALUES = [
    "PLAINTEXT", "SSL", "SASL_SSL", "SASL_PLAINTEXT", "sasl_plaintext", "GSSAPI", "PLAIN", "SCRAM-SHA-512",
    "PEM", "JKS", "PKCS12", "", "true", "false", "TRUE", "yes", "user:pw", ":pw", "user:", "https", "none",
    "/nonexistent/ca.pem", "-----BEGIN CERTIFICATE-----\\nAAAA\\n-----END CERTIFICATE-----",
    "-----BEGIN PRIVATE KEY-----\\nAAAA\\n-----END PRIVATE KEY-----",
    'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";',
    'org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="p";',
    'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p',
    "x required;", "x bogus a=b;", 'x required a="b" c;', ";;;", '"', "\\u00e9", "\\uZZZZ", "\\", "\\\\",
]
separators = st.sampled_from(["=", ":", " ", " = ", "\t", "=\\\n  ", ""])
property_lines = (
    st.tuples(st.sampled_from(PROPERTY_KEYS) | st.text(max_size=12), separators,
              st.sampled_from(PROPERTY_VALUES) | st.text(max_size=40)).map("".join)
    | st.sampled_from(["# comment", "! comment", "", "   ", "\\", "key\\", "=value only"])
)


@st.composite
def properties_files(draw):
    text = draw(st.sampled_from(["\n", "\r\n", "\r"])).join(draw(st.lists(property_lines, max_size=10)))
    raw = text.encode("utf-8", "surrogatepass")
    damage = draw(st.sampled_from(["none", "none", "latin1", "non_utf8", "nul", "bom"]))
    if damage == "latin1":
        raw = text.encode("latin-1", "replace")
    elif damage == "non_utf8":
        raw += b"\xff\xfe\xc3\x28"
    elif damage == "nul":
        raw = raw.replace(b"=", b"\x00=", 1)
    elif damage == "bom":
        raw = b"\xef\xbb\xbf" + raw
    return raw


def write(raw: bytes, name: str) -> str:
    p = scratch_dir() / name
    p.write_bytes(raw)
    return str(p)


@settings(FUZZ, max_examples=FUZZ.max_examples * 4)
@given(raw=properties_files())
def test_properties_map_to_both_clients_or_are_a_config_error(raw):
    """The whole mapping (parse, check, librdkafka config, kafka-python kwargs, ZooKeeper auth)."""
    from kadmin.backends.zk_auth import zk_security
    from kadmin.config import ConnectionSettings, read_properties_file, security_config, to_confluent, to_kafka_python

    EXAMPLES["properties files"] += 1
    try:
        props = read_properties_file(Path(write(raw, "client.properties")))
        security_config(props)
        zk_security(props)
        settings_ = ConnectionSettings(bootstrap_servers="127.0.0.1:1", properties=props)
        to_confluent(settings_)
        to_kafka_python(settings_)
    except InputError as e:  # ConfigError is one; its one-line rendering is checked on the CLI
        assert e.exit_code == 2 and str(e)


@FUZZ
@given(raw=properties_files())
def test_command_config_on_the_cli(fuzz_sandbox, raw):
    EXAMPLES["properties files"] += 1
    fuzz_sandbox.clear_requests()
    result = invoke(["log-dirs", "describe", "-b", fuzz_sandbox.bootstrap, "--command-config",
                     write(raw, "client.properties"), "--timeout", "1s"])
    # 0: plaintext settings; 2: settings refused; 1: accepted settings the cluster does not speak.
    check_outcome(result, codes=(0, 1, 2), what=repr(raw[:300]))
    check_unchanged(fuzz_sandbox, repr(raw[:300]))


# --- TOML: profiles and inventories --------------------------------------------------------

TOML_KEYS = ["name", "bootstrap_server", "zookeeper", "profile", "command_config", "timeout", "config",
             "default_cluster", "clusters", "properties", "x", '"sasl.jaas.config"', '"security.protocol"',
             "ünï", '""', "a.b"]
TOML_VALUES = ['"prod"', '"dev"', '"127.0.0.1:1"', '""', "12", "-1", "1e400", "nan", "inf", "true",
               "1979-05-27T07:32:00Z", '[1, "a"]', "{ a = 1 }", '"unterminated', "0x7fffffffffffffffff",
               "99999999999999999999999", '"\\u0000"', "[[]]", "", "= =", '"30s"', '"0s"', '"-5s"', '"1h"',
               "0", "0.0", '"/abs/client.properties"', '"../rel.properties"', '"SASL_SSL"', "'x required;'",
               '"a\\qb"', '"""multi\nline"""']
TOML_HEADERS = ["[clusters.prod]", "[[clusters]]", "[clusters.prod.properties]", "[clusters]", "[[clusters.prod]]",
                '[clusters.""]', "[a", "[]", "", "[clusters.dev]", "[[clusters]]"]
toml_lines = (st.sampled_from(TOML_HEADERS)
              | st.tuples(st.sampled_from(TOML_KEYS), st.sampled_from(TOML_VALUES) | st.text(max_size=10).map(json.dumps))
              .map(lambda kv: f"{kv[0]} = {kv[1]}"))


@st.composite
def toml_files(draw, sandbox_bootstrap: str = "127.0.0.1:1"):
    lines = draw(st.lists(toml_lines, max_size=12))
    if draw(st.booleans()):  # start from something close to valid
        lines = ["[[clusters]]", 'name = "prod"', f'bootstrap_server = "{sandbox_bootstrap}"',
                 "[clusters.prod]", f'bootstrap_server = "{sandbox_bootstrap}"'][:draw(st.integers(1, 5))] + lines
    raw = "\n".join(lines).encode("utf-8", "surrogatepass")
    damage = draw(st.sampled_from(["none", "none", "non_utf8", "nul", "bom", "truncate"]))
    if damage == "non_utf8":
        raw = raw + b'\nname = "\xff"'
    elif damage == "nul":
        raw = b"\x00" + raw
    elif damage == "bom":
        raw = b"\xef\xbb\xbf" + raw
    elif damage == "truncate" and raw:
        raw = raw[:draw(st.integers(0, len(raw) - 1))]
    return raw


@settings(FUZZ, max_examples=FUZZ.max_examples * 4)
@given(raw=toml_files())
def test_inventories_load_or_are_an_input_error(raw):
    from kadmin.fleet.inventory import load_inventory

    EXAMPLES["inventories"] += 1
    try:
        clusters = load_inventory(write(raw, "fleet.toml"))
    except InputError as e:
        assert e.exit_code == 2 and str(e).startswith("--fleet ")
        return
    assert clusters and all(isinstance(c, dict) and c["name"] for c in clusters)


@FUZZ
@given(data=st.data())
def test_profiles_on_the_cli(fuzz_sandbox, data):
    raw = data.draw(toml_files(fuzz_sandbox.bootstrap))
    name = data.draw(st.sampled_from(["prod", "dev", "", "nope"]))
    EXAMPLES["profile files"] += 1
    fuzz_sandbox.clear_requests()
    args = ["reassign", "list", "--timeout", "1s"] + (["--cluster", name] if name else [])
    result = invoke(args, env={"KADMIN_CONFIG": write(raw, "config.toml")})
    check_outcome(result, codes=(0, 1, 2), what=repr(raw[:300]))
    check_unchanged(fuzz_sandbox, repr(raw[:300]))
