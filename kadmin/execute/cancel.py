"""``reassign cancel``: stop a plan's reassignments (or all of them) and its log-dir moves.

Cancelling a reassignment (AlterPartitionReassignments with no target) returns the partition to
its original replicas. Cancelling a log-dir move sends AlterReplicaLogDirs with the replica's
current directory: the broker drops the future replica and the replica stays where it is
(ReplicaManager: a new destination replaces the running move).

What a cancel cannot stop now is said, not passed over (``Uncancelled``): a request only written
in a stuck /admin/reassign_partitions (no broker carries it out, so there is nothing to cancel,
but a controller change would start it); a log-dir move whose source directory is offline
(paused: AlterReplicaLogDirs answers KAFKA_STORAGE_ERROR); an offline directory a move may be
copying into, out of sight (DescribeLogDirs lists no replica in it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kadmin.backends.base import (
    Backend,
    BrokerLogDirs,
    Capability,
    ReassignmentBlocked,
    not_taken_reason,
    reassignment_blocked,
    requests_not_taken,
)
from kadmin.errors import UnsupportedOperation
from kadmin.execute.changes import LogDirMove, Reassign
from kadmin.execute.executor import NULL_REPORTER, ExecutionResult, Reporter
from kadmin.execute.rollback import ReplicaDirs
from kadmin.execute.rollback import replica_dirs as dirs_of_replicas
from kadmin.model import PartitionReassignment, ReassignmentPlan, TopicPartition, TopicPartitionReplica


@dataclass(frozen=True)
class CancelPlan:
    reassignments: tuple[Reassign, ...]
    log_dir_moves: tuple[LogDirMove, ...]

    def changes(self) -> list:
        return [*self.reassignments, *self.log_dir_moves]


@dataclass(frozen=True)
class Uncancelled:
    """What a cancel leaves running because it cannot stop it now, or cannot see it."""

    stuck: tuple[TopicPartition, ...] = ()  # requested in a stuck node no broker carries out
    blocked: ReassignmentBlocked | None = None  # that node (ZooKeeper), when ``stuck``
    paused: tuple[tuple[TopicPartitionReplica, str], ...] = ()  # (replica, future dir): source dir offline
    offline_dirs: Mapping[int, tuple[str, ...]] = field(default_factory=dict)  # broker -> dirs a move may be in, unseen
    unseen: tuple[int, ...] = ()  # brokers whose directories could not be read (down, not answering)

    def __bool__(self) -> bool:
        return bool(self.stuck or self.paused or self.offline_dirs or self.unseen)


def plan_cancel(
    plan: ReassignmentPlan | None,
    ongoing: Mapping[TopicPartition, PartitionReassignment],
    replica_dirs: ReplicaDirs,
) -> CancelPlan:
    """What to cancel: with a plan, its partitions that are reassigning and its replicas with a
    named directory that have a move in flight; without one (``--all``), every reassignment and
    every future replica in the cluster."""
    if plan is None:
        tps = sorted(ongoing)
        wanted = None
    else:
        tps = [a.tp for a in plan.partitions if a.tp in ongoing]
        wanted = {(a.topic, a.partition, b) for a in plan.partitions for b in a.log_dir_targets()}
    reassignments = tuple(
        Reassign(tp, tuple(r.replicas), None, original=tuple(b for b in r.replicas if b not in r.adding))
        for tp in tps
        for r in (ongoing[tp],)
    )
    moves = []
    for key, (cur, fut) in sorted(replica_dirs.items()):
        if fut is None or cur is None or (wanted is not None and key not in wanted):
            continue
        topic, partition, broker = key
        moves.append(LogDirMove(TopicPartitionReplica(topic, partition, broker), cur, cur, fut))
    return CancelPlan(reassignments, tuple(moves))


def log_dir_blind_spots(
    plan: ReassignmentPlan | None, log_dirs: Mapping[int, BrokerLogDirs], replica_dirs: ReplicaDirs
) -> tuple[tuple[tuple[TopicPartitionReplica, str], ...], dict[int, tuple[str, ...]]]:
    """The log-dir moves in scope a cancel cannot stop now, and the offline directories it cannot
    look into. Paused: a future replica whose current one is in no online directory (its source
    directory is offline); cancelling it means AlterReplicaLogDirs to that directory, which
    Kafka answers with KAFKA_STORAGE_ERROR. Out of sight: an offline directory lists no replica,
    so a future replica in it (a move into it; the broker's restart resumes it) cannot be seen;
    with a plan, only the directories the plan moves replicas into count."""
    wanted = (
        None
        if plan is None
        else {(a.topic, a.partition, b): d for a in plan.partitions for b, d in a.log_dir_targets().items()}
    )
    paused = tuple(
        (TopicPartitionReplica(key[0], key[1], key[2]), fut)
        for key, (cur, fut) in sorted(replica_dirs.items())
        if fut is not None and cur is None and (wanted is None or key in wanted)
    )
    offline = {(b, d.path) for b, bld in log_dirs.items() for d in bld.log_dirs if d.error is not None}
    if wanted is not None:
        offline &= {(b, d) for (_, _, b), d in wanted.items()}
    hidden: dict[int, tuple[str, ...]] = {}
    for b, d in sorted(offline):
        hidden[b] = (*hidden.get(b, ()), d)
    return paused, hidden


def prepare_cancel(backend: Backend, plan: ReassignmentPlan | None) -> tuple[CancelPlan, Uncancelled]:
    """Read what runs (the plan's partitions, or everything) and plan the cancel; also what it
    leaves running (``Uncancelled``: the caller says so). Throttles are left in place: verify or
    ``throttle clear --stale`` removes them once nothing needs them. UnsupportedOperation
    (nothing changed) when reassignments are to be cancelled over a connection that cannot."""
    ongoing = backend.list_partition_reassignments(None if plan is None else [a.tp for a in plan.partitions])
    # Requests a stuck /admin/reassign_partitions holds are listed as ongoing, but no broker
    # carries them out: nothing to cancel, and not a reason to send the operator elsewhere.
    blocked = reassignment_blocked(backend) if ongoing else None
    stuck: tuple[TopicPartition, ...] = ()
    if blocked is not None and blocked.stuck:
        stuck = tuple(sorted(requests_not_taken(blocked, ongoing, backend.describe_cluster())))
        ongoing = {tp: r for tp, r in ongoing.items() if tp not in stuck}
    unseen: list[int] = []
    if Capability.LOG_DIRS not in backend.capabilities:
        log_dirs: Mapping[int, BrokerLogDirs] = {}  # no log-dir moves can be seen or cancelled over this connection
    elif plan is None:
        log_dirs = backend.describe_log_dirs()
    else:
        wanted = {b for a in plan.partitions for b in a.log_dir_targets()}
        brokers = sorted(wanted & set(backend.describe_brokers()))
        unseen = sorted(wanted - set(brokers))
        topics = sorted({a.topic for a in plan.partitions})
        log_dirs = backend.describe_log_dirs(brokers=brokers, topics=topics) if brokers else {}
    unseen = sorted({*unseen, *(b for b, bld in log_dirs.items() if bld.error is not None)})
    replica_dirs = dirs_of_replicas(log_dirs)
    cplan = plan_cancel(plan, ongoing, replica_dirs)
    if cplan.reassignments and Capability.CANCEL_REASSIGNMENTS not in backend.capabilities:
        also = f"; and {not_taken_reason(blocked, stuck)}" if blocked is not None and stuck else ""
        raise UnsupportedOperation(
            f"cancelling a reassignment needs the AdminClient protocol ({len(cplan.reassignments)} to cancel); nothing was changed{also}",
            hint="use --bootstrap-server (Kafka 2.4+), as Kafka's tool requires for --cancel",
        )
    paused, offline_dirs = log_dir_blind_spots(plan, log_dirs, replica_dirs)
    return cplan, Uncancelled(stuck, blocked if stuck else None, paused, offline_dirs, tuple(unseen))


def apply_cancel(backend: Backend, cplan: CancelPlan, reporter: Reporter = NULL_REPORTER) -> ExecutionResult:
    result = ExecutionResult()

    def done(change, error):
        result.applied.append((change, error))
        reporter.change(change, error)

    if cplan.reassignments:
        answers = backend.cancel_partition_reassignments([r.tp for r in cplan.reassignments])
        for r in cplan.reassignments:
            done(r, answers.get(r.tp, "no answer from the controller"))
    if cplan.log_dir_moves:
        moved = backend.alter_replica_log_dirs({m.replica: m.target_dir for m in cplan.log_dir_moves})
        for m in cplan.log_dir_moves:
            done(m, moved.get(m.replica, "no answer from the broker"))
    return result
