"""One broker's log directories: AlterReplicaLogDirs with ReplicaManager's checks in Kafka's
order, and what DescribeLogDirs reports."""

from __future__ import annotations

from dataclasses import dataclass

from kadmin.model import TopicPartition
from kadmin.sandbox import protocol as P
from kadmin.sandbox.cluster import Cluster, ReplicaLog


def alter_replica_log_dir(cluster: Cluster, broker_id: int, tp: TopicPartition, path: str) -> int:
    """Move (or plan to place) one replica into ``path`` on this broker; Kafka's error code."""
    broker = cluster.brokers[broker_id]
    dest = broker.dirs.get(path)
    if dest is None:
        return P.LOG_DIR_NOT_FOUND
    if not dest.online:
        return P.KAFKA_STORAGE_ERROR
    current = broker.dir_of(tp)
    if current is not None and not current.online:
        return P.KAFKA_STORAGE_ERROR
    # Remembered for a replica created later (e.g. by a reassignment); in memory only.
    broker.preferred_dirs[tp] = path
    p = cluster.partition(tp)
    if p is None:
        return P.UNKNOWN_TOPIC_OR_PARTITION
    if broker_id not in p.replicas or current is None:
        return P.REPLICA_NOT_AVAILABLE
    broker.preferred_dirs.pop(tp, None)
    future_dir = broker.future_dir_of(tp)
    if future_dir is not None and not future_dir.online:
        # The broker dropped it with its directory (ReplicaManager.handleLogDirFailure) but it
        # is still on disk: nothing cancels it, and a restart with the directory back resumes it.
        future_dir = None
    if future_dir is not None and future_dir.path != path:
        # A different destination cancels the running move.
        del future_dir.futures[tp]
        if tp in broker.move_queue:
            broker.move_queue.remove(tp)
        future_dir = None
    if current.path == path or future_dir is not None:
        return P.NONE
    if broker.has_offline_dir():
        return P.KAFKA_STORAGE_ERROR
    dest.futures[tp] = ReplicaLog(0.0, current.logs[tp].records)
    broker.move_queue.append(tp)
    return P.NONE


@dataclass(frozen=True)
class DirReport:
    path: str
    error_code: int
    total_bytes: int
    usable_bytes: int
    cordoned: bool
    # topic -> [(partition, size, offset_lag, is_future)]
    topics: dict[str, list[tuple[int, int, int, bool]]]


def describe_log_dirs(cluster: Cluster, broker_id: int, wanted: dict[str, set[int]] | None) -> list[DirReport]:
    """Every configured directory; ``wanted`` None means all topics."""
    broker = cluster.brokers[broker_id]
    out = []
    for d in broker.dirs.values():
        if not d.online:
            out.append(DirReport(d.path, P.KAFKA_STORAGE_ERROR, -1, -1, d.cordoned, {}))
            continue
        topics: dict[str, list] = {}
        for tp, log in d.logs.items():
            if wanted is None or tp.partition in wanted.get(tp.topic, ()):
                topics.setdefault(tp.topic, []).append((tp.partition, int(log.size), 0, False))
        for tp, log in d.strays.items():  # listed like any replica until they are gone
            if wanted is None or tp.partition in wanted.get(tp.topic, ()):
                topics.setdefault(tp.topic, []).append((tp.partition, int(log.size), 0, False))
        for tp, future in d.futures.items():
            if wanted is None or tp.partition in wanted.get(tp.topic, ()):
                lag = broker.future_offset_lag(tp, future)
                topics.setdefault(tp.topic, []).append((tp.partition, int(future.size), lag, True))
        if cluster.shared_fs:  # one filesystem per broker: every dir reports its figures
            capacity = max(x.capacity for x in broker.dirs.values())
            used = sum(x.used() for x in broker.dirs.values())
        else:
            capacity, used = d.capacity, d.used()
        out.append(
            DirReport(
                d.path,
                P.NONE,
                capacity,
                max(capacity - used, 0),
                d.cordoned,
                {t: sorted(v) for t, v in sorted(topics.items())},
            )
        )
    return out
