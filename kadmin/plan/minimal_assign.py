"""The ``minimal`` placement of ``reassign generate``: balance with as few replica moves as possible.

Kafka's ``--generate`` rebuilds each topic from scratch, so most replicas move. This starts from
the current assignment and moves only what balance needs, in five deterministic steps:

1. evacuate: every replica on a broker outside the list moves to a listed broker with room
   under the balanced count (best rack first, then the least loaded); when every broker that
   could take it is full, replicas already evacuated make way along a chain to a broker with
   room (an augmenting path), so the evacuation alone fills the brokers that need replicas and
   step 3 has nothing more to move;
2. racks: a partition whose replicas crowd a rack while another rack has room gets spread
   (as evenly as the racks allow);
3. counts: brokers keep ``floor`` or ``ceil`` of replicas/brokers (the fullest keep the ``ceil``),
   the surplus of each overfull broker goes to underfull ones; per-topic spread breaks ties;
4. repair: whatever step 3 could not place (a destination already holding the partition, a rack
   rule) is settled one move at a time while the spread is over one;
5. leaders: the preferred leader (first replica) is rebalanced by reordering replicas, which
   moves no data (``preferred_leaders``).

Racks are a hard rule: no move makes a partition's rack spread worse. Replica order is kept
where nothing changed; a new replica takes the place of the one it replaces.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Mapping, Sequence

from kadmin.model import TopicPartition
from kadmin.plan.preferred_leaders import spread_preferred_leaders


class _State:
    """The mutable working copy of an assignment, with the counters the steps consult."""

    def __init__(
        self, current: Mapping[TopicPartition, Sequence[int]], brokers: Sequence[int], racks: Mapping[int, str] | None
    ):
        # Partitions are numbered in sorted order; ints hash and compare far faster than
        # TopicPartition, and the numbering keeps every tie-break in (topic, partition) order.
        self.tps = sorted(current)
        self.parts = list(range(len(self.tps)))
        self.topic = [tp.topic for tp in self.tps]
        self.reps: list[list[int]] = [list(current[tp]) for tp in self.tps]
        self.brokers = sorted(brokers)
        self.listed = set(brokers)
        self.rack = dict(racks) if racks else dict.fromkeys(self.brokers, "")
        self.racks = sorted({self.rack[b] for b in self.brokers})
        self.count = dict.fromkeys(self.brokers, 0)
        self.tcount: dict[int, dict[str, int]] = {b: defaultdict(int) for b in self.brokers}
        self.hosted: dict[int, set[int]] = {b: set() for b in self.brokers}
        # Per partition: rack -> replicas on listed brokers there (kept up to date by move()).
        self.rc: list[dict[str, int]] = [defaultdict(int) for _ in self.parts]
        for tp in self.parts:
            for b in self.reps[tp]:
                if b in self.listed:
                    self._add(tp, b)

    def _add(self, tp: int, b: int) -> None:
        self.count[b] += 1
        self.tcount[b][self.topic[tp]] += 1
        self.hosted[b].add(tp)
        self.rc[tp][self.rack[b]] += 1

    def _remove(self, tp: int, b: int) -> None:
        self.count[b] -= 1
        self.tcount[b][self.topic[tp]] -= 1
        self.hosted[b].discard(tp)
        self.rc[tp][self.rack[b]] -= 1

    def move(self, tp: int, src: int, dst: int) -> None:
        reps = self.reps[tp]
        reps[reps.index(src)] = dst
        if src in self.listed:
            self._remove(tp, src)
        self._add(tp, dst)

    def rack_counts(self, tp: int) -> Mapping[str, int]:
        """Rack -> this partition's replicas there (on listed brokers). Live view: read only."""
        return self.rc[tp]

    def rack_delta(self, rc: Mapping[str, int], src: int, dst: int) -> int | None:
        """Change of the partition's rack crowding (sum of squared per-rack counts) when its
        replica on ``src`` moves to ``dst``; None when that would make the spread worse."""
        rs, rd = self.rack.get(src), self.rack[dst]
        if src not in self.listed:
            return 2 * rc.get(rd, 0) + 1
        if rs == rd:
            return 0
        delta = 2 * (rc.get(rd, 0) - rc[rs] + 1)  # type: ignore[index]  # src is listed: it has a rack
        return delta if delta <= 0 else None


def minimal_assignment(
    current: Mapping[TopicPartition, Sequence[int]],
    brokers: Sequence[int],
    racks: Mapping[int, str] | None = None,
) -> dict[TopicPartition, tuple[int, ...]]:
    """Balanced replica and leader counts over ``brokers``, moving as few replicas as possible.

    ``current``: partition -> replicas (preferred leader first). ``racks``: broker -> rack for
    every listed broker, or None for rack-unaware placement. Callers validate inputs (every
    replication factor at most ``len(brokers)``).
    """
    st = _State(current, brokers, racks)
    _evacuate(st)
    if len(st.racks) > 1:
        _spread_racks(st)
    _balance_counts(st)
    _repair_counts(st)
    spread_preferred_leaders(st.reps, st.brokers)
    return {st.tps[i]: tuple(st.reps[i]) for i in st.parts}


