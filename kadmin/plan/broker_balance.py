"""``reassign balance`` as a pure function: even out used disk space across brokers and across
the directories of each broker, moving as few bytes as possible (both levels of KIP-113 in one
reassignment plan).

Measure: a broker's used fraction is the occupied bytes of its readable directories over their
capacity (``broker_balance_state`` says how these are read). The goal is every broker within
``threshold`` of the cluster's mean (total occupied over total capacity of the brokers in
scope, which moves do not change), and every directory within ``threshold`` of its broker's.

Without capacities (DescribeLogDirs before v4, Kafka before 3.3) nothing is made up; Kafka
bytes are balanced instead, as ``log-dirs balance`` does, and a note says so:
- brokers, when any readable directory in scope reports no capacity (so one measure holds for
  all, also while a cluster is upgraded broker by broker): each broker's share of the Kafka bytes
  of the brokers in scope, against the mean share (one over their number). ``threshold`` is
  taken relative to that mean (5% of a 25% mean: 23.75%..26.25%), so that it keeps its weight
  however many brokers there are: in points of the total, 5% would let each of 20 brokers hold
  anything from nothing to twice the mean.
- directories, on each broker one of whose directories reports no capacity: each directory's
  Kafka bytes against the mean of its broker's, within ``threshold`` of that mean. A broker
  whose directories all report capacity keeps balancing them on used fraction.
Directories that report capacity keep their room limits (usable bytes, ``max_dir_usage``) either
way.

Directories sharing one filesystem (each reports the same total and usable bytes, and they hold
different Kafka bytes: ``filesystems.share_one_filesystem``, the rule ``log-dirs balance``
follows) count as one disk: the broker's capacity, occupied bytes, room and ``max_dir_usage``
are the filesystem's, once. Their used shares cannot differ, so they are balanced on Kafka bytes
against their broker's mean directory, as ``log-dirs balance`` does, and a note says so in its
words; a replica arriving there lands in the one holding the fewest Kafka bytes.

1. Brokers. While a broker is outside the band ``mean +- threshold``, the one furthest out
   trades with a partner: an overfull broker sends to the emptiest broker that can take a
   replica, an underfull one receives from the fullest. The replica is the largest one no
   bigger than what is missing to reach the band (else the smallest bigger one), searched in the
   sender's fullest directory first, and the move never pushes either broker across the far
   edge of the band, so no broker ends further from the mean than before. A moved replica takes
   the place of the one it replaces in the replica list (when the preferred leader moves to a
   broker that leads as many partitions as any did before, a follower takes the lead and the
   moved replica its place), and lands in the destination's directory that stays emptiest. A broker that held a replica of the partition never receives
   one (Kafka would copy nothing), so each move is one replica Kafka copies.
2. Directories, per broker, the same way against the broker's mean: first by re-aiming
   replicas the plan already brings to the broker (free), then by moving resident replicas.
3. Preferred leaders: reordering replicas (no data moves) until preferred-leader counts per
   broker are within one of each other (``minimal_assign``'s leader step), over the partitions
   the planner may touch.

Constraints, always: replication factor unchanged; no move makes a partition's rack spread
worse (``minimal_assign``'s rule: a replica changes rack only to one holding fewer of the
partition's replicas than its own, so a partition never spans fewer racks); no directory (or
filesystem shared by directories) receives more than its usable bytes nor ends above
``max_dir_usage`` of its capacity; offline and cordoned directories never receive; a broker
with an offline directory takes no part: what it holds there is unknown (not empty), so it
neither receives nor sends, the mean is over the other brokers, its figures are unknown (None),
and Kafka would create no future replica on it anyway (a note says so); partitions being
reassigned (adding/removing replicas, or listed in ``reassigning``) or with a future replica
anywhere are not touched, and count as done (``broker_balance_state``) in the figures after, the
mean and the band, while the figures before are what the directories hold now (as ``log-dirs
balance`` shows them; a note says per broker what was counted); nor are partitions with
a replica out of the ISR (a down broker's, an offline directory's, one behind): Kafka completes
a reassignment only once the ISR holds every target replica, so one keeping such a replica,
even a reordering, might never end (a note names them); stray logs never move. A replica on a
down broker has an unknown rack, which no move treats as safe (``keeps_rack_spread``). ``max_moves``/``max_bytes``
stop the planning where they would be exceeded (also when every move that would help is larger
than what ``max_bytes`` leaves: the limit stopped it, not the cluster).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kadmin.errors import InputError, NotFoundError
from kadmin.model import ANY_LOG_DIR, Assignment, ClusterState, LogDir, LogDirStatus, ReassignmentPlan, TopicPartition
from kadmin.plan import duplicate_brokers
from kadmin.plan.balance import DirUsage, InFlight, full_sizes, reassignment_note
from kadmin.plan.broker_balance_state import (
    BrokerState,
    Dir,
    Partitions,
    add_item,
    has_item,
    load_dirs,
    read_dirs,
    remove_item,
)
from kadmin.plan.broker_balance_steps import UNKNOWN_RACK, Rack
from kadmin.plan.filesystems import no_capacity_note, shared_filesystem_note
from kadmin.plan.gc_pause import gc_paused
from kadmin.throttling import RECORD_TOPIC

DEFAULT_THRESHOLD = 0.05
DEFAULT_MAX_DIR_USAGE = 0.90
SCAN = 64  # candidates looked at on each side of the ideal size, per directory

BALANCED, LIMIT, STUCK = "balanced", "limit reached", "cannot improve"
USED_FRACTION, KAFKA_BYTES = "used_fraction", "kafka_bytes"  # what brokers are balanced on


@dataclass(frozen=True)
class BalanceRequest:
    """What to balance and within which limits; ``validate()`` checks the values alone.

    ``topics``: None is every topic but kadmin's own throttle records (``RECORD_TOPIC``): a
    one-partition topic of a few kilobytes that kadmin writes while the plan runs, only ever
    ballast for the balance; it moves when named. Kafka's internal topics (``__consumer_offsets``,
    ``__transaction_state``) hold real bytes and move like any other, as with Cruise Control;
    ``exclude_topics`` keeps them in place."""

    topics: tuple[str, ...] | None = None
    brokers: tuple[int, ...] | None = None
    threshold: float = DEFAULT_THRESHOLD
    max_moves: int | None = None
    max_bytes: int | None = None
    exclude_topics: str | None = None
    max_dir_usage: float = DEFAULT_MAX_DIR_USAGE

    def validate(self) -> None:
        if not 0 <= self.threshold < 1:
            raise InputError(f"--threshold must be between 0% and 100%, not {self.threshold:.1%}")
        if not 0 < self.max_dir_usage <= 1:
            raise InputError(f"--max-dir-usage must be above 0% and at most 100%, not {self.max_dir_usage:.1%}")
        problem = None if self.brokers is None else duplicate_brokers(self.brokers)
        if problem:  # as reassign generate says it (Kafka's tool refuses them too)
            raise InputError(problem)
        if self.max_moves is not None and self.max_moves < 0:
            raise InputError(f"--max-moves must be 0 or more, not {self.max_moves}")
        if self.max_bytes is not None and self.max_bytes < 0:
            raise InputError(f"--max-bytes must be 0 or more, not {self.max_bytes}")
        if self.exclude_topics is not None:
            try:
                re.compile(self.exclude_topics)
            except re.error as e:
                raise InputError(f"--exclude-topics {self.exclude_topics!r} is not a regular expression: {e}") from None


@dataclass(frozen=True, order=True)
class ReplicaMove:
    """One replica moving: between brokers (``source_broker != dest_broker``), or between two
    directories of one broker."""

    topic: str
    partition: int
    source_broker: int
    source_dir: str
    dest_broker: int
    dest_dir: str
    size: int

    @property
    def inter_broker(self) -> bool:
        return self.source_broker != self.dest_broker


@dataclass(frozen=True)
class BrokerUsage:
    """One broker's figures before or after the plan. ``occupied`` and ``share`` are what brokers
    are balanced on (``BrokerBalanceResult.balanced_on``): occupied disk bytes and their fraction
    of ``capacity``, or Kafka bytes and their share of the Kafka bytes of the brokers in scope.
    ``capacity`` and ``used_fraction`` are the disk's, None when a directory does not report it;
    ``share`` is None for a broker with no readable directory (not balanced). A broker with an
    offline directory has every figure but its rack None: what it holds there is unknown."""

    broker: int
    rack: str | None
    capacity: int | None
    occupied: int | None
    replicas: int | None
    share: float | None
    used_fraction: float | None


@dataclass(frozen=True)
class BrokerBalanceResult:
    """The plan and the figures: ``*_before`` as DescribeLogDirs reports them now, ``*_after``
    once the moves in flight (between directories, and a reassignment between brokers) and the
    plan are done. ``brokers_start`` is where the plan starts from, the moves in flight done:
    the mean and band are of it, and no broker ends further from the mean than there."""

    plan: ReassignmentPlan
    moves: tuple[ReplicaMove, ...]
    brokers_before: tuple[BrokerUsage, ...]
    brokers_after: tuple[BrokerUsage, ...]
    dirs_before: tuple[DirUsage, ...]
    dirs_after: tuple[DirUsage, ...]
    mean: float  # the mean ``share``: the cluster's used fraction, or one over the number of brokers
    threshold: float
    stopped: str  # BALANCED, LIMIT or STUCK
    unresolved: tuple[str, ...]  # brokers and directories left outside the band, and why
    lower_bound_bytes: int  # bytes any plan must move between brokers to reach the band
    leaders_changed: int
    notes: tuple[str, ...] = ()  # what the operator should know about how the plan was made
    balanced_on: str = USED_FRACTION  # or KAFKA_BYTES: a directory in scope reports no capacity
    tolerance: float | None = None  # how far a broker's share may be from the mean (None: threshold)
    brokers_start: tuple[BrokerUsage, ...] = ()

    @property
    def band(self) -> tuple[float, float]:
        """The brokers' shares that count as balanced."""
        t = self.threshold if self.tolerance is None else self.tolerance
        return max(self.mean - t, 0.0), self.mean + t

    @property
    def inter_broker_bytes(self) -> int:
        return sum(m.size for m in self.moves if m.inter_broker)

    @property
    def intra_broker_bytes(self) -> int:
        return sum(m.size for m in self.moves if not m.inter_broker)


