"""The incremental executor against an in-memory fake backend: order, limits, resume, throttles."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmin.errors import ClusterError, UsageError
from kadmin.execute import state_file
from kadmin.execute.incremental import IncrementalReporter, run_incremental
from kadmin.execute.step_throttles import RecordedThrottles
from kadmin.model import Assignment, ConfigResourceType, ReassignmentPlan, TopicPartition
from kadmin.plan.batches import Limits
from kadmin.plan.steps import partition_steps
from tests.execute.fakes_incremental import FakeBackend, FakeClock

KIP_TP = TopicPartition("foo", 0)


class Recorder(IncrementalReporter):
    def __init__(self, stop_after_batch: int | None = None, on_batch=None):
        self.stop_after_batch = stop_after_batch
        self.on_batch = on_batch
        self.batches: list[list] = []
        self.done: list = []
        self.progress_seen: list = []
        self.notes: list[str] = []
        self.throttle_events: list[tuple[str, int]] = []
        self.broker_events: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        self.final = None

    def batch(self, number, steps):
        self.batches.append(list(steps))
        if self.on_batch:
            self.on_batch(number, steps)
        if self.stop_after_batch is not None and len(self.batches) >= self.stop_after_batch:
            raise KeyboardInterrupt

    def step_done(self, step):
        self.done.append(step)

    def progress(self, progress):
        self.progress_seen.append(progress)

    def note(self, message):
        self.notes.append(message)

    def throttles(self, action, changes):
        self.throttle_events.append((action, changes))

    def brokers(self, down, back):
        self.broker_events.append((tuple(down), tuple(back)))

    def finished(self, progress):
        self.final = progress


def plan_of(moves: dict[TopicPartition, tuple[int, ...]]) -> ReassignmentPlan:
    return ReassignmentPlan(tuple(Assignment(tp.topic, tp.partition, r) for tp, r in moves.items()))


def many(n: int = 12):
    """n partitions on brokers 0-2 moving (one or two replicas each) towards brokers 3-5."""
    current = {TopicPartition("t", i): (i % 3, (i + 1) % 3, (i + 2) % 3) for i in range(n)}
    target = {
        tp: ((r[0], 3 + tp.partition % 3, r[2]) if tp.partition % 2 else (3 + tp.partition % 3, r[0], 3 + (tp.partition + 1) % 3))
        for tp, r in current.items()
    }
    return current, target


def submitted_sequences(fake: FakeBackend) -> dict[TopicPartition, list[tuple[int, ...]]]:
    out: dict[TopicPartition, list[tuple[int, ...]]] = {}
    for call in fake.calls:
        for tp, replicas in call:
            out.setdefault(tp, []).append(replicas)
    return out


def test_kip_example_runs_step_by_step(tmp_path):
    fake = FakeBackend(range(10), {KIP_TP: (0, 1, 2, 3, 4)})
    path = tmp_path / "state.json"
    result = run_incremental(
        fake, plan_of({KIP_TP: (5, 6, 7, 8, 9)}), Limits(max_parallel_replicas=2), path, clock=FakeClock(fake)
    )
    assert fake.calls == [
        [(KIP_TP, (5, 0, 1, 2, 3, 4))],
        [(KIP_TP, (5, 6, 2, 3, 4))],
        [(KIP_TP, (5, 6, 7, 8, 4))],
        [(KIP_TP, (5, 6, 7, 8, 9))],
    ]
    assert fake.assignment()[KIP_TP] == (5, 6, 7, 8, 9)
    assert fake.parts[KIP_TP].leader == 5
    assert fake.peaks["adding_per_partition"] == 2
    assert (result.steps_total, result.steps_run, result.batches, result.resumed) == (4, 4, 4, False)
    saved = json.loads(path.read_text())
    assert saved["finished"] is True and saved["partitions"][0]["completed"] == 4


@pytest.mark.parametrize("backend_name", ["admin", "zookeeper"])
def test_limits_hold_and_every_partition_reaches_its_target(tmp_path, backend_name):
    current, target = many(12)
    sizes = {tp: 1000 * (1 + tp.partition % 4) for tp in current}
    fake = FakeBackend(range(6), current, sizes=sizes, name=backend_name)
    limits = Limits(max_parallel_replicas=1, max_parallel_partitions=3, max_leader_movements=1, max_moves_per_broker=2)
    rec = Recorder()
    run_incremental(fake, plan_of(target), limits, tmp_path / "s.json", rec, FakeClock(fake))
    assert fake.assignment() == target
    assert fake.peaks["partitions"] <= 3
    assert fake.peaks["per_broker"] <= 2
    assert fake.peaks["leader_movements"] <= 1
    assert fake.peaks["adding_per_partition"] == 1
    # Each partition's steps were sent once each, in order, and they are the planned ones.
    for tp, seq in submitted_sequences(fake).items():
        assert seq == [s.after for s in partition_steps(tp, current[tp], target[tp], 1)]
    if backend_name == "zookeeper":
        assert not [n for n in rec.notes if "previous batch" in n]  # never wrote over a running batch
        assert len(fake.calls) == len(rec.batches)


def test_rolling_batches_beat_waiting_for_the_whole_batch(tmp_path):
    # Partitions of very different sizes: the AdminClient path starts the next step as soon as
    # one finishes; ZooKeeper has to wait for the slowest of the batch.
    current, target = many(12)
    sizes = {tp: 1000 * (1 + 7 * (tp.partition % 2)) for tp in current}
    limits = Limits(max_parallel_partitions=4, max_moves_per_broker=3)
    times = {}
    for name in ("admin", "zookeeper"):
        fake = FakeBackend(range(6), current, sizes=sizes, name=name)
        clock = FakeClock(fake)
        run_incremental(fake, plan_of(target), limits, tmp_path / f"{name}.json", clock=clock, poll_interval=0.5)
        assert fake.assignment() == target
        times[name] = clock.now()
    assert times["admin"] < times["zookeeper"]


def test_resume_after_interrupt_repeats_and_skips_nothing(tmp_path):
    current, target = many(10)
    fake = FakeBackend(range(6), current)
    clock = FakeClock(fake)
    path = tmp_path / "state.json"
    limits = Limits(max_parallel_partitions=3, max_moves_per_broker=2)
    with pytest.raises(KeyboardInterrupt):
        run_incremental(fake, plan_of(target), limits, path, Recorder(stop_after_batch=2), clock)
    first_calls = len(fake.calls)
    assert first_calls == 2 and fake.assignment() != target
    saved = state_file.load(path)
    assert saved is not None and not saved.finished and saved.batches == 2
    clock.sleep(3.0)  # the cluster goes on while nobody watches
    rec = Recorder()
    result = run_incremental(fake, plan_of(target), limits, path, rec, clock)
    assert result.resumed
    assert fake.assignment() == target
    for tp, seq in submitted_sequences(fake).items():
        assert seq == [s.after for s in partition_steps(tp, current[tp], target[tp], 1)], tp
    assert state_file.load(path).runs == 2


def test_a_resumed_run_counts_the_steps_the_cluster_finished_while_nobody_watched(tmp_path):
    """"Resuming: ...; N done." counts what the cluster finished since the state was last
    saved, not the saved counts (the operator saw "0 done." and then "Batch 2")."""
    current, target = many(4)
    fake = FakeBackend(range(6), current)
    clock = FakeClock(fake)
    path = tmp_path / "state.json"
    limits = Limits(max_parallel_partitions=2)
    with pytest.raises(KeyboardInterrupt):
        run_incremental(fake, plan_of(target), limits, path, Recorder(stop_after_batch=1), clock)
    assert state_file.load(path).steps_completed == 0
    clock.sleep(10.0)  # the first batch finishes while nobody watches

    class Planned(Recorder):
        def planned(self, state, resumed):
            self.planned_done = (state.steps_completed, resumed)

    rec = Planned()
    run_incremental(fake, plan_of(target), limits, path, rec, clock)
    assert rec.planned_done == (2, True)


class CrashAfterSending(FakeBackend):
    """The process dies right after the controller accepted a batch, before the state is saved."""

    crash_on_call = 2

    def reassign_partitions(self, assignments, validate_only=False):
        answer = super().reassign_partitions(assignments, validate_only)
        if len(self.calls) == self.crash_on_call:
            self.crash_on_call = None
            raise SystemExit("killed")
        return answer


def test_resume_after_crash_between_send_and_save(tmp_path):
    current, target = many(8)
    fake = CrashAfterSending(range(6), current, sizes={tp: 4000 for tp in current})
    clock = FakeClock(fake)
    path = tmp_path / "state.json"
    limits = Limits(max_parallel_partitions=2)
    with pytest.raises(SystemExit):
        run_incremental(fake, plan_of(target), limits, path, clock=clock)
    assert state_file.load(path).batches == 1  # the second batch was sent but not recorded
    run_incremental(fake, plan_of(target), limits, path, clock=clock)
    assert fake.assignment() == target
    for tp, seq in submitted_sequences(fake).items():
        assert seq == [s.after for s in partition_steps(tp, current[tp], target[tp], 1)], tp


def test_broker_restart_while_waiting_is_tolerated(tmp_path):
    current, target = many(4)
    fake = FakeBackend(range(6), current)

    def restart(number, steps):
        if number == 1:
            fake.fail_reads = 4

    rec = Recorder(on_batch=restart)
    run_incremental(fake, plan_of(target), Limits(), tmp_path / "s.json", rec, FakeClock(fake))
    assert fake.assignment() == target
    assert sum("retrying" in n for n in rec.notes) == 4


def test_a_destination_broker_down_mid_run_is_named_once_waited_for_and_named_back(tmp_path):
    """Broker 3, a destination of the first step, stops while it runs and is back 30 s later:
    the run says so once when it first sees it down and once when it is back; meanwhile its
    progress says it waits for it (no ETA: the step cannot end without it), and it finishes."""
    tp = TopicPartition("t", 0)
    fake = FakeBackend(range(4), {tp: (0, 1, 2)}, sizes={tp: 10_000}, rate=100)
    clock = FakeClock(fake)
    rec = Recorder()
    real_sleep = clock.sleep

    def sleep(seconds):
        real_sleep(seconds)
        if fake.parts[tp].target is not None and not rec.broker_events and not fake.down:
            fake.down.add(3)  # the first look after the step was sent sees broker 3 down
            clock.down_at = clock.t
        elif fake.down and clock.t - clock.down_at >= 30:
            fake.down.clear()

    clock.sleep = sleep
    run_incremental(fake, plan_of({tp: (0, 1, 3)}), Limits(), tmp_path / "s.json", rec, clock, progress_interval=1.0)
    assert fake.assignment()[tp] == (0, 1, 3)
    assert rec.broker_events == [((3,), ()), ((), (3,))]
    waiting = [p for p in rec.progress_seen if p.waiting_for]
    assert len(waiting) >= 20 and all(p.waiting_for == (3,) and p.eta_seconds is None for p in waiting)
    assert not rec.final.waiting_for


def test_a_broker_down_that_no_step_left_needs_is_not_named(tmp_path):
    """Broker 2 is down but only a source the plan removes: Kafka ends the step without it,
    so the run neither names it nor says it waits."""
    tp = TopicPartition("t", 0)
    fake = FakeBackend(range(4), {tp: (0, 1, 2)})
    fake.down.add(2)
    rec = Recorder()
    run_incremental(fake, plan_of({tp: (0, 1, 3)}), Limits(), tmp_path / "s.json", rec, FakeClock(fake))
    assert fake.assignment()[tp] == (0, 1, 3)
    assert rec.broker_events == [] and not any(p.waiting_for for p in rec.progress_seen)


def test_second_run_after_finishing_changes_nothing(tmp_path):
    current, target = many(4)
    fake = FakeBackend(range(6), current)
    path = tmp_path / "s.json"
    run_incremental(fake, plan_of(target), Limits(), path, clock=FakeClock(fake))
    calls = len(fake.calls)
    result = run_incremental(fake, plan_of(target), Limits(), path, clock=FakeClock(fake))
    assert len(fake.calls) == calls and result.steps_run == 0 and result.steps_total == 0
    assert not result.resumed  # a finished run is history: planned again, nothing to do


def test_plan_run_again_after_a_rollback_is_planned_afresh(tmp_path):
    current, target = many(4)
    fake = FakeBackend(range(6), current)
    path = tmp_path / "s.json"
    run_incremental(fake, plan_of(target), Limits(), path, clock=FakeClock(fake))
    for tp, replicas in current.items():  # someone rolls back by hand (leader at the head)
        fake.parts[tp].replicas, fake.parts[tp].leader = replicas, replicas[0]
    fake.calls.clear()
    result = run_incremental(fake, plan_of(target), Limits(), path, clock=FakeClock(fake))
    assert not result.resumed and fake.assignment() == target
    assert submitted_sequences(fake) == {
        tp: [s.after for s in partition_steps(tp, current[tp], target[tp], 1)] for tp in current if current[tp] != target[tp]
    }


def test_state_file_of_another_plan_is_refused(tmp_path):
    current, target = many(4)
    fake = FakeBackend(range(6), current)
    path = tmp_path / "s.json"
    with pytest.raises(KeyboardInterrupt):
        run_incremental(fake, plan_of(target), Limits(), path, Recorder(stop_after_batch=1), FakeClock(fake))
    other = dict(target)
    other[TopicPartition("t", 0)] = (5, 4, 3)
    with pytest.raises(UsageError, match="belongs to another plan"):
        run_incremental(fake, plan_of(other), Limits(), path, clock=FakeClock(fake))


def test_partition_changed_outside_the_run_is_reported(tmp_path):
    current, target = many(4)
    fake = FakeBackend(range(6), current)
    path = tmp_path / "s.json"
    with pytest.raises(KeyboardInterrupt):
        run_incremental(fake, plan_of(target), Limits(max_parallel_partitions=1), path, Recorder(stop_after_batch=1), FakeClock(fake))
    fake.advance(100)
    moved = TopicPartition("t", 3)
    fake.parts[moved].replicas = (5, 4, 1)
    calls = len(fake.calls)
    with pytest.raises(ClusterError, match=r"t-3 is no longer on the path of this plan: its replicas are \[5, 4, 1\]"):
        run_incremental(fake, plan_of(target), Limits(), path, clock=FakeClock(fake))
    assert len(fake.calls) == calls  # found before anything was sent


class Glitch(FakeBackend):
    """describe_cluster shows one partition with replicas matching no step, once."""

    glitch_on = 3

    def describe_cluster(self):
        state = super().describe_cluster()
        self.glitch_on -= 1
        if self.glitch_on == 0:
            from dataclasses import replace

            tp = TopicPartition("t", 0)
            parts = dict(state.partitions)
            parts[tp] = replace(parts[tp], replicas=(5, 4, 3, 2, 1))
            state = replace(state, partitions=parts)
        return state


def test_a_partition_off_the_path_for_one_look_is_not_an_error(tmp_path):
    current, target = many(4)
    fake = Glitch(range(6), current)
    run_incremental(fake, plan_of(target), Limits(), tmp_path / "s.json", clock=FakeClock(fake))
    assert fake.glitch_on < 0 and fake.assignment() == target


def test_progress_reports_steps_bytes_and_eta(tmp_path):
    current, target = many(6)
    sizes = {tp: 10_000 for tp in current}
    fake = FakeBackend(range(6), current, sizes=sizes, rate=1000)
    rec = Recorder()
    run_incremental(fake, plan_of(target), Limits(max_parallel_partitions=2), tmp_path / "s.json", rec, FakeClock(fake),
                    progress_interval=2.0)
    steps = {tp: partition_steps(tp, current[tp], target[tp], 1) for tp in current}
    total_steps = sum(len(c) for c in steps.values())
    total_bytes = sum(10_000 * len(s.adding) for c in steps.values() for s in c)
    assert rec.final.steps_done == total_steps and rec.final.bytes_done == total_bytes == rec.final.bytes_total
    assert sorted(rec.done) == sorted(s for c in steps.values() for s in c)
    labels = [p.step_label for p in rec.progress_seen]
    assert labels[0] == f"0 of {total_steps} steps done" and rec.final.step_label == f"{total_steps} of {total_steps} steps done"
    assert [p.steps_done for p in rec.progress_seen] == sorted(p.steps_done for p in rec.progress_seen)
    mid = [p for p in rec.progress_seen if 0 < p.bytes_done < total_bytes]
    assert mid and all(p.eta_seconds is not None for p in mid[1:])
    # Bytes only grow, and the partial copies of running steps are counted.
    done = [p.bytes_done for p in rec.progress_seen]
    assert done == sorted(done)
    assert any(p.bytes_done % 10_000 for p in rec.progress_seen)


def test_throttles_cover_every_step_and_are_removed_at_the_end(tmp_path):
    current, target = many(4)
    fake = FakeBackend(range(6), current)
    seen = []

    def look(number, steps):
        seen.append({k: dict(v) for k, v in fake.configs.items() if v})
        # throttle show and clear --stale count what the steps to come need as needed (needs.run_needs)
        assert throttle.records.load_all()["abc"].from_incremental_run

    throttle = RecordedThrottles(fake, 5000, plan_id="abc")
    rec = Recorder(on_batch=look)
    run_incremental(fake, plan_of(target), Limits(), tmp_path / "s.json", rec, FakeClock(fake), throttle=throttle)
    # In place from the first batch to the last, the same throughout.
    assert seen and all(s == seen[0] for s in seen)
    topic = seen[0][(ConfigResourceType.TOPIC, "t")]
    steps = {tp: partition_steps(tp, current[tp], target[tp], 1) for tp in current}
    for tp, chain in steps.items():
        for s in chain:
            for b in s.adding:
                assert f"{tp.partition}:{b}" in topic["follower.replication.throttled.replicas"].split(",")
            for b in s.before:
                assert f"{tp.partition}:{b}" in topic["leader.replication.throttled.replicas"].split(",")
    assert seen[0][(ConfigResourceType.BROKER, "3")]["follower.replication.throttled.rate"] == "5000"
    # Removed at the end; nothing left, the record gone.
    assert not any(fake.configs.values())
    assert throttle.records.load_all() == {}
    assert [a for a, _ in rec.throttle_events] == ["set", "removed"]


def test_interrupted_run_keeps_throttles_and_the_resumed_run_removes_them(tmp_path):
    current, target = many(4)
    fake = FakeBackend(range(6), current)
    throttle = RecordedThrottles(fake, 5000, plan_id="abc")
    path = tmp_path / "s.json"
    with pytest.raises(KeyboardInterrupt):
        run_incremental(fake, plan_of(target), Limits(max_parallel_partitions=1), path,
                        Recorder(stop_after_batch=1), FakeClock(fake), throttle=throttle)
    assert any(fake.configs.values()) and state_file.load(path).throttles_set
    run_incremental(fake, plan_of(target), Limits(), path, clock=FakeClock(fake), throttle=throttle)
    assert fake.assignment() == target and not any(fake.configs.values())


def test_min_insync_from_topic_config_shapes_the_first_step(tmp_path):
    tp = TopicPartition("t", 0)
    fake = FakeBackend(range(6), {tp: (0,)}, min_insync={"t": 3})
    run_incremental(fake, plan_of({tp: (3, 4, 5)}), Limits(), tmp_path / "s.json", clock=FakeClock(fake))
    assert fake.calls[0] == [(tp, (3, 4, 0))]  # RF 1, min.insync 3: the new leader and one more at once
    assert fake.assignment()[tp] == (3, 4, 5)


_replicas = st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=3, unique=True)
_limit = st.one_of(st.none(), st.integers(min_value=1, max_value=3))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    moves=st.lists(st.tuples(_replicas, _replicas, st.integers(min_value=1, max_value=8)), min_size=1, max_size=10),
    limits=st.builds(Limits, st.integers(min_value=1, max_value=2), _limit, _limit, _limit),
    backend_name=st.sampled_from(["admin", "zookeeper"]),
)
def test_executor_properties(tmp_path_factory, moves, limits, backend_name):
    """Any plan, any limits, either backend: the cluster never sees more than the limits allow,
    each planned step is sent exactly once and in order, and every partition ends at its target."""
    current = {TopicPartition("t", i): tuple(c) for i, (c, _, _) in enumerate(moves)}
    target = {TopicPartition("t", i): tuple(t) for i, (_, t, _) in enumerate(moves)}
    sizes = {TopicPartition("t", i): 500 * k for i, (_, _, k) in enumerate(moves)}
    fake = FakeBackend(range(7), current, sizes=sizes, name=backend_name)
    path = tmp_path_factory.mktemp("run") / "s.json"
    run_incremental(fake, plan_of(target), limits, path, clock=FakeClock(fake), poll_interval=0.5)
    assert fake.assignment() == target
    for name, limit in (("partitions", limits.max_parallel_partitions), ("per_broker", limits.max_moves_per_broker),
                        ("leader_movements", limits.max_leader_movements)):
        assert limit is None or fake.peaks[name] <= limit, name
    for tp, seq in submitted_sequences(fake).items():
        assert seq == [s.after for s in partition_steps(tp, current[tp], target[tp], limits.max_parallel_replicas)]
    assert {tp for tp in current if current[tp] != target[tp]} == set(submitted_sequences(fake))


def test_locate_reads_a_step_in_flight_from_the_full_replica_set():
    from kadmin.execute.incremental_tracking import locate
    from kadmin.model import PartitionReassignment, PartitionState

    steps = partition_steps(KIP_TP, (2, 0, 1), (3, 4, 2), 1)
    assert [s.after for s in steps] == [(3, 2, 0, 1), (3, 2, 1), (3, 4, 2)]

    def at(replicas, ongoing=None):
        return locate(steps, PartitionState("foo", 0, 3, replicas, replicas), ongoing)

    assert at((3, 2, 1)) == (2, None)
    # Metadata mid-step (target + removing) while the list of reassignments was read empty.
    assert at((3, 4, 2, 1)) == (2, steps[2])
    assert at((3, 4, 2, 1), PartitionReassignment("foo", 0, (3, 4, 2, 1), (4,), (1,))) == (2, steps[2])
    assert at((5, 1)) == (None, None)


def test_resume_keeps_the_planned_steps_and_takes_the_new_limits(tmp_path):
    current, target = many(6)
    fake = FakeBackend(range(6), current)
    path = tmp_path / "s.json"
    with pytest.raises(KeyboardInterrupt):
        run_incremental(fake, plan_of(target), Limits(max_parallel_partitions=1), path, Recorder(stop_after_batch=1), FakeClock(fake))
    rec = Recorder()
    run_incremental(fake, plan_of(target), Limits(max_parallel_replicas=2, max_parallel_partitions=2), path, rec, FakeClock(fake))
    assert any("planned with --max-parallel-replicas 1" in n for n in rec.notes)
    for tp, seq in submitted_sequences(fake).items():
        assert seq == [s.after for s in partition_steps(tp, current[tp], target[tp], 1)]
    assert fake.peaks["partitions"] <= 2
    assert state_file.load(path).limits == Limits(max_parallel_replicas=1, max_parallel_partitions=2)


def test_fresh_run_refuses_partitions_already_reassigning(tmp_path):
    from kadmin.errors import ReassignmentInProgress
    from kadmin.model import Assignment as A

    current, target = many(4)
    fake = FakeBackend(range(6), current, sizes={tp: 10_000 for tp in current})
    fake.reassign_partitions([A("t", 2, (5, 4, 3))])  # someone else's, still running
    fake.calls.clear()
    with pytest.raises(ReassignmentInProgress, match="t-2"):
        run_incremental(fake, plan_of(target), Limits(), tmp_path / "s.json", clock=FakeClock(fake))
    assert not fake.calls and not (tmp_path / "s.json").exists()


def test_throttles_removed_by_another_command_are_set_again_before_each_batch(tmp_path):
    """A `reassign verify` of this plan (or `throttle clear --plan` of it) while the run goes on
    keeps only what the running step needs; each later batch sets again what it needs, recorded,
    and says so."""
    from kadmin.throttling.operations import remove_plan_throttles

    current, target = many(4)
    fake = FakeBackend(range(6), current)
    throttle = RecordedThrottles(fake, 5000, plan_id="abc")
    sent_under: list[tuple[list, dict]] = []

    def verify_meanwhile(number, steps):
        topic = dict(fake.configs.get((ConfigResourceType.TOPIC, "t"), {}))
        rates = {name: dict(v) for (kind, name), v in fake.configs.items() if kind == ConfigResourceType.BROKER}
        sent_under.append((list(steps), {"topic": topic, "rates": rates}))
        remove_plan_throttles(fake, throttle.records, "abc")  # what a verify run now does

    rec = Recorder(on_batch=verify_meanwhile)
    run_incremental(fake, plan_of(target), Limits(max_parallel_partitions=1), tmp_path / "s.json", rec,
                    FakeClock(fake), throttle=throttle)
    assert fake.assignment() == target and len(sent_under) > 2
    for steps, configs in sent_under:  # every batch was sent under the throttles its steps need
        for s in (s for s in steps if s.adding):  # a step that copies nothing needs no throttle
            p = s.tp.partition
            assert {f"{p}:{b}" for b in s.before} <= set(configs["topic"]["leader.replication.throttled.replicas"].split(","))
            assert {f"{p}:{b}" for b in s.adding} <= set(configs["topic"]["follower.replication.throttled.replicas"].split(","))
            for b in {*s.before, *s.adding}:
                assert configs["rates"][str(b)]["follower.replication.throttled.rate"] == "5000"
                assert configs["rates"][str(b)]["leader.replication.throttled.rate"] == "5000"
    again = [n for n in rec.notes if "needs a throttle removed meanwhile: set " in n]
    assert again and any("follower.replication.throttled.replicas=" in n for n in again)
    # What was set again was recorded too: removed at the end, nothing left behind.
    assert not any(fake.configs.values())
    assert throttle.records.load_all() == {}


def test_throttles_still_set_are_not_set_or_recorded_again(tmp_path):
    current, target = many(4)
    fake = FakeBackend(range(6), current)
    throttle = RecordedThrottles(fake, 5000, plan_id="abc")
    writes = []
    put = throttle.records.put
    throttle.records.put = lambda record: (writes.append(record), put(record))
    alters = []
    alter = fake.incremental_alter_configs
    fake.incremental_alter_configs = lambda changes: (alters.append(list(changes)), alter(changes))
    rec = Recorder()
    run_incremental(fake, plan_of(target), Limits(max_parallel_partitions=1), tmp_path / "s.json", rec,
                    FakeClock(fake), throttle=throttle)
    assert len(rec.batches) > 2
    assert len(writes) == 2 and len(alters) == 2  # set once, removed once: no write per batch
    assert not [n for n in rec.notes if "throttle" in n]


class CancelAt(FakeClock):
    """Cancels the reassignment of ``tp`` (as `reassign cancel` does) once it has run ``at`` seconds."""

    def __init__(self, backend, tp, at):
        super().__init__(backend)
        self.tp, self.at, self.started_at, self.cancelled = tp, at, None, 0

    def sleep(self, seconds):
        super().sleep(seconds)
        assert self.t < 600, "the run did not end"
        p = self.backend.parts[self.tp]
        if p.target is None:
            self.started_at = None
        elif self.started_at is None:
            self.started_at = self.t
        elif self.t - self.started_at >= self.at and not self.cancelled:
            p.target, p.copied = None, {}  # back to the original replicas
            self.cancelled += 1


def test_a_step_cancelled_by_someone_else_stops_the_run_and_a_rerun_carries_on(tmp_path):
    tp = TopicPartition("t", 0)
    fake = FakeBackend(range(6), {tp: (0, 1, 2), TopicPartition("t", 1): (1, 2, 0)}, sizes={tp: 10_000})
    target = {tp: (3, 4, 2), TopicPartition("t", 1): (1, 2, 5)}
    path = tmp_path / "s.json"
    throttle = RecordedThrottles(fake, 5000, plan_id="abc")
    clock = CancelAt(fake, tp, at=2.0)
    rec = Recorder()
    with pytest.raises(ClusterError) as e:
        run_incremental(fake, plan_of(target), Limits(max_parallel_partitions=1), path, rec, clock,
                        throttle=throttle, pickup_grace=5.0)
    assert clock.cancelled == 1
    assert e.value.message == "1 step stopped before completing, cancelled outside this run: t-0 step 1 of 3"
    assert "run the same command again" in e.value.hint
    assert clock.t < 20  # it ended: no wait for ever
    assert any("t-0: step 1 is no longer running" in n for n in rec.notes)
    # Nothing was sent again behind the back of whoever cancelled; throttles stay for the rerun.
    assert [c for c in fake.calls if c[0][0] == tp] == [[(tp, (3, 2, 0, 1))]]
    assert any(fake.configs.values())
    saved = state_file.load(path)
    assert (saved.partitions[tp].completed, saved.partitions[tp].submitted) == (0, 0)
    # The same command again sends the cancelled step at once (no wait for a "pickup") and finishes.
    again = Recorder()
    run_incremental(fake, plan_of(target), Limits(max_parallel_partitions=1), path, again, FakeClock(fake),
                    throttle=throttle, pickup_grace=5.0)
    assert fake.assignment() == target
    assert [c for c in fake.calls if c[0][0] == tp][1] == [(tp, (3, 2, 0, 1))]
    assert not [n for n in again.notes if "not taken up" in n]
    assert not any(fake.configs.values())


def test_a_stuck_reassign_node_ends_the_run_instead_of_waiting_for_ever(tmp_path):
    """ZooKeeper: a node the controller does not carry out (invalid, or left behind) never goes;
    the run stops with the backend's explanation, its state file kept for a rerun."""
    from kadmin.backends.base import ReassignmentBlocked
    from kadmin.errors import ReassignmentInProgress

    current, target = many(2)

    class Stuck(FakeBackend):
        def reassign_partitions(self, assignments, validate_only=False):
            raise ReassignmentInProgress("/admin/reassign_partitions exists; nothing was changed")

        def reassignment_blocked(self):
            return ReassignmentBlocked("/admin/reassign_partitions exists but looks stuck: its content is invalid",
                                       "delete it and force a controller election", stuck=True)

    fake = Stuck(range(4), current, name="zookeeper")
    clock = FakeClock(fake)
    real_sleep = clock.sleep

    def sleep(seconds):
        assert clock.sleeps < 200, "the run did not end"
        real_sleep(seconds)

    clock.sleep = sleep
    with pytest.raises(ClusterError, match="looks stuck: its content is invalid; the run stops here"):
        run_incremental(fake, plan_of(target), Limits(), tmp_path / "s.json", Recorder(), clock)
    assert (tmp_path / "s.json").exists()


