"""Connection settings: flags, ``KADMIN_*`` environment, TOML profiles, and Kafka's Java client
properties (``--command-config``) mapped to both client libraries.

Precedence, field by field: flags > environment > profile > defaults. The target (bootstrap
servers or ZooKeeper) is chosen as a pair: the highest level that names either wins, and a level
naming both is a usage error. A profile is used when named (``--cluster`` / ``KADMIN_CLUSTER``),
or through ``default_cluster`` only when neither flags nor environment name a target, so a
default profile's credentials never leak onto an explicit ``--bootstrap-server``.

Everything here is pure except reading the profile and properties files, and building an
``ssl.SSLContext`` for kafka-python when certificates are given inline (see
``to_kafka_python``). Secrets never appear in reprs or error messages.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from kadmin.errors import ConfigError, UsageError

DEFAULT_TIMEOUT = 30.0
ENV_BOOTSTRAP = "KADMIN_BOOTSTRAP_SERVER"
ENV_ZOOKEEPER = "KADMIN_ZOOKEEPER"
ENV_COMMAND_CONFIG = "KADMIN_COMMAND_CONFIG"
ENV_CLUSTER = "KADMIN_CLUSTER"
ENV_TIMEOUT = "KADMIN_TIMEOUT"
ENV_CONFIG = "KADMIN_CONFIG"


# --- secrets -------------------------------------------------------------------------------

MASK = "******"
_SENSITIVE = re.compile(r"password|secret|jaas|token|credential|(^|\.)key(\.pem)?$|keystore\.key", re.I)


class Secret:
    """A value that must not be shown: its repr and str are masked; ``reveal()`` gives it."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return f"Secret({MASK})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


def is_sensitive(key: str) -> bool:
    """True for property names whose values are secrets (passwords, JAAS config, private keys)."""
    return bool(_SENSITIVE.search(key))


def redact(values: Mapping[str, Any]) -> dict[str, Any]:
    """A copy with every sensitive value masked (nested dicts too), safe to print or log."""
    out: dict[str, Any] = {}
    for k, v in values.items():
        if isinstance(v, Mapping):
            out[k] = redact(v)
        elif v is not None and (is_sensitive(str(k)) or isinstance(v, Secret)):
            out[k] = MASK
        else:
            out[k] = v
    return out


# --- settings ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConnectionSettings:
    """Where the cluster is and how to talk to it. Exactly one of bootstrap_servers/zookeeper."""

    bootstrap_servers: str | None = None
    zookeeper: str | None = None  # "host:port[,host:port...][/chroot]"
    properties: Mapping[str, str] = field(default_factory=dict, repr=False)  # Kafka client properties
    timeout: float = DEFAULT_TIMEOUT  # seconds
    profile: str | None = None
    source: str = "flags"  # where the target came from, for messages: "flags", "environment", "profile NAME"

    def __repr__(self) -> str:
        return (
            f"ConnectionSettings(bootstrap_servers={self.bootstrap_servers!r}, zookeeper={self.zookeeper!r}, "
            f"properties={redact(self.properties)!r}, timeout={self.timeout!r}, profile={self.profile!r}, "
            f"source={self.source!r})"
        )

    def with_bootstrap(self, bootstrap_servers: str) -> "ConnectionSettings":
        """The same security settings pointed at brokers (used by the ZooKeeper backend to reach
        the brokers it finds under /brokers/ids)."""
        return replace(self, bootstrap_servers=bootstrap_servers, zookeeper=None)

    @property
    def security_protocol(self) -> str:
        return self.properties.get("security.protocol", "PLAINTEXT").strip().upper()


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$")
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}


