"""``log-dirs balance`` as a pure function: even out disk usage inside each broker (KIP-113).

Kafka leaves JBOD balance to the operator ("determine the reassignment of replicas per log
directory per broker"). ``balance_log_dirs`` does it from what DescribeLogDirs reports: replica
sizes, and total and usable bytes per directory. Replica sets never change; only the directory
of a replica on its own broker does.

- Measure: the used fraction of each directory's capacity, ``(total - usable) / total``, so
  bytes that are not Kafka's count too. When a broker does not report capacities (DescribeLogDirs
  before v4) its directories are assumed equal and replica bytes are balanced instead. So too
  when its directories share one filesystem (common on test and cloud hosts): every directory
  then reports the same total and usable bytes, their used fractions cannot differ, and Kafka
  bytes are balanced instead, with a note saying so.
- Stray logs (DescribeLogDirs lists a deleted topic's replicas for a while, and the half copy a
  cancelled move left on a broker until it restarts) are no replicas to move or keep: an
  evacuation leaves them where they are and names them in a note.
- A broker with an offline directory is left as it is: Kafka creates no future replica on it
  until the directory is back (LogManager.getOrCreateLog: KAFKA_STORAGE_ERROR), so every move
  there would fail; a note says so, and evacuating one of its directories is refused. What an
  offline directory holds is unknown (DescribeLogDirs lists nothing there): its bytes and
  replicas are None before and after, not 0.
- Partitions with a replica out of the ISR (on a down broker, say) move between directories
  like any other: the plan keeps every replica set, so ``reassign execute`` sends only
  AlterReplicaLogDirs for them, which copies from the broker's own log and needs no ISR.
- Never a target: offline or cordoned directories, or one being evacuated. A directory never
  receives more than its usable bytes, less what moves in flight still bring it; bytes it sends
  away are not counted as free, since moves finish in any order.
- Moves in flight (a future replica) are left alone and counted as done; a future replica headed
  for a directory being evacuated is redirected (or cancelled by sending it back to its current
  directory). Partitions being reassigned between brokers (``PartitionState.adding`` and
  ``removing``, from ListPartitionReassignments or the topic znode) are left alone and counted as
  done too: a replica being removed is gone, one being added holds its full size (its leader's)
  in its directory. So "before" is what DescribeLogDirs reports now and "after" what the
  directories hold once everything in flight and the plan are done; a note says what was counted.
- ``evacuate`` empties the named directories first, largest replicas first, or refuses saying by
  how many bytes it falls short. Balancing then moves, on each broker, a replica from the fullest
  to the emptiest directory, choosing the size that best evens the pair, until directories are
  within ``tolerance`` of each other or no move helps.
- ``max_moves`` keeps the most useful moves across brokers (each broker's moves in order).
- kadmin's own throttle records (``RECORD_TOPIC``, a few kB) are not moved to even directories
  out, as ``reassign balance`` leaves them; an evacuation moves them like every replica.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kadmin.errors import InputError, NotFoundError
from kadmin.model import (
    ANY_LOG_DIR,
    Assignment,
    ClusterState,
    LogDir,
    LogDirStatus,
    ReassignmentPlan,
    TopicPartition,
)
from kadmin.plan import duplicate_brokers
from kadmin.plan.filesystems import (
    no_capacity_note,
    reports_capacity,
    share_one_filesystem,
    shared_filesystem_note,
)
from kadmin.plan.gc_pause import gc_paused
from kadmin.throttling import RECORD_TOPIC

DEFAULT_TOLERANCE = 0.002  # directories within 0.2 percentage points of each other are even


@dataclass(frozen=True, order=True)
class LogDirMove:
    """One replica moving between two directories of its broker."""

    broker: int
    topic: str
    partition: int
    source: str
    destination: str
    size: int

    @property
    def tp(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)


@dataclass(frozen=True)
class DirUsage:
    """One directory's figures, as reported (before) or projected once the plan is done (after).
    ``replica_bytes`` and ``replicas`` are None for an offline directory: DescribeLogDirs lists
    nothing there, and what it holds is unknown, not empty (``logdirs.contents_known``)."""

    broker: int
    path: str
    status: LogDirStatus
    total_bytes: int | None
    usable_bytes: int | None
    replica_bytes: int | None
    replicas: int | None

    @property
    def used_fraction(self) -> float | None:
        if self.total_bytes is None or self.usable_bytes is None or self.total_bytes <= 0:
            return None
        return (self.total_bytes - self.usable_bytes) / self.total_bytes


@dataclass(frozen=True)
class BalanceResult:
    plan: ReassignmentPlan  # entries carry log_dirs: the destination on the moving broker, "any" elsewhere
    moves: tuple[LogDirMove, ...]
    before: tuple[DirUsage, ...]
    after: tuple[DirUsage, ...]
    notes: tuple[str, ...] = ()  # what the operator should know about how the plan was made
    evacuated: tuple[tuple[int, str], ...] = ()  # (broker, path) emptied by the plan


def usage_spread(usage: Iterable[DirUsage], leave_out: Iterable[tuple[int, str]] = ()) -> dict[int, float]:
    """Broker -> max - min used fraction over its online directories that report capacity, but
    those in ``leave_out`` (evacuated: empty on purpose, not uneven)."""
    skip = set(leave_out)
    by_broker: dict[int, list[float]] = {}
    for u in usage:
        if u.status is LogDirStatus.ONLINE and u.used_fraction is not None and (u.broker, u.path) not in skip:
            by_broker.setdefault(u.broker, []).append(u.used_fraction)
    return {b: max(f) - min(f) for b, f in sorted(by_broker.items())}


class _Room:
    """Bytes that may still arrive on one filesystem (None: unknown). Departures are not
    credited: moves finish in any order, so a filesystem must hold everything coming in before
    anything it sends has gone. One per directory, or one for directories sharing a filesystem."""

    def __init__(self, left: int | None):
        self.left = left


class _Dir:
    """Working figures of one directory. ``occupied``/``capacity`` is the used fraction."""

    def __init__(self, d: LogDir, capacity_known: bool, room: _Room | None = None):
        self.path = d.path
        self.status = d.status
        self.capacity_known = capacity_known
        self.capacity: int
        self.occupied: int
        self.usable: int | None
        if capacity_known:
            assert d.total_bytes is not None and d.usable_bytes is not None  # what "known" means
            self.capacity = d.total_bytes
            self.occupied = d.total_bytes - d.usable_bytes
            self.usable = d.usable_bytes
        else:
            self.capacity, self.occupied, self.usable = 1, d.used_bytes, None
        self._room = room if room is not None else _Room(self.usable)
        self.sizes: list[tuple[int, tuple[str, int]]] = []  # movable replicas, sorted
        self.replica_bytes = d.used_bytes
        self.replicas = len(d.replicas)

    @property
    def fraction(self) -> float:
        return self.occupied / self.capacity

    @property
    def room(self) -> int | None:
        """Bytes that may still arrive here (see _Room), None when unknown."""
        return self._room.left

    def fits(self, size: int) -> bool:
        return self._room.left is None or size <= self._room.left

    def add(self, size: int, count: int = 1) -> None:
        self.occupied += size
        self.replica_bytes += size
        self.replicas += count
        if self.usable is not None:
            self.usable -= size
        if size > 0 and self._room.left is not None:
            self._room.left -= size


class _Broker:
    """One broker's directories and replicas, with moves applied as they are planned."""

    def __init__(
        self,
        broker: int,
        dirs: Sequence[LogDir],
        cluster: ClusterState,
        evacuate: set[str],
        full_sizes: Mapping[int, Mapping[tuple[str, int], int]],
    ):
        self.id = broker
        readable = [d for d in dirs if d.status is not LogDirStatus.OFFLINE]
        known = bool(readable) and all(reports_capacity(d) for d in readable)
        self.shared_fs = share_one_filesystem(readable)
        shared_room = None
        if self.shared_fs:
            known = False  # balance Kafka bytes; every copy still needs room on the one filesystem
            shared_room = _Room(readable[0].usable_bytes)
        self.dirs = {d.path: _Dir(d, known, shared_room) for d in readable}
        self.evacuate = evacuate
        self.offline = sorted(d.path for d in dirs if d.status is LogDirStatus.OFFLINE)
        self.targets = (
            []
            if self.offline
            else sorted(p for p, d in self.dirs.items() if d.status is LogDirStatus.ONLINE and p not in evacuate)
        )
        self.moves: list[LogDirMove] = []
        self.gains: list[float] = []
        self.stuck: dict[str, list[str]] = {}  # evacuated dir -> replicas there that may not move
        self.strays: dict[str, list[str]] = {}  # evacuated dir -> stray logs there, left in place
        # Replicas a reassignment in flight removes from this broker (their bytes), adds to it
        # (the bytes still to come), and adds without any directory listing them yet.
        self.leaving: list[int] = []
        self.arriving: list[int] = []
        self.unplaced = sorted(
            (tp.topic, tp.partition)
            for tp, p in cluster.partitions.items()
            if broker in p.adding and broker not in p.removing
        )
        # Keys are (topic, partition) tuples here: far cheaper to hash and sort than dataclasses.
        current: dict[tuple[str, int], tuple[str, int]] = {}
        future: dict[tuple[str, int], tuple[str, int]] = {}
        for d in sorted(readable, key=lambda d: d.path):
            for r in d.replicas:
                (future if r.is_future else current)[(r.topic, r.partition)] = (d.path, r.size)
        partitions = cluster.partitions
        self._settle_reassignment(current, future, partitions, full_sizes.get(broker, {}))

        def movable(key: tuple[str, int]) -> bool:
            state = partitions.get(TopicPartition(*key))
            return state is not None and broker in state.replicas and not state.adding and not state.removing

        self.redirect: dict[tuple[str, int], str] = {}  # futures to cancel or re-aim -> current dir
        for key, (dst, fsize) in sorted(future.items()):
            src, csize = current.get(key, (None, fsize))
            if dst in evacuate and src is not None and movable(key):
                self.dirs[dst].add(-fsize, -1)  # the future copy is dropped
                self.redirect[key] = src
                continue
            if dst in evacuate:
                self.stuck.setdefault(dst, []).append(f"{key[0]}-{key[1]} (a move into it is in flight)")
            self.dirs[dst].add(max(csize - fsize, 0), 0)  # the copy completes ...
            if src is not None:
                self.dirs[src].add(-csize, -1)  # ... and the old directory is deleted
        for key, (path, size) in current.items():
            if key in future and key not in self.redirect:
                continue  # in flight
            if movable(key):
                self.dirs[path].sizes.append((size, key))
            elif path in evacuate:
                state = partitions.get(TopicPartition(*key))
                if state is not None and broker in state.replicas:
                    self.stuck.setdefault(path, []).append(f"{key[0]}-{key[1]} (being reassigned)")
                else:  # a stray log: a deleted topic's, or a cancelled move's half copy
                    why = "unknown partition" if state is None else "not a replica of this broker"
                    self.strays.setdefault(path, []).append(f"{key[0]}-{key[1]} ({why})")
        self.initial_redirect = dict(self.redirect)
        for working in self.dirs.values():
            working.sizes.sort()
        for problems in list(self.stuck.values()) + list(self.strays.values()):
            problems.sort()

    def _settle_reassignment(self, current, future, partitions, full_sizes) -> None:
        """Take the replicas a reassignment in flight adds to or removes from this broker out of
        ``current`` and ``future`` (they may not move) and count them as done: one being removed
        is gone (current and future copy), one being added holds its full size (``full_sizes``)
        where it will end (the future copy's directory, when a move is in flight too). Bytes
        leaving are not credited to a directory's room (see _Room); bytes still to come are
        taken from it."""
        for key in sorted(current.keys() | future.keys()):
            state = partitions.get(TopicPartition(*key))
            if state is None or (self.id not in state.removing and self.id not in state.adding):
                continue
            src, csize = current.pop(key, (None, 0))
            dst, fsize = future.pop(key, (None, 0))
            if self.id in state.removing:
                for path, size in ((src, csize), (dst, fsize)):
                    if path is not None:
                        self.dirs[path].add(-size, -1)
                self.leaving.append(max(csize, fsize))
                continue
            self.unplaced.remove(key)
            end, have = (dst, fsize) if dst is not None else (src, csize)
            assert end is not None
            more = max(full_sizes.get(key, have) - have, 0)
            self.dirs[end].add(more, 0)
            if dst is not None and src is not None:
                self.dirs[src].add(-csize, -1)  # the old directory is deleted once the copy completes
            self.arriving.append(more)
            if end in self.evacuate:
                why = "a move into it is in flight" if end == dst else "being reassigned"
                self.stuck.setdefault(end, []).append(f"{key[0]}-{key[1]} ({why})")

    def move(self, size: int, key: tuple[str, int], src: str, dst: str) -> None:
        s, d = self.dirs[src], self.dirs[dst]
        s.sizes.pop(bisect_left(s.sizes, (size, key)))
        s.add(-size, -1)
        d.add(size)
        before = s.occupied + size, d.occupied - size
        self.gains.append(
            ((before[0] ** 2 - s.occupied**2) / s.capacity + (before[1] ** 2 - d.occupied**2) / d.capacity)
            / sum(x.capacity for x in self.dirs.values())
        )
        self.redirect.pop(key, None)
        self.moves.append(LogDirMove(self.id, key[0], key[1], src, dst, size))


