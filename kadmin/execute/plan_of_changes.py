"""The plan of changes of ``reassign execute``, as a value: validation, the rollback file's
content, the throttle changes and record, the log-dir moves and the reassignments, computed
from the plan, what the cluster looks like and the options. No I/O: ``--dry-run`` renders this
value, ``kadmin.execute.executor`` applies it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kadmin.backends.base import BrokerLogDirs, ReassignmentBlocked
from kadmin.errors import ReassignmentInProgress
from kadmin.execute.changes import Change, LogDirMove, Reassign, WriteRollback
from kadmin.execute.rollback import ReplicaDirs, replica_dirs, rollback_plan
from kadmin.model import (
    ClusterState,
    ConfigEntry,
    ConfigResource,
    PartitionReassignment,
    ReassignmentPlan,
    Throttle,
    TopicPartition,
    TopicPartitionReplica,
    replica_dirs_of,
    replica_in_place,
)
from kadmin.plan.reassignment_file import ParsedPlan, gc_paused
from kadmin.plan.validate import (
    broker_rate_problem,
    check_not_blocked,
    check_reassignment,
    log_dir_rate_problem,
)
from kadmin.throttling.maths import ThrottleRates, ThrottleSet, recorded, throttle_changes
from kadmin.throttling.needs import (
    brokers_for_moves,
    current_throttles,
    lists_for_moves,
    log_dir_move_brokers,
    move_map,
    rate_targets,
    settable_brokers,
)
from kadmin.throttling.operations import check_targets, down_brokers_warning, rates_not_given
from kadmin.throttling.record import ThrottleRecord, now_iso

# Read with the throttle configs of the plan's topics (one DescribeConfigs): an incremental run
# plans its steps from it (``incremental_resume.fresh_start``)
MIN_INSYNC = "min.insync.replicas"


@dataclass(frozen=True)
class ExecuteRequest:
    """What the user asked for (flags already parsed; rates in bytes/s, durations in seconds)."""

    parsed: ParsedPlan
    plan_id: str
    rollback_path: str
    plan_file: str | None = None
    additional: bool = False
    throttle: int | None = None
    log_dir_throttle: int | None = None
    timeout: float = 10.0
    retry_interval: float = 0.1
    allow_replication_factor_change: bool = False


@dataclass(frozen=True)
class ClusterView:
    """Everything execute reads before deciding anything."""

    cluster: ClusterState
    log_dirs: Mapping[int, BrokerLogDirs] | None
    ongoing: Mapping[TopicPartition, PartitionReassignment]
    # The throttle configs of the plan's topics and brokers, and the topics' MIN_INSYNC (None
    # read: {}). Over ZooKeeper a topic's entry holds only its overrides
    configs: Mapping[ConfigResource, Mapping[str, ConfigEntry]]
    records: Mapping[str, ThrottleRecord]
    # Why no reassignment can start now, whatever the plan (ZooKeeper while
    # /admin/reassign_partitions exists; --additional cannot change it), or None
    blocked: ReassignmentBlocked | None = None
    # A down broker's configs can be changed (ZooKeeper holds them); over the AdminClient
    # protocol they cannot, and rates are planned on running brokers only
    down_configurable: bool = False

    def replica_dirs(self) -> ReplicaDirs:
        return replica_dirs(self.log_dirs)


@dataclass(frozen=True)
class ExecutionPlan:
    """Every change execute will make, in order (``changes()``). Rendered by --dry-run, applied
    otherwise, the run reporting each change in that same order."""

    rollback: ReassignmentPlan
    write_rollback: WriteRollback
    throttles: ThrottleSet
    record: ThrottleRecord | None  # the throttle record to write (merged with this plan's earlier one)
    log_dir_moves: tuple[LogDirMove, ...]  # one AlterReplicaLogDirs request, sent before the reassignments
    reassignments: tuple[Reassign, ...]
    unchanged: tuple[TopicPartition, ...]  # partitions nothing is sent for (replicas and directories in place)
    rates_skipped: frozenset[int] = frozenset()  # down brokers given no rate (their configs cannot change)
    warnings: tuple[str, ...] = ()  # to say before any change, --dry-run too
    # The throttles set before this run, as set: each throttle change is said against the value
    # it replaces (as ``throttle set`` says it), which the rollback of a rate restores
    throttles_before: Throttle = field(default_factory=Throttle)

    def changes(self) -> list[Change]:
        """Every change in the order the run makes and reports it, which ``--dry-run`` lists:
        the rollback file, the throttles, the moves of replicas a broker holds (they start at
        once), the reassignments, then the new replicas placed in their directories. Those go
        in the same AlterReplicaLogDirs request as the moves, but a broker places one only once
        the reassignment has created it (REPLICA_NOT_AVAILABLE until then, KIP-113)."""
        return [
            self.write_rollback,
            *self.throttles.changes,
            *(m for m in self.log_dir_moves if not m.new_replica),
            *self.reassignments,
            *(m for m in self.log_dir_moves if m.new_replica),
        ]

    @property
    def nothing_to_change(self) -> bool:
        """Every partition already has its replicas and directories (and throttles): no
        rollback file is needed either."""
        return not (self.throttles.changes or self.log_dir_moves or self.reassignments)


def check_no_other_reassignment(
    ongoing: Mapping[TopicPartition, PartitionReassignment], additional: bool, plan: ReassignmentPlan | None = None
) -> None:
    """Refuse while a reassignment runs, unless --additional. Partitions of ``plan`` already
    heading to its targets are this plan running (a repeated execute), not another one."""
    from kadmin.units import counted

    if plan is not None:
        targets = {a.tp: tuple(a.replicas) for a in plan.partitions}
        ongoing = {tp: r for tp, r in ongoing.items() if targets.get(tp) != tuple(r.target)}
    if ongoing and not additional:
        shown = ", ".join(str(tp) for tp in sorted(ongoing)[:5]) + (", ..." if len(ongoing) > 5 else "")
        raise ReassignmentInProgress(
            f"another reassignment is running ({counted(len(ongoing), 'partition')}: {shown}); nothing was changed",
            hint="wait for it (kadmin reassign list), or pass --additional to add this plan to it or change its throttle",
        )


def plan_execution(
    request: ExecuteRequest, view: ClusterView, *, now: float = 0.0, operator: tuple[str, str] = ("", "")
) -> ExecutionPlan:
    """Validate and compute every change. Raises PlanProblems, ReassignmentInProgress or
    InputError (a rate with nothing to throttle; all exit 2, nothing changed) or returns the
    plan of changes. ``now`` (epoch seconds) and ``operator`` (host, user) go into the
    throttle record."""
    with gc_paused():
        return _plan_execution(request, view, now, operator)


def _plan_execution(request: ExecuteRequest, view: ClusterView, now: float, operator: tuple[str, str]) -> ExecutionPlan:
    check_reassignment(
        request.parsed,
        view.cluster,
        view.log_dirs,
        allow_replication_factor_change=request.allow_replication_factor_change,
        ongoing=view.ongoing,
    )
    plan = request.parsed.plan
    if view.blocked is not None:  # a plan with a partition to send is refused, even with --additional
        check_not_blocked(plan, view.cluster, view.ongoing, view.blocked)
    check_no_other_reassignment(view.ongoing, request.additional, plan)
    cluster, ongoing = view.cluster, view.ongoing
    dirs = view.replica_dirs()

    rollback = rollback_plan(plan, cluster, ongoing, dirs)
    moves, reassignments, unchanged = _moves(plan, cluster, ongoing, dirs)

    rates = ThrottleRates(request.throttle, request.throttle, request.log_dir_throttle)
    moves_between_brokers = move_map(plan, cluster, ongoing) if request.throttle is not None else {}
    copied_between = brokers_for_moves(moves_between_brokers)
    # a run that sends nothing (run again) says "Nothing to change" instead
    idle_rates = (
        _rates_with_nothing_to_pace(request, view, bool(copied_between), bool(moves)) if moves or reassignments else []
    )
    # Rates only where configs can change: over the AdminClient protocol a down broker (moving
    # replicas off a dead broker is the commonest reason to reassign) takes none, and is named.
    rate_brokers, down = rate_targets(copied_between, cluster, down_configurable=view.down_configurable)
    log_dir_brokers, down_log_dir = rate_targets(
        # Brokers a move is sent to, and those where one of the plan's moves still runs: the new
        # rate paces it (`--additional` changes a running plan's throttle, as Kafka's tool does).
        # A repeated execute sets nothing where nothing moves any more.
        log_dir_move_brokers(plan, view.log_dirs, cluster) if request.log_dir_throttle is not None else (),
        cluster,
        down_configurable=view.down_configurable,
    )
    skipped = frozenset(down | down_log_dir)
    current = current_throttles(view.configs)
    throttles = throttle_changes(
        current,
        lists=lists_for_moves(moves_between_brokers) if request.throttle is not None else None,
        rate_brokers=rate_brokers,
        log_dir_brokers=log_dir_brokers,
        rates=rates,
        records=view.records.values(),
    )
    check_targets(throttles.changes, cluster, settable_brokers(cluster, down_configurable=view.down_configurable))
    host, user = operator
    record = recorded(
        throttles,
        request.plan_id,
        view.records,
        created_at=now_iso(now),
        host=host,
        user=user,
        plan_file=request.plan_file,
        command="reassign execute",
    )

    return ExecutionPlan(
        rollback=rollback,
        write_rollback=WriteRollback(request.rollback_path, len(rollback.partitions)),
        throttles=throttles,
        record=record,
        log_dir_moves=tuple(moves),
        reassignments=tuple(reassignments),
        unchanged=tuple(unchanged),
        rates_skipped=skipped,
        warnings=(
            *idle_rates,
            *((down_brokers_warning(skipped, rates_not_given(rates, down, down_log_dir)),) if skipped else ()),
        ),
        throttles_before=current.as_set(),
    )


def _rates_with_nothing_to_pace(
    request: ExecuteRequest, view: ClusterView, copied_between: bool, log_dir_moves: bool
) -> list[str]:
    """A warning for each rate given that has nothing to pace (``throttle set``'s rule,
    ``kadmin.plan.validate``): --throttle for a plan moving no replica between brokers (only
    between the directories of one), --replica-alter-log-dirs-throttle for one moving none
    between directories. Either used to be dropped without a word. Not refused: as with Kafka's
    tool, a script may pass both rates for every plan. The rule is asked only when this run found
    no move of the rate's kind (``copied_between``: brokers data is copied between, from the same
    move map; ``log_dir_moves``: log-dir moves to send), so a plan of 100,000 partitions is not
    walked twice."""
    plan = request.parsed.plan
    out = []
    if request.throttle is not None and not copied_between:
        problem = broker_rate_problem(plan, view.cluster, view.ongoing, "--throttle")
        if problem is not None:
            out.append(
                f"{problem}: no replication rate is set (--replica-alter-log-dirs-throttle paces moves between a "
                "broker's log directories)"
            )
    if request.log_dir_throttle is not None and not log_dir_moves:
        problem = log_dir_rate_problem(plan, view.log_dirs, view.cluster, "--replica-alter-log-dirs-throttle")
        if problem is not None:
            out.append(f"{problem}: no log-dir rate is set (--throttle paces moves between brokers)")
    return out


def _moves(plan: ReassignmentPlan, cluster: ClusterState, ongoing, dirs: ReplicaDirs):
    """The log-dir moves and reassignments to send, and the partitions nothing is sent for:
    already at (or already heading to) their replicas and directories."""
    moves: list[LogDirMove] = []
    reassignments: list[Reassign] = []
    unchanged = []
    for a in plan.partitions:
        tp = a.tp
        state = cluster.partitions[tp]
        running = ongoing.get(tp) if ongoing else None
        heading_to = running.target if running is not None else tuple(state.replicas)
        sent = len(moves) + len(reassignments)
        if tuple(a.replicas) != heading_to:
            if running is None:
                reassignments.append(Reassign(tp, tuple(state.replicas), tuple(a.replicas)))
            else:  # a re-target: said against the full set in flight and the move's original replicas
                original = tuple(b for b in running.replicas if b not in running.adding)
                reassignments.append(Reassign(tp, tuple(running.replicas), tuple(a.replicas), heading_to, original))
        for broker, path in a.log_dir_targets().items():
            # A log the broker lists while not in the replica set (a stray, left by a cancelled
            # reassignment) is no replica: the target is a new replica to place, not in place.
            listed = dirs.get((a.topic, a.partition, broker), (None, None))
            if replica_in_place(state.replicas, broker, *listed, path):
                continue  # already there
            cur, fut = replica_dirs_of(state.replicas, broker, *listed)
            if fut == path:
                continue  # already moving there: sending it again would change nothing
            moves.append(LogDirMove(TopicPartitionReplica(a.topic, a.partition, broker), cur, path, fut))
        if len(moves) + len(reassignments) == sent:
            unchanged.append(tp)
    return moves, reassignments, unchanged