def parse_timeout(value: str | float | int, where: str = "--timeout") -> float:
    """Seconds from "30s", "500ms", "2m", "1h" or a bare number of seconds. Must be > 0."""
    if isinstance(value, bool):
        raise UsageError(f"{where}: expected a duration such as 30s, got {value!r}")
    if isinstance(value, (int, float)):
        seconds = float(value)
    else:
        m = _DURATION.match(value)
        if not m:
            raise UsageError(f"{where}: expected a duration such as 30s, 500ms or 2m, got {value!r}")
        seconds = float(m.group(1)) * _UNIT[m.group(2)]
    if seconds <= 0:
        raise UsageError(f"{where}: must be greater than zero, got {value!r}")
    return seconds


def default_config_path(env: Mapping[str, str] = os.environ) -> Path:
    """$KADMIN_CONFIG, else $XDG_CONFIG_HOME/kadmin/config.toml, else ~/.config/kadmin/config.toml."""
    if env.get(ENV_CONFIG):
        return Path(env[ENV_CONFIG]).expanduser()
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base).expanduser() / "kadmin" / "config.toml"


NO_TARGET_HELP = (
    "no cluster given: use --bootstrap-server HOST:PORT (or --zookeeper HOST:PORT[/chroot]), "
    f"set {ENV_BOOTSTRAP} (or {ENV_ZOOKEEPER}), or name a profile with --cluster NAME "
    "(profiles live in {path})"
)


def resolve_connection(
    bootstrap_server: str | None = None,
    zookeeper: str | None = None,
    command_config: str | os.PathLike | None = None,
    cluster: str | None = None,
    timeout: str | float | None = None,
    env: Mapping[str, str] = os.environ,
    config_path: str | os.PathLike | None = None,
) -> ConnectionSettings:
    """Merge flags, environment and profile into one ``ConnectionSettings`` (see module doc).

    Raises UsageError for conflicting or missing targets and a bad timeout, ConfigError for an
    unreadable or invalid profile file, an unknown profile or a bad properties file.
    """
    flags_target = _target(bootstrap_server, zookeeper, "--bootstrap-server and --zookeeper")
    env_target = _target(env.get(ENV_BOOTSTRAP), env.get(ENV_ZOOKEEPER), f"{ENV_BOOTSTRAP} and {ENV_ZOOKEEPER}")
    path = Path(config_path).expanduser() if config_path else default_config_path(env)

    name = cluster or env.get(ENV_CLUSTER) or None
    profile: Mapping[str, Any] | None = None
    if name:
        profiles = load_profiles(path, required=True)
        profile = profiles["clusters"].get(name)
        if profile is None:
            known = sorted(profiles["clusters"])
            raise ConfigError(
                f"cluster profile {name!r} not found in {path}",
                hint=f"known profiles: {', '.join(known)}" if known else "the file defines no [clusters.NAME] table",
            )
    elif flags_target is None and env_target is None:
        profiles = load_profiles(path)
        name = profiles.get("default_cluster")
        if name:
            profile = profiles["clusters"].get(name)
            if profile is None:
                raise ConfigError(f"default_cluster {name!r} in {path} names no [clusters.{name}] table")

    profile_target = None
    if profile is not None:
        profile_target = _target(
            profile.get("bootstrap_server"), profile.get("zookeeper"),
            f"bootstrap_server and zookeeper in profile {name!r}",
        )

    for target, source in ((flags_target, "flags"), (env_target, "environment"), (profile_target, f"profile {name}")):
        if target is not None:
            break
    else:
        raise UsageError(NO_TARGET_HELP.format(path=path))

    properties: dict[str, str] = {}
    if profile is not None:
        properties.update({k: _property_text(v) for k, v in (profile.get("properties") or {}).items()})
    props_file: Path | None = None
    if command_config:
        props_file = Path(command_config).expanduser()
    elif env.get(ENV_COMMAND_CONFIG):
        props_file = Path(env[ENV_COMMAND_CONFIG]).expanduser()
    elif profile is not None and profile.get("command_config"):
        props_file = (path.parent / Path(profile["command_config"]).expanduser())
    if props_file is not None:
        properties.update(read_properties_file(props_file))

    if timeout is not None:
        seconds = parse_timeout(timeout, "--timeout")
    elif env.get(ENV_TIMEOUT):
        seconds = parse_timeout(env[ENV_TIMEOUT], ENV_TIMEOUT)
    elif profile is not None and profile.get("timeout") is not None:
        seconds = parse_timeout(profile["timeout"], f"timeout in profile {name!r}")
    else:
        seconds = DEFAULT_TIMEOUT

    kind, where = target
    return ConnectionSettings(
        bootstrap_servers=where if kind == "bootstrap" else None,
        zookeeper=where if kind == "zookeeper" else None,
        properties=properties,
        timeout=seconds,
        profile=name if profile is not None else None,
        source=source,
    )


