"""The three steps of ``broker_balance`` (brokers, directories, preferred leaders) over its
working state. See ``kadmin.plan.broker_balance`` for what they do and why."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence

from kadmin.plan.broker_balance_state import BrokerState, Dir, Item
from kadmin.units import format_size

EPS = 1e-9
BIG = 1 << 62


def lower_bound(brokers: Iterable[BrokerState], mean: float, t: float) -> int:
    """Bytes any plan must move between brokers to bring them all into ``mean +- t``: at least
    what the overfull brokers hold above the band, and at least what the underfull ones lack."""
    over = under = 0.0
    for b in brokers:
        over += max(0.0, b.load - (mean + t) * b.size)
        under += max(0.0, (mean - t) * b.size - b.load)
    return int(max(over, under))


def pick(items: list[Item], want: float, limit: float, ok: Callable[[int, int], bool]) -> tuple[Item, bool] | None:
    """The largest item no bigger than ``want`` (and ``limit``) that ``ok`` accepts, else the
    smallest bigger one within ``limit``; (item, within_want), or None."""
    top = min(want, limit)
    k = bisect_right(items, (int(top), BIG))
    for j in range(k - 1, max(-1, k - 1 - SCAN), -1):
        item = items[j]
        if item[0] <= 0:
            break
        if ok(*item):
            return item, True
    for j in range(k, min(len(items), k + SCAN)):
        item = items[j]
        if item[0] > limit:
            break
        if item[0] > 0 and ok(*item):
            return item, False
    return None


SCAN = 64


def _best(found: list[tuple[tuple[Item, bool], Dir]]) -> tuple[Item, Dir] | None:
    """From candidates in directories ordered fullest first: the first within what is wanted,
    else the smallest overshoot."""
    for (item, within), d in found:
        if within:
            return item, d
    if not found:
        return None
    (item, _), d = min(found, key=lambda f: (f[0][0], f[1].path))
    return item, d


class UnknownRack:
    """The rack of a replica on a broker the cluster does not list (down, or gone): unknown,
    which is not None (a broker without a rack)."""

    def __repr__(self) -> str:
        return "UNKNOWN_RACK"


UNKNOWN_RACK = UnknownRack()
Rack = str | None | UnknownRack


def keeps_rack_spread(racks: Sequence[Rack], source: Rack, dest: Rack) -> bool:
    """Whether moving a partition's replica from rack ``source`` to rack ``dest`` (``racks``: the
    rack of each of its replicas) keeps its rack spread: the same rack, or one holding fewer of
    its replicas than ``source`` does. This is ``minimal_assign``'s rule (the sum of squared
    replicas per rack never grows), so the partition never spans fewer racks. A broker without
    a rack receives only from another without one. A replica whose rack is unknown
    (``UNKNOWN_RACK``) makes every move but one within a rack unsafe: its rack may be the very
    one the move fills (a down broker's replica on rack-0 with another on rack-1: moving the
    second to rack-0 would put both on rack-0)."""
    if isinstance(source, UnknownRack) or isinstance(dest, UnknownRack):
        return False
    if source == dest:
        return True
    if dest is None or any(isinstance(r, UnknownRack) for r in racks):
        return False
    return racks.count(dest) < racks.count(source)


# --- step 1: brokers -----------------------------------------------------------------------------


def balance_load(p) -> list[str]:
    """Move replicas between brokers until all are in the band (or stuck, or a limit is hit)."""
    t, mean = p.t, p.mean
    low, high = mean - t, mean + t
    brokers = [b for b in p.brokers.values() if b.size > 0 and b.load_known]
    stuck: set[int] = set()
    while not p.limited:
        worst = None
        for b in brokers:
            if b.id in stuck:
                continue
            f = b.share
            v = max(f - high, low - f)
            if v > EPS and (worst is None or v > worst[0]):
                worst = (v, b, f > high)
        if worst is None:
            break
        _, b, over = worst
        p.held_back = False
        moved = _send(p, b, brokers) if over else _receive(p, b, brokers)
        if not moved:
            p.limited |= p.held_back
            if not p.limited:  # a limit, not the cluster, stopped it
                stuck.add(b.id)
    what = "used" if p.balanced_on == "used_fraction" else "of the Kafka bytes"
    return [
        f"broker {b.id}: {b.share:.1%} {what}, outside {max(low, 0):.1%}..{high:.1%}; "
        "no replica can move without breaking a constraint"
        for b in brokers
        if b.id in stuck
    ]


def _send(p, src: BrokerState, brokers) -> bool:
    want = src.load - (p.mean + p.t) * src.size
    partners = sorted((b for b in brokers if b is not src and b.targets), key=lambda b: (b.share, b.id))
    return any(_trade(p, src, dst, want) for dst in partners)


def _receive(p, dst: BrokerState, brokers) -> bool:
    if not dst.targets:
        return False
    want = (p.mean - p.t) * dst.size - dst.load
    partners = sorted((b for b in brokers if b is not dst), key=lambda b: (-b.share, b.id))
    return any(_trade(p, src, dst, want) for src in partners)


def _budget(p, limit: float) -> float:
    """``limit`` within what --max-bytes leaves; when that is nothing, planning stops (``limited``)."""
    if p.request.max_bytes is None:
        return limit
    budget = p.request.max_bytes - p.moved_bytes
    if budget <= 0 < limit:
        p.limited = True
    return min(limit, budget)


def _over_budget(p, limit: float, search: Callable[[float], object]) -> None:
    """After ``search`` found nothing within the budget: when it finds a candidate within
    ``limit`` alone, --max-bytes held the move back (``held_back``); if no other move helps
    instead, planning stops there (``limited``), rather than calling the cluster stuck."""
    if _budget(p, limit) < limit and search(limit) is not None:
        p.held_back = True


def _trade(p, src: BrokerState, dst: BrokerState, want: float) -> bool:
    bound = min((p.mean + p.t) * dst.size - dst.load, src.load - (p.mean - p.t) * src.size)
    limit = _budget(p, bound)
    if limit <= 0:
        return False
    parts = p.parts

    def ok(size: int, i: int) -> bool:
        reps = parts.reps[i]
        if dst.id in reps or dst.id in parts.original[i]:
            return False  # a broker that held a replica keeps it: Kafka copies nothing back
        if p.new_leader(i, src.id, dst.id) is None:
            return False  # the preferred-leader spread would widen
        if p.racked and not keeps_rack_spread([p.rack_of(b) for b in reps], p.rack_of(src.id), p.rack_of(dst.id)):
            return False
        return dst.best_dir(size) is not None

    def search(limit: float) -> tuple[Item, Dir] | None:
        found = []
        for d in sorted(src.dirs.values(), key=lambda d: (-d.fraction, d.path)):
            c = pick(d.resident, want, limit, ok)
            if c is not None:
                found.append((c, d))
                if c[1]:
                    break
        return _best(found)

    best = search(limit)
    if best is None:
        _over_budget(p, bound, search)
        return False
    (size, i), sdir = best
    if not p.allowed(size, True):
        return False
    leader = p.new_leader(i, src.id, dst.id)
    assert leader is not None  # ok() checked
    p.move_between_brokers(i, src, sdir, size, dst, dst.best_dir(size), leader)
    return True


# --- step 2: directories of each broker ----------------------------------------------------------


def balance_dirs(p, broker: BrokerState) -> list[str]:
    """Move replicas between the broker's directories until each is within the threshold of
    the broker's used fraction (or, ``by_bytes``, of its mean directory's Kafka bytes); re-aiming
    a replica the plan brings here first (it costs no extra copy)."""
    low, high = _dir_band(p, broker)
    dirs = sorted(broker.dirs.values(), key=lambda d: d.path)
    stuck: set[str] = set()
    while not p.limited:
        worst = None
        for d in dirs:
            if d.path in stuck:
                continue
            f = d.fraction
            v = max(f - high, (low - f) if d.online else 0.0)
            if v > EPS and (worst is None or v > worst[0]):
                worst = (v, d, f > high)
        if worst is None:
            break
        _, d, over = worst
        p.held_back = False
        if over:
            want = d.occ - high * d.cap
            partners = sorted((x for x in broker.targets if x is not d), key=lambda x: (x.fraction, x.path))
            moved = any(_shift(p, broker, d, x, want, low, high) for x in partners)
        else:
            want = low * d.cap - d.occ
            partners = sorted((x for x in dirs if x is not d), key=lambda x: (-x.fraction, x.path))
            moved = any(_shift(p, broker, x, d, want, low, high) for x in partners)
        if not moved:
            p.limited |= p.held_back
            if not p.limited:  # a limit, not the cluster, stopped it
                stuck.add(d.path)
    return [
        f"{_dir_outside(p, broker, d, low, high)}; no replica can move there or away" for d in dirs if d.path in stuck
    ]


def _dir_band(p, broker: BrokerState) -> tuple[float, float]:
    """The directories' band: the broker's used fraction +- the threshold, or (``by_bytes``) its
    mean directory's Kafka bytes +- the threshold of that mean."""
    m = broker.fraction
    t = p.request.threshold * (m if broker.by_bytes else 1)
    return m - t, m + t