def balance_log_dirs(
    cluster: ClusterState,
    log_dirs: Mapping[int, Sequence[LogDir]],
    brokers: Iterable[int] | None = None,
    max_moves: int | None = None,
    evacuate: Iterable[tuple[int, str]] = (),
    tolerance: float = DEFAULT_TOLERANCE,
) -> BalanceResult:
    """Plan moves between the directories of each broker; see the module docstring."""
    with gc_paused():
        return _balance_log_dirs(cluster, log_dirs, brokers, max_moves, list(evacuate), tolerance)


def _balance_log_dirs(cluster, log_dirs, brokers, max_moves, evacuate, tolerance) -> BalanceResult:
    scope = _check_request(log_dirs, brokers, max_moves, list(evacuate))
    evac_by_broker: dict[int, set[str]] = {}
    for b, path in evacuate:
        evac_by_broker.setdefault(b, set()).add(path)
    before = _usage(log_dirs, scope)
    sizes, guessed = full_sizes(cluster, log_dirs, scope)
    states = {b: _Broker(b, log_dirs[b], cluster, evac_by_broker.get(b, set()), sizes) for b in scope}
    for state in states.values():
        _evacuate(state)
    # Only emptying the evacuated directories is required: a future replica aimed at one may be
    # re-aimed elsewhere or, left out, sent back to its current directory (a cancel).
    forced = sum(1 for s in states.values() for m in s.moves if m.source in s.evacuate)
    if max_moves is not None and forced > max_moves:
        raise InputError(f"evacuating needs {forced} moves, more than --max-moves {max_moves}")
    for state in states.values():
        _balance(state, tolerance)
    moves = _choose(states, max_moves)
    after = []
    for b in scope:
        state = states[b]
        kept = sum(1 for m in moves if m.broker == b)  # a prefix of the broker's planned moves
        for m in state.moves[kept:]:  # undo the ones left out, for the projected usage
            state.dirs[m.source].add(m.size, 1)
            state.dirs[m.destination].add(-m.size, -1)
        moved = {(m.topic, m.partition) for m in state.moves[:kept]}
        state.redirect = {k: src for k, src in state.initial_redirect.items() if k not in moved}
        # A future replica still aimed at an evacuated directory goes back to where it is.
        moves.extend(LogDirMove(b, k[0], k[1], src, src, 0) for k, src in sorted(state.redirect.items()))
        after.extend(_usage_of(b, log_dirs[b], state))
    moves.sort()
    return BalanceResult(
        _plan(cluster, moves),
        tuple(moves),
        tuple(before),
        tuple(after),
        tuple(_notes(log_dirs, states, guessed)),
        tuple(sorted(set(evacuate))),
    )