def test_resumed_over_the_other_connection_says_where_the_throttles_are_recorded(tmp_path):
    """Started with --zookeeper (records in ZooKeeper), resumed with --bootstrap-server (records in
    a topic): the resumed run cannot remove what the first part recorded, and says through which
    connection it is, rather than "removed (0 changes)" in silence."""
    from kadmin.backends.base import Capability
    from kadmin.throttling.stores import MemoryRecordStore

    current, target = many(4)
    fake = FakeBackend(range(6), current, name="zookeeper")
    path = tmp_path / "s.json"
    through_zk = RecordedThrottles(fake, 5000, plan_id="abc", records=MemoryRecordStore())
    with pytest.raises(KeyboardInterrupt):
        run_incremental(fake, plan_of(target), Limits(), path, Recorder(stop_after_batch=1), FakeClock(fake),
                        throttle=through_zk)
    assert state_file.load(path).throttles_via == ("zookeeper",)
    fake.name, fake.capabilities = "admin", frozenset(Capability)  # the same cluster, over AdminClient
    through_topic = RecordedThrottles(fake, 5000, plan_id="abc", records=MemoryRecordStore())
    result = run_incremental(fake, plan_of(target), Limits(), path, Recorder(), FakeClock(fake), throttle=through_topic)
    assert fake.assignment() == target
    assert result.throttles_left_with == ("zookeeper",)
    assert any(fake.configs.values())  # left set: its record is in ZooKeeper
    assert through_zk.records.load_all() and through_topic.records.load_all() == {}