def balance_brokers(
    cluster: ClusterState,
    log_dirs: Mapping[int, Sequence[LogDir]],
    request: BalanceRequest = BalanceRequest(),
    reassigning: Iterable[TopicPartition] = (),
) -> BrokerBalanceResult:
    """Plan; see the module docstring. ``log_dirs``: DescribeLogDirs per broker (brokers that
    did not answer left out); ``reassigning``: partitions ListPartitionReassignments lists."""
    request.validate()
    with gc_paused():
        return _Planner(cluster, log_dirs, request, set(reassigning)).run()


def max_deviation(usage: Iterable[BrokerUsage], mean: float) -> float:
    """Widest distance of a broker's share (what brokers are balanced on) from ``mean``."""
    return max((abs(u.share - mean) for u in usage if u.share is not None), default=0.0)


def dir_deviation(dirs: Iterable[DirUsage], brokers: Iterable[BrokerUsage]) -> float:
    """Widest distance of an online directory's used fraction from its broker's (directories
    and brokers that report capacity)."""
    mean = {u.broker: u.used_fraction for u in brokers}
    out = 0.0
    for d in dirs:
        f, m = d.used_fraction, mean.get(d.broker)
        if d.status.value == "online" and f is not None and m is not None:
            out = max(out, abs(f - m))
    return out