def full_sizes(cluster: ClusterState, log_dirs, scope) -> tuple[dict[int, dict[tuple[str, int], int]], int]:
    """Broker -> (topic, partition) -> the size a replica a reassignment adds to it will have:
    its leader's (what the new replica copies), or, when the leader is not read, the largest
    replica read of a broker that already holds it; with neither, the largest copy read (the
    partial ones). Also how many adding replicas got no leader's size."""
    wanted = {
        (tp.topic, tp.partition): p
        for tp, p in cluster.partitions.items()
        if any(b in scope and b not in p.removing for b in p.adding)
    }
    if not wanted:
        return {}, 0
    seen: dict[tuple[str, int], dict[int, int]] = {}
    for b, dirs in log_dirs.items():
        for d in dirs:
            for r in d.replicas:
                key = (r.topic, r.partition)
                if key in wanted and not r.is_future:
                    seen.setdefault(key, {})[b] = r.size
    out: dict[int, dict[tuple[str, int], int]] = {}
    guessed = 0
    for key, p in sorted(wanted.items()):
        sizes = seen.get(key, {})
        if p.leader in sizes and p.leader not in p.adding:
            full = sizes[p.leader]
        else:
            guessed += 1
            held = [s for b, s in sizes.items() if b not in p.adding]
            full = max(held or sizes.values(), default=0)
        for b in p.adding:
            out.setdefault(b, {})[key] = full
    return out, guessed


