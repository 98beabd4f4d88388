"""Progress figures: one refresh of `reassign progress` over 10,000 moving partitions, and its
table drawn.

The refresh is the pure part (index DescribeLogDirs, one row per replica, rates against the
previous snapshot) plus the JSON document; the RPCs are measured by the CLI benchmarks.
Each partition moves from 3 brokers to 3 others of 24 (60,000 rows), with sizes on every
replica; half of broker 1's replicas also move between its directories.

Run: python bench/bench_progress.py   (or `make bench`)
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.table import Figure, print_figures  # noqa: E402

PARTITIONS = 10_000
BROKERS = 24


def _inputs(copied: int):
    from kadmin.backends.base import BrokerLogDirs
    from kadmin.model import (
        Broker, ClusterState, LogDir, PartitionReassignment, PartitionState, ReplicaInfo, TopicPartition)

    parts, ongoing, by_broker = {}, {}, {b: [] for b in range(BROKERS)}
    for i in range(PARTITIONS):
        topic, p = f"t{i % 50}", i // 50
        src = tuple((i + k) % BROKERS for k in range(3))
        dst = tuple((i + 12 + k) % BROKERS for k in range(3))
        tp = TopicPartition(topic, p)
        parts[tp] = PartitionState(topic, p, src[0], dst + src, src, adding=dst, removing=src)
        ongoing[tp] = PartitionReassignment(topic, p, dst + src, dst, src)
        for b in src:
            by_broker[b].append(ReplicaInfo(topic, p, 100_000_000, 0, False))
        for b in dst:
            by_broker[b].append(ReplicaInfo(topic, p, copied, 0, False))
    log_dirs = {
        b: BrokerLogDirs(b, (LogDir(b, "/d1", replicas=tuple(reps)),
                             LogDir(b, "/d2", replicas=tuple(ReplicaInfo(r.topic, r.partition, copied // 2, 10, True)
                                                             for r in reps[::2]) if b == 1 else ())))
        for b, reps in by_broker.items()
    }
    cluster = ClusterState("bench", 0, {b: Broker(b, "127.0.0.1", 9000 + b) for b in range(BROKERS)}, parts)
    end_offsets = {tp: 1_000_000 for tp in parts}
    return cluster, ongoing, log_dirs, end_offsets


def figures() -> list[Figure]:
    from kadmin.execute.progress import snapshot, snapshot_json

    cluster, ongoing, dirs1, offsets = _inputs(40_000_000)
    _, _, dirs2, _ = _inputs(42_000_000)
    first = snapshot(0.0, cluster, ongoing, dirs1, end_offsets=offsets)
    walls, cpus, json_walls = [], [], []
    for i in range(5):
        t0, c0 = time.perf_counter(), time.process_time()
        s = snapshot(2.0 + i, cluster, ongoing, dirs2, end_offsets=offsets, previous=first)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        t0 = time.perf_counter()
        snapshot_json(s)
        json_walls.append(time.perf_counter() - t0)
    wall = statistics.median(walls)
    rows = len(s.replicas)
    total = wall + statistics.median(json_walls)
    table = _table_seconds(s)
    return [
        Figure("progress", f"refresh, {PARTITIONS:,} moving partitions ({rows:,} rows), median of 5", wall, "s",
               "< 1 s", wall < 1.0),
        Figure("progress", "refresh, CPU time (not slowed by other processes)", statistics.median(cpus), "s", "", None),
        Figure("progress", "refresh + JSON snapshot", total, "s", "< 1 s", total < 1.0),
        Figure("progress", "moving replicas in the snapshot", s.totals.moving_replicas, "", "", None),
        Figure("progress", "the table drawn (what moves, the rest counted), median of 3", table, "s", "< 1 s", table < 1.0),
    ]


def _table_seconds(snap) -> float:
    """The one-shot table (`reassign progress` without --output json) drawn to a wide console."""
    import io

    from rich.console import Console

    from kadmin.commands.render_progress import progress_table

    walls = []
    for _ in range(3):
        t0 = time.perf_counter()
        Console(file=io.StringIO(), width=200, color_system=None).print(progress_table(snap))
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls)


if __name__ == "__main__":
    print_figures("progress", figures())
