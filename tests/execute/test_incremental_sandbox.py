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


class ActWhileMoving(Watch):
    """Calls ``act(now)`` once, when ``tp`` has been reassigning for ``after`` simulated seconds;
    and keeps, per partition, the simulated seconds during which it was seen reassigning."""

    def __init__(self, sb, tp: TopicPartition, after: float, act):
        super().__init__(sb)
        self.tp, self.after, self.act = tp, after, act
        self.acted = False
        self.moving: dict[TopicPartition, list[float]] = {}

    def observe(self) -> None:
        super().observe()
        now = self.now()
        snap = self.sb.snapshot()
        for tp, p in snap.partitions.items():
            if p.reassigning:
                self.moving.setdefault(tp, []).append(now)
        seen = self.moving.get(self.tp)
        if not self.acted and seen and now - seen[0] >= self.after:
            self.acted = True
            self.act(now)
        assert now < 600, "the run did not end"

    def seconds_moving(self, tp: TopicPartition) -> float:
        seen = self.moving.get(tp, [])
        return seen[-1] - seen[0] + self.tick if seen else 0.0


def payments(sandbox_factory, **kwargs):
    """The operators' example: 4 brokers; payments-0 on [1,0,2] and payments-3 on [0,1,2], each
    gaining broker 3 in place of 2, one partition at a time."""
    sb = sandbox_factory(brokers=4, log_dirs=1, manual_clock=True, **kwargs)
    sb.create_topic(
        "payments", assignment={0: [1, 0, 2], 1: [2, 1, 0], 2: [0, 2, 1], 3: [0, 1, 2]}, size_bytes=8 * MiB
    )
    plan = ReassignmentPlan((Assignment("payments", 0, (1, 0, 3)), Assignment("payments", 3, (0, 1, 3))))
    return sb, plan


P0, P3 = TopicPartition("payments", 0), TopicPartition("payments", 3)
SLOW = 2 * MiB  # 8 MiB at 2 MiB/s: 4 s a step


def test_a_verify_during_the_run_leaves_every_later_step_throttled(sandbox_factory, tmp_path):
    """`reassign verify` in the middle of batch 1 keeps only what the running step needs (it
    removed the follower entry 3:3 of payments-3); batch 2 still copies at the throttled rate."""
    from kadmin.execute.verification import run_verify
    from kadmin.throttling.stores import MemoryRecordStore

    sb, plan = payments(sandbox_factory)
    store = MemoryRecordStore()
    removed = []

    def verify(now):
        other = backend_for(sb)
        try:
            outcome = run_verify(other, plan, plan_id="payments-plan", records=store)
        finally:
            other.close()
        removed.append(outcome.removal)

    watch = ActWhileMoving(sb, P0, after=1.0, act=verify)
    backend = backend_for(sb)
    notes = []

    class Notes(IncrementalReporter):
        def note(self, message):
            notes.append(message)

    try:
        throttle = RecordedThrottles(backend, SLOW, plan_id="payments-plan", records=store)
        run_incremental(backend, plan, Limits(max_parallel_partitions=1), tmp_path / "s.json", Notes(), watch,
                        throttle=throttle, poll_interval=0.5)
    finally:
        backend.close()
    assert watch.acted and removed[0] is not None
    assert "3:3" in removed[0].removed_entries["payments"]["follower.replication.throttled.replicas"]
    snap = sb.snapshot()
    assert snap.partitions[P0].replicas == (1, 0, 3) and snap.partitions[P3].replicas == (0, 1, 3)
    # Both steps copied 8 MiB at 2 MiB/s (unthrottled: 100 MiB/s, well under a second).
    assert watch.seconds_moving(P0) >= 3.5 and watch.seconds_moving(P3) >= 3.5
    assert any("payments follower.replication.throttled.replicas=" in n and "3:3" in n for n in notes)
    # Set again, recorded again: removed at the end with the rest.
    assert not snap.topic_configs["payments"].get("follower.replication.throttled.replicas")
    assert not any(c.get("follower.replication.throttled.rate") for c in snap.broker_configs.values())
    assert store.load_all() == {}