@dataclass(frozen=True)
class InFlight:
    """What the figures after count, on one broker, of a reassignment between brokers in flight:
    the sizes of the replicas it removes (counted as gone), the bytes still to copy of those it
    adds that a directory lists (counted at full size), and how many it adds that no directory
    lists yet (``unplaced``), with their full size when they are counted, in the directory that
    stays emptiest (``unplaced_bytes``; None: not counted)."""

    leaving: tuple[int, ...] = ()
    arriving: tuple[int, ...] = ()
    unplaced: int = 0
    unplaced_bytes: int | None = None


def reassignment_note(in_flight: Mapping[int, InFlight], guessed: int) -> str | None:
    """What the figures after count of a reassignment in flight, per broker (``log-dirs
    balance`` and ``reassign balance`` say it alike). ``guessed``: adding replicas whose leader's
    size was not read (``full_sizes``)."""
    from kadmin.units import counted, format_size

    said = []
    for b, s in in_flight.items():
        parts = []
        if s.leaving:
            parts.append(
                f"{counted(len(s.leaving), 'replica')} it removes ({format_size(sum(s.leaving))}) counted as gone"
            )
        if s.arriving:
            parts.append(
                f"{counted(len(s.arriving), 'replica')} it adds counted at full size "
                f"({format_size(sum(s.arriving))} still to copy)"
            )
        if s.unplaced and s.unplaced_bytes is not None:
            parts.append(
                f"{counted(s.unplaced, 'replica')} it adds not in any directory yet counted at full size "
                f"({format_size(s.unplaced_bytes)}) in the directory that stays emptiest "
                "(Kafka picks the directory when it creates the replica)"
            )
        elif s.unplaced:
            parts.append(
                f"{counted(s.unplaced, 'replica')} it adds not in any directory yet, not counted "
                "(Kafka picks the directory when it creates the replica)"
            )
        if parts:
            said.append(f"broker {b}: {', '.join(parts)}")
    if not said:
        return None
    size = "its leader's size" + (
        f" (the largest replica read for {counted(guessed, 'partition')} whose leader was not read)" if guessed else ""
    )
    return (
        "a reassignment between brokers is in flight; 'after' is once it and this plan are done, 'before' is now: "
        f"{'; '.join(said)}. A replica being added is counted at {size}; partitions being reassigned do not move"
    )