def transfer_seconds(result: BrokerBalanceResult, cluster: ClusterState, rate: int) -> float:
    """Time the inter-broker copies take at a replication throttle of ``rate`` bytes/s per broker:
    the busiest broker's bytes in (as a follower) or out (as the partition's leader). The
    throttle caps each direction on its own (follower.replication.throttled.rate and
    leader.replication.throttled.rate), so a broker's bytes in and out are not added up.
    Moves between the directories of one broker are not in it (``dir_move_seconds``)."""
    out: dict[int, int] = {}
    into: dict[int, int] = {}
    for m in result.moves:
        if m.inter_broker:
            state = cluster.partitions.get(TopicPartition(m.topic, m.partition))
            leader = state.leader if state and state.leader >= 0 else m.source_broker
            into[m.dest_broker] = into.get(m.dest_broker, 0) + m.size
            out[leader] = out.get(leader, 0) + m.size
    return max([*out.values(), *into.values()], default=0) / rate


def dir_move_seconds(result: BrokerBalanceResult, rate: int) -> float:
    """Time the moves between directories of one broker take at a log-dir throttle of ``rate``
    bytes/s (replica.alter.log.dirs.io.max.bytes.per.second, KIP-113), which caps all of a
    broker's future replicas together and is separate from the replication throttle: the busiest
    broker's bytes. A replica arriving from another broker is written where the plan says
    directly, so it is no move between directories."""
    per_broker: dict[int, int] = {}
    for m in result.moves:
        if not m.inter_broker:
            per_broker[m.source_broker] = per_broker.get(m.source_broker, 0) + m.size
    return max(per_broker.values(), default=0) / rate


