"""The changes kadmin makes to a cluster, as values: what ``--dry-run`` shows and what execute
and cancel report, one line (or one JSON object) each. The same values drive the apply step, so
the preview and the run cannot drift apart."""

from __future__ import annotations

from dataclasses import dataclass

from kadmin.model import AlterOp, ConfigChange, ConfigResourceType, TopicPartition, TopicPartitionReplica

# AlterReplicaLogDirs' answer for a replica its broker does not hold yet: the broker remembers the
# destination and creates the replica there when a reassignment brings it (KIP-113).
REPLICA_NOT_AVAILABLE = "REPLICA_NOT_AVAILABLE"


@dataclass(frozen=True)
class WriteRollback:
    """The rollback file, written before the first change to the cluster."""

    path: str
    partitions: int


@dataclass(frozen=True)
class LogDirMove:
    """AlterReplicaLogDirs for one replica.

    ``current_dir`` None: the replica does not exist yet on that broker (it comes with the
    reassignment); the broker remembers the destination and answers REPLICA_NOT_AVAILABLE until
    the replica is created, so the request is retried (KIP-113).
    """

    replica: TopicPartitionReplica
    current_dir: str | None
    target_dir: str
    future_dir: str | None = None  # a move in flight that this request replaces (or cancels)

    @property
    def new_replica(self) -> bool:
        return self.current_dir is None

    @property
    def cancels(self) -> bool:
        """Sending a replica's own directory cancels its move (the future replica is dropped)."""
        return self.future_dir is not None and self.target_dir == self.current_dir


@dataclass(frozen=True)
class Reassign:
    """AlterPartitionReassignments for one partition (target None: cancel)."""

    tp: TopicPartition
    current: tuple[int, ...]
    target: tuple[int, ...] | None
    heading_to: tuple[int, ...] | None = None  # a running reassignment's target, which this one replaces
    # The running reassignment's original replicas (its replicas minus those it adds; Kafka's
    # originalReplicas): a cancel returns to them, a re-target counts from them.
    original: tuple[int, ...] | None = None

    @property
    def _base(self) -> tuple[int, ...]:
        """What a new target is counted from: the original replicas of a running move being
        re-targeted (Kafka's ReplicaAssignment.reassignTo), else the current ones."""
        return self.original if self.heading_to is not None and self.original is not None else self.current

    @property
    def adding(self) -> tuple[int, ...]:
        return tuple(b for b in self.target or () if b not in self._base)

    @property
    def removing(self) -> tuple[int, ...]:
        """The replicas that go: those not in the target; for a cancel, those being added."""
        keep = self.original if self.target is None and self.original is not None else self.target or ()
        return tuple(b for b in self._base if b not in keep)


Change = WriteRollback | ConfigChange | LogDirMove | Reassign


def _ids(brokers) -> str:
    return ",".join(map(str, brokers))


