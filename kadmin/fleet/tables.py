"""The column layouts of fleet rows and fleet reports, declared once.

Both engines (plain Python in ``local.py``, Spark in ``spark.py``) and every writer (Parquet,
JSON, tables) read these declarations, so a column has one name and one type everywhere.
docs/fleet.md documents them; a test checks the two agree.

Types are Spark SQL type names; ``array<int>`` is the only composite type used.
"""

from __future__ import annotations

from dataclasses import dataclass

Columns = tuple[tuple[str, str], ...]

# ---- input rows (what collection and loading produce) -------------------------------------

CLUSTERS: Columns = (
    ("cluster", "string"),
    ("kind", "string"),  # which document was read for it: log-dirs | reassign | throttle
    ("source", "string"),
)

ERRORS: Columns = (
    ("cluster", "string"),
    ("broker", "int"),  # null when the whole cluster (or its file) could not be read
    ("source", "string"),  # the file, or "live"
    ("error", "string"),
)

LOG_DIRS: Columns = (
    ("cluster", "string"),
    ("broker", "int"),
    ("rack", "string"),
    ("path", "string"),
    ("status", "string"),  # online | offline | cordoned
    ("error", "string"),
    ("used_bytes", "long"),
    ("total_bytes", "long"),
    ("usable_bytes", "long"),
    ("replica_count", "int"),
    ("future_replica_count", "int"),
)

REPLICAS: Columns = (
    ("cluster", "string"),
    ("broker", "int"),
    ("path", "string"),
    ("topic", "string"),
    ("partition", "int"),
    ("size", "long"),
    ("offset_lag", "long"),
    ("is_future", "boolean"),
)

REASSIGNMENTS: Columns = (
    ("cluster", "string"),
    ("topic", "string"),
    ("partition", "int"),
    ("replicas", "array<int>"),
    ("adding", "array<int>"),
    ("removing", "array<int>"),
)

# Requests a stuck /admin/reassign_partitions holds (ZooKeeper mode) that no broker carries out
# (``kadmin.backends.base.requests_not_taken``): not reassignments, nothing moves.
WAITING: Columns = (
    ("cluster", "string"),
    ("topic", "string"),
    ("partition", "int"),
    ("replicas", "array<int>"),  # the partition's replicas now (its topic znode)
    ("target", "array<int>"),  # the replicas requested
)

THROTTLES: Columns = (
    ("cluster", "string"),
    ("resource", "string"),  # broker | topic
    ("entity", "string"),  # broker id, "<default>", or topic name
    ("config", "string"),
    ("value", "string"),
    ("plan", "string"),  # the plan kadmin set it for, when known
    ("stale", "boolean"),  # as the source said; null when it did not say
)

ROW_TABLES: dict[str, Columns] = {
    "clusters": CLUSTERS,
    "errors": ERRORS,
    "log_dirs": LOG_DIRS,
    "replicas": REPLICAS,
    "reassignments": REASSIGNMENTS,
    "throttles": THROTTLES,
    "waiting": WAITING,
}

# The columns naming what a row stands for: a cluster has one log directory per broker and path,
# one replica per directory, partition and side (current or future), one reassignment per
# partition, one throttle per resource, entity and config. A result holding a key twice would
# count it twice, so it is refused (``files.duplicates``). A replica is named within its
# directory (its key begins with the directory's).
KEYS: dict[str, tuple[str, ...]] = {
    "log_dirs": ("cluster", "broker", "path"),
    "replicas": ("cluster", "broker", "path", "topic", "partition", "is_future"),
    "reassignments": ("cluster", "topic", "partition"),
    "throttles": ("cluster", "resource", "entity", "config"),
}

# ---- reports -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ReportSpec:
    name: str
    title: str
    columns: Columns
    # Columns to order by (the first ones descending where listed in ``descending``); every
    # report has a total order, so both engines emit identical row sequences.
    order: tuple[str, ...]
    descending: tuple[str, ...] = ()
    # A column whose values sort in this given order rather than alphabetically.
    ranked: tuple[str, tuple[str, ...]] | None = None


UNREACHABLE = ReportSpec(
    "unreachable",
    "Clusters and brokers that could not be read",
    (("cluster", "string"), ("broker", "int"), ("source", "string"), ("error", "string")),
    ("cluster", "broker", "source", "error"),
)

CLUSTER_USAGE = ReportSpec(
    "cluster_usage",
    "Disk usage and skew per cluster",
    (
        ("cluster", "string"),
        ("brokers", "int"),
        ("dirs", "int"),
        ("offline_dirs", "int"),
        ("cordoned_dirs", "int"),
        ("used_bytes", "long"),
        ("total_bytes", "long"),
        ("used_fraction", "double"),
        ("min_broker_fraction", "double"),
        ("max_broker_fraction", "double"),
        ("broker_skew", "double"),
        ("max_dir_skew", "double"),
        ("replicas", "long"),
        ("future_replicas", "long"),
        # directories whose contents are unknown (with an error: offline), left out of
        # used_bytes, replicas and future_replicas; last, so earlier columns keep their places
        ("unknown_dirs", "int"),
        # brokers that did not answer (down, or an error in place of their log directories): in
        # none of the sums, with a number of directories no one knows; last, as unknown_dirs
        ("unknown_brokers", "int"),
    ),
    ("broker_skew", "cluster"),
    ("broker_skew",),
)

