"""``reassign execute``: read the cluster, validate the whole plan, compute every change as a
value (``plan_execution``, pure), then apply the changes in order (``apply_execution``).

Order of changes (KIP-113 and KIP-455, with kadmin's safety rules):
1. the rollback file (current replicas and directories), before anything else;
2. the throttle record, then the throttles, merged with what is already set;
3. AlterReplicaLogDirs for every replica with a named directory: existing replicas start
   moving, brokers remember the destination of replicas still to come (REPLICA_NOT_AVAILABLE);
4. AlterPartitionReassignments;
5. AlterReplicaLogDirs again for the replicas that answered REPLICA_NOT_AVAILABLE, every
   ``retry_interval`` until ``timeout``, as KIP-113's script does.
The plan of changes is computed purely in ``kadmin.execute.plan_of_changes``; ``--dry-run``
renders that same ``ExecutionPlan`` and applies nothing. The executor knows only the Backend
protocol; clock and sleep are injected for the retry loop.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from kadmin.backends.base import Backend, Capability, reassignment_blocked
from kadmin.errors import AuthenticationError, AuthorizationError, KadminError, UnsupportedOperation
from kadmin.execute.changes import REPLICA_NOT_AVAILABLE, Change, LogDirMove, Reassign
from kadmin.execute.plan_of_changes import (  # noqa: F401  (plan_execution re-exported for callers)
    ClusterView,
    ExecuteRequest,
    ExecutionPlan,
    plan_execution,
)
from kadmin.model import (
    THROTTLE_CONFIGS,
    ConfigResource,
    ConfigResourceType,
    ReassignmentPlan,
    TopicPartitionReplica,
)
from kadmin.plan.reassignment_file import ParsedPlan
from kadmin.throttling.operations import apply_throttles
from kadmin.throttling.stores import RecordStore


def read_cluster(
    backend: Backend, parsed: ParsedPlan, records: RecordStore | None, *, throttles: bool = True
) -> ClusterView:
    """The reads execute needs: partitions, log dirs of the brokers involved, ongoing
    reassignments and, when throttles are to be set (``throttles``), the throttle configs of
    the plan's topics and brokers and kadmin's records."""
    cluster = backend.describe_cluster()
    plan = parsed.plan
    topics = sorted({a.topic for a in plan.partitions})
    brokers = {b for a in plan.partitions for b in a.replicas}
    for a in plan.partitions:
        state = cluster.partitions.get(a.tp)
        if state is not None:
            brokers.update(state.replicas)
    live = sorted(b for b in brokers if b in cluster.brokers)
    if Capability.LOG_DIRS not in backend.capabilities:
        log_dirs = None  # validation then refuses named directories, saying why
    else:
        log_dirs = backend.describe_log_dirs(brokers=live, topics=topics) if live and topics else {}
    ongoing = backend.list_partition_reassignments()
    blocked = reassignment_blocked(backend)
    down_configurable = Capability.CONFIGS_OF_DOWN_BROKERS in backend.capabilities
    if not throttles:
        return ClusterView(cluster, log_dirs, ongoing, {}, {}, blocked, down_configurable)
    known_topics = {tp.topic for tp in cluster.partitions}
    resources = [ConfigResource(ConfigResourceType.TOPIC, t) for t in topics if t in known_topics]
    resources += [ConfigResource(ConfigResourceType.BROKER, str(b)) for b in live]
    configs = backend.describe_configs(resources, keys=THROTTLE_CONFIGS)
    loaded = records.load_all() if records is not None else {}
    return ClusterView(cluster, log_dirs, ongoing, configs, loaded, blocked, down_configurable)


class Reporter(Protocol):
    """How the executor tells its caller what happened; commands render it."""

    def change(self, change: Change, error: str | None) -> None:
        """A change was made (error None) or refused by the cluster (error says why)."""

    def waiting(self, replicas: int, seconds_left: float) -> None:
        """Still retrying AlterReplicaLogDirs for ``replicas`` new replicas."""


class NullReporter:
    def change(self, change: Change, error: str | None) -> None:
        pass

    def waiting(self, replicas: int, seconds_left: float) -> None:
        pass


# The default reporter: it keeps no state, so one instance serves every call.
NULL_REPORTER = NullReporter()


@dataclass
class ExecutionResult:
    """What was applied, in order, with the cluster's error for each change that failed."""

    applied: list[tuple[Change, str | None]] = field(default_factory=list)
    aborted: str | None = None  # why the run stopped early, if it did

    @property
    def failures(self) -> list[tuple[Change, str]]:
        return [(c, e) for c, e in self.applied if e is not None]


