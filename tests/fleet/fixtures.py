"""Small hand-made fleet inputs whose report figures are worked out by hand in the tests."""

from __future__ import annotations

import json
from pathlib import Path

from kadmin.model import DOWN_ERROR

GB = 10**9


def replica(topic, partition, size, lag=0, future=False):
    return {"topic": topic, "partition": partition, "size": size, "offset_lag": lag, "is_future": future}


def log_dir(path, replicas=(), total=None, usable=None, status="online", error=None):
    reps = list(replicas)
    frac = (total - usable) / total if total and usable is not None and status != "offline" else None
    return {
        "path": path, "status": status, "error": error, "used_bytes": sum(r["size"] for r in reps),
        "total_bytes": total, "usable_bytes": usable, "used_fraction": frac,
        "replica_count": sum(not r["is_future"] for r in reps),
        "future_replica_count": sum(r["is_future"] for r in reps), "replicas": reps,
    }


def broker(bid, dirs=(), error=None, rack=None):
    return {"broker": bid, "host": "127.0.0.1", "port": 9092 + bid, "rack": rack, "error": error, "log_dirs": list(dirs)}


def log_dirs_doc(*brokers, cluster_id="id"):
    return {"version": 1, "cluster_id": cluster_id, "brokers": list(brokers)}


# "east": broker 1 has two dirs at 20 % and 60 % used (dir skew 0.4, broker 40 %);
# broker 2 has one dir at 10 %, one offline and one cordoned at 30 % (broker 20 %, skew 0.2).
# Cluster: (20+60+10+30)/400 = 30 %; broker skew 0.4 - 0.2 = 0.2.
# A log-dir move on broker 1: orders-0 from /d1 (8 GB) to /d2 (future, 3 GB, lag 500).
EAST = log_dirs_doc(
    broker(1, [
        log_dir("/d1", [replica("orders", 0, 8 * GB), replica("orders", 1, 2 * GB)], total=100 * GB, usable=80 * GB),
        log_dir("/d2", [replica("orders", 0, 3 * GB, lag=500, future=True), replica("logs", 0, 9 * GB)],
                total=100 * GB, usable=40 * GB),
    ], rack="a"),
    broker(2, [
        log_dir("/d1", [replica("orders", 1, 2 * GB)], total=100 * GB, usable=90 * GB),
        log_dir("/d2", status="offline", error="KafkaStorageException"),
        log_dir("/d3", [replica("logs", 0, 9 * GB)], total=100 * GB, usable=70 * GB, status="cordoned"),
    ], rack="b"),
)

# "west": broker 7 did not answer; broker 5 has one dir at 50 %.
WEST = log_dirs_doc(
    broker(5, [log_dir("/data", [replica("clicks", 3, 1 * GB)], total=10 * GB, usable=5 * GB)]),
    broker(7, error="broker 7 unreachable: timed out"),
)

# Reassignments in "east", one of each status (with EAST_MORE's log dirs):
# orders-1 -> broker 3, which holds none of it yet: not started (source 2 GB);
# logs-0 -> broker 9, which did not answer: target broker unreachable;
# orders-0 -> broker 3, which holds 1 GB of the 8 GB: copying;
# logs-1 -> broker 4, whose directories were not read: unknown.
REASSIGN_EAST = {"reassignments": [
    {"topic": "orders", "partition": 1, "replicas": [2, 3, 1], "adding": [3], "removing": [1]},
    {"topic": "logs", "partition": 0, "replicas": [1, 2, 9], "adding": [9], "removing": [2]},
    {"topic": "orders", "partition": 0, "replicas": [1, 3], "adding": [3], "removing": []},
    {"topic": "logs", "partition": 1, "replicas": [4], "adding": [4], "removing": []},
]}
EAST_MORE = log_dirs_doc(
    *EAST["brokers"],
    broker(3, [log_dir("/d1", [replica("orders", 0, 1 * GB), replica("other", 0, 5)], total=100 * GB, usable=99 * GB)]),
    broker(9, error="broker 9 unreachable: connection refused"),
)

# Reassignments in "north", whose broker 4 is down (log-dirs describe says so: DOWN_ERROR):
# orders-0 keeps broker 4: the reassignment waits for it (target broker unreachable);
# orders-1 removes broker 4, its only source: the bytes to copy are not known (source broker
# unreachable); orders-2 only removes broker 4: nothing waits for it (finishing);
# orders-3 does not involve broker 4 (copying 1 GB of 4 GB).
REASSIGN_NORTH = {"version": 1, "reassignments": [
    {"topic": "orders", "partition": 0, "replicas": [2, 4, 1], "adding": [2], "removing": [1]},
    {"topic": "orders", "partition": 1, "replicas": [3, 4], "adding": [3], "removing": [4]},
    {"topic": "orders", "partition": 2, "replicas": [1, 2, 4], "adding": [], "removing": [4]},
    {"topic": "orders", "partition": 3, "replicas": [2, 1], "adding": [2], "removing": []},
]}
NORTH_LOG_DIRS = log_dirs_doc(
    broker(1, [log_dir("/d", [replica("orders", 0, 8 * GB), replica("orders", 2, 1 * GB), replica("orders", 3, 4 * GB)],
                       total=100 * GB, usable=87 * GB)]),
    broker(2, [log_dir("/d", [replica("orders", 0, 1 * GB), replica("orders", 2, 1 * GB), replica("orders", 3, 1 * GB)],
                       total=100 * GB, usable=97 * GB)]),
    broker(3, [log_dir("/d", total=100 * GB, usable=100 * GB)]),
    broker(4, error=DOWN_ERROR),
)

