"""A small in-memory Backend for the incremental executor's unit tests.

It models just enough of a controller: a reassignment adds the target's new replicas, each
copies the partition at a per-destination-broker rate (shared by the replicas arriving on that
broker), and when all are copied the partition takes the target (Kafka's order) and the leader
moves if it left. Time is a manual clock: ``FakeClock.sleep`` advances the copies. Every call
to ``reassign_partitions`` is logged, and the concurrency seen after every change is recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmin.backends.base import BrokerLogDirs, Capability
from kadmin.errors import ReassignmentInProgress
from tests.execute.fakes import read_only_enforced
from kadmin.model import (
    AlterOp,
    Broker,
    ClusterState,
    ConfigEntry,
    ConfigResourceType,
    ConfigSource,
    LogDir,
    PartitionReassignment,
    PartitionState,
    ReplicaInfo,
    TopicPartition,
)


@dataclass
class _Part:
    replicas: tuple[int, ...]
    leader: int
    size: int
    target: tuple[int, ...] | None = None
    copied: dict[int, float] = field(default_factory=dict)  # adding broker -> bytes


@read_only_enforced
class FakeBackend:
    def __init__(self, brokers, partitions, *, sizes=None, rate=1000.0, name="admin", min_insync=None):
        self.name = name
        self.read_only = False
        # As the real backends: ZooKeeper sends one reassignment node at a time and holds a down
        # broker's configs; over the AdminClient protocol a broker answers for its own configs.
        self.capabilities = frozenset(Capability) - (
            {Capability.CONCURRENT_REASSIGNMENTS} if name == "zookeeper" else {Capability.CONFIGS_OF_DOWN_BROKERS})
        self.brokers = {b: Broker(b, "127.0.0.1", 9000 + b) for b in brokers}
        self.parts = {
            tp: _Part(tuple(r), r[0], (sizes or {}).get(tp, 1000)) for tp, r in partitions.items()
        }
        self.rate = rate
        self.min_insync = min_insync or {}
        self.configs: dict[tuple, dict[str, str]] = {}
        self.calls: list[list[tuple[TopicPartition, tuple[int, ...]]]] = []
        self.peaks = {"partitions": 0, "per_broker": 0, "adding_per_partition": 0, "leader_movements": 0}
        self.fail_reads = 0  # the next N reads raise ClusterError (a broker restarting)
        self.down: set[int] = set()  # stopped brokers: not listed, and nothing is copied to them

    # --- reads ------------------------------------------------------------------------------
    def _maybe_fail(self):
        if self.fail_reads:
            from kadmin.errors import ClusterError

            self.fail_reads -= 1
            raise ClusterError("broker restarting")

    def describe_cluster(self) -> ClusterState:
        self._maybe_fail()
        parts = {}
        for tp, p in self.parts.items():
            adding = tuple(b for b in (p.target or ()) if b not in p.replicas)
            removing = tuple(b for b in p.replicas if p.target and b not in p.target)
            full = (tuple(p.target) + tuple(b for b in p.replicas if b not in p.target)) if p.target else p.replicas
            parts[tp] = PartitionState(tp.topic, tp.partition, p.leader, full, p.replicas, (), adding, removing)
        live = {b: v for b, v in self.brokers.items() if b not in self.down}
        return ClusterState("fake", 0, live, parts)

    def describe_brokers(self):
        return dict(self.brokers)

    def list_partition_reassignments(self, partitions=None):
        self._maybe_fail()
        out = {}
        for tp, p in self.parts.items():
            if p.target is None or (partitions is not None and tp not in set(partitions)):
                continue
            adding = tuple(b for b in p.target if b not in p.replicas)
            removing = tuple(b for b in p.replicas if b not in p.target)
            full = tuple(p.target) + removing
            out[tp] = PartitionReassignment(tp.topic, tp.partition, full, adding, removing)
        return out

    def describe_log_dirs(self, brokers=None, topics=None):
        out = {}
        for b in brokers if brokers is not None else self.brokers:
            replicas = []
            for tp, p in self.parts.items():
                if topics is not None and tp.topic not in topics:
                    continue
                if b in p.replicas:
                    replicas.append(ReplicaInfo(tp.topic, tp.partition, p.size, 0, False))
                elif b in p.copied:
                    replicas.append(ReplicaInfo(tp.topic, tp.partition, int(p.copied[b]), 0, False))
            out[b] = BrokerLogDirs(b, (LogDir(b, "/data", replicas=tuple(replicas)),))
        return out

    def _refuse_down_broker(self, resources):
        """Over the AdminClient protocol a down broker's configs can be neither read nor changed."""
        if Capability.CONFIGS_OF_DOWN_BROKERS in self.capabilities:
            return
        down = sorted(r.name for r in resources if r.type == ConfigResourceType.BROKER and r.name and int(r.name) in self.down)
        if down:
            from kadmin.errors import ClusterError

            raise ClusterError(f"broker {down[0]} is not available")

    def describe_configs(self, resources, keys=None):
        resources = list(resources)
        self._refuse_down_broker(resources)
        out = {}
        for r in resources:
            entries = {k: ConfigEntry(k, v, ConfigSource.DYNAMIC_BROKER if r.type == ConfigResourceType.BROKER else ConfigSource.TOPIC)
                       for k, v in self.configs.get((r.type, r.name), {}).items()}
            if r.type == ConfigResourceType.TOPIC and r.name in self.min_insync:
                entries["min.insync.replicas"] = ConfigEntry("min.insync.replicas", str(self.min_insync[r.name]))
            out[r] = {k: e for k, e in entries.items() if keys is None or k in keys}
        return out

    # --- changes ----------------------------------------------------------------------------
    def reassign_partitions(self, assignments, validate_only=False):
        if self.name == "zookeeper" and any(p.target for p in self.parts.values()):
            raise ReassignmentInProgress("/admin/reassign_partitions exists")
        self.calls.append([(a.tp, tuple(a.replicas)) for a in assignments])
        for a in assignments:
            p = self.parts[a.tp]
            p.target = tuple(a.replicas)
            p.copied = {b: 0.0 for b in a.replicas if b not in p.replicas}
        self._complete()
        self._observe()
        return {a.tp: None for a in assignments}

    def incremental_alter_configs(self, changes):
        self._refuse_down_broker([c.resource for c in changes])
        for c in changes:
            d = self.configs.setdefault((c.resource.type, c.resource.name), {})
            if c.op == AlterOp.SET:
                d[c.name] = c.value
            else:
                d.pop(c.name, None)

    def cancel_partition_reassignments(self, partitions):
        raise NotImplementedError

    def alter_replica_log_dirs(self, moves):
        raise NotImplementedError

    def list_end_offsets(self, partitions):
        return {tp: 0 for tp in partitions}

    def describe_replica_log_dirs(self, replicas):
        return {}

    def close(self):
        pass

    # --- simulation ---------------------------------------------------------------------------
    def advance(self, seconds: float) -> None:
        arriving: dict[int, int] = {}
        for p in self.parts.values():
            for b, c in p.copied.items():
                if c < p.size:
                    arriving[b] = arriving.get(b, 0) + 1
        for p in self.parts.values():
            for b, c in p.copied.items():
                if c < p.size and b not in self.down:
                    p.copied[b] = min(p.size, c + self.rate / arriving[b] * seconds)
        self._complete()

    def _complete(self):
        for p in self.parts.values():
            if p.target is not None and all(c >= p.size for c in p.copied.values()):
                p.replicas, p.target, p.copied = p.target, None, {}
                if p.leader not in p.replicas:
                    p.leader = p.replicas[0]

    def _observe(self):
        moving = [p for p in self.parts.values() if p.target is not None]
        per_broker: dict[int, int] = {}
        for p in moving:
            for b in set(p.target) ^ set(p.replicas):
                per_broker[b] = per_broker.get(b, 0) + 1
        self.peaks["partitions"] = max(self.peaks["partitions"], len(moving))
        self.peaks["per_broker"] = max([self.peaks["per_broker"], *per_broker.values()])
        leaders = sum(1 for p in moving if p.target[0] != p.replicas[0] or p.leader not in p.target)
        self.peaks["leader_movements"] = max(self.peaks["leader_movements"], leaders)
        self.peaks["adding_per_partition"] = max(
            [self.peaks["adding_per_partition"], *(len(p.copied) for p in moving)]
        )

    def assignment(self):
        return {tp: p.replicas for tp, p in self.parts.items()}


class FakeClock:
    """Manual time: ``sleep`` advances the fake cluster's copies in small ticks."""

    def __init__(self, backend: FakeBackend, tick: float = 0.25):
        self.backend = backend
        self.t = 0.0
        self.tick = tick
        self.sleeps = 0

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.sleeps += 1
        left = seconds
        while left > 1e-9:
            dt = min(self.tick, left)
            self.backend.advance(dt)
            self.t += dt
            left -= dt