def test_a_broker_down_when_throttles_were_set_is_throttled_once_back_while_its_step_runs(tmp_path):
    """Over the AdminClient protocol a down broker's configs cannot change, so the run's rates
    leave out broker 3, down when they are set. It comes back while the step copying to it
    waits: the run sets the running step's rates there at once (not at the next batch: the copy
    would run at full speed meanwhile), says so, records them, and removes them at the end."""
    tp = TopicPartition("t", 0)
    fake = FakeBackend(range(4), {tp: (0, 1, 2)}, sizes={tp: 10_000}, rate=100)
    fake.down.add(3)
    clock = FakeClock(fake)
    throttle = RecordedThrottles(fake, 5000, plan_id="abc")
    rec = Recorder()
    rates_of_3_while_copying = []
    real_sleep = clock.sleep

    def sleep(seconds):
        real_sleep(seconds)
        if fake.down and clock.t >= 10:
            fake.down.clear()
        elif not fake.down and fake.parts[tp].target is not None:
            rates_of_3_while_copying.append(dict(fake.configs.get((ConfigResourceType.BROKER, "3"), {})))

    clock.sleep = sleep
    run_incremental(fake, plan_of({tp: (0, 1, 3)}), Limits(), tmp_path / "s.json", rec, clock, throttle=throttle)
    assert fake.assignment()[tp] == (0, 1, 3)
    assert rec.broker_events == [((3,), ()), ((), (3,))]
    # Every look after the first once it is back sees the step's rates on broker 3.
    assert len(rates_of_3_while_copying) > 5
    wanted = {"leader.replication.throttled.rate": "5000", "follower.replication.throttled.rate": "5000"}
    assert all(r == wanted for r in rates_of_3_while_copying[1:]), rates_of_3_while_copying
    said = [n for n in rec.notes if n.startswith("broker 3 is back, throttled as the running steps need: ")]
    assert sorted(n.rsplit(": ", 1)[1] for n in said) == [
        "set broker 3 follower.replication.throttled.rate=5000",
        "set broker 3 leader.replication.throttled.rate=5000",
    ]
    # Recorded as the run's: removed at the end with the rest.
    assert not any(fake.configs.values()) and throttle.records.load_all() == {}


