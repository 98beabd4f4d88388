"""A step an earlier part of the run sent, cancelled while no run was attached: the resumed run
does not claim the controller never took it up and send it again (undoing the cancel); it stops
as a run attached during the cancel does, and the same command then carries on."""

from __future__ import annotations

import pytest

from kadmin.errors import ClusterError
from kadmin.execute import state_file
from kadmin.execute.incremental import run_incremental
from kadmin.model import TopicPartition
from kadmin.plan.batches import Limits
from tests.execute.fakes_incremental import FakeBackend, FakeClock
from tests.execute.test_incremental import Recorder, plan_of


@pytest.mark.parametrize("name", ["admin", "zookeeper"])
def test_a_step_cancelled_while_no_run_watched_stops_the_resumed_run_and_is_not_sent_again(tmp_path, name):
    tp = TopicPartition("t", 0)
    fake = FakeBackend(range(6), {tp: (0, 1, 2)}, sizes={tp: 10_000}, rate=100, name=name)
    target = {tp: (3, 4, 2)}
    path = tmp_path / "s.json"
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C once the first step is out
        run_incremental(fake, plan_of(target), Limits(), path, Recorder(stop_after_batch=1), FakeClock(fake))
    assert fake.parts[tp].target is not None
    fake.parts[tp].target, fake.parts[tp].copied = None, {}  # reassign cancel --all, no run attached
    sent = len(fake.calls)
    rec = Recorder()
    with pytest.raises(ClusterError) as e:
        run_incremental(fake, plan_of(target), Limits(), path, rec, FakeClock(fake), pickup_grace=5.0)
    assert len(fake.calls) == sent  # nothing sent again behind the back of whoever cancelled
    assert not [n for n in rec.notes if "not taken up" in n]
    assert any("was sent by an earlier part of this run and is neither running nor done" in n for n in rec.notes)
    assert e.value.message == (
        "1 step stopped before completing, while no run watched (cancelled outside this run, or dropped by the "
        "controller): t-0 step 1 of 3; nothing was sent again"
    )
    saved = state_file.load(path)
    assert saved.partitions[tp].submitted == saved.partitions[tp].completed == 0
    run_incremental(fake, plan_of(target), Limits(), path, Recorder(), FakeClock(fake), pickup_grace=5.0)
    assert fake.assignment() == target
    assert fake.calls[sent][0] == fake.calls[0][0]  # the same command sends the step again, and carries on
