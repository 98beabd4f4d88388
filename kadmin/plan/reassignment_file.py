"""The reassignment file: Kafka's ``{"version":1,"partitions":[{"topic","partition","replicas",
["log_dirs"]}]}``, read with the location of every problem, and written back in the same format
(kadmin's rollback file is one of these).

Parsing checks the shape of each entry (schemas/reassignment.json states the same contract) and
keeps the entry's index, so every later problem can say where it is: ``partitions[3] (foo-1)
replicas: ...``. The shape is checked by hand rather than by jsonschema because a 100,000-entry
plan must validate in well under two seconds; tests hold the two to the same verdicts.
Rules that need no cluster but are about meaning (duplicates, lengths, paths) live in
``kadmin.plan.validate`` with the cluster rules, so every problem is reported in one pass.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from kadmin.errors import InputError
from kadmin.model import Assignment, ReassignmentPlan, TopicPartition
from kadmin.plan.gc_pause import gc_paused


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a plan, and where: entry index, partition and field when known."""

    message: str
    index: int | None = None  # position in "partitions"
    tp: TopicPartition | None = None
    field: str | None = None  # "replicas", "log_dirs[1]", "version"...

    @property
    def where(self) -> str:
        parts = []
        if self.index is not None:
            parts.append(f"partitions[{self.index}]")
            if self.tp is not None:
                parts.append(f"({self.tp})")
        if self.field:
            parts.append(self.field)
        return " ".join(parts)

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message

    def to_json(self) -> dict:
        return {
            "index": self.index,
            "topic": self.tp.topic if self.tp else None,
            "partition": self.tp.partition if self.tp else None,
            "field": self.field,
            "message": self.message,
        }


class PlanProblems(InputError):
    """The plan failed validation; ``details`` keeps the structured problems for JSON output
    (schemas/reassign-plan-problems.json)."""

    def __init__(self, message: str, details: list[Problem], source: str | None = None):
        super().__init__(message, [str(p) for p in details], hint="fix the plan and run again", source=source)
        self.details = details


def plan_problems(problems: list[Problem], *, source: str | None, of_its_own: bool = False) -> PlanProblems:
    """The one refusal of a plan with ``problems`` (exit 2), whichever command read it:
    "plan.json: the reassignment plan has 2 problems; ...", each problem line naming the file
    too. ``source``: the file, as the user named it (``ParsedPlan.source``)."""
    from kadmin.units import counted

    n = len(problems)
    unchecked = " of its own (the cluster could not be reached to check the rest)" if of_its_own else ""
    return PlanProblems(
        f"the reassignment plan has {counted(n, 'problem')}{unchecked}; nothing was changed",
        problems,
        source,
    )


@dataclass(frozen=True)
class ParsedPlan:
    """A plan as read: its version, the well-formed entries with their index in the file, and
    the shape problems of the others. ``plan`` holds the well-formed entries in file order.
    ``source``: the file it was read from, as the user named it, for every later refusal of
    it to name (``plan_problems``); None for a document that came from no file."""

    version: Any
    entries: tuple[tuple[int, Assignment], ...]
    problems: tuple[Problem, ...]
    entry_count: int  # entries in the file, well-formed or not
    source: str | None = None

    @property
    def plan(self) -> ReassignmentPlan:
        return ReassignmentPlan(tuple(a for _, a in self.entries), self.version if self.version == 1 else 1)


INT32_MAX = 2**31 - 1  # partition and broker ids are int32 in Kafka's protocol and JSON parser


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _well_formed(raw: Any) -> Assignment | None:
    """The common case, checked fast: a well-formed entry as an Assignment, else None."""
    if type(raw) is not dict:
        return None
    topic, partition, replicas = raw.get("topic"), raw.get("partition"), raw.get("replicas")
    if not (
        type(topic) is str
        and topic
        and type(partition) is int
        and 0 <= partition <= INT32_MAX
        and type(replicas) is list
    ):
        return None
    for b in replicas:
        if type(b) is not int or b < 0 or b > INT32_MAX:
            return None
    log_dirs = raw.get("log_dirs")
    if log_dirs is None:
        if "log_dirs" in raw:
            return None
        return Assignment(topic, partition, tuple(replicas))
    if type(log_dirs) is not list:
        return None
    for d in log_dirs:
        if type(d) is not str:
            return None
    return Assignment(topic, partition, tuple(replicas), tuple(log_dirs))


