"""The incremental executor against the emulated cluster, over the real wire protocol.

The sandbox runs on a manual clock; the executor's clock advances it in small ticks and takes a
snapshot after each, so the tests see the concurrency the cluster itself shows (adding replicas
per partition, partitions moving, replicas moving into or out of each broker) at every moment.
"""

from __future__ import annotations


import pytest

from kadmin.execute import state_file
from kadmin.execute.incremental import IncrementalReporter, run_incremental
from kadmin.execute.step_throttles import RecordedThrottles
from kadmin.model import Assignment, ReassignmentPlan, TopicPartition
from kadmin.plan.batches import Limits
from kadmin.plan.steps import partition_steps
from tests.support.watch import Watch

MiB = 2**20
RATE = 4 * MiB  # leader and follower throttle, bytes/s per broker


class Sends:
    """Wraps a backend to log every step sent."""

    def __init__(self, backend):
        self._b = backend
        self.sent: list[tuple[TopicPartition, tuple[int, ...]]] = []
        self.calls = 0

    def __getattr__(self, name):
        return getattr(self._b, name)

    def reassign_partitions(self, assignments, validate_only=False):
        answer = self._b.reassign_partitions(assignments, validate_only)
        self.calls += 1
        self.sent += [(a.tp, tuple(a.replicas)) for a in assignments]
        return answer


class StopAfter(IncrementalReporter):
    def __init__(self, batches: int):
        self.batches = batches

    def batch(self, number, steps):
        if number >= self.batches:
            raise KeyboardInterrupt


def backend_for(sb):
    from kadmin.backends.admin import AdminBackend
    from kadmin.config import ConnectionSettings

    return AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=10.0), read_only=False)


def cluster(sandbox_factory, partitions: int = 9):
    """6 brokers; topic t on brokers 0-2, leader first; each partition moves to 3-5 (all three
    replicas for every third partition, one replica for the others)."""
    sb = sandbox_factory(brokers=6, log_dirs=1, manual_clock=True)
    current = {p: [p % 3, (p + 1) % 3, (p + 2) % 3] for p in range(partitions)}
    sb.create_topic("t", assignment=current, size_bytes=8 * MiB)
    target = {
        p: (3 + p % 3, 3 + (p + 1) % 3, 3 + (p + 2) % 3) if p % 3 == 0 else (r[0], r[1], 3 + p % 3)
        for p, r in current.items()
    }
    plan = ReassignmentPlan(tuple(Assignment("t", p, r) for p, r in target.items()))
    return sb, current, target, plan


def planned(current, target, r=1):
    return {
        TopicPartition("t", p): [s.after for s in partition_steps(TopicPartition("t", p), current[p], target[p], r)]
        for p in current
    }


def test_limits_hold_in_what_the_sandbox_sees(sandbox_factory, tmp_path):
    sb, current, target, plan = cluster(sandbox_factory)
    limits = Limits(max_parallel_replicas=1, max_parallel_partitions=3, max_leader_movements=1, max_moves_per_broker=2)
    watch = Watch(sb)
    backend = Sends(backend_for(sb))
    try:
        throttle = RecordedThrottles(backend, RATE, plan_id="sandbox-test")
        run_incremental(backend, plan, limits, tmp_path / "s.json", clock=watch, throttle=throttle, poll_interval=0.5)
    finally:
        backend.close()
    snap = sb.snapshot()
    assert {tp.partition: p.replicas for tp, p in snap.partitions.items()} == target
    assert watch.samples > 20
    assert watch.peak["partitions"] <= 3
    assert watch.peak["per_broker"] <= 2
    assert watch.peak["leader_movements"] <= 1
    assert watch.peak["adding_per_partition"] == 1
    # Each step sent once, in order.
    sent: dict[TopicPartition, list] = {}
    for tp, replicas in backend.sent:
        sent.setdefault(tp, []).append(replicas)
    assert sent == planned(current, target)
    # Throttles removed at the end.
    assert not any(snap.topic_configs["t"].get(k) for k in ("leader.replication.throttled.replicas", "follower.replication.throttled.replicas"))
    assert not any(c.get("follower.replication.throttled.rate") for c in snap.broker_configs.values())


def test_interrupted_run_resumes_without_repeating_or_skipping(sandbox_factory, tmp_path):
    sb, current, target, plan = cluster(sandbox_factory)
    limits = Limits(max_parallel_partitions=4, max_moves_per_broker=2)
    path = tmp_path / "s.json"
    watch = Watch(sb)
    first = Sends(backend_for(sb))
    try:
        throttle = RecordedThrottles(first, RATE, plan_id="resume-test")
        with pytest.raises(KeyboardInterrupt):
            run_incremental(first, plan, limits, path, StopAfter(3), watch, throttle=throttle, poll_interval=0.5)
    finally:
        first.close()
    assert state_file.load(path).batches == 3
    # Throttles stay while the run is interrupted; the cluster carries on meanwhile.
    assert sb.snapshot().topic_configs["t"].get("follower.replication.throttled.replicas")
    watch.sleep(3.0)
    second = Sends(backend_for(sb))
    try:
        throttle = RecordedThrottles(second, RATE, plan_id="resume-test", records=throttle.records)
        result = run_incremental(second, plan, limits, path, clock=watch, throttle=throttle, poll_interval=0.5)
    finally:
        second.close()
    assert result.resumed
    snap = sb.snapshot()
    assert {tp.partition: p.replicas for tp, p in snap.partitions.items()} == target
    sent: dict[TopicPartition, list] = {}
    for tp, replicas in first.sent + second.sent:
        sent.setdefault(tp, []).append(replicas)
    assert sent == planned(current, target)
    assert not snap.topic_configs["t"].get("follower.replication.throttled.replicas")
    assert watch.peak["partitions"] <= 4 and watch.peak["per_broker"] <= 2


class RestartingWatch(Watch):
    """Stops a broker at one simulated time and starts it again at another."""

    def __init__(self, sb, broker: int, down_at: float, up_at: float):
        super().__init__(sb)
        self.broker, self.down_at, self.up_at = broker, down_at, up_at
        self.state = "up"

    def observe(self) -> None:
        super().observe()
        now = self.now()
        if self.state == "up" and now >= self.down_at:
            self.sb.faults.broker_stop(self.broker)
            self.state = "down"
        elif self.state == "down" and now >= self.up_at:
            self.sb.faults.broker_start(self.broker)
            self.state = "restarted"


def test_broker_restart_during_the_run(sandbox_factory, tmp_path):
    sb, current, target, plan = cluster(sandbox_factory)
    limits = Limits(max_parallel_partitions=3, max_moves_per_broker=2)
    watch = RestartingWatch(sb, broker=4, down_at=3.0, up_at=12.0)
    backend = Sends(backend_for(sb))
    try:
        throttle = RecordedThrottles(backend, RATE, plan_id="restart-test")
        run_incremental(backend, plan, limits, tmp_path / "s.json", clock=watch, throttle=throttle, poll_interval=0.5)
    finally:
        backend.close()
    assert watch.state == "restarted"
    snap = sb.snapshot()
    assert {tp.partition: p.replicas for tp, p in snap.partitions.items()} == target
    sent: dict[TopicPartition, list] = {}
    for tp, replicas in backend.sent:
        sent.setdefault(tp, []).append(replicas)
    assert sent == planned(current, target)
    assert watch.peak["partitions"] <= 3 and watch.peak["per_broker"] <= 2
