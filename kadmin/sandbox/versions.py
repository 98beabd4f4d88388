"""The Kafka versions the sandbox emulates.

A client library picks the highest protocol version both sides know, so a cluster of another
Kafka version shows kadmin other message shapes. The sandbox emulates one version per cluster:
what its brokers advertise in ApiVersions (``shared/kafka-api-versions/`` holds what real 3.3.1
and 4.3.1 brokers advertise) and the behaviours that differ between versions (KAFKA-FACTS.md).

Code that behaves differently per version asks a ``KafkaVersion`` (``cluster.version``) a
question named after the behaviour, never compares version strings itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from kadmin.errors import UsageError

CORDONED_LOG_DIRS_SINCE = (4, 3)  # KIP-1066


@dataclass(frozen=True)
class KafkaVersion:
    name: str  # "2.8", "3.3", "3.9", "4.3"
    major: int
    minor: int

    @property
    def supports_zookeeper(self) -> bool:
        """ZooKeeper mode was removed in Kafka 4.0."""
        return self.major < 4

    @property
    def supports_kraft(self) -> bool:
        """KRaft clusters are production-ready from 3.3 (KIP-833); 2.8's KRaft was an early-access
        preview without partition reassignment, so a 2.8 cluster is a ZooKeeper-mode one."""
        return self.at_least(3, 3)

    @property
    def kraft_retarget_keeps_adding(self) -> bool:
        """KRaft's controller (ReplicationControlManager, PartitionReassignmentReplicas) computes
        a re-target's adding/removing from the partition's current *full* replica set and writes
        them only when non-empty, so a re-target in flight can keep the old adding/removing
        replicas. Every emulated version's KRaft controller does (3.3 used the same rule);
        ZooKeeper mode re-targets from the original replicas instead."""
        return self.at_least(3, 3)

    @property
    def kraft_log_dir_failure_reaches_controller(self) -> bool:
        """KRaft JBOD (KIP-858, 3.7+): a broker reports a failed log directory to the controller,
        which moves leadership off it and lists its replicas as offline. Before, a KRaft broker
        only stopped serving the directory's replicas itself (3.3.1's
        ReplicaManager.handleLogDirFailure: "Unable to propagate log dir failure via Zookeeper in
        KRaft mode"): leaders, ISR and epochs stay as they were, Metadata lists as offline only
        the replicas of fenced brokers (KRaftMetadataCache.getOfflineReplicas, KAFKA-13005), and
        a leader drops a follower whose directory failed from the ISR once it has not fetched for
        ``replica_lag_time_max_seconds``. ZooKeeper mode always told its controller
        (/log_dir_event_notification)."""
        return self.at_least(3, 7)

    @property
    def replica_lag_time_max_seconds(self) -> float:
        """replica.lag.time.max.ms (30 s since 2.5, KIP-537): how long a leader keeps a follower
        that stopped fetching in the ISR."""
        return 30.0

    @property
    def deleted_topic_logs_listed_seconds(self) -> float:
        """How long DescribeLogDirs still lists the replicas of a deleted topic (seen on real
        clusters: up to a minute; Kafka's file.delete.delay.ms is 60 s)."""
        return 60.0

    @property
    def zookeeper_metadata_lag_seconds(self) -> float:
        """ZooKeeper mode: after the controller writes a reassignment's znodes, the brokers'
        Metadata answers lag until their UpdateMetadata arrives (simulated seconds, short and
        deterministic under the manual clock). KRaft brokers follow the metadata log: no lag."""
        return 0.5 if self.supports_zookeeper else 0.0

    @property
    def formats_min_insync_replicas_default(self) -> bool:
        """Kafka 4.x's storage format (KRaft) writes ``min.insync.replicas=1`` as a cluster-wide
        dynamic broker default (seen on 4.3.1), so it shows up as a dynamic config nobody set."""
        return self.at_least(4, 0)

    @property
    def has_cordoned_log_dirs(self) -> bool:
        """Cordoned log directories (KIP-1066: the broker config ``cordoned.log.dirs``,
        DescribeLogDirs v5's IsCordoned) came with Kafka 4.3; before, nothing can cordon a
        directory, and DescribeLogDirs has no field to show one."""
        return self.at_least(*CORDONED_LOG_DIRS_SINCE)

    def at_least(self, major: int, minor: int = 0) -> bool:
        return (self.major, self.minor) >= (major, minor)

    def __str__(self) -> str:
        return self.name


VERSIONS: dict[str, KafkaVersion] = {
    v.name: v
    for v in (
        KafkaVersion("2.8", 2, 8),
        KafkaVersion("3.3", 3, 3),
        KafkaVersion("3.9", 3, 9),
        KafkaVersion("4.3", 4, 3),
    )
}
DEFAULT = "4.3"
DEFAULT_ZOOKEEPER = "3.9"  # the newest version with ZooKeeper mode


def emulated(name: str) -> KafkaVersion:
    """The emulated version named ``name`` ("3.3", "3.3.1" and "4.3" alike), whatever the mode."""
    short = ".".join(str(name).strip().split(".")[:2])
    version = VERSIONS.get(short)
    if version is None:
        raise UsageError(f"Kafka version {name} is not emulated; choose one of {', '.join(VERSIONS)}")
    return version


def kafka_version(name: str | None, *, zookeeper: bool = False) -> KafkaVersion:
    """The emulated version named ``name`` for a cluster of that mode; None = the default for the
    mode. ZooKeeper mode is refused for 4.x, as Kafka removed it; KRaft for 2.8, as it had none
    fit to run."""
    version = emulated(name if name is not None else DEFAULT_ZOOKEEPER if zookeeper else DEFAULT)
    if zookeeper and not version.supports_zookeeper:
        raise UsageError(
            f"Kafka {version} has no ZooKeeper mode (removed in 4.0); "
            "use --kafka-version 2.8, 3.3 or 3.9 with --zookeeper"
        )
    if not zookeeper and not version.supports_kraft:
        raise UsageError(
            f"Kafka {version} ran with ZooKeeper only (its KRaft mode was an early-access preview without "
            "partition reassignment): give --zookeeper, or use --kafka-version 3.3 or later"
        )
    return version
