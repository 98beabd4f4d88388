"""Reading ``log-dirs describe`` result files with pyarrow's JSON reader, flattened in Arrow.

The Spark engine runs this in its tasks: pyarrow parses in C++ without per-row Python work,
several times faster here than Spark's own reader of whole-file JSON. One pass yields every
table of a file as one "tagged" Arrow table (``TAGGED`` columns). The per-file path
(``per_file.py``) turns it into the file's report rows in the task; the general path hands it
to the JVM (``mapInArrow``), which caches it once and splits it by ``tag``.

- a columnar copy: the tagged table of each file is kept as Parquet in ``.kadmin-cache/`` next
  to the input, named after the file, its size and its modification time, so a report over the
  same fleet reads Parquet instead of parsing JSON again, and a changed file is parsed anew;
- a file the fast reader cannot parse, or is not sure of (not JSON, a value of another type,
  a null where the reports need a value, an unknown status, no broker) is read by the
  plain-Python reader instead (``reference_table``), which
  decides and says why: both engines give the same rows and reasons for the same file;
- a file listing a log directory or a replica more than once is read by the plain-Python reader
  too, whose tagged table then holds an "x" row for each (``files.duplicates``): the run is
  refused (``files.check_duplicates``) rather than counting them twice;
- the log-dirs reports need of a file's replica rows only its largest ``top`` (per cluster) and
  the moves in flight (future replicas and the current replicas they copy): the per-file path
  keeps those and drops the rest before any report arithmetic (``for_log_dirs_reports``).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

from kadmin.fleet.tables import LOG_DIRS, REPLICAS, column_names

# tag: "c" a cluster's file was read, "e" an error, "d" a log directory, "r" a replica, "x" a log
# directory (topic null) or replica the file lists more than once (``files.duplicates``).
TAGGED = (
    ("tag", "string"),
    ("cluster", "string"),
    ("broker", "int"),
    ("rack", "string"),
    ("path", "string"),
    ("status", "string"),
    ("error", "string"),
    ("used_bytes", "long"),
    ("total_bytes", "long"),
    ("usable_bytes", "long"),
    ("replica_count", "int"),
    ("future_replica_count", "int"),
    ("topic", "string"),
    ("partition", "int"),
    ("size", "long"),
    ("offset_lag", "long"),
    ("is_future", "boolean"),
    ("source", "string"),
)


def _types():
    import pyarrow as pa

    return {"string": pa.string(), "int": pa.int32(), "long": pa.int64(), "boolean": pa.bool_()}


def tagged_schema():
    import pyarrow as pa

    types = _types()
    return pa.schema([(n, types[t]) for n, t in TAGGED])


def document_schema():
    """What the reports read of schemas/log-dirs-describe.json (other keys are ignored)."""
    import pyarrow as pa

    replica = pa.struct(
        [
            ("topic", pa.string()),
            ("partition", pa.int32()),
            ("size", pa.int64()),
            ("offset_lag", pa.int64()),
            ("is_future", pa.bool_()),
        ]
    )
    log_dir = pa.struct(
        [
            ("path", pa.string()),
            ("status", pa.string()),
            ("error", pa.string()),
            ("used_bytes", pa.int64()),
            ("total_bytes", pa.int64()),
            ("usable_bytes", pa.int64()),
            ("replica_count", pa.int32()),
            ("future_replica_count", pa.int32()),
            ("replicas", pa.list_(replica)),
        ]
    )
    broker = pa.struct(
        [("broker", pa.int32()), ("rack", pa.string()), ("error", pa.string()), ("log_dirs", pa.list_(log_dir))]
    )
    return pa.schema([("cluster", pa.string()), ("brokers", pa.list_(broker))])


def _tagged(tag: str, n: int, columns: dict):
    """A tagged table of ``n`` rows: the given columns, nulls elsewhere."""
    import pyarrow as pa

    schema = tagged_schema()
    arrays = []
    for field in schema:
        if field.name == "tag":
            arrays.append(pa.repeat(pa.scalar(tag, pa.string()), n))
        elif field.name in columns:
            value = columns[field.name]
            arrays.append(
                value.cast(field.type)
                if isinstance(value, (pa.Array, pa.ChunkedArray))
                else pa.repeat(pa.scalar(value, field.type), n)
            )
        else:
            arrays.append(pa.nulls(n, field.type))
    arrays = [a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a for a in arrays]
    return pa.Table.from_arrays(arrays, schema=schema)


def _fields(struct_array) -> dict:
    """A struct array's children by name (``flatten`` honours the array's offset and nulls)."""
    return {f.name: child for f, child in zip(struct_array.type, struct_array.flatten())}


def read_log_dirs_file(path: str, stem: str, name: str):
    """One result file as a tagged Arrow table; an unusable file is one error row."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pj

    try:
        size = os.path.getsize(path)
        doc = pj.read_json(
            path,
            read_options=pj.ReadOptions(block_size=max(size + 16, 1 << 16)),
            parse_options=pj.ParseOptions(
                explicit_schema=document_schema(), newlines_in_values=True, unexpected_field_behavior="ignore"
            ),
        )
    except (OSError, pa.ArrowInvalid):
        # Not JSON, not the types the schema says, or not readable: the reference reader says why.
        return reference_table(path, stem)
    brokers_list = doc.column("brokers").combine_chunks() if doc.num_rows == 1 else None
    if brokers_list is None or brokers_list.null_count or not len(pc.list_flatten(brokers_list)):
        return reference_table(path, stem)
    cluster = doc.column("cluster")[0].as_py() or stem

    parts = [_tagged("c", 1, {"cluster": cluster, "source": name, "status": "log-dirs"})]
    brokers = _fields(pc.list_flatten(brokers_list))
    b_id, b_error = brokers["broker"], brokers["error"]
    failed = pc.fill_null(pc.and_(pc.is_valid(b_error), pc.not_equal(b_error, "")), False)
    if pc.any(failed).as_py():
        parts.append(
            _tagged(
                "e",
                pc.sum(failed).as_py(),
                {
                    "cluster": cluster,
                    "source": name,
                    "broker": b_id.filter(failed),
                    "error": b_error.filter(failed),
                },
            )
        )

    dirs_list = brokers["log_dirs"]
    d_parent = pc.list_parent_indices(dirs_list)
    flat_dirs = pc.list_flatten(dirs_list)
    n_dirs = len(flat_dirs)
    dirs = _fields(flat_dirs)
    d_broker, d_rack = pc.take(b_id, d_parent), pc.take(brokers["rack"], d_parent)
    reps_list = dirs["replicas"]
    r_parent = pc.list_parent_indices(reps_list)
    flat_reps = pc.list_flatten(reps_list)
    reps = _fields(flat_reps)
    is_future = pc.fill_null(reps["is_future"], False)

    used, count, futures = dirs["used_bytes"], dirs["replica_count"], dirs["future_replica_count"]
    if _incomplete(b_id, brokers["log_dirs"], dirs, reps) or _repeated(
        d_broker, dirs["path"], r_parent, reps, is_future
    ):
        return reference_table(path, stem)
    if used.null_count or count.null_count or futures.null_count:  # rebuilt from the replicas
        sums = (
            pa.table(
                {
                    "d": r_parent,
                    "size": reps["size"],
                    "cur": pc.cast(pc.invert(is_future), pa.int32()),
                    "fut": pc.cast(is_future, pa.int32()),
                }
            )
            .group_by("d")
            .aggregate([("size", "sum"), ("cur", "sum"), ("fut", "sum")])
        )
        idx = pc.index_in(pa.array(range(n_dirs), pa.int32()), sums.column("d").cast(pa.int32()))

        def filled(col, agg, kind):
            return pc.coalesce(col, pc.fill_null(pc.take(sums.column(agg), idx), 0).cast(kind))

        used = filled(used, "size_sum", pa.int64())
        count = filled(count, "cur_sum", pa.int32())
        futures = filled(futures, "fut_sum", pa.int32())

    status, error = dirs["status"], dirs["error"]
    # A directory with an error: its contents are unknown, whatever the file says (a file kadmin
    # wrote before it said null says 0): null, as the plain-Python reader gives.
    used, count, futures = (pc.if_else(pc.is_valid(error), pa.scalar(None, a.type), a) for a in (used, count, futures))
    status = pc.coalesce(status, pc.if_else(pc.is_valid(error), "offline", "online"))
    parts.append(
        _tagged(
            "d",
            n_dirs,
            {
                "cluster": cluster,
                "source": name,
                "broker": d_broker,
                "rack": d_rack,
                "path": dirs["path"],
                "status": status,
                "error": error,
                "used_bytes": used,
                "total_bytes": dirs["total_bytes"],
                "usable_bytes": dirs["usable_bytes"],
                "replica_count": count,
                "future_replica_count": futures,
            },
        )
    )
    parts.append(
        _tagged(
            "r",
            len(flat_reps),
            {
                "cluster": cluster,
                "broker": pc.take(d_broker, r_parent),
                "path": pc.take(dirs["path"], r_parent),
                "topic": reps["topic"],
                "partition": reps["partition"],
                "size": reps["size"],
                # unknown (null, left out, or Kafka's -1) is null, as rows._lag has it
                "offset_lag": pc.if_else(
                    pc.less(reps["offset_lag"], 0), pa.scalar(None, pa.int64()), reps["offset_lag"]
                ),
                "is_future": is_future,
            },
        )
    )
    return pa.concat_tables(parts)


