"""The one backend interface (KIP-179), implemented over the AdminClient protocol
(``admin.py``) and over ZooKeeper (``zookeeper.py``).

Method names follow KIP-179's AdminClient proposal. Everything crosses this boundary as the
plain values of ``kadmin.model``. A backend opened read-only refuses every mutating method
(``ReadOnlyBackend`` below), so describe, show, verify, progress, list and ``--dry-run`` are
read-only by construction.

Capabilities, not type checks: a command asks ``backend.capabilities`` whether it can do a
thing and explains what to use instead when it cannot.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from kadmin.model import (
    Assignment,
    Broker,
    ClusterState,
    ConfigChange,
    ConfigEntry,
    ConfigResource,
    LogDir,
    PartitionReassignment,
    ReplicaLogDir,
    TopicPartition,
    TopicPartitionReplica,
)

if TYPE_CHECKING:
    from kadmin.throttling.stores import RecordStore


class ElectionType(str, Enum):
    """ElectLeaders' election type (KIP-460): PREFERRED is 0 on the wire, UNCLEAN 1."""

    PREFERRED = "PREFERRED"
    UNCLEAN = "UNCLEAN"


class Capability(str, Enum):
    LOG_DIRS = "log_dirs"  # DescribeLogDirs / AlterReplicaLogDirs
    REASSIGN = "reassign"
    LIST_REASSIGNMENTS = "list_reassignments"
    CANCEL_REASSIGNMENTS = "cancel_reassignments"
    INCREMENTAL_ALTER_CONFIGS = "incremental_alter_configs"
    END_OFFSETS = "end_offsets"
    ELECT_LEADERS = "elect_leaders"
    UNCLEAN_ELECTION = "unclean_election"  # ElectLeaders UNCLEAN (not over ZooKeeper)
    # New reassignments may be added while others run (AlterPartitionReassignments); ZooKeeper's
    # /admin/reassign_partitions takes a new set only once the previous one is gone.
    CONCURRENT_REASSIGNMENTS = "concurrent_reassignments"
    THROTTLE_RECORDS = "throttle_records"  # throttle_record_store(): where kadmin's records live
    # describe_configs answers for a broker that is down too: ZooKeeper holds /config/brokers/<id>
    # (over the AdminClient protocol a broker answers for its own configs)
    CONFIGS_OF_DOWN_BROKERS = "configs_of_down_brokers"


@dataclass(frozen=True)
class BrokerLogDirs:
    """DescribeLogDirs from one broker: its directories, or why it could not answer."""

    broker: int
    log_dirs: tuple[LogDir, ...] = ()
    error: str | None = None  # e.g. "broker 3 unreachable: ..." when the broker did not answer


@dataclass(frozen=True)
class ReassignmentBlocked:
    """Why a backend can start no new reassignment now, whatever the plan, and what to do.
    ``stuck``: what blocks it is not being carried out either, so it will not clear by itself."""

    reason: str
    hint: str
    stuck: bool = False


