"""The working state of ``reassign balance`` (``broker_balance``): brokers, their directories and
the movable replicas on them, with moves applied as they are planned.

Figures come from DescribeLogDirs. A directory's *occupied* bytes are ``total - usable`` (so
files that are not Kafka's, stray logs and anything else on the volume count), its capacity
``total``. A broker one of whose readable directories does not report capacities
(DescribeLogDirs before v4, Kafka before 3.3) is balanced on Kafka bytes instead: its
directories are taken as equal in size (capacity 1, so a directory's *fraction* is its bytes)
and hold only their replicas' bytes. No capacity is made up: those that do report one keep their
room limits (usable bytes, ``max_usage``), counted on the bytes really on the disk (``disk``).

A broker whose directories share one filesystem (each reports the filesystem's total and usable
bytes, ``filesystems.share_one_filesystem``) has one ``Filesystem`` under all of them: its
capacity, the bytes on it, its room and ``max_usage`` count once, and its directories, whose
used shares cannot differ, are balanced on Kafka bytes, as ``log-dirs balance`` does.

Brokers are compared on the *load* over the *size* of each (``BrokerState.share``): occupied over
capacity of their filesystems, or, when any broker in scope balances on bytes, each broker's
Kafka bytes over the Kafka bytes of all of them (``scale``), a share whose mean is one over the
number of brokers.

Moves in flight count as done in the working state (``load_dirs``): a future replica's
directory will hold the full replica and its current directory will not; a reassignment under
way deletes the removing replicas and completes the adding ones. ``read_dirs`` gives the
directories as they are now, for the figures before. Bytes a directory sends away are never counted as room for what it
receives (moves finish in any order), but are in its projected usage.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable, Mapping, Sequence

from kadmin.model import LogDir, LogDirStatus, TopicPartition
from kadmin.plan.balance import InFlight
from kadmin.plan.filesystems import reports_capacity, share_one_filesystem

Item = tuple[int, int]  # (size, partition index): sorted lists of these per directory


class Filesystem:
    """The disk under one directory, or under all of a broker's directories when they share one,
    from the total and usable bytes they report."""

    def __init__(self, total: int, usable: int, max_usage: float):
        self.total = total
        self.disk = total - usable  # bytes on it, moves applied
        # What may still arrive: the usable bytes (less what moves in flight bring), and never
        # above max_usage of the capacity once the plan is done.
        self.room = usable
        self.ceiling = max_usage * total

    def fits(self, size: int) -> bool:
        return size <= self.room and self.disk + size <= self.ceiling


class Dir:
    def __init__(self, broker: int, d: LogDir, by_bytes: bool, max_usage: float, fs: Filesystem | None = None):
        """``by_bytes``: its broker balances its directories on Kafka bytes (one of them reports
        no capacity, or they share one filesystem), so this one counts as capacity 1 holding its
        replicas' bytes. ``fs``: the filesystem it shares with the broker's other directories;
        without it, one of its own when it reports capacity."""
        self.broker = broker
        self.path = d.path
        self.status = d.status
        self.total = d.total_bytes
        self.known = reports_capacity(d)
        if fs is None and self.known:
            assert d.total_bytes is not None and d.usable_bytes is not None  # what "known" means
            fs = Filesystem(d.total_bytes, d.usable_bytes, max_usage)
        self.fs = fs  # None: no capacity reported, no room limit known
        self.cap: int = 1 if by_bytes or d.total_bytes is None else d.total_bytes
        self.occ: int = d.used_bytes if by_bytes or fs is None else fs.disk
        self.replica_bytes = d.used_bytes
        self.replicas = sum(1 for r in d.replicas if not r.is_future)
        self.resident: list[Item] = []  # replicas that may move, sorted
        self.placed: list[Item] = []  # replicas the plan puts here: re-aiming them costs nothing
        self.online = self.status is LogDirStatus.ONLINE

    @property
    def fraction(self) -> float:
        return self.occ / self.cap

    @property
    def disk(self) -> int | None:
        """Bytes on its filesystem, moves applied; None without capacity."""
        return None if self.fs is None else self.fs.disk

    @property
    def room(self) -> int | None:
        """Bytes that may still arrive on its filesystem; None without capacity."""
        return None if self.fs is None else self.fs.room

    def fits(self, size: int) -> bool:
        return self.online and (self.fs is None or self.fs.fits(size))

    def add(self, size: int, count: int = 1, incoming: bool = True) -> None:
        self.occ += size
        self.replica_bytes += size
        self.replicas += count
        if self.fs is not None:
            self.fs.disk += size
            if incoming and size > 0:
                self.fs.room -= size

    def cancel_arrival(self, size: int) -> None:
        """A replica the plan brought here will not arrive after all: its room is free again."""
        if self.fs is not None:
            self.fs.room += size


class BrokerState:
    def __init__(self, broker: int, rack: str | None, dirs: Sequence[Dir]):
        self.id = broker
        self.rack = rack
        self.dirs = {d.path: d for d in dirs}
        self.targets = [d for d in sorted(dirs, key=lambda d: d.path) if d.online]
        self.reports = all(d.known for d in dirs)  # every readable directory reports capacity
        filesystems = {id(d.fs): d.fs for d in sorted(dirs, key=lambda d: d.path) if d.fs is not None}
        self.filesystems = list(filesystems.values())
        self.shared_fs = len(self.filesystems) < sum(1 for d in dirs if d.fs is not None)
        # Its directories balance on Kafka bytes: one of them reports no capacity, or they
        # share one filesystem.
        self.by_bytes = not self.reports or self.shared_fs
        # Brokers compared on Kafka bytes: the Kafka bytes of all brokers in scope (set by the
        # planner); None: on occupied bytes over capacity.
        self.scale: int | None = None
        # False with a directory offline: what it holds there is unknown (set by the planner).
        self.load_known = True

    @property
    def cap(self) -> int:
        """Its directories' capacity (``by_bytes``: one each)."""
        return sum(d.cap for d in self.dirs.values())

    @property
    def occ(self) -> int:
        return sum(d.occ for d in self.dirs.values())

    @property
    def disk_total(self) -> int:
        """The capacity of its filesystems, each counted once (all of it when ``reports``)."""
        return sum(fs.total for fs in self.filesystems)

    @property
    def disk_used(self) -> int:
        """The bytes on its filesystems, each counted once, moves applied."""
        return sum(fs.disk for fs in self.filesystems)

    @property
    def fraction(self) -> float:
        """Its directories' measure: used fraction, or (``by_bytes``) Kafka bytes per directory."""
        cap = self.cap
        return self.occ / cap if cap else 0.0

    @property
    def kafka_bytes(self) -> int:
        return sum(d.replica_bytes for d in self.dirs.values())

    @property
    def load(self) -> int:
        """What brokers are compared on: occupied disk bytes, or Kafka bytes (``scale`` set)."""
        return self.disk_used if self.scale is None else self.kafka_bytes

    @property
    def size(self) -> int:
        """What ``load`` is a share of: disk capacity, or ``scale``; 0 with no readable directory."""
        if self.scale is None:
            return self.disk_total
        return self.scale if self.dirs else 0

    @property
    def share(self) -> float:
        size = self.size
        return self.load / size if size else 0.0

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