def _parse_entry(index: int, raw: Any) -> tuple[Assignment | None, list[Problem]]:
    fast = _well_formed(raw)
    if fast is not None:
        return fast, []
    if not isinstance(raw, dict):
        return None, [Problem(f"must be an object, not {_kind(raw)}", index)]
    problems: list[Problem] = []
    topic: Any = raw.get("topic")  # untrusted JSON: checked below
    partition: Any = raw.get("partition")
    if "topic" not in raw:
        problems.append(Problem("is missing", index, field="topic"))
    elif not isinstance(topic, str) or not topic:
        problems.append(Problem(f"must be a non-empty string, not {_kind(topic)}", index, field="topic"))
    if "partition" not in raw:
        problems.append(Problem("is missing", index, field="partition"))
    elif not _is_int(partition) or partition < 0:
        problems.append(Problem(f"must be an integer >= 0, not {_kind(partition)}", index, field="partition"))
    elif partition > INT32_MAX:
        problems.append(
            Problem(f"must be at most {INT32_MAX} (a 32-bit id), not {_kind(partition)}", index, field="partition")
        )
    tp = TopicPartition(topic, partition) if not problems else None

    replicas: Any = raw.get("replicas")
    if "replicas" not in raw:
        problems.append(Problem("is missing", index, tp, "replicas"))
    elif not isinstance(replicas, list):
        problems.append(Problem(f"must be a list of broker ids, not {_kind(replicas)}", index, tp, "replicas"))
    else:
        for i, b in enumerate(replicas):
            if not _is_int(b) or b < 0:
                problems.append(
                    Problem(f"must be a broker id (integer >= 0), not {_kind(b)}", index, tp, f"replicas[{i}]")
                )
            elif b > INT32_MAX:
                problems.append(
                    Problem(
                        f"must be a broker id of at most {INT32_MAX} (32 bits), not {_kind(b)}",
                        index,
                        tp,
                        f"replicas[{i}]",
                    )
                )

    log_dirs: Any = raw.get("log_dirs")
    if "log_dirs" in raw:
        if not isinstance(log_dirs, list):
            problems.append(Problem(f"must be a list of paths, not {_kind(log_dirs)}", index, tp, "log_dirs"))
        else:
            for i, d in enumerate(log_dirs):
                if not isinstance(d, str):
                    problems.append(
                        Problem(f'must be "any" or an absolute path, not {_kind(d)}', index, tp, f"log_dirs[{i}]")
                    )
    if problems:
        return None, problems
    return Assignment(topic, partition, tuple(replicas), tuple(log_dirs) if log_dirs is not None else None), []


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return f"a boolean ({json.dumps(v)})"
    if isinstance(v, (int, float)):
        return f"{v!r}"
    if isinstance(v, str):
        return f"a string ({json.dumps(v)})" if len(v) < 60 else "a string"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def parse_reassignment(text: str, source: str | None = None) -> ParsedPlan:
    """Parse a reassignment JSON document (``source``: the file it came from, as the user named
    it). Raises PlanProblems (one problem of the whole document) only when there is nothing to
    go on (not JSON, not an object); every other shape problem is kept in the result so it is
    reported with the cluster's problems."""
    with gc_paused():
        return _parse_reassignment(text, source)


def _parse_reassignment(text: str, source: str | None) -> ParsedPlan:
    from kadmin.plan.json_text import load_json

    try:
        doc = load_json(text)
    except InputError as e:
        raise plan_problems([Problem(e.message)], source=source) from None
    if not isinstance(doc, dict):
        problem = Problem(f'must be a JSON object with "version" and "partitions", not {_kind(doc)}')
        raise plan_problems([problem], source=source)
    problems: list[Problem] = []
    version = doc.get("version", 1)  # Kafka's tool reads a file without one as version 1
    if version != 1 or not _is_int(version):
        problems.append(Problem(f"must be 1, not {_kind(version)}", field="version"))
    raw_partitions = doc.get("partitions")
    if "partitions" not in doc:
        problems.append(Problem("is missing", field="partitions"))
        raw_partitions = []
    elif not isinstance(raw_partitions, list):
        problems.append(Problem(f"must be a list, not {_kind(raw_partitions)}", field="partitions"))
        raw_partitions = []
    entries = []
    for index, raw in enumerate(raw_partitions):
        assignment, entry_problems = _parse_entry(index, raw)
        if assignment is not None:
            entries.append((index, assignment))
        else:
            problems.extend(entry_problems)
    return ParsedPlan(version, tuple(entries), tuple(problems), len(raw_partitions), source)