def apply_execution(
    backend: Backend,
    xplan: ExecutionPlan,
    request: ExecuteRequest,
    *,
    write_rollback: Callable[[str, ReassignmentPlan], object],
    records: RecordStore | None,
    reporter: Reporter = NULL_REPORTER,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> ExecutionResult:
    """Make the changes of ``xplan`` in order, reporting each one. The rollback file must be
    written (its error propagates, nothing changed); after that a cluster error stops the run
    and is returned in ``aborted`` with everything done so far, so the caller can show it."""
    result = ExecutionResult()

    def done(change: Change, error: str | None) -> None:
        result.applied.append((change, error))
        reporter.change(change, error)

    write_rollback(xplan.write_rollback.path, xplan.rollback)
    done(xplan.write_rollback, None)
    try:
        _apply_changes(backend, xplan, request, result, done, records, reporter, clock, sleep)
    except KadminError as e:
        result.aborted = f"stopped: {e.message}"
    return result


def _apply_changes(backend, xplan, request, result, done, records, reporter, clock, sleep) -> None:
    """Steps 2-5 of the module docstring."""
    if xplan.throttles.changes or xplan.record is not None:
        apply_throttles(backend, records, xplan.throttles.changes, xplan.record)
        for c in xplan.throttles.changes:
            done(c, None)

    retry: dict[TopicPartitionReplica, LogDirMove] = {}
    if xplan.log_dir_moves:
        try:
            answers = backend.alter_replica_log_dirs({m.replica: m.target_dir for m in xplan.log_dir_moves})
        except KadminError as e:  # every move is reported with why, so none is lost track of
            answers = {m.replica: e.message for m in xplan.log_dir_moves}
        for m in xplan.log_dir_moves:
            err = answers.get(m.replica, "no answer from the broker")
            if err == REPLICA_NOT_AVAILABLE:
                retry[m.replica] = m  # the broker remembers the destination; resent below
            else:
                done(m, err)
        hard = [e for c, e in result.failures if isinstance(c, LogDirMove)]
        if hard:
            result.aborted = "AlterReplicaLogDirs failed; the reassignment was not started"
            return

    if xplan.reassignments:
        by_tp = {r.tp: r for r in xplan.reassignments}
        plan = request.parsed.plan.by_partition()
        try:
            answers = backend.reassign_partitions([plan[tp] for tp in by_tp])
        except KadminError:
            for m in retry.values():
                done(m, f"not sent: the reassignment of {m.replica.tp} was not started")
            raise
        for tp, r in by_tp.items():
            done(r, answers.get(tp, "no answer from the controller"))
        refused = {c.tp for c, e in result.failures if isinstance(c, Reassign)}
        for replica, m in list(retry.items()):
            if replica.tp in refused:  # that replica will not be created: no point waiting for it
                del retry[replica]
                done(m, f"not sent: the reassignment of {replica.tp} failed")

    deadline = clock() + request.timeout
    unreachable: str | None = None  # the last failure to reach a broker, retried like REPLICA_NOT_AVAILABLE
    while retry:
        try:
            answers = backend.alter_replica_log_dirs({r: m.target_dir for r, m in retry.items()})
            unreachable = None
        except (AuthorizationError, AuthenticationError, UnsupportedOperation) as e:
            for m in retry.values():  # retrying cannot help; each move is still reported
                done(m, e.message)
            raise
        except KadminError as e:  # e.g. a destination broker restarting: it may be back before the timeout
            answers = dict.fromkeys(retry, REPLICA_NOT_AVAILABLE)
            unreachable = e.message
        for r, m in list(retry.items()):
            err = answers.get(r, "no answer from the broker")
            if err != REPLICA_NOT_AVAILABLE:
                del retry[r]
                done(m, err)
        if not retry:
            break
        left = deadline - clock()
        if left <= 0:
            why = (
                f"{unreachable}, until the {request.timeout:g}s timeout"
                if unreachable
                else f"{REPLICA_NOT_AVAILABLE} until the {request.timeout:g}s timeout: the replica was not created in time"
            )
            for m in retry.values():
                done(m, why)
            break
        reporter.waiting(len(retry), left)
        sleep(min(request.retry_interval, left))
