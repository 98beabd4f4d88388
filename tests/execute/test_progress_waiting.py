"""A request no broker carries out (``not_taken``: a stuck /admin/reassign_partitions' entry)
is no move: listed apart as waiting, in the snapshot's scope, and counted nowhere else."""

from kadmin.execute.progress import Waiting, snapshot, snapshot_json
from kadmin.model import Assignment, PartitionReassignment, PartitionState, ReassignmentPlan
from tests.execute.test_progress import FOO0, ONGOING, TP, cluster, sizes

MB = 1_000_000
# bar-0 is requested from [1,2] to [3,2] but nobody took it: the cluster shows no adding replica.
BAR0 = PartitionState("bar", 0, 1, (1, 2), (1, 2))
REQUESTED = {TP("bar", 0): PartitionReassignment("bar", 0, (3, 2, 1), (3,), (1,))}
BAR_WAITING = Waiting("bar", 0, (1, 2), (3, 2))


def test_a_request_not_taken_is_waiting_not_reassigning():
    s = snapshot(0.0, cluster([FOO0, BAR0]), {**ONGOING, **REQUESTED}, sizes(30 * MB), not_taken={TP("bar", 0)})
    assert s.waiting == (BAR_WAITING,)
    assert s.reassigning_partitions == 1 and {r.topic for r in s.replicas} == {"foo"}
    assert not s.done  # foo-0 still moves
    doc = snapshot_json(s)
    assert doc["reassigning_partitions"] == 1
    assert doc["waiting"] == [{"topic": "bar", "partition": 0, "replicas": [1, 2], "target": [3, 2]}]


def test_only_requests_not_taken_left_is_done_moving():
    s = snapshot(0.0, cluster([BAR0]), REQUESTED, {}, not_taken={TP("bar", 0)})
    assert s.done and s.reassigning_partitions == 0 and s.replicas == ()
    assert s.waiting == (BAR_WAITING,)


def test_a_plan_sees_only_its_own_requests_not_taken():
    plan = ReassignmentPlan((Assignment("foo", 0, (3, 2)),))
    s = snapshot(0.0, cluster([FOO0, BAR0]), {**ONGOING, **REQUESTED}, sizes(30 * MB), plan=plan,
                 not_taken={TP("bar", 0)})
    assert s.waiting == () and "waiting" not in snapshot_json(s)
    plan = ReassignmentPlan((Assignment("bar", 0, (3, 2)),))
    s = snapshot(0.0, cluster([FOO0, BAR0]), {**ONGOING, **REQUESTED}, sizes(30 * MB), plan=plan,
                 not_taken={TP("bar", 0)})
    assert s.waiting == (BAR_WAITING,) and s.reassigning_partitions == 0 and s.done
    assert [(r.broker, r.moving) for r in s.replicas] == [(3, False), (2, False)]
