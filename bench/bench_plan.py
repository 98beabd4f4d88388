"""Planner figures: `reassign generate` on 10,000 partitions x RF 3, 40 brokers + 10 new, and
`log-dirs balance` on 50 brokers x 4 directories x 100,000 replicas. Pure functions, no cluster.

Run: python bench/bench_plan.py   (or `make bench` for every figure)
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.table import Figure, print_figures  # noqa: E402
from kadmin.model import (  # noqa: E402
    Broker,
    ClusterState,
    LogDir,
    PartitionState,
    ReplicaInfo,
    TopicPartition,
)
from kadmin.plan.balance import balance_log_dirs, usage_spread  # noqa: E402
from kadmin.plan.generate import (  # noqa: E402
    broker_racks,
    current_assignment,
    generate,
    leaders_moved,
    moves_lower_bound,
    replicas_moved,
)
from kadmin.plan.kafka_assign import assign_replicas_to_brokers  # noqa: E402

RACKS = 4


def expansion_cluster(old: int = 40, new: int = 10, topics: int = 100, partitions: int = 100,
                      rf: int = 3) -> ClusterState:
    """``topics`` x ``partitions`` placed by Kafka's rack-aware round-robin on brokers 1..old
    (racks r0..r3), plus ``new`` empty brokers spread over the same racks."""
    rng = random.Random(42)
    racks = {b: f"r{b % RACKS}" for b in range(1, old + new + 1)}
    placed_on = {b: racks[b] for b in range(1, old + 1)}
    parts = {}
    for t in range(topics):
        name = f"topic-{t:03d}"
        for p, reps in assign_replicas_to_brokers(placed_on, partitions, rf, rng.randrange(old), rng.randrange(old)).items():
            parts[TopicPartition(name, p)] = PartitionState(name, p, reps[0], tuple(reps), tuple(reps))
    brokers = {b: Broker(b, "127.0.0.1", 9092 + b, r) for b, r in racks.items()}
    return ClusterState("bench", 1, brokers, parts)


def skewed_log_dirs(brokers: int = 50, dirs: int = 4, replicas: int = 100_000):
    """Replicas with log-normal sizes (median ~66 MB, a long tail), most of them in each
    broker's first directories; 4 TB disks with 10 GB of other files."""
    rng = random.Random(7)
    parts = {}
    placed: dict[int, dict[str, list[ReplicaInfo]]] = {
        b: {f"/var/kafka/data{k}": [] for k in range(dirs)} for b in range(1, brokers + 1)}
    holders: dict[TopicPartition, list[int]] = {}
    for i in range(replicas // 3 + 1):
        tp = TopicPartition(f"topic-{i % 200:03d}", i // 200)
        for b in rng.sample(range(1, brokers + 1), 3):
            holders.setdefault(tp, []).append(b)
            k = min(int(rng.expovariate(0.9)), dirs - 1)
            placed[b][f"/var/kafka/data{k}"].append(ReplicaInfo(tp.topic, tp.partition, int(rng.lognormvariate(18, 1.5)), 0, False))
    count = sum(len(v) for d in placed.values() for v in d.values())
    total = 4 * 10**12
    log_dirs = {}
    for b, ds in placed.items():
        log_dirs[b] = []
        for path, reps in ds.items():
            used = sum(r.size for r in reps) + 10 * 10**9
            log_dirs[b].append(LogDir(b, path, None, total, total - used, False, tuple(reps)))
    for tp, bs in holders.items():
        parts[tp] = PartitionState(tp.topic, tp.partition, bs[0], tuple(bs), tuple(bs))
    cluster = ClusterState("bench", 1, {b: Broker(b, "127.0.0.1", 9092 + b) for b in placed}, parts)
    return cluster, log_dirs, count


def leader_changes_needed(current, brokers) -> int:
    """Preferred leaders that must change: those on unlisted brokers plus each broker's surplus
    over ceil(partitions / brokers)."""
    leaders = Counter(a.replicas[0] for a in current.partitions)
    high = -(-len(current.partitions) // len(brokers))
    listed = set(brokers)
    return sum(n if b not in listed else max(0, n - high) for b, n in leaders.items())


def bytes_to_balance(log_dirs) -> int:
    """Fewest bytes any plan must move to give every directory of a broker the same used
    fraction: the sum of each directory's excess over its share."""
    total = 0
    for dirs in log_dirs.values():
        occupied = [d.total_bytes - d.usable_bytes for d in dirs]
        fraction = sum(occupied) / sum(d.total_bytes for d in dirs)
        total += sum(max(0.0, o - d.total_bytes * fraction) for o, d in zip(occupied, dirs))
    return int(total)


def _timed(fn):
    """Result and wall seconds; CPU seconds are kept in ``CPU[-1]`` (steadier on a busy host)."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    CPU.append(time.process_time() - c0)
    return out, time.perf_counter() - t0


CPU: list[float] = []


def figures() -> list[Figure]:
    out: list[Figure] = []
    cluster = expansion_cluster()
    listed = sorted(cluster.brokers)
    topics = cluster.topics
    (current, proposed), secs = _timed(lambda: generate(cluster, topics, listed))
    bound = moves_lower_bound(current_assignment(cluster, topics), listed, broker_racks(cluster, listed, True))
    moved = replicas_moved(current, proposed)
    counts = Counter(b for a in proposed.partitions for b in a.replicas)
    leaders = Counter(a.replicas[0] for a in proposed.partitions)
    area = "generate 10k x RF3, 40+10 brokers"
    out += [
        Figure(area, "minimal: time", secs, "s", "< 2 s", secs < 2),
        Figure(area, "minimal: CPU time", CPU[-1], "s", ""),
        Figure(area, "minimal: replicas moved", moved, "", ""),
        Figure(area, "lower bound of moves needed", bound, "", ""),
        Figure(area, "minimal: moved / lower bound", moved / bound, "x", "<= 1.1", moved <= 1.1 * bound),
        Figure(area, "minimal: preferred leaders changed", leaders_moved(current, proposed), "", ""),
        Figure(area, "leader changes needed at least", leader_changes_needed(current, listed), "", ""),
        Figure(area, "minimal: replicas per broker max-min", max(counts.values()) - min(counts.values()), "", "<= 1"),
        Figure(area, "minimal: leaders per broker max-min", max(leaders.values()) - min(leaders.values()), "", "<= 1"),
    ]
    (kcur, kprop), ksecs = _timed(lambda: generate(cluster, topics, listed, strategy="kafka"))
    kmoved = replicas_moved(kcur, kprop)
    out += [
        Figure(area, "kafka: time", ksecs, "s", ""),
        Figure(area, "kafka: replicas moved", kmoved, "", ""),
        Figure(area, "kafka: moved / lower bound", kmoved / bound, "x", ""),
    ]

    remaining = [b for b in listed if b > 10]  # decommission brokers 1-10 (new ones stay empty)
    (dcur, dprop), dsecs = _timed(lambda: generate(cluster, topics, remaining))
    dbound = moves_lower_bound(current_assignment(cluster, topics), remaining, broker_racks(cluster, remaining, True))
    dmoved = replicas_moved(dcur, dprop)
    out += [
        Figure(area, "minimal, decommissioning brokers 1-10 instead: time", dsecs, "s", ""),
        Figure(area, "minimal, decommissioning: moved / lower bound", dmoved / dbound, "x", "<= 1.1", dmoved <= 1.1 * dbound),
    ]

    cluster, log_dirs, count = skewed_log_dirs()
    result, secs = _timed(lambda: balance_log_dirs(cluster, log_dirs))
    before, after = usage_spread(result.before), usage_spread(result.after)
    area = f"balance 50 brokers x 4 dirs x {count:,} replicas"
    out += [
        Figure(area, "time", secs, "s", "< 3 s", secs < 3),
        Figure(area, "CPU time", CPU[-1], "s", ""),
        Figure(area, "moves", len(result.moves), "", ""),
        Figure(area, "bytes moved", sum(m.size for m in result.moves) / 1e12, "TB", ""),
        Figure(area, "bytes a perfect balance needs at least", bytes_to_balance(log_dirs) / 1e12, "TB", ""),
        Figure(area, "spread before: worst broker (max-min used fraction)", max(before.values()), "", ""),
        Figure(area, "spread before: mean over brokers", statistics.mean(before.values()), "", ""),
        Figure(area, "spread after: worst broker", max(after.values()), "", "<= 0.002"),
        Figure(area, "spread after: mean over brokers", statistics.mean(after.values()), "", ""),
    ]
    limited, lsecs = _timed(lambda: balance_log_dirs(cluster, log_dirs, max_moves=500))
    out += [
        Figure(area, "--max-moves 500: time", lsecs, "s", ""),
        Figure(area, "--max-moves 500: spread after, worst broker", max(usage_spread(limited.after).values()), "", ""),
    ]
    return out


if __name__ == "__main__":
    print_figures("plan", figures())
