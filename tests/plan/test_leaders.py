"""Leadership, the pure part: the summary, what an election would do, batches under limits
(property-tested), outcomes with reasons, Kafka's wording, the flags and the JSON file."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kadmin.backends.base import ElectionType
from kadmin.errors import InputError, UsageError
from kadmin.leaders import (
    Candidate,
    ElectionReport,
    batches,
    election_hint,
    kafka_lines,
    outcomes,
    plan_election,
    summarize,
)
from kadmin.leaders_request import ElectParams, parse_election_file
from kadmin.model import Broker, ClusterState, PartitionState, TopicPartition

PREFERRED, UNCLEAN = ElectionType.PREFERRED, ElectionType.UNCLEAN


def tp(p: int, topic: str = "t") -> TopicPartition:
    return TopicPartition(topic, p)


def cluster(parts: dict[int, tuple[int, tuple[int, ...], tuple[int, ...]]], live=(0, 1, 2)) -> ClusterState:
    """parts: partition -> (leader, replicas, isr)."""
    return ClusterState(
        "c", 0, {b: Broker(b, "h", 9092 + b) for b in live},
        {tp(p): PartitionState("t", p, leader, replicas, isr) for p, (leader, replicas, isr) in parts.items()},
    )


def test_summary_counts_leaders_against_preferred():
    c = cluster({0: (1, (0, 1, 2), (0, 1, 2)), 1: (1, (1, 2, 0), (1, 2)), 2: (-1, (2, 0), (2,)), 3: (0, (0, 1), (0, 1))})
    s = summarize(c)
    assert [p.tp for p in s.not_preferred] == [tp(0)]
    assert [p.tp for p in s.leaderless] == [tp(2)]
    assert [p.tp for p in s.under_replicated] == [tp(1), tp(2)]
    by = {b.broker: b for b in s.brokers}
    assert (by[0].leaders, by[0].preferred, by[0].imbalance) == (1, 2, -1)
    assert (by[1].leaders, by[1].preferred, by[1].imbalance) == (2, 1, 1)
    assert not s.balanced
    only_b2 = summarize(c, brokers=[2])
    assert [b.broker for b in only_b2.brokers] == [2]
    assert tp(3) not in {p.tp for p in only_b2.partitions}


def test_a_replica_being_added_does_not_make_its_partition_under_replicated():
    """[2,3,0] -> [2,3,1] in flight: replicas 2,3,1,0, ISR 2,3,0, adding 1 (Kafka's TopicCommand
    counts the replication factor without the adding replicas)."""
    from dataclasses import replace

    c = cluster({0: (2, (2, 3, 1, 0), (2, 3, 0)), 1: (2, (2, 3, 1, 0), (2, 3))}, live=(0, 1, 2, 3))
    moving = {q: replace(c.partitions[tp(q)], adding=(1,), removing=(0,)) for q in (0, 1)}
    s = summarize(replace(c, partitions={tp(q): moving[q] for q in (0, 1)}))
    assert [p.tp for p in s.under_replicated] == [tp(1)]


def test_preferred_candidates_and_reasons():
    c = cluster({0: (1, (0, 1), (0, 1)), 1: (1, (1, 0), (1, 0)), 2: (1, (2, 1), (1,)), 3: (1, (3, 1), (1, 3))})
    got = {x.tp.partition: x for x in plan_election(c, PREFERRED, [tp(0), tp(1), tp(2), tp(3), tp(9)])}
    assert got[0].changes and got[0].new_leader == 0
    assert got[1].expected == "ELECTION_NOT_NEEDED"
    assert got[2].expected == "PREFERRED_LEADER_NOT_AVAILABLE" and "not in the ISR" in got[2].reason
    assert got[3].expected == "PREFERRED_LEADER_NOT_AVAILABLE" and "broker 3 is down" in got[3].reason
    assert got[9].expected == "UNKNOWN_TOPIC_OR_PARTITION"
    # All partitions: those needing no election are left out, as Kafka answers.
    assert tp(1) not in {x.tp for x in plan_election(c, PREFERRED, None)}


def test_unclean_prefers_a_live_isr_replica_and_warns_of_loss():
    c = cluster({0: (-1, (3, 1, 2), (3, 2)), 1: (-1, (3, 1), (3,)), 2: (0, (0, 1), (0, 1)), 3: (-1, (3, 4), (3,))})
    got = {x.tp.partition: x for x in plan_election(c, UNCLEAN, [tp(0), tp(1), tp(2), tp(3)])}
    assert got[0].new_leader == 2 and got[0].data_loss is None
    assert got[1].new_leader == 1 and "not in the ISR" in got[1].data_loss
    assert got[2].expected == "ELECTION_NOT_NEEDED"
    assert got[3].expected == "ELIGIBLE_LEADERS_NOT_AVAILABLE"


def cand(p: int, new_leader: int | None) -> Candidate:
    return Candidate(tp(p), 9, new_leader, None if new_leader is not None else "ELECTION_NOT_NEEDED")


@settings(max_examples=200, deadline=None)
@given(
    leaders=st.lists(st.one_of(st.none(), st.integers(0, 5)), max_size=60),
    max_per_broker=st.one_of(st.none(), st.integers(1, 4)),
    batch_size=st.one_of(st.none(), st.integers(1, 10)),
)
def test_batches_keep_the_limits(leaders, max_per_broker, batch_size):
    cands = [cand(i, b) for i, b in enumerate(leaders)]
    out = batches(cands, max_per_broker, batch_size)
    # Every candidate exactly once; no empty batch.
    assert sorted(c.tp for b in out for c in b) == sorted(c.tp for c in cands)
    assert all(out_b for out_b in out)
    for b in out:
        if batch_size is not None:
            assert len(b) <= batch_size
        if max_per_broker is not None:
            per = Counter(c.new_leader for c in b if c.changes)
            assert max(per.values(), default=0) <= max_per_broker
    # As few batches as the busiest broker needs (first fit is optimal for the per-broker limit alone).
    if batch_size is None and max_per_broker is not None:
        busiest = max(Counter(b for b in leaders if b is not None).values(), default=0)
        assert len(out) == max(1 if cands else 0, -(-busiest // max_per_broker))
    # The order of one broker's partitions is kept.
    for broker in set(leaders) - {None}:
        order = [c.tp.partition for b in out for c in b if c.new_leader == broker]
        assert order == sorted(order)


def test_batches_reject_zero():
    with pytest.raises(ValueError):
        batches([], 0, None)


def test_outcomes_carry_reasons_and_kafka_words():
    before = plan_election(cluster({0: (1, (0, 1), (0, 1)), 1: (1, (1, 0), (1, 0))}), PREFERRED, [tp(0), tp(1)])
    after = cluster({0: (1, (0, 1), (1,)), 1: (1, (1, 0), (1, 0))})
    got = outcomes({tp(0): "PREFERRED_LEADER_NOT_AVAILABLE: Failed to elect", tp(1): "ELECTION_NOT_NEEDED: x",
                    tp(2): None}, before, after)
    assert got[0].failed and got[0].reason == "the preferred replica 0 is not in the ISR [1]"
    assert got[1].not_needed and not got[1].failed
    assert got[2].elected
    lines = kafka_lines(ElectionReport(PREFERRED, got))
    assert lines == [
        "Successfully completed leader election (PREFERRED) for partitions t-2",
        "Valid replica already elected for partitions t-1",
        "Error completing leader election (PREFERRED) for partition: t-0: PREFERRED_LEADER_NOT_AVAILABLE: "
        "Failed to elect (the preferred replica 0 is not in the ISR [1])",
    ]


def test_a_reason_that_repeats_the_brokers_words_is_not_added_again():
    before = plan_election(cluster({0: (1, (0, 1), (0, 1))}), PREFERRED, [tp(0), tp(9)])
    got = outcomes({tp(9): "UNKNOWN_TOPIC_OR_PARTITION: The partition does not exist."}, before, cluster({}))
    assert kafka_lines(ElectionReport(PREFERRED, got)) == [
        "Error completing leader election (PREFERRED) for partition: t-9: UNKNOWN_TOPIC_OR_PARTITION: "
        "The partition does not exist."]


@pytest.mark.parametrize("params,message", [
    (ElectParams(all_topic_partitions=True), "--preferred or --unclean"),
    (ElectParams(preferred=True, unclean=True, all_topic_partitions=True), "exclude each other"),
    (ElectParams(preferred=True, election_type="UNCLEAN", all_topic_partitions=True), "exclude each other"),
    (ElectParams(election_type="sideways", all_topic_partitions=True), "PREFERRED or UNCLEAN"),
    (ElectParams(preferred=True), "choose the partitions"),
    (ElectParams(preferred=True, all_topic_partitions=True, topic="t"), "exclude each other"),
    (ElectParams(preferred=True, partition=1, path_to_json_file="f"), "--partition needs --topic"),
    (ElectParams(preferred=True, partition=1, all_topic_partitions=True), "--partition needs --topic"),
    (ElectParams(preferred=True, all_topic_partitions=True, max_per_broker=0), "at least 1"),
])
def test_params_refused(params, message):
    with pytest.raises(UsageError, match=message):
        params.validate()


def test_partition_without_topic_says_so():
    """`leaders elect --preferred --partition 1`: the flag missing is --topic, not a source of
    partitions in general (it said 'choose the partitions: ...')."""
    with pytest.raises(UsageError) as e:
        ElectParams(preferred=True, partition=1).validate()
    assert str(e.value) == "--partition needs --topic"


def test_params_accepted():
    assert ElectParams(election_type="preferred", topic="t").validate() is PREFERRED
    assert ElectParams(unclean=True, election_type="UNCLEAN", path_to_json_file="f").validate() is UNCLEAN


def test_election_file():
    assert parse_election_file('{"partitions":[{"topic":"foo","partition":1},{"topic":"bar","partition":0}]}') == [
        TopicPartition("foo", 1), TopicPartition("bar", 0)]
    with pytest.raises(InputError) as e:
        parse_election_file('{"partitions":[{"topic":"foo"},{"topic":"a b","partition":-1}]}')
    assert len(e.value.problems) >= 3
    with pytest.raises(InputError, match="duplicate"):
        parse_election_file('{"partitions":[{"topic":"foo","partition":1},{"topic":"foo","partition":1}]}')
    with pytest.raises(InputError):
        parse_election_file('{"version":1}')


def test_an_election_file_may_carry_other_keys_as_kafkas_tool_ignores_them():
    """kafka-leader-election.sh reads only partitions[].topic/partition: a reassignment plan
    (version, replicas, log_dirs) or a commented file is a valid election file."""
    plan = ('{"version":1,"comment":"x","partitions":[{"topic":"foo","partition":1,"replicas":[1,2],'
            '"log_dirs":["any","any"]}]}')
    assert parse_election_file(plan) == [TopicPartition("foo", 1)]


def test_an_empty_election_file_says_it_lists_no_partitions():
    with pytest.raises(InputError) as e:
        parse_election_file('{"partitions":[]}')
    assert e.value.problems == ["partitions: lists no partitions"]


def test_election_hint_offers_the_election_only_for_partitions_it_can_move():
    """Kafka elects the preferred replica only alive and in the ISR. Broker 3 down: t-0..t-6
    wait for it; t-7 waits for broker 0 to rejoin the ISR; t-8 and t-9 can move now."""
    parts = {p: (1, (3, 1, 2), (1, 2)) for p in range(7)}
    parts[7] = (1, (0, 1), (1,))
    parts[8] = (2, (0, 2), (0, 2))
    parts[9] = (0, (1, 0), (0, 1))
    c = cluster(parts)
    assert election_hint(summarize(c)) == [
        "10 partitions not led by their preferred replica; 2 can move back now: "
        "`kadmin leaders elect --preferred --all-topic-partitions` (it fails for the other 8, exit 1, until their "
        "preferred replica can lead):",
        "  t-0, t-1, t-2, t-3, t-4 and 2 more: preferred broker 3 is down: start it first",
        "  t-7: preferred replica 0 is not in the ISR: elect once it has caught up and rejoined it",
    ]
    assert election_hint(summarize(c, brokers=[3])) == [
        "7 partitions not led by their preferred replica, and a preferred election can move none of them now "
        "(it needs the preferred replica alive and in the ISR):",
        "  t-0, t-1, t-2, t-3, t-4 and 2 more: preferred broker 3 is down: start it first",
    ]
    assert election_hint(summarize(c, topics=["nope"])) == []
    only_movable = cluster({8: parts[8], 9: parts[9]})
    assert election_hint(summarize(only_movable)) == [
        "2 partitions not led by their preferred replica: "
        "`kadmin leaders elect --preferred --all-topic-partitions` moves them back."
    ]


def test_election_hint_offers_only_the_partitions_a_filtered_show_lists():
    """With --topic-list or --broker-list, --all-topic-partitions would elect partitions outside
    the filter: the hint offers --topic T for one whole topic, else the election file that
    `leaders show -o json` with the same filters is; one partition, its own command."""
    c = cluster({0: (1, (0, 1), (0, 1)), 1: (0, (1, 0), (0, 1)), 2: (2, (0, 2), (0, 2))})
    hint = election_hint(summarize(c, topics=["t"]))
    assert hint == ["3 partitions not led by their preferred replica: "
                    "`kadmin leaders elect --preferred --topic t` moves them back."]
    file_offer = ("`kadmin leaders show --broker-list 0 -o json > election.json && "
                  "kadmin leaders elect --preferred --path-to-json-file election.json` moves them back.")
    assert election_hint(summarize(c, brokers=[0])) == [f"3 partitions not led by their preferred replica: {file_offer}"]
    assert election_hint(summarize(c, topics=["t", "u"], brokers=[0]))[0].startswith(
        "3 partitions not led by their preferred replica: `kadmin leaders show --topic-list t,u --broker-list 0 -o json"
    )
    assert election_hint(summarize(c, brokers=[2])) == [
        "1 partition not led by its preferred replica: "
        "`kadmin leaders elect --preferred --topic t --partition 2` moves it back."
    ]


def test_election_hint_says_one_blocked_partition_in_the_singular():
    c = cluster({0: (1, (3, 1, 2), (1, 2))})  # broker 3, its preferred replica, is down
    assert election_hint(summarize(c))[0] == (
        "1 partition not led by its preferred replica, and a preferred election cannot move it now "
        "(it needs the preferred replica alive and in the ISR):"
    )
