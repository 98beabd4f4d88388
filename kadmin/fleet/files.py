"""``--from DIR``: earlier ``--output json`` results, one file per cluster.

``<cluster>.json`` holds the result of the command being run (``log-dirs describe``,
``reassign list`` or ``throttle show``), or, as its content shows, another of them. Results of the other commands may sit beside it as
``<cluster>.log-dirs.json``, ``<cluster>.reassign-list.json`` and ``<cluster>.throttle-show.json``:
they add what one command alone cannot see (replica sizes for reassignment progress,
moves for throttle staleness). A ``"cluster"`` key in a document overrides the file name.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path

from kadmin.errors import InputError
from kadmin.fleet.rows import COMMANDS, LOG_DIRS_KIND, Rows, document_rows, error_rows, looks_like
from kadmin.fleet.tables import KEYS, ROW_TABLES, column_names
from kadmin.plan.json_text import why_not_json

SUFFIXES = {
    ".log-dirs.json": "log-dirs",
    ".reassign-list.json": "reassign",
    ".throttle-show.json": "throttle",
}


@dataclass(frozen=True)
class ResultFile:
    path: str
    kind: str  # which command's result it holds
    cluster: str  # from the file name; a "cluster" key inside wins

    @property
    def name(self) -> str:
        return Path(self.path).name


def classify(path: Path, kind: str) -> ResultFile:
    """Which command's result a file holds: its suffix says (``SUFFIXES``); a bare
    ``<cluster>.json`` holds the result of the command being run (``kind``), unless its content
    is another of the three commands' results (``held_kind``): in ``results/``, ``east.json`` may
    hold ``log-dirs describe``'s result beside ``east.throttle-show.json``, and a ``throttle
    show --from results/`` reads it as the ``log-dirs`` result it is."""
    name = path.name
    for suffix, file_kind in SUFFIXES.items():
        if name.endswith(suffix):
            return ResultFile(str(path), file_kind, name[: -len(suffix)])
    return ResultFile(str(path), held_kind(path, kind), name[: -len(".json")])


_KIND_OF = {f"a {command} result": file_kind for file_kind, command in COMMANDS.items()}


def held_kind(path: Path, kind: str) -> str:
    """The command whose result a bare ``<cluster>.json`` holds: ``kind`` unless the document
    is recognisably another command's result (``rows.looks_like``). A log-dirs run does not look
    (its files may be large, and its bare files are its own results); a file that cannot be read
    or parsed stays ``kind`` (its reader reports why)."""
    if kind == LOG_DIRS_KIND:
        return kind
    try:
        with open(path, "rb") as fh:
            doc = json.load(fh)
    except (OSError, ValueError, RecursionError):
        return kind
    return _KIND_OF.get(looks_like(doc) or "", kind)


def discover(directory: str | Path, kind: str) -> list[ResultFile]:
    """The result files in ``directory`` (not recursive), sorted by name."""
    d = Path(directory)
    if not d.is_dir():
        raise InputError(f"--from {directory}: not a directory")
    files = [classify(p, kind) for p in sorted(d.glob("*.json")) if p.is_file()]
    seen: dict[tuple[str, str], str] = {}
    for f in files:
        other = seen.setdefault((f.cluster, f.kind), f.name)
        if other != f.name:
            raise InputError(
                f"--from {directory}: {other} and {f.name} both hold the {f.kind} result of cluster {f.cluster!r}"
            )
    if not any(f.kind == kind for f in files):
        others = [f for f in files if f.kind != kind and not f.name.endswith(tuple(SUFFIXES))]
        held = "".join(f"; {f.name} holds a {COMMANDS[f.kind]} result" for f in others[:3])
        raise InputError(
            f"--from {directory}: no result files of this command{held}{'; ...' if len(others) > 3 else ''}",
            hint=f"expected <cluster>.json files written by `{COMMANDS[kind]} --output json`",
        )
    return files


def read_rows(f: ResultFile) -> Rows:
    """Rows of one file; an unreadable file becomes an error row for its cluster. The reader of
    every result file in both engines (the Spark engine's pyarrow reader of log-dirs files hands
    it every file it cannot parse or is not sure of), so both give the same rows and reasons."""
    try:
        with open(f.path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        return error_rows(f.cluster, None, f.name, f"cannot read {f.name}: {e.strerror or e}")
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as e:
        return error_rows(f.cluster, None, f.name, why_not_json(data, e))
    return document_rows(f.kind, f.cluster, f.name, doc)


# What a file's result holds of a cluster, which no other file may hold too:
# (table, key, file name) (``claims``).
Claim = tuple[str, tuple, str]


def claims(f: ResultFile, rows: Rows) -> set[Claim]:
    """What a file's rows hold that no other file may hold too (it would be counted once per
    file): the input of ``overlaps``. A ``log-dirs describe`` result may hold some of a cluster
    (``--broker-list``, or brokers collected apart): each of its log directories,
    ("log_dirs", (cluster, broker, path), file). A ``reassign list`` or ``throttle show``
    result is a whole cluster's: the cluster, ("clusters", (cluster, kind), file)."""
    if f.kind == LOG_DIRS_KIND:
        return {("log_dirs", (d[0], d[1], d[3]), f.name) for d in rows["log_dirs"]}
    return {("clusters", (c[0], f.kind), f.name) for c in rows["clusters"] if c[1] == f.kind}


# A key of a row table that one file holds more than once: (table, key) (``tables.KEYS``).
Duplicate = tuple[str, tuple]

# Each keyed table -> a function giving a row's key.
_KEY_OF = {
    table: itemgetter(*(column_names(ROW_TABLES[table]).index(c) for c in columns)) for table, columns in KEYS.items()
}


