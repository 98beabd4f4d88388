"""A read-only fake backend serving a log-dirs describe document, and an opener for fleet
entries, picklable so Spark tasks can use it."""

from __future__ import annotations

from kadmin.backends.base import BrokerLogDirs, ReassignmentBlocked
from kadmin.errors import ConnectionFailed
from kadmin.model import (
    Broker,
    ClusterState,
    LogDir,
    PartitionReassignment,
    PartitionState,
    ReplicaInfo,
    TopicPartition,
)

STUCK_REASON = "/admin/reassign_partitions exists but looks stuck: the controller is not acting on it"


class FakeBackend:
    name = "fake"
    read_only = True

    def __init__(self, doc: dict, reassignments: list[dict] = (), stuck: dict | None = None):
        """``stuck``: a stuck /admin/reassign_partitions (ZooKeeper mode), {(topic, partition):
        its replicas now} for each of ``reassignments`` it only requests (no broker moves them)."""
        self.doc = doc
        self.reassignments = list(reassignments)
        self.stuck = stuck

    def describe_brokers(self):
        return {b["broker"]: Broker(b["broker"], b["host"], b["port"], b["rack"]) for b in self.doc["brokers"]}

    def replica_brokers(self):
        """The brokers of the document (it names no broker that is down)."""
        return {b["broker"] for b in self.doc["brokers"]}

    def describe_log_dirs(self, brokers=None, topics=None):
        out = {}
        for b in self.doc["brokers"]:
            if brokers is not None and b["broker"] not in brokers:
                continue
            dirs = tuple(
                LogDir(b["broker"], d["path"], d["error"], d["total_bytes"], d["usable_bytes"], d["status"] == "cordoned",
                       tuple(ReplicaInfo(r["topic"], r["partition"], r["size"], r["offset_lag"], r["is_future"])
                             for r in d["replicas"] if topics is None or r["topic"] in topics))
                for d in b["log_dirs"]
            )
            out[b["broker"]] = BrokerLogDirs(b["broker"], dirs, b["error"])
        return out

    def list_partition_reassignments(self, partitions=None):
        return {
            TopicPartition(r["topic"], r["partition"]): PartitionReassignment(
                r["topic"], r["partition"], tuple(r["replicas"]), tuple(r.get("adding", r.get("adding_replicas", ()))),
                tuple(r.get("removing", r.get("removing_replicas", ()))))
            for r in self.reassignments
        }

    def reassignment_blocked(self):
        return None if self.stuck is None else ReassignmentBlocked(STUCK_REASON, "delete it", True)

    def describe_cluster(self):
        parts = {}
        for tp, r in self.list_partition_reassignments().items():
            now = (self.stuck or {}).get((tp.topic, tp.partition))
            if now is not None:
                parts[tp] = PartitionState(r.topic, r.partition, -1, tuple(now), ())
            else:
                parts[tp] = PartitionState(
                    r.topic, r.partition, -1, r.replicas, (), adding=r.adding, removing=r.removing
                )
        return ClusterState(None, None, self.describe_brokers(), parts)

    def close(self):
        pass


class FakeOpener:
    """``clusters``: name -> (log-dirs document, reassignments[, stuck]); names in ``dead`` refuse."""

    def __init__(self, clusters: dict, dead: tuple[str, ...] = ()):
        self.clusters = clusters
        self.dead = dead

    def __call__(self, entry):
        if entry["name"] in self.dead:
            raise ConnectionFailed(f"no broker of {entry['bootstrap_server']} answered within 2s")
        return FakeBackend(*self.clusters[entry["name"]])