def test_over_zookeeper_a_down_brokers_rates_are_set_with_the_rest(tmp_path):
    """ZooKeeper holds a down broker's configs: the run's rates go on broker 3 while it is down,
    nothing is left to set when it comes back."""
    tp = TopicPartition("t", 0)
    fake = FakeBackend(range(4), {tp: (0, 1, 2)}, sizes={tp: 10_000}, rate=100, name="zookeeper")
    fake.down.add(3)
    throttle = RecordedThrottles(fake, 5000, plan_id="abc")
    seen = []
    rec = Recorder(on_batch=lambda n, steps: seen.append(dict(fake.configs.get((ConfigResourceType.BROKER, "3"), {}))))
    clock = FakeClock(fake)
    real_sleep = clock.sleep

    def sleep(seconds):
        real_sleep(seconds)
        if clock.t >= 10:
            fake.down.clear()

    clock.sleep = sleep
    run_incremental(fake, plan_of({tp: (0, 1, 3)}), Limits(), tmp_path / "s.json", rec, clock, throttle=throttle)
    assert fake.assignment()[tp] == (0, 1, 3)
    assert seen == [{"leader.replication.throttled.rate": "5000", "follower.replication.throttled.rate": "5000"}]
    assert not [n for n in rec.notes if "throttled as the running steps need" in n]
    assert not any(fake.configs.values()) and throttle.records.load_all() == {}


