"""An ``--incremental`` run's rate and ETA do not count the stray logs a cancelled step left (a
broker picks its half-copied log up where it stopped when a later step adds it again): those
bytes were copied before this run, like the bytes of the steps an earlier run left running."""

from __future__ import annotations

from kadmin.execute.incremental_progress import ByteCount
from kadmin.execute.state_file import IncrementalState, PartitionProgress
from kadmin.model import Assignment, ReassignmentPlan, TopicPartition
from kadmin.plan.batches import Limits
from kadmin.plan.steps import Step
from tests.execute.test_incremental_eta_resume import Disks

GB, MB = 1_000_000_000, 1_000_000
P0 = TopicPartition("payments", 0)


def test_a_stray_log_the_next_step_picks_up_is_not_copied_by_this_run():
    # payments-0 [1,2] -> [1,2,3]; a cancelled step left 6 GB of its 10 GB on broker 3.
    step = Step(P0, 1, 1, (1, 2), (1, 2, 3), 1, 1)
    state = IncrementalState("digest", Limits(), {P0: PartitionProgress(P0, (1, 2), 1, (step,))})
    disks = Disks({1: {P0: 10 * GB}, 2: {P0: 10 * GB}, 3: {P0: 6 * GB}})
    count = ByteCount(disks, note=lambda m: None, interval=5.0)
    live = {1, 2, 3}
    count.sizes = count.read_sizes(ReassignmentPlan((Assignment("payments", 0, (1, 2, 3)),)), live)
    count.total = count.of_steps(state)
    count.begin(state, {}, live, now=0.0)
    assert count.at_start == 0  # nothing running yet: the stray log is no step's yet

    # The run sends the step; broker 3 picks its stray log up and copies 100 MB in 5 s.
    disks.held[3][P0] = 6 * GB + 100 * MB
    running = count.progress(state, {P0: step}, live, now=5.0, elapsed=5.0)
    assert running.bytes_done == 6 * GB + 100 * MB  # on disk: done
    assert running.eta_seconds == (4 * GB - 100 * MB) / (20 * MB)  # 20 MB/s, not 1.2 GB/s

    finished = count.progress(state.with_counts({P0: (1, 1)}), {}, live, now=10.0, elapsed=10.0)
    assert finished.bytes_done == 10 * GB
    assert count.at_start == 6 * GB  # counted once