THROTTLE_EAST = {"throttles": [
    {"resource": "broker", "entity": "2", "config": "leader.replication.throttled.rate", "value": "1000000"},
    {"resource": "broker", "entity": "6", "config": "follower.replication.throttled.rate", "value": "1000000",
     "plan": "plan-a"},
    {"resource": "broker", "entity": "1", "config": "replica.alter.log.dirs.io.max.bytes.per.second", "value": "500"},
    {"resource": "topic", "entity": "orders", "config": "leader.replication.throttled.replicas", "value": "1:1,1:2"},
    {"resource": "topic", "entity": "clicks", "config": "follower.replication.throttled.replicas", "value": "3:5"},
]}

# schemas/throttle-show-result.json, from a cluster where nothing moves
THROTTLE_SOUTH = {
    "version": 1,
    "throttles": [{"kind": "topic_replicas", "resource": "orders", "config": "leader.replication.throttled.replicas",
                   "value": "0:1,0:2", "set_by_kadmin": True, "plan_ids": ["3f2a9c0d1e2b4a5c"], "needed": False,
                   "stale": True, "unneeded_entries": ["0:1", "0:2"]}],
    "records": [], "reassigning_partitions": 0, "log_dir_moving_brokers": [], "log_dir_moves_known": True,
}

THROTTLE_WEST = {"brokers": [{"broker": 5, "configs": {"leader.replication.throttled.rate": "9"}}], "topics": []}
REASSIGN_WEST = {"reassignments": []}