def _incomplete(b_id, dirs_list, dirs: dict, reps: dict) -> bool:
    """Whether the parsed file lacks something the reports need (a null where a value must be,
    a negative count, an unknown status): the reference reader then decides
    (``rows.log_dirs_document_rows``), so both engines say the same of the same file."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def negative(array) -> bool:
        return bool(len(array)) and bool(pc.any(pc.less(array, 0)).as_py())

    required = [b_id, dirs_list, dirs["path"], reps["topic"], reps["partition"], reps["size"]]
    if any(a.null_count for a in required):
        return True
    counts = [b_id, reps["partition"], reps["size"], dirs["used_bytes"], dirs["replica_count"]]
    if any(negative(a) for a in [*counts, dirs["future_replica_count"]]):
        return True
    status = dirs["status"]
    known = pc.is_in(status, value_set=pa.array(["online", "offline", "cordoned"]))
    return bool(len(status)) and not pc.all(pc.or_kleene(known, pc.is_null(status))).as_py()


def _repeated(d_broker, d_path, r_parent, reps: dict, is_future) -> bool:
    """Whether the file lists a log directory of a broker, or a replica of a directory, more than
    once (the keys of ``tables.KEYS``, in Arrow): the reference reader then names them
    (``files.duplicates``)."""
    import pyarrow as pa

    dirs = pa.table({"b": d_broker, "p": d_path})
    if dirs.group_by(["b", "p"]).aggregate([]).num_rows != dirs.num_rows:
        return True
    keys = pa.table({"d": r_parent, "t": reps["topic"], "n": reps["partition"], "f": is_future})
    return keys.group_by(["d", "t", "n", "f"]).aggregate([]).num_rows != keys.num_rows


def reference_table(path: str, stem: str):
    """The tagged table of what the plain-Python reader makes of the file (the reference,
    ``files.read_rows``): for the files the fast reader is not sure of."""
    from kadmin.fleet.files import ResultFile, duplicates, read_rows

    f = ResultFile(path, "log-dirs", stem)
    rows = read_rows(f)
    return rows_table(rows, f.name, [repeated_row(d) for d in duplicates(rows)])


# The columns of an "x" row: a log directory (topic, partition and is_future null) or a replica.
REPEATED_COLUMNS = ("cluster", "broker", "path", "topic", "partition", "is_future")


def repeated_row(found: tuple[str, tuple]) -> tuple:
    """The ``REPEATED_COLUMNS`` of a log directory or replica a file lists more than once
    (``files.duplicates``: (table, key))."""
    table, key = found
    return key if table == "replicas" else (*key, None, None, None)


def repeated_key(row: tuple) -> tuple[str, tuple]:
    """``repeated_row`` undone: an "x" row's ``REPEATED_COLUMNS`` -> (table, key)."""
    return ("log_dirs", tuple(row[:3])) if row[3] is None else ("replicas", tuple(row))