def _best_destination(st: _State, tp: int, src: int, candidates) -> int | None:
    rc = st.rack_counts(tp)
    best = None
    for dst in candidates:
        if dst in st.reps[tp]:
            continue
        delta = st.rack_delta(rc, src, dst)
        if delta is None:
            continue
        key = (delta, st.count[dst], st.tcount[dst][st.topic[tp]], dst)
        if best is None or key < best[0]:
            best = (key, dst)
    return None if best is None else best[1]


def _evacuate(st: _State) -> None:
    """Replicas on unlisted brokers to listed ones: first within each broker's room under the
    balanced floor, then under the ceiling, then anywhere (step 3 evens out what is left)."""
    forced = [(tp, src) for tp in st.parts for src in st.reps[tp] if src not in st.listed]
    if not forced:
        return
    total = sum(st.count.values()) + len(forced)
    low, rem = divmod(total, len(st.brokers))
    placed: dict[int, list[int]] = defaultdict(list)  # broker -> partitions evacuated onto it
    for limit in (low, low + 1) if rem else (low,):
        room = {b: max(0, limit - st.count[b]) for b in st.brokers}  # counts so far, moves included
        forced = [(tp, src) for tp, src in forced if not _place_within(st, tp, src, room, placed)]
    for tp, src in forced:
        dst = _best_destination(st, tp, src, st.brokers)
        if dst is None:  # cannot happen when replication factor <= brokers
            raise AssertionError(f"no destination for {st.tps[tp]} replica on {src}")
        st.move(tp, src, dst)


def _place_within(st: _State, tp: int, src: int, room: dict[int, int], placed: dict[int, list[int]]) -> bool:
    """Move ``tp``'s replica on unlisted ``src`` to a broker with ``room``: the best one that
    has some, else along a chain of already evacuated replicas that each move one broker on,
    ending at a broker with room. False when there is neither."""
    dst = _best_destination(st, tp, src, [b for b in st.brokers if room[b] > 0])
    chain = [(tp, src, dst)] if dst is not None else _chain_to_room(st, tp, src, room, placed)
    if chain is None:
        return False
    room[chain[-1][2]] -= 1
    for part, frm, to in reversed(chain):  # the last link first: each broker it enters has room
        st.move(part, frm, to)
        if frm in placed:
            placed[frm].remove(part)
        placed[to].append(part)
    return True


def _chain_to_room(
    st: _State, tp: int, src: int, room: Mapping[int, int], placed: Mapping[int, list[int]]
) -> list[tuple[int, int, int]] | None:
    """The shortest chain (breadth first over brokers) of moves (partition, from, to): ``tp``
    from ``src`` into a broker without room, a replica evacuated there onward to another, and
    so on to a broker with room. None when no chain exists. Every link keeps the rack rule."""
    rc = st.rack_counts(tp)
    first = [b for b in st.brokers if b not in st.reps[tp] and st.rack_delta(rc, src, b) is not None]
    came: dict[int, tuple[int, int]] = dict.fromkeys(first, (tp, src))  # broker -> (partition, from)
    queue = first
    while queue:
        nxt = []
        for b in queue:
            for part in placed.get(b, ()):
                for c in st.brokers:
                    if c in came or c in st.reps[part] or st.rack_delta(st.rack_counts(part), b, c) is None:
                        continue
                    came[c] = (part, b)
                    if room[c] > 0:
                        return _walk_back(came, c, src)
                    nxt.append(c)
        queue = nxt
    return None


def _walk_back(came: Mapping[int, tuple[int, int]], end: int, src: int) -> list[tuple[int, int, int]]:
    """The chain of moves (partition, from, to) that reached broker ``end``, first move first:
    followed back through ``came`` to the move out of the unlisted broker ``src``."""
    chain = []
    to = end
    while True:
        part, frm = came[to]
        chain.append((part, frm, to))
        if frm == src:  # only the first move leaves src: every later one leaves a listed broker
            return chain[::-1]
        to = frm


def _spread_racks(st: _State) -> None:
    for tp in st.parts:
        while True:
            rc = st.rack_counts(tp)
            reps = st.reps[tp]
            free = [b for b in st.brokers if b not in reps]
            if not free:
                break
            low = min(rc.get(st.rack[b], 0) for b in free)
            high_rack = max((r for r in rc if rc[r]), key=lambda r: (rc[r], r))
            if rc[high_rack] - low < 2:
                break
            src = max((b for b in reps if st.rack[b] == high_rack), key=lambda b: (st.count[b], b))
            dst = _best_destination(st, tp, src, [b for b in free if rc.get(st.rack[b], 0) == low])
            if dst is None:
                break
            st.move(tp, src, dst)


