"""``reassign verify`` against a cluster: read, judge (``kadmin.plan.verify``), then remove the
throttles this plan set that no running move still needs.

Kafka's tool deletes every throttle of the plan's topics and brokers on ``--verify``, whoever
set them and whatever still moves. kadmin removes only what its record for this plan holds, and
keeps each entry or rate a running move (this plan's or anyone's) still uses; the next verify
removes the rest.

Kafka's views change at different moments when a move ends (ListPartitionReassignments first,
then each broker's Metadata and DescribeLogDirs), so one read can see a plan "finished but
different" that is only not caught up yet. The controller's list is read first (a move it no
longer lists has ended before the other reads); when something differs, everything is read
again, every ``REREAD_INTERVAL`` for up to ``SETTLE_SECONDS`` (Kafka's brokers catch up well
within it), and what still differs then is reported as differing, as Kafka's ``--verify`` says
of a partition its controller does not list. A view a finishing move would explain (the target
followed by the replicas being removed) is not taken for one when it outlasts the bound: it is
also how a plan that lowers the replication factor looks before it has run, which would
otherwise be "in progress" for ever. Over ZooKeeper, a plan whose partitions are only requested
in a stuck /admin/reassign_partitions (the controller never took them) gets no verdict but an
error naming the node and the way out: nothing moves them, and nothing will until someone acts.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace

from kadmin.backends.base import (
    Backend,
    ReassignmentBlocked,
    not_taken_reason,
    read_together,
    reassignment_blocked,
    requests_not_taken,
)
from kadmin.errors import ClusterError, ConnectionFailed, KadminError
from kadmin.execute.clock import Clock, SystemClock
from kadmin.model import LOG_DIR_RATE, ClusterState, ReassignmentPlan
from kadmin.plan.verify import MoveState, ReplicaVerdict, State, VerifyResult, log_dir_targets, verify_plan
from kadmin.throttling.maths import Removal
from kadmin.throttling.needs import ThrottleItem, left_behind, throttle_items
from kadmin.throttling.operations import remove_plan_throttles
from kadmin.throttling.state import read_throttle_state
from kadmin.throttling.stores import RecordStore


@dataclass(frozen=True)
class VerifyOutcome:
    result: VerifyResult
    removal: Removal | None  # None: no record for this plan, or --preserve-throttles
    kept_reason: str | None = None  # why throttles were kept: --preserve-throttles, or a paused move
    # No record for this plan and the plan complete: throttles nobody recorded and no move needs
    left_behind: tuple[ThrottleItem, ...] = ()
    # The plan complete: other kadmin plans whose recorded throttles no move needs any more (their
    # own verify kept them while this plan's moves ran, and will not run again by itself)
    stale_plans: tuple[str, ...] = ()
    # What blocks new reassignments and is stuck (ZooKeeper: a /admin/reassign_partitions the
    # controller is not acting on), as reassign list and progress warn of it; the verdict stands
    stuck: ReassignmentBlocked | None = None
    # The plan's log-dir replicas whose move is paused by an offline directory (``paused_moves``)
    paused: tuple[ReplicaVerdict, ...] = ()


SETTLE_SECONDS = 2.0  # how long views that disagree are read again before a verdict
REREAD_INTERVAL = 0.2


def judge(
    backend: Backend,
    plan: ReassignmentPlan,
    *,
    clock: Clock | None = None,
    settle_seconds: float = SETTLE_SECONDS,
    interval: float = REREAD_INTERVAL,
):
    """Read the cluster and judge ``plan`` (``kadmin.plan.verify``), reading again while
    something differs, or reads complete with a target replica out of the ISR (``in_sync``), up
    to ``settle_seconds``. Returns (result, cluster, ongoing) of the last read."""
    clock = clock or SystemClock()
    deadline = clock.now() + settle_seconds
    while True:
        result, cluster, ongoing = _read_and_judge(backend, plan)
        if result.state is State.IN_PROGRESS or (result.state is State.COMPLETE and in_sync(result, cluster)):
            return result, cluster, ongoing
        left = deadline - clock.now()
        if left <= interval / 100:  # (a remainder from rounding is no time to wait for)
            return result, cluster, ongoing
        clock.sleep(min(interval, left))


def in_sync(result: VerifyResult, cluster: ClusterState) -> bool:
    """Whether every partition the verdict calls complete has its whole target in the ISR, as
    Kafka's controller requires before it ends a reassignment. One that only adds replicas,
    cancelled a moment ago, reads as complete otherwise: the controller no longer lists it, while
    brokers' Metadata still shows its full set in flight, which is its target, the new replica
    out of the ISR (``execute --incremental`` counts a step done by the same rule). Kafka's
    ``--verify`` reads the same two views and says "completed"; ``judge`` reads again instead,
    and what still reads complete at its bound is complete (a replica fallen out of the ISR
    after the move ended)."""
    parts = cluster.partitions
    for v in result.partitions:
        p = parts.get(v.tp) if v.state is State.COMPLETE else None
        if p is not None and not set(v.target) <= set(p.isr):
            return False
    return True


def _read_and_judge(backend: Backend, plan: ReassignmentPlan):
    # The controller's list first: a move it no longer lists ended before Metadata was read.
    ongoing = backend.list_partition_reassignments()
    cluster = backend.describe_cluster()
    _refuse_stuck_requests(backend, plan, ongoing, cluster)
    targets = log_dir_targets(plan)
    live_targets = [r for r in targets if r.broker in cluster.brokers]
    replica_dirs = backend.describe_replica_log_dirs(live_targets) if live_targets else {}
    unanswered = sorted({r.broker for r in targets if r not in replica_dirs})
    if unanswered:  # a stopped or unreachable broker: unknown is not "differs", so no verdict
        from kadmin.units import plural

        raise ConnectionFailed(
            f"{plural('broker', len(unanswered))} {', '.join(map(str, unanswered))} did not describe "
            "its log directories (not alive, or not answering), so where this plan's replicas are cannot be told",
            hint="check that the broker is up and run verify again",
        )
    return verify_plan(plan, cluster, ongoing, replica_dirs), cluster, ongoing


def _refuse_stuck_requests(backend: Backend, plan: ReassignmentPlan, ongoing, cluster) -> None:
    """No verdict for a plan whose partitions are only requested in what blocks new reassignments
    while it is stuck (ZooKeeper: a /admin/reassign_partitions the controller is not acting on).
    Kafka's ZooKeeper-mode ``--verify`` calls them in progress because the node lists them, for
    ever; no broker is moving them, and they will not finish or fail by themselves: the operator
    has to act, so it is an error (exit 1) that names the node and the way out."""
    if not any(a.tp in ongoing for a in plan.partitions):
        return
    blocked = reassignment_blocked(backend)
    if blocked is None:
        return
    waiting = requests_not_taken(blocked, ongoing, cluster)
    mine = [a.tp for a in plan.partitions if a.tp in waiting]
    if mine:
        raise ClusterError(
            not_taken_reason(blocked, mine, "this plan's ") + " (not in progress, not finished)", hint=blocked.hint
        )


def paused_moves(
    result: VerifyResult, offline: Mapping[int, Collection[str]] | None = None
) -> tuple[ReplicaVerdict, ...]:
    """The log-dir replicas of the plan whose move is paused by an offline directory: its future
    replica is listed but its source directory is offline (``MISSING_LOG_DIR`` with a future
    directory), or (``offline``: broker -> its offline directories) the replica is still in
    another directory and the one the plan moves it to is offline, where a future replica
    cannot be seen. Nothing copies them now; the restart that brings the directory back resumes
    them."""
    offline = offline or {}
    return tuple(
        v
        for v in result.replicas
        if (v.move is MoveState.MISSING_LOG_DIR and v.future_dir is not None)
        or (v.move is MoveState.NOT_MOVING and v.target_dir in offline.get(v.replica.broker, ()))
    )


def paused_reason(
    result: VerifyResult, removal: Removal | None, offline: Mapping[int, Collection[str]] | None = None
) -> str | None:
    """Why a log-dir rate this plan set was kept when a move of the plan is paused
    (``paused_moves``): nothing copies it now, but the restart that brings the directory back
    resumes it at the rate set then, so the rate stays until the future replica is gone. None
    when no kept rate is explained so."""
    if removal is None:
        return None
    kept = {c.broker for c in removal.kept.rates if c.name == LOG_DIR_RATE}
    paused = []
    for v in paused_moves(result, offline):
        if v.replica.broker not in kept:
            continue
        if v.move is MoveState.MISSING_LOG_DIR:
            paused.append(
                (
                    v.replica.broker,
                    f"{v.replica.topic}-{v.replica.partition} on broker {v.replica.broker}",
                    "its source directory is offline",
                )
            )
        else:
            paused.append(
                (
                    v.replica.broker,
                    f"{v.replica.topic}-{v.replica.partition} on broker {v.replica.broker} to {v.target_dir}",
                    f"its destination, broker {v.replica.broker}'s {v.target_dir}, is offline: "
                    "a future replica there cannot be seen",
                )
            )
    if not paused:
        return None
    from kadmin.units import plural

    brokers = sorted({b for b, _, _ in paused})
    one = len(paused) == 1
    moves = ", ".join(f"{name} is paused ({why})" if one else f"{name} ({why})" for _, name, why in paused)
    return (
        f"the log-dir rate of {plural('broker', len(brokers))} {', '.join(map(str, brokers))} stays: "
        f"{f'the move of {moves} and resumes' if one else f'the moves of {moves} are paused and resume'} "
        "when the broker restarts "
        "with that directory back, at the rate set then; verify again once it has finished"
    )


def offline_dirs(backend: Backend, result: VerifyResult) -> dict[int, set[str]]:
    """The offline directories of the brokers where a replica of the plan is not moving to its
    target (``paused_moves``' ``offline``): read only then, in one DescribeLogDirs."""
    brokers = sorted({v.replica.broker for v in result.replicas if v.move is MoveState.NOT_MOVING})
    if not brokers:
        return {}
    try:
        answers = backend.describe_log_dirs(brokers=brokers)
    except KadminError:  # what it explains is advice; the verdict stands without it
        return {}
    return {
        b: {d.path for d in bld.log_dirs if d.error is not None}
        for b, bld in answers.items()
        if bld.error is None and any(d.error is not None for d in bld.log_dirs)
    }


def run_verify(
    backend: Backend,
    plan: ReassignmentPlan,
    *,
    plan_id: str,
    records: RecordStore | None,
    preserve_throttles: bool = False,
    clock: Clock | None = None,
) -> VerifyOutcome:
    outcome = _verify(backend, plan, plan_id, records, preserve_throttles, clock)
    stuck = stuck_blocker(backend)
    return outcome if stuck is None else replace(outcome, stuck=stuck)


def stuck_blocker(backend: Backend) -> ReassignmentBlocked | None:
    """What blocks new reassignments when it is stuck (ZooKeeper: a /admin/reassign_partitions
    the controller is not acting on, whatever it holds, this plan's partitions or not): reassign
    list, progress and execute say it, so verify does too. None otherwise, or when it cannot be
    read (advice: the verdict stands without it)."""
    try:
        blocked = reassignment_blocked(backend)
    except KadminError:
        return None
    return blocked if blocked is not None and blocked.stuck else None


def _verify(
    backend: Backend,
    plan: ReassignmentPlan,
    plan_id: str,
    records: RecordStore | None,
    preserve_throttles: bool,
    clock: Clock | None,
) -> VerifyOutcome:
    if preserve_throttles or records is None:
        result, _, _ = judge(backend, plan, clock=clock)
        paused = paused_moves(result, offline_dirs(backend, result)) if result.state is State.DIFFERS else ()
        return VerifyOutcome(result, None, "--preserve-throttles" if preserve_throttles else None, paused=paused)
    # The records are read while the verdict is made (its error, if any, comes first).
    (result, cluster, ongoing), loaded = read_together(
        backend, lambda: judge(backend, plan, clock=clock), records.load_all
    )
    # What every running move in the cluster needs, not only this plan's, is kept.
    removal = remove_plan_throttles(backend, records, plan_id, records=loaded)
    if result.state is not State.COMPLETE:
        offline = offline_dirs(backend, result)
        return VerifyOutcome(
            result, removal, paused_reason(result, removal, offline), paused=paused_moves(result, offline)
        )
    try:
        others = {pid: r for pid, r in loaded.items() if pid != plan_id}
        state = read_throttle_state(backend, records, topics=plan.topics, seen=(cluster, ongoing, others))
    except KadminError:  # the verdict is verify's answer; what is left behind is advice
        return VerifyOutcome(result, removal)
    items = throttle_items(state.current, state.needs, state.records.values())
    stale_plans = tuple(sorted({pid for i in items if i.stale for pid in i.plan_ids}))
    behind = tuple(left_behind(items, plan.topics)) if removal is None else ()
    return VerifyOutcome(result, removal, left_behind=behind, stale_plans=stale_plans)
