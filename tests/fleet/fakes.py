"""A read-only fake backend serving a log-dirs describe document, and an opener for fleet
entries, picklable so Spark tasks can use it."""

from __future__ import annotations

from kadmin.backends.base import BrokerLogDirs
from kadmin.errors import ConnectionFailed
from kadmin.model import Broker, LogDir, PartitionReassignment, ReplicaInfo


class FakeBackend:
    name = "fake"
    read_only = True

    def __init__(self, doc: dict, reassignments: list[dict] = ()):
        self.doc = doc
        self.reassignments = list(reassignments)

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
            (r["topic"], r["partition"]): PartitionReassignment(
                r["topic"], r["partition"], tuple(r["replicas"]), tuple(r.get("adding", r.get("adding_replicas", ()))),
                tuple(r.get("removing", r.get("removing_replicas", ()))))
            for r in self.reassignments
        }

    def close(self):
        pass


class FakeOpener:
    """``clusters``: name -> (log-dirs document, reassignments); names in ``dead`` refuse."""

    def __init__(self, clusters: dict, dead: tuple[str, ...] = ()):
        self.clusters = clusters
        self.dead = dead

    def __call__(self, entry):
        if entry["name"] in self.dead:
            raise ConnectionFailed(f"no broker of {entry['bootstrap_server']} answered within 2s")
        doc, reassignments = self.clusters[entry["name"]]
        return FakeBackend(doc, reassignments)