def _target(bootstrap: str | None, zookeeper: str | None, both: str) -> tuple[str, str] | None:
    bootstrap = (bootstrap or "").strip() or None
    zookeeper = (zookeeper or "").strip() or None
    if bootstrap and zookeeper:
        raise UsageError(f"{both} are mutually exclusive: give one (nothing was done)")
    if bootstrap:
        return ("bootstrap", bootstrap)
    if zookeeper:
        return ("zookeeper", zookeeper)
    return None


def _property_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def load_profiles(path: Path, required: bool = False) -> dict[str, Any]:
    """The TOML profiles file, validated against schemas/profiles.json. A missing file is empty
    unless ``required``. Returns ``{"default_cluster": ..., "clusters": {...}}``."""
    if not path.exists():
        if required:
            raise ConfigError(f"profile file {path} does not exist",
                              hint="create it with [clusters.NAME] tables, or set KADMIN_CONFIG")
        return {"clusters": {}}
    try:
        import tomllib  # Python 3.11+
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except OSError as e:
        raise ConfigError(f"cannot read profile file {path}: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"profile file {path} is not valid TOML: {e}") from None
    problems = validate_profiles(data)
    if problems:
        raise ConfigError(f"profile file {path} is invalid", problems)
    data.setdefault("clusters", {})
    return data


def validate_profiles(data: Any) -> list[str]:
    """Every schema violation of a parsed profiles file, each naming where it is."""
    import jsonschema

    from kadmin.schemas import load

    validator = jsonschema.Draft202012Validator(load("profiles"))
    problems = []
    for err in sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path)):
        where = ".".join(str(p) for p in err.absolute_path) or "(top level)"
        # Never echo a value: it may be a password. jsonschema's messages start with the value.
        problems.append(f"{where}: {_schema_message(err)}")
    return problems


def _schema_message(err: Any) -> str:
    if err.validator == "additionalProperties":
        return "unknown key(s): " + ", ".join(sorted(set(err.instance) - set(err.schema.get("properties", {}))))
    if err.validator == "type":
        return f"must be of type {err.validator_value}"
    if err.validator == "required":
        return err.message
    if err.validator in ("minLength", "pattern"):
        return "must be a non-empty text" if err.validator == "minLength" else "has an invalid form"
    described = err.schema.get("description") if isinstance(err.schema, dict) else None
    return f"invalid value; expected {described}" if described else f"fails the {err.validator} rule"


