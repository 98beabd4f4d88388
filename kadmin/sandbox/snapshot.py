"""A consistent, read-only copy of the emulated cluster for tests and tools to assert on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kadmin.model import TopicPartition
from kadmin.sandbox.cluster import Cluster


@dataclass(frozen=True)
class ReplicaSnapshot:
    topic: str
    partition: int
    size: int
    end_offset: int
    is_future: bool = False
    offset_lag: int = 0

    @property
    def tp(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)


@dataclass(frozen=True)
class DirSnapshot:
    path: str
    dir_id: str
    online: bool
    cordoned: bool
    capacity: int
    used: int
    replicas: Mapping[TopicPartition, ReplicaSnapshot]
    futures: Mapping[TopicPartition, ReplicaSnapshot]
    # Stray logs (a cancelled move's half copy, a deleted topic's log): on disk, no replica.
    strays: Mapping[TopicPartition, ReplicaSnapshot] = field(default_factory=dict)


@dataclass(frozen=True)
class BrokerSnapshot:
    id: int
    host: str
    port: int
    rack: str | None
    alive: bool
    dirs: Mapping[str, DirSnapshot]
    pending_dirs: Mapping[TopicPartition, str] = field(default_factory=dict)

    def dir_of(self, tp: TopicPartition) -> str | None:
        return next((d.path for d in self.dirs.values() if tp in d.replicas), None)

    def future_dir_of(self, tp: TopicPartition) -> str | None:
        return next((d.path for d in self.dirs.values() if tp in d.futures), None)


@dataclass(frozen=True)
class PartitionSnapshot:
    topic: str
    partition: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    leader: int
    leader_epoch: int
    adding: tuple[int, ...]
    removing: tuple[int, ...]
    offline_replicas: tuple[int, ...]

    @property
    def reassigning(self) -> bool:
        return bool(self.adding or self.removing)


@dataclass(frozen=True)
class Snapshot:
    now: float  # simulated seconds since start
    mode: str
    cluster_id: str
    controller_id: int
    brokers: Mapping[int, BrokerSnapshot]
    partitions: Mapping[TopicPartition, PartitionSnapshot]
    topic_configs: Mapping[str, Mapping[str, str]]
    broker_configs: Mapping[str, Mapping[str, str]]  # "" = cluster default, "<id>" = one broker

    @property
    def topics(self) -> list[str]:
        return sorted(self.topic_configs)

    def partition(self, topic: str, index: int) -> PartitionSnapshot:
        return self.partitions[TopicPartition(topic, index)]

    def replica(self, topic: str, index: int, broker: int) -> ReplicaSnapshot | None:
        tp = TopicPartition(topic, index)
        for d in self.brokers[broker].dirs.values():
            if tp in d.replicas:
                return d.replicas[tp]
        return None

    def replica_dir(self, topic: str, index: int, broker: int) -> str | None:
        return self.brokers[broker].dir_of(TopicPartition(topic, index))

    def future_replica(self, topic: str, index: int, broker: int) -> tuple[str, ReplicaSnapshot] | None:
        tp = TopicPartition(topic, index)
        for d in self.brokers[broker].dirs.values():
            if tp in d.futures:
                return d.path, d.futures[tp]
        return None


def take(cluster: Cluster, controller_id: int) -> Snapshot:
    brokers = {}
    for b in cluster.brokers.values():
        dirs = {}
        for d in b.dirs.values():
            replicas = {
                tp: ReplicaSnapshot(tp.topic, tp.partition, int(r.size), r.end_offset) for tp, r in d.logs.items()
            }
            futures = {}
            for tp, r in d.futures.items():
                lag = b.future_offset_lag(tp, r)
                futures[tp] = ReplicaSnapshot(tp.topic, tp.partition, int(r.size), r.end_offset, True, lag)
            strays = {
                tp: ReplicaSnapshot(tp.topic, tp.partition, int(r.size), r.end_offset) for tp, r in d.strays.items()
            }
            dirs[d.path] = DirSnapshot(
                d.path, str(d.dir_id), d.online, d.cordoned, d.capacity, d.used(), replicas, futures, strays
            )
        brokers[b.id] = BrokerSnapshot(b.id, b.host, b.port, b.rack, b.alive, dirs, dict(b.preferred_dirs))
    partitions = {}
    for p in cluster.all_partitions():
        offline = tuple(r for r in p.replicas if not cluster.replica_online(p.tp, r))
        partitions[p.tp] = PartitionSnapshot(
            p.topic,
            p.index,
            tuple(p.replicas),
            tuple(p.isr),
            p.leader,
            p.leader_epoch,
            tuple(p.adding),
            tuple(p.removing),
            offline,
        )
    return Snapshot(
        cluster.now,
        cluster.mode,
        cluster.cluster_id,
        controller_id,
        brokers,
        partitions,
        {t.name: dict(t.configs) for t in cluster.topics.values()},
        {k: dict(v) for k, v in cluster.broker_configs.items()},
    )
