"""Progress of replica moves: KIP-179's status table plus bytes moved and left, rate and ETA.

Two kinds of move:

- between brokers: a replica being added copies from the leader. Seen on Kafka 3.3.1, no admin
  API reports such a follower's lag (DescribeLogDirs shows it as a normal replica with OffsetLag
  0 and a growing size), so its progress comes from sizes: the leader replica's size is the
  total, the new replica's size what has been copied. Messages behind are estimated from the
  leader's end offset in proportion to the bytes left (shown with "~").
- between directories of one broker: the future replica's size against the current replica's,
  and its OffsetLag, which is exact, in messages.

Rates come from two successive snapshots (the caller supplies the time, so tests and the
benchmark control the clock). The copy rate is how fast the moved bytes grow; the ETA uses how
fast the bytes *left* shrink, which is slower while producers keep writing to the partition.

With a plan, a snapshot also counts what ``reassign verify`` would call differing from it
(``differs``): once nothing moves, a cancelled or re-targeted move leaves replicas "In sync" that
are not where the plan puts them, and "done" alone would not say so.

A reassignment requested but not taken by any broker (ZooKeeper: an entry of a stuck
/admin/reassign_partitions, ``kadmin.backends.base.requests_not_taken``) is no move: the
snapshot lists it apart (``waiting``), in its scope, and counts it nowhere else.

Pure: cluster state, reassignments and DescribeLogDirs results in, a snapshot out.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from kadmin.backends.base import BrokerLogDirs
from kadmin.model import (
    DOWN_ERROR,
    ClusterState,
    PartitionReassignment,
    ReassignmentPlan,
    ReplicaLogDir,
    TopicPartition,
)
from kadmin.plan.gc_pause import gc_paused
from kadmin.plan.verify import State, log_dir_targets, verify_plan

IN_SYNC = "In sync"
UNKNOWN_TOPIC = "Unknown topic"
UNKNOWN_PARTITION = "Unknown partition"
UNKNOWN_BROKER = "Unknown broker"
NOT_HOSTED = "Broker does not host this partition"
# Not KIP-179's: a replica Kafka cannot serve (it sits in a log directory that went offline,
# Metadata's OfflineReplicas). Nothing copies it, so it is no move to wait for.
OFFLINE = "Offline: its log directory is offline"
# Not KIP-179's: a replica on a broker that did not answer DescribeLogDirs. Metadata's ISR may
# still list it (the controller notices a dead broker late), but whether it is in sync or moves
# between its directories nobody could see.
UNANSWERED = "Unknown: its broker did not answer"
# Not KIP-179's: a replica on a broker that holds replicas (a partition's replica set names it)
# but is not among the live brokers (stopped or crashed): nothing can be asked of it. A move
# between its directories may be half done and resume when it restarts; whether it is in sync
# nobody can see. ("Unknown broker" stays for an id the cluster does not know at all.)
DOWN = "Unknown: its broker is down"
# Not KIP-179's: a log-dir move whose future replica DescribeLogDirs lists with OffsetLag -1
# (Kafka's INVALID_OFFSET_LAG: the partition is not online on the broker). Its source directory
# went offline: nothing copies it until the broker restarts with that directory back, and then
# it resumes. Lag, bytes left and ETA are unknown; it is still a move (it will run again).
PAUSED = "Paused: its source directory is offline"
# Not KIP-179's: with a plan, a replica still in another directory while the directory the plan
# moves it to is offline on its broker. A future replica there cannot be seen (DescribeLogDirs
# lists nothing of an offline directory); the move, if it had started, resumes when the broker
# restarts with that directory back (if it had not, AlterReplicaLogDirs failed when sent). Its
# bytes moved and left are unknown; like PAUSED it is a move that copies nothing now. So is a
# replica being added (an inter-broker move) that its broker does not list while the directory
# the plan puts it in is offline.
PAUSED_DESTINATION = "Paused: its destination directory is offline"
PAUSED_STATUSES = frozenset((PAUSED, PAUSED_DESTINATION))
LAG_UNKNOWN = "Behind: lag unknown"

INTER_BROKER = "inter-broker"
LOG_DIR = "log-dir"
NO_MOVE = "none"


class DirReplica(NamedTuple):
    """Where one replica lives on its broker, from DescribeLogDirs. (A tuple: tens of thousands
    are built per refresh.)"""

    current_dir: str | None = None
    current_size: int | None = None
    future_dir: str | None = None
    future_size: int | None = None
    future_lag: int | None = None


_NOWHERE = DirReplica()


def index_log_dirs(log_dirs: Mapping[int, BrokerLogDirs]) -> dict[tuple[str, int, int], DirReplica]:
    """(topic, partition, broker) -> DirReplica, for every replica every answering broker lists."""
    out: dict[tuple[str, int, int], DirReplica] = {}
    futures = []
    for b, bld in log_dirs.items():
        for ld in bld.log_dirs:
            if ld.error is not None:
                continue
            path = ld.path
            for r in ld.replicas:
                if r.is_future:
                    futures.append(((r.topic, r.partition, b), path, r))
                else:
                    out[(r.topic, r.partition, b)] = DirReplica(path, r.size)
    for key, path, r in futures:  # few: one per log-dir move
        have = out.get(key, _NOWHERE)
        out[key] = DirReplica(have.current_dir, have.current_size, path, r.size, r.offset_lag)
    return out


@dataclass(frozen=True, slots=True)
class ReplicaProgress:
    """One row of the table: a replica (topic, partition, broker) and how its move goes."""

    topic: str
    partition: int
    broker: int
    status: str  # KIP-179's words: "In sync", "Behind: N messages", "Unknown topic", ...
    move: str = NO_MOVE  # "inter-broker", "log-dir" or "none" (none seen: UNANSWERED's too)
    messages_behind: int | None = None
    messages_estimated: bool = False
    total_bytes: int | None = None
    moved_bytes: int | None = None
    remaining_bytes: int | None = None
    rate: float | None = None  # bytes/s copied, between the last two snapshots
    eta: float | None = None  # seconds, at the rate the bytes left shrink
    log_dir: str | None = None
    future_log_dir: str | None = None

    @property
    def key(self) -> tuple[str, int, int, str]:
        return (self.topic, self.partition, self.broker, self.move)

    @property
    def moving(self) -> bool:
        return self.move != NO_MOVE

    @property
    def paused(self) -> bool:
        """A log-dir move that copies nothing until its broker restarts with a directory back."""
        return self.status in PAUSED_STATUSES


class Waiting(NamedTuple):
    """A reassignment requested but not taken: nothing copies it, nothing will by itself."""

    topic: str
    partition: int
    replicas: tuple[int, ...]  # the partition's replicas now
    target: tuple[int, ...]  # the ones requested

    @property
    def tp(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)


class PlanDifference(NamedTuple):
    """What ``reassign verify`` would call differing from the plan (not what is in progress):
    partitions whose replica set is not the target, replicas not in their target directory."""

    partitions: int
    log_dir_replicas: int

    def __bool__(self) -> bool:
        return bool(self.partitions or self.log_dir_replicas)


@dataclass(frozen=True, slots=True)
class Totals:
    moving_replicas: int
    moved_bytes: int  # of the moving replicas whose bytes moved are known (moved_known says if all are)
    remaining_bytes: int | None  # None: some moving replica's bytes left are unknown
    rate: float | None
    eta: float | None
    moved_known: bool = True  # False: a moving replica's bytes moved are unknown, moved_bytes is a floor


@dataclass(frozen=True)
class ProgressSnapshot:
    at: float  # the caller's clock, seconds
    replicas: tuple[ReplicaProgress, ...]
    totals: Totals
    reassigning_partitions: int
    # Brokers whose replicas could not be seen (broker -> why): those that did not answer
    # DescribeLogDirs, and those down (DOWN_ERROR, as in log-dirs describe) that hold replicas in
    # scope. Their log-dir moves and replica sizes are not in this snapshot, so it cannot say
    # every move is done.
    unanswered: Mapping[int, str] = field(default_factory=dict)
    # Partitions of replicas catching up whose end offset could not be read (their messages
    # behind are not estimated), and why when the backend said (no leader answered).
    unread_end_offsets: tuple[TopicPartition, ...] = ()
    end_offsets_error: str | None = None
    # Requests in scope no broker carries out (``requests_not_taken``): not counted as
    # reassigning, so they do not keep the snapshot from being done; the caller says so.
    waiting: tuple[Waiting, ...] = ()
    # With a plan: what differs from it (None without a plan). Once done, a difference means
    # nothing will bring the cluster to the plan by itself: ``reassign verify`` says what.
    differs: PlanDifference | None = None
    # Replicas a reassigning partition's target needs that nothing copies now (``held_rows``):
    # offline, down, or new in an offline directory. Kafka ends a reassignment only once every
    # target replica is in the ISR, so it waits for them: no ETA, whatever the others' bytes say.
    held: tuple[ReplicaProgress, ...] = ()

    @property
    def done(self) -> bool:
        return not any(r.moving for r in self.replicas) and self.reassigning_partitions == 0 and not self.unanswered

    @property
    def paused_only(self) -> bool:
        """Moves are left, but every one is a paused log-dir move (PAUSED_STATUSES) and nothing
        else is reassigning or unseen: nothing copies until a broker restarts with its directory
        back, so waiting would not end. ``reassign verify`` calls this differing (exit 4)."""
        moving = [r for r in self.replicas if r.moving]
        return (
            bool(moving) and all(r.paused for r in moving) and self.reassigning_partitions == 0 and not self.unanswered
        )

    @property
    def paused_moves(self) -> tuple[ReplicaProgress, ...]:
        return tuple(r for r in self.replicas if r.paused)

    @property
    def unseen_only(self) -> bool:
        """Nothing seen moving, but a broker did not answer: whether its moves are done is unknown."""
        return bool(self.unanswered) and not any(r.moving for r in self.replicas) and self.reassigning_partitions == 0


# --- scope ----------------------------------------------------------------------------------
def plan_scope(plan: ReassignmentPlan) -> list[tuple[str, int, int]]:
    """The (topic, partition, broker) rows of a plan: every target replica, in plan order."""
    return [(a.topic, a.partition, b) for a in plan.partitions for b in a.replicas]


def ongoing_scope(
    ongoing: Mapping[TopicPartition, PartitionReassignment],
    dirs: Mapping[tuple[str, int, int], DirReplica],
) -> list[tuple[str, int, int]]:
    """Every replica of every reassigning partition, and every replica with a future replica
    (log-dir moves, whoever started them), sorted by topic, partition and broker."""
    rows = [(tp.topic, tp.partition, b) for tp, r in ongoing.items() for b in r.replicas]
    seen = set(rows)
    rows.extend(k for k, d in dirs.items() if d.future_dir is not None and k not in seen)
    rows.sort()
    return rows


def down_in_scope(cluster: ClusterState, plan: ReassignmentPlan | None = None) -> set[int]:
    """Brokers that hold replicas but are not among the live brokers: down, so nothing they hold
    can be seen, a log-dir move there included (it resumes when the broker restarts). With a
    plan, those the plan names or that hold a replica of one of its partitions; without, all."""
    down = cluster.down_brokers()
    if plan is None or not down:
        return down
    parts = cluster.partitions
    named = {b for a in plan.partitions for b in a.replicas}
    named.update(b for a in plan.partitions if (st := parts.get(a.tp)) is not None for b in st.replicas)
    return down & named


# --- the snapshot -----------------------------------------------------------------------------
def snapshot(
    at: float,
    cluster: ClusterState,
    ongoing: Mapping[TopicPartition, PartitionReassignment],
    log_dirs: Mapping[int, BrokerLogDirs],
    *,
    plan: ReassignmentPlan | None = None,
    end_offsets: Mapping[TopicPartition, int] | None = None,
    previous: ProgressSnapshot | None = None,
    unread_end_offsets: Collection[TopicPartition] = (),
    end_offsets_error: str | None = None,
    not_taken: Collection[TopicPartition] = (),
) -> ProgressSnapshot:
    """Progress of ``plan``'s replicas, in plan order (or, without a plan, of every ongoing move,
    sorted) at time ``at``. ``previous`` (an earlier snapshot) gives rates and ETAs.
    ``unread_end_offsets``: partitions whose end offset was asked for but not read (and
    ``end_offsets_error``, why): the snapshot names those a replica catching up lacks.
    ``not_taken``: the partitions of ``ongoing`` that are requests no broker carries out
    (``kadmin.backends.base.requests_not_taken``): no move; listed in ``waiting``."""
    waiting = _waiting(cluster, ongoing, not_taken, plan)
    if not_taken:
        ongoing = {tp: r for tp, r in ongoing.items() if tp not in not_taken}
    with gc_paused():
        snap = _snapshot(
            at, cluster, ongoing, log_dirs, plan, end_offsets, previous, set(unread_end_offsets), end_offsets_error
        )
    return replace(snap, waiting=waiting) if waiting else snap


def _waiting(cluster: ClusterState, ongoing, not_taken, plan) -> tuple[Waiting, ...]:
    """The requests not taken in scope (``plan``'s partitions, or all), sorted."""
    wanted = None if plan is None else {a.tp for a in plan.partitions}
    return tuple(
        Waiting(tp.topic, tp.partition, tuple(cluster.partitions[tp].replicas), tuple(ongoing[tp].target))
        for tp in sorted(not_taken)
        if tp in ongoing and tp in cluster.partitions and (wanted is None or tp in wanted)
    )


def _snapshot(at, cluster, ongoing, log_dirs, plan, end_offsets, previous, unread, why) -> ProgressSnapshot:
    dirs = index_log_dirs(log_dirs)
    scope = plan_scope(plan) if plan is not None else ongoing_scope(ongoing, dirs)
    # Plain tuple keys: hashing frozen dataclasses is the slow part over 10,000s of rows.
    parts = {(tp.topic, tp.partition): st for tp, st in cluster.partitions.items()}
    adding_of = {(tp.topic, tp.partition): r.adding for tp, r in ongoing.items()}
    offsets = {(tp.topic, tp.partition): o for tp, o in (end_offsets or {}).items()}
    topics = {t for t, _ in parts}
    brokers = cluster.brokers
    offline_paths = {
        b: {d.path for d in bld.log_dirs if d.error}
        for b, bld in log_dirs.items()
        if bld.error is None and any(d.error for d in bld.log_dirs)
    }
    offline_dirs = set(offline_paths)
    # With a plan, the directories it moves replicas to on a broker with an offline directory
    # (a move towards an offline one is paused, unseen)
    towards = (
        {(r.topic, r.partition, r.broker): d for r, d in log_dir_targets(plan).items() if r.broker in offline_paths}
        if plan is not None and offline_paths
        else {}
    )
    silent = {b for b, bld in log_dirs.items() if bld.error is not None}
    down = down_in_scope(cluster, plan)
    unestimated: set[TopicPartition] = set()
    before = (
        {(r.topic, r.partition, r.broker, r.move): r for r in previous.replicas if r.move != NO_MOVE}
        if previous
        else {}
    )
    dt = at - previous.at if previous is not None else 0.0

    rows: list[ReplicaProgress] = []
    append = rows.append
    for topic, partition, broker in scope:
        key = (topic, partition)
        state = parts.get(key)
        if state is None:
            append(ReplicaProgress(topic, partition, broker, UNKNOWN_PARTITION if topic in topics else UNKNOWN_TOPIC))
            continue
        if broker not in brokers and broker not in down:
            append(ReplicaProgress(topic, partition, broker, UNKNOWN_BROKER))
            continue
        if broker not in state.replicas:
            append(ReplicaProgress(topic, partition, broker, NOT_HOSTED))
            continue
        here = dirs.get((topic, partition, broker))
        adding = adding_of.get(key, state.adding)
        if broker in down:  # the move between brokers is seen (if any), nothing from the broker itself
            move = INTER_BROKER if broker in adding else NO_MOVE
            append(ReplicaProgress(topic, partition, broker, DOWN, move))
            continue
        if broker not in adding and broker not in state.isr and _offline(broker, state, here, offline_dirs):
            if here is None or here.future_dir is None or here.current_dir is not None:
                append(ReplicaProgress(topic, partition, broker, OFFLINE))
                continue
            # Its future replica waits in an online directory: a move that resumes with the disk.
            fields = _moving_dir(here, True)
        elif (
            broker in adding
            and (here is None or here.current_dir is None)
            and (target := towards.get((topic, partition, broker))) is not None
            and target in offline_paths[broker]
        ):  # a new replica the plan puts in an offline directory: unseen, as is what it holds
            append(ReplicaProgress(topic, partition, broker, PAUSED_DESTINATION, INTER_BROKER, future_log_dir=target))
            continue
        elif broker in adding and (here is None or here.current_dir is None) and broker in state.offline_replicas:
            # a new replica in an offline directory: nothing copies it until the directory is back
            append(ReplicaProgress(topic, partition, broker, OFFLINE, INTER_BROKER))
            continue
        elif broker in adding or broker not in state.isr:
            end_offset = offsets.get(key)
            if end_offset is None and unread:
                tp = TopicPartition(topic, partition)
                if tp in unread:
                    unestimated.add(tp)
            fields = _catching_up(topic, partition, broker, state, here, dirs, end_offset)
        elif here is not None and here.future_dir is not None:
            fields = _moving_dir(here, broker in offline_dirs)
        elif broker in silent:  # the ISR says in sync, but nothing from the broker itself does
            append(ReplicaProgress(topic, partition, broker, UNANSWERED))
            continue
        elif (
            here is not None
            and here.current_dir is not None
            and (target := towards.get((topic, partition, broker))) is not None
            and target != here.current_dir
            and target in offline_paths[broker]
        ):
            append(
                ReplicaProgress(
                    topic,
                    partition,
                    broker,
                    PAUSED_DESTINATION,
                    LOG_DIR,
                    total_bytes=here.current_size,
                    log_dir=here.current_dir,
                    future_log_dir=target,
                )
            )
            continue
        else:
            append(ReplicaProgress(topic, partition, broker, IN_SYNC, log_dir=here.current_dir if here else None))
            continue
        status, move, behind, estimated, total, moved, remaining, log_dir, future_dir = fields
        rate = eta = None
        prev = before.get((topic, partition, broker, move)) if dt > 0 else None
        if status in (PAUSED, LAG_UNKNOWN):  # Kafka does not know its lag: no rate, no ETA
            prev = None
        if prev is not None and moved is not None and prev.moved_bytes is not None:
            rate = max(moved - prev.moved_bytes, 0) / dt
            if remaining == 0:
                eta = 0.0
            elif remaining is not None and prev.remaining_bytes is not None:
                closing = (prev.remaining_bytes - remaining) / dt
                if closing > 0:
                    eta = remaining / closing
        append(
            ReplicaProgress(
                topic,
                partition,
                broker,
                status,
                move,
                behind,
                estimated,
                total,
                moved,
                remaining,
                rate,
                eta,
                log_dir,
                future_dir,
            )
        )

    wanted = None if plan is None else {a.tp for a in plan.partitions}
    reassigning = len(ongoing) if wanted is None else sum(1 for tp in ongoing if tp in wanted)
    unanswered = {b: bld.error for b, bld in log_dirs.items() if bld.error is not None}
    # down wins: a DescribeLogDirs sent to it (on metadata a moment old) failed because it is down
    unanswered.update((b, DOWN_ERROR) for b in down)
    held = held_rows(rows, ongoing)
    if held:  # the moves of a held partition end only with it: their ETA is unknown, not 0s
        stuck = {(r.topic, r.partition) for r in held}
        rows = [replace(r, eta=None) if (r.topic, r.partition) in stuck and r.moving else r for r in rows]
    return ProgressSnapshot(
        at,
        tuple(rows),
        _totals(rows, unseen=bool(unanswered) and reassigning == 0, held=bool(held)),
        reassigning,
        dict(sorted(unanswered.items())),
        tuple(sorted(unestimated)),
        why if unestimated else None,
        differs=None if plan is None else plan_difference(plan, cluster, ongoing, log_dirs, dirs),
        held=held,
    )


HELD_STATUSES = frozenset((OFFLINE, DOWN, PAUSED_DESTINATION))


def held_rows(
    rows: Iterable[ReplicaProgress], ongoing: Mapping[TopicPartition, PartitionReassignment]
) -> tuple[ReplicaProgress, ...]:
    """The rows of replicas a reassigning partition's target needs while nothing copies them:
    offline (its directory offline), on a down broker, or a new replica whose directory (the
    plan's) is offline. The reassignment cannot end before they are back."""
    targets = {(tp.topic, tp.partition): set(r.target) for tp, r in ongoing.items()}
    return tuple(
        r
        for r in rows
        if r.status in HELD_STATUSES
        and r.broker in targets.get((r.topic, r.partition), ())
        and (r.status != PAUSED_DESTINATION or r.move == INTER_BROKER)
    )


def plan_difference(
    plan: ReassignmentPlan,
    cluster: ClusterState,
    ongoing: Mapping[TopicPartition, PartitionReassignment],
    log_dirs: Mapping[int, BrokerLogDirs],
    dirs: Mapping[tuple[str, int, int], DirReplica],
) -> PlanDifference:
    """``reassign verify``'s verdicts (``kadmin.plan.verify``) of ``plan`` on what a snapshot read,
    counted: the partitions and log-dir replicas that differ. A replica on a broker that did not
    answer is left out of what verify is given, as verify's own read leaves it out."""
    answered = {b for b, bld in log_dirs.items() if bld.error is None}
    replica_dirs = {}
    for r in log_dir_targets(plan):
        if r.broker in answered:
            d = dirs.get((r.topic, r.partition, r.broker), _NOWHERE)
            replica_dirs[r] = ReplicaLogDir(r, d.current_dir, d.future_dir)
    result = verify_plan(plan, cluster, ongoing, replica_dirs)
    return PlanDifference(
        sum(1 for v in result.partitions if v.state is State.DIFFERS),
        sum(1 for v in result.replicas if v.state is State.DIFFERS),
    )


def _offline(broker: int, state, here: DirReplica | None, offline_dirs: set[int]) -> bool:
    """Whether a live broker's replica, out of the ISR and not being added, is offline rather
    than catching up: Metadata lists it among the offline replicas, or (librdkafka does not
    expose that list) none of the broker's online directories holds it while one of its
    directories is offline, so that is where it is."""
    return broker in state.offline_replicas or (broker in offline_dirs and (here is None or here.current_dir is None))


def _catching_up(topic, partition, broker, state, here, dirs, end_offset) -> tuple:
    """A follower copying from the leader: total = the leader's size, moved = its own size."""
    source = dirs.get((topic, partition, state.leader)) if state.leader >= 0 else None
    if source is not None and source.current_size is not None:
        total = source.current_size
    else:
        sizes = [
            d.current_size
            for b in state.isr
            if b != broker and (d := dirs.get((topic, partition, b))) is not None and d.current_size is not None
        ]
        total = max(sizes) if sizes else None
    log_dir = here.current_dir if here is not None else None
    moved = here.current_size if here is not None else None
    if total is None or moved is None:
        return ("Behind", INTER_BROKER, None, False, total, moved, None, log_dir, None)
    remaining = total - moved if moved < total else 0
    if end_offset is not None and total > 0:
        behind = round(end_offset * remaining / total)
        return (
            f"Behind: ~{behind} messages",
            INTER_BROKER,
            behind,
            True,
            total,
            min(moved, total),
            remaining,
            log_dir,
            None,
        )
    return ("Behind", INTER_BROKER, None, False, total, min(moved, total), remaining, log_dir, None)


def _moving_dir(here: DirReplica, dir_offline: bool) -> tuple:
    """A future replica catching up with the current one in another directory of the broker.
    A negative OffsetLag is Kafka's "unknown" (-1): the partition is not online there, its
    source directory offline when the broker has one (``dir_offline``) and lists no current
    replica; its lag is None, not -1 messages."""
    total, moved, lag = here.current_size, here.future_size, here.future_lag
    if lag is not None and lag < 0:
        lag = None
        status = PAUSED if dir_offline and here.current_dir is None else LAG_UNKNOWN
    else:
        status = f"Behind: {lag} messages" if lag is not None else "Behind"
    shown: int | None
    remaining: int | None
    if total is not None and moved is not None:
        shown, remaining = min(moved, total), max(total - moved, 0)
    else:  # the current replica unseen (its directory offline): what the future one holds was copied
        shown, remaining = moved, None
    return (status, LOG_DIR, lag, False, total, shown, remaining, here.current_dir, here.future_dir)


def _totals(rows: Iterable[ReplicaProgress], unseen: bool = False, held: bool = False) -> Totals:
    """``unseen``: a broker the snapshot lacks may hold moves (its log-dir moves cannot be seen)
    and nothing else is reassigning: with no move seen, the bytes moved and left are unknown,
    not 0 (the snapshot is ``unseen_only``). ``held``: a reassigning partition waits for a
    replica nothing copies now (``held_rows``): no ETA."""
    moving = [r for r in rows if r.moving]
    if unseen and not moving:
        return Totals(0, 0, None, None, None, moved_known=False)
    moved = sum(r.moved_bytes or 0 for r in moving)
    moved_known = all(r.moved_bytes is not None for r in moving)
    # Unknown when a moving replica's bytes left are (its broker did not answer): not 0, ETA 0s.
    known = all(r.remaining_bytes is not None for r in moving)
    remaining = sum(r.remaining_bytes or 0 for r in moving) if known else None
    rates = [r.rate for r in moving if r.rate is not None]
    rate = sum(rates) if rates else None
    eta = None
    if held:
        pass
    elif remaining == 0 and moving:
        eta = 0.0
    elif rates and known:
        eta = makespan(moving)
    return Totals(len(moving), moved, remaining, rate, eta, moved_known)


def makespan(moving: Iterable[ReplicaProgress]) -> float | None:
    """When the last of ``moving`` will be done: the moves into one broker (or between its
    directories) share its quota and run alongside other brokers', so each broker finishes its
    bytes left at the rate they shrink on it, and the total is the slowest broker's time, never
    less than any one replica's ETA. None when a broker has bytes left that do not shrink."""
    left: dict[tuple[int, str], float] = {}
    closing: dict[tuple[int, str], float] = {}
    slowest = 0.0
    for r in moving:
        key = (r.broker, r.move)
        left[key] = left.get(key, 0.0) + (r.remaining_bytes or 0)
        closing.setdefault(key, 0.0)
        if r.eta is not None:
            slowest = max(slowest, r.eta)
            if r.eta > 0 and r.remaining_bytes:
                closing[key] += r.remaining_bytes / r.eta
    for key, bytes_left in left.items():
        if bytes_left <= 0:
            continue
        if closing[key] <= 0:
            return None
        slowest = max(slowest, bytes_left / closing[key])
    return slowest


# --- machine output -------------------------------------------------------------------------
def snapshot_json(s: ProgressSnapshot, timestamp: str | None = None) -> dict:
    """The ``--output json`` document (schemas/progress-snapshot.json)."""
    with gc_paused():
        return _snapshot_json(s, timestamp)


def _snapshot_json(s: ProgressSnapshot, timestamp: str | None) -> dict:
    doc = {
        "version": 1,
        "timestamp": timestamp,
        "done": s.done,
        "reassigning_partitions": s.reassigning_partitions,
        "unanswered_brokers": [{"broker": b, "error": e} for b, e in s.unanswered.items()],
        "differs_from_plan": None
        if s.differs is None
        else {"partitions": s.differs.partitions, "log_dir_replicas": s.differs.log_dir_replicas},
        "totals": {
            "moving_replicas": s.totals.moving_replicas,
            # null, not the known part as if it were all: a moving replica's bytes moved are unknown
            "moved_bytes": s.totals.moved_bytes if s.totals.moved_known else None,
            "remaining_bytes": s.totals.remaining_bytes,
            "rate_bytes_per_second": _round(s.totals.rate),
            "eta_seconds": _round(s.totals.eta),
        },
        "replicas": [
            {
                "topic": r.topic,
                "partition": r.partition,
                "broker": r.broker,
                "status": r.status,
                "move": r.move,
                "messages_behind": r.messages_behind,
                "messages_estimated": r.messages_estimated,
                "total_bytes": r.total_bytes,
                "moved_bytes": r.moved_bytes,
                "remaining_bytes": r.remaining_bytes,
                "rate_bytes_per_second": _round(r.rate),
                "eta_seconds": _round(r.eta),
                "log_dir": r.log_dir,
                "future_log_dir": r.future_log_dir,
            }
            for r in s.replicas
        ],
    }
    if s.waiting:
        doc["waiting"] = [
            {"topic": w.topic, "partition": w.partition, "replicas": list(w.replicas), "target": list(w.target)}
            for w in s.waiting
        ]
    return doc


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 3)