def describe(change: Change) -> str:
    """One line for people."""
    from kadmin.units import counted

    if isinstance(change, WriteRollback):
        n = change.partitions
        return f"write rollback file {change.path} ({counted(n, 'partition')})"
    if isinstance(change, ConfigChange):
        res = change.resource
        what = f"topic {res.name}" if res.type is ConfigResourceType.TOPIC else f"broker {res.name or '<default>'}"
        if change.op is AlterOp.DELETE:
            return f"delete {what} {change.name}"
        return f"set {what} {change.name}={change.value}"
    if isinstance(change, LogDirMove):
        r = change.replica
        if change.cancels:
            return f"cancel move of replica {r.topic}-{r.partition} on broker {r.broker} to {change.future_dir}; it stays in {change.current_dir}"
        if change.current_dir is None:
            return f"place new replica {r.topic}-{r.partition} on broker {r.broker} in {change.target_dir}"
        return f"move replica {r.topic}-{r.partition} on broker {r.broker} from {change.current_dir} to {change.target_dir}"
    if isinstance(change, Reassign):
        if change.target is None:
            if change.original is None:
                return f"cancel reassignment of {change.tp} (replicas {_ids(change.current)})"
            dropped = f", removing {_ids(change.removing)}" if change.removing else ""
            return f"cancel reassignment of {change.tp}: replicas {_ids(change.current)} back to {_ids(change.original)}{dropped}"
        extra = []
        if change.adding:
            extra.append(f"adding {_ids(change.adding)}")
        if change.removing:
            extra.append(f"removing {_ids(change.removing)}")
        if change.heading_to is not None:
            # Said as the cluster will carry it out, against the running move's adding/removing.
            # ZooKeeper mode (ReplicaAssignment.reassignTo): from the move's original replicas
            # (its replicas minus those it adds): adding = target - original, removing =
            # original - target; the replicas it was adding that the target drops stop. A KRaft
            # controller (PartitionReassignmentReplicas) counts from the full set in flight and
            # keeps the old adding/removing when the new ones are empty, so a target that takes
            # back a replica being removed still loses it there.
            head = f"reassign {change.tp}: re-target the running move from {_ids(change.heading_to)} to {_ids(change.target)}"
            if change.original is None:
                return f"{head} (its original replicas unknown)"
            full, target, original = change.current, change.target, change.original
            was_adding = [b for b in full if b not in original]
            was_removing = [b for b in full if b not in change.heading_to]
            adding = [b for b in target if b not in original]
            removing = [b for b in original if b not in target]
            said = [
                ("adding", [b for b in adding if b not in was_adding]),
                ("still adding", [b for b in adding if b in was_adding]),
                ("no longer adding", [b for b in was_adding if b not in target]),
                ("removing", [b for b in removing if b not in was_removing]),
                ("still removing", [b for b in removing if b in was_removing]),
                ("no longer removing", [b for b in was_removing if b in target]),
            ]
            what = "; ".join(f"{words} {_ids(ids)}" for words, ids in said if ids)
            if not adding:
                what += ("; " if what else "") + "nothing to copy"
            line = f"{head} ({what})"
            kept = [b for b in was_removing if b in target]
            if kept and all(b in target for b in full):  # KRaft: no new removing, the old one stays
                ends = [b for b in target if b not in kept]
                line += (
                    f"; a KRaft controller keeps removing {_ids(kept)} (it counts from the replicas in flight, "
                    f"{_ids(full)}), so there the move ends as {_ids(ends)}"
                )
            return line
        tail = f" ({'; '.join(extra)})" if extra else " (order only)"
        return f"reassign {change.tp}: {_ids(change.current)} -> {_ids(change.target)}{tail}"
    raise TypeError(change)


def to_json(change: Change) -> dict:
    """One JSON object for scripts (schemas/reassign-change.json)."""
    if isinstance(change, WriteRollback):
        return {"kind": "rollback_file", "path": change.path, "partitions": change.partitions}
    if isinstance(change, ConfigChange):
        return {
            "kind": "config",
            "resource_type": change.resource.type.value,
            "resource": change.resource.name,
            "name": change.name,
            "op": change.op.value,
            "value": change.value,
        }
    if isinstance(change, LogDirMove):
        r = change.replica
        return {
            "kind": "cancel_log_dir_move" if change.cancels else "log_dir_move",
            "topic": r.topic,
            "partition": r.partition,
            "broker": r.broker,
            "from": change.current_dir,
            "to": change.target_dir,
            "future": change.future_dir,
        }
    if isinstance(change, Reassign):
        return {
            "kind": "cancel_reassignment" if change.target is None else "reassignment",
            "topic": change.tp.topic,
            "partition": change.tp.partition,
            "replicas": list(change.current),
            "target": None if change.target is None else list(change.target),
            "adding": list(change.adding),
            "removing": list(change.removing),
        }
    raise TypeError(change)