def _notes(log_dirs, states: Mapping[int, _Broker], guessed: int = 0) -> list[str]:
    notes = []
    in_flight = {b: InFlight(tuple(s.leaving), tuple(s.arriving), len(s.unplaced)) for b, s in states.items()}
    reassigning = reassignment_note(in_flight, guessed)
    if reassigning:
        notes.append(reassigning)
    shared = [b for b, s in states.items() if s.shared_fs]
    if shared:
        d = next(x for x in log_dirs[shared[0]] if x.status is not LogDirStatus.OFFLINE)
        notes.append(shared_filesystem_note(shared, d))
    unreported = [
        b for b, s in states.items() if not s.shared_fs and not all(d.capacity_known for d in s.dirs.values())
    ]
    if unreported:
        notes.append(no_capacity_note(unreported))
    for b, s in states.items():
        if s.offline:
            notes.append(
                f"broker {b}: log directory {', '.join(s.offline)} is offline; Kafka creates no future replica on "
                "the broker until it is back, so its directories were left as they are"
            )
        for path, names in sorted(s.strays.items()):
            from kadmin.units import counted

            notes.append(
                f"broker {b} {path}: {counted(len(names), 'stray log')} left in place, "
                f"{'not a replica' if len(names) == 1 else 'not replicas'} to move (a deleted "
                f"topic's log, or the copy a cancelled move left; Kafka removes them itself): {', '.join(names)}"
            )
    return notes


