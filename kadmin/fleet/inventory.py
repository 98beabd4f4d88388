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
    problems = validate_inventory(data)
    if problems:
        raise InputError(f"--fleet {path}: invalid inventory", problems)
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
        elif err.validator == "additionalProperties":
            known = set(err.schema.get("properties", {}))
            problems.append(f"{where}: unknown key(s): {', '.join(sorted(set(err.instance) - known))}")
        else:
            problems.append(f"{where}: {err.message}")
    if not problems:
        from kadmin.config import bootstrap_addresses, zookeeper_hosts

        seen: set[str] = set()
        for i, c in enumerate(data["clusters"]):
            if c["name"] in seen:
                problems.append(f"clusters.{i}.name: cluster {c['name']!r} is listed twice")
            seen.add(c["name"])
            for key, check in (("bootstrap_server", bootstrap_addresses), ("zookeeper", zookeeper_hosts)):
                try:
                    if key in c:
                        check(c[key])
                except ValueError as e:
                    problems.append(f"clusters.{i}.{key}: {e}")
    return problems


def entries_of(data: dict[str, Any], base: Path) -> list[dict[str, Any]]:
    out = []
    for c in data["clusters"]:
        entry = dict(c)
        if "timeout" not in entry and "timeout" in data:
            entry["timeout"] = data["timeout"]
        if "config" in data:
            entry["config"] = str((base / data["config"]).expanduser())
        if "command_config" in entry:
            entry["command_config"] = str(base / Path(entry["command_config"]).expanduser())
        out.append(entry)
    return out
