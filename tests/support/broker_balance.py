"""Literal clusters for the `reassign balance` planner tests: brokers with racks, directories
with capacities, partitions with sizes, and whatever DescribeLogDirs would report for them."""

from __future__ import annotations

from kadmin.model import Broker, ClusterState, LogDir, PartitionState, ReplicaInfo, TopicPartition

GB = 10**9


def build(racks: dict[int, str | None], assign: dict[tuple[str, int], list[int]], size,
          dirs: int = 2, capacity: int = 100 * GB, pin: dict | None = None, other: int = 0,
          cordoned=(), offline=(), futures: dict | None = None, strays=(), adding=()):
    """``size``: bytes of every replica of a partition, an int or {(topic, p): bytes}.
    ``pin``: {(topic, p, broker): dir index} (default directory 0). ``futures``: {(topic, p,
    broker): (dir index, bytes copied)}, a move in flight. ``strays``: (broker, dir index, topic,
    p, bytes) entries that are not replicas of the broker. ``adding``: partitions being reassigned.
    Directory k of every broker is "/dk"; ``cordoned``/``offline`` name (broker, k)."""
    pin, futures = pin or {}, futures or {}
    placed = {b: {k: [] for k in range(dirs)} for b in racks}
    for (t, p), reps in assign.items():
        s = size if isinstance(size, int) else size[t, p]
        for b in reps:
            placed[b][pin.get((t, p, b), 0)].append(ReplicaInfo(t, p, s, 0, False))
            if (t, p, b) in futures:
                k, copied = futures[t, p, b]
                placed[b][k].append(ReplicaInfo(t, p, copied, 0, True))
    for b, k, t, p, s in strays:
        placed[b][k].append(ReplicaInfo(t, p, s, 0, False))
    log_dirs = {}
    for b, ds in placed.items():
        log_dirs[b] = []
        for k, reps in ds.items():
            if (b, k) in offline:
                log_dirs[b].append(LogDir(b, f"/d{k}", "KafkaStorageException"))
                continue
            used = sum(r.size for r in reps) + other
            log_dirs[b].append(LogDir(b, f"/d{k}", None, capacity, capacity - used, (b, k) in cordoned, tuple(reps)))
    parts = {}
    for (t, p), reps in assign.items():
        moving = (t, p) in adding
        parts[TopicPartition(t, p)] = PartitionState(t, p, reps[0], tuple(reps), tuple(reps),
                                                     adding=(reps[-1],) if moving else ())
    brokers = {b: Broker(b, "127.0.0.1", 9092 + b, r) for b, r in racks.items()}
    return ClusterState("test", 1, brokers, parts), log_dirs


def racks_of(n: int, racks: int = 3) -> dict[int, str]:
    return {b: f"r{b % racks}" for b in range(1, n + 1)}
