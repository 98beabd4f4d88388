"""An in-memory Backend for unit tests of the executor's logic (below the wire; integration
tests use the sandbox). It keeps a tiny cluster: partitions, log directories, ongoing
reassignments, configs, and the mutating calls it received, in order."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping, Sequence

import functools

from kadmin.backends.base import MUTATING_METHODS, BrokerLogDirs, Capability, ReadOnlyViolation
from kadmin.model import (
    AlterOp,
    Assignment,
    Broker,
    ClusterState,
    ConfigChange,
    ConfigEntry,
    ConfigResource,
    ConfigResourceType,
    ConfigSource,
    LogDir,
    PartitionReassignment,
    PartitionState,
    ReplicaInfo,
    ReplicaLogDir,
    TopicPartition,
)


def cluster_state(assignment: Mapping[str, Mapping[int, Sequence[int]]], brokers: Iterable[int] = (1, 2, 3)) -> ClusterState:
    """A ClusterState with every replica in sync and the first replica leading."""
    parts = {}
    for topic, by_p in assignment.items():
        for p, reps in by_p.items():
            parts[TopicPartition(topic, p)] = PartitionState(topic, p, reps[0], tuple(reps), tuple(reps))
    return ClusterState("fake", min(brokers), {b: Broker(b, "127.0.0.1", 9000 + b) for b in brokers}, parts)


def broker_log_dirs(dirs: Mapping[int, Sequence[str]], placement: Mapping[tuple[TopicPartition, int], str] = (), offline=(), cordoned=()) -> dict[int, BrokerLogDirs]:
    """DescribeLogDirs results: ``dirs`` broker -> paths; ``placement`` (tp, broker) -> path."""
    out = {}
    placement = dict(placement)
    for b, paths in dirs.items():
        lds = []
        for path in paths:
            reps = tuple(
                ReplicaInfo(tp.topic, tp.partition, 100, 0, False)
                for (tp, broker), d in sorted(placement.items()) if broker == b and d == path
            )
            lds.append(LogDir(b, path, "KafkaStorageException" if (b, path) in offline else None,
                              cordoned=(b, path) in cordoned, replicas=reps if (b, path) not in offline else ()))
        out[b] = BrokerLogDirs(b, tuple(lds))
    return out


def read_only_enforced(cls):
    """Make a fake refuse every mutating method while ``read_only`` is set, as the real backends
    do (``ReadOnlyViolation``), so a command that changes the cluster from a read-only connection
    fails its tests instead of passing them."""
    for name in MUTATING_METHODS:
        method = getattr(cls, name, None)
        if method is None:  # a change this fake does not model at all (e.g. elect_leaders)
            continue

        @functools.wraps(method)
        def guarded(self, *args, _method=method, _name=name, **kwargs):
            if self.read_only:
                raise ReadOnlyViolation(f"{_name} called on a read-only backend")
            return _method(self, *args, **kwargs)

        setattr(cls, name, guarded)
    return cls


@read_only_enforced
class FakeBackend:
    name = "fake"
    read_only = False
    capabilities = frozenset(Capability)

    def __init__(self, cluster: ClusterState, dirs: Mapping[int, Sequence[str]], placement: Mapping[tuple[TopicPartition, int], str] | None = None):
        self.cluster = cluster
        self.dirs = {b: list(p) for b, p in dirs.items()}
        # (tp, broker) -> current dir; replicas with no entry go to the broker's first dir.
        self.placement = dict(placement or {})
        for tp, ps in cluster.partitions.items():
            for b in ps.replicas:
                self.placement.setdefault((tp, b), self.dirs[b][0])
        self.future: dict[tuple[TopicPartition, int], str] = {}
        self.remembered: dict[tuple[TopicPartition, int], str] = {}  # destinations for replicas to come
        self.reassigning: dict[TopicPartition, PartitionReassignment] = {}
        self.configs: dict[ConfigResource, dict[str, str]] = {}
        self.calls: list[tuple[str, object]] = []
        self.replica_not_available_rounds = 0  # extra RNA answers for replicas that do exist
        self.reassign_errors: dict[TopicPartition, str] = {}
        self.auto_create = False  # create adding replicas as soon as a reassignment starts

    # --- reads ---
    def describe_cluster(self) -> ClusterState:
        return self.cluster

    def describe_brokers(self):
        return self.cluster.brokers

    def describe_log_dirs(self, brokers=None, topics=None):
        out = broker_log_dirs(self.dirs, self.placement)
        for (tp, b), path in sorted(self.future.items()):
            bld = out[b]
            dirs = tuple(
                replace(d, replicas=d.replicas + (ReplicaInfo(tp.topic, tp.partition, 50, 10, True),)) if d.path == path else d
                for d in bld.log_dirs
            )
            out[b] = replace(bld, log_dirs=dirs)
        return out

    def describe_replica_log_dirs(self, replicas):
        out = {}
        for r in replicas:
            key = (r.tp, r.broker)
            out[r] = ReplicaLogDir(r, self.placement.get(key), self.future.get(key))
        return out

    def list_partition_reassignments(self, partitions=None):
        wanted = None if partitions is None else set(partitions)
        return {tp: r for tp, r in self.reassigning.items() if wanted is None or tp in wanted}

    def describe_configs(self, resources, keys=None):
        def source(r):
            return ConfigSource.TOPIC if r.type is ConfigResourceType.TOPIC else ConfigSource.DYNAMIC_BROKER

        return {
            r: {
                k: ConfigEntry(k, v, source(r))
                for k, v in self.configs.get(r, {}).items()
                if keys is None or k in keys
            }
            for r in resources
        }

    def list_end_offsets(self, partitions):
        return {tp: 0 for tp in partitions}

    # --- changes ---
    def reassign_partitions(self, assignments: Sequence[Assignment], validate_only: bool = False):
        self.calls.append(("reassign_partitions", tuple(assignments)))
        result = {}
        parts = dict(self.cluster.partitions)
        for a in assignments:
            if a.tp in self.reassign_errors:
                result[a.tp] = self.reassign_errors[a.tp]
                continue
            cur = parts[a.tp]
            original = tuple(b for b in cur.replicas if b not in cur.adding)
            full = tuple(dict.fromkeys(a.replicas + original))
            adding = tuple(b for b in full if b not in original)
            removing = tuple(b for b in full if b not in a.replicas)
            self.reassigning[a.tp] = PartitionReassignment(a.topic, a.partition, full, adding, removing)
            parts[a.tp] = replace(cur, replicas=full, adding=adding, removing=removing)
            result[a.tp] = None
        self.cluster = replace(self.cluster, partitions=parts)
        if self.auto_create:
            self.create_adding_replicas()
        return result

    def cancel_partition_reassignments(self, partitions):
        partitions = list(partitions)
        self.calls.append(("cancel_partition_reassignments", tuple(partitions)))
        out = {}
        parts = dict(self.cluster.partitions)
        for tp in partitions:
            r = self.reassigning.pop(tp, None)
            if r is None:
                out[tp] = "NO_REASSIGNMENT_IN_PROGRESS"
                continue
            original = tuple(b for b in r.replicas if b not in r.adding)
            parts[tp] = replace(parts[tp], replicas=original, isr=original, adding=(), removing=())
            for b in r.adding:
                self.placement.pop((tp, b), None)
            out[tp] = None
        self.cluster = replace(self.cluster, partitions=parts)
        return out

    def alter_replica_log_dirs(self, moves):
        moves = dict(moves)
        self.calls.append(("alter_replica_log_dirs", moves))
        out = {}
        for r, path in moves.items():
            key = (r.tp, r.broker)
            if path not in self.dirs.get(r.broker, ()):
                out[r] = "LOG_DIR_NOT_FOUND"
                continue
            self.remembered[key] = path
            if key not in self.placement:
                out[r] = "REPLICA_NOT_AVAILABLE"
                continue
            if self.replica_not_available_rounds > 0:
                self.replica_not_available_rounds -= 1
                out[r] = "REPLICA_NOT_AVAILABLE"
                continue
            if self.placement[key] == path:
                self.future.pop(key, None)  # back to where it is: any move is cancelled
            else:
                self.future[key] = path
            out[r] = None
        return out

    def incremental_alter_configs(self, changes: Sequence[ConfigChange]) -> None:
        self.calls.append(("incremental_alter_configs", tuple(changes)))
        for c in changes:
            cfg = self.configs.setdefault(c.resource, {})
            if c.op is AlterOp.SET:
                cfg[c.name] = c.value
            else:
                cfg.pop(c.name, None)

    def close(self) -> None:
        pass

    # --- test controls ---
    def create_adding_replicas(self) -> None:
        """The adding replicas come into existence (in their remembered dir, if any)."""
        for tp, r in self.reassigning.items():
            for b in r.adding:
                key = (tp, b)
                self.placement.setdefault(key, self.remembered.get(key, self.dirs[b][0]))

    def complete(self) -> None:
        """Every reassignment and log-dir move finishes."""
        self.create_adding_replicas()
        parts = dict(self.cluster.partitions)
        for tp, r in self.reassigning.items():
            target = r.target
            parts[tp] = replace(parts[tp], replicas=target, isr=target, leader=target[0], adding=(), removing=())
            for b in r.removing:
                self.placement.pop((tp, b), None)
        self.reassigning.clear()
        self.cluster = replace(self.cluster, partitions=parts)
        for key, path in self.future.items():
            self.placement[key] = path
        self.future.clear()

    def mutating_calls(self) -> list[str]:
        return [name for name, _ in self.calls]
