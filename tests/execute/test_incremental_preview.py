"""``reassign execute --incremental --dry-run`` shows the batches the run sends: the run orders
its steps by the bytes each partition has left, and so does the preview (``preview_batches``),
from the same DescribeLogDirs. Over ZooKeeper, where each batch waits for the previous one, the
run sends exactly the batches shown; over the AdminClient protocol, the first one."""

from __future__ import annotations

import pytest

from kadmin.execute import state_file
from kadmin.execute.incremental import run_incremental
from kadmin.execute.incremental_batches import preview_batches
from kadmin.model import TopicPartition
from kadmin.plan.batches import Limits, plan_batches
from tests.execute.fakes_incremental import FakeBackend, FakeClock
from tests.execute.test_incremental import Recorder, plan_of

MB = 1_000_000
P0, P1, C0 = TopicPartition("payments", 0), TopicPartition("payments", 1), TopicPartition("clicks", 0)
# The tester's planZ: payments-0 [3,0,1] -> [2,0,1]; payments-1 [0,2,3] -> [1,2,3]; clicks-0 [0,3] -> [1,2].
CURRENT = {P0: (3, 0, 1), P1: (0, 2, 3), C0: (0, 3)}
TARGET = {P0: (2, 0, 1), P1: (1, 2, 3), C0: (1, 2)}
SIZES = {P0: 839 * MB, P1: 839 * MB, C0: 20 * MB}


def _run(name, tmp_path):
    fake = FakeBackend(range(4), CURRENT, sizes=SIZES, rate=100 * MB, name=name)
    shown_from = fake.describe_log_dirs(brokers=range(4), topics=["clicks", "payments"])  # what the dry run reads
    limits = Limits(max_leader_movements=1)
    rec = Recorder()
    path = tmp_path / f"{name}.json"
    run_incremental(fake, plan_of(TARGET), limits, path, rec, FakeClock(fake))
    steps = {tp: p.steps for tp, p in state_file.load(path).partitions.items()}
    return [tuple(b) for b in rec.batches], preview_batches(steps, limits, shown_from), steps, limits


def test_over_zookeeper_the_dry_run_shows_the_batches_the_run_sends(tmp_path):
    sent, shown, steps, limits = _run("zookeeper", tmp_path)
    assert list(shown) == sent
    assert sent[0][0].tp == P1  # the biggest partition's leader movement first, as the run chooses
    assert list(plan_batches(steps, limits)) != sent  # counting steps, not bytes, shows other batches


@pytest.mark.parametrize("name", ["admin"])
def test_over_the_admin_client_the_first_batch_shown_is_the_one_sent(name, tmp_path):
    sent, shown, _, _ = _run(name, tmp_path)
    assert shown[0] == sent[0]