def duplicates(rows: Rows) -> list[Duplicate]:
    """The keys (``tables.KEYS``) that one file's rows hold more than once, whatever command's
    result the file holds (a broker, a directory, a replica, a reassignment or a throttle written
    twice): each would be counted once per copy. A replica of a directory listed twice is named
    by its directory. The input of ``check_duplicates``; both engines compute it from the same
    rows (the Spark engine's fast reader hands such a file to ``read_rows``)."""
    found = []
    for table, key_of in _KEY_OF.items():
        counts = Counter(map(key_of, rows[table]))
        if len(counts) < len(rows[table]):
            found += [(table, key) for key, n in counts.items() if n > 1]
    dirs = {key for table, key in found if table == "log_dirs"}
    return [(table, key) for table, key in found if not (table == "replicas" and key[:3] in dirs)]


# How problems name the keys of each table: one, several, and the kind of thing in a heading.
_NOUNS = {
    "log_dirs": ("log directory", "log directories", "log directories"),
    "replicas": ("replica", "replicas", "replicas"),
    "reassignments": ("reassignment of", "reassignments of", "reassignments"),
    "throttles": ("throttle", "throttles", "throttles"),
}


def _named(table: str, key: tuple) -> tuple[str, int | None, str]:
    """(cluster, broker or None, what) of a key, as a problem names it."""
    if table == "log_dirs":
        cluster, broker, path = key
        return cluster, broker, path
    if table == "replicas":
        cluster, broker, path, topic, partition, future = key
        return cluster, broker, f"{topic}-{partition}{' (future)' if future else ''} in {path}"
    if table == "reassignments":
        cluster, topic, partition = key
        return cluster, None, f"{topic}-{partition}"
    cluster, resource, entity, config = key
    return cluster, None, f"{config} of {resource} {entity}"


def _heading_nouns(tables: Iterable[str]) -> str:
    """The kinds of things of ``tables`` for a heading, in ``KEYS`` order: "log directories or
    replicas"."""
    present = set(tables)
    found = [_NOUNS[table][2] for table in KEYS if table in present]
    return found[0] if len(found) == 1 else f"{', '.join(found[:-1])} or {found[-1]}"


def duplicate_problems(found: Iterable[tuple[str, Duplicate]]) -> list[str]:
    """(file name, duplicate) -> one problem per file, cluster and broker (reassignments and
    throttles: per file and cluster), naming what is listed more than once."""
    named: dict[tuple[str, str, int | None], dict[str, set[str]]] = {}
    for source, (table, key) in found:
        cluster, broker, what = _named(table, key)
        named.setdefault((source, cluster, broker), {}).setdefault(table, set()).add(what)
    out = []
    for (source, cluster, broker), tables in sorted(named.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or 0)):
        listed = [
            f"{_NOUNS[table][0 if len(tables[table]) == 1 else 1]} {', '.join(sorted(tables[table]))}"
            for table in KEYS
            if table in tables
        ]
        where = f"cluster {cluster!r}" + ("" if broker is None else f" broker {broker}")
        out.append(f"{source}: {where}: {' and '.join(listed)} listed more than once")
    return out


def check_duplicates(directory: str, found: Iterable[tuple[str, Duplicate]]) -> None:
    """InputError listing everything that a file lists more than once."""
    found = list(found)
    problems = duplicate_problems(found)
    if problems:
        raise InputError(
            f"--from {directory}: a file lists the same {_heading_nouns(table for _, (table, _) in found)} more than once: "
            "they would be counted once per copy (keep one)",
            problems,
        )


def _shared(found: Iterable[Claim]) -> dict[tuple[str, tuple], list[str]]:
    """(table, key) -> the files, when more than one file holds it (``claims``)."""
    files: dict[tuple[str, tuple], set[str]] = {}
    for table, key, source in found:
        files.setdefault((table, key), set()).add(source)
    return {claim: sorted(names) for claim, names in sorted(files.items()) if len(names) > 1}


def overlaps(found: Iterable[Claim]) -> list[str]:
    """What more than one file holds (``claims``): it would be counted once per file. One
    problem per broker and set of files, naming the log directories (a broker's directories may
    be spread over files, each in one); one per cluster whose result is in several files."""
    dirs: dict[tuple[str, int, tuple[str, ...]], list[str]] = {}
    results = []
    for (table, key), names in _shared(found).items():
        if table == "log_dirs":
            cluster, broker, path = key
            dirs.setdefault((cluster, broker, tuple(names)), []).append(path)
        else:
            cluster, kind = key
            results.append(
                f"cluster {cluster!r}: {' and '.join(names)} {'both' if len(names) == 2 else 'all'} hold its "
                f"{COMMANDS[kind]} result: a cluster's result is read from one file only (keep one of them)"
            )
    return [
        f"cluster {cluster!r} broker {broker}: {', '.join(sorted(paths))} in {' and '.join(names)}: a directory is "
        "counted from one file only (keep it in one of them)"
        for (cluster, broker, names), paths in sorted(dirs.items())
    ] + results


def check_overlaps(directory: str, found: Iterable[Claim]) -> None:
    """InputError listing every log directory, or cluster's result, that more than one file holds."""
    found = list(found)
    problems = overlaps(found)
    if problems:
        tables = {table for table, _ in _shared(found)}
        nouns = [
            noun
            for table, noun in (("log_dirs", "log directories"), ("clusters", "cluster results"))
            if table in tables
        ]
        raise InputError(f"--from {directory}: the same {' or '.join(nouns)} are in more than one file", problems)
