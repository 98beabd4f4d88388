"""verify's judgment reads again while something differs (issue 17): a broker's Metadata that
has not caught up with a finished move is read again until it has; a difference is reported
once it has lasted the bound."""

import pytest

from kadmin.execute.verification import SETTLE_SECONDS, judge, run_verify
from kadmin.model import Assignment, PartitionReassignment, ReassignmentPlan, TopicPartition
from kadmin.plan.verify import State
from tests.execute.fakes import FakeBackend, cluster_state

FOO0 = TopicPartition("foo", 0)
PLAN = ReassignmentPlan((Assignment("foo", 0, (3, 1)),))


class FakeClock:
    def __init__(self):
        self.t = 100.0
        self.sleeps = []

    def now(self):
        return self.t

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.t += seconds


class Lagging(FakeBackend):
    """Metadata answers from ``views`` in turn (the last one repeats), as brokers catching up
    would; the controller's list is ``ongoing`` throughout."""

    def __init__(self, views, ongoing=None):
        super().__init__(cluster_state({"foo": {0: views[-1]}}, brokers=(0, 1, 2, 3)), {b: ["/d/a"] for b in range(4)})
        self.views = [cluster_state({"foo": {0: v}}, brokers=(0, 1, 2, 3)) for v in views]
        self.reassigning = dict(ongoing or {})
        self.reads = []

    def list_partition_reassignments(self, partitions=None):
        self.reads.append("ongoing")
        return super().list_partition_reassignments(partitions)

    def describe_cluster(self):
        self.reads.append("metadata")
        return self.views.pop(0) if len(self.views) > 1 else self.views[0]


def test_a_lagging_view_is_read_again_until_it_agrees():
    be, clock = Lagging([(3, 1, 0), (3, 1, 0), (3, 1)]), FakeClock()
    result, _, _ = judge(be, PLAN, clock=clock)
    assert result.state is State.COMPLETE
    assert be.reads[:2] == ["ongoing", "metadata"]  # the controller's list before Metadata
    assert len(clock.sleeps) == 2


def test_a_view_that_stays_for_the_bound_differs_even_shaped_as_a_move_ending():
    """(3, 1, 0) against a target (3, 1) with nothing listed: the view of a move whose end a
    broker has not caught up with, and of a plan lowering the replication factor that was never
    run. Read for the whole bound without changing, it is the cluster's state: 4, not 3 for ever."""
    be, clock = Lagging([(3, 1, 0)]), FakeClock()
    outcome = run_verify(be, PLAN, plan_id="p", records=None, clock=clock)
    assert outcome.result.state is State.DIFFERS
    assert outcome.result.partitions[0].message == (
        "There is no active reassignment of partition foo-0, but replica set is 3,1,0 rather than 3,1."
    )
    assert sum(clock.sleeps) == pytest.approx(SETTLE_SECONDS)


@pytest.mark.parametrize("settled", [(1, 0), (0, 1), (3, 2)])
def test_a_cancelled_or_diverted_move_differs_once_the_views_agree(settled):
    be, clock = Lagging([(3, 1, 0), settled]), FakeClock()
    result, _, _ = judge(be, PLAN, clock=clock)
    assert result.state is State.DIFFERS
    assert sum(clock.sleeps) == pytest.approx(SETTLE_SECONDS)  # "differs" only from views read for the bound


def test_a_running_move_is_in_progress_at_once():
    ongoing = {FOO0: PartitionReassignment("foo", 0, (3, 1, 0), (3,), (0,))}
    be, clock = Lagging([(3, 1, 0)], ongoing), FakeClock()
    assert judge(be, PLAN, clock=clock)[0].state is State.IN_PROGRESS and clock.sleeps == []


def test_complete_is_said_at_once():
    be, clock = Lagging([(3, 1)]), FakeClock()
    assert judge(be, PLAN, clock=clock)[0].state is State.COMPLETE and clock.sleeps == []


def test_the_bound_ends_on_a_clock_that_rounds():
    """A clock that loses a rounding remainder on each sleep and ignores a sleep of a few
    picoseconds (as the sandbox's simulated time does) must not keep verify reading forever."""

    class Rounding(FakeClock):
        def sleep(self, seconds):
            self.sleeps.append(seconds)
            assert len(self.sleeps) < 100, "verify kept reading"
            if seconds >= 1e-9:
                self.t += seconds - 1e-12

    be, clock = Lagging([(3, 1, 0)]), Rounding()
    assert judge(be, PLAN, clock=clock)[0].state is State.DIFFERS
    assert len(clock.sleeps) == 10


ADD = ReassignmentPlan((Assignment("foo", 0, (0, 1, 2, 3)),))  # from (1, 2, 3): adds broker 0 only


class JustCancelled(Lagging):
    """The add-only move was just cancelled: the controller lists nothing, while brokers'
    Metadata shows its full set in flight, which is the plan's target, broker 0 out of the ISR,
    for ``stale`` reads; then the original set."""

    def __init__(self, stale, after=(1, 2, 3)):
        super().__init__([(0, 1, 2, 3)] * stale + [after])
        for view in self.views[:stale]:
            p = view.partitions[FOO0]
            view.partitions[FOO0] = type(p)(p.topic, p.partition, 1, p.replicas, (1, 2, 3))


def test_an_add_only_move_just_cancelled_is_not_complete():
    """Kafka ends a reassignment only once its whole target is in the ISR: a view of the target
    with nothing listed but broker 0 out of the ISR is read again, and the cancel shows (4)."""
    be, clock = JustCancelled(stale=3), FakeClock()
    outcome = run_verify(be, ADD, plan_id="p", records=None, clock=clock)
    assert outcome.result.state is State.DIFFERS
    assert outcome.result.partitions[0].current == (1, 2, 3)


def test_an_add_only_move_complete_in_the_isr_is_complete_at_once():
    be, clock = Lagging([(0, 1, 2, 3)]), FakeClock()
    assert judge(be, ADD, clock=clock)[0].state is State.COMPLETE and clock.sleeps == []


def test_a_complete_plan_with_a_replica_out_of_the_isr_is_complete_at_the_bound():
    """The move ended, and broker 0 fell out of the ISR afterwards (it restarts, say): read for
    the bound, the replicas are the plan's, and that is complete, as before."""
    be, clock = JustCancelled(stale=1000), FakeClock()
    assert judge(be, ADD, clock=clock)[0].state is State.COMPLETE
    assert sum(clock.sleeps) == pytest.approx(SETTLE_SECONDS)