def _dir_outside(p, broker: BrokerState, d: Dir, low: float, high: float) -> str:
    if broker.by_bytes:
        return (
            f"broker {broker.id} {d.path}: {format_size(d.occ)} of Kafka bytes, outside "
            f"{format_size(max(low, 0))}..{format_size(high)} ({p.request.threshold:.1%} around its broker's mean "
            "directory)"
        )
    return f"broker {broker.id} {d.path}: {d.fraction:.1%} used, outside {max(low, 0):.1%}..{high:.1%} (its broker's share)"


def dirs_left_alone(p, broker: BrokerState) -> list[str]:
    """For a broker whose directories may not be balanced (one is offline): those outside the
    threshold of the broker's used fraction (or mean directory)."""
    low, high = _dir_band(p, broker)
    return [
        f"{_dir_outside(p, broker, d, low, high)}; Kafka moves no replica between its directories while one is offline"
        for d in sorted(broker.dirs.values(), key=lambda d: d.path)
        if d.fraction - high > EPS or (d.online and low - d.fraction > EPS)
    ]


def _shift(p, broker: BrokerState, src: Dir, dst: Dir, want: float, low: float, high: float) -> bool:
    limit = min(high * dst.cap - dst.occ, src.occ - low * src.cap)
    if limit <= 0:
        return False
    c = pick(src.placed, want, limit, lambda size, i: dst.fits(size))
    if c is None:

        def search(limit: float):
            return pick(src.resident, want, limit, lambda size, i: dst.fits(size)) if limit > 0 else None

        c = search(_budget(p, limit))
        if c is None:
            _over_budget(p, limit, search)
            return False
        if not p.allowed(c[0][0], True):
            return False
    (size, i), _ = c
    p.move_between_dirs(broker, i, size, src, dst)
    return True


# --- step 3: preferred leaders -------------------------------------------------------------------


def balance_leaders(p) -> int:
    """Reorder replicas so preferred-leader counts per broker in scope are within one of each
    other, reordering only partitions the plan may touch whose replicas are all in scope; the
    others count as they are (as one-replica lists the leader step cannot reorder). Returns how
    many partitions end with another preferred leader than they started with."""
    from kadmin.plan.preferred_leaders import spread_preferred_leaders

    parts = p.parts
    scope = set(p.brokers)
    lists = []
    for i, reps in enumerate(parts.reps):
        if parts.movable[i] and all(b in scope for b in reps):
            lists.append(reps)  # edited in place
        elif reps and reps[0] in scope:
            lists.append([reps[0]])
    if lists and len(scope) > 1:
        spread_preferred_leaders(lists, sorted(scope))
    return sum(1 for i, r in enumerate(parts.reps) if r[:1] != list(parts.original[i][:1]))
