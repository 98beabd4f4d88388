"""Incremental reassignment (KIP-435) figures.

1. Planning: the steps of 100,000 partitions (RF 3, every replica moving to random brokers of
   50: the most steps per partition), and one batching round over all of them.
2. On the sandbox (manual clock, 8 brokers, fixed leader and follower throttle): 16 partitions
   of 48-80 MiB on brokers 0-3, each moving two replicas onto brokers 4-7. Incremental runs
   (one replica per partition at a time) under two sets of limits are compared with the ideal
   time (bytes each broker receives or sends / the throttled rate, the slowest broker deciding)
   and, on a fresh sandbox, with Kafka's way: everything at once.

Run: python bench/bench_incremental.py   (or `make bench`)
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.table import Figure, print_figures  # noqa: E402
from tests.support.watch import Watch  # noqa: E402  (the same instrument the tests use)

PLAN_PARTITIONS = 100_000
MiB = 2**20
RATE = 8 * MiB  # bytes/s, leader and follower throttle
SANDBOX_PARTITIONS = 16
# Tight: 4 partitions at once for 4 leaders and 4 destinations, so every broker must be kept
# busy by exactly one copy at all times. Moderate: room to overlap.
LIMIT_SETS = (
    dict(max_parallel_replicas=1, max_parallel_partitions=4, max_leader_movements=2, max_moves_per_broker=2),
    dict(max_parallel_replicas=1, max_parallel_partitions=8, max_leader_movements=4, max_moves_per_broker=3),
)


# --- planning ---------------------------------------------------------------------------------
def planning() -> list[Figure]:
    from kadmin.model import Assignment, PartitionState, ReassignmentPlan, TopicPartition
    from kadmin.plan.batches import Backlog, Limits, next_batch
    from kadmin.plan.steps import plan_steps

    rng = random.Random(7)
    parts, plan = {}, []
    for i in range(PLAN_PARTITIONS):
        tp = TopicPartition(f"t{i % 100}", i // 100)
        cur = tuple(rng.sample(range(50), 3))
        parts[tp] = PartitionState(tp.topic, tp.partition, cur[0], cur, cur)
        plan.append(Assignment(tp.topic, tp.partition, tuple(rng.sample(range(50), 3))))
    plan = ReassignmentPlan(tuple(plan))
    plan_s = cpu_s = float("inf")
    steps = None
    for _ in range(3):  # best of 3: the machine may be shared
        steps = None  # free the previous result outside the timing
        t, c = time.perf_counter(), time.process_time()
        steps = plan_steps(plan, parts, 1)
        plan_s = min(plan_s, time.perf_counter() - t)
        cpu_s = min(cpu_s, time.process_time() - c)
    n_steps = sum(len(c) for c in steps.values())
    limits = Limits(1, 1000, 100, 5)
    backlog = Backlog.of(steps)
    batch_s = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        batch = next_batch([c[0] for c in steps.values() if c], (), limits, backlog)
        batch_s = min(batch_s, time.perf_counter() - t)
    return [
        Figure("plan", f"KIP-435 steps for {PLAN_PARTITIONS:,} partitions ({n_steps:,} steps), best of 3", plan_s, "s", "< 1 s", plan_s < 1.0),
        Figure("plan", "  the same, CPU time", cpu_s, "s", "< 1 s", cpu_s < 1.0),
        Figure("plan", f"one batching round over {PLAN_PARTITIONS:,} candidates ({len(batch)} steps chosen), best of 3", batch_s, "s"),
    ]


# --- sandbox ----------------------------------------------------------------------------------
def _scenario(sb):
    from kadmin.model import Assignment, ReassignmentPlan

    rng = random.Random(3)
    current = {p: [p % 4, (p + 1) % 4, (p + 2) % 4] for p in range(SANDBOX_PARTITIONS)}
    sizes = {p: rng.randrange(48, 81) * MiB for p in current}
    for p, r in current.items():
        sb.create_topic(f"b{p}", assignment={0: r}, size_bytes=sizes[p])
    target = {p: (r[0], 4 + p % 4, 4 + (p + 1) % 4) for p, r in current.items()}
    plan = ReassignmentPlan(tuple(Assignment(f"b{p}", 0, t) for p, t in target.items()))
    # Ideal: every broker's bytes in (followers) and out (the leader, r[0], serves every copy).
    inbound, outbound = Counter(), Counter()
    for p, r in current.items():
        for b in set(target[p]) - set(r):
            inbound[b] += sizes[p]
            outbound[r[0]] += sizes[p]
    ideal = max(max(inbound.values()), max(outbound.values())) / RATE
    return plan, target, ideal, sum(inbound.values())


def _backend(sb):
    from kadmin.backends.admin import AdminBackend
    from kadmin.config import ConnectionSettings

    return AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=10.0), read_only=False)


def _one_shot_steps(backend, plan):
    """The whole plan as one step per partition (Kafka's way), for the same throttle lists."""
    from kadmin.plan.steps import Step

    cluster = backend.describe_cluster()
    out = {}
    for a in plan.partitions:
        p = cluster.partitions[a.tp]
        out[a.tp] = (Step(a.tp, 1, 1, tuple(p.replicas), tuple(a.replicas), p.leader, p.leader),)
    return out


def _incremental(limits):
    from kadmin.execute.incremental import run_incremental
    from kadmin.execute.step_throttles import RecordedThrottles
    from kadmin.sandbox import Sandbox

    with Sandbox(brokers=8, log_dirs=1, manual_clock=True) as sb:
        plan, target, ideal, moved = _scenario(sb)
        watch = Watch(sb)
        backend = _backend(sb)
        try:
            with tempfile.TemporaryDirectory() as tmp:
                throttle = RecordedThrottles(backend, RATE, plan_id="bench-incremental")
                t0 = time.perf_counter()
                result = run_incremental(backend, plan, limits, Path(tmp) / "state.json", clock=watch,
                                         throttle=throttle, poll_interval=0.5)
                wall = time.perf_counter() - t0
        finally:
            backend.close()
        snap = sb.snapshot()
        assert {tp.topic: p.replicas for tp, p in snap.partitions.items()} == {f"b{p}": t for p, t in target.items()}
    held = (watch.peak["partitions"] <= limits.max_parallel_partitions
            and watch.peak["per_broker"] <= limits.max_moves_per_broker
            and watch.peak["leader_movements"] <= limits.max_leader_movements
            and watch.peak["adding_per_partition"] <= limits.max_parallel_replicas)
    name = (f"incremental R{limits.max_parallel_replicas} P{limits.max_parallel_partitions} "
            f"L{limits.max_leader_movements} B{limits.max_moves_per_broker}")
    inc = result.elapsed
    return ideal, moved, [
        Figure("sandbox", f"{name}: total time", inc, "s (simulated)"),
        Figure("sandbox", f"{name}: / ideal", inc / ideal, "x", "<= 1.10x", inc / ideal <= 1.10),
        Figure("sandbox", f"{name}: every limit held at every 0.25 s tick (1 = yes)", float(held), "", "1", held),
        Figure("sandbox", f"{name}: peak replicas moving at once", watch.peak["replicas"], "replicas"),
        Figure("sandbox", f"{name}: peak partitions moving at once", watch.peak["partitions"], "partitions"),
        Figure("sandbox", f"{name}: peak moves on one broker", watch.peak["per_broker"], "moves"),
        Figure("sandbox", f"{name}: peak extra replicas per partition", watch.peak["extra_per_partition"], "replicas"),
        Figure("sandbox", f"{name}: batches sent; wall-clock {wall:.1f} s", result.batches, "batches"),
    ]


def _all_at_once():
    from kadmin.execute.step_throttles import RecordedThrottles
    from kadmin.sandbox import Sandbox

    with Sandbox(brokers=8, log_dirs=1, manual_clock=True) as sb:
        plan, target, ideal, _ = _scenario(sb)
        watch = Watch(sb)
        backend = _backend(sb)
        try:
            RecordedThrottles(backend, RATE, plan_id="bench-all-at-once").apply(_one_shot_steps(backend, plan))
            start = watch.now()
            backend.reassign_partitions(list(plan.partitions))
            watch.observe()
            while backend.list_partition_reassignments():
                watch.sleep(0.5)
            once = watch.now() - start
        finally:
            backend.close()
    return [
        Figure("sandbox", "all at once (Kafka's way): total time", once, "s (simulated)"),
        Figure("sandbox", "all at once: / ideal", once / ideal, "x"),
        Figure("sandbox", "all at once: peak replicas moving at once", watch.peak["replicas"], "replicas"),
        Figure("sandbox", "all at once: peak moves on one broker", watch.peak["per_broker"], "moves"),
        Figure("sandbox", "all at once: peak extra replicas per partition", watch.peak["extra_per_partition"], "replicas"),
    ]


def sandbox_runs() -> list[Figure]:
    from kadmin.plan.batches import Limits

    runs = [_incremental(Limits(**kw)) for kw in LIMIT_SETS]
    ideal, moved, _ = runs[0]
    label = f"{SANDBOX_PARTITIONS} partitions, {moved / MiB:,.0f} MiB copied, throttle {RATE // MiB} MiB/s"
    figures = [Figure("sandbox", f"ideal time ({label})", ideal, "s (simulated)")]
    for _, _, figs in runs:
        figures += figs
    return figures + _all_at_once()


def figures() -> list[Figure]:
    return planning() + sandbox_runs()


if __name__ == "__main__":
    print_figures("incremental", figures())
