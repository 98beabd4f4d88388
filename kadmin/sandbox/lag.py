"""Views that catch up late: what Kafka's brokers show a moment after a reassignment ends.

When a reassignment completes (or is cancelled) the controller knows at once, so
ListPartitionReassignments no longer lists it; the brokers learn it later, each at its own
moment: KRaft brokers replay the metadata log, ZooKeeper-mode brokers wait for the controller's
UpdateMetadata (sent after its ZooKeeper writes, so they lag more). Until then:

- Metadata answered by a broker still shows the partition as it was just before the end: the
  full replica set (target first, then the replicas being removed), the ISR and leader of then;
- DescribeLogDirs on a removed replica's broker still lists that replica (StopReplica has not
  reached it), in the directory it was in;
- a log-dir move just promoted is still shown by its broker's DescribeLogDirs as a future
  replica (lag 0) in the destination beside the current one in the source.

The delays are simulated seconds, fixed per broker, mode and version (deterministic under the
manual clock), and all well under two seconds. The module listens to the cluster
(``Cluster.listeners``) and rewrites answers in the two handlers; the controller and the
replication step do not know about it.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

from kadmin.model import TopicPartition
from kadmin.sandbox.cluster import ZOOKEEPER, Cluster, PartitionState
from kadmin.sandbox.versions import KafkaVersion


def metadata_delay(version: KafkaVersion, zookeeper: bool, broker_id: int) -> float:
    """Simulated seconds after a reassignment ends before ``broker_id``'s Metadata shows it."""
    if zookeeper:  # UpdateMetadata goes out after the controller's ZooKeeper writes, broker by broker
        base, step = 0.6, 0.3
    else:  # brokers replay the metadata log at their own pace
        base, step = 0.2, 0.15
    if not version.at_least(3, 5):
        base += 0.1  # older brokers publish metadata images less eagerly
    return round(base + step * (broker_id % 3), 3)


def log_dirs_delay(version: KafkaVersion, zookeeper: bool, broker_id: int) -> float:
    """Simulated seconds after a move ends before ``broker_id``'s DescribeLogDirs shows it
    (at other moments than its Metadata)."""
    if zookeeper:
        base, step = 0.4, 0.35
    else:
        base, step = 0.1, 0.2
    return round(base + step * ((broker_id + 1) % 3), 3)


@dataclass(frozen=True)
class PartitionView:
    """What a lagging broker's Metadata shows of a partition, until ``until``."""

    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    leader: int
    leader_epoch: int
    until: float


@dataclass(frozen=True)
class ListedReplica:
    """A replica a broker's DescribeLogDirs still lists, until ``until``: the current one in
    ``path`` and, when ``future_path`` is set, a caught-up future one there."""

    path: str
    size: int
    until: float
    future_path: str | None = None


@dataclass
class _Before:
    """A reassigning partition as last seen, and where its removed replicas were."""

    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    leader: int
    leader_epoch: int
    removing: tuple[int, ...]
    removed_logs: dict[int, tuple[str, int]] = field(default_factory=dict)  # broker -> (dir, size)


