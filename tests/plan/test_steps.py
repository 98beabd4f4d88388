"""KIP-435 per-partition steps: the worked example, the rules, and properties over any move."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kadmin.errors import InputError
from kadmin.model import PartitionState, ReassignmentPlan, Assignment, TopicPartition
from kadmin.plan.steps import (
    partition_steps,
    plan_steps,
    replica_steps,
    resume_point,
    steps_from_sets,
    throttled_replicas,
)

TP = TopicPartition("foo", 0)


def test_kip_435_worked_example_two_replicas_at_a_time():
    # KIP-435, "Reassignment Example": (0,1,2,3,4) -> (5,6,7,8,9), leader 0.
    steps = partition_steps(TP, (0, 1, 2, 3, 4), (5, 6, 7, 8, 9), 2, leader=0)
    assert [s.after for s in steps] == [
        (5, 0, 1, 2, 3, 4),  # +5, the new preferred leader, alone
        (5, 6, 2, 3, 4),  # -[0,1] +[6]
        (5, 6, 7, 8, 4),  # -[2,3] +[7,8]
        (5, 6, 7, 8, 9),  # -[4] +[9], the requested order
    ]
    assert [(s.adding, s.removing) for s in steps] == [
        ((5,), ()),
        ((6,), (0, 1)),
        ((7, 8), (2, 3)),
        ((9,), (4,)),
    ]
    # Leadership: the preferred leader changes in step 1; leader 0 leaves in step 2 and Kafka
    # elects the first replica of the new set, 5.
    assert [s.moves_leader for s in steps] == [True, True, False, False]
    assert [s.leader_after for s in steps] == [0, 5, 5, 5]
    assert [(s.number, s.of) for s in steps] == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_one_replica_at_a_time():
    assert replica_steps((0, 1, 2), (3, 4, 5), 1) == (
        (3, 0, 1, 2),
        (3, 1, 2),
        (3, 4, 2),
        (3, 4, 5),
    )


def test_nothing_to_do_and_reorder_only():
    assert replica_steps((1, 2, 3), (1, 2, 3), 1) == ()
    # Same replicas, new order: one step, no data moves, the new preferred leader first.
    (step,) = partition_steps(TP, (1, 2, 3), (3, 2, 1), 1)
    assert step.after == (3, 2, 1) and step.adding == () and step.removing == ()
    assert step.moves_leader


def test_preferred_leader_already_a_replica_is_not_a_leader_step():
    # 3 is already a replica: no step of its own; it goes first in the set at once.
    assert replica_steps((1, 2, 3), (3, 4, 5), 1) == ((3, 4, 2), (3, 4, 5))


def test_min_insync_first_even_beyond_the_limit():
    # KIP-435: min.insync.replicas 3 but only 1 replica in sync: add 2 at once, though R = 1.
    sets = replica_steps((1, 2, 3), (1, 4, 5), 1, min_insync=3, isr=(1,))
    assert sets[0] == (1, 4, 5, 3)
    assert sets[-1] == (1, 4, 5)
    # Out-of-sync replicas are dropped first (2 before 3 here: both lag, CR order).
    assert 2 not in sets[0]


def test_growing_replication_factor_to_min_insync():
    # RF 1 -> 3 with min.insync.replicas 2: the first step brings the new leader and one more.
    assert replica_steps((1,), (2, 3, 4), 1, min_insync=3)[0] == (2, 3, 1)
    assert replica_steps((1, 2), (1, 2, 3, 4, 5), 1) == ((1, 2, 3), (1, 2, 3, 4), (1, 2, 3, 4, 5))


def test_shrinking_replication_factor_drops_in_one_step():
    assert replica_steps((1, 2, 3, 4, 5), (1, 2), 1) == ((1, 2),)


def test_out_of_sync_replica_dropped_first():
    assert replica_steps((1, 2, 3), (1, 4, 5), 1, isr=(1, 2)) == ((1, 4, 2), (1, 4, 5))


def test_bad_inputs():
    with pytest.raises(InputError):
        replica_steps((1,), (2,), 0)
    with pytest.raises(InputError):
        replica_steps((1,), (), 1)


def test_resume_point_matches_cluster_state():
    steps = partition_steps(TP, (0, 1, 2, 3, 4), (5, 6, 7, 8, 9), 2)
    assert resume_point(steps, (0, 1, 2, 3, 4)) == 0
    assert resume_point(steps, (5, 6, 2, 3, 4)) == 2
    assert resume_point(steps, (5, 6, 7, 8, 9)) == 4
    assert resume_point(steps, (6, 5, 2, 4, 3)) == 2  # another order, same set
    assert resume_point(steps, (1, 2)) is None
    # Reorder-only: the exact order decides, the set alone would say "done".
    (reorder,) = partition_steps(TP, (1, 2, 3), (3, 2, 1), 1)
    assert resume_point((reorder,), (1, 2, 3)) == 0
    assert resume_point((reorder,), (3, 2, 1)) == 1


def test_steps_from_sets_round_trip():
    steps = partition_steps(TP, (0, 1, 2), (3, 4, 5), 1, leader=1)
    assert steps_from_sets(TP, (0, 1, 2), [s.after for s in steps], leader=1) == steps


def test_plan_steps_uses_cluster_state_and_names_unknown_partitions():
    tp1 = TopicPartition("foo", 1)
    parts = {
        TP: PartitionState("foo", 0, leader=1, replicas=(1, 2), isr=(1, 2)),
        tp1: PartitionState("foo", 1, leader=2, replicas=(2, 3), isr=(2, 3)),
    }
    plan = ReassignmentPlan((Assignment("foo", 0, (3, 2)), Assignment("foo", 1, (2, 3))))
    steps = plan_steps(plan, parts, 1, {"foo": 2})
    assert [s.after for s in steps[TP]] == [(3, 2, 1), (3, 2)]
    assert steps[TP][0].leader_before == 1
    assert steps[tp1] == ()
    bad = ReassignmentPlan((Assignment("foo", 9, (1,)), Assignment("bar", 0, (1,))))
    with pytest.raises(InputError) as e:
        plan_steps(bad, parts, 1)
    assert e.value.problems == ["foo-9", "bar-0"]
    assert e.value.message == "2 partitions of the plan do not exist in the cluster"
    with pytest.raises(InputError, match="^1 partition lists a broker twice$"):
        plan_steps(ReassignmentPlan((Assignment("foo", 0, (3, 3)),)), parts, 1)


def test_throttled_replicas_cover_every_step():
    steps = {TP: partition_steps(TP, (0, 1, 2), (3, 4, 5), 1)}
    leader, follower = throttled_replicas(steps)
    # 3 joins in step 1 and is the leader the later copies come from.
    assert leader[TP] == (0, 1, 2, 3, 4)
    assert follower[TP] == (3, 4, 5)


brokers = st.integers(min_value=0, max_value=11)
replica_lists = st.lists(brokers, min_size=1, max_size=6, unique=True)


@settings(max_examples=400, deadline=None)
@given(
    current=replica_lists,
    target=replica_lists,
    r=st.integers(min_value=1, max_value=4),
    min_insync=st.integers(min_value=1, max_value=4),
    isr_mask=st.lists(st.booleans(), min_size=6, max_size=6),
)
def test_steps_properties(current, target, r, min_insync, isr_mask):
    isr = [b for b, keep in zip(current, isr_mask) if keep]
    steps = partition_steps(TP, current, target, r, min_insync=min_insync, isr=isr)
    if current == target:
        assert steps == ()
        return
    assert steps[-1].after == tuple(target)  # last step is the target, in its order
    prev = tuple(current)
    for i, s in enumerate(steps):
        assert s.before == prev
        assert len(set(s.after)) == len(s.after)
        # Added replicas never exceed R, except the min.insync.replicas catch-up of step 1.
        shortfall = min_insync - len([b for b in current if b in isr]) if i == 0 else 0
        assert len(s.adding) <= max(r, shortfall)
        # Only target replicas are added; only non-target replicas removed.
        assert set(s.adding) <= set(target)
        assert not set(s.removing) & set(target)
        # Never fewer replicas than the smaller of the two sets.
        assert len(s.after) >= min(len(current), len(target))
        prev = s.after
    # A new preferred leader is brought in first, alone.
    if target[0] not in current:
        assert steps[0].adding[0] == target[0] and steps[0].removing == ()
    # Each step changes something: no step repeats its predecessor.
    assert all(s.before != s.after for s in steps)
