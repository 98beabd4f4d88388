"""A resumed ``--incremental`` run's ETA counts only what this invocation copies: the bytes an
earlier run copied for the steps still in flight are done when it begins, not copied by it."""

from __future__ import annotations

from kadmin.backends.base import BrokerLogDirs, Capability
from kadmin.execute.incremental_progress import ByteCount
from kadmin.execute.state_file import IncrementalState, PartitionProgress
from kadmin.model import LogDir, ReplicaInfo, TopicPartition
from kadmin.plan.batches import Limits
from kadmin.plan.steps import Step

GB, MB = 1_000_000_000, 1_000_000
RUNNING, NEXT = TopicPartition("payments", 0), TopicPartition("payments", 1)


class Disks:
    """DescribeLogDirs answering what each broker holds (``held``: broker -> tp -> bytes)."""

    capabilities = frozenset({Capability.LOG_DIRS})

    def __init__(self, held):
        self.held = held

    def describe_log_dirs(self, brokers, topics):
        return {
            b: BrokerLogDirs(
                b,
                (
                    LogDir(
                        b,
                        "/d",
                        replicas=tuple(
                            ReplicaInfo(tp.topic, tp.partition, n, 0, False) for tp, n in self.held.get(b, {}).items()
                        ),
                    ),
                ),
            )
            for b in brokers
        }


def _resumed():
    """payments-0's step to [1,2,3] was sent by an earlier run (broker 3 holds 9 GB of its
    10 GB); payments-1's step to [1,2,4] waits. 20 GB in all."""
    running = Step(RUNNING, 1, 1, (1, 2), (1, 2, 3), 1, 1)
    waiting = Step(NEXT, 1, 1, (1, 2), (1, 2, 4), 1, 1)
    state = IncrementalState(
        "digest",
        Limits(),
        {
            RUNNING: PartitionProgress(RUNNING, (1, 2), 1, (running,), completed=0, submitted=1),
            NEXT: PartitionProgress(NEXT, (1, 2), 1, (waiting,)),
        },
    )
    return state, {RUNNING: running}


def test_a_resumed_runs_eta_counts_only_what_this_run_copied():
    state, in_flight = _resumed()
    disks = Disks({1: {RUNNING: 10 * GB, NEXT: 10 * GB}, 3: {RUNNING: 9 * GB}})
    count = ByteCount(disks, note=lambda m: None, interval=5.0)
    count.sizes = {RUNNING: 10 * GB, NEXT: 10 * GB}
    count.total = count.of_steps(state)
    live = {1, 2, 3, 4}

    count.begin(state, in_flight, live, now=0.0)
    assert count.at_start == 9 * GB  # the earlier run's copy is done, not this run's

    first = count.progress(state, in_flight, live, now=0.0, elapsed=0.5)
    assert first.bytes_done == 9 * GB
    assert first.eta_seconds is None  # nothing copied by this run yet: no rate to tell

    disks.held[3][RUNNING] = 9 * GB + 200 * MB  # 200 MB in 10 s: 20 MB/s
    later = count.progress(state, in_flight, live, now=10.0, elapsed=10.0)
    assert later.bytes_done == 9 * GB + 200 * MB
    assert later.eta_seconds == (20 * GB - (9 * GB + 200 * MB)) / (20 * MB)  # 540 s, not a few seconds
