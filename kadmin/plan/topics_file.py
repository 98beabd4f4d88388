"""The ``--topics-to-move-json-file`` of ``reassign generate``: Kafka's
``{"version":1,"topics":[{"topic":"foo"}]}``, validated against schemas/topics-to-move.json so
every problem is reported at once, each naming its place (``topics[2].topic``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kadmin.errors import InputError


def read_topics_to_move(path: str) -> list[str]:
    """The topic names of the file at ``path``, every problem naming it as the user did."""
    from kadmin.plan.json_text import read_text

    return parse_topics_to_move(read_text(path), path)


def parse_topics_to_move(text: str, source: str = "topics file") -> list[str]:
    """The topic names, in file order, a duplicate kept (``duplicate_problems`` names it).
    InputError lists every way the file breaks the schema, with its place."""
    from kadmin.plan.json_text import load_json

    data = load_json(text, source)
    problems = schema_problems(data)
    if problems:
        raise InputError(
            "does not match the topics-to-move format",
            problems,
            hint='expected {"version":1,"topics":[{"topic":"foo"},{"topic":"bar"}]}',
            source=source,
        )
    return [t["topic"] for t in data["topics"]]


def duplicate_problems(topics: Sequence[str]) -> list[str]:
    """A topic listed twice, at each later place (``topics[2].topic``): reported by
    ``reassign generate`` with the cluster's problems (kadmin.plan.generate.request_problems)."""
    seen: set[str] = set()
    dupes = []
    for i, name in enumerate(topics):
        if name in seen:
            dupes.append(f"topics[{i}].topic: {name!r} is listed more than once")
        seen.add(name)
    return dupes


def schema_problems(data: Any, schema: str = "topics-to-move", items: str = "topics") -> list[str]:
    """Every way ``data`` breaks ``schemas/<schema>.json``, with where (``items``: what an empty
    list lacks). Also reads kafka-leader-election's file (kadmin.leaders_request)."""
    import jsonschema

    from kadmin.schemas import load

    validator = jsonschema.Draft202012Validator(load(schema))
    errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    return [f"{_where(err.absolute_path)}: {_message(err, items)}" for err in errors]


def _where(path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def _message(err: Any, items: str = "topics") -> str:
    if err.validator == "additionalProperties":
        from kadmin.units import plural

        unknown = sorted(set(err.instance) - set(err.schema.get("properties", {})))
        return f"unknown {plural('key', len(unknown))}: " + ", ".join(unknown)
    if err.validator == "const":
        return f"must be {err.validator_value}, not {err.instance!r}"
    if err.validator in ("pattern", "maxLength", "minLength"):
        return f"{err.instance!r} is not a valid topic name ({err.schema.get('description')})"
    if err.validator == "minItems":
        return f"lists no {items}"
    return err.message
