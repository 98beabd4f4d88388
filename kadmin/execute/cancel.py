"""``reassign cancel``: stop a plan's reassignments (or all of them) and its log-dir moves.

Cancelling a reassignment (AlterPartitionReassignments with no target) returns the partition to
its original replicas. Cancelling a log-dir move sends AlterReplicaLogDirs with the replica's
current directory: the broker drops the future replica and the replica stays where it is
(ReplicaManager: a new destination replaces the running move).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kadmin.backends.base import Backend, BrokerLogDirs, Capability
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


def prepare_cancel(backend: Backend, plan: ReassignmentPlan | None) -> tuple[CancelPlan, list[int]]:
    """Read what runs (the plan's partitions, or everything) and plan the cancel; also the
    brokers whose log-dir moves could not be seen (not cancelled: the caller says so).
    Throttles are left in place: verify or ``throttle clear --stale`` removes them once nothing
    needs them. UnsupportedOperation (nothing changed) when reassignments are to be cancelled
    over a connection that cannot."""
    ongoing = backend.list_partition_reassignments(None if plan is None else [a.tp for a in plan.partitions])
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
    cplan = plan_cancel(plan, ongoing, dirs_of_replicas(log_dirs))
    if cplan.reassignments and Capability.CANCEL_REASSIGNMENTS not in backend.capabilities:
        raise UnsupportedOperation(
            f"cancelling a reassignment needs the AdminClient protocol ({len(cplan.reassignments)} to cancel); nothing was changed",
            hint="use --bootstrap-server (Kafka 2.4+), as Kafka's tool requires for --cancel",
        )
    return cplan, unseen


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