# --- Java properties ------------------------------------------------------------------------

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def read_properties_file(path: Path) -> dict[str, str]:
    """Read a Kafka client properties file (``--command-config``)."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise ConfigError(f"cannot read properties file {path}: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:  # Java reads .properties as ISO-8859-1
        text = raw.decode("latin-1")
    try:
        return parse_properties(text)
    except ValueError as e:
        raise ConfigError(f"properties file {path}: {e}") from None


def parse_properties(text: str) -> dict[str, str]:
    """Parse Java ``.properties`` text as java.util.Properties.load does: ``#``/``!`` comments,
    ``key=value``, ``key: value`` and ``key value``, backslash line continuations, escapes
    (``\\t \\n \\r \\f \\uXXXX``, ``\\x`` = x). Later keys win."""
    out: dict[str, str] = {}
    for line in _logical_lines(text):
        key, value = _split_entry(line)
        out[key] = value
    return out


def _logical_lines(text: str):
    natural = re.split(r"\r\n|\r|\n", text)
    i = 0
    while i < len(natural):
        line = natural[i].lstrip(" \t\f")
        i += 1
        if not line or line[0] in "#!":
            continue
        while _continues(line) and i < len(natural):
            line = line[:-1] + natural[i].lstrip(" \t\f")
            i += 1
        if _continues(line):  # a trailing backslash on the last line is dropped, as Java does
            line = line[:-1]
        yield line


def _continues(line: str) -> bool:
    n = len(line) - len(line.rstrip("\\"))
    return n % 2 == 1


def _split_entry(line: str) -> tuple[str, str]:
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == "\\":
            i += 2
            continue
        if c in "=: \t\f":
            break
        i += 1
    key_raw = line[:i]
    while i < n and line[i] in " \t\f":
        i += 1
    if i < n and line[i] in "=:":
        i += 1
        while i < n and line[i] in " \t\f":
            i += 1
    return _unescape(key_raw), _unescape(line[i:])


def _unescape(s: str) -> str:
    if "\\" not in s:
        return s
    out, i, n = [], 0, len(s)
    while i < n:
        c = s[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = s[i + 1]
        if e == "u":
            digits = s[i + 2:i + 6]
            if len(digits) != 4 or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise ValueError(f"malformed \\uxxxx escape near {s[max(0, i - 10):i + 6]!r}")
            out.append(chr(int(digits, 16)))
            i += 6
        else:
            out.append(_ESCAPES.get(e, e))
            i += 2
    return "".join(out)


# --- sasl.jaas.config -----------------------------------------------------------------------

PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
_MODULE_FOR = {"PLAIN": PLAIN_MODULE, "SCRAM-SHA-256": SCRAM_MODULE, "SCRAM-SHA-512": SCRAM_MODULE}
_JAAS_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|([^\s=;"]+)|(=)|(;))', re.S)


@dataclass(frozen=True)
class JaasLogin:
    """One login module entry of sasl.jaas.config; option values that are secrets are wrapped."""

    module: str
    flag: str
    options: Mapping[str, str | Secret]

    def option(self, name: str) -> str | None:
        v = self.options.get(name)
        return v.reveal() if isinstance(v, Secret) else v


def parse_jaas_config(text: str) -> JaasLogin:
    """Parse ``<LoginModule> <flag> key="value" ...;`` (Kafka's JaasConfig). Errors never quote
    the text, which holds a password."""
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _JAAS_TOKEN.match(text, pos)
        if not m or m.end() == pos:
            if text[pos:].strip() == "":
                break
            raise ConfigError("sasl.jaas.config: cannot parse it (expected: LoginModule required key=\"value\" ...;)")
        pos = m.end()
        if m.group(1) is not None:
            tokens.append(("str", re.sub(r"\\(.)", r"\1", m.group(1))))
        elif m.group(2) is not None:
            tokens.append(("word", m.group(2)))
        elif m.group(3):
            tokens.append(("=", "="))
        else:
            tokens.append((";", ";"))
    if len(tokens) < 3 or tokens[0][0] != "word" or tokens[1][0] != "word" or tokens[-1][0] != ";":
        raise ConfigError("sasl.jaas.config: expected 'LoginModule required key=\"value\" ...;'")
    module, flag = tokens[0][1], tokens[1][1].lower()
    if flag not in ("required", "requisite", "sufficient", "optional"):
        raise ConfigError(f"sasl.jaas.config: login module flag must be required, requisite, sufficient or optional, got {flag!r}")
    body = tokens[2:-1]
    if any(kind == ";" for kind, _ in body):
        raise ConfigError("sasl.jaas.config: only one login module is supported")
    options: dict[str, str | Secret] = {}
    if len(body) % 3:
        raise ConfigError("sasl.jaas.config: options must be key=value pairs")
    for j in range(0, len(body), 3):
        (k_kind, key), (eq, _), (v_kind, value) = body[j:j + 3]
        if k_kind != "word" or eq != "=" or v_kind not in ("str", "word"):
            raise ConfigError("sasl.jaas.config: options must be key=value pairs")
        options[key] = Secret(value) if is_sensitive(key) else value
    return JaasLogin(module, flag, options)


# --- mapping to the client libraries --------------------------------------------------------

SUPPORTED_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SUPPORTED_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")

# Properties that change nothing for an admin client or that we deliberately leave to the
# libraries' defaults. Any other ssl.*/sasl.* key is refused: silently dropping a security
# setting could connect differently from what the operator asked for.
_IGNORED_SECURITY_KEYS = {
    "ssl.truststore.password", "ssl.keystore.password", "ssl.protocol", "ssl.enabled.protocols",
    "ssl.provider", "ssl.keymanager.algorithm", "ssl.trustmanager.algorithm", "ssl.secure.random.implementation",
    "ssl.engine.factory.class", "ssl.cipher.suites", "sasl.login.refresh.window.factor",
    "sasl.login.refresh.window.jitter", "sasl.login.refresh.min.period.seconds", "sasl.login.refresh.buffer.seconds",
    "sasl.kerberos.service.name",
}
_MAPPED_SECURITY_KEYS = {
    "security.protocol", "sasl.mechanism", "sasl.jaas.config",
    "ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.certificates",
    "ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.certificate.chain", "ssl.keystore.key",
    "ssl.key.password", "ssl.endpoint.identification.algorithm",
}


@dataclass(frozen=True)
class SecurityConfig:
    """What the properties ask for, checked and library-neutral (the one place the rules live)."""

    protocol: str = "PLAINTEXT"
    mechanism: str | None = None
    username: str | None = None
    password: Secret | None = None
    ca_file: str | None = None
    ca_pem: Secret | None = None  # inline certificates (ssl.truststore.certificates)
    cert_file: str | None = None  # PEM keystore file: private key and certificate chain
    cert_pem: Secret | None = None  # ssl.keystore.certificate.chain
    key_pem: Secret | None = None  # ssl.keystore.key
    key_password: Secret | None = None
    check_hostname: bool = True
    client_id: str | None = None

    @property
    def uses_ssl(self) -> bool:
        return self.protocol in ("SSL", "SASL_SSL")

    @property
    def uses_sasl(self) -> bool:
        return self.protocol.startswith("SASL_")


def security_config(properties: Mapping[str, str]) -> SecurityConfig:
    """Check Kafka client properties and return what they ask for; ConfigError naming the
    property for anything that cannot be mapped to both libraries."""
    p = {k: v.strip() if k != "sasl.jaas.config" else v for k, v in properties.items()}
    for key in sorted(p):
        if key.startswith(("ssl.", "sasl.")) and key not in _MAPPED_SECURITY_KEYS | _IGNORED_SECURITY_KEYS:
            raise ConfigError(f"property {key} cannot be mapped to kadmin's Kafka clients",
                              hint="remove it, or use the equivalent PEM/SASL settings kadmin supports")
    protocol = p.get("security.protocol", "PLAINTEXT").upper()
    if protocol not in SUPPORTED_PROTOCOLS:
        raise ConfigError(f"security.protocol={protocol} is not supported",
                          hint=f"use one of {', '.join(SUPPORTED_PROTOCOLS)}")
    fields: dict[str, Any] = {"protocol": protocol, "client_id": p.get("client.id") or None}

    if protocol in ("SSL", "SASL_SSL"):
        fields.update(_ssl_fields(p))
    if protocol.startswith("SASL_"):
        fields.update(_sasl_fields(p))
    return SecurityConfig(**fields)


def _ssl_fields(p: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    ts_type = p.get("ssl.truststore.type", "JKS").upper()
    if p.get("ssl.truststore.certificates"):
        if ts_type != "PEM":
            raise ConfigError("ssl.truststore.certificates needs ssl.truststore.type=PEM")
        out["ca_pem"] = Secret(p["ssl.truststore.certificates"])
    elif p.get("ssl.truststore.location"):
        if ts_type != "PEM":
            raise ConfigError(
                f"ssl.truststore.type={ts_type} cannot be used (ssl.truststore.location): only PEM stores are supported",
                hint="convert it: keytool -exportcert -rfc -keystore STORE -alias ALIAS > ca.pem, "
                     "then set ssl.truststore.type=PEM and ssl.truststore.location=ca.pem")
        out["ca_file"] = p["ssl.truststore.location"]
    ks_type = p.get("ssl.keystore.type", "JKS").upper()
    if p.get("ssl.keystore.certificate.chain") or p.get("ssl.keystore.key"):
        if not (p.get("ssl.keystore.certificate.chain") and p.get("ssl.keystore.key")):
            missing = "ssl.keystore.key" if p.get("ssl.keystore.certificate.chain") else "ssl.keystore.certificate.chain"
            raise ConfigError(f"{missing} is required with inline PEM keystore settings")
        if ks_type != "PEM":
            raise ConfigError("ssl.keystore.certificate.chain and ssl.keystore.key need ssl.keystore.type=PEM")
        out["cert_pem"] = Secret(p["ssl.keystore.certificate.chain"])
        out["key_pem"] = Secret(p["ssl.keystore.key"])
    elif p.get("ssl.keystore.location"):
        if ks_type != "PEM":
            raise ConfigError(
                f"ssl.keystore.type={ks_type} cannot be used (ssl.keystore.location): only PEM stores are supported",
                hint="convert it to one PEM file holding the private key and the certificate chain "
                     "(openssl pkcs12 -in store.p12 -out client.pem), then set ssl.keystore.type=PEM")
        out["cert_file"] = p["ssl.keystore.location"]
    if p.get("ssl.key.password"):
        out["key_password"] = Secret(p["ssl.key.password"])
    algorithm = p.get("ssl.endpoint.identification.algorithm", "https").lower()
    if algorithm not in ("https", ""):
        raise ConfigError(f"ssl.endpoint.identification.algorithm={algorithm} is not supported (use https or an empty value)")
    out["check_hostname"] = algorithm == "https"
    return out


def _sasl_fields(p: Mapping[str, str]) -> dict[str, Any]:
    mechanism = p.get("sasl.mechanism", "").upper()
    if not mechanism:
        raise ConfigError("sasl.mechanism is not set (Kafka's default, GSSAPI, is not supported)",
                          hint="set sasl.mechanism=PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
    if mechanism not in SUPPORTED_MECHANISMS:
        raise ConfigError(f"sasl.mechanism={mechanism} is not supported",
                          hint=f"use one of {', '.join(SUPPORTED_MECHANISMS)}")
    if not p.get("sasl.jaas.config"):
        raise ConfigError(f"sasl.jaas.config is required for sasl.mechanism={mechanism}")
    login = parse_jaas_config(p["sasl.jaas.config"])
    expected = _MODULE_FOR[mechanism]
    if login.module != expected:
        raise ConfigError(f"sasl.jaas.config: sasl.mechanism={mechanism} needs {expected}, not {login.module}")
    username, password = login.option("username"), login.option("password")
    if not username or password is None:
        raise ConfigError("sasl.jaas.config: username and password options are required")
    return {"mechanism": mechanism, "username": username, "password": Secret(password)}


def to_confluent(settings: ConnectionSettings) -> dict[str, str]:
    """librdkafka configuration (confluent-kafka AdminClient) for these settings."""
    if not settings.bootstrap_servers:
        raise ConfigError("no bootstrap servers to connect a Kafka client to")
    sec = security_config(settings.properties)
    conf = {"bootstrap.servers": settings.bootstrap_servers, "security.protocol": sec.protocol.lower()}
    if sec.client_id:
        conf["client.id"] = sec.client_id
    if sec.uses_ssl:
        if sec.ca_file:
            conf["ssl.ca.location"] = sec.ca_file
        if sec.ca_pem:
            conf["ssl.ca.pem"] = sec.ca_pem.reveal()
        if sec.cert_file:  # one PEM file holds both key and chain; OpenSSL reads each part from it
            conf["ssl.certificate.location"] = sec.cert_file
            conf["ssl.key.location"] = sec.cert_file
        if sec.cert_pem and sec.key_pem:
            conf["ssl.certificate.pem"] = sec.cert_pem.reveal()
            conf["ssl.key.pem"] = sec.key_pem.reveal()
        if sec.key_password:
            conf["ssl.key.password"] = sec.key_password.reveal()
        conf["ssl.endpoint.identification.algorithm"] = "https" if sec.check_hostname else "none"
    if sec.uses_sasl:
        conf["sasl.mechanism"] = sec.mechanism
        conf["sasl.username"] = sec.username
        conf["sasl.password"] = sec.password.reveal()
    return conf


def to_kafka_python(settings: ConnectionSettings) -> dict[str, Any]:
    """KafkaAdminClient keyword arguments for these settings.

    PEM files map to ssl_cafile/ssl_certfile/ssl_keyfile. Certificates given inline go into an
    ``ssl.SSLContext`` (ssl_context): CA certificates load from memory; Python can load a client
    key only from a file, so that one is written to a 0600 file in a private temporary directory
    and deleted as soon as the context has read it.
    """
    if not settings.bootstrap_servers:
        raise ConfigError("no bootstrap servers to connect a Kafka client to")
    sec = security_config(settings.properties)
    kw: dict[str, Any] = {
        "bootstrap_servers": [s.strip() for s in settings.bootstrap_servers.split(",") if s.strip()],
        "security_protocol": sec.protocol,
        "request_timeout_ms": int(settings.timeout * 1000),
    }
    if sec.client_id:
        kw["client_id"] = sec.client_id
    if sec.uses_ssl:
        kw["ssl_check_hostname"] = sec.check_hostname
        if sec.ca_pem or sec.cert_pem:
            kw["ssl_context"] = _ssl_context(sec)
        else:
            if sec.ca_file:
                kw["ssl_cafile"] = sec.ca_file
            if sec.cert_file:
                kw["ssl_certfile"] = sec.cert_file
                kw["ssl_keyfile"] = sec.cert_file
            if sec.key_password:
                kw["ssl_password"] = sec.key_password.reveal()
    if sec.uses_sasl:
        kw["sasl_mechanism"] = sec.mechanism
        kw["sasl_plain_username"] = sec.username
        kw["sasl_plain_password"] = sec.password.reveal()
    return kw


def _ssl_context(sec: SecurityConfig):
    import ssl
    import tempfile

    ctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    ctx.check_hostname = sec.check_hostname
    try:
        if sec.ca_pem:
            ctx.load_verify_locations(cadata=sec.ca_pem.reveal())
        elif sec.ca_file:
            ctx.load_verify_locations(cafile=sec.ca_file)
        password = sec.key_password.reveal() if sec.key_password else None
        if sec.cert_pem and sec.key_pem:
            with tempfile.TemporaryDirectory(prefix="kadmin-") as d:  # mode 0700
                path = os.path.join(d, "client.pem")
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "w") as f:
                    f.write(sec.key_pem.reveal().strip() + "\n" + sec.cert_pem.reveal().strip() + "\n")
                ctx.load_cert_chain(path, password=password)
        elif sec.cert_file:
            ctx.load_cert_chain(sec.cert_file, password=password)
    except (ssl.SSLError, OSError, ValueError) as e:
        # The library's text names the failing step, not the key material.
        raise ConfigError(f"cannot load the PEM certificates or key: {type(e).__name__}: {getattr(e, 'reason', None) or e}") from None
    return ctx