@runtime_checkable
class Backend(Protocol):
    """How kadmin reaches a cluster. See module docstring."""

    name: str  # "admin" or "zookeeper"
    read_only: bool
    capabilities: frozenset[Capability]

    # --- reads ---------------------------------------------------------------------------
    @property
    def cluster_id(self) -> str | None:
        """The cluster's id (Metadata's ClusterId; ZooKeeper's /cluster/id); None if it has none."""

    def describe_cluster(self) -> ClusterState:
        """Brokers, controller and every partition (leader, replicas, ISR, offline replicas)."""

    def describe_brokers(self) -> Mapping[int, Broker]:
        """Live brokers only (cheaper than describe_cluster)."""

    def replica_brokers(self) -> set[int]:
        """Every broker some partition's replica set names (adding and removing ones too), live
        or not: those not among ``describe_brokers`` are down. Over ZooKeeper cheaper than
        describe_cluster (the topic znodes, not every partition's state)."""

    def describe_log_dirs(
        self, brokers: Iterable[int] | None = None, topics: Iterable[str] | None = None
    ) -> Mapping[int, BrokerLogDirs]:
        """DescribeLogDirs, fanned out to every broker concurrently. None = all."""

    def describe_replica_log_dirs(
        self, replicas: Iterable[TopicPartitionReplica]
    ) -> Mapping[TopicPartitionReplica, ReplicaLogDir]:
        """Where each replica lives on its broker, and any future replica in flight."""

    def list_partition_reassignments(
        self, partitions: Iterable[TopicPartition] | None = None
    ) -> Mapping[TopicPartition, PartitionReassignment]:
        """Ongoing reassignments only. None = all."""

    def describe_configs(
        self, resources: Iterable[ConfigResource], keys: Collection[str] | None = None
    ) -> Mapping[ConfigResource, Mapping[str, ConfigEntry]]:
        """Configs of topics and brokers; only those named in ``keys`` (None: every config).
        Kafka filters by name itself (DescribeConfigs' configuration_keys), so asking for a
        few configs of thousands of topics does not bring back all of theirs."""

    def list_end_offsets(self, partitions: Iterable[TopicPartition]) -> Mapping[TopicPartition, int]:
        """Latest offsets (log end offset of each leader)."""

    # --- changes -------------------------------------------------------------------------
    def reassign_partitions(
        self, assignments: Sequence[Assignment], validate_only: bool = False
    ) -> Mapping[TopicPartition, str | None]:
        """Start moving replicas between brokers. Result: per partition None or an error text.

        Throttles are set separately (alter_interbroker_throttled_*), before this call, so the
        caller controls merging and records what it set.
        """

    def cancel_partition_reassignments(
        self, partitions: Iterable[TopicPartition]
    ) -> Mapping[TopicPartition, str | None]:
        """Cancel ongoing reassignments (replicas go back to the original set)."""

    def alter_replica_log_dirs(
        self, moves: Mapping[TopicPartitionReplica, str]
    ) -> Mapping[TopicPartitionReplica, str | None]:
        """AlterReplicaLogDirs: per replica None or Kafka's error name
        (e.g. "REPLICA_NOT_AVAILABLE", "LOG_DIR_NOT_FOUND"), or "on broker B: <why>" when its
        broker B could not be asked (down, not answering: worth asking again); the other brokers'
        answers stand. Raises only for what no broker would answer (authorization, no cluster)."""

    def incremental_alter_configs(self, changes: Sequence[ConfigChange]) -> None:
        """Set or delete single config keys, leaving the others alone."""

    def elect_leaders(
        self, election_type: ElectionType, partitions: Iterable[TopicPartition]
    ) -> Mapping[TopicPartition, str | None]:
        """ElectLeaders (KIP-460): per partition None (elected) or Kafka's error name and
        message, e.g. "ELECTION_NOT_NEEDED: ..." or "PREFERRED_LEADER_NOT_AVAILABLE: ..."."""

    # --- kadmin's throttle records (Capability.THROTTLE_RECORDS) ---------------------------
    def throttle_record_store(self) -> RecordStore:
        """Where kadmin records the throttles it set (kadmin.throttling.stores), reached over this
        backend's connection, timeout and error mapping; read-only when the backend is."""

    def close(self) -> None: ...


class ReadOnlyViolation(RuntimeError):
    """A mutating method was called on a backend opened read-only: a bug in kadmin."""


MUTATING_METHODS = (
    "reassign_partitions",
    "cancel_partition_reassignments",
    "alter_replica_log_dirs",
    "incremental_alter_configs",
    "elect_leaders",
)


def reassignment_blocked(backend) -> ReassignmentBlocked | None:
    """Why ``backend`` can start no new reassignment now, or None when it can (subject to each
    partition's own checks). Only a backend without Capability.CONCURRENT_REASSIGNMENTS can be
    blocked; it says so through its optional ``reassignment_blocked()`` method (ZooKeeper: while
    /admin/reassign_partitions exists, which --additional cannot change)."""
    if Capability.CONCURRENT_REASSIGNMENTS in getattr(backend, "capabilities", frozenset()):
        return None
    read = getattr(backend, "reassignment_blocked", None)
    return read() if read is not None else None


def requests_not_taken(
    blocked: ReassignmentBlocked | None,
    ongoing: Mapping[TopicPartition, PartitionReassignment],
    cluster: ClusterState,
) -> dict[TopicPartition, PartitionReassignment]:
    """Of the reassignments ``ongoing`` lists, those no broker is carrying out because what
    blocks new ones is stuck (``blocked.stuck``); empty otherwise. Over ZooKeeper: the entries of
    a stuck /admin/reassign_partitions, requests the controller never took, so the topic znode
    (read into ``cluster``) names no adding or removing replica for them, and a broker's
    ListPartitionReassignments does not list them. A partition moving in the cluster is never
    one."""
    if blocked is None or not blocked.stuck:
        return {}
    return {
        tp: r
        for tp, r in ongoing.items()
        if (p := cluster.partitions.get(tp)) is not None and not p.adding and not p.removing
    }


def not_taken_reason(blocked: ReassignmentBlocked, tps: Sequence[TopicPartition], whose: str = "") -> str:
    """What ``blocked`` is, and that the partitions ``tps`` are requested there but not moving:
    the words verify, progress and throttle show give for ``requests_not_taken``."""
    names = ", ".join(str(tp) for tp in tps)
    many = len(tps) > 1
    return (
        f"{blocked.reason}; {whose}{names} {'are' if many else 'is'} requested there, but no broker is moving "
        f"{'them' if many else 'it'}"
    )


def read_together(backend, *reads) -> list:
    """The results of ``reads`` (callables reading through ``backend``), in order: with their
    requests in flight at once where the backend can (``AdminBackend.read_together``), else one
    after another."""
    together = getattr(backend, "read_together", None)
    return together(*reads) if together is not None else [read() for read in reads]