class Lag:
    """A cluster listener keeping the stale views; the handlers ask it per broker."""

    def __init__(self, cluster: Cluster):
        self.cluster = cluster
        self.zookeeper = cluster.mode == ZOOKEEPER
        self._before: dict[TopicPartition, _Before] = {}
        self.metadata: dict[int, dict[TopicPartition, PartitionView]] = {}
        self.log_dirs: dict[int, dict[TopicPartition, ListedReplica]] = {}

    # --- listening --------------------------------------------------------------------------
    def partition_changed(self, tp: TopicPartition, *, topic_changed: bool = False) -> None:
        p = self.cluster.partition(tp)
        if p is None or not p.reassigning:
            return
        removed = {}
        for b in p.removing:
            broker = self.cluster.brokers.get(b)
            d = broker.dir_of(tp) if broker is not None else None
            if d is not None:
                removed[b] = (d.path, int(d.logs[tp].size))
        self._before[tp] = _Before(
            tuple(p.replicas), tuple(p.isr), p.leader, p.leader_epoch, tuple(p.removing), removed
        )

    def reassignment_completed(self, tp: TopicPartition) -> None:
        """Completed or cancelled: every broker's Metadata keeps the last view for a while, and
        the brokers of removed replicas keep listing them."""
        before = self._before.pop(tp, None)
        p = self.cluster.partition(tp)
        if before is None or p is None:
            return
        now, version = self.cluster.now, self.cluster.version
        for b in self.cluster.brokers:
            until = now + metadata_delay(version, self.zookeeper, b)
            self.metadata.setdefault(b, {})[tp] = PartitionView(
                before.replicas, before.isr, before.leader, before.leader_epoch, until
            )
        for b, (path, size) in before.removed_logs.items():
            if b not in p.replicas:
                until = now + log_dirs_delay(version, self.zookeeper, b)
                self.log_dirs.setdefault(b, {})[tp] = ListedReplica(path, size, until)

    def log_dir_moved(self, broker_id: int, tp: TopicPartition, source: str, destination: str, size: float) -> None:
        until = self.cluster.now + log_dirs_delay(self.cluster.version, self.zookeeper, broker_id)
        self.log_dirs.setdefault(broker_id, {})[tp] = ListedReplica(source, int(size), until, destination)

    def topic_deleted(self, name: str) -> None:
        every: list[MutableMapping[TopicPartition, Any]] = [
            self._before,
            *self.metadata.values(),
            *self.log_dirs.values(),
        ]
        for views in every:
            for tp in [tp for tp in views if tp.topic == name]:
                del views[tp]

    # --- asking -----------------------------------------------------------------------------
    def stale_metadata(self, broker_id: int) -> dict[TopicPartition, PartitionView]:
        """The partitions ``broker_id``'s Metadata still shows as they were (expired ones dropped)."""
        return _live(self.metadata.get(broker_id), self.cluster.now)

    def stale_log_dirs(self, broker_id: int) -> dict[TopicPartition, ListedReplica]:
        return _live(self.log_dirs.get(broker_id), self.cluster.now)


def _live(views: dict | None, now: float) -> dict:
    if not views:
        return {}
    for tp in [tp for tp, v in views.items() if v.until <= now]:
        del views[tp]
    return dict(views)


def partition_view(p: PartitionState, stale: dict[TopicPartition, PartitionView]):
    """(replicas, isr, leader, leader_epoch) a broker shows for ``p``."""
    v = stale.get(p.tp) if stale else None
    if v is None:
        return list(p.replicas), list(p.isr), p.leader, p.leader_epoch
    return list(v.replicas), list(v.isr), v.leader, v.leader_epoch


def lagging_reports(
    reports: list, stale: dict[TopicPartition, ListedReplica], wanted: dict[str, set[int]] | None
) -> list:
    """``logdirs.describe_log_dirs``'s reports with the replicas a broker still lists put back
    where they were (a removed replica in its directory; a promoted log-dir move as current in
    the source and a caught-up future in the destination)."""
    stale = {tp: v for tp, v in stale.items() if wanted is None or tp.partition in wanted.get(tp.topic, ())}
    if not stale:
        return reports
    from dataclasses import replace

    listed = {(t, i) for d in reports for t, parts in d.topics.items() for i, _, _, fut in parts if not fut}
    add: dict[str, list] = {}
    drop = set()
    for tp, v in stale.items():
        if v.future_path is None:
            if (tp.topic, tp.partition) in listed:
                continue  # the broker holds it again: what is there wins
        else:
            drop.add((tp.topic, tp.partition))
            add.setdefault(v.future_path, []).append((tp, (tp.partition, v.size, 0, True)))
        add.setdefault(v.path, []).append((tp, (tp.partition, v.size, 0, False)))
    out = []
    for d in reports:
        if d.error_code != 0 or (d.path not in add and not drop):
            out.append(d)
            continue
        topics = {t: [e for e in parts if (t, e[0]) not in drop] for t, parts in d.topics.items()}
        for tp, entry in add.get(d.path, ()):
            topics.setdefault(tp.topic, []).append(entry)
        out.append(replace(d, topics={t: sorted(v) for t, v in sorted(topics.items()) if v or t in d.topics}))
    return out


def install(cluster: Cluster) -> Lag:
    lag = Lag(cluster)
    cluster.listeners.append(lag)
    return lag
