"""Batching steps of many partitions: limits hold, every partition ends at its target."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kadmin.errors import UsageError
from kadmin.model import TopicPartition
from kadmin.plan.batches import Backlog, Limits, exceeded, load_of, next_batch, plan_batches
from kadmin.plan.steps import partition_steps


def tp(i: int) -> TopicPartition:
    return TopicPartition("foo", i)


def chains(moves: dict[int, tuple[tuple[int, ...], tuple[int, ...]]], r: int = 1):
    return {tp(i): partition_steps(tp(i), cur, tgt, r) for i, (cur, tgt) in moves.items()}


def test_limits_validate():
    Limits().validate()
    Limits(2, 10, 3, 1).validate()
    with pytest.raises(UsageError, match="--max-parallel-partitions must be at least 1"):
        Limits(max_parallel_partitions=0).validate()
    with pytest.raises(UsageError, match="--max-moves-per-broker"):
        Limits(max_moves_per_broker=-1).validate()
    assert Limits.from_json(Limits(3, None, 2, 4).to_json()) == Limits(3, None, 2, 4)


def test_leader_movements_fill_the_batch_first():
    steps = chains({0: ((1, 2), (1, 3)), 1: ((1, 2), (3, 1)), 2: ((4, 5), (4, 6)), 3: ((4, 5), (6, 4))})
    candidates = [c[0] for c in steps.values()]
    batch = next_batch(candidates, (), Limits(max_parallel_partitions=2, max_moves_per_broker=None))
    # Partitions 1 and 3 change leader (a new preferred leader): they come first.
    assert [s.tp for s in batch] == [tp(1), tp(3)]
    # With one leader movement allowed, the other slot goes to a step that moves no leader:
    # partition 2's, into broker 6 (two partitions still to arrive there, none arriving yet).
    batch = next_batch(candidates, (), Limits(max_parallel_partitions=2, max_leader_movements=1, max_moves_per_broker=None))
    assert [s.tp for s in batch] == [tp(1), tp(2)]


def test_moves_per_broker_counts_in_flight_steps():
    steps = chains({0: ((1, 2), (1, 3)), 1: ((1, 4), (1, 3)), 2: ((5, 6), (5, 7))})
    in_flight = [steps[tp(0)][0]]  # adding to 3, removing from 2
    candidates = [steps[tp(1)][0], steps[tp(2)][0]]
    # Broker 3 already has one move: partition 1 (adding to 3) must wait.
    assert next_batch(candidates, in_flight, Limits(max_moves_per_broker=1)) == (steps[tp(2)][0],)
    assert len(next_batch(candidates, in_flight, Limits(max_moves_per_broker=2))) == 2


def test_partition_limit_counts_in_flight_steps():
    steps = chains({i: ((1, 2), (1, 3 + i)) for i in range(5)})
    candidates = [c[0] for c in steps.values()]
    assert len(next_batch(candidates[2:], candidates[:2], Limits(max_parallel_partitions=3, max_moves_per_broker=None))) == 1
    assert next_batch(candidates[3:], candidates[:3], Limits(max_parallel_partitions=3)) == ()


def test_brokers_take_turns_busiest_first():
    # Broker 9 receives three partitions, broker 8 one. 9 goes first, and again (3 left for 1
    # arriving beats 8's 1 for 0); then 8 before 9's third (1 left per step each; 8 < 9).
    steps = chains({0: ((1, 2), (1, 8)), 1: ((1, 2), (1, 9)), 2: ((3, 4), (3, 9)), 3: ((5, 6), (5, 9))})
    candidates = [c[0] for c in steps.values()]
    backlog = Backlog.of(steps)

    def chosen(p, **kw):
        return [s.tp for s in next_batch(candidates, kw.get("in_flight", ()), Limits(max_parallel_partitions=p, max_moves_per_broker=None), kw.get("backlog", backlog))]

    assert chosen(1) == [tp(1)]
    assert chosen(3) == [tp(1), tp(2), tp(0)]
    assert chosen(4) == [tp(1), tp(2), tp(0), tp(3)]
    # Steps already arriving on 9 count: 8 goes first.
    flying = [partition_steps(tp(9), (5, 6), (5, 9), 1)[0]] * 2
    assert chosen(3, in_flight=flying) == [tp(0)]
    # Bigger partitions weigh more: one big partition into 8 outweighs three small ones into 9.
    sized = Backlog.of(steps, {tp(0): 10_000, tp(1): 1, tp(2): 1, tp(3): 1})
    assert chosen(1, backlog=sized) == [tp(0)]


def test_drop_only_steps_go_first():
    steps = chains({0: ((1, 2), (1, 9)), 7: ((1, 2, 3), (1, 2))})
    batch = next_batch([c[0] for c in steps.values()], (), Limits(max_parallel_partitions=1), Backlog.of(steps))
    assert [s.tp for s in batch] == [tp(7)]


def test_a_full_broker_leaves_the_rotation():
    # Broker 9 can take one more move; the other steps into 9 wait, 8 still gets its step.
    steps = chains({0: ((1, 2), (1, 9)), 1: ((3, 4), (3, 9)), 2: ((5, 6), (5, 8))})
    flying = [partition_steps(tp(5), (6, 7), (6, 9), 1)[0]]
    batch = next_batch([c[0] for c in steps.values()], flying, Limits(max_moves_per_broker=2), Backlog.of(steps))
    assert sorted(s.tp for s in batch) == [tp(0), tp(2)]


def test_backlog_done_matches_a_recount():
    steps = chains({0: ((1, 2), (3, 4)), 1: ((1, 2), (1, 5))})
    sizes = {tp(0): 10, tp(1): 7}
    backlog = Backlog.of(steps, sizes)
    backlog.done(steps[tp(0)][0])
    again = Backlog.of({tp(0): steps[tp(0)][1:], tp(1): steps[tp(1)]}, sizes)
    assert +backlog.inbound == +again.inbound and backlog.left == again.left


def test_plan_batches_kip_example_runs_in_order():
    steps = chains({0: ((0, 1, 2, 3, 4), (5, 6, 7, 8, 9))}, r=2)
    batches = plan_batches(steps, Limits(max_parallel_replicas=2))
    assert [b[0].after for b in batches] == [s.after for s in steps[tp(0)]]


def test_plan_batches_is_deterministic():
    moves = {i: ((i % 4, (i + 1) % 4, (i + 2) % 4), (4 + i % 3, i % 4, 7)) for i in range(30)}
    limits = Limits(max_parallel_partitions=4, max_leader_movements=2, max_moves_per_broker=2)
    assert plan_batches(chains(moves), limits) == plan_batches(chains(moves), limits)


replica_lists = st.lists(st.integers(min_value=0, max_value=7), min_size=1, max_size=4, unique=True)
optional_limit = st.one_of(st.none(), st.integers(min_value=1, max_value=4))


@settings(max_examples=150, deadline=None)
@given(
    moves=st.lists(st.tuples(replica_lists, replica_lists), min_size=1, max_size=25),
    r=st.integers(min_value=1, max_value=3),
    p=optional_limit,
    lead=optional_limit,
    per_broker=optional_limit,
)
def test_batches_never_exceed_a_limit_and_reach_every_target(moves, r, p, lead, per_broker):
    limits = Limits(r, p, lead, per_broker)
    steps = {tp(i): partition_steps(tp(i), cur, tgt, r) for i, (cur, tgt) in enumerate(moves)}
    batches = plan_batches(steps, limits)
    state = {tp(i): tuple(cur) for i, (cur, _) in enumerate(moves)}
    for batch in batches:
        assert batch, "empty batch"
        assert not exceeded(load_of(batch), limits)
        assert len({s.tp for s in batch}) == len(batch)  # one step per partition per batch
        for s in batch:
            assert s.before == state[s.tp]  # steps run in order, none skipped
            assert len(s.adding) <= r
            state[s.tp] = s.after
    for i, (_, tgt) in enumerate(moves):
        assert state[tp(i)] == tuple(tgt)
    assert sum(len(b) for b in batches) == sum(len(c) for c in steps.values())