def check_broker_list(brokers: Iterable[int] | None) -> None:
    """InputError (exit 2, nothing read or changed) for a broker named twice."""
    problem = None if brokers is None else duplicate_brokers(brokers)
    if problem:
        raise InputError(problem)


def _check_request(log_dirs, brokers, max_moves, evacuate) -> list[int]:
    if brokers is not None:
        brokers = list(brokers)
        check_broker_list(brokers)
    if max_moves is not None and max_moves < 0:
        raise InputError(f"--max-moves must be 0 or more, not {max_moves}")
    scope = sorted(log_dirs) if brokers is None else sorted(set(brokers))
    unknown = [b for b in scope if b not in log_dirs]
    if unknown:
        from kadmin.units import plural

        raise NotFoundError(
            f"no log directories known for {plural('broker', len(unknown))} {', '.join(map(str, unknown))} "
            f"(known: {', '.join(map(str, sorted(log_dirs))) or 'none'})"
        )
    for b, path in evacuate:
        if brokers is not None and b not in scope:  # (only the listed brokers' directories were read)
            raise InputError(f"--evacuate {b}:{path}: broker {b} is not in the broker list")
        if b not in log_dirs:
            raise NotFoundError(f"--evacuate {b}:{path}: broker {b} is unknown")
        dirs = {d.path: d for d in log_dirs[b]}
        if path not in dirs:
            raise NotFoundError(
                f"--evacuate {b}:{path}: broker {b} has no log directory {path} "
                f"(it has {', '.join(sorted(dirs)) or 'none'})"
            )
        if dirs[path].status is LogDirStatus.OFFLINE:
            raise InputError(
                f"--evacuate {b}:{path}: the directory is offline ({dirs[path].error}); "
                "its replicas cannot be read or moved"
            )
    return scope


