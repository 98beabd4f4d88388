"""Where a plan stands: every partition and every log-dir replica of the plan against the cluster.

Pure: the plan, the cluster's partitions, the ongoing reassignments and the replicas' log dirs
in; a verdict per partition and per replica out, worded as kafka-reassign-partitions.sh words
them, plus the overall state that decides the exit code (complete 0, in progress 3, finished
but different 4). Work still running wins over a difference: what runs may still change things.

A partition is in progress only while the controller lists its reassignment, as in Kafka's
``--verify``: a replica set that is the target followed by other replicas is also how a plan
that lowers the replication factor looks before it has run, so that shape alone says nothing.
Kafka's views do not change at once when a move ends (ListPartitionReassignments empties first,
each broker's Metadata and DescribeLogDirs a moment later): the caller reads again for a while
before it reports a difference (``kadmin.execute.verification``).

A log-dir target is judged against the partition's replica set (Metadata) as well as against
DescribeLogDirs: a broker lists logs that are no replicas, such as the half-copied one a
cancelled reassignment leaves on a broker it was adding (a stray log, until the broker
restarts). ``kadmin.model.replica_in_place`` is the one rule for "a replica is where the plan wants it";
``reassign execute`` asks it too (``kadmin.execute.plan_of_changes``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from enum import Enum

from kadmin.model import (
    ClusterState,
    PartitionReassignment,
    ReassignmentPlan,
    ReplicaLogDir,
    TopicPartition,
    TopicPartitionReplica,
    replica_in_place,
)


class State(str, Enum):
    COMPLETE = "complete"
    IN_PROGRESS = "in_progress"
    DIFFERS = "differs"


class MoveState(str, Enum):
    """A log-dir replica's state (Kafka's LogDirMoveState kinds)."""

    COMPLETE = "complete"
    IN_PROGRESS = "in_progress"
    MOVING_ELSEWHERE = "moving_elsewhere"  # a future replica towards another directory
    NOT_MOVING = "not_moving"  # in another directory, no move running (cancelled or never started)
    MISSING_REPLICA = "missing_replica"  # the broker has no such replica (yet): not in the replica set, or no log
    MISSING_LOG_DIR = "missing_log_dir"  # no current replica to move: likely an offline directory


def _ids(brokers) -> str:
    return ",".join(map(str, brokers))


@dataclass(frozen=True)
class PartitionVerdict:
    tp: TopicPartition
    state: State
    target: tuple[int, ...]
    current: tuple[int, ...] | None  # None when the partition does not exist

    @property
    def message(self) -> str:
        if self.state is State.COMPLETE:
            return f"Reassignment of partition {self.tp} is completed."
        if self.state is State.IN_PROGRESS:
            return f"Reassignment of partition {self.tp} is still in progress."
        if self.current is None:
            return f"Partition {self.tp} does not exist in the cluster."
        return (
            f"There is no active reassignment of partition {self.tp}, but replica set is "
            f"{_ids(self.current)} rather than {_ids(self.target)}."
        )


@dataclass(frozen=True)
class ReplicaVerdict:
    replica: TopicPartitionReplica
    move: MoveState
    state: State
    target_dir: str
    current_dir: str | None = None
    future_dir: str | None = None
    # MISSING_REPLICA: where the broker still has a log of the partition it holds no replica of
    # (a stray log, left by a cancelled reassignment); it is not a replica, so not current_dir
    stray_dir: str | None = None

    @property
    def message(self) -> str:
        r = self.replica
        tp = f"{r.topic}-{r.partition}"
        name = f"{tp}-{r.broker}"
        m = self.move
        if m is MoveState.COMPLETE:
            return f"Reassignment of replica {name} completed successfully."
        if m is MoveState.IN_PROGRESS:
            return f"Reassignment of replica {name} is still in progress."
        if m is MoveState.MOVING_ELSEWHERE:
            return f"Partition {tp} on broker {r.broker} is being moved to log dir {self.future_dir} instead of {self.target_dir}."
        if m is MoveState.NOT_MOVING:
            return f"Partition {tp} on broker {r.broker} is not being moved from log dir {self.current_dir} to {self.target_dir}."
        if m is MoveState.MISSING_REPLICA and self.stray_dir is not None:
            return (
                f"Partition {tp} has no replica on broker {r.broker} (not in its replica set): its log in "
                f"{self.stray_dir} is a stray log left behind (as a cancelled reassignment leaves them), not a replica."
            )
        if m is MoveState.MISSING_REPLICA:
            return f"Partition {tp} cannot be found in any live log directory on broker {r.broker}."
        return (
            f"Partition {tp} is not found in any live log dir on broker {r.broker}. "
            "There is likely an offline log directory on the broker."
        )


@dataclass(frozen=True)
class VerifyResult:
    partitions: tuple[PartitionVerdict, ...]
    replicas: tuple[ReplicaVerdict, ...]

    @property
    def state(self) -> State:
        states = {v.state for v in self.partitions} | {v.state for v in self.replicas}
        if State.IN_PROGRESS in states:
            return State.IN_PROGRESS
        if State.DIFFERS in states:
            return State.DIFFERS
        return State.COMPLETE

    @property
    def reassigning(self) -> tuple[TopicPartition, ...]:
        """Partitions of the plan still moving between brokers."""
        return tuple(v.tp for v in self.partitions if v.state is State.IN_PROGRESS)

    @property
    def moving_log_dirs(self) -> tuple[TopicPartitionReplica, ...]:
        """Replicas of the plan with a future replica in flight (towards any directory); one whose
        current replica is in an offline directory is not copied any more."""
        return tuple(v.replica for v in self.replicas if v.future_dir is not None and v.current_dir is not None)


def log_dir_targets(plan: ReassignmentPlan) -> dict[TopicPartitionReplica, str]:
    """Every replica the plan puts in a named directory."""
    out = {}
    for a in plan.partitions:
        for broker, path in a.log_dir_targets().items():
            out[TopicPartitionReplica(a.topic, a.partition, broker)] = path
    return out


def verify_partition(
    target: tuple[int, ...],
    tp: TopicPartition,
    cluster: ClusterState,
    ongoing: Mapping[TopicPartition, PartitionReassignment],
) -> PartitionVerdict:
    current = cluster.partitions.get(tp)
    if tp in ongoing:
        return PartitionVerdict(tp, State.IN_PROGRESS, target, current.replicas if current else ongoing[tp].replicas)
    if current is None:
        return PartitionVerdict(tp, State.DIFFERS, target, None)
    replicas = tuple(current.replicas)
    if replicas == tuple(target):
        return PartitionVerdict(tp, State.COMPLETE, target, replicas)
    return PartitionVerdict(tp, State.DIFFERS, target, replicas)


def verify_replica(
    replica: TopicPartitionReplica,
    target_dir: str,
    info: ReplicaLogDir | None,
    partition_moving: bool,
    replicas: Collection[int],
    being_added: bool = False,
) -> ReplicaVerdict:
    """``replicas``: the partition's replica set (Metadata; empty when it does not exist);
    ``being_added``: the partition's running reassignment adds the broker."""
    listed_cur = info.current_dir if info is not None else None
    listed_fut = info.future_dir if info is not None else None
    if replica.broker not in replicas:
        # No replica there, whatever DescribeLogDirs lists (a stray log is not one). Kafka's tool
        # asks DescribeLogDirs alone and calls a stray log in the target directory complete.
        state = State.IN_PROGRESS if being_added else State.DIFFERS
        stray = listed_cur or listed_fut
        return ReplicaVerdict(replica, MoveState.MISSING_REPLICA, state, target_dir, stray_dir=stray)
    if replica_in_place(replicas, replica.broker, listed_cur, listed_fut, target_dir):
        return ReplicaVerdict(replica, MoveState.COMPLETE, State.COMPLETE, target_dir, listed_cur)
    if info is None:
        return ReplicaVerdict(replica, MoveState.MISSING_LOG_DIR, State.DIFFERS, target_dir)
    cur, fut = info.current_dir, info.future_dir
    if cur is None and fut is None:
        # A replica the reassignment has yet to create is expected to be missing for a while.
        state = State.IN_PROGRESS if partition_moving else State.DIFFERS
        return ReplicaVerdict(replica, MoveState.MISSING_REPLICA, state, target_dir)
    if cur is None:
        # A future replica without its current one: the move's source directory went offline, and
        # the broker stopped copying with it. Kafka's tool checks the current directory before the
        # future one (findLogDirMoveStates) and says so; nothing will move until the disk is back.
        return ReplicaVerdict(replica, MoveState.MISSING_LOG_DIR, State.DIFFERS, target_dir, None, fut)
    if fut is None:
        return ReplicaVerdict(replica, MoveState.NOT_MOVING, State.DIFFERS, target_dir, cur)
    if fut == target_dir:
        return ReplicaVerdict(replica, MoveState.IN_PROGRESS, State.IN_PROGRESS, target_dir, cur, fut)
    return ReplicaVerdict(replica, MoveState.MOVING_ELSEWHERE, State.DIFFERS, target_dir, cur, fut)


def verify_plan(
    plan: ReassignmentPlan,
    cluster: ClusterState,
    ongoing: Mapping[TopicPartition, PartitionReassignment],
    replica_log_dirs: Mapping[TopicPartitionReplica, ReplicaLogDir],
) -> VerifyResult:
    """Verdicts for every partition of the plan and every replica it puts in a named directory.
    ``replica_log_dirs`` leaves out replicas no broker answered for."""
    partitions = tuple(verify_partition(tuple(a.replicas), a.tp, cluster, ongoing) for a in plan.partitions)
    moving = {v.tp for v in partitions if v.state is State.IN_PROGRESS}
    parts = cluster.partitions
    replicas = []
    for r, d in sorted(log_dir_targets(plan).items()):
        state = parts.get(r.tp)
        running = ongoing.get(r.tp)
        replicas.append(
            verify_replica(
                r,
                d,
                replica_log_dirs.get(r),
                r.tp in moving,
                state.replicas if state is not None else (),
                being_added=running is not None and r.broker in running.adding,
            )
        )
    return VerifyResult(partitions, tuple(replicas))