def test_the_log_dir_rate_left_out_on_a_down_broker_is_set_once_it_is_back():
    """The log-dir rate of a broker where the plan names directories, down when set: named as
    left out, and set by ``apply`` on the brokers back (what the run does once it sees it)."""
    tp = TopicPartition("t", 0)
    fake = FakeBackend(range(4), {tp: (0, 1, 2)})
    plan = ReassignmentPlan((Assignment("t", 0, (0, 1, 3), ("any", "any", "/data")),))
    throttle = RecordedThrottles(fake, None, plan_id="abc", log_dir_rate=7000, plan=plan)
    fake.down.add(3)
    assert throttle.left_out({}, fake.describe_cluster()) == {3}
    assert throttle.apply({}, cluster=fake.describe_cluster()) == ()
    fake.down.clear()
    changes = throttle.apply({}, log_dirs={3}, cluster=fake.describe_cluster())
    assert [(c.resource.name, c.name, c.value) for c in changes] == [
        ("3", "replica.alter.log.dirs.io.max.bytes.per.second", "7000")
    ]
    assert throttle.left_out({}, fake.describe_cluster()) == frozenset()


class DownThenUpAtStartup(FakeBackend):
    """Once ``glitch`` is set, the next look sees broker 3 down and partition t-0 on no step's
    path, its reassignment not listed (a moment between two reads); the look after it (the one a run takes at once at
    startup to settle such a partition) sees both as they are."""

    glitch = False

    def describe_cluster(self):
        from dataclasses import replace

        state = super().describe_cluster()
        if self.glitch:
            self.glitch = False
            tp = TopicPartition("t", 0)
            parts = dict(state.partitions)
            parts[tp] = replace(parts[tp], replicas=(5, 4, 3, 2, 1))
            live = {b: v for b, v in state.brokers.items() if b != 3}
            state = replace(state, brokers=live, partitions=parts)
            self.unlisted = True
        return state

    unlisted = False

    def list_partition_reassignments(self, partitions=None):
        if self.unlisted:  # the same moment: the reassignment not listed either
            self.unlisted = False
            return {}
        return super().list_partition_reassignments(partitions)