def _targets(st: _State) -> dict[int, int]:
    total = sum(st.count.values())
    q, r = divmod(total, len(st.brokers))
    order = sorted(st.brokers, key=lambda b: (-st.count[b], b))
    return {b: q + (1 if i < r else 0) for i, b in enumerate(order)}


def _shed(st: _State, b: int, n: int, fair: Mapping[str, float]) -> list[int]:
    """The ``n`` replicas broker ``b`` gives up: from the topics it holds most of (over their
    fair share), followers before preferred leaders, lowest partition first."""
    by_topic: dict[str, list[int]] = defaultdict(list)
    for tp in sorted(st.hosted[b], key=lambda tp: (st.reps[tp][0] == b, tp), reverse=True):
        by_topic[st.topic[tp]].append(tp)  # reversed: pop() yields followers, low partitions first
    held = {t: st.tcount[b][t] for t in by_topic}
    heap = [(-(held[t] - fair[t]), t) for t in sorted(by_topic)]
    heapq.heapify(heap)
    out: list[int] = []
    while heap and len(out) < n:
        _, t = heapq.heappop(heap)
        out.append(by_topic[t].pop())
        held[t] -= 1
        if by_topic[t]:
            heapq.heappush(heap, (-(held[t] - fair[t]), t))
    return out


def _balance_counts(st: _State) -> None:
    target = _targets(st)
    topic_total: dict[str, int] = defaultdict(int)
    for tp in st.parts:
        topic_total[st.topic[tp]] += len(st.reps[tp])
    fair = {t: n / len(st.brokers) for t, n in topic_total.items()}
    queues = [
        [(tp, b) for tp in _shed(st, b, st.count[b] - target[b], fair)] for b in st.brokers if st.count[b] > target[b]
    ]
    # Interleave the sources so no single broker's surplus meets only the last, fullest slots.
    pending = [item for round_ in _zip_longest(queues) for item in round_]
    for tp, src in pending:
        open_ = [b for b in st.brokers if st.count[b] < target[b]]
        if not open_:
            break
        rc = st.rack_counts(tp)
        best = None
        for dst in open_:
            if dst in st.reps[tp]:
                continue
            delta = st.rack_delta(rc, src, dst)
            if delta is None:
                continue
            key = (delta, st.tcount[dst][st.topic[tp]], st.count[dst] - target[dst], dst)
            if best is None or key < best[0]:
                best = (key, dst)
        if best is not None:
            st.move(tp, src, best[1])


def _zip_longest(queues: list[list]) -> list[list]:
    rounds = []
    for i in range(max((len(q) for q in queues), default=0)):
        rounds.append([q[i] for q in queues if i < len(q)])
    return rounds


def _repair_counts(st: _State) -> None:
    """One move at a time from a fuller to an emptier broker (at least two apart) until none is
    possible. Pairs found blocked (by racks, or by the destination already holding every
    candidate) are skipped until a round finds nothing else, then retried once more."""
    blocked: set[tuple[int, int]] = set()
    while True:
        order = sorted(st.brokers, key=lambda b: (st.count[b], b))
        move = None
        for src in reversed(order):
            for dst in order:
                if st.count[src] - st.count[dst] < 2:
                    break
                if (src, dst) in blocked:
                    continue
                tp = _movable(st, src, dst)
                if tp is None:
                    blocked.add((src, dst))
                    continue
                move = (tp, src, dst)
                break
            if move:
                break
        if move is not None:
            st.move(*move)
        elif blocked:
            blocked.clear()
            if not _any_move(st):
                return
        else:
            return


def _any_move(st: _State) -> bool:
    order = sorted(st.brokers, key=lambda b: (st.count[b], b))
    for src in reversed(order):
        for dst in order:
            if st.count[src] - st.count[dst] < 2:
                break
            tp = _movable(st, src, dst)
            if tp is not None:
                st.move(tp, src, dst)
                return True
    return False


def _movable(st: _State, src: int, dst: int) -> int | None:
    best = None
    for tp in st.hosted[src]:
        if dst in st.reps[tp]:
            continue
        if st.rack_delta(st.rack_counts(tp), src, dst) is None:
            continue
        key = (st.tcount[dst][st.topic[tp]] - st.tcount[src][st.topic[tp]], st.reps[tp][0] == src, tp)
        if best is None or key < best[0]:
            best = (key, tp)
    return None if best is None else best[1]
