"""Connection settings: flags, ``KADMIN_*`` environment and TOML profiles merged into one
``ConnectionSettings``, with the Kafka client properties of ``--command-config``.

Precedence, field by field: flags > environment > profile > defaults. The target (bootstrap
servers or ZooKeeper) is chosen as a pair: the highest level that names either wins, and a level
naming both is a usage error. A profile's settings (its credentials) go only to the servers it
names, unless the operator names both on the command line:

- ``--cluster NAME`` gives the profile's target above the environment's (a
  ``KADMIN_BOOTSTRAP_SERVER`` left from a sandbox session never receives its credentials); with
  ``--bootstrap-server`` / ``--zookeeper`` next to it, the flag's server gets the profile's
  settings, and a note says so (``ConnectionSettings.notes``);
- ``KADMIN_CLUSTER`` likewise, but next to a ``--bootstrap-server`` / ``--zookeeper`` flag it is
  ignored, profile and all, with a note: a variable left from a prod session never sends prod's
  credentials to a server named on the command line;
- ``default_cluster`` only when neither flags nor environment name a target.

A flag given empty or blank (``-b "$UNSET"``) is a usage error, never "not given": it would
fall back to the environment or the default profile, perhaps production. A ``KADMIN_*``
variable set empty or blank is unset (``export KADMIN_CLUSTER=`` is how a shell unsets one).

The properties are parsed in ``kadmin.java_properties`` and mapped to the two client libraries
in ``kadmin.client_config``; both are re-exported here, the one import the rest of kadmin needs.
Everything is pure except reading the profile and properties files. Secrets never appear in
reprs or error messages.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kadmin.client_config import security_config, to_confluent, to_kafka_python
from kadmin.errors import ConfigError, UsageError
from kadmin.java_properties import (
    MASK,
    JaasLogin,
    Secret,
    is_sensitive,
    parse_jaas_config,
    parse_properties,
    read_properties_file,
    redact,
)

__all__ = [  # noqa: RUF022 - grouped by where each name comes from
    "ConnectionSettings",
    "resolve_connection",
    "parse_timeout",
    "default_config_path",
    "load_profiles",
    "validate_profiles",
    "DEFAULT_TIMEOUT",
    "MAX_TIMEOUT",
    # re-exported from kadmin.client_config and kadmin.java_properties
    "security_config",
    "to_confluent",
    "to_kafka_python",
    "MASK",
    "JaasLogin",
    "Secret",
    "is_sensitive",
    "parse_jaas_config",
    "parse_properties",
    "read_properties_file",
    "redact",
]

DEFAULT_TIMEOUT = 30.0
# A timeout's bounds. Each request kadmin makes may wait up to the whole timeout, and
# confluent-kafka's AdminClient refuses a request_timeout over 3,600,000 ms (librdkafka's
# AdminOptions range 0..3600000): the smallest ceiling a timeout meets (Kafka's INT32 timeout_ms
# fields hold 24.8 days, kazoo and Python's waits more). Kafka's timeouts are whole milliseconds.
MAX_TIMEOUT = 3600.0
MIN_TIMEOUT = 0.001
ENV_BOOTSTRAP = "KADMIN_BOOTSTRAP_SERVER"
ENV_ZOOKEEPER = "KADMIN_ZOOKEEPER"
ENV_COMMAND_CONFIG = "KADMIN_COMMAND_CONFIG"
ENV_CLUSTER = "KADMIN_CLUSTER"
ENV_TIMEOUT = "KADMIN_TIMEOUT"
ENV_CONFIG = "KADMIN_CONFIG"


# --- settings ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConnectionSettings:
    """Where the cluster is and how to talk to it. Exactly one of bootstrap_servers/zookeeper."""

    bootstrap_servers: str | None = None
    zookeeper: str | None = None  # "host:port[,host:port...][/chroot]"
    properties: Mapping[str, str] = field(default_factory=dict, repr=False)  # Kafka client properties
    timeout: float = DEFAULT_TIMEOUT  # seconds
    timeout_given: bool = False  # by --timeout, KADMIN_TIMEOUT or the profile (else the default)
    profile: str | None = None
    source: str = "flags"  # where the target came from, for messages: "flags", "environment", "profile NAME"
    notes: tuple[str, ...] = ()  # what the operator should know about this choice (a warning each)
    # For messages, as the user set them: "--bootstrap-server", "KADMIN_ZOOKEEPER", "bootstrap_server
    # of profile 'prod'"; the properties' sources in the order read, later keys winning:
    # "--command-config", "KADMIN_COMMAND_CONFIG (c.properties)", "the properties of profile 'prod'".
    target_from: str = ""
    properties_from: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return (
            f"ConnectionSettings(bootstrap_servers={self.bootstrap_servers!r}, zookeeper={self.zookeeper!r}, "
            f"properties={redact(self.properties)!r}, timeout={self.timeout!r}, profile={self.profile!r}, "
            f"source={self.source!r})"
        )

    @property
    def target_where(self) -> str:
        """What set the target, to name in a message: "check {target_where}, the network ..."."""
        return self.target_from or ("--zookeeper" if self.zookeeper else "--bootstrap-server")

    @property
    def properties_where(self) -> str:
        """Where a Kafka client property is to be set, to name in a message: "set
        security.protocol=SSL in {properties_where}": the source read last (its keys win), or
        --command-config when none was given."""
        return self.properties_from[-1] if self.properties_from else "--command-config"

    def named_source(self, err: ConfigError) -> ConfigError:
        """``err`` (about the properties) starting with where they came from, as a bad timeout
        names its variable or profile: "KADMIN_COMMAND_CONFIG (c.properties): ...". Not when
        --command-config alone gave them: the command line shows that."""
        if self.properties_from in ((), ("--command-config",)):
            return err
        return ConfigError(err.message, err.problems, hint=err.hint, source=" and ".join(self.properties_from))

    def with_bootstrap(self, bootstrap_servers: str) -> ConnectionSettings:
        """The same security settings pointed at brokers (used by the ZooKeeper backend to reach
        the brokers it finds under /brokers/ids)."""
        found = f"the brokers' addresses registered in ZooKeeper ({self.target_where})"
        return replace(self, bootstrap_servers=bootstrap_servers, zookeeper=None, target_from=found)

    @property
    def security_protocol(self) -> str:
        return self.properties.get("security.protocol", "PLAINTEXT").strip().upper()


def _bare_number(text: str) -> bool:
    """ "10000", "1.5": a number written without a unit."""
    try:
        float(text.strip())
    except ValueError:
        return False
    return text.strip().replace(".", "", 1).isdigit()


def parse_timeout(value: str | float | int, where: str = "--timeout") -> float:
    """Seconds from "30s", "500ms", "2m", "1h" (kadmin.units' duration syntax), or a Python
    number of seconds; a timeout is from 1ms to 1h (``MIN_TIMEOUT``, ``MAX_TIMEOUT``). Errors
    name where the value came from. A string of digits without a unit is refused (``no_unit``):
    Kafka's tool meant milliseconds. A TOML number (a profile's ``timeout = 10``) is refused
    the same way, by ``validate_profiles``."""
    import math

    from kadmin.errors import InputError
    from kadmin.units import duration_like, parse_duration

    if isinstance(value, bool):
        raise UsageError(f"{where}: expected a duration such as 30s, got {value!r}")
    if isinstance(value, str) and _bare_number(value):
        raise UsageError(no_unit(where, value.strip()))
    try:
        seconds = parse_duration(value, at_most=math.inf)
    except InputError:
        raise UsageError(f"{where}: expected a duration such as 30s, 500ms or 2m, got {value!r}") from None
    if seconds <= 0:
        raise UsageError(f"{where}: must be greater than zero, got {value!r}")
    if seconds < MIN_TIMEOUT:
        raise UsageError(f"{where}: at least 1ms (Kafka's request timeouts are whole milliseconds), got {value!r}")
    if seconds > MAX_TIMEOUT:
        raise UsageError(
            f"{where}: at most {duration_like(MAX_TIMEOUT, value)} (librdkafka, the Kafka client kadmin uses, "
            f"refuses longer request timeouts), got {value!r}"
        )
    return seconds


def no_unit(where: str, value: object) -> str:
    """The words for a timeout written without a unit, wherever it is written (a flag, an
    environment variable, a profile, a fleet inventory): Kafka's kafka-reassign-partitions.sh
    reads ``--timeout 10000`` as milliseconds, and reading it as seconds would turn a ported
    script's 10 s into hours, so kadmin asks for the unit instead."""
    return f"{where}: {value} has no unit: write {value}ms (as Kafka's tool meant it) or {value}s"


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

    Raises UsageError for an empty flag, conflicting or missing targets and a bad timeout,
    ConfigError for an unreadable or invalid profile file, an unknown profile, a profile naming
    no server, or a bad properties file.
    """
    refuse_empty_flags(bootstrap_server, zookeeper, command_config, cluster, timeout)
    env = {k: v for k, v in env.items() if v.strip()}  # set empty or blank: unset
    flags_target = _target(bootstrap_server, zookeeper, "--bootstrap-server and --zookeeper")
    env_target = _target(env.get(ENV_BOOTSTRAP), env.get(ENV_ZOOKEEPER), f"{ENV_BOOTSTRAP} and {ENV_ZOOKEEPER}")
    path = Path(config_path).expanduser() if config_path else default_config_path(env)

    notes: list[str] = []
    name = cluster or env.get(ENV_CLUSTER)
    if name and not cluster and flags_target is not None:
        # A KADMIN_CLUSTER left from a prod session must not send prod's credentials to a
        # server named on the command line: the flag wins, and the profile is not used at all.
        flag = "--bootstrap-server" if flags_target[0] == "bootstrap" else "--zookeeper"
        notes.append(
            f"{ENV_CLUSTER}={name} is ignored because {flag} was given: profile {name!r} and its settings "
            f"are not used for {flags_target[1]} (give --cluster {name} to use them)"
        )
        name = None
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
            profile.get("bootstrap_server"),
            profile.get("zookeeper"),
            f"bootstrap_server and zookeeper in profile {name!r}",
        )

    # The flags' target, else the profile's (a named profile's above the environment's: a
    # KADMIN_BOOTSTRAP_SERVER left from a sandbox session must not receive its credentials),
    # else the environment's. A profile naming no server is said to, never passed over.
    if flags_target is not None:
        target, source = flags_target, "flags"
    elif profile is not None:
        if profile_target is None:
            which = f"profile {name!r}" if cluster or env.get(ENV_CLUSTER) else f"default_cluster {name!r}"
            raise ConfigError(
                f"{which} has no bootstrap_server or zookeeper, so it names no cluster to connect to",
                hint=f'add bootstrap_server = "HOST:PORT" (or zookeeper) to [clusters.{name}] in {path}',
            )
        target, source = profile_target, f"profile {name}"
    elif env_target is not None:
        target, source = env_target, "environment"
    else:
        raise UsageError(NO_TARGET_HELP.format(path=path))

    properties: dict[str, str] = {}
    properties_from: list[str] = []
    if profile is not None and profile.get("properties"):
        properties.update({k: _property_text(v) for k, v in profile["properties"].items()})
        properties_from.append(f"the properties of profile {name!r}")
    props_file: Path | None = None
    if command_config:
        props_file, props_from = Path(command_config).expanduser(), "--command-config"
    elif env.get(ENV_COMMAND_CONFIG):
        props_file = Path(env[ENV_COMMAND_CONFIG]).expanduser()
        props_from = f"{ENV_COMMAND_CONFIG} ({env[ENV_COMMAND_CONFIG]})"
    elif profile is not None and profile.get("command_config"):
        props_file = path.parent / Path(profile["command_config"]).expanduser()
        props_from = f"command_config of profile {name!r} ({profile['command_config']})"
    if props_file is not None:
        properties.update(read_properties_file(props_file))
        properties_from.append(props_from)

    if timeout is not None:
        seconds = parse_timeout(timeout, "--timeout")
    elif env.get(ENV_TIMEOUT):
        seconds = parse_timeout(env[ENV_TIMEOUT], ENV_TIMEOUT)
    elif profile is not None and profile.get("timeout") is not None:
        seconds = parse_timeout(profile["timeout"], f"timeout in profile {name!r}")
    else:
        seconds = None

    kind, where = target
    where = _checked_target(kind, where, source, name)
    sent = _profile_settings_sent(profile, command_config, env)
    if source == "flags" and sent and not _same_target(target, profile_target):
        flag = "--bootstrap-server" if kind == "bootstrap" else "--zookeeper"
        notes.append(
            f"--cluster {name} with {flag}: the settings of profile {name!r} ({sent}) are sent to {where}, "
            "which the profile does not name"
        )
    return ConnectionSettings(
        bootstrap_servers=where if kind == "bootstrap" else None,
        zookeeper=where if kind == "zookeeper" else None,
        properties=properties,
        timeout=DEFAULT_TIMEOUT if seconds is None else seconds,
        timeout_given=seconds is not None,
        profile=name if profile is not None else None,
        source=source,
        notes=tuple(notes),
        target_from=_target_from(kind, source, name),
        properties_from=tuple(properties_from),
    )


def _target_from(kind: str, source: str, profile: str | None) -> str:
    flag, env, key = _TARGET_NAMES[kind]
    if source == "flags":
        return flag
    if source == "environment":
        return env
    return f"{key} of profile {profile!r}"


_TARGET_NAMES = {
    "bootstrap": ("--bootstrap-server", ENV_BOOTSTRAP, "bootstrap_server"),
    "zookeeper": ("--zookeeper", ENV_ZOOKEEPER, "zookeeper"),
}


# What each connection flag names, for the words refusing it empty.
_FLAG_VALUES = (
    ("--bootstrap-server", "HOST:PORT"),
    ("--zookeeper", "HOST:PORT"),
    ("--command-config", "FILE"),
    ("--cluster", "profile NAME"),
    ("--timeout", "DURATION"),
)


def refuse_empty_flags(
    bootstrap_server: object = None,
    zookeeper: object = None,
    command_config: object = None,
    cluster: object = None,
    timeout: object = None,
) -> None:
    """UsageError for a connection flag given empty or blank (``-b "$BOOTSTRAP"`` with the
    variable unset): read as "not given", the command would fall back to the environment or
    the default profile, perhaps a production cluster. None is a flag not given."""
    values = (bootstrap_server, zookeeper, command_config, cluster, timeout)
    for (flag, what), value in zip(_FLAG_VALUES, values):
        if isinstance(value, (str, os.PathLike)) and not os.fspath(value).strip():
            raise UsageError(f"{flag}: empty (no {what} given)")


def _profile_settings_sent(profile: Mapping[str, Any] | None, command_config: object, env: Mapping[str, str]) -> str:
    """The words for the profile's security settings this connection uses ("" for none): its
    inline properties, and its command_config unless a flag or KADMIN_COMMAND_CONFIG replaces it."""
    if profile is None:
        return ""
    parts = []
    if profile.get("command_config") and not command_config and not env.get(ENV_COMMAND_CONFIG):
        parts.append("command_config")
    if profile.get("properties"):
        parts.append("properties")
    return f"its {' and '.join(parts)}, credentials included" if parts else ""


def _same_target(a: tuple[str, str] | None, b: tuple[str, str] | None) -> bool:
    """Whether two targets name the same servers, written alike but for spaces and empty entries."""
    return a is not None and b is not None and a[0] == b[0] and _entries(a[1]) == _entries(b[1])


def bootstrap_addresses(servers: str) -> list[tuple[str, int]]:
    """``(host, port)`` of each comma-separated ``HOST:PORT`` (``[v6 address]:PORT`` too), empty
    entries skipped, as Kafka's clients read bootstrap.servers. ValueError names the first entry
    that is not one (Kafka's: "Invalid url in bootstrap.servers")."""
    out = []
    for entry in _entries(servers):
        host, _, port = entry.rpartition(":")
        bracketed = host.startswith("[") and host.endswith("]")
        host = host[1:-1] if bracketed else host
        if (
            not host
            or not port.isdigit()
            or not 0 < int(port) < 65536
            or "[" in host
            or "]" in host
            # "::1:9092": Java reads ::1 port 9092, kafka-python the address ::1:9092 (port 9092)
            or (":" in host and not bracketed)
        ):
            raise ValueError(f"{entry!r} is not HOST:PORT (a port from 1 to 65535; an IPv6 address as [::1]:9092)")
        if not _valid_host(host, bracketed):
            raise ValueError(_bad_host(entry, host, bracketed, "HOST:PORT", "[::1]:9092"))
        out.append((host, int(port)))
    if not out:
        raise ValueError("no HOST:PORT given")
    return out


def address(host: str, port: int) -> str:
    """``host:port`` as bootstrap.servers writes it (``[v6 address]:port``): what
    ``bootstrap_addresses`` reads."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def zookeeper_hosts(connect: str) -> tuple[list[tuple[str, int]], str | None]:
    """ZooKeeper's connect string, read as its clients read it: comma-separated ``HOST[:PORT]``
    (2181 by default, ``[v6 address]:PORT`` too), then an optional chroot (``/kafka``; ``/``
    alone is none). ValueError names what is wrong."""
    from urllib.parse import urlsplit

    hosts, chroot = _hosts_and_chroot(connect)
    if chroot is not None and any(part in ("", ".", "..") for part in chroot[1:].split("/")):
        raise ValueError(f"chroot {chroot!r} is not a ZooKeeper path (no empty, '.' or '..' part, no '/' at the end)")
    out = []
    for entry in _entries(hosts):
        try:
            parts = urlsplit("zk://" + entry)
            host, port = parts.hostname, parts.port  # ValueError: a bad port or [address
            if not host or port == 0 or parts.path or parts.query or parts.fragment:
                raise ValueError
        except ValueError:
            raise ValueError(
                f"{entry!r} is not HOST[:PORT] (a port from 1 to 65535; an IPv6 address as [::1]:2181)"
            ) from None
        bracketed = entry.startswith("[")
        # urlsplit reads "bad zk string" or "user@zk" as a host (kazoo too: it then waits out its timeout)
        if parts.username is not None or not _valid_host(host, bracketed):
            shown = parts.netloc.rsplit(":", 1)[0] if parts.port is not None else parts.netloc
            raise ValueError(_bad_host(entry, host if bracketed else shown, bracketed, "HOST[:PORT]", "[::1]:2181"))
        out.append((host, port or 2181))
    if not out:
        raise ValueError("no HOST[:PORT] given")
    return out, chroot


_HOST_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._")


def _valid_host(host: str, bracketed: bool) -> bool:
    """A host name or IPv4 address (letters, digits, '-', '.', '_': the characters Kafka's
    clients read in a host), or in brackets an IPv6 address (a zone, ``%eth0``, too)."""
    if not bracketed:
        return bool(host) and set(host) <= _HOST_NAME_CHARACTERS
    import ipaddress

    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        return False
    return True


def _bad_host(entry: str, host: str, bracketed: bool, form: str, example: str) -> str:
    what = "an IPv6 address" if bracketed else "a host name"
    return (
        f"{entry!r} is not {form}: {host!r} is not {what} (a host name has letters, digits, '-', '.' and '_'; "
        f"an IPv6 address goes in brackets, {example})"
    )


def zookeeper_connect(connect: str) -> str:
    """The connect string as kadmin passes it on: checked as ``zookeeper_hosts`` checks it
    (ValueError), its empty entries and spaces left out, a chroot of "/" alone dropped."""
    zookeeper_hosts(connect)
    hosts, chroot = _hosts_and_chroot(connect)
    return ",".join(_entries(hosts)) + (chroot or "")


def _entries(text: str) -> list[str]:
    """The comma-separated entries of ``text``, stripped, the empty ones left out."""
    return [e for e in (e.strip() for e in text.split(",")) if e]


def _hosts_and_chroot(connect: str) -> tuple[str, str | None]:
    """A ZooKeeper connect string's host list and its chroot ("/kafka"; None for none or "/")."""
    hosts, _, path = connect.strip().partition("/")
    return hosts, "/" + path if path else None


def zookeeper_flag(connect: str) -> str:
    """A --zookeeper flag's connect string as kadmin passes it on, or UsageError (exit 2)."""
    return _checked_target("zookeeper", connect, "flags", None)


def _checked_target(kind: str, where: str, source: str, profile: str | None) -> str:
    """A bootstrap list or ZooKeeper connect string without its empty entries (Java's clients
    skip them; kafka-python and kazoo do not), or UsageError / ConfigError for one no client
    could use, before anything connects (Kafka's clients refuse such a bootstrap.servers too:
    "Invalid url")."""
    try:
        if kind == "bootstrap":
            bootstrap_addresses(where)
            return ",".join(_entries(where))
        return zookeeper_connect(where)
    except ValueError as e:
        if source == "flags" or source == "environment":
            raise UsageError(f"{_target_from(kind, source, profile)}: {e}") from None
        raise ConfigError(f"{_TARGET_NAMES[kind][2]} in profile {profile!r}: {e}") from None


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
            raise ConfigError(
                f"profile file {path} does not exist",
                hint="create it with [clusters.NAME] tables, or set KADMIN_CONFIG",
            )
        return {"clusters": {}}
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except OSError as e:
        raise ConfigError(f"cannot read profile file {path}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:  # TOML is UTF-8 by definition
        raise ConfigError(f"profile file {path} is not valid TOML: not UTF-8 text (byte {e.start})") from None
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
        path = list(err.absolute_path)
        where = ".".join(str(p) for p in path) or "(top level)"
        if len(path) == 3 and path[2] == "timeout" and err.validator == "type":
            problems.append(_timeout_type_problem(where, err.instance))
            continue
        # Never echo a value: it may be a password. jsonschema's messages start with the value.
        problem = f"{where}: {_schema_message(err)}"
        if len(path) == 4 and path[2] == "properties" and isinstance(err.instance, dict):
            # TOML reads `security.protocol = "SSL"` as a table "security" holding "protocol"
            problem += f' (quote a property name with dots: "{path[3]}.{next(iter(err.instance), "...")}" = ...)'
        problems.append(problem)
    # A timeout the schema lets through (a string) is read as --timeout reads it: a bare number
    # is refused, and so is a duration out of bounds, whichever profile has it. The words are
    # parse_timeout's without the value (a password in the wrong place stays unshown).
    clusters = data.get("clusters") if isinstance(data, dict) else None
    for name, profile in clusters.items() if isinstance(clusters, dict) else ():
        value = profile.get("timeout") if isinstance(profile, dict) else None
        if isinstance(value, str):
            try:
                parse_timeout(value, f"clusters.{name}.timeout")
            except UsageError as e:
                problems.append(e.message.removesuffix(f", got {value!r}"))
    return problems


def _timeout_type_problem(where: str, value: Any) -> str:
    """A profile's ``timeout`` that is not a string: a TOML number has no unit, refused with the
    words ``--timeout 10`` gets (``timeout = 10000``, Kafka's milliseconds, read as seconds would
    be 2.8 hours)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return no_unit(where, value)
    return f"{where}: expected a duration such as 30s, 500ms or 2m"  # not the value: it may be a password


def _schema_message(err: Any) -> str:
    if err.validator == "additionalProperties":
        from kadmin.units import plural

        unknown = sorted(set(err.instance) - set(err.schema.get("properties", {})))
        return f"unknown {plural('key', len(unknown))}: " + ", ".join(unknown)
    if err.validator == "type":
        return f"must be of type {err.validator_value}"
    if err.validator == "required":
        return err.message
    if err.validator in ("minLength", "pattern"):
        return "must be a non-empty text" if err.validator == "minLength" else "has an invalid form"
    described = err.schema.get("description") if isinstance(err.schema, dict) else None
    return f"invalid value; expected {described}" if described else f"fails the {err.validator} rule"