def _evacuate(state: _Broker) -> None:
    for path in sorted(state.evacuate):
        if state.offline:
            raise InputError(
                f"cannot evacuate broker {state.id} {path}: its log directory {', '.join(state.offline)} is offline, "
                "and Kafka creates no future replica on a broker while any of its directories is offline "
                "(KAFKA_STORAGE_ERROR); bring the directory back (or the broker back without it) first"
            )
        if path in state.stuck:
            raise InputError(
                f"cannot evacuate broker {state.id} {path}: some replicas there may not move", state.stuck[path]
            )
        pending = sorted(state.dirs[path].sizes, key=lambda x: (-x[0], x[1]))
        if pending and not state.targets:
            raise InputError(f"cannot evacuate broker {state.id} {path}: no other online, uncordoned directory")
        needed = sum(size for size, _ in pending)
        for size, tp in pending:
            fits = [t for t in state.targets if state.dirs[t].fits(size)]
            if not fits:
                _refuse(state, path, size, tp, needed)
            dst = min(fits, key=lambda t: ((state.dirs[t].occupied + size) / state.dirs[t].capacity, t))
            state.move(size, tp, path, dst)
            needed -= size
    for tp, src in sorted(state.redirect.items()):  # futures aimed at an evacuated directory
        if src in state.evacuate:
            continue  # moved above with the other replicas of its directory
        size = next(s for s, t in state.dirs[src].sizes if t == tp)
        fits = [t for t in state.targets if t == src or state.dirs[t].fits(size)]
        dst = min(fits, key=lambda t: (state.dirs[t].fraction, t), default=src)
        if dst != src:
            state.move(size, tp, src, dst)


def _refuse(state: _Broker, path: str, size: int, key: tuple[str, int], needed: int) -> None:
    usable = {t: max(state.dirs[t].room or 0, 0) for t in state.targets}
    # Directories sharing a filesystem share its room: count it once.
    rooms = {id(state.dirs[t]._room): state.dirs[t]._room for t in state.targets}
    room = sum(max(r.left or 0, 0) for r in rooms.values())
    if needed > room:
        raise InputError(
            f"cannot evacuate broker {state.id} {path}: {needed:,} bytes still to move but only "
            f"{room:,} usable on its other directories; short by {needed - room:,} bytes"
        )
    best = max(usable.values())
    raise InputError(
        f"cannot evacuate broker {state.id} {path}: replica {key[0]}-{key[1]} ({size:,} bytes) fits in no other "
        f"directory (most usable: {best:,} bytes); short by {size - best:,} bytes"
    )


def _balance(state: _Broker, tolerance: float) -> None:
    dirs = [state.dirs[t] for t in state.targets]
    if len(dirs) < 2:
        return
    while True:
        order = sorted(dirs, key=lambda d: (d.fraction, d.path))
        pick = None
        for src in reversed(order):
            for dst in order:
                if src.fraction - dst.fraction <= tolerance:
                    break
                found = _best_replica(src, dst)
                if found is not None:
                    pick = (found, src, dst)
                    break
            if pick:
                break
        if pick is None:
            return
        (size, tp), src, dst = pick
        state.move(size, tp, src.path, dst.path)