def test_a_step_cancelled_during_the_run_stops_it_and_the_same_run_again_finishes(sandbox_factory, tmp_path):
    """`reassign cancel --all` while the run goes on: the run stops with an error naming the
    partition (it does not wait for ever, nor undo the cancel); run again, it carries on."""
    from kadmin.errors import ClusterError

    sb, plan = payments(sandbox_factory, lag=True)  # brokers' Metadata catches up late, as Kafka's do

    def cancel(now):
        other = backend_for(sb)
        try:
            other.cancel_partition_reassignments(list(other.list_partition_reassignments()))
        finally:
            other.close()

    watch = ActWhileMoving(sb, P0, after=1.0, act=cancel)
    path = tmp_path / "s.json"
    backend = backend_for(sb)
    try:
        throttle = RecordedThrottles(backend, SLOW, plan_id="payments-plan")
        with pytest.raises(ClusterError) as e:
            run_incremental(backend, plan, Limits(max_parallel_partitions=1), path, clock=watch, throttle=throttle,
                            poll_interval=0.5, pickup_grace=5.0)
    finally:
        backend.close()
    assert watch.acted
    assert e.value.message == "1 step stopped before completing, cancelled outside this run: payments-0 step 1 of 1"
    snap = sb.snapshot()
    assert snap.partitions[P0].replicas == (1, 0, 2) and snap.partitions[P3].replicas == (0, 1, 2)
    assert snap.topic_configs["payments"].get("follower.replication.throttled.replicas")  # kept for the rerun

    notes = []

    class Notes(IncrementalReporter):
        def note(self, message):
            notes.append(message)

    backend = backend_for(sb)
    try:
        throttle = RecordedThrottles(backend, SLOW, plan_id="payments-plan", records=throttle.records)
        result = run_incremental(backend, plan, Limits(max_parallel_partitions=1), path, Notes(), watch,
                                 throttle=throttle, poll_interval=0.5, pickup_grace=5.0)
    finally:
        backend.close()
    assert result.resumed
    snap = sb.snapshot()
    assert snap.partitions[P0].replicas == (1, 0, 3) and snap.partitions[P3].replicas == (0, 1, 3)
    assert not [n for n in notes if "not taken up" in n or "no longer running" in n]  # Metadata's lag is no cancel
    assert not snap.topic_configs["payments"].get("follower.replication.throttled.replicas")


def test_a_step_cancelled_before_the_run_saw_it_running_is_not_sent_again(sandbox_factory, tmp_path):
    """`reassign cancel` landing right after a batch is sent, before the run's next look: over
    AdminClient an accepted step is listed at once, so one neither listed nor done was cancelled.
    The run stops (exit 1 at the command line) instead of sending it again after pickup_grace."""
    from kadmin.errors import ClusterError

    sb, plan = payments(sandbox_factory, lag=True)
    notes = []

    class CancelBatch2(IncrementalReporter):
        def batch(self, number, steps):
            if number == 2:  # what `reassign cancel --reassignment-json-file plan.json` does, at once
                other = backend_for(sb)
                try:
                    other.cancel_partition_reassignments([s.tp for s in steps])
                finally:
                    other.close()

        def note(self, message):
            notes.append(message)

    path = tmp_path / "s.json"
    backend = Sends(backend_for(sb))
    try:
        throttle = RecordedThrottles(backend, SLOW, plan_id="payments-plan")
        with pytest.raises(ClusterError) as e:
            run_incremental(backend, plan, Limits(max_parallel_partitions=1), path, CancelBatch2(), Watch(sb),
                            throttle=throttle, poll_interval=0.5, pickup_grace=5.0)
    finally:
        backend.close()
    assert e.value.message == "1 step stopped before completing, cancelled outside this run: payments-3 step 1 of 1"
    assert [tp for tp, _ in backend.sent] == [P0, P3]  # the cancelled step was sent once
    assert not [n for n in notes if "not taken up" in n]
    assert any("payments-3: step 1 was accepted but is neither running nor done (cancelled?)" in n for n in notes)
    snap = sb.snapshot()
    assert snap.partitions[P0].replicas == (1, 0, 3) and snap.partitions[P3].replicas == (0, 1, 2)
    saved = state_file.load(path)
    assert (saved.partitions[P3].completed, saved.partitions[P3].submitted) == (0, 0)  # a rerun sends it at once