BROKER_USAGE = ReportSpec(
    "broker_usage",
    "Disk usage and skew per broker",
    (
        ("cluster", "string"),
        ("broker", "int"),
        ("dirs", "int"),
        ("offline_dirs", "int"),
        ("cordoned_dirs", "int"),
        ("used_bytes", "long"),
        ("total_bytes", "long"),
        ("used_fraction", "double"),
        ("min_dir_fraction", "double"),
        ("max_dir_fraction", "double"),
        ("dir_skew", "double"),
        ("replicas", "long"),
        ("future_replicas", "long"),
        # directories whose contents are unknown (with an error: offline), left out of
        # used_bytes, replicas and future_replicas; last, so earlier columns keep their places
        ("unknown_dirs", "int"),
        # 1 when the broker did not answer in some result of its cluster (another file holds
        # the directories read): its sums may lack directories; last, as unknown_dirs
        ("unknown_brokers", "int"),
    ),
    ("dir_skew", "cluster", "broker"),
    ("dir_skew",),
)

DIR_USAGE = ReportSpec(
    "dir_usage",
    "Log directories, fullest first",
    (
        ("cluster", "string"),
        ("broker", "int"),
        ("path", "string"),
        ("status", "string"),
        ("used_bytes", "long"),
        ("total_bytes", "long"),
        ("usable_bytes", "long"),
        ("used_fraction", "double"),
        ("replicas", "int"),
        ("future_replicas", "int"),
    ),
    ("used_fraction", "cluster", "broker", "path"),
    ("used_fraction",),
)

LARGEST_PARTITIONS = ReportSpec(
    "largest_partitions",
    "Largest replicas per cluster",
    (
        ("cluster", "string"),
        ("rank", "int"),
        ("topic", "string"),
        ("partition", "int"),
        ("broker", "int"),
        ("path", "string"),
        ("size", "long"),
        ("is_future", "boolean"),
    ),
    ("cluster", "rank"),
)

MOVES_IN_FLIGHT = ReportSpec(
    "moves_in_flight",
    "Future replicas: moves between directories in flight",
    (
        ("cluster", "string"),
        ("broker", "int"),
        ("topic", "string"),
        ("partition", "int"),
        ("source_path", "string"),
        ("target_path", "string"),
        ("source_size", "long"),
        ("future_size", "long"),
        ("offset_lag", "long"),
    ),
    ("cluster", "broker", "topic", "partition", "target_path"),
)

UNAVAILABLE_DIRS = ReportSpec(
    "unavailable_dirs",
    "Offline and cordoned log directories",
    (
        ("cluster", "string"),
        ("broker", "int"),
        ("path", "string"),
        ("status", "string"),
        ("error", "string"),
    ),
    ("cluster", "broker", "path"),
)

REASSIGNMENT_STATUS = ReportSpec(
    "reassignment_status",
    "Ongoing reassignments, those that have not progressed first",
    (
        ("cluster", "string"),
        ("topic", "string"),
        ("partition", "int"),
        ("replicas", "array<int>"),
        ("adding", "array<int>"),
        ("removing", "array<int>"),
        ("source_size", "long"),
        ("adding_size", "long"),
        ("status", "string"),
        ("progressed", "boolean"),
    ),
    ("status", "cluster", "topic", "partition"),
    ranked=(
        "status",
        (
            "target broker unreachable",
            "source broker unreachable",
            "not started",
            "unknown",
            "copying",
            "caught up",
            "finishing",
        ),
    ),
)

REASSIGNMENT_SUMMARY = ReportSpec(
    "reassignment_summary",
    "Ongoing reassignments per cluster",
    (
        ("cluster", "string"),
        ("ongoing", "int"),
        ("not_progressed", "int"),
        ("adding_replicas", "int"),
        ("removing_replicas", "int"),
        # requests of a stuck /admin/reassign_partitions, not moving (``reassignment_waiting``);
        # not counted in ongoing; last, so earlier columns keep their places
        ("waiting", "int"),
    ),
    ("not_progressed", "cluster"),
    ("not_progressed",),
)

REASSIGNMENT_WAITING = ReportSpec(
    "reassignment_waiting",
    "Requested, but no broker is carrying these out (a stuck /admin/reassign_partitions)",
    WAITING,
    ("cluster", "topic", "partition"),
)

THROTTLE_STATE = ReportSpec(
    "throttle_state",
    "Throttles, leftover and stale ones first",
    (
        ("cluster", "string"),
        ("resource", "string"),
        ("entity", "string"),
        ("config", "string"),
        ("value", "string"),
        ("plan", "string"),
        ("state", "string"),
    ),
    ("state", "cluster", "resource", "entity", "config"),
    ranked=("state", ("leftover", "stale", "unknown", "needed")),
)

THROTTLE_SUMMARY = ReportSpec(
    "throttle_summary",
    "Throttles per cluster",
    (
        ("cluster", "string"),
        ("throttles", "int"),
        ("needed", "int"),
        ("stale", "int"),
        ("leftover", "int"),
        ("unknown", "int"),
    ),
    ("leftover", "stale", "cluster"),
    ("leftover", "stale"),
)

# The command a report belongs to ("log-dirs", "reassign", "throttle") -> its reports, in
# the order they print.
REPORTS: dict[str, tuple[ReportSpec, ...]] = {
    "log-dirs": (
        CLUSTER_USAGE,
        BROKER_USAGE,
        DIR_USAGE,
        LARGEST_PARTITIONS,
        MOVES_IN_FLIGHT,
        UNAVAILABLE_DIRS,
        UNREACHABLE,
    ),
    "reassign": (REASSIGNMENT_SUMMARY, REASSIGNMENT_STATUS, REASSIGNMENT_WAITING, UNREACHABLE),
    "throttle": (THROTTLE_SUMMARY, THROTTLE_STATE, UNREACHABLE),
}

KINDS = tuple(REPORTS)


def column_names(columns: Columns) -> tuple[str, ...]:
    return tuple(name for name, _ in columns)