def test_the_second_look_at_startup_gives_the_live_brokers_too(tmp_path):
    """A resumed run whose first look misses broker 3 and cannot place t-0 looks again before
    anything else; that look shows broker 3 live, so the run does not warn it is down (and
    then back): the cluster and the live brokers it goes on with come from the same look."""
    tp = TopicPartition("t", 0)
    fake = DownThenUpAtStartup(range(6), {tp: (0, 1, 2)}, sizes={tp: 10_000}, rate=100)
    path = tmp_path / "s.json"
    with pytest.raises(KeyboardInterrupt):
        run_incremental(fake, plan_of({tp: (0, 1, 3)}), Limits(), path, Recorder(stop_after_batch=1), FakeClock(fake))
    fake.glitch = True
    rec = Recorder()
    run_incremental(fake, plan_of({tp: (0, 1, 3)}), Limits(), path, rec, FakeClock(fake))
    assert not fake.glitch and fake.assignment()[tp] == (0, 1, 3)
    assert rec.broker_events == []


class Broker3RefusesConfigs(FakeBackend):
    """Broker 3 back, but a config change there does not get through (a client that does not
    know it yet: its request times out)."""

    def incremental_alter_configs(self, changes):
        if any(c.resource.type == ConfigResourceType.BROKER and c.resource.name == "3" for c in changes):
            raise ClusterError("changing configs of broker 3: no answer within 30s")
        super().incremental_alter_configs(changes)


