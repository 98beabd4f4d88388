"""`reassign balance` figures: 50 brokers (5 racks) x 4 directories x 100,000 replicas, brokers
1-10 holding twice the share of the others and most bytes in each broker's first directories.
Pure functions, no cluster. Compared with `reassign generate` (minimal strategy) on the same start.

Lower bound of bytes moved between brokers: whatever plan is used, each broker above the band
(mean + threshold) must send at least its bytes above the band, and each broker below it
(mean - threshold) must receive at least what it lacks; bytes only leave one broker by arriving
at another, so the larger of the two sums is a bound.

Run: python bench/bench_broker_balance.py   (or `make bench` for every figure)
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.table import Figure, print_figures  # noqa: E402
from kadmin.model import Broker, ClusterState, LogDir, PartitionState, ReplicaInfo, TopicPartition  # noqa: E402
from kadmin.plan.broker_balance import (  # noqa: E402
    BalanceRequest,
    balance_brokers,
    dir_deviation,
    max_deviation,
    transfer_seconds,
)

BROKERS, DIRS, RACKS, REPLICAS = 50, 4, 5, 100_000
DISK = 2 * 10**12
OTHER = 10 * 10**9  # bytes on each disk that are not Kafka's


def skewed_cluster(brokers: int = BROKERS, dirs: int = DIRS, replicas: int = REPLICAS, seed: int = 11):
    """Partitions of RF 3 on three racks each; brokers 1-10 twice as likely to be chosen; sizes
    log-normal (median ~180 MB, a long tail); each broker's first directories fuller."""
    rng = random.Random(seed)
    rack = {b: f"r{b % RACKS}" for b in range(1, brokers + 1)}
    weight = {b: 2.0 if b <= 10 else 1.0 for b in rack}
    paths = [f"/var/kafka/data{k}" for k in range(dirs)]
    placed = {b: {p: [] for p in paths} for b in rack}
    parts = {}
    for n in range(-(-replicas // 3)):
        tp = TopicPartition(f"topic-{n % 200:03d}", n // 200)
        size = int(rng.lognormvariate(19, 1.5))
        chosen: list[int] = []
        while len(chosen) < 3:
            free = [b for b in rack if rack[b] not in {rack[c] for c in chosen}]
            chosen.append(rng.choices(free, [weight[b] for b in free])[0])
        for b in chosen:
            k = min(int(rng.expovariate(0.9)), dirs - 1)
            placed[b][paths[k]].append(ReplicaInfo(tp.topic, tp.partition, size, 0, False))
        parts[tp] = PartitionState(tp.topic, tp.partition, chosen[0], tuple(chosen), tuple(chosen))
    log_dirs = {b: [LogDir(b, p, None, DISK, DISK - OTHER - sum(r.size for r in reps), False, tuple(reps))
                    for p, reps in ds.items()] for b, ds in placed.items()}
    cluster = ClusterState("bench", 1, {b: Broker(b, "127.0.0.1", 9092 + b, r) for b, r in rack.items()}, parts)
    return cluster, log_dirs


def generate_outcome(cluster: ClusterState, log_dirs, mean: float) -> tuple[int, float, float]:
    """`reassign generate` (minimal) on the same start: bytes it copies, and the widest distance
    of a broker's used fraction from the mean once done."""
    from kadmin.plan.generate import generate

    size = {}
    for ds in log_dirs.values():
        for d in ds:
            for r in d.replicas:
                size[r.tp] = r.size
    occ = {b: sum(d.total_bytes - d.usable_bytes for d in ds) for b, ds in log_dirs.items()}
    cap = {b: sum(d.total_bytes for d in ds) for b, ds in log_dirs.items()}
    t0 = time.perf_counter()
    current, proposed = generate(cluster, cluster.topics, sorted(cluster.brokers))
    secs = time.perf_counter() - t0
    before = current.by_partition()
    moved = 0
    for a in proposed.partitions:
        old = set(before[a.tp].replicas)
        for b in set(a.replicas) - old:
            occ[b] += size[a.tp]
            moved += size[a.tp]
        for b in old - set(a.replicas):
            occ[b] -= size[a.tp]
    return moved, max(abs(occ[b] / cap[b] - mean) for b in occ), secs


def dir_bytes_needed(result, t: float) -> int:
    """Bytes the moves between directories must carry at least, given the moves between
    brokers: each directory's bytes above its broker's final share plus ``t``, less what leaves
    it for another broker anyway (the bytes arriving can be placed anywhere for free)."""
    broker = {u.broker: u.used_fraction for u in result.brokers_after}
    leaving: dict = {}
    for m in result.moves:
        if m.inter_broker:
            leaving[m.source_broker, m.source_dir] = leaving.get((m.source_broker, m.source_dir), 0) + m.size
    total = 0.0
    for d in result.dirs_before:
        if d.total_bytes:
            occupied = d.total_bytes - d.usable_bytes - leaving.get((d.broker, d.path), 0)
            total += max(0.0, occupied - (broker[d.broker] + t) * d.total_bytes)
    return int(total)


def figures() -> list[Figure]:
    cluster, log_dirs = skewed_cluster()
    request = BalanceRequest(threshold=0.05)
    t0, c0 = time.perf_counter(), time.process_time()
    result = balance_brokers(cluster, log_dirs, request)
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    moved = result.inter_broker_bytes
    bound = result.lower_bound_bytes
    area = f"balance {BROKERS} brokers x {DIRS} dirs x {REPLICAS:,} replicas"
    rate = 100 * 10**6
    out = [
        Figure(area, "time (wall)", secs, "s", "< 5 s", secs < 5),
        Figure(area, "CPU time (steadier on a shared host)", cpu, "s", "< 5 s", cpu < 5),
        Figure(area, "stopped", 1.0 if result.stopped == "balanced" else 0.0, f"({result.stopped})", "balanced",
               result.stopped == "balanced"),
        Figure(area, "replica moves between brokers", sum(1 for m in result.moves if m.inter_broker), "", ""),
        Figure(area, "replica moves between directories", sum(1 for m in result.moves if not m.inter_broker), "", ""),
        Figure(area, "bytes moved between brokers", moved / 1e12, "TB", ""),
        Figure(area, "lower bound of bytes between brokers", bound / 1e12, "TB", ""),
        Figure(area, "moved / lower bound", round(moved / bound, 4) if bound else 1.0, "x", "<= 1.2",
               moved <= 1.2 * bound),
        Figure(area, "bytes moved between directories", result.intra_broker_bytes / 1e12, "TB", ""),
        Figure(area, "bytes between directories needed at least (given those between brokers)",
               dir_bytes_needed(result, request.threshold) / 1e12, "TB", ""),
        Figure(area, "broker distance from mean, before", max_deviation(result.brokers_before, result.mean), "", ""),
        Figure(area, "broker distance from mean, after", max_deviation(result.brokers_after, result.mean), "",
               "<= 0.05", max_deviation(result.brokers_after, result.mean) <= 0.05 + 1e-9),
        Figure(area, "dir distance from its broker, before", dir_deviation(result.dirs_before, result.brokers_before), "", ""),
        Figure(area, "dir distance from its broker, after", dir_deviation(result.dirs_after, result.brokers_after), "",
               "<= 0.05", dir_deviation(result.dirs_after, result.brokers_after) <= 0.05 + 1e-9),
        Figure(area, "preferred leaders changed", result.leaders_changed, "", ""),
        Figure(area, "estimated copy time at 100 MB/s", transfer_seconds(result, cluster, rate) / 3600, "h", ""),
    ]
    gmoved, gdev, gsecs = generate_outcome(cluster, log_dirs, result.mean)
    out += [
        Figure("same start, `reassign generate` (minimal)", "time", gsecs, "s", ""),
        Figure("same start, `reassign generate` (minimal)", "bytes moved between brokers", gmoved / 1e12, "TB", ""),
        Figure("same start, `reassign generate` (minimal)", "moved / lower bound", gmoved / bound if bound else 0, "x", ""),
        Figure("same start, `reassign generate` (minimal)", "broker distance from mean, after", gdev, "", ""),
    ]
    return out


if __name__ == "__main__":
    print_figures("broker_balance", figures())