def read_dirs(broker: int, dirs: Sequence[LogDir], max_usage: float) -> list[Dir]:
    """The broker's readable directories, their figures as DescribeLogDirs reports them now."""
    readable = [d for d in sorted(dirs, key=lambda d: d.path) if d.status is not LogDirStatus.OFFLINE]
    fs = None
    if share_one_filesystem(readable):
        assert readable[0].total_bytes is not None and readable[0].usable_bytes is not None  # all report it
        fs = Filesystem(readable[0].total_bytes, readable[0].usable_bytes, max_usage)
    by_bytes = fs is not None or not all(reports_capacity(d) for d in readable)
    return [Dir(broker, d, by_bytes, max_usage, fs) for d in readable]


def load_dirs(
    broker: int,
    dirs: Sequence[LogDir],
    parts: Partitions,
    frozen: set[int],
    max_usage: float,
    leaving: Iterable[int] = (),
    arriving: Mapping[int, int] | None = None,
) -> tuple[list[Dir], dict[int, tuple[Dir, int]], InFlight]:
    """The broker's readable directories (``read_dirs``), moves in flight counted as done, and
    where each partition's current replica is: partition index -> (directory, size). Partitions
    with a future replica are added to ``frozen``. Entries for partitions not in the metadata, or
    not assigned to this broker, are stray logs: their bytes count, they never move.

    Reassignments under way count as done too: the replicas of partitions in ``leaving`` (the
    broker is among their removing replicas) are deleted, and those in ``arriving`` (among the
    adding replicas; partition -> its full size) grow to it, in the directory holding the copy
    so far, or (not begun) the one that stays emptiest, where Kafka's choice is not known yet.
    What was counted of them is returned too (``InFlight``, for the note)."""
    out = read_dirs(broker, dirs, max_usage)
    by_path = {d.path: d for d in out}
    current: dict[int, tuple[Dir, int]] = {}
    future: dict[int, tuple[Dir, int]] = {}
    for d in sorted(dirs, key=lambda d: d.path):
        if d.path not in by_path:
            continue  # offline
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
    gone, to_copy, unplaced = [], [], []
    for i in sorted(current.keys() & set(leaving)):
        home, size = current.pop(i)
        home.add(-size, -1, incoming=False)
        gone.append(size)
    for i, full in sorted((arriving or {}).items()):
        if i in current:
            home, size = current[i]
            home.add(max(full - size, 0), 0, incoming=True)
            to_copy.append(max(full - size, 0))
        else:
            online = [x for x in out if x.online]
            if not online:
                continue
            home, size = min(online, key=lambda x: ((x.occ + full) / x.cap, x.path)), 0
            home.add(full, 1, incoming=True)
            unplaced.append(full)
        current[i] = (home, max(full, size))
    return out, current, InFlight(tuple(gone), tuple(to_copy), len(unplaced), sum(unplaced))
