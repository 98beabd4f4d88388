"""Plain dataclasses: the vocabulary every part of kadmin shares.

Names follow Kafka's (TopicPartition, replicas, ISR, log dir, future replica...). These are
values: no I/O, no client library types. Backends translate to and from them; planners and
commands only ever see these.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import cast


@dataclass(frozen=True, order=True)
class TopicPartition:
    topic: str
    partition: int

    def __str__(self) -> str:  # Kafka's own spelling, as in kafka-log-dirs.sh: "foo-0"
        return f"{self.topic}-{self.partition}"


@dataclass(frozen=True, order=True)
class TopicPartitionReplica:
    """One replica: a partition on one broker (Kafka's TopicPartitionReplica)."""

    topic: str
    partition: int
    broker: int

    @property
    def tp(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)


@dataclass(frozen=True)
class Broker:
    id: int
    host: str
    port: int
    rack: str | None = None


@dataclass(frozen=True)
class PartitionState:
    """A partition as Metadata (and ListPartitionReassignments) show it."""

    topic: str
    partition: int
    leader: int  # -1 when there is none
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    offline_replicas: tuple[int, ...] = ()
    # Set only while a reassignment runs (from ListPartitionReassignments or the topic znode).
    adding: tuple[int, ...] = ()
    removing: tuple[int, ...] = ()

    @property
    def tp(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)


# Why a broker ``ClusterState.down_brokers`` names has no answer in a report (a down broker: a
# partition's replica set names it, but the cluster does not list it among its live brokers, so
# nothing can be asked of it). ``DOWN_ERROR`` is the error the reports carry for it (the JSON of
# log-dirs describe, progress's unanswered_brokers, fleet reports); people read
# f"broker {b} is down ({DOWN_REASON})", never that it "did not answer" a request it was not sent.
DOWN_REASON = "not in the cluster's broker list"
DOWN_ERROR = f"down: {DOWN_REASON}"


def is_down_error(error: str | None) -> bool:
    """Whether a broker's error is ``DOWN_ERROR``: down, not asked, rather than silent."""
    return error == DOWN_ERROR


@dataclass(frozen=True)
class ClusterState:
    """Brokers and topics: what Metadata/DescribeCluster (or ZooKeeper) say."""

    cluster_id: str | None
    controller_id: int | None
    brokers: Mapping[int, Broker]
    partitions: Mapping[TopicPartition, PartitionState]

    @property
    def topics(self) -> list[str]:
        return sorted({tp.topic for tp in self.partitions})

    def partitions_of(self, topic: str) -> list[PartitionState]:
        return sorted((p for tp, p in self.partitions.items() if tp.topic == topic), key=lambda p: p.partition)

    def replica_brokers(self) -> set[int]:
        """Every broker the partitions name as a replica (adding and removing ones too), live or not."""
        return {b for p in self.partitions.values() for b in (*p.replicas, *p.adding, *p.removing)}

    def down_brokers(self) -> set[int]:
        """Brokers the partitions name as replicas that are not among the live brokers: down (or
        gone), so nothing they hold can be asked of them (`leaders show` marks them "(down)"; a
        report that lacks one says ``DOWN_ERROR``)."""
        return self.replica_brokers() - set(self.brokers)

    def with_reassignments(self, ongoing: Mapping[TopicPartition, PartitionReassignment]) -> ClusterState:
        """The same cluster with each reassigning partition's adding and removing replicas set.
        ZooKeeper's topic znodes carry them; Metadata does not (its replica list already holds
        the full set), so over the AdminClient protocol they come from ListPartitionReassignments."""
        from dataclasses import replace

        partitions = dict(self.partitions)
        for tp, r in ongoing.items():
            state = partitions.get(tp)
            if state is not None and (state.adding, state.removing) != (r.adding, r.removing):
                partitions[tp] = replace(state, adding=r.adding, removing=r.removing)
        return replace(self, partitions=partitions)


class LogDirStatus(str, Enum):
    ONLINE = "online"
    OFFLINE = "offline"
    CORDONED = "cordoned"


@dataclass(frozen=True)
class ReplicaInfo:
    """One replica in one log directory (DescribeLogDirs' partition entry)."""

    topic: str
    partition: int
    size: int
    offset_lag: int
    is_future: bool

    @property
    def tp(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)


@dataclass(frozen=True)
class LogDir:
    """One log directory of one broker (DescribeLogDirs' result entry)."""

    broker: int
    path: str
    error: str | None = None  # Kafka's error class name, e.g. "KafkaStorageException"; None if ok
    total_bytes: int | None = None  # None when the broker does not say (DescribeLogDirs < v4)
    usable_bytes: int | None = None
    cordoned: bool = False
    replicas: tuple[ReplicaInfo, ...] = ()

    @property
    def status(self) -> LogDirStatus:
        if self.error is not None:
            return LogDirStatus.OFFLINE
        if self.cordoned:
            return LogDirStatus.CORDONED
        return LogDirStatus.ONLINE

    @property
    def used_bytes(self) -> int:
        """Bytes of the replicas in this directory (current and future)."""
        return sum(r.size for r in self.replicas)


@dataclass(frozen=True)
class ReplicaLogDir:
    """Where one replica lives on its broker (DescribeReplicaLogDirs in Kafka's AdminClient)."""

    replica: TopicPartitionReplica
    current_dir: str | None
    future_dir: str | None = None
    current_offset_lag: int | None = None
    future_offset_lag: int | None = None
    current_size: int | None = None
    future_size: int | None = None


@dataclass(frozen=True)
class PartitionReassignment:
    """An ongoing reassignment (ListPartitionReassignments' entry)."""

    topic: str
    partition: int
    replicas: tuple[int, ...]
    adding: tuple[int, ...]
    removing: tuple[int, ...]

    @property
    def tp(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)

    @property
    def target(self) -> tuple[int, ...]:
        """The target replica set: full set minus the replicas being removed, in order."""
        return tuple(b for b in self.replicas if b not in self.removing)


ANY_LOG_DIR = "any"


@dataclass(frozen=True)
class Assignment:
    """One entry of a reassignment plan: Kafka's ``{"topic","partition","replicas","log_dirs"}``.

    ``log_dirs`` is None when the plan gives none; otherwise one entry per replica, each "any"
    or an absolute path.
    """

    topic: str
    partition: int
    replicas: tuple[int, ...]
    log_dirs: tuple[str, ...] | None = None

    @property
    def tp(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)

    def log_dir_targets(self) -> dict[int, str]:
        """Broker -> requested absolute path, leaving out "any"."""
        if self.log_dirs is None:
            return {}
        return {b: d for b, d in zip(self.replicas, self.log_dirs) if d != ANY_LOG_DIR}


@dataclass(frozen=True)
class ReassignmentPlan:
    """A reassignment JSON file (version 1) as values."""

    partitions: tuple[Assignment, ...]
    version: int = 1

    def by_partition(self) -> dict[TopicPartition, Assignment]:
        return {a.tp: a for a in self.partitions}

    @property
    def topics(self) -> list[str]:
        return sorted({a.topic for a in self.partitions})


class ConfigResourceType(str, Enum):
    TOPIC = "topic"
    BROKER = "broker"


@dataclass(frozen=True, order=True)
class ConfigResource:
    type: ConfigResourceType
    name: str  # topic name, broker id as text, or "" for the cluster-wide broker default


class ConfigSource(str, Enum):
    TOPIC = "topic"  # DYNAMIC_TOPIC_CONFIG
    DYNAMIC_BROKER = "dynamic_broker"
    DYNAMIC_DEFAULT_BROKER = "dynamic_default_broker"
    STATIC_BROKER = "static_broker"
    DEFAULT = "default"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class ConfigEntry:
    name: str
    value: str | None
    source: ConfigSource = ConfigSource.UNKNOWN
    sensitive: bool = False


class AlterOp(str, Enum):
    SET = "set"
    DELETE = "delete"


@dataclass(frozen=True)
class ConfigChange:
    """One IncrementalAlterConfigs operation."""

    resource: ConfigResource
    name: str
    op: AlterOp
    value: str | None = None


# Throttle config names (Kafka's server ConfigHandler / ReplicationQuotaManager).
LEADER_RATE = "leader.replication.throttled.rate"
FOLLOWER_RATE = "follower.replication.throttled.rate"
LOG_DIR_RATE = "replica.alter.log.dirs.io.max.bytes.per.second"
LEADER_REPLICAS = "leader.replication.throttled.replicas"
FOLLOWER_REPLICAS = "follower.replication.throttled.replicas"
BROKER_THROTTLE_CONFIGS = (LEADER_RATE, FOLLOWER_RATE, LOG_DIR_RATE)
TOPIC_THROTTLE_CONFIGS = (LEADER_REPLICAS, FOLLOWER_REPLICAS)
THROTTLE_CONFIGS = BROKER_THROTTLE_CONFIGS + TOPIC_THROTTLE_CONFIGS  # every config a throttle lives in


@dataclass(frozen=True)
class Throttle:
    """Throttle settings of a cluster: broker rates and topic throttled-replica lists.
    ``invalid_rates``: broker rate configs set to a value Kafka cannot read as a rate ("abc":
    possible when /config/brokers/<id> is written in ZooKeeper directly), as set. Nobody needs
    such a value (Kafka cannot apply it) and kadmin never sets one."""

    broker_rates: Mapping[int, Mapping[str, int]] = field(default_factory=dict)
    topic_replicas: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    invalid_rates: Mapping[int, Mapping[str, str]] = field(default_factory=dict)

    def as_set(self) -> Throttle:
        """Every value as set, the invalid ones as their raw text (for printing what a change replaces)."""
        if not self.invalid_rates:
            return self
        rates: dict[int, dict[str, int | str]] = {b: dict(by_name) for b, by_name in self.broker_rates.items()}
        for b, by_name in self.invalid_rates.items():
            rates.setdefault(b, {}).update(by_name)
        # Only printed (a change's "before"): the raw texts stand where numbers stand elsewhere.
        return Throttle(broker_rates=cast(Mapping[int, Mapping[str, int]], rates), topic_replicas=self.topic_replicas)


def parse_replica_list(value: str | None) -> tuple[str, ...]:
    """Parse a throttled-replicas value ("0:1,1:2" or "*") into sorted, distinct entries."""
    if not value:
        return ()
    items = {item.strip() for item in value.split(",") if item.strip()}
    return tuple(sorted(items, key=_replica_sort_key))


def format_replica_list(entries: Sequence[str]) -> str:
    return ",".join(sorted(set(entries), key=_replica_sort_key))


def _replica_sort_key(entry: str) -> tuple:
    if entry == "*":
        return (-1, -1)
    p, _, b = entry.partition(":")
    try:
        return (int(p), int(b))
    except ValueError:
        return (1 << 62, 0, entry)


def replica_dirs_of(
    replicas: Collection[int], broker: int, current_dir: str | None, future_dir: str | None
) -> tuple[str | None, str | None]:
    """Where ``broker``'s replica of a partition is (current, future directory), from what
    DescribeLogDirs lists (``current_dir``, ``future_dir``) and the partition's replica set
    (Metadata, ``replicas``): nowhere when the broker is not in the set, whatever it lists. A
    cancelled reassignment leaves the half-copied replicas it was adding on their brokers' disks,
    listed by DescribeLogDirs until the broker restarts: stray logs, not replicas."""
    if broker not in replicas:
        return None, None
    return current_dir, future_dir


def replica_in_place(
    replicas: Collection[int], broker: int, current_dir: str | None, future_dir: str | None, path: str
) -> bool:
    """The rule for "a replica is where a plan puts it": ``broker`` is in the partition's
    replica set and its replica is in ``path`` with no move between directories running. The
    arguments as ``replica_dirs_of``'s."""
    current, future = replica_dirs_of(replicas, broker, current_dir, future_dir)
    return current == path and future is None
