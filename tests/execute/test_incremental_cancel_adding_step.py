"""A step that only adds replicas, cancelled while the run watches it: brokers' Metadata shows its
full set in flight (which is its target) for a moment after the cancel, while the list of
reassignments is already empty. That must not read as the step done: the run stops (nothing sent
again), as for any cancelled step, and the same command carries on.

Seen on the 4.3 KRaft sandbox: payments-4 [3,1,2] -> step [0,1,2,3], cancelled back to [1,2,3];
the run counted step 1 done, sent step 2 and exited 0."""

from __future__ import annotations

import pytest

from kadmin.errors import ClusterError
from kadmin.execute import state_file
from kadmin.execute.incremental import IncrementalReporter, run_incremental
from kadmin.execute.incremental_tracking import StepTracker, locate
from kadmin.execute.step_throttles import RecordedThrottles
from kadmin.model import Assignment, PartitionReassignment, PartitionState, ReassignmentPlan, TopicPartition
from kadmin.plan.batches import Limits
from kadmin.plan.steps import partition_steps
from tests.support.watch import Watch

TP = TopicPartition("payments", 4)
STEPS = partition_steps(TP, (3, 1, 2), (0, 1, 2), 1)
MiB = 2**20


def metadata(replicas, isr):
    return PartitionState(TP.topic, TP.partition, 3, tuple(replicas), tuple(isr))


def test_the_steps_of_the_report():
    assert [s.after for s in STEPS] == [(0, 1, 2, 3), (0, 1, 2)]


def test_a_step_is_done_only_once_the_replicas_it_adds_are_in_sync():
    # Running, or just cancelled: the full set (= the target) with broker 0 out of the ISR.
    assert locate(STEPS, metadata((0, 1, 2, 3), (3, 1, 2)), None) == (0, STEPS[0])
    # Done: Kafka ends a reassignment once every target replica is in the ISR.
    assert locate(STEPS, metadata((0, 1, 2, 3), (3, 1, 2, 0)), None) == (1, None)
    # Cancelled, as Metadata shows it once caught up: the original set, in another order.
    assert locate(STEPS, metadata((1, 2, 3), (1, 2, 3)), None) == (0, None)
    # A step counted done stays done when one of its replicas falls out of the ISR later.
    assert locate(STEPS, metadata((0, 1, 2, 3), (3, 1, 2)), None, counted=1) == (1, None)
    # Listed: matched by its target, whatever the ISR.
    listed = PartitionReassignment(TP.topic, TP.partition, (0, 1, 2, 3), (0,), ())
    assert locate(STEPS, metadata((0, 1, 2, 3), (3, 1, 2)), listed) == (0, STEPS[0])
    # The second step done (it adds nothing): the replicas are its target.
    assert locate(STEPS, metadata((0, 1, 2), (1, 2, 0)), None, counted=1) == (2, None)


def test_a_vanished_step_whose_target_is_not_in_place_is_a_cancel(tmp_path):
    """Listed, then not listed with Metadata lagging (full set, new replica out of the ISR),
    then the original set back: never counted done, and stopped as cancelled after the grace."""
    notes: list[str] = []
    track = StepTracker(5.0, notes.append, tmp_path / "s.json")
    progress = {TP: state_file.PartitionProgress(TP, (3, 1, 2), 3, tuple(STEPS), 0, 1)}
    done: list = []

    def look(now, replicas, isr, listed=False):
        ongoing = {TP: PartitionReassignment(TP.topic, TP.partition, (0, 1, 2, 3), (0,), ())} if listed else {}
        return track.look(progress, {TP: metadata(replicas, isr)}, ongoing, now, startup=False, step_done=done.append)

    track.sent(STEPS[0], 0.0, listed_at_once=True)
    look(1.0, (0, 1, 2, 3), (3, 1, 2), listed=True)
    seen = look(2.0, (0, 1, 2, 3), (3, 1, 2))  # cancelled; the brokers' Metadata not caught up yet
    assert not seen.counts and not done and TP in track.in_flight
    look(3.0, (1, 2, 3), (1, 2, 3))  # caught up: the original set, in another order
    assert not done and track.cancelled(3.0) == []
    assert any("payments-4: step 1 is no longer running and not done (cancelled?)" in n for n in notes)
    look(9.0, (1, 2, 3), (1, 2, 3))
    assert track.cancelled(9.0) == [TP]
    assert not done


class CancelAtTheEndOfASleep(Watch):
    """Cancels every reassignment at the end of the run's sleep (once the step has copied for a
    while), so the run's next look comes before any broker's Metadata caught up with it."""

    def __init__(self, sb, backend_for):
        super().__init__(sb)
        self.backend_for = backend_for
        self.acted = False
        self.since: float | None = None

    def sleep(self, seconds: float) -> None:
        super().sleep(seconds)
        if self.acted or self.since is None or self.now() - self.since < 2.0:
            return
        self.acted = True
        other = self.backend_for()
        try:
            other.cancel_partition_reassignments(list(other.list_partition_reassignments()))
        finally:
            other.close()

    def observe(self) -> None:
        super().observe()
        if self.since is None and self.sb.snapshot().partitions[TP].reassigning:
            self.since = self.now()


def test_an_adding_step_cancelled_while_the_run_watches_stops_it_on_the_sandbox(sandbox_factory, tmp_path):
    from tests.execute.test_incremental_sandbox import Sends, backend_for

    sb = sandbox_factory(brokers=4, log_dirs=1, manual_clock=True, lag=True)
    sb.create_topic("payments", assignment={p: [3, 1, 2] for p in range(5)}, size_bytes=8 * MiB)
    plan = ReassignmentPlan((Assignment("payments", 4, (0, 1, 2)),))
    clock = CancelAtTheEndOfASleep(sb, lambda: backend_for(sb))
    path = tmp_path / "s.json"
    notes: list[str] = []

    class Notes(IncrementalReporter):
        def note(self, message):
            notes.append(message)

    backend = Sends(backend_for(sb))
    try:
        throttle = RecordedThrottles(backend, 2 * MiB, plan_id="payments-plan")
        with pytest.raises(ClusterError) as e:
            run_incremental(backend, plan, Limits(), path, Notes(), clock, throttle=throttle, poll_interval=0.5,
                            pickup_grace=5.0)
    finally:
        backend.close()
    assert clock.acted
    assert e.value.message == "1 step stopped before completing, cancelled outside this run: payments-4 step 1 of 2"
    assert backend.sent == [(TP, (0, 1, 2, 3))]  # step 2 never sent
    assert set(sb.snapshot().partitions[TP].replicas) == {3, 1, 2}
    saved = state_file.load(path)
    assert (saved.partitions[TP].completed, saved.partitions[TP].submitted) == (0, 0)

    backend = Sends(backend_for(sb))  # the same command carries on from there
    try:
        throttle = RecordedThrottles(backend, 2 * MiB, plan_id="payments-plan", records=throttle.records)
        result = run_incremental(backend, plan, Limits(), path, Notes(), Watch(sb), throttle=throttle,
                                 poll_interval=0.5, pickup_grace=5.0)
    finally:
        backend.close()
    assert result.resumed
    assert backend.sent == [(TP, (0, 1, 2, 3)), (TP, (0, 1, 2))]
    assert sb.snapshot().partitions[TP].replicas == (0, 1, 2)