def write(directory: Path, files: dict[str, object]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, doc in files.items():
        (directory / name).write_text(doc if isinstance(doc, str) else json.dumps(doc), "utf-8")
    return directory


def log_dirs_fleet(directory: Path) -> Path:
    return write(directory, {"east.json": EAST, "west.json": WEST, "broken.json": "{not json"})


def reassign_fleet(directory: Path) -> Path:
    return write(directory, {
        "east.json": REASSIGN_EAST, "east.log-dirs.json": EAST_MORE, "west.json": REASSIGN_WEST,
    })


def reassign_down_fleet(directory: Path) -> Path:
    return write(directory, {"north.json": REASSIGN_NORTH, "north.log-dirs.json": NORTH_LOG_DIRS})


# Throttles in "north" (NORTH_LOG_DIRS: broker 4 down, no future replica on the others) with no
# reassignment: a log-dir rate on broker 4 may pace its moves when it restarts (unknown), one on
# broker 1 paces nothing (stale), as its leader rate (stale); the default log-dir rate: unknown.
# In "wide" the log-dirs result cannot be read: no broker's log-dir moves are known.
THROTTLE_NORTH = {"throttles": [
    {"resource": "broker", "entity": "4", "config": "replica.alter.log.dirs.io.max.bytes.per.second", "value": "500"},
    {"resource": "broker", "entity": "1", "config": "replica.alter.log.dirs.io.max.bytes.per.second", "value": "500"},
    {"resource": "broker", "entity": "1", "config": "leader.replication.throttled.rate", "value": "9"},
    {"resource": "broker", "entity": "<default>", "config": "replica.alter.log.dirs.io.max.bytes.per.second",
     "value": "7"},
]}


def throttle_down_fleet(directory: Path) -> Path:
    return write(directory, {
        "north.json": THROTTLE_NORTH, "north.reassign-list.json": REASSIGN_WEST, "north.log-dirs.json": NORTH_LOG_DIRS,
        "wide.json": THROTTLE_NORTH, "wide.reassign-list.json": REASSIGN_WEST, "wide.log-dirs.json": "{not json",
    })


def throttle_fleet(directory: Path) -> Path:
    return write(directory, {
        "east.json": THROTTLE_EAST, "east.reassign-list.json": REASSIGN_EAST, "east.log-dirs.json": EAST,
        "west.json": THROTTLE_WEST, "west.reassign-list.json": REASSIGN_WEST,
        "north.json": {"throttles": [{"resource": "broker", "entity": "1", "config": "leader.replication.throttled.rate",
                                      "value": "5", "stale": True}]},
        "south.json": THROTTLE_SOUTH,
    })


# ---- an offline directory: its contents are unknown, not empty ---------------------------------

# `kadmin log-dirs describe -o json` of `kadmin sandbox start --log-dirs 2` (3 brokers) after
# `kadmin sandbox fault dir-offline 1 /var/lib/kafka/data0`: that directory has an error
# (KafkaStorageException), no replicas, and used_bytes, replica_count and future_replica_count
# null (unknown).
SANDBOX_DIR_OFFLINE = json.loads((Path(__file__).parent / "data" / "sandbox-dir-offline.json").read_text("utf-8"))
OFFLINE_DIR = (1, "/var/lib/kafka/data0")


def as_older_kadmin_wrote_it(doc: dict) -> dict:
    """The document as kadmin wrote it before it said null: 0 for a directory with an error."""
    doc = json.loads(json.dumps(doc))
    for b in doc["brokers"]:
        for d in b["log_dirs"]:
            if d["error"] is not None:
                d.update(used_bytes=0, replica_count=0, future_replica_count=0)
    return doc


def every_dir_offline(doc: dict, broker_id: int) -> dict:
    """The document with every directory of ``broker_id`` answered as offline (a file: the
    broker's last directory failing halts a broker, so no live cluster answers so)."""
    doc = json.loads(json.dumps(doc))
    for b in doc["brokers"]:
        if b["broker"] == broker_id:
            for d in b["log_dirs"]:
                d.update(status="offline", error="org.apache.kafka.common.errors.KafkaStorageException",
                         used_bytes=None, total_bytes=None, usable_bytes=None, used_fraction=None,
                         replica_count=None, future_replica_count=None, replicas=[])
    return doc


def offline_dir_fleets(directory: Path) -> dict[str, Path]:
    """One fleet directory per variant, each holding cluster "demo": the saved result, the same
    as an older kadmin wrote it, and broker 1 with every directory offline (as saved, and older)."""
    whole = every_dir_offline(SANDBOX_DIR_OFFLINE, OFFLINE_DIR[0])
    docs = {
        "saved": SANDBOX_DIR_OFFLINE,
        "older": as_older_kadmin_wrote_it(SANDBOX_DIR_OFFLINE),
        "broker-offline": whole,
        "broker-offline-older": as_older_kadmin_wrote_it(whole),
    }
    return {name: write(directory / name, {"demo.json": doc}) for name, doc in docs.items()}


def known_figures(doc: dict) -> dict:
    """What the usage reports must say of a log-dirs describe result with directories whose
    contents are unknown, worked out from the document: per directory (broker, path) its used
    bytes, replicas and future replicas (None when it has an error); per broker and for the
    cluster, (unknown_dirs, used_bytes, replicas, future_replicas) over the known directories
    (None when no directory is known)."""
    dirs = {}
    for b in doc["brokers"]:
        for d in b["log_dirs"]:
            reps = d["replicas"]
            dirs[(b["broker"], d["path"])] = (None, None, None) if d["error"] is not None else (
                sum(r["size"] for r in reps), sum(not r["is_future"] for r in reps), sum(r["is_future"] for r in reps))

    def summed(keys):
        known = [dirs[k] for k in keys if dirs[k][0] is not None]
        unknown = len(keys) - len(known)
        return (unknown, *((sum(v[i] for v in known) if known else None) for i in range(3)))

    brokers = {b["broker"]: summed([k for k in dirs if k[0] == b["broker"]]) for b in doc["brokers"]}
    return {"dirs": dirs, "brokers": brokers, "cluster": summed(list(dirs))}


# ---- a broker that did not answer: in no sum, and said so -----------------------------------

# `kadmin log-dirs describe -o json` (exit 1) of `kadmin sandbox start --kafka-version 3.3
# --brokers 4` after `kadmin sandbox fault broker-stop 3`: broker 3's row has the error "down:
# not in the cluster's broker list" and no log directories; brokers 0 to 2 have two each.
SANDBOX_BROKER_DOWN = json.loads((Path(__file__).parent / "data" / "sandbox-broker-down.json").read_text("utf-8"))
DOWN_BROKER = 3


def broker_down_fleets(directory: Path) -> dict[str, Path]:
    """One fleet directory per variant, each holding cluster "demo":
    - "saved": the saved result with broker 3 down;
    - "beside": every broker's log directories read (SANDBOX_DIR_OFFLINE), and beside them a
      throttle show result that could not read broker 2's throttles: a broker whose throttles
      were not read lacks nothing in the log-dirs sums;
    - "split": the saved result and, in a second file of the same cluster, broker 3's log
      directories read later (``--broker-list 3``): broker 3 has a row, but one result of its
      cluster says it did not answer."""
    later = {"version": 1, "cluster": "demo", "brokers": [
        broker(DOWN_BROKER, [log_dir("/var/lib/kafka/data0", [replica("orders", 0, 5 * GB)], total=100 * GB,
                                     usable=60 * GB)]),
    ]}
    unread_throttles = {"throttles": [], "unreadable_brokers": [2]}
    return {
        "saved": write(directory / "saved", {"demo.json": SANDBOX_BROKER_DOWN}),
        "beside": write(directory / "beside", {"demo.json": SANDBOX_DIR_OFFLINE,
                                               "demo.throttle-show.json": unread_throttles}),
        "split": write(directory / "split", {"demo.json": SANDBOX_BROKER_DOWN, "demo-later.json": later}),
    }