def _best_replica(src: _Dir, dst: _Dir) -> tuple[int, tuple[str, int]] | None:
    """The movable replica on ``src`` whose size best evens ``src`` and ``dst``: sizes strictly
    between 0 and twice the equalising amount bring both fractions closer together."""
    even = (src.occupied * dst.capacity - dst.occupied * src.capacity) / (src.capacity + dst.capacity)
    if even <= 0 or not src.sizes:
        return None
    # Also keep both inside their old range, so a broker's spread never grows (unequal disks).
    limit = min(2 * even, min(src.capacity, dst.capacity) * (src.fraction - dst.fraction))
    sizes = src.sizes
    i = bisect_left(sizes, (even,))
    candidates = [c for c in (sizes[i] if i < len(sizes) else None, sizes[i - 1] if i else None) if c]
    candidates = [c for c in candidates if 0 < c[0] < limit and dst.fits(c[0]) and c[1][0] != RECORD_TOPIC]
    if not candidates and dst.room is not None:  # the nearest ones do not fit: largest that does
        j = bisect_right(sizes, (dst.room, ("\U0010ffff", 1 << 62))) - 1
        if j >= 0 and 0 < sizes[j][0] < limit and sizes[j][1][0] != RECORD_TOPIC:
            candidates = [sizes[j]]
    if not candidates:
        return None
    return min(candidates, key=lambda c: (abs(c[0] - even), c[1]))


def _choose(states: Mapping[int, _Broker], max_moves: int | None) -> list[LogDirMove]:
    """All moves, or the ``max_moves`` most useful: evacuations first, then balancing moves by
    gain, each broker's moves kept in their planned order."""
    if max_moves is None:
        return [m for s in states.values() for m in s.moves]
    forced = {b: sum(1 for m in s.moves if m.source in s.evacuate) for b, s in states.items()}
    taken = {b: forced[b] for b in states}
    budget = max_moves - sum(forced.values())
    heap = [(-s.gains[taken[b]], b) for b, s in states.items() if taken[b] < len(s.moves)]
    heapq.heapify(heap)
    while heap and budget > 0:
        _, b = heapq.heappop(heap)
        taken[b] += 1
        budget -= 1
        if taken[b] < len(states[b].moves):
            heapq.heappush(heap, (-states[b].gains[taken[b]], b))
    return [m for b, s in states.items() for m in s.moves[: taken[b]]]


def _usage(log_dirs: Mapping[int, Sequence[LogDir]], scope: Sequence[int]) -> list[DirUsage]:
    return [_as_reported(b, d) for b in scope for d in sorted(log_dirs[b], key=lambda d: d.path)]


def _as_reported(broker: int, d: LogDir) -> DirUsage:
    """A directory's figures as DescribeLogDirs gave them, its replicas counted as `log-dirs
    describe` counts them (a future copy is not yet one of the directory's); an offline one's
    contents unknown."""
    if d.status is LogDirStatus.OFFLINE:
        return DirUsage(broker, d.path, d.status, d.total_bytes, d.usable_bytes, None, None)
    replicas = sum(1 for r in d.replicas if not r.is_future)
    return DirUsage(broker, d.path, d.status, d.total_bytes, d.usable_bytes, d.used_bytes, replicas)


def _usage_of(broker: int, dirs: Sequence[LogDir], state: _Broker) -> list[DirUsage]:
    out = []
    for d in sorted(dirs, key=lambda d: d.path):
        w = state.dirs.get(d.path)
        if w is None:  # offline: left as it is
            out.append(_as_reported(broker, d))
        elif not w.capacity_known:
            out.append(DirUsage(broker, d.path, d.status, d.total_bytes, d.usable_bytes, w.replica_bytes, w.replicas))
        else:
            out.append(DirUsage(broker, d.path, d.status, d.total_bytes, w.usable, w.replica_bytes, w.replicas))
    return out


def _plan(cluster: ClusterState, moves: Sequence[LogDirMove]) -> ReassignmentPlan:
    targets: dict[TopicPartition, dict[int, str]] = {}
    for m in moves:
        targets.setdefault(m.tp, {})[m.broker] = m.destination
    entries = []
    for tp, dirs in sorted(targets.items()):
        replicas = cluster.partitions[tp].replicas
        entries.append(
            Assignment(tp.topic, tp.partition, tuple(replicas), tuple(dirs.get(b, ANY_LOG_DIR) for b in replicas))
        )
    return ReassignmentPlan(tuple(entries))