def test_a_broker_back_whose_throttles_cannot_be_set_is_said_and_the_run_goes_on(tmp_path):
    """Throttling a broker back is tried once: a refusal neither holds the run (it would wait
    out every retry, then end) nor ends it; it is said, with the command that sets the rates."""
    tp = TopicPartition("t", 0)
    fake = Broker3RefusesConfigs(range(4), {tp: (0, 1, 2)}, sizes={tp: 10_000}, rate=100)
    fake.down.add(3)
    clock = FakeClock(fake)
    throttle = RecordedThrottles(fake, 5000, plan_id="abc")
    rec = Recorder()
    real_sleep = clock.sleep

    def sleep(seconds):
        real_sleep(seconds)
        if fake.down and clock.t >= 10:
            fake.down.clear()

    clock.sleep = sleep
    run_incremental(fake, plan_of({tp: (0, 1, 3)}), Limits(), tmp_path / "s.json", rec, clock, throttle=throttle)
    assert fake.assignment()[tp] == (0, 1, 3)
    said = [n for n in rec.notes if n.startswith("broker 3 is back but")]
    assert said == [
        "broker 3 is back but the throttles the running steps need could not be set there (changing configs of "
        "broker 3: no answer within 30s); set them by hand: `kadmin throttle set --rate 5000 --brokers 3`"
    ], rec.notes
    assert not [n for n in rec.notes if "retrying" in n]
    assert not any(fake.configs.values()) and throttle.records.load_all() == {}
