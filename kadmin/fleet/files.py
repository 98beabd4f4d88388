"""``--from DIR``: earlier ``--output json`` results, one file per cluster.

``<cluster>.json`` holds the result of the command being run (``log-dirs describe``,
``reassign list`` or ``throttle show``). Results of the other commands may sit beside it as
``<cluster>.log-dirs.json``, ``<cluster>.reassign-list.json`` and ``<cluster>.throttle-show.json``:
they add what one command alone cannot see (replica sizes for reassignment progress,
moves for throttle staleness). A ``"cluster"`` key in a document overrides the file name.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kadmin.errors import InputError
from kadmin.fleet.rows import Rows, document_rows, error_rows

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
    name = path.name
    for suffix, file_kind in SUFFIXES.items():
        if name.endswith(suffix):
            return ResultFile(str(path), file_kind, name[: -len(suffix)])
    return ResultFile(str(path), kind, name[: -len(".json")])


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
        raise InputError(
            f"--from {directory}: no result files of this command",
            hint="expected <cluster>.json files written by `--output json`",
        )
    return files


def read_rows(f: ResultFile) -> Rows:
    """Rows of one file; an unreadable file becomes an error row for its cluster. The reader of
    every result file in both engines (the Spark engine's pyarrow reader of log-dirs files hands
    it every file it cannot parse or is not sure of), so both give the same rows and reasons."""
    try:
        with open(f.path, "rb") as fh:
            doc = json.load(fh)
    except OSError as e:
        return error_rows(f.cluster, None, f.name, f"cannot read {f.name}: {e.strerror or e}")
    except ValueError as e:  # also not UTF-8
        return error_rows(f.cluster, None, f.name, f"not valid JSON: {e}")
    return document_rows(f.kind, f.cluster, f.name, doc)


def dir_sources(f: ResultFile, rows: Rows) -> set[tuple[str, int, str, str]]:
    """(cluster, broker, directory, file) of every log directory a file's rows describe: the
    input of ``overlaps``."""
    return {(d[0], d[1], d[3], f.name) for d in rows["log_dirs"]}


# A log directory (topic, partition and is_future None) or a replica one file lists more than once:
# (cluster, broker, path, topic, partition, is_future).
Duplicate = tuple[str, int, str, "str | None", "int | None", "bool | None"]


def duplicates(rows: Rows) -> list[Duplicate]:
    """The log directories, and the replicas of the other directories, that one file's rows hold
    more than once (a broker or a directory written twice): each would be counted once per copy.
    The input of ``check_duplicates``; both engines compute it from the same rows (the Spark
    engine's fast reader hands such a file to ``read_rows``)."""
    dirs = Counter((d[0], d[1], d[3]) for d in rows["log_dirs"])
    twice = {key for key, n in dirs.items() if n > 1}
    replicas = Counter(
        (r[0], r[1], r[2], r[3], r[4], bool(r[7])) for r in rows["replicas"] if (r[0], r[1], r[2]) not in twice
    )
    found: list[Duplicate] = [(c, b, p, None, None, None) for c, b, p in twice]
    found += [key for key, n in replicas.items() if n > 1]
    return found


def duplicate_problems(found: Iterable[tuple[str, Duplicate]]) -> list[str]:
    """(file name, duplicate) -> one problem per file, cluster and broker, naming the directories
    and replicas listed more than once."""
    dirs: dict[tuple[str, str, int], set[str]] = {}
    replicas: dict[tuple[str, str, int], set[str]] = {}
    for source, (cluster, broker, path, topic, partition, future) in found:
        if topic is None:
            dirs.setdefault((source, cluster, broker), set()).add(path)
        else:
            where = f"{topic}-{partition}{' (future)' if future else ''} in {path}"
            replicas.setdefault((source, cluster, broker), set()).add(where)
    out = []
    for key in sorted(set(dirs) | set(replicas)):
        source, cluster, broker = key
        what = []
        if key in dirs:
            what.append(f"log director{'y' if len(dirs[key]) == 1 else 'ies'} {', '.join(sorted(dirs[key]))}")
        if key in replicas:
            what.append(f"replica{'' if len(replicas[key]) == 1 else 's'} {', '.join(sorted(replicas[key]))}")
        out.append(f"{source}: cluster {cluster!r} broker {broker}: {' and '.join(what)} listed more than once")
    return out


def check_duplicates(directory: str, found: Iterable[tuple[str, Duplicate]]) -> None:
    """InputError listing every log directory or replica that a file lists more than once."""
    problems = duplicate_problems(found)
    if problems:
        raise InputError(
            f"--from {directory}: a file lists the same log directories or replicas more than once: they would be "
            "counted once per copy (keep one)",
            problems,
        )


def overlaps(found: Iterable[tuple[str, int, str, str]]) -> list[str]:
    """Log directories of a cluster's broker described by more than one file: they would be
    counted once per file. (A broker's directories may be spread over files, each in one.)
    One problem per broker and set of files, naming the directories."""
    files: dict[tuple[str, int, str], set[str]] = {}
    for cluster, broker, path, source in found:
        files.setdefault((cluster, broker, path), set()).add(source)
    shared: dict[tuple[str, int, tuple[str, ...]], list[str]] = {}
    for (cluster, broker, path), names in files.items():
        if len(names) > 1:
            shared.setdefault((cluster, broker, tuple(sorted(names))), []).append(path)
    return [
        f"cluster {cluster!r} broker {broker}: {', '.join(sorted(paths))} in {' and '.join(names)}: a directory is "
        "counted from one file only (keep it in one of them)"
        for (cluster, broker, names), paths in sorted(shared.items())
    ]


def check_overlaps(directory: str, found: Iterable[tuple[str, int, str, str]]) -> None:
    """InputError listing every log directory that more than one file describes."""
    problems = overlaps(found)
    if problems:
        raise InputError(f"--from {directory}: the same log directories are in more than one file", problems)