def rows_table(rows, source: str, repeated=()):
    """Rows of one log-dirs file (``rows.Rows``), ``source`` its name, as one tagged table;
    ``repeated``: what the file lists more than once (``repeated_row``), as "x" rows."""
    import pyarrow as pa

    def table(tag: str, names, found, **more) -> list:
        if not found:
            return []
        columns = dict(zip(names, zip(*found)))
        types = _types()
        kinds = dict(TAGGED)
        arrays = {n: pa.array(list(v), types[kinds[n]]) for n, v in columns.items()}
        return [_tagged(tag, len(found), {**arrays, **more})]

    parts = [
        *table("c", ("cluster", "status", "source"), rows["clusters"]),
        *table("e", ("cluster", "broker", "source", "error"), rows["errors"]),
        *table("d", column_names(LOG_DIRS), rows["log_dirs"], source=source),
        *table("r", column_names(REPLICAS), rows["replicas"]),
        *table("x", REPEATED_COLUMNS, list(repeated), source=source),
    ]
    return pa.concat_tables(parts) if parts else _tagged("c", 0, {})


# ---- the columnar copy ------------------------------------------------------------------------

CACHE_DIR = ".kadmin-cache"
CACHE_FORMAT = 6  # bumped when the tagged table or what it holds changes: older copies are parsed again
DICTIONARY_COLUMNS = ["tag", "cluster", "rack", "path", "status", "error", "source"]


