"""An ``--incremental`` run held by an offline log directory says so: a warning once naming the
broker's directory, and 'paused: broker 1's /d0 is offline' on its progress line instead of an
ETA that grows for ever. It waits, as it waits for a down broker: the restart that brings the
directory back resumes the copy, and Ctrl-C keeps the state."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kadmin.backends.base import BrokerLogDirs, Capability
from kadmin.commands.render_incremental import IncrementalLines
from kadmin.execute.incremental_progress import ByteCount
from kadmin.execute.state_file import IncrementalState, PartitionProgress
from kadmin.model import LogDir, ReplicaInfo, ReplicaLogDir, TopicPartition, TopicPartitionReplica
from kadmin.plan.batches import Limits
from kadmin.plan.steps import Step

MB = 1_000_000
P3, C1 = TopicPartition("payments", 3), TopicPartition("clicks", 1)


class Dirs:
    """DescribeLogDirs: broker -> {path: {tp: bytes}}; a path in ``offline`` answers an error
    and lists nothing, as Kafka does for an offline directory."""

    capabilities = frozenset({Capability.LOG_DIRS})

    def __init__(self, held, offline=()):
        self.held, self.offline = held, set(offline)

    def describe_log_dirs(self, brokers, topics=None):
        def one(b, path, tps):
            if (b, path) in self.offline:
                return LogDir(b, path, error="KafkaStorageException")
            return LogDir(
                b, path, replicas=tuple(ReplicaInfo(tp.topic, tp.partition, n, 0, False) for tp, n in tps.items())
            )

        return {b: BrokerLogDirs(b, tuple(one(b, p, tps) for p, tps in self.held.get(b, {}).items())) for b in brokers}


def _count(dirs, state):
    count = ByteCount(dirs, note=lambda m: None, interval=5.0)
    count.sizes = {P3: 880 * MB, C1: 840 * MB}
    count.total = count.of_steps(state)
    return count


def test_a_running_steps_new_replica_in_an_offline_directory_pauses_the_run():
    # payments-3 -> [3,0,1], its new replica on broker 3 created in /d0 (the plan's log_dirs).
    step = Step(P3, 1, 1, (0, 1), (3, 0, 1), 0, 0)
    state = IncrementalState("d", Limits(), {P3: PartitionProgress(P3, (0, 1), 1, (step,), submitted=1)})
    dirs = Dirs({0: {"/d0": {P3: 880 * MB}}, 1: {"/d0": {P3: 880 * MB}}, 3: {"/d0": {P3: 100 * MB}, "/d1": {}}})
    count = _count(dirs, state)
    count.targets = {TopicPartitionReplica("payments", 3, 3): "/d0"}
    live, running = {0, 1, 2, 3}, {P3: step}
    count.begin(state, running, live, now=0.0)
    copying = count.progress(state, running, live, now=5.0, elapsed=5.0)
    assert copying.paused == ()

    dirs.offline.add((3, "/d0"))
    held = count.progress(state, running, live, now=10.0, elapsed=10.0)
    assert held.paused == ((3, "/d0"),)
    assert held.eta_seconds is None  # not a growing guess

    dirs.offline.clear()  # the broker restarted with it back
    assert count.progress(state, running, live, now=15.0, elapsed=15.0).paused == ()


def test_a_move_between_directories_whose_source_is_offline_pauses_the_run():
    # After the last step: clicks-1 on broker 1 moves /d0 -> /d1; then /d0 goes offline.
    state = IncrementalState("d", Limits(), {})
    dirs = Dirs({1: {"/d0": {}, "/d1": {}}}, offline={(1, "/d0")})
    count = _count(dirs, state)
    r = TopicPartitionReplica("clicks", 1, 1)
    count.targets = {r: "/d1"}
    count.saw_dirs({r: ReplicaLogDir(r, "/d0", "/d1", current_size=840 * MB, future_size=400 * MB)}, 0.0)
    live = {0, 1, 2, 3}
    count.saw_dirs({r: ReplicaLogDir(r, None, "/d1", future_size=400 * MB)}, 5.0)  # its source unseen
    p = count.progress(state, {}, live, now=5.0, elapsed=5.0)
    assert p.paused == ((1, "/d0"),)
    assert p.eta_seconds is None


def test_the_run_names_the_offline_directory_once_and_shows_it_instead_of_an_eta(capsys):
    from kadmin.execute.incremental_progress import Progress

    lines = IncrementalLines(True, every=0.0)
    paused = Progress(6, 6, 3, (), int(4.3e9), int(4.5e9), 60.0, None, (), ((1, "/var/lib/kafka/data0"),))
    for _ in range(3):
        lines.progress(paused)
    lines.progress(Progress(6, 6, 3, (), int(4.4e9), int(4.5e9), 90.0, 4.0))
    err = capsys.readouterr().err
    assert err.count("warning: broker 1's log directory /var/lib/kafka/data0 is offline") == 1
    assert "paused: broker 1's /var/lib/kafka/data0 is offline" in err.splitlines()[1]
    assert "ETA" not in "".join(err.splitlines()[:4])
    assert "note: nothing waits for broker 1's log directory /var/lib/kafka/data0 any more" in err


def test_after_the_last_step_a_move_whose_source_is_offline_is_said_paused_not_copying(tmp_path):
    from kadmin.execute.incremental_log_dirs import finish_after_last_step
    from tests.execute.test_incremental_log_dirs import Brokers, Clock

    r = TopicPartitionReplica("clicks", 1, 1)

    class Held(Brokers):  # the source /d0 offline: only the future replica in /d1 is listed
        def describe_replica_log_dirs(self, replicas):
            if len(self.asked) >= 3:  # the broker restarted with /d0 back, and the move ended
                self.where[r] = ReplicaLogDir(r, "/d1")
            return super().describe_replica_log_dirs(replicas)

    notes = []
    finish_after_last_step(
        Held(where={r: ReplicaLogDir(r, None, "/d1", future_size=400 * MB)}),
        {r: "/d1"},
        clock=Clock(),
        read=lambda fn: fn(),
        note=notes.append,
        grace=30,
        poll_interval=1,
        note_interval=0,
        state_path=tmp_path / "s.json",
        live={0, 1, 2},
    )
    assert notes[0] == "log directories: 1 replica not in place yet, 0 copying, 1 paused (source directory offline)"


def test_a_replica_the_step_keeps_in_an_offline_directory_pauses_it_too():
    # payments-1 [0,2,3] -> [1,2,3,0]: broker 0's replica, in /d1, goes offline; the step
    # ends only once every replica of its target is in the ISR, so it waits for it.
    p1 = TopicPartition("payments", 1)
    step = Step(p1, 1, 2, (0, 2, 3), (1, 2, 3, 0), 0, 0)
    state = IncrementalState("d", Limits(), {p1: PartitionProgress(p1, (1, 2, 3), 2, (step,), submitted=1)})
    full = {"/d0": {}, "/d1": {p1: 840 * MB}}
    dirs = Dirs({0: full, 1: {"/d0": {p1: 100 * MB}}, 2: full, 3: full})
    count = ByteCount(dirs, note=lambda m: None, interval=5.0)
    live, running = {0, 1, 2, 3}, {p1: step}
    count.sizes = count.read_sizes(_plan(p1, (1, 2, 3)), live)
    count.total = count.of_steps(state)
    count.begin(state, running, live, now=0.0)
    dirs.offline.add((0, "/d1"))
    assert count.progress(state, running, live, now=5.0, elapsed=5.0).paused == ((0, "/d1"),)


def _plan(tp, replicas):
    from kadmin.model import Assignment, ReassignmentPlan

    return ReassignmentPlan((Assignment(tp.topic, tp.partition, replicas),))


def test_a_directory_offline_before_the_run_began_pauses_it_too():
    # payments-5 [0,3,2] -> [1,3,4,0]: broker 3's replica sits in /d1, offline before the run
    # (or its resume) began, so DescribeLogDirs never listed it anywhere.
    p5 = TopicPartition("payments", 5)
    step = Step(p5, 1, 2, (0, 3, 2), (1, 3, 4, 0), 0, 0)
    state = IncrementalState("d", Limits(), {p5: PartitionProgress(p5, (0, 3, 2), 2, (step,), submitted=1)})
    full = {"/d0": {}, "/d1": {p5: 840 * MB}}
    dirs = Dirs({0: full, 1: {"/d1": {p5: 840 * MB}}, 3: full, 4: {"/d1": {p5: 840 * MB}}}, offline={(3, "/d1")})
    count = ByteCount(dirs, note=lambda m: None, interval=5.0)
    live, running = {0, 1, 2, 3, 4}, {p5: step}
    count.sizes = count.read_sizes(_plan(p5, (1, 3, 4)), live)
    count.total = count.of_steps(state)
    count.begin(state, running, live, now=0.0)
    p = count.progress(state, running, live, now=5.0, elapsed=5.0)
    assert p.paused == ((3, "/d1"),)
    assert p.eta_seconds is None  # the new replicas hold every byte, but the step cannot end


def test_a_new_replica_metadata_calls_offline_pauses_a_resumed_run():
    # payments-0 -> [2,3,4]: the new replica on broker 2 was created in /d0, which went offline
    # before the run resumed; only Metadata's offline replicas says where it is.
    p0 = TopicPartition("payments", 0)
    step = Step(p0, 1, 1, (3, 4), (2, 3, 4), 0, 0)
    state = IncrementalState("d", Limits(), {p0: PartitionProgress(p0, (3, 4), 1, (step,), submitted=1)})
    dirs = Dirs(
        {2: {"/d0": {}, "/d1": {}}, 3: {"/d1": {p0: 840 * MB}}, 4: {"/d1": {p0: 840 * MB}}}, offline={(2, "/d0")}
    )
    count = ByteCount(dirs, note=lambda m: None, interval=5.0)
    live, running = {2, 3, 4}, {p0: step}
    count.sizes = count.read_sizes(_plan(p0, (2, 3, 4)), live)
    count.total = count.of_steps(state)
    count.begin(state, running, live, now=0.0)
    # not created yet, as far as anyone says: not paused on an unrelated offline directory
    assert count.progress(state, running, live, now=5.0, elapsed=5.0).paused == ()
    held = count.progress(state, running, live, now=10.0, elapsed=10.0, offline_replicas={(p0, 2)})
    assert held.paused == ((2, "/d0"),) and held.eta_seconds is None


def test_after_the_last_step_a_replica_whose_directory_is_offline_pauses_the_run():
    # payments-1 on broker 2 is to go to /d0, offline: its broker refuses it (KAFKA_STORAGE_ERROR)
    state = IncrementalState("d", Limits(), {})
    dirs = Dirs({2: {"/d0": {}, "/d1": {}}}, offline={(2, "/d0")})
    count = _count(dirs, state)
    r = TopicPartitionReplica("payments", 1, 2)
    count.targets = {r: "/d0"}
    count.saw_dirs({r: ReplicaLogDir(r, None)}, 0.0)  # listed nowhere: its directory lists nothing
    p = count.progress(state, {}, {0, 1, 2}, now=5.0, elapsed=5.0)
    assert p.paused == ((2, "/d0"),) and p.eta_seconds is None


def test_the_run_takes_metadatas_offline_replicas_of_its_running_steps(tmp_path):
    """The wiring: run_incremental hands the cluster's offline replicas to the byte count. Broker
    3's new replica of t-0 went into /d1, offline: DescribeLogDirs lists it nowhere, Metadata
    calls it offline, and nothing copies it; the run says it is paused on /d1."""
    from kadmin.execute.incremental import IncrementalReporter, run_incremental
    from tests.execute.fakes_incremental import FakeBackend, FakeClock

    t0 = TopicPartition("t", 0)

    class OfflineDir(FakeBackend):
        def describe_cluster(self):
            c = super().describe_cluster()
            parts = {tp: replace(p, offline_replicas=(3,) if 3 in p.adding else ()) for tp, p in c.partitions.items()}
            return replace(c, partitions=parts)

        def describe_log_dirs(self, brokers=None, topics=None):
            out = dict(super().describe_log_dirs(brokers, topics))
            if 3 in out:
                out[3] = BrokerLogDirs(3, (LogDir(3, "/d0"), LogDir(3, "/d1", error="KafkaStorageException")))
            return out

        def _complete(self):  # nothing reaches broker 3
            if self.parts[t0].target is not None:
                self.parts[t0].copied[3] = 0
            super()._complete()

    class Seen(IncrementalReporter):
        looks = 0

        def progress(self, progress):  # Ctrl-C once said paused, or after a while
            self.looks, self.paused = self.looks + 1, progress.paused
            if progress.paused or self.looks > 20:
                raise KeyboardInterrupt

    fake, seen = OfflineDir(range(4), {t0: (0, 1, 2)}, sizes={t0: 10_000}), Seen()
    with pytest.raises(KeyboardInterrupt):
        run_incremental(fake, _plan(t0, (3, 1, 2)), Limits(), tmp_path / "s.json", seen, FakeClock(fake))
    assert seen.paused == ((3, "/d1"),)
