"""The emulated cluster's state: brokers, their log directories and replica logs, topics and
partitions. Mutable, and touched only from the sandbox's event loop thread, so it needs no locks.

Sizes are bytes; end offsets follow from sizes at a fixed average message size, so a replica's
log end offset (LEO) is ``size // MESSAGE_SIZE``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kadmin.model import TopicPartition
from kadmin.sandbox.versions import DEFAULT, VERSIONS, KafkaVersion

if TYPE_CHECKING:
    from kadmin.sandbox.records import PartitionRecords

MESSAGE_SIZE = 1024  # bytes per simulated record
INVALID_OFFSET_LAG = -1  # DescribeLogDirsResponse.INVALID_OFFSET_LAG

KRAFT = "kraft"
ZOOKEEPER = "zookeeper"


@dataclass
class ReplicaLog:
    """One replica's log in one directory: current, or the future copy of a log-dir move."""

    size: float = 0.0
    # The partition's stored batches (records.PartitionRecords) once clients produced to it;
    # shared with the other replicas, which hold the prefix that fits in their size.
    records: PartitionRecords | None = None

    @property
    def end_offset(self) -> int:
        if self.records is not None:
            return self.records.end_offset_within(self.size)
        return int(self.size) // MESSAGE_SIZE


@dataclass
class LogDirState:
    path: str
    dir_id: uuid.UUID  # KIP-858 directory.id
    capacity: int
    online: bool = True
    cordoned: bool = False
    logs: dict[TopicPartition, ReplicaLog] = field(default_factory=dict)
    futures: dict[TopicPartition, ReplicaLog] = field(default_factory=dict)
    # Stray logs: on disk and listed by DescribeLogDirs, but no replica of the partition on this
    # broker (the half-copied log of a cancelled move, until the broker restarts; a deleted
    # topic's log, until its deletion delay passes: ``Cluster.stray_deadlines``).
    strays: dict[TopicPartition, ReplicaLog] = field(default_factory=dict)

    def used(self) -> int:
        return int(
            sum(r.size for r in self.logs.values())
            + sum(r.size for r in self.futures.values())
            + sum(r.size for r in self.strays.values())
        )


@dataclass
class BrokerState:
    id: int
    host: str
    port: int
    rack: str | None
    dirs: dict[str, LogDirState]
    alive: bool = True
    slow_ms: int = 0  # a busy broker: each answer is sent this late, the next request waits
    latency_ms: int = 0  # a distant broker: each answer arrives this late, requests pipelined meanwhile
    # AlterReplicaLogDirs destinations for replicas not created yet (in memory: lost on restart).
    preferred_dirs: dict[TopicPartition, str] = field(default_factory=dict)
    # Future replicas in the order they were requested; the head one is copied.
    move_queue: list[TopicPartition] = field(default_factory=list)
    # Why Kafka halted this broker (its last online log directory failed), until it starts again.
    halted: str | None = None

    def dir_of(self, tp: TopicPartition) -> LogDirState | None:
        for d in self.dirs.values():
            if tp in d.logs:
                return d
        return None

    def future_dir_of(self, tp: TopicPartition) -> LogDirState | None:
        for d in self.dirs.values():
            if tp in d.futures:
                return d
        return None

    def log(self, tp: TopicPartition) -> ReplicaLog | None:
        d = self.dir_of(tp)
        return d.logs[tp] if d else None

    def replica_online(self, tp: TopicPartition) -> bool:
        d = self.dir_of(tp)
        return self.alive and d is not None and d.online

    def future_offset_lag(self, tp: TopicPartition, future: ReplicaLog) -> int:
        """A future replica's OffsetLag in DescribeLogDirs: how far it is behind the current
        replica, or -1 (INVALID_OFFSET_LAG) when the current one is offline or missing, as Kafka
        has no online partition to compare with then (ReplicaManager.getLogEndOffsetLag, every
        version: a failed directory marks its partitions offline, while the future log in
        another directory stays listed)."""
        d = self.dir_of(tp)
        if d is None or not d.online:
            return INVALID_OFFSET_LAG
        return max(d.logs[tp].end_offset - future.end_offset, 0)

    def has_offline_dir(self) -> bool:
        return any(not d.online for d in self.dirs.values())