def copy_path(path: str) -> Path:
    """Where the columnar copy of ``path`` lives: keyed by its name, size and mtime (OSError if
    the file cannot be examined)."""
    st = os.stat(path)
    p = Path(path)
    return p.parent / CACHE_DIR / f"{p.name}@{st.st_size}-{st.st_mtime_ns}.v{CACHE_FORMAT}.parquet"


def _write_copy(target: Path, name: str, table) -> None:
    """Write the copy atomically and remove older copies of the same file; a directory that
    cannot be written only means no copy."""
    import pyarrow.parquet as pq

    tmp = target.parent / f".{uuid.uuid4().hex}.tmp"
    try:
        target.parent.mkdir(exist_ok=True)
        # Dictionaries only for the few-valued columns (on topics and sizes they cost time and
        # space); no statistics (nothing filters on them): the copy writes in half the time.
        pq.write_table(table, tmp, compression="zstd", use_dictionary=DICTIONARY_COLUMNS, write_statistics=False)
        os.replace(tmp, target)
        for old in target.parent.glob("*.parquet"):
            if old != target and old.name.rsplit("@", 1)[0] == name:
                old.unlink(missing_ok=True)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def load_log_dirs_file(path: str, stem: str, name: str, cache: bool = True):
    """``read_log_dirs_file``, through the columnar copy when ``cache``: a copy matching the
    file's size and mtime is read instead of the JSON; otherwise the JSON is parsed and the copy
    written. A file that cannot be read is never cached (the next run tries it again)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not cache:
        return read_log_dirs_file(path, stem, name)
    try:
        target = copy_path(path)
    except OSError:
        return read_log_dirs_file(path, stem, name)
    if target.is_file():
        try:
            table = pq.read_table(target)
            if table.schema.equals(tagged_schema()):
                return table
        except (OSError, pa.ArrowInvalid):
            pass  # damaged or vanished: parse the JSON again
    table = read_log_dirs_file(path, stem, name)
    unreadable = (
        table.num_rows == 1
        and table.column("tag")[0].as_py() == "e"
        and table.column("error")[0].as_py().startswith("cannot read ")
    )
    if not unreadable:
        _write_copy(target, name, table)
    return table


# ---- narrowing for the log-dirs reports -------------------------------------------------------

# The order of ``largest_partitions`` (local.largest_partitions and the Spark window).
LARGEST_ORDER = [
    ("size", "descending"),
    ("topic", "ascending"),
    ("partition", "ascending"),
    ("broker", "ascending"),
    ("path", "ascending"),
    ("is_future", "ascending"),
]
MOVE_KEYS = ["broker", "topic", "partition"]


def for_log_dirs_reports(table, top: int):
    """The tagged table of one file with only the replica rows the log-dirs reports can use:
    the file's ``top`` largest (in the report's total order) and every future replica with the
    current replicas of the same broker and partition. Exact while a cluster's replicas come
    from one file (``per_file.assemble`` checks)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    is_rep = pc.equal(table.column("tag"), "r")
    # Decide on the few columns the choice needs; only the chosen rows are then taken whole.
    reps = table.select([*MOVE_KEYS, "size", "path", "is_future"]).filter(is_rep)
    if reps.num_rows <= top:
        return table
    keep = np.zeros(reps.num_rows, dtype=bool)
    keep[pc.select_k_unstable(reps, k=top, sort_keys=LARGEST_ORDER).to_numpy()] = True
    future = reps.column("is_future")
    if pc.any(future).as_py():
        keep |= future.to_numpy()
        positions = pa.array(np.arange(reps.num_rows, dtype=np.int64))
        sources = (
            reps.select(MOVE_KEYS)
            .append_column("_i", positions)
            .filter(pc.invert(future))
            .join(reps.filter(future).select(MOVE_KEYS), MOVE_KEYS, join_type="left semi")
        )
        keep[sources.column("_i").to_numpy()] = True
    chosen = np.flatnonzero(is_rep.to_numpy(zero_copy_only=False))[keep]
    return pa.concat_tables([table.filter(pc.invert(is_rep)), table.take(pa.array(chosen))])


def read_batches(batches: Iterator, cache: bool = True) -> Iterator:
    """``mapInArrow`` function: input rows (path, stem, name) -> tagged record batches."""
    for batch in batches:
        for path, stem, name in zip(*(batch.column(i).to_pylist() for i in range(3))):
            yield from load_log_dirs_file(path, stem, name, cache).to_batches(max_chunksize=1 << 16)
