"""``--fleet FILE``: the TOML inventory of clusters, validated by schemas/fleet-inventory.json.

```toml
timeout = "10s"                    # default for every cluster
[[clusters]]
name = "prod-eu"
bootstrap_server = "kafka-eu-1:9092"
command_config = "prod-eu.properties"   # relative to this file
[[clusters]]
name = "prod-us"
profile = "prod-us"                # a profile of the kadmin config file
```

Entries come back as plain dicts (picklable, so Spark can ship them to executors) with
relative paths made absolute.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from kadmin.errors import InputError


def load_inventory(path: str | Path) -> list[dict[str, Any]]:
    """The clusters of an inventory file; every problem is reported at once (InputError)."""
    p = Path(path).expanduser()
    try:
        text = p.read_text("utf-8")
    except OSError as e:
        raise InputError(f"--fleet {path}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError as e:  # TOML is UTF-8 by definition
        raise InputError(f"--fleet {path}: not valid TOML: not UTF-8 text (byte {e.start})") from None
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"--fleet {path}: not valid TOML: {e}") from None
    problems = sorted(validate_inventory(data) + settings_problems(data, p.parent), key=_place)
    if problems:
        from kadmin.units import counted

        raise InputError(f"--fleet {path}: invalid inventory ({counted(len(problems), 'problem')})", problems)
    return entries_of(data, p.parent)


def validate_inventory(data: Any) -> list[str]:
    import jsonschema

    from kadmin.schemas import load

    validator = jsonschema.Draft202012Validator(load("fleet-inventory"))
    problems = []
    for err in sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path)):
        where = ".".join(str(x) for x in err.absolute_path) or "(top level)"
        if err.validator == "oneOf":
            problems.append(f"{where}: give exactly one of bootstrap_server, zookeeper or profile")
        elif err.validator == "type" and err.absolute_path and err.absolute_path[-1] == "timeout":
            problems.append(timeout_type_problem(where, err.instance))
        elif err.validator == "additionalProperties":
            from kadmin.units import plural

            unknown = sorted(set(err.instance) - set(err.schema.get("properties", {})))
            problems.append(f"{where}: unknown {plural('key', len(unknown))}: {', '.join(unknown)}")
        else:
            problems.append(f"{where}: {err.message}")
    # The checks of the values go on beside the schema's: every problem at once.
    from kadmin.config import bootstrap_addresses, zookeeper_hosts

    seen: set[str] = set()
    for i, c in _clusters(data):
        name = c.get("name")
        if isinstance(name, str):
            if name in seen:
                problems.append(f"clusters.{i}.name: cluster {name!r} is listed twice")
            seen.add(name)
        for key, check in (("bootstrap_server", bootstrap_addresses), ("zookeeper", zookeeper_hosts)):
            if isinstance(c.get(key), str):
                try:
                    check(c[key])
                except ValueError as e:
                    problems.append(f"clusters.{i}.{key}: {e}")
    return problems


def timeout_type_problem(where: str, value: Any) -> str:
    """A ``timeout`` that is not a string. A TOML number has no unit: refused with the words a
    string of digits gets (``config.parse_timeout``), since ``timeout = 10000`` (Kafka's
    milliseconds) read as seconds would be 2.8 hours."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return f"{where}: {value} has no unit: write {value}ms (as Kafka's tool meant it) or {value}s"
    return f"{where}: expected a duration such as 30s, 500ms or 2m, got {value!r}"


def _place(problem: str) -> tuple[int, int]:
    """Problems in the order of the file: the top-level keys', then each entry's."""
    m = re.match(r"clusters\.(\d+)\b", problem)
    return (1, int(m.group(1))) if m else (0, 0)


def _clusters(data: Any) -> list[tuple[int, dict[str, Any]]]:
    """(index, entry) of each entry that is a table, whatever else is wrong with the file."""
    clusters = data.get("clusters") if isinstance(data, dict) else None
    if not isinstance(clusters, list):
        return []
    return [(i, c) for i, c in enumerate(clusters) if isinstance(c, dict)]


def settings_problems(data: Any, base: Path) -> list[str]:
    """What would make a cluster unusable before any connection, found now rather than as the
    cluster's "unreachable" row: a timeout that is not a duration, a config file or properties
    file that cannot be read, a profile the config file does not define, properties kadmin's
    clients cannot use (a JKS keystore). Each problem says where it is (``clusters.N.key``)."""
    from kadmin.config import load_profiles, parse_timeout, read_properties_file
    from kadmin.errors import KadminError

    problems: list[str] = []
    if not isinstance(data, dict):
        return problems

    def check(where: str | None, fn, *args) -> Any:
        try:
            return fn(*args)
        except KadminError as e:
            prefix = f"{where}: " if where else ""
            problems.append(prefix + str(e) + "".join(f"; {p}" for p in getattr(e, "problems", ())))
            return None

    def duration(where: str, value: Any) -> bool:
        if not isinstance(value, str):
            return False  # absent, or the schema's problem (a number has no unit)
        return check(None, parse_timeout, value, where) is not None  # as collection reads it; says where

    defaults: dict[str, Any] = {}
    if duration("timeout", data.get("timeout")):
        defaults["timeout"] = data["timeout"]
    known: dict[str, Any] | None = None  # the profiles of config=, when it names a readable file
    if isinstance(data.get("config"), str):
        defaults["config"] = data["config"]
        loaded = check("config", load_profiles, _config_path(data["config"], base), True)
        known = loaded["clusters"] if loaded is not None else None
    for i, c in _clusters(data):
        where = f"clusters.{i}"
        entry = {k: v for k, v in c.items() if k != "timeout" or duration(f"{where}.timeout", v)}
        properties: dict[str, str] | None = {}
        if isinstance(c.get("command_config"), str):
            properties = check(f"{where}.command_config", read_properties_file, _file_path(c["command_config"], base))
        if isinstance(c.get("profile"), str):
            if "config" in defaults and known is None:
                continue  # the config file's problem is listed already
            if known is not None and c["profile"] not in known:
                problems.append(f"{where}.profile: no profile {c['profile']!r} in {data['config']}")
                continue
            if properties is None:
                continue
            from kadmin.fleet.collect import settings_for

            settings = check(f"{where}.profile", settings_for, entries_of({"clusters": [entry], **defaults}, base)[0])
            properties = dict(settings.properties) if settings is not None else None
        if properties and not isinstance(c.get("zookeeper"), str):  # ZooKeeper's TLS is checked as it connects
            from kadmin.client_config import security_config

            check(f"{where}.{'command_config' if 'command_config' in c else 'profile'}", security_config, properties)
    return problems


def _config_path(config: str, base: Path) -> Path:
    return base / Path(config).expanduser()  # "~/..." is the home directory's, not the inventory's


def _file_path(name: str, base: Path) -> Path:
    return base / Path(name).expanduser()


def entries_of(data: dict[str, Any], base: Path) -> list[dict[str, Any]]:
    out = []
    for c in data["clusters"]:
        entry = dict(c)
        if "timeout" not in entry and "timeout" in data:
            entry["timeout"] = data["timeout"]
        if "config" in data:
            entry["config"] = str(_config_path(data["config"], base))
        if "command_config" in entry:
            entry["command_config"] = str(_file_path(entry["command_config"], base))
        out.append(entry)
    return out
