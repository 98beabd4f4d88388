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
renders that same ``ExecutionPlan`` and applies nothing. Each change is reported in the order
of ``ExecutionPlan.changes()``, the list ``--dry-run`` prints: a new replica's placement, sent in
step 3, is reported after the reassignments of step 4 that create it. The executor knows only the Backend
protocol; clock and sleep are injected for the retry loop.

Ctrl-C (KeyboardInterrupt) anywhere in steps 1-5 stops the run and is returned, not raised:
``ExecutionResult.interrupted``, with every change whose answer came (``applied``, each one
reported as it would have been) and every change sent whose outcome is unknown (``unanswered``:
the request may have reached the cluster, or a new replica's placement was still awaited), so
the caller can say what the run changed and what it left running.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from kadmin.backends.base import Backend, Capability, reassignment_blocked
from kadmin.backends.config_outcomes import ConfigChangesPartlyMade
from kadmin.errors import AuthenticationError, AuthorizationError, KadminError, UnsupportedOperation
from kadmin.execute.changes import REPLICA_NOT_AVAILABLE, Change, LogDirMove, Reassign
from kadmin.execute.plan_of_changes import (  # noqa: F401  (plan_execution re-exported for callers)
    MIN_INSYNC,
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
from kadmin.throttling.operations import apply_throttles, co_claimed
from kadmin.throttling.record import ThrottleRecord
from kadmin.throttling.stores import RecordStore


def read_cluster(
    backend: Backend, parsed: ParsedPlan, records: RecordStore | None, *, throttles: bool = True
) -> ClusterView:
    """The reads execute needs: partitions, log dirs of the brokers involved, ongoing
    reassignments and, when throttles are to be set (``throttles``), the throttle configs of
    the plan's topics and brokers (and the topics' min.insync.replicas, in the same request: an
    incremental run plans its steps from it) and kadmin's records. A down broker's configs are read where
    the backend holds them (ZooKeeper: rates are set there on a down broker, so the value one
    replaces must be known to be said and given back)."""
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
    down = sorted(brokers & cluster.down_brokers()) if down_configurable else []
    resources += [ConfigResource(ConfigResourceType.BROKER, str(b)) for b in sorted([*live, *down])]
    configs = backend.describe_configs(resources, keys=(*THROTTLE_CONFIGS, MIN_INSYNC))
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
    """What was applied, in order, with the cluster's error for each change that failed; after
    Ctrl-C (``interrupted``), also the changes sent whose outcome is unknown (``unanswered``,
    each with why)."""

    applied: list[tuple[Change, str | None]] = field(default_factory=list)
    aborted: str | None = None  # why the run stopped early, if it did
    hint: str | None = None  # what to do about the error that stopped it (its own hint)
    interrupted: bool = False
    unanswered: list[tuple[Change, str]] = field(default_factory=list)

    @property
    def failures(self) -> list[tuple[Change, str]]:
        return [(c, e) for c, e in self.applied if e is not None]

    def made(self) -> list[Change]:
        """The changes the cluster accepted (REPLICA_NOT_AVAILABLE retries aside: a failure)."""
        return [c for c, e in self.applied if e is None]

    def not_sent(self, planned: Iterable[Change]) -> list[Change]:
        """The ``planned`` changes that never reached the cluster (the run stopped before them)."""
        settled = {c for c, _ in self.applied} | {c for c, _ in self.unanswered}
        return [c for c in planned if c not in settled]


# Why a change has no outcome after Ctrl-C.
UNANSWERED = "interrupted before the cluster answered: it may have been made"
AWAITED = (
    "interrupted while waiting for its new replica (REPLICA_NOT_AVAILABLE so far): its broker remembers the "
    "destination, so the replica may still be placed there"
)


_C = TypeVar("_C", LogDirMove, Reassign)


class _Applying:
    """The bookkeeping of one apply: outcomes recorded before they are reported (so a Ctrl-C
    between the two loses no line), and the changes of the request in flight (``sending``) and
    of the new replicas still awaited (``awaited``), whose outcome an interrupt leaves unknown.

    Outcomes are reported in the order of the plan (``ExecutionPlan.changes()``, what
    ``--dry-run`` lists), whatever order their answers come in: a new replica's placement,
    answered with the moves, is reported after the reassignments that create it. An outcome
    waits (``held``) until every change before it in the plan has one; ``flush`` reports all of
    them once nothing more will come (the run stopped before a change: it has none)."""

    def __init__(self, result: ExecutionResult, reporter: Reporter, planned: Iterable[Change]):
        self.result = result
        self.reporter = reporter
        self.reported = 0
        self.sending: tuple[Change, ...] = ()
        self.awaited: dict[TopicPartitionReplica, LogDirMove] = {}
        self.planned = list(planned)
        self.next = 0  # the first change of ``planned`` not recorded in ``result.applied``
        self.held: dict[Change, str | None] = {}

    def done(self, change: Change, error: str | None) -> None:
        self.held[change] = error
        self.record()
        self.report()

    def failed(self, kind: type[_C]) -> list[_C]:
        """The answered changes of ``kind`` that failed, held ones included."""
        out = [c for c, e in self.result.applied if e is not None and isinstance(c, kind)]
        return out + [c for c, e in self.held.items() if e is not None and isinstance(c, kind)]

    def record(self) -> None:
        """Move the held outcomes whose turn has come into ``result.applied``, in plan order."""
        planned, held, applied = self.planned, self.held, self.result.applied
        while self.next < len(planned) and planned[self.next] in held:
            change = planned[self.next]
            applied.append((change, held.pop(change)))
            self.next += 1

    def flush(self) -> None:
        """Nothing more will be answered: record every held outcome, in plan order, and report."""
        order = {c: i for i, c in enumerate(self.planned)}
        for change in sorted(self.held, key=lambda c: order.get(c, len(order))):
            self.result.applied.append((change, self.held[change]))
        self.held = {}
        self.next = len(self.planned)
        self.report()

    def report(self) -> None:
        """Report every recorded outcome not reported yet, in order."""
        applied = self.result.applied
        while self.reported < len(applied):
            self.reporter.change(*applied[self.reported])
            self.reported += 1

    def interrupted(self) -> None:
        """Ctrl-C: what was recorded is reported; what was in flight is unanswered."""
        result = self.result
        result.interrupted = True
        result.aborted = "interrupted"
        settled = {c for c, _ in result.applied} | set(self.held)
        in_flight = [c for c in self.sending if c not in settled]
        result.unanswered = [(c, UNANSWERED) for c in in_flight]
        result.unanswered += [(m, AWAITED) for m in self.awaited.values() if m not in settled and m not in in_flight]
        self.flush()


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
    earlier_record: ThrottleRecord | None = None,
) -> ExecutionResult:
    """Make the changes of ``xplan`` in order, reporting each one. The rollback file must be
    written (its error propagates, nothing changed); after that a cluster error stops the run
    and is returned in ``aborted`` with everything done so far, so the caller can show it.
    Ctrl-C stops the run too and is returned (``interrupted``; module docstring).
    ``earlier_record``: this plan's throttle record before the run (``ClusterView.records``),
    what the record goes back to for a throttle change the cluster refuses."""
    result = ExecutionResult()
    run = _Applying(result, reporter, xplan.changes())
    try:
        write_rollback(xplan.write_rollback.path, xplan.rollback)
        run.done(xplan.write_rollback, None)
        try:
            _apply_changes(backend, xplan, request, run, records, clock, sleep, earlier_record)
        except KadminError as e:
            result.aborted = f"stopped: {e.message}"
            result.hint = e.hint
        run.flush()
    except KeyboardInterrupt:
        run.interrupted()
    return result


def _apply_changes(backend, xplan, request, run: _Applying, records, clock, sleep, earlier_record) -> None:
    """Steps 2-5 of the module docstring. ``run.sending`` names the changes of each request
    until their outcomes are recorded."""
    result, done, reporter = run.result, run.done, run.reporter
    if xplan.record is not None:  # the record first (KIP-179): alone, so a Ctrl-C here leaves no throttle unknown
        apply_throttles(backend, records, (), xplan.record)
    if xplan.throttles.changes:
        throttles = tuple(xplan.throttles.changes)
        run.sending = throttles
        try:
            apply_throttles(
                backend,
                records,
                throttles,
                xplan.record,
                earlier=earlier_record,
                written=True,
                co_claims=co_claimed(xplan.throttles),  # a refusal records them no more than what it refused
            )
        except ConfigChangesPartlyMade as e:  # what the cluster accepted is reported, then the run stops
            run.held.update((c, None) for c in throttles if c in e.made)
            run.sending = ()
            run.record()
            run.report()
            raise
        run.held.update((c, None) for c in throttles)  # one step: all made, then each reported
        run.sending = ()
        run.record()
        run.report()

    retry = run.awaited  # replicas whose broker answered REPLICA_NOT_AVAILABLE: resent below
    if xplan.log_dir_moves:
        run.sending = tuple(xplan.log_dir_moves)
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
        run.sending = ()
        if run.failed(LogDirMove):
            result.aborted = "AlterReplicaLogDirs failed; the reassignment was not started"
            return

    if xplan.reassignments:
        by_tp = {r.tp: r for r in xplan.reassignments}
        plan = request.parsed.plan.by_partition()
        run.sending = tuple(xplan.reassignments)
        try:
            answers = backend.reassign_partitions([plan[tp] for tp in by_tp])
        except KadminError:
            run.sending = ()
            for m in list(retry.values()):
                del retry[m.replica]
                done(m, f"not sent: the reassignment of {m.replica.tp} was not started")
            raise
        for tp, r in by_tp.items():
            done(r, answers.get(tp, "no answer from the controller"))
        run.sending = ()
        refused = {c.tp for c in run.failed(Reassign)}
        for replica, m in list(retry.items()):
            if replica.tp in refused:  # that replica will not be created: no point waiting for it
                del retry[replica]
                done(m, f"not sent: the reassignment of {replica.tp} failed")

    deadline = clock() + request.timeout
    # per replica, the last failure to reach its broker: retried like REPLICA_NOT_AVAILABLE
    unreachable: dict[TopicPartitionReplica, str] = {}
    while retry:
        try:
            answers = backend.alter_replica_log_dirs({r: m.target_dir for r, m in retry.items()})
            unreachable = {}
        except (AuthorizationError, AuthenticationError, UnsupportedOperation) as e:
            for r, m in list(retry.items()):  # retrying cannot help; each move is still reported
                del retry[r]
                done(m, e.message)
            raise
        except KadminError as e:  # e.g. a destination broker restarting: it may be back before the timeout
            answers = dict.fromkeys(retry, REPLICA_NOT_AVAILABLE)
            unreachable = dict.fromkeys(retry, e.message)
        for r, m in list(retry.items()):
            err = answers.get(r, "no answer from the broker")
            if err is not None and err.startswith(f"on broker {r.broker}: "):  # its broker did not answer
                unreachable[r] = err
            elif err != REPLICA_NOT_AVAILABLE:
                del retry[r]
                done(m, err)
        if not retry:
            break
        left = deadline - clock()
        if left <= 0:
            for r, m in list(retry.items()):
                del retry[r]
                done(
                    m,
                    f"{unreachable[r]}, until the {request.timeout:g}s timeout"
                    if r in unreachable
                    else f"{REPLICA_NOT_AVAILABLE} until the {request.timeout:g}s timeout: the replica was not created in time",
                )
            break
        reporter.waiting(len(retry), left)
        sleep(min(request.retry_interval, left))
