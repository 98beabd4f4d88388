"""The fleet reports on Spark.

``log-dirs describe --from DIR`` with each cluster in one file (the usual case) takes the
per-file path: one Spark job whose tasks turn each file into its final report rows
(``per_file.py``); the driver only puts them together. Everything else takes the general path:

Rows become DataFrames with the schemas of ``tables.py``:
- ``log-dirs describe`` results are parsed by pyarrow in Spark tasks (one per file, handed to
  the JVM as Arrow batches through ``mapInArrow``; see ``arrow.py``), cached once;
- everything else (reassign and throttle results, live collection) comes from Python tasks:
  one per file, or one per cluster and then one per broker for live collection.

The usage, largest-partition and move reports are DataFrame aggregations over the replica and
directory tables. Reassignment and throttle reports first narrow the replica table with a join
(in Spark), then group the small per-cluster tables by cluster and run the per-cluster
functions of ``local.py`` inside Spark tasks, so both engines share that logic exactly.

pyspark is imported only inside these functions: ``kadmin --help`` never loads it.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from kadmin.errors import KadminError
from kadmin.fleet import local
from kadmin.fleet import tables as t
from kadmin.fleet.report import Report
from kadmin.fleet.rows import LOG_DIRS_KIND, Rows, empty_rows

DEFAULT_MASTER = "local[*]"
# Small by default: the driver only collects report rows; executors do the work.
DEFAULT_CONF = {
    "spark.driver.memory": "1g",
    "spark.executor.memory": "1g",
    "spark.sql.shuffle.partitions": "8",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.sql.session.timeZone": "UTC",
    # pyspark imported by the Python workers from the installed package, not recompiled from
    # Spark's zip in every fresh executor (spark_daemon.py)
    "spark.python.daemon.module": "kadmin.fleet.spark_daemon",
}

# Tasks per core for the per-file path: a few, so a slow file does not hold up the others.
FILE_TASKS_PER_CORE = 2

INSTALL_HINT = "install the Spark extra: pip install 'kadmin[spark]'"
# What --spark imports, each with the module that proves it works: py4j (pyspark's bridge to the
# JVM, a dependency of its own), pyspark's SQL layer (which imports py4j's submodules), and
# pandas, which pyspark's Arrow exchange (mapInArrow) insists on although no pandas code runs.
SPARK_MODULES = (
    ("py4j", "py4j.java_collections"),
    ("pyspark", "pyspark.sql"),
    ("pyarrow", "pyarrow"),
    ("pandas", "pandas"),
)


def require_pyspark() -> None:
    """UsageError with the install command when what --spark needs is missing, or installed but
    failing to import (a partial or broken install): one line naming it, not a traceback."""
    import importlib
    import importlib.util

    from kadmin.errors import UsageError

    for package, _ in SPARK_MODULES:
        if importlib.util.find_spec(package) is None:
            raise UsageError(f"--spark needs {package}, which is not installed", hint=INSTALL_HINT)
    for package, module in SPARK_MODULES:
        try:
            importlib.import_module(module)
        except Exception as e:  # ImportError mostly; a broken binary module may raise anything
            why = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
            raise UsageError(
                f"--spark needs {package}, which is installed but cannot be imported ({why})",
                hint="reinstall the Spark extra: pip install --force-reinstall 'kadmin[spark]'",
            ) from e


# Spark's own log lines off: stderr holds kadmin's lines alone, and kadmin says in one line of
# its own whatever went wrong in Spark. The driver JVM reads this file at its start. Spark prints
# its banner ("Using Spark's default log4j profile", "Setting default log level to WARN") only
# when the root logger has no appender, or when the logger of its Python gateway (the "shell"
# whose level it would impose) has no level of its own: both are given here.
QUIET_LOG4J2 = """\
status = error
rootLogger.level = off
rootLogger.appenderRef.stderr.ref = stderr
appender.stderr.type = Console
appender.stderr.name = stderr
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer
logger.gateway.level = off
"""
# Log4j's own equivalent of -Dlog4j2.configurationFile, read from the JVM's environment: unlike
# spark.driver.extraJavaOptions given by kadmin, it leaves the driver options of a
# spark-defaults.conf in place, and a -Dlog4j2.configurationFile of the user's still wins.
LOG4J2_ENV = "LOG4J_CONFIGURATION_FILE"


@functools.cache
def quiet_log4j2_file() -> str:
    """``QUIET_LOG4J2`` in a file of this process, removed at its exit (the driver JVM, which
    Spark may reconfigure from it, lives as long as this process)."""
    directory = tempfile.mkdtemp(prefix="kadmin-spark-")
    atexit.register(shutil.rmtree, directory, True)
    path = os.path.join(directory, "log4j2.properties")
    with open(path, "w", encoding="utf-8") as f:
        f.write(QUIET_LOG4J2)
    return path


@contextmanager
def _driver_environment(spark_logs: bool) -> Iterator[None]:
    """While the driver JVM starts: ``QUIET_LOG4J2`` unless ``spark_logs`` (``--debug``) or the
    user chose a Log4j configuration of their own (``LOG4J_CONFIGURATION_FILE``)."""
    if spark_logs or LOG4J2_ENV in os.environ:
        yield
        return
    os.environ[LOG4J2_ENV] = quiet_log4j2_file()
    try:
        yield
    finally:
        os.environ.pop(LOG4J2_ENV, None)


@contextmanager
def spark_session(
    master: str = DEFAULT_MASTER, conf: Mapping[str, str] | None = None, spark_logs: bool = False
) -> Iterator[Any]:
    """A SparkSession bound to loopback; stopped afterwards unless it already existed. Spark's
    own log lines stay off stderr unless ``spark_logs`` (``QUIET_LOG4J2``; they are set when the
    driver JVM starts, so a JVM this process already runs keeps its own)."""
    require_pyspark()
    probe_master(master)  # before anything else: an active session is not stopped for a dead master
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None and active.sparkContext.master == master:
        yield active  # the caller's session (tests, notebooks): theirs to stop
        return
    if active is not None:
        active.stop()  # one SparkContext per process: a different master needs a new one
    builder = SparkSession.builder.master(master).appName("kadmin fleet report")
    for key, value in {**DEFAULT_CONF, **(conf or {})}.items():
        builder = builder.config(key, value)
    builder = builder.config("spark.pyspark.python", sys.executable)
    try:
        with _driver_environment(spark_logs):
            spark = builder.getOrCreate()
    except Exception as e:  # the JVM would not start, or refused the settings: not a bug in kadmin
        if master.startswith("spark://") and "stopped SparkContext" in str(e):
            raise KadminError(_UNRESPONSIVE.format(master=master)) from None
        raise KadminError(f"Spark could not start (--spark-master {master}): {spark_error_line(e)}") from None
    try:
        yield spark
    except Exception:
        if master.startswith("spark://") and _stopped(spark):
            raise KadminError(_UNRESPONSIVE.format(master=master)) from None
        raise
    finally:
        spark.stop()


# Spark gives up on a master that never accepts the application (3 tries of 20 s, not
# configurable), stops the context, and says "Cannot call methods on a stopped SparkContext".
_UNRESPONSIVE = (
    "--spark-master {master}: the Spark master could not be reached (it accepts connections but did not "
    "take the application: is it a Spark master, and running?)"
)


MASTER_PROBE_SECONDS = 5.0


def probe_master(master: str, timeout: float = MASTER_PROBE_SECONDS) -> None:
    """KadminError (exit 1) at once when no address of a ``spark://`` master accepts a TCP
    connection: Spark itself would retry for about a minute before giving up."""
    import socket

    from kadmin.fleet.run import master_addresses

    addresses = master_addresses(master) or []
    failures = []
    for host, port in addresses:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                return
        except OSError as e:
            why = "timed out" if isinstance(e, TimeoutError) else e.strerror or str(e)
            failures.append(f"{host}:{port}: {why}")
    if failures:
        raise KadminError(f"--spark-master {master}: the Spark master could not be reached ({'; '.join(failures)})")


def spark_error_line(error: BaseException) -> str:
    """The one line that says why, from a Py4J or PySpark error (whose text holds a Java stack
    trace): the first ``...Exception: message`` line (the Java exception), else the first line."""
    import re

    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    causes = [
        m.group(1) for line in lines if (m := re.match(r"^:?\s*(?:[\w$]+\.)+[\w$]*(?:Exception|Error): (.+)$", line))
    ]
    if causes:
        return causes[0]
    return lines[0] if lines else type(error).__name__


def _stopped(spark) -> bool:
    try:
        return bool(spark.sparkContext._jsc is None or spark.sparkContext._jsc.sc().isStopped())
    except Exception:  # the JVM is gone: stopped too
        return True


# ---- schemas -------------------------------------------------------------------------------


def struct(columns: t.Columns):
    from pyspark.sql import types as T

    simple = {
        "string": T.StringType(),
        "int": T.IntegerType(),
        "long": T.LongType(),
        "double": T.DoubleType(),
        "boolean": T.BooleanType(),
        "array<int>": T.ArrayType(T.IntegerType()),
    }
    return T.StructType([T.StructField(name, simple[kind], True) for name, kind in columns])


# ---- loading ---------------------------------------------------------------------------------


class Frames:
    """The row tables as DataFrames (every table present, maybe empty)."""

    def __init__(self, spark, frames: dict[str, Any]):
        self.spark = spark
        self.frames = frames

    def __getitem__(self, name: str):
        return self.frames[name]


def frames_from_rows(spark, rows: Rows, parallelism: int | None = None) -> Frames:
    """DataFrames from rows already in the driver (tests, small inputs)."""
    return Frames(
        spark, {name: spark.createDataFrame(rows.get(name, []), struct(cols)) for name, cols in t.ROW_TABLES.items()}
    )


def _frames_from_tagged(spark, tagged) -> Frames:
    """``tagged``: an RDD of (table, row). One DataFrame per table."""
    tagged = tagged.cache()
    frames = {}
    for name, cols in t.ROW_TABLES.items():
        rdd = tagged.filter(lambda tr, n=name: tr[0] == n).map(lambda tr: tr[1])
        frames[name] = spark.createDataFrame(rdd, struct(cols))
    return Frames(spark, frames)


def _tag(rows: Rows) -> list[tuple[str, tuple]]:
    return [(name, row) for name, table in rows.items() for row in table]


# The tags of what the checks of ``files.py`` need of a file read in a task: (file name, what it
# lists more than once: ``files.duplicates``), and what no other file may hold (``files.claims``).
REPEATED, CLAIMED = "repeated", "claimed"


def _read_tagged(f) -> list[tuple[str, tuple]]:
    """One result file read in a task (``files.read_rows``): its rows tagged by table, a
    ``REPEATED`` record for each key it holds more than once and a ``CLAIMED`` one for what no
    other file may hold."""
    from kadmin.fleet.files import claims, duplicates, read_rows

    rows = read_rows(f)
    return [
        *_tag(rows),
        *((REPEATED, (f.name, found)) for found in duplicates(rows)),
        *((CLAIMED, claim) for claim in claims(f, rows)),
    ]


def frames_from_files(spark, files: list, cache: bool = True, directory: str | None = None) -> Frames:
    """``--from DIR``: log-dirs results through pyarrow in Spark tasks, the rest through Python
    tasks (one per file). Every row reaches the JVM: the log-dirs reports come here only when a
    cluster spans files (otherwise ``log_dirs_reports_from_files``).

    ``cache``: read and write the columnar copies of the log-dirs files (``arrow.py``)."""
    from pyspark.sql import functions as F

    log_files = [f for f in files if f.kind == "log-dirs"]
    other_files = [f for f in files if f.kind != "log-dirs"]
    directory = directory or str(os.path.dirname(files[0].path))
    sc = spark.sparkContext
    checks: list[tuple[str, tuple]] = []
    if other_files:
        tagged = sc.parallelize(other_files, len(other_files)).flatMap(_read_tagged).cache()
        checks = tagged.filter(lambda tr: tr[0] in (REPEATED, CLAIMED)).collect()
        frames = _frames_from_tagged(spark, tagged)
    else:
        frames = frames_from_rows(spark, empty_rows())
    repeated = [found for tag, found in checks if tag == REPEATED]
    claimed = [claim for tag, claim in checks if tag == CLAIMED]
    if not log_files:
        _check_files(None, directory, repeated, claimed)
        return frames

    tagged = _log_dirs_tagged(spark, log_files, cache)
    tag = F.col("tag")
    _check_files(tagged, directory, repeated, claimed)
    clusters = tagged.filter(tag == "c").select("cluster", F.col("status").alias("kind"), "source")
    errors = tagged.filter(tag == "e").select(*t.column_names(t.ERRORS))
    log_dirs = tagged.filter(tag == "d").select(*t.column_names(t.LOG_DIRS))
    replicas = tagged.filter(tag == "r").select(*t.column_names(t.REPLICAS))
    out = dict(frames.frames)
    out["clusters"] = out["clusters"].unionByName(clusters)
    out["errors"] = out["errors"].unionByName(errors)
    out["log_dirs"] = out["log_dirs"].unionByName(log_dirs)
    out["replicas"] = out["replicas"].unionByName(replicas)
    return Frames(spark, out)


def _check_files(tagged, directory: str, repeated: list, claimed: list) -> None:
    """The checks of the plain-Python engine (``run.build_reports``) on what the files hold:
    InputError when a file lists something more than once (``files.duplicates``: ``repeated``
    of the files read by Python tasks, the "x" rows of the log-dirs files' ``tagged`` table),
    then when more than one file holds the same thing (``files.claims``: ``claimed`` of the
    files read by Python tasks; a log directory of the log-dirs files: ``files.overlaps`` over
    the few seen twice)."""
    from pyspark.sql import functions as F

    from kadmin.fleet.arrow import REPEATED_COLUMNS, repeated_key
    from kadmin.fleet.files import check_duplicates, check_overlaps

    if tagged is None:
        check_duplicates(directory, repeated)
        check_overlaps(directory, claimed)
        return
    rows = tagged.filter(F.col("tag") == "x").select("source", *REPEATED_COLUMNS).collect()
    check_duplicates(directory, [*repeated, *((r[0], repeated_key(tuple(r[1:]))) for r in rows)])
    keys = ["cluster", "broker", "path"]
    shared = (
        tagged.filter(F.col("tag") == "d")
        .select(*keys, "source")
        .distinct()
        .groupBy(*keys)
        .agg(F.collect_set("source").alias("sources"))
        .filter(F.size("sources") > 1)
    )
    dirs = [("log_dirs", (r[0], r[1], r[2]), source) for r in shared.collect() for source in r[3]]
    check_overlaps(directory, [*claimed, *dirs])


def _log_dirs_tagged(spark, log_files: list, cache: bool):
    """The tagged rows of the log-dirs files (kadmin/fleet/arrow.py), persisted: a few files per
    task (pyarrow parses each in C++, or reads its columnar copy), handed to the JVM as Arrow
    batches."""
    from functools import partial

    from pyspark import StorageLevel

    from kadmin.fleet.arrow import TAGGED, read_batches

    sc = spark.sparkContext
    slices = min(len(log_files), max(2, sc.defaultParallelism) * 8)
    # A local relation, spread over the tasks: no Python RDD stage (and its workers) before mapInArrow.
    paths = spark.createDataFrame(
        [(f.path, f.cluster, f.name) for f in log_files], "path string, stem string, name string"
    ).repartition(slices)
    return paths.mapInArrow(partial(read_batches, cache=cache), struct(TAGGED)).persist(StorageLevel.MEMORY_AND_DISK)


def log_dirs_reports_from_files(spark, files: list, top: int, cache: bool = True) -> list[Report] | None:
    """``log-dirs describe --from DIR``: one Spark job whose tasks turn each file into its final
    report rows (``per_file.py``); the driver only puts them together. None when a cluster's
    result is spread over several files (then the general path: ``frames_from_files``)."""
    from functools import partial

    from kadmin.fleet.per_file import assemble, pieces

    sc = spark.sparkContext
    slices = min(len(files), max(1, sc.defaultParallelism) * FILE_TASKS_PER_CORE)
    job = sc.parallelize(files, slices).mapPartitions(partial(pieces, top=top, cache=cache))
    return assemble(job.collect())


def frames_from_fleet(spark, entries: Sequence[Mapping[str, Any]], kind: str, opener=None) -> Frames:
    """Live collection: one Spark task per cluster, then one per (cluster, broker)."""
    from kadmin.fleet.collect import BrokerJob, broker_jobs, cluster_task, run_broker_job

    sc = spark.sparkContext
    firsts = sc.parallelize(entries, len(entries)).map(lambda e: cluster_task(e, kind, opener)).collect()
    jobs: list[BrokerJob] = []
    tagged_first = []
    for entry, (brokers, rows) in zip(entries, firsts):
        tagged_first.extend(_tag(rows))
        jobs.extend(broker_jobs(entry, kind, brokers, rows))
    tagged = sc.parallelize(tagged_first, 1)
    if jobs:
        tagged = tagged.union(sc.parallelize(jobs, len(jobs)).flatMap(lambda j: _tag(run_broker_job(j, opener))))
    return _frames_from_tagged(spark, tagged)


# ---- reports ---------------------------------------------------------------------------------


def _collect(df) -> list[tuple]:
    return [tuple(r) for r in df.collect()]


def log_dirs_reports(frames: Frames, top: int = local.DEFAULT_TOP) -> list[Report]:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    dirs, replicas = frames["log_dirs"], frames["replicas"]
    total, usable, status = F.col("total_bytes"), F.col("usable_bytes"), F.col("status")
    measurable = (status != "offline") & total.isNotNull() & (total > 0) & usable.isNotNull()
    dirs = (
        dirs.withColumn("measurable", measurable)
        .withColumn("used_fraction", F.when(F.col("measurable"), (total - usable) / total))
        .withColumn("m_total", F.when(F.col("measurable"), total))
        .withColumn("m_taken", F.when(F.col("measurable"), total - usable))
        .cache()
    )

    def counts():
        return [
            F.count(F.lit(1)).cast("int").alias("dirs"),
            F.sum(F.when(status == "offline", 1).otherwise(0)).cast("int").alias("offline_dirs"),
            F.sum(F.when(status == "cordoned", 1).otherwise(0)).cast("int").alias("cordoned_dirs"),
            # a directory with an error: its contents unknown (null), which F.sum skips
            F.sum(F.when(F.col("used_bytes").isNull(), 1).otherwise(0)).cast("int").alias("unknown_dirs"),
            F.sum("used_bytes").cast("long").alias("used_bytes"),
            F.sum("m_total").cast("long").alias("total_bytes"),
            (F.sum("m_taken") / F.sum("m_total")).alias("used_fraction"),
        ]

    # the brokers a log-dirs result names as not read (local.unanswered): an error row with a
    # broker, from a log-dirs result (its clusters row: same cluster and source), not from
    # another command's result beside it
    results = frames["clusters"].filter(F.col("kind") == LOG_DIRS_KIND).select("cluster", "source")
    unread = (
        frames["errors"]
        .filter(F.col("broker").isNotNull())
        .join(F.broadcast(results), ["cluster", "source"], "left_semi")
        .select("cluster", "broker")
        .distinct()
        .cache()
    )
    brokers = (
        dirs.groupBy("cluster", "broker")
        .agg(
            *counts(),
            F.min("used_fraction").alias("min_dir_fraction"),
            F.max("used_fraction").alias("max_dir_fraction"),
            F.sum("replica_count").cast("long").alias("replicas"),
            F.sum("future_replica_count").cast("long").alias("future_replicas"),
        )
        .withColumn("dir_skew", F.col("max_dir_fraction") - F.col("min_dir_fraction"))
        .join(F.broadcast(unread.withColumn("unknown_brokers", F.lit(1))), ["cluster", "broker"], "left")
        .withColumn("unknown_brokers", F.coalesce(F.col("unknown_brokers"), F.lit(0)).cast("int"))
        .cache()
    )
    broker_rows = _collect(brokers.select(*t.column_names(t.BROKER_USAGE.columns)))

    unread_per_cluster = unread.groupBy("cluster").agg(F.count(F.lit(1)).cast("int").alias("unknown_brokers"))
    per_cluster = (
        dirs.groupBy("cluster")
        .agg(
            *counts(),
            F.sum("replica_count").cast("long").alias("replicas"),
            F.sum("future_replica_count").cast("long").alias("future_replicas"),
        )
        .join(F.broadcast(unread_per_cluster), "cluster", "left")
        .withColumn("unknown_brokers", F.coalesce(F.col("unknown_brokers"), F.lit(0)).cast("int"))
    )
    skews = (
        brokers.groupBy("cluster")
        .agg(
            F.count(F.lit(1)).cast("int").alias("brokers"),
            F.min("used_fraction").alias("min_broker_fraction"),
            F.max("used_fraction").alias("max_broker_fraction"),
            F.max("dir_skew").alias("max_dir_skew"),
        )
        .withColumn("broker_skew", F.col("max_broker_fraction") - F.col("min_broker_fraction"))
    )
    cluster_rows = _collect(per_cluster.join(skews, "cluster").select(*t.column_names(t.CLUSTER_USAGE.columns)))

    dir_rows = _collect(
        dirs.select(
            "cluster",
            "broker",
            "path",
            "status",
            "used_bytes",
            "total_bytes",
            "usable_bytes",
            "used_fraction",
            F.col("replica_count").alias("replicas"),
            F.col("future_replica_count").alias("future_replicas"),
        )
    )
    unavailable_rows = _collect(
        dirs.filter(status.isin("offline", "cordoned")).select("cluster", "broker", "path", "status", "error")
    )

    window = Window.partitionBy("cluster").orderBy(
        F.col("size").desc(), "topic", "partition", "broker", "path", "is_future"
    )
    largest = replicas.withColumn("rank", F.row_number().over(window)).filter(F.col("rank") <= top)
    largest_rows = _collect(largest.select(*t.column_names(t.LARGEST_PARTITIONS.columns)))

    keys = ["cluster", "broker", "topic", "partition"]
    futures = replicas.filter(F.col("is_future"))
    # Only the few partitions with a future replica: a broadcast semi-join, no shuffle of every replica.
    current = (
        replicas.filter(~F.col("is_future"))
        .join(F.broadcast(futures.select(*keys).distinct()), keys, "left_semi")
        .select(*keys, F.col("path").alias("source_path"), F.col("size").alias("source_size"))
    )
    # The current side holds only the few partitions with a future replica: broadcast it too.
    moves = futures.join(F.broadcast(current), keys, "left").select(
        *keys,
        "source_path",
        F.col("path").alias("target_path"),
        "source_size",
        F.col("size").alias("future_size"),
        "offset_lag",
    )
    move_rows = _collect(moves)
    error_rows = _collect(frames["errors"])
    brokers.unpersist()
    unread.unpersist()
    dirs.unpersist()
    return [
        Report.of(t.CLUSTER_USAGE, cluster_rows),
        Report.of(t.BROKER_USAGE, broker_rows),
        Report.of(t.DIR_USAGE, dir_rows),
        Report.of(t.LARGEST_PARTITIONS, largest_rows),
        Report.of(t.MOVES_IN_FLIGHT, move_rows),
        Report.of(t.UNAVAILABLE_DIRS, unavailable_rows),
        Report.of(t.UNREACHABLE, error_rows),
    ]


def _per_cluster(frames: Frames, fn_name: str) -> list[tuple]:
    """Group the small tables by cluster (after narrowing the replicas in Spark) and run
    ``local.<fn_name>(cluster, facts)`` in Spark tasks."""
    from pyspark.sql import functions as F

    replicas, reassignments = frames["replicas"], frames["reassignments"]
    moving = reassignments.select("cluster", "topic", "partition").distinct()
    sizes = (
        replicas.filter(~F.col("is_future"))
        .join(F.broadcast(moving), ["cluster", "topic", "partition"])
        .select("cluster", "topic", "partition", "broker", "size")
    )
    future_brokers = replicas.filter(F.col("is_future")).select("cluster", "broker").distinct()
    log_dir_brokers = frames["log_dirs"].select("cluster", "broker").distinct()

    def keyed(df, tag):
        return df.rdd.map(lambda r, tag=tag: (r[0], (tag, tuple(r))))

    parts = [
        keyed(frames["clusters"], "clusters"),
        keyed(frames["errors"], "errors"),
        keyed(reassignments, "reassignments"),
        keyed(frames["throttles"], "throttles"),
        keyed(sizes, "sizes"),
        keyed(future_brokers, "future"),
        keyed(log_dir_brokers, "log_dir_brokers"),
    ]
    sc = frames.spark.sparkContext
    fn = getattr(local, fn_name)
    grouped = sc.union(parts).groupByKey().flatMap(lambda kv: fn(kv[0], _facts(kv[1])))
    return grouped.collect()


def _facts(records) -> dict:
    """The per-cluster facts of ``local.cluster_facts``, from tagged records."""
    f = local.new_facts()
    for tag, row in records:
        if tag == "clusters":
            f["kinds"].add(row[1])
        elif tag == "errors":
            f["unreachable"].add(row[1])
        elif tag == "reassignments":
            f["reassignments"].append(
                (row[0], row[1], row[2], list(row[3] or []), list(row[4] or []), list(row[5] or []))
            )
        elif tag == "throttles":
            f["throttles"].append(row)
        elif tag == "sizes":
            f["sizes"][(row[1], row[2], row[3])] = row[4]
        elif tag == "future":
            f["future_brokers"].add(row[1])
        elif tag == "log_dir_brokers":
            f["log_dir_brokers"].add(row[1])
    f["reassignments"].sort(key=lambda r: (r[1], r[2]))
    f["throttles"].sort(key=lambda r: tuple("" if v is None else str(v) for v in r))
    return f


def reports(kind: str, frames: Frames, top: int = local.DEFAULT_TOP) -> list[Report]:
    if kind == "log-dirs":
        return log_dirs_reports(frames, top)
    errors = _collect(frames["errors"])
    clusters = _collect(frames["clusters"])  # a row per cluster and result
    if kind == "reassign":
        waiting = _collect(frames["waiting"])  # a few rows per stuck cluster
        return local.finish_reassign_reports(_per_cluster(frames, "reassignment_status"), errors, waiting, clusters)
    if kind == "throttle":
        return local.finish_throttle_reports(_per_cluster(frames, "throttle_state"), errors, clusters)
    raise ValueError(f"unknown fleet report kind {kind!r}")