def read_reassignment(path: str | Path, *, keep_problems: bool = False) -> ParsedPlan:
    """Read a reassignment file and check all that needs no cluster: the one place every command
    reading a plan (reassign execute, verify, progress, cancel, throttle set --from-plan) reads
    it, so a bad file is refused alike everywhere, by its name as given (``ParsedPlan.source``,
    kept for the cluster check's refusal too): PlanProblems listing every problem the file has
    of its own (``kadmin.plan.validate.file_problems``), exit 2, the same document under
    ``--output json``. ``keep_problems``: return the shape problems in the result instead, for a
    cluster check to report with its own at once (``reassign execute``). A file that cannot be
    read is an InputError naming it (``kadmin.plan.json_text.read_text``)."""
    from kadmin.plan.json_text import read_text

    parsed = parse_reassignment(read_text(path), str(path))
    if not keep_problems:
        from kadmin.plan.validate import file_problems

        problems = file_problems(parsed)
        if problems:
            raise plan_problems(problems, source=parsed.source)
    return parsed


def plan_to_json(assignments: Iterable[Assignment]) -> dict:
    """Kafka's document for these entries (``log_dirs`` only where an entry has them)."""
    partitions = []
    for a in assignments:
        entry: dict[str, Any] = {"topic": a.topic, "partition": a.partition, "replicas": list(a.replicas)}
        if a.log_dirs is not None:
            entry["log_dirs"] = list(a.log_dirs)
        partitions.append(entry)
    return {"version": 1, "partitions": partitions}


def format_reassignment(plan: ReassignmentPlan | Iterable[Assignment]) -> str:
    """Kafka's one-line JSON, as kafka-reassign-partitions.sh prints and reads it."""
    assignments = plan.partitions if isinstance(plan, ReassignmentPlan) else plan
    return json.dumps(plan_to_json(assignments), separators=(",", ":"))


def check_plan_path(path: str | Path) -> None:
    """InputError (exit 2), before the cluster is asked or anything printed, when the plan cannot be written
    at ``path``: it exists (a plan file is never overwritten), or its directory does not exist,
    is not a directory or cannot be written to. Named as the user gave it, the reason in words.
    Writing is tried for real (a temporary file in that directory, removed at once), so a
    read-only file system is caught too."""
    import os
    import tempfile

    path = str(path)

    def refuse(why: str) -> NoReturn:
        raise InputError(
            f"cannot write the plan to {path}: {why}; nothing was changed", hint="choose another --output-file"
        )

    if os.path.lexists(path):
        refuse("it already exists")  # a directory: Click's dir_okay=False refuses it first
    directory = os.path.dirname(path) or "."
    if not os.path.lexists(directory):
        refuse(f"its directory {directory} does not exist")
    if not os.path.isdir(directory):
        refuse(f"{directory} is not a directory")
    try:
        fd, probe = tempfile.mkstemp(dir=directory, prefix=".kadmin-", suffix=".tmp")
    except OSError as e:
        refuse(f"its directory {directory} cannot be written to ({(e.strerror or str(e)).lower()})")
    else:
        os.close(fd)
        os.unlink(probe)


def write_reassignment(path: str | Path, plan: ReassignmentPlan) -> Path:
    """Write a plan file, refusing to overwrite an existing one (a rollback file is precious).
    Written to a temporary name and renamed, so a crash never leaves half a file."""
    path = Path(path)
    if os.path.lexists(path):
        raise InputError(f"{path} already exists; choose another path (nothing was changed)")
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(format_reassignment(plan) + "\n", "utf-8")
        tmp.replace(path)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        why = (e.strerror or type(e).__name__).lower()
        raise InputError(f"cannot write {path}: {why} (nothing was changed)") from None
    return path