@dataclass
class PartitionState:
    topic: str
    index: int
    replicas: list[int]  # full replica set (RS): target first while reassigning
    isr: list[int]
    leader: int
    leader_epoch: int = 0
    partition_epoch: int = 0
    adding: list[int] = field(default_factory=list)
    removing: list[int] = field(default_factory=list)
    produce_rate: float = 0.0  # bytes per simulated second on the leader
    created_at: float = 0.0  # simulated time
    initial_size: float = 0.0
    records: PartitionRecords | None = None  # batches clients produced (api_records)
    # ZooKeeper mode: what brokers' Metadata still shows (replicas, isr, leader, leader_epoch)
    # until ``served_until`` (simulated time), while their UpdateMetadata is on its way.
    served: tuple | None = None
    served_until: float = 0.0

    def metadata_view(self, now: float) -> tuple[list[int], list[int], int, int]:
        """(replicas, isr, leader, leader_epoch) as brokers answer Metadata at ``now``."""
        if self.served is not None and now < self.served_until:
            return self.served
        return self.replicas, self.isr, self.leader, self.leader_epoch

    @property
    def tp(self) -> TopicPartition:
        return TopicPartition(self.topic, self.index)

    @property
    def reassigning(self) -> bool:
        return bool(self.adding or self.removing)

    @property
    def target(self) -> list[int]:
        return [b for b in self.replicas if b not in self.removing]

    @property
    def origin(self) -> list[int]:
        return [b for b in self.replicas if b not in self.adding]


@dataclass
class TopicState:
    name: str
    topic_id: uuid.UUID
    partitions: dict[int, PartitionState]
    configs: dict[str, str] = field(default_factory=dict)  # dynamic topic configs only


@dataclass
class Cluster:
    cluster_id: str
    mode: str
    brokers: dict[int, BrokerState]
    topics: dict[str, TopicState] = field(default_factory=dict)
    # Dynamic broker configs: "" is the cluster-wide default, "<id>" one broker.
    broker_configs: dict[str, dict[str, str]] = field(default_factory=dict)
    bandwidth: float = 100 * 2**20
    version: KafkaVersion = VERSIONS[DEFAULT]  # the Kafka version emulated (kadmin.sandbox.versions)
    now: float = 0.0  # simulated seconds since start
    controller_id: int = 0
    # Partitions that need the simulation's attention: a replica outside the ISR, a
    # reassignment, or a missing log. Kept small so a tick does not walk every partition.
    attention: set[TopicPartition] = field(default_factory=set)
    producing: set[TopicPartition] = field(default_factory=set)
    generation: int = 0  # bumped on every change Metadata shows
    # (broker, dir path, partition) -> simulated time a deleted topic's stray log disappears.
    stray_deadlines: dict = field(default_factory=dict)
    # Partitions whose brokers still serve stale Metadata (PartitionState.served).
    metadata_lags: set = field(default_factory=set)
    # KRaft before JBOD: (broker, dir path) of a failed directory -> simulated time its
    # partitions' leaders drop the broker's replicas from their ISR (controller.expire_isr).
    isr_expiries: dict = field(default_factory=dict)
    # Log directories of one broker share one filesystem: each reports the filesystem's total
    # and usable bytes (Sandbox(shared_fs=True)), as on test and cloud hosts.
    shared_fs: bool = False
    # Hooks for ZooKeeper mode: called with the partitions whose state changed.
    listeners: list = field(default_factory=list)

    def partition(self, tp: TopicPartition) -> PartitionState | None:
        t = self.topics.get(tp.topic)
        return t.partitions.get(tp.partition) if t else None

    def partition_by(self, topic: str, index: int) -> PartitionState | None:
        t = self.topics.get(topic)
        return t.partitions.get(index) if t else None

    def live_brokers(self) -> list[int]:
        return sorted(b.id for b in self.brokers.values() if b.alive)

    def leader_log(self, p: PartitionState) -> ReplicaLog | None:
        b = self.brokers.get(p.leader)
        if b is None or not b.replica_online(p.tp):
            return None
        return b.log(p.tp)

    def replica_online(self, tp: TopicPartition, broker_id: int) -> bool:
        b = self.brokers.get(broker_id)
        return b is not None and b.replica_online(tp)

    def bump(self) -> None:
        """Something Metadata shows changed (cached Metadata answers are stale)."""
        self.generation += 1

    def changed(self, tp: TopicPartition, *, topic: bool = False) -> None:
        """Mark a partition for the simulation and tell listeners (ZooKeeper mode)."""
        self.generation += 1
        self.attention.add(tp)
        for listener in self.listeners:
            listener.partition_changed(tp, topic_changed=topic)

    def log_dir_moved(self, broker_id: int, tp: TopicPartition, source: str, destination: str, size: float) -> None:
        """A future replica replaced the current one: tell the listeners that care."""
        for listener in self.listeners:
            hook = getattr(listener, "log_dir_moved", None)
            if hook is not None:
                hook(broker_id, tp, source, destination, size)

    def log_dir_failed(self, broker_id: int, path: str) -> None:
        """A directory failed on its own (it filled): tell the listeners that care (ZooKeeper
        mode announces it as a broker does)."""
        for listener in self.listeners:
            hook = getattr(listener, "log_dir_failed", None)
            if hook is not None:
                hook(broker_id)

    def all_partitions(self):
        for t in self.topics.values():
            yield from t.partitions.values()