class _Planner:
    def __init__(self, cluster, log_dirs, request: BalanceRequest, reassigning: set[TopicPartition]):
        self.cluster, self.request = cluster, request
        self.scope = self._scope(cluster, log_dirs, request)
        topics = self._topics(cluster, request)
        tps = sorted(cluster.partitions)
        self.parts = Partitions(tps, [cluster.partitions[tp].replicas for tp in tps])
        frozen = {self.parts.index[tp] for tp in reassigning if tp in self.parts.index}
        for i, tp in enumerate(tps):
            state = cluster.partitions[tp]
            if state.adding or state.removing:
                frozen.add(i)
        for ds in log_dirs.values():  # a move in flight on any broker, in scope or not
            for d in ds:
                frozen.update(self.parts.index[r.tp] for r in d.replicas if r.is_future and r.tp in self.parts.index)
        self.log_dirs = log_dirs
        self.brokers: dict[int, BrokerState] = {}
        where: dict[int, dict[int, tuple[Dir, int]]] = {}
        leaving, arriving, self.guessed = self._reassignments(cluster, log_dirs)
        self.in_flight: dict[int, InFlight] = {}
        now: dict[int, BrokerState] = {}  # as DescribeLogDirs reports them: the figures before
        for b in self.scope:
            dirs, where[b], self.in_flight[b] = load_dirs(
                b, log_dirs[b], self.parts, frozen, request.max_dir_usage, leaving[b], arriving[b]
            )
            rack = cluster.brokers[b].rack if b in cluster.brokers else None
            self.brokers[b] = BrokerState(b, rack, dirs)
            now[b] = BrokerState(b, rack, read_dirs(b, log_dirs[b], request.max_dir_usage))
        self.offline = {b: [d for d in log_dirs[b] if d.status is LogDirStatus.OFFLINE] for b in self.scope}
        # A broker with an offline directory: what it holds there is unknown (DescribeLogDirs
        # lists nothing, as log-dirs describe says), yet it is still the broker's and comes back
        # with the directory. Its load is unknown, underestimated by what is readable: it takes
        # no part in the balance between brokers (no replica to or from it, not in the mean).
        # Kafka creates no future replica on it either (LogManager.getOrCreateLog:
        # KAFKA_STORAGE_ERROR): no moves between its directories.
        self.no_future = {b for b, ds in self.offline.items() if ds}
        for b in self.no_future:
            self.brokers[b].load_known = now[b].load_known = False
        # One measure for every broker: Kafka bytes as soon as one directory reports no capacity.
        self.balanced_on = KAFKA_BYTES if not all(x.reports for x in self.brokers.values()) else USED_FRACTION
        if self.balanced_on == KAFKA_BYTES:
            for states in (self.brokers, now):
                total = max(1, sum(x.kafka_bytes for x in states.values() if x.load_known))  # moves keep it
                for x in states.values():
                    x.scale = total
        self.where = where  # broker -> partition -> (directory, size), kept up to date
        self.out_of_sync = self._out_of_sync(cluster, frozen)
        frozen |= self.out_of_sync
        # Racks: the rule applies once the cluster has two or more (a broker without one is in
        # none). Only live brokers are listed: a down broker's rack is unknown (``rack_of``).
        self.racks = {b: x.rack for b, x in cluster.brokers.items()}
        self.racked = len({r for r in self.racks.values() if r is not None}) > 1
        self.topics = topics
        self._classify(topics, frozen)
        # Preferred leaders per broker: a move of a preferred leader's replica hands its role to
        # the destination, or to a follower (new_leader); no broker goes beyond the widest
        # counts seen before.
        self.leaders = dict.fromkeys(self.scope, 0)
        for reps in self.parts.reps:
            if reps and reps[0] in self.leaders:
                self.leaders[reps[0]] += 1
        self.leader_range = (min(self.leaders.values(), default=0), max(self.leaders.values(), default=0))
        self.dirs_before = self._dir_usage(now)
        self.brokers_before = self._broker_usage(now)
        self.brokers_start = self._broker_usage(self.brokers)
        self.moves: dict[tuple[int, int], list] = {}  # (partition, dest broker) -> move fields
        self.moved_bytes = 0
        self.limited = False
        self.held_back = False  # --max-bytes alone kept the current step from a move

    def _out_of_sync(self, cluster, frozen: set[int]) -> set[int]:
        """Partitions (not frozen already) with a replica that may never rejoin the ISR: out of it,
        offline (Metadata's offline replicas), on a broker the cluster does not list (down), or on
        a broker with an offline directory without being in a readable one (so in the offline
        one). Kafka completes a reassignment only once the ISR holds every target replica (the
        controller's step 3), so one keeping such a replica, even a mere reordering, never ends;
        they are left alone, as partitions already moving are."""
        out = set()
        for i, tp in enumerate(self.parts.tps):
            state = cluster.partitions[tp]
            isr = set(state.isr)
            if any(b not in isr or b not in cluster.brokers for b in state.replicas) or state.offline_replicas:
                out.add(i)
        for b in self.no_future:
            out.update(i for i, reps in enumerate(self.parts.original) if b in reps and i not in self.where[b])
        return out - frozen

    def rack_of(self, broker: int) -> Rack:
        """The broker's rack; ``UNKNOWN_RACK`` for one the cluster does not list (down)."""
        return self.racks.get(broker, UNKNOWN_RACK)

    def _reassignments(self, cluster, log_dirs) -> tuple[dict[int, set[int]], dict[int, dict[int, int]], int]:
        """Per broker in scope: partitions whose replica there a reassignment under way removes,
        and those it adds there with their full size (its leader's, as ``log-dirs balance``
        counts it: ``balance.full_sizes``); and how many adding replicas got no leader's size."""
        leaving: dict[int, set[int]] = {b: set() for b in self.scope}
        arriving: dict[int, dict[int, int]] = {b: {} for b in self.scope}
        moving = {self.parts.index[tp]: s for tp, s in cluster.partitions.items() if s.adding or s.removing}
        if not moving:
            return leaving, arriving, 0
        for i, state in moving.items():
            for b in state.removing:
                if b in leaving:
                    leaving[b].add(i)
        sizes, guessed = full_sizes(cluster, log_dirs, self.scope)
        for b, full in sizes.items():
            for key, size in full.items():
                i = self.parts.index[TopicPartition(*key)]
                if b in arriving and b not in moving[i].removing:
                    arriving[b][i] = size
        return leaving, arriving, guessed

    @staticmethod
    def _scope(cluster, log_dirs, request) -> list[int]:
        if request.brokers is None:
            return sorted(log_dirs)
        scope = sorted(set(request.brokers))
        unknown = [b for b in scope if b not in log_dirs]
        if unknown:
            from kadmin.units import plural

            raise NotFoundError(
                f"no log directories known for {plural('broker', len(unknown))} {', '.join(map(str, unknown))} "
                f"(known: {', '.join(map(str, sorted(log_dirs))) or 'none'})"
            )
        return scope

    @staticmethod
    def _topics(cluster, request) -> set[str]:
        topics = set(cluster.topics) - {RECORD_TOPIC} if request.topics is None else set(request.topics)
        unknown = sorted(topics - set(cluster.topics))
        if unknown:
            from kadmin.units import plural

            raise NotFoundError(f"unknown {plural('topic', len(unknown))}: {', '.join(unknown)}")
        if request.exclude_topics:
            pattern = re.compile(request.exclude_topics)
            topics = {t for t in topics if not pattern.search(t)}
        return topics

    def _classify(self, topics: set[str], frozen: set[int]) -> None:
        parts = self.parts
        for i, tp in enumerate(parts.tps):
            parts.movable[i] = tp.topic in topics and i not in frozen
        for where in self.where.values():
            for i, (d, size) in sorted(where.items()):
                if parts.movable[i]:
                    d.resident.append((size, i))
        for broker in self.brokers.values():
            for d in broker.dirs.values():
                d.resident.sort()

    # --- limits and bookkeeping --------------------------------------------------------------

    def allowed(self, size: int, new_move: bool) -> bool:
        """Whether one more move of ``size`` bytes stays within --max-moves and --max-bytes;
        when not, planning stops (``limited``)."""
        r = self.request
        if new_move and r.max_moves is not None and len(self.moves) >= r.max_moves:
            self.limited = True
            return False
        if r.max_bytes is not None and self.moved_bytes + size > r.max_bytes:
            self.limited = True
            return False
        return True

    def new_leader(self, i: int, src: int, dst: int) -> int | None:
        """Partition ``i``'s preferred leader once its replica on ``src`` moves to ``dst``, within
        the preferred-leader counts seen before: the one it has unless ``src`` leads; then
        ``dst`` (taking its place) if it may lead one more, else the follower that leads fewest
        and may. None when no replica may take the role."""
        reps, counts = self.parts.reps[i], self.leaders
        if reps[0] != src:
            return reps[0]
        low, high = self.leader_range
        if counts[src] <= low:
            return None
        if counts[dst] < high:
            return dst
        takers = [b for b in reps[1:] if b in counts and counts[b] < high]
        return min(takers, key=lambda b: counts[b], default=None)

    def move_between_brokers(
        self, i: int, src: BrokerState, sdir: Dir, size: int, dst: BrokerState, ddir: Dir, leader: int
    ) -> None:
        """Move a replica to another broker, taking the place of the one it replaces; ``leader``
        (``new_leader``) becomes the preferred leader, the follower it was swapping places with
        ``dst``."""
        remove_item(sdir.resident, (size, i))
        sdir.add(-size, -1, incoming=False)
        ddir.add(size)
        add_item(ddir.placed, (size, i))
        reps = self.parts.reps[i]
        if reps[0] == src.id:
            self.leaders[src.id] -= 1
            self.leaders[leader] += 1
        reps[reps.index(src.id)] = dst.id
        if reps[0] != leader:
            k = reps.index(leader)
            reps[0], reps[k] = reps[k], reps[0]
        del self.where[src.id][i]
        self.where[dst.id][i] = (ddir, size)
        self.parts.dir_target[i, dst.id] = ddir.path
        self.moves[i, dst.id] = [src.id, sdir.path, dst.id, ddir.path, size]
        self.moved_bytes += size

    def move_between_dirs(self, broker: BrokerState, i: int, size: int, sdir: Dir, ddir: Dir) -> None:
        """Move a replica between two directories of ``broker``; one the plan already moves is
        only re-aimed (and a move back to where it is now is dropped)."""
        placed = has_item(sdir.placed, (size, i))
        remove_item(sdir.placed if placed else sdir.resident, (size, i))
        sdir.add(-size, -1, incoming=False)
        if placed:
            sdir.cancel_arrival(size)
        record = self.moves[i, broker.id] if placed else None
        if record is not None and record[0] == broker.id and record[1] == ddir.path:  # back home: no move at all
            del self.moves[i, broker.id]
            del self.parts.dir_target[i, broker.id]
            self.moved_bytes -= size
            ddir.add(size, incoming=False)
            add_item(ddir.resident, (size, i))
            self.where[broker.id][i] = (ddir, size)
            return
        ddir.add(size)
        add_item(ddir.placed, (size, i))
        self.where[broker.id][i] = (ddir, size)
        self.parts.dir_target[i, broker.id] = ddir.path
        if record is not None:
            record[3] = ddir.path
        else:
            self.moves[i, broker.id] = [broker.id, sdir.path, broker.id, ddir.path, size]
            self.moved_bytes += size

    # --- the steps -----------------------------------------------------------------------------

    def run(self) -> BrokerBalanceResult:
        from kadmin.plan.broker_balance_steps import (
            balance_dirs,
            balance_leaders,
            balance_load,
            dirs_left_alone,
            lower_bound,
        )

        known = [b for b in self.brokers.values() if b.load_known]
        size = sum(b.size for b in known)
        self.mean = sum(b.load for b in known) / size if size else 0.0
        # How far a broker may be from the mean: in points of capacity, or relative to the mean share.
        self.t = self.request.threshold * (self.mean if self.balanced_on == KAFKA_BYTES else 1)
        bound = lower_bound(known, self.mean, self.t)
        unresolved = balance_load(self)
        for broker in self.brokers.values():
            if broker.id in self.no_future:
                unresolved += dirs_left_alone(self, broker)
            else:
                unresolved += balance_dirs(self, broker)
        leaders = balance_leaders(self)
        stopped = LIMIT if self.limited else STUCK if unresolved else BALANCED
        return BrokerBalanceResult(
            plan=self._plan(),
            moves=self._moves(),
            brokers_before=self.brokers_before,
            brokers_after=self._broker_usage(self.brokers),
            dirs_before=self.dirs_before,
            dirs_after=self._dir_usage(self.brokers),
            mean=self.mean,
            threshold=self.request.threshold,
            stopped=stopped,
            unresolved=tuple(unresolved),
            lower_bound_bytes=bound,
            leaders_changed=leaders,
            notes=tuple(self._notes()),
            balanced_on=self.balanced_on,
            tolerance=self.t,
            brokers_start=self.brokers_start,
        )

    def _notes(self) -> list[str]:
        reassigning = reassignment_note(self.in_flight, self.guessed)
        return (
            (
                [reassigning + "; the mean and band count it as done, and the plan starts from there"]
                if reassigning
                else []
            )
            + self._filesystem_notes()
            + self._capacity_notes()
            + [
                f"broker {b}: log directory {', '.join(sorted(d.path for d in self.offline[b]))} is offline, so "
                "what the broker holds is unknown (its replicas there are still its own and come back with the "
                "directory): it was left out of the balance between brokers (no replica moves to or from it, "
                "and the mean is over the other brokers), and, as Kafka creates no future replica on it until "
                "the directory is back, its directories were not balanced"
                for b in sorted(self.no_future)
            ]
            + self._out_of_sync_notes()
        )

    def _out_of_sync_notes(self, shown: int = 20) -> list[str]:
        """The partitions left alone because a replica is out of the ISR, those of the topics and
        brokers in scope (the others would not have moved anyway)."""
        topics, scope = self.topics, set(self.scope)
        names = [
            str(self.parts.tps[i])
            for i in sorted(self.out_of_sync)
            if self.parts.tps[i].topic in topics and scope.intersection(self.parts.original[i])
        ]
        if not names:
            return []
        from kadmin.units import counted

        more = f" and {len(names) - shown} more" if len(names) > shown else ""
        return [
            f"{counted(len(names), 'partition')} left as they are: a replica of each is out of the ISR (its broker down, "
            "its log directory offline, or behind), and Kafka completes a reassignment only once every replica "
            f"it keeps is in the ISR, so moving them would never finish: {', '.join(names[:shown])}{more}"
        ]

    def _filesystem_notes(self) -> list[str]:
        """Brokers whose directories share one filesystem, as ``log-dirs balance`` says it, and
        what that means for the brokers' figures."""
        shared = [b.id for b in self.brokers.values() if b.shared_fs]
        if not shared:
            return []
        example = next(d for d in self.log_dirs[shared[0]] if d.status is not LogDirStatus.OFFLINE)
        return [
            shared_filesystem_note(shared, example) + " between them, and the broker's capacity, usable bytes "
            "and --max-dir-usage are its filesystem's, counted once"
        ]

    def _capacity_notes(self) -> list[str]:
        """What the figures mean where directories report no capacity (``log-dirs balance``
        words the directories' note the same way)."""
        if self.balanced_on == USED_FRACTION:
            return []
        t = self.request.threshold
        unreported = [b.id for b in self.brokers.values() if not b.reports]
        reporting = [b.id for b in self.brokers.values() if b.reports and not b.shared_fs and b.dirs]
        low, high = max(self.mean - self.t, 0.0), self.mean + self.t
        notes = [
            no_capacity_note(unreported) + f" (each directory within {t:.1%} of its broker's mean directory)",
            "with disk capacity unknown, brokers were balanced on Kafka bytes: a broker's share is its part of "
            f"the Kafka bytes of the {self._known_in_scope()} (mean {self.mean:.1%}), and --threshold "
            f"{t:.1%} is taken relative to that mean ({low:.1%}..{high:.1%}); a used disk share is shown only "
            "where the directories report capacity",
        ]
        if reporting:
            from kadmin.units import plural

            one = len(reporting) == 1
            notes[1] += (
                f"; {plural('broker', len(reporting))} {', '.join(map(str, reporting))} "
                f"{'reports' if one else 'report'} capacity: {'its' if one else 'their'} directories were balanced "
                "on used disk share, and receive no more than their usable bytes and --max-dir-usage"
            )
        return notes

    def _known_in_scope(self) -> str:
        """ "4 brokers in scope", or "3 brokers in scope whose load is known" when one has a
        directory offline."""
        from kadmin.units import counted

        known = sum(1 for b in self.brokers.values() if b.load_known)
        return f"{counted(known, 'broker')} in scope" + ("" if known == len(self.brokers) else " whose load is known")

    @staticmethod
    def _broker_usage(brokers: Mapping[int, BrokerState]) -> tuple[BrokerUsage, ...]:
        out = []
        for b in brokers.values():
            if not b.load_known:  # a directory offline: unknown, not what the others hold
                out.append(BrokerUsage(b.id, b.rack, None, None, None, None, None))
                continue
            capacity = b.disk_total if b.reports else None
            used = b.disk_used / b.disk_total if capacity else None
            replicas = sum(d.replicas for d in b.dirs.values())
            share = b.share if b.size else None
            out.append(BrokerUsage(b.id, b.rack, capacity, b.load, replicas, share, used))
        return tuple(out)

    def _dir_usage(self, brokers: Mapping[int, BrokerState]) -> tuple[DirUsage, ...]:
        out = []
        for b in brokers.values():
            rows = [
                DirUsage(b.id, d.path, d.status, d.total_bytes, d.usable_bytes, None, None)  # unknown contents
                for d in self.offline[b.id]
            ]
            for d in b.dirs.values():
                usable = d.total - d.disk if d.total is not None and d.disk is not None else None
                rows.append(DirUsage(b.id, d.path, d.status, d.total, usable, d.replica_bytes, d.replicas))
            out += sorted(rows, key=lambda u: u.path)
        return tuple(out)

    def _moves(self) -> tuple[ReplicaMove, ...]:
        tps = self.parts.tps
        return tuple(
            sorted(ReplicaMove(tps[i].topic, tps[i].partition, *fields) for (i, _), fields in self.moves.items())
        )

    def _plan(self) -> ReassignmentPlan:
        parts = self.parts
        changed = {i for i, _ in parts.dir_target} | {
            i for i, r in enumerate(parts.reps) if tuple(r) != parts.original[i]
        }
        entries = []
        for i in sorted(changed):
            tp, reps = parts.tps[i], tuple(parts.reps[i])
            dirs = tuple(parts.dir_target.get((i, b), ANY_LOG_DIR) for b in reps)
            entries.append(Assignment(tp.topic, tp.partition, reps, dirs))
        return ReassignmentPlan(tuple(entries))
