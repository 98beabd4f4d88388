"""The log-dirs reports computed file by file, where the file is read (the Spark fast path).

Every log-dirs report groups by cluster or finer (broker, directory, partition), so while each
cluster comes from one file, the reports of a fleet are the reports of its files put together.
A Spark task then turns each file it is given into that file's final report rows: pyarrow
parses the file (or reads its columnar copy, ``arrow.py``) and keeps of its replica rows only
those the reports can use (``arrow.for_log_dirs_reports``: the ``top`` largest and the moves in
flight), and the few remaining rows go through the plain-Python report functions of
``local.py``, so both engines share the arithmetic exactly. The driver only concatenates the
pieces and orders each report (``Report.of``).

When two files name the same cluster the pieces are not the reports (a broker's directories,
or a move's two replicas, may sit in different files): ``assemble`` says so with None and the
Spark engine falls back to its general path (``spark.log_dirs_reports``). So it does when a
file (any result, also one beside the log-dirs results) lists something more than once
(``files.duplicates``), or two results beside them hold the same cluster's (``files.claims``):
the general path refuses the run, naming what.

Other files in a log-dirs run (``<cluster>.reassign-list.json`` and the like) add only their
read errors to the ``unreachable`` report, as in the plain-Python engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from kadmin.fleet import local
from kadmin.fleet import tables as t
from kadmin.fleet.files import ResultFile
from kadmin.fleet.report import Report, sort_rows

# The reports whose rows come from each file (every log-dirs report).
REPORT_NAMES = tuple(spec.name for spec in t.REPORTS["log-dirs"])

# The piece of a file listing something more than once (``files.duplicates``).
REPEATED = "repeated"

# One file's contribution: the (cluster, kind) of each result it holds (of its log-dirs result,
# or of another command's beside it), and its rows of each report.
Piece = tuple[list[tuple[str, str]], dict[str, list[tuple]]]


def _rows(table, tag: str, columns: Iterable[str]) -> list[tuple]:
    import pyarrow.compute as pc

    part = table.filter(pc.equal(table.column("tag"), tag)).select(list(columns))
    return list(zip(*(column.to_pylist() for column in part.columns)))


def table_piece(table, top: int) -> Piece:
    """The report rows of one file's tagged table (``arrow.TAGGED``), exact while the file
    holds all of its cluster."""
    from kadmin.fleet.arrow import for_log_dirs_reports

    table = for_log_dirs_reports(table, top)
    # a "c" row: the cluster, its kind (in the status column) and the file it came from
    results = _rows(table, "c", ["cluster", "status", "source"])
    clusters = [(row[0], "log-dirs") for row in results]
    if _rows(table, "x", ["cluster"]):
        return clusters, {REPEATED: []}  # refused on the general path, which names what is repeated
    log_dirs = _rows(table, "d", t.column_names(t.LOG_DIRS))
    replicas = _rows(table, "r", t.column_names(t.REPLICAS))
    errors = _rows(table, "e", t.column_names(t.ERRORS))
    unread = local.unanswered(errors, results)
    brokers = local.broker_usage(log_dirs, unread)
    rows = {
        t.CLUSTER_USAGE.name: local.cluster_usage(log_dirs, brokers, unread),
        t.BROKER_USAGE.name: brokers,
        t.DIR_USAGE.name: local.dir_usage(log_dirs),
        t.LARGEST_PARTITIONS.name: local.largest_partitions(replicas, top),
        t.MOVES_IN_FLIGHT.name: local.moves_in_flight(replicas),
        t.UNAVAILABLE_DIRS.name: local.unavailable_dirs(log_dirs),
        t.UNREACHABLE.name: local.unreachable(errors),
    }
    return clusters, _sorted(rows)


def _sorted(rows: dict[str, list[tuple]]) -> dict[str, list[tuple]]:
    """Each report's rows in its total order (in the task: see ``assemble``)."""
    specs = {spec.name: spec for spec in t.REPORTS["log-dirs"]}
    return {name: sort_rows(specs[name], part) for name, part in rows.items()}


def file_piece(f: ResultFile, top: int, cache: bool = True) -> Piece:
    """One input file's piece: a log-dirs result through pyarrow; any other file (a result of
    another command beside it) gives only its read errors, or says it lists something more than
    once."""
    if f.kind != "log-dirs":
        from kadmin.fleet.files import claims, duplicates, read_rows

        rows = read_rows(f)
        held = [key for _, key, _ in claims(f, rows)]
        if duplicates(rows):
            return held, {REPEATED: []}
        return held, _sorted({t.UNREACHABLE.name: rows["errors"]})
    from kadmin.fleet.arrow import load_log_dirs_file

    return table_piece(load_log_dirs_file(f.path, f.cluster, f.name, cache), top)


def pieces(files: Iterable[ResultFile], top: int, cache: bool = True) -> Iterator[Piece]:
    """``mapPartitions`` function: the pieces of the files of one task."""
    for f in files:
        yield file_piece(f, top, cache)


def assemble(parts: Iterable[Piece]) -> list[Report] | None:
    """The log-dirs reports from every file's piece, in ``t.REPORTS`` order; None when a
    cluster's log-dirs result came from more than one file (the pieces are then not exact), or a
    file lists something more than once, or two files hold the same cluster's result of another
    command (the general path refuses those, naming them)."""
    names: list[tuple[str, str]] = []
    runs: dict[str, list[list[tuple]]] = {name: [] for name in REPORT_NAMES}
    for clusters, part in parts:
        names.extend(clusters)
        if REPEATED in part:
            return None
        for name, part_rows in part.items():
            if part_rows:
                runs[name].append(part_rows)
    if len(names) != len(set(names)):
        return None
    return [_merged(spec, runs[spec.name]) for spec in t.REPORTS["log-dirs"]]


def _merged(spec: t.ReportSpec, runs: list[list[tuple]]) -> Report:
    """One report from runs each already in its order. A report ordered by cluster first,
    whose runs each hold one cluster and no two the same: the runs ordered by their cluster
    (no per-row work in the driver: ``moves_in_flight`` has a row per future replica).
    Otherwise all rows sorted again."""
    at = t.column_names(spec.columns).index("cluster")
    by_cluster = spec.order[0] == "cluster" and "cluster" not in spec.descending and spec.ranked is None
    heads = [run[0][at] for run in runs]
    if (
        by_cluster
        and None not in heads
        and len(set(heads)) == len(heads)
        and all(run[-1][at] == head for run, head in zip(runs, heads))
    ):
        ordered = sorted(zip(heads, range(len(runs))))
        return Report(spec, tuple(row for _, i in ordered for row in runs[i]))
    return Report.of(spec, [row for run in runs for row in run])
