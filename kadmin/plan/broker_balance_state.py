"""The working state of ``reassign balance`` (``broker_balance``): brokers, their directories and
the movable replicas on them, with moves applied as they are planned.

Figures come from DescribeLogDirs. A directory's *occupied* bytes are ``total - usable`` (so
files that are not Kafka's, stray logs and anything else on the volume count), its capacity
``total``. A directory that does not report capacities (DescribeLogDirs before v4) is assumed
as large as the largest one that does (or, none reporting, as large as all the data reported)
and holding only its replicas' bytes; it has no room limit, since none is known.

Moves in flight count as done: a future replica's directory will hold the full replica and its
current directory will not; a reassignment under way deletes the removing replicas and completes
the adding ones. Bytes a directory sends away are never counted as room for what it
receives (moves finish in any order), but are in its projected usage.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable, Mapping, Sequence

from kadmin.model import LogDir, LogDirStatus, TopicPartition

Item = tuple[int, int]  # (size, partition index): sorted lists of these per directory


class Dir:
    def __init__(self, broker: int, d: LogDir, assumed_capacity: int, max_usage: float):
        self.broker = broker
        self.path = d.path
        self.status = d.status
        self.total = d.total_bytes
        self.cap: int
        self.occ: int
        # What may still arrive: the usable bytes (less what moves in flight bring), and never
        # above max_usage of the capacity once the plan is done.
        self.room: int | None
        self.ceiling: float | None
        if d.total_bytes is not None and d.usable_bytes is not None and d.total_bytes > 0:
            self.known = True
            self.cap = d.total_bytes
            self.occ = d.total_bytes - d.usable_bytes
            self.room = d.usable_bytes
            self.ceiling = max_usage * self.cap
        else:
            self.known = False
            self.cap = assumed_capacity
            self.occ = d.used_bytes
            self.room = None
            self.ceiling = None
        self.replica_bytes = d.used_bytes
        self.replicas = sum(1 for r in d.replicas if not r.is_future)
        self.resident: list[Item] = []  # replicas that may move, sorted
        self.placed: list[Item] = []  # replicas the plan puts here: re-aiming them costs nothing
        self.online = self.status is LogDirStatus.ONLINE

    @property
    def fraction(self) -> float:
        return self.occ / self.cap

    def fits(self, size: int) -> bool:
        if not self.online:
            return False
        if self.room is not None and size > self.room:
            return False
        return self.ceiling is None or self.occ + size <= self.ceiling

    def add(self, size: int, count: int = 1, incoming: bool = True) -> None:
        self.occ += size
        self.replica_bytes += size
        self.replicas += count
        if self.room is not None and incoming and size > 0:
            self.room -= size


class BrokerState:
    def __init__(self, broker: int, rack: str | None, dirs: Sequence[Dir]):
        self.id = broker
        self.rack = rack
        self.dirs = {d.path: d for d in dirs}
        self.targets = [d for d in sorted(dirs, key=lambda d: d.path) if d.online]

    @property
    def cap(self) -> int:
        return sum(d.cap for d in self.dirs.values())

    @property
    def occ(self) -> int:
        return sum(d.occ for d in self.dirs.values())

    @property
    def fraction(self) -> float:
        cap = self.cap
        return self.occ / cap if cap else 0.0

    def best_dir(self, size: int, exclude: Dir | None = None) -> Dir | None:
        """The target directory that stays emptiest after receiving ``size`` bytes."""
        best = None
        for d in self.targets:
            if d is exclude or not d.fits(size):
                continue
            key = ((d.occ + size) / d.cap, d.path)
            if best is None or key < best[0]:
                best = (key, d)
        return None if best is None else best[1]


def remove_item(items: list[Item], item: Item) -> None:
    items.pop(bisect_left(items, item))


def add_item(items: list[Item], item: Item) -> None:
    insort(items, item)


def has_item(items: list[Item], item: Item) -> bool:
    k = bisect_left(items, item)
    return k < len(items) and items[k] == item


class Partitions:
    """Partitions as integers (sorted order), with the replica lists the plan edits."""

    def __init__(self, tps: Sequence[TopicPartition], replicas: Sequence[tuple[int, ...]]):
        self.tps = list(tps)
        self.index = {tp: i for i, tp in enumerate(self.tps)}
        self.original = [tuple(r) for r in replicas]
        self.reps = [list(r) for r in replicas]
        self.movable = [False] * len(self.tps)
        self.dir_target: dict[tuple[int, int], str] = {}  # (partition, broker) -> absolute path


def load_dirs(
    broker: int,
    dirs: Sequence[LogDir],
    parts: Partitions,
    frozen: set[int],
    assumed_capacity: int,
    max_usage: float,
    leaving: Iterable[int] = (),
    arriving: Mapping[int, int] | None = None,
) -> tuple[list[Dir], dict[int, tuple[Dir, int]]]:
    """The broker's readable directories, moves in flight counted as done, and where each
    partition's current replica is: partition index -> (directory, size). Partitions with a
    future replica are added to ``frozen``. Entries for partitions not in the metadata, or not
    assigned to this broker, are stray logs: their bytes count, they never move.

    Reassignments under way count as done too: the replicas of partitions in ``leaving`` (the
    broker is among their removing replicas) are deleted, and those in ``arriving`` (among the
    adding replicas; partition -> its full size) grow to it, in the directory holding the copy
    so far, or (not begun) the one that stays emptiest, where Kafka's choice is not known yet."""
    readable = [d for d in sorted(dirs, key=lambda d: d.path) if d.status is not LogDirStatus.OFFLINE]
    out = [Dir(broker, d, assumed_capacity, max_usage) for d in readable]
    by_path = {d.path: d for d in out}
    current: dict[int, tuple[Dir, int]] = {}
    future: dict[int, tuple[Dir, int]] = {}
    for d in readable:
        for r in d.replicas:
            i = parts.index.get(TopicPartition(r.topic, r.partition))
            if i is None or broker not in parts.original[i]:
                continue  # stray
            (future if r.is_future else current)[i] = (by_path[d.path], r.size)
    for i, (dst, fsize) in future.items():
        frozen.add(i)
        src = current.get(i)
        csize = src[1] if src else fsize
        dst.add(max(csize - fsize, 0), 1, incoming=True)  # the copy completes ...
        if src is not None:
            src[0].add(-csize, -1, incoming=False)  # ... and the old directory is deleted
            current[i] = (dst, csize)
    for i in sorted(current.keys() & set(leaving)):
        home, size = current.pop(i)
        home.add(-size, -1, incoming=False)
    for i, full in sorted((arriving or {}).items()):
        if i in current:
            home, size = current[i]
            home.add(max(full - size, 0), 0, incoming=True)
        else:
            online = [x for x in out if x.online]
            if not online:
                continue
            home, size = min(online, key=lambda x: ((x.occ + full) / x.cap, x.path)), 0
            home.add(full, 1, incoming=True)
        current[i] = (home, max(full, size))
    return out, current
