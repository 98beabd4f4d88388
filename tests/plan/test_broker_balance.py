"""`reassign balance` planner: golden plans for literal clusters, and each constraint on its own.

Golden files: tests/plan/golden/broker_balance_*.json. The test never writes them: a missing
one fails; KADMIN_UPDATE_GOLDEN=1 rewrites them after a deliberate change (review the diff).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from kadmin.errors import InputError, NotFoundError
from kadmin.model import ANY_LOG_DIR, TopicPartition
from kadmin.plan.broker_balance import (
    BALANCED,
    KAFKA_BYTES,
    LIMIT,
    STUCK,
    USED_FRACTION,
    BalanceRequest,
    ReplicaMove,
    balance_brokers,
    dir_deviation,
    dir_move_seconds,
    max_deviation,
    transfer_seconds,
)
from kadmin.throttling import RECORD_TOPIC
from kadmin.plan.reassignment_file import plan_to_json
from tests.support.broker_balance import GB, build, racks_of
from tests.support.golden import check_golden

GOLDEN = Path(__file__).parent / "golden"


def golden(name: str, result) -> None:
    doc = {
        "stopped": result.stopped,
        "plan": plan_to_json(result.plan.partitions),
        "moves": [[m.topic, m.partition, m.source_broker, m.source_dir, m.dest_broker, m.dest_dir, m.size]
                  for m in result.moves],
        "brokers_after": [[u.broker, u.occupied, u.replicas] for u in result.brokers_after],
        "dirs_after": [[u.broker, u.path, u.usable_bytes, u.replicas] for u in result.dirs_after],
    }
    check_golden(GOLDEN / f"broker_balance_{name}.json", doc)


def skewed():
    """Six brokers on three racks: "logs" (12 partitions, 1-12 GB, RF 3) all on brokers 1-3 and
    in their first directory; "metrics" (6 x 2 GB, RF 2) on brokers 4-5; broker 6 empty."""
    assign = {("logs", p): [1 + (p + k) % 3 for k in range(3)] for p in range(12)}
    assign.update({("metrics", p): [4, 5] if p % 2 else [5, 4] for p in range(6)})
    size = {("logs", p): (p + 1) * GB for p in range(12)}
    size.update({("metrics", p): 2 * GB for p in range(6)})
    return build(racks_of(6), assign, size, capacity=100 * GB)


def test_golden_skewed_cluster():
    cluster, dirs = skewed()
    result = balance_brokers(cluster, dirs)
    golden("skewed", result)
    assert result.stopped == BALANCED
    assert max_deviation(result.brokers_after, result.mean) <= 0.05 + 1e-9
    assert dir_deviation(result.dirs_after, result.brokers_after) <= 0.05 + 1e-9
    assert result.inter_broker_bytes <= 1.2 * result.lower_bound_bytes + 12 * GB  # one replica's overshoot


def test_golden_with_limits_and_exclusions():
    cluster, dirs = skewed()
    result = balance_brokers(cluster, dirs, BalanceRequest(threshold=0.02, max_bytes=40 * GB,
                                                           exclude_topics="^metrics$"))
    golden("limited", result)
    assert result.stopped == LIMIT
    assert result.inter_broker_bytes + result.intra_broker_bytes <= 40 * GB
    assert all(m.topic == "logs" for m in result.moves)


def test_moved_replicas_name_their_destination_directory_and_the_others_say_any():
    cluster, dirs = skewed()
    result = balance_brokers(cluster, dirs)
    plan = result.plan.by_partition()
    for m in result.moves:
        entry = plan[TopicPartition(m.topic, m.partition)]
        assert entry.log_dirs[entry.replicas.index(m.dest_broker)] == m.dest_dir
    for entry in plan.values():
        original = cluster.partitions[entry.tp].replicas
        assert len(entry.replicas) == len(original)  # replication factor unchanged
        for b, d in zip(entry.replicas, entry.log_dirs):
            moved_here = any(m.dest_broker == b and (m.topic, m.partition) == (entry.topic, entry.partition)
                             for m in result.moves)
            assert (d != ANY_LOG_DIR) == moved_here


def test_a_new_replica_takes_the_place_of_the_one_it_replaces():
    cluster, dirs = build({1: None, 2: None, 3: None}, {("t", 0): [1, 2], ("t", 1): [2, 1]}, 10 * GB,
                          dirs=1, capacity=50 * GB)
    result = balance_brokers(cluster, dirs, BalanceRequest(threshold=0.1))
    (move,) = result.moves
    (entry,) = result.plan.partitions
    before = cluster.partitions[entry.tp].replicas
    assert entry.replicas == tuple(move.dest_broker if b == move.source_broker else b for b in before)


def test_a_broker_that_gave_up_a_replica_never_takes_one_back():
    # Broker 1 sends t-2 to broker 3, then wants bytes from broker 4, whose t-2 fits best: (1, 4)
    # would become (3, 1), reported as two copies although Kafka copies one (to 3) and the
    # replica on broker 1 never leaves. Moves and bytes must be what Kafka copies.
    assign = {("t", 0): [4], ("t", 1): [2, 1], ("t", 2): [1, 4], ("t", 3): [2, 1]}
    size = {("t", 0): 40 * GB, ("t", 1): 10 * GB, ("t", 2): 10 * GB, ("t", 3): 30 * GB}
    cluster, dirs = build(dict.fromkeys((1, 2, 3, 4)), assign, size, dirs=1, capacity=100 * GB)
    result = balance_brokers(cluster, dirs)
    assert result.moves
    for entry in result.plan.partitions:
        before = cluster.partitions[entry.tp].replicas
        copied = sorted(b for b in entry.replicas if b not in before)
        assert sorted(m.dest_broker for m in result.moves
                      if m.inter_broker and (m.topic, m.partition) == (entry.topic, entry.partition)) == copied
        for b, d in zip(entry.replicas, entry.log_dirs):
            assert (d == ANY_LOG_DIR) == (b in before), entry  # a replica staying put is not re-aimed
    assert result.inter_broker_bytes == sum(size[m.topic, m.partition] for m in result.moves if m.inter_broker)


def test_rack_aware_topics_never_get_two_replicas_in_one_rack():
    # Racks: 1, 3 in rA; 2 in rB. Broker 3 is empty but in the rack of broker 1: t's replicas on
    # 1 and 2 can only move to 3 from broker 1. Forbidding that leaves the cluster unbalanced.
    cluster, dirs = build({1: "rA", 2: "rB", 3: "rA"}, {("t", p): [2, 1] for p in range(4)}, 10 * GB,
                          dirs=1, capacity=100 * GB, pin={})
    result = balance_brokers(cluster, dirs, BalanceRequest(threshold=0.02))
    racks = {1: "rA", 2: "rB", 3: "rA"}
    for entry in result.plan.partitions:
        assert len({racks[b] for b in entry.replicas}) == len(entry.replicas)
    assert all(m.source_broker == 1 for m in result.moves if m.inter_broker)
    # Broker 2 stays above the band: nothing of it may go to rack rA, which holds the other copy.
    assert result.stopped == STUCK and any(u.startswith("broker 2") for u in result.unresolved)


def test_no_partition_spans_fewer_racks_rf3_on_two_racks():
    # RF 3 on two racks (even brokers in r0, odd in r1): a partition on both racks must stay on
    # both, e.g. [0, 1, 3] may not become [4, 0, 2] (all in r0); [1, 3, 5] (all r1) may spread.
    racks = {b: f"r{b % 2}" for b in range(6)}
    lists = [[0, 1, 3], [1, 3, 5], [3, 5, 1], [0, 5, 1], [1, 0, 3], [5, 3, 0]]
    for dirs_per_broker in (1, 2):
        cluster, dirs = build(racks, {("big", p): lists[p % 6] for p in range(24)}, 4 * 2**30,
                              dirs=dirs_per_broker, capacity=200 * 2**30)
        result = balance_brokers(cluster, dirs)
        assert result.moves
        for entry in result.plan.partitions:
            before = {racks[b] for b in cluster.partitions[entry.tp].replicas}
            assert len({racks[b] for b in entry.replicas}) >= len(before), (entry, before)


def test_topics_that_were_not_rack_aware_may_share_a_rack():
    cluster, dirs = build({1: "rA", 2: "rA", 3: "rB"}, {("t", p): [1, 2] for p in range(4)}, 10 * GB,
                          dirs=1, capacity=100 * GB)
    result = balance_brokers(cluster, dirs, BalanceRequest(threshold=0.1))
    assert {m.dest_broker for m in result.moves if m.inter_broker} == {3}
    assert result.stopped == BALANCED


def test_partitions_being_moved_and_future_replicas_are_left_alone():
    assign = {("t", p): [1, 2] for p in range(6)}
    cluster, dirs = build({1: None, 2: None, 3: None}, assign, 10 * GB, dirs=2, capacity=100 * GB,
                          adding={("t", 0)}, futures={("t", 1, 1): (1, 4 * GB)})
    result = balance_brokers(cluster, dirs, BalanceRequest(threshold=0.01), reassigning=[TopicPartition("t", 2)])
    touched = {m.partition for m in result.moves} | {a.partition for a in result.plan.partitions}
    assert touched and not touched & {0, 1, 2}
    after = {(u.broker, u.path): u for u in result.dirs_after}
    assert after[1, "/d1"].replica_bytes >= 10 * GB  # the move in flight counts as done


def test_stray_logs_are_never_moved():
    cluster, dirs = build({1: None, 2: None}, {("t", 0): [1], ("t", 1): [1]}, 10 * GB, dirs=1, capacity=100 * GB,
                          strays=[(1, 0, "t", 2, 30 * GB), (1, 0, "gone", 0, 30 * GB)])
    result = balance_brokers(cluster, dirs, BalanceRequest(threshold=0.01))
    assert {(m.topic, m.partition) for m in result.moves} <= {("t", 0), ("t", 1)}
    assert result.brokers_before[0].occupied == 80 * GB  # the strays' bytes still count
    assert result.moves


def test_cordoned_directories_never_receive():
    cluster, dirs = build({1: None, 2: None}, {("t", p): [1] for p in range(8)}, 5 * GB, dirs=3,
                          capacity=100 * GB, cordoned={(2, 0)})
    result = balance_brokers(cluster, dirs, BalanceRequest(threshold=0.01))
    assert {m.dest_broker for m in result.moves if m.inter_broker} == {2}
    assert all(m.dest_dir != "/d0" for m in result.moves if m.dest_broker == 2)
    status = {(u.broker, u.path): u.status.value for u in result.dirs_after}
    assert status[2, "/d0"] == "cordoned"


def without_capacity(dirs):
    """The log dirs as Kafka before 3.3 reports them (DescribeLogDirs before v4): no capacity."""
    return {b: [replace(d, total_bytes=None, usable_bytes=None) for d in ds] for b, ds in dirs.items()}


def out_of_isr(cluster, replicas):
    """``cluster`` with each (topic, partition, broker) of ``replicas`` out of its partition's ISR."""
    parts = dict(cluster.partitions)
    for t, p, b in replicas:
        state = parts[TopicPartition(t, p)]
        isr = tuple(x for x in state.isr if x != b)
        parts[state.tp] = replace(state, isr=isr, leader=isr[0] if isr else -1)
    return replace(cluster, partitions=parts)


@pytest.mark.parametrize("capacity", [True, False], ids=["capacity", "no-capacity"])
def test_a_broker_with_an_offline_directory_takes_no_part_in_the_balance_between_brokers(capacity):
    # As seen on the sandbox (2.8, 4 brokers): broker 1's /d1 is offline with ~34 GB still its
    # own. Read as empty, broker 1 looked far below the mean and took 22 GB more. Its load is
    # unknown: it neither receives nor sends, the mean is over brokers 2-4, its figures and
    # the offline directory's are unknown (None), not 0, and a note names it.
    assign = {("t", p): [1 + p % 4] for p in range(16)}
    pin = {("t", p, 1): 1 for p in range(0, 16, 4)}  # broker 1's replicas all in /d1, offline
    cluster, dirs = build(dict.fromkeys((1, 2, 3, 4)), assign, {("t", p): (1 + p % 3) * GB for p in range(16)},
                          dirs=2, capacity=40 * GB, pin=pin, offline={(1, 1)})
    cluster = out_of_isr(cluster, [("t", p, 1) for p in range(0, 16, 4)])
    for p in range(8):  # broker 2 fuller than the others: it has to send
        cluster, dirs = _with_partition(cluster, dirs, ("u", p), 2, 3 * GB)
    if not capacity:
        dirs = without_capacity(dirs)
    result = balance_brokers(cluster, dirs, BalanceRequest(threshold=0.02))
    assert result.moves, "the other brokers are still balanced"
    assert all(1 not in (m.source_broker, m.dest_broker) for m in result.moves), result.moves
    for u in (*result.brokers_before, *result.brokers_after):
        if u.broker == 1:
            assert (u.occupied, u.replicas, u.share, u.capacity, u.used_fraction) == (None,) * 5
    known = [u for u in result.brokers_before if u.broker != 1]
    if capacity:
        assert result.mean == pytest.approx(sum(u.occupied for u in known) / sum(u.capacity for u in known))
    else:
        assert result.mean == pytest.approx(1 / 3)  # a share of the Kafka bytes of brokers 2-4
        assert any("the Kafka bytes of the 3 brokers in scope whose load is known (mean 33.3%)" in n
                   for n in result.notes), result.notes
    for rows in (result.dirs_before, result.dirs_after):
        (offline,) = [u for u in rows if (u.broker, u.path) == (1, "/d1")]
        assert (offline.replica_bytes, offline.replicas) == (None, None)
    assert any(n.startswith("broker 1: log directory /d1 is offline") and "left out of the balance between brokers" in n
               for n in result.notes), result.notes


def _with_partition(cluster, dirs, tp, broker, size):
    """``cluster`` and ``dirs`` with one more partition, one replica on ``broker``'s /d0."""
    from kadmin.model import PartitionState, ReplicaInfo

    t, p = tp
    parts = dict(cluster.partitions)
    parts[TopicPartition(t, p)] = PartitionState(t, p, broker, (broker,), (broker,))
    dirs = dict(dirs)
    d0 = dirs[broker][0]
    dirs[broker] = [replace(d0, usable_bytes=d0.usable_bytes - size, replicas=(*d0.replicas, ReplicaInfo(t, p, size, 0, False))),
                    *dirs[broker][1:]]
    return replace(cluster, partitions=parts), dirs


def test_partitions_with_a_replica_out_of_the_isr_are_left_alone_and_named():
    # As seen on the sandbox (4.3, broker 2 stopped): clicks-3 [2,1] moved to [2,4], keeping the
    # down broker's replica; Kafka completes a reassignment only once the ISR holds every
    # target replica, so it stayed reassigning until broker 2 came back. Broker 1 is full of
    # partitions that each keep a replica on broker 2 (down), on broker 3 behind, or are only
    # reordered: none may be touched, and the note names them.
    assign = {("c", p): [2, 1] for p in range(4)} | {("d", p): [1, 3] for p in range(4)}
    assign |= {("e", p): [4] for p in range(2)}
    cluster, dirs = build(dict.fromkeys((1, 2, 3, 4, 5)), assign, 10 * GB, dirs=1, capacity=200 * GB)
    down = out_of_isr(cluster, [("c", p, 2) for p in range(4)])
    down = replace(down, brokers={b: x for b, x in cluster.brokers.items() if b != 2})
    live = {b: ds for b, ds in dirs.items() if b != 2}
    result = balance_brokers(out_of_isr(down, [("d", p, 3) for p in range(4)]), live, BalanceRequest(threshold=0.01))
    assert result.plan.partitions == () and result.moves == ()
    (note,) = [n for n in result.notes if "out of the ISR" in n]
    assert note.startswith("8 partitions left as they are") and note.endswith("c-0, c-1, c-2, c-3, d-0, d-1, d-2, d-3")
    # Broker 3's replicas back in the ISR: those partitions move again.
    result = balance_brokers(down, live, BalanceRequest(threshold=0.01))
    assert result.moves and {a.topic for a in result.plan.partitions} == {"d"}


def test_a_replica_on_an_offline_directory_freezes_its_partition_even_while_metadata_lists_it_in_sync():
    # Metadata may lag the failure: the replica that is in no readable directory of a broker
    # with one offline is in the offline one.
    assign = {("t", p): [1, 2] for p in range(4)} | {("u", p): [3] for p in range(4)}
    cluster, dirs = build(dict.fromkeys((1, 2, 3, 4)), assign, 10 * GB, dirs=2, capacity=100 * GB,
                          pin={("t", p, 1): 1 for p in range(4)}, offline={(1, 1)})
    result = balance_brokers(cluster, dirs, BalanceRequest(threshold=0.01))
    assert not any(m.topic == "t" for m in result.moves)
    assert not any(a.topic == "t" for a in result.plan.partitions)
    assert any(n.startswith("4 partitions left as they are") for n in result.notes), result.notes


def test_no_directory_ends_above_the_max_usage():
    # Broker 1 holds 80 GB; broker 2's only directory is 55% full of other files. Balance wants
    # 10 GB on broker 2 (80% down to within 5 points of 67.5%), but at most 60% use allows 5 GB.
    cluster, dirs = build({1: None, 2: None}, {("t", p): [1] for p in range(16)}, 5 * GB, dirs=1,
                          capacity=100 * GB)
    d = dirs[2][0]
    dirs[2] = [type(d)(2, d.path, None, d.total_bytes, d.total_bytes - 55 * GB, False, ())]
    assert balance_brokers(cluster, dirs).inter_broker_bytes == 10 * GB
    result = balance_brokers(cluster, dirs, BalanceRequest(max_dir_usage=0.6))
    after = {u.broker: u for u in result.brokers_after}
    assert after[2].occupied <= 60 * GB
    assert sum(m.size for m in result.moves) == 5 * GB and result.stopped == STUCK


def test_max_moves_stops_with_limit_reached():
    cluster, dirs = skewed()
    result = balance_brokers(cluster, dirs, BalanceRequest(max_moves=2))
    assert len(result.moves) == 2 and result.stopped == LIMIT
    assert max_deviation(result.brokers_after, result.mean) < max_deviation(result.brokers_before, result.mean)
    assert balance_brokers(cluster, dirs, BalanceRequest(max_moves=0)).moves == ()


def test_topic_list_limits_what_moves():
    cluster, dirs = skewed()
    result = balance_brokers(cluster, dirs, BalanceRequest(topics=("metrics",)))
    assert {m.topic for m in result.moves} <= {"metrics"}
    assert {a.topic for a in result.plan.partitions} <= {"metrics"}


def test_broker_list_limits_sources_and_destinations():
    cluster, dirs = skewed()
    result = balance_brokers(cluster, dirs, BalanceRequest(brokers=(1, 2, 3, 6)))
    assert {m.source_broker for m in result.moves} | {m.dest_broker for m in result.moves} <= {1, 2, 3, 6}
    assert [u.broker for u in result.brokers_after] == [1, 2, 3, 6]


def test_preferred_leaders_end_within_one_of_each_other():
    assign = {("t", p): [1, 2, 3] for p in range(9)}  # broker 1 leads everything
    cluster, dirs = build({b: None for b in (1, 2, 3)}, assign, GB, dirs=1)
    result = balance_brokers(cluster, dirs)
    assert not result.moves
    leaders = Counter(a.replicas[0] for a in result.plan.partitions)
    leaders.update(cluster.partitions[tp].replicas[0] for tp in cluster.partitions
                   if tp not in result.plan.by_partition())
    assert sorted(leaders.values()) == [3, 3, 3]
    assert result.leaders_changed == 6


def test_balanced_cluster_gives_an_empty_plan():
    assign = {("t", p): [1 + p % 3, 1 + (p + 1) % 3] for p in range(6)}
    cluster, dirs = build(racks_of(3), assign, GB, dirs=1)
    result = balance_brokers(cluster, dirs)
    assert result.plan.partitions == () and result.stopped == BALANCED and result.lower_bound_bytes == 0


@pytest.mark.parametrize("request_, error, words", [
    (BalanceRequest(topics=("nope",)), NotFoundError, "unknown topic: nope"),
    (BalanceRequest(brokers=(9,)), NotFoundError, "no log directories known for broker 9"),
    (BalanceRequest(exclude_topics="("), InputError, "is not a regular expression"),
    (BalanceRequest(threshold=1.5), InputError, "--threshold"),
    (BalanceRequest(max_dir_usage=0), InputError, "--max-dir-usage"),
    (BalanceRequest(max_bytes=-1), InputError, "--max-bytes"),
])
def test_bad_requests(request_, error, words):
    cluster, dirs = skewed()
    with pytest.raises(error) as e:
        balance_brokers(cluster, dirs, request_)
    assert words in str(e.value)


def test_directories_without_capacity_figures_are_balanced_by_replica_bytes():
    cluster, dirs = build({1: None, 2: None}, {("t", p): [1] for p in range(4)}, GB, dirs=1)
    dirs = {b: [type(d)(d.broker, d.path, replicas=d.replicas) for d in ds] for b, ds in dirs.items()}
    result = balance_brokers(cluster, dirs, BalanceRequest(threshold=0.01))
    assert [u.replicas for u in result.brokers_after] == [2, 2]


def test_copy_time_is_the_busiest_direction_not_bytes_in_and_out_added():
    # a-0: leader 0 sends 10 GB to broker 2. b-0: leader 2 sends 10 GB to broker 0. Broker 0 and
    # broker 2 each send 10 GB and receive 10 GB; the throttle caps each direction separately.
    cluster, dirs = build(dict.fromkeys(range(4)), {("a", 0): [0, 1], ("b", 0): [2, 3]}, 10 * GB, dirs=1)
    moves = (ReplicaMove("a", 0, 1, "/d0", 2, "/d0", 10 * GB), ReplicaMove("b", 0, 3, "/d0", 0, "/d0", 10 * GB))
    result = SimpleNamespace(moves=moves)
    assert transfer_seconds(result, cluster, 50 * 10**6) == 200


@pytest.mark.parametrize("dirs_per_broker", [1, 2])
def test_max_bytes_below_every_candidate_is_limit_reached_not_cannot_improve(dirs_per_broker):
    # Between brokers (1 directory each) or between directories (2, broker 1 all in /d0): every
    # replica is 10 GB; 5 GB allowed moves none of them, which the limit, not the cluster, forbids.
    assign = {("t", p): [1] for p in range(4)}
    racks = dict.fromkeys((1, 2)) if dirs_per_broker == 1 else {1: None}
    cluster, dirs = build(racks, assign, 10 * GB, dirs=dirs_per_broker, capacity=100 * GB)
    assert balance_brokers(cluster, dirs).stopped == BALANCED
    result = balance_brokers(cluster, dirs, BalanceRequest(max_bytes=5 * GB))
    assert result.moves == () and result.stopped == LIMIT
    result = balance_brokers(cluster, dirs, BalanceRequest(max_moves=0))
    assert result.moves == () and result.stopped == LIMIT


def test_a_broker_with_an_offline_directory_gets_no_directory_moves_and_the_plan_validates():
    # Broker 1: 20 GB in /d0, /d1 empty, /d2 offline. Kafka creates no future replica on broker 1
    # until /d2 is back, so its directories are left as they are (a note says so), and it takes
    # no part in the balance between brokers. Broker 2 is full: it sends to broker 3 only.
    from kadmin.backends.base import BrokerLogDirs
    from kadmin.plan.reassignment_file import format_reassignment, parse_reassignment
    from kadmin.plan.validate import validate_reassignment

    assign = {("t", p): [2] for p in range(16)} | {("u", p): [1] for p in range(4)}
    cluster, dirs = build(dict.fromkeys((1, 2, 3)), assign, 5 * GB, dirs=3, capacity=50 * GB, offline={(1, 2)})
    result = balance_brokers(cluster, dirs, BalanceRequest(threshold=0.02))
    assert result.moves and {m.dest_broker for m in result.moves if m.inter_broker} == {3}
    assert all(m.source_broker != 1 and m.dest_broker != 1 for m in result.moves)
    answers = {b: BrokerLogDirs(b, tuple(ds)) for b, ds in dirs.items()}
    parsed = parse_reassignment(format_reassignment(result.plan))
    assert [str(p) for p in validate_reassignment(parsed, cluster, answers)] == []
    assert any("broker 1" in n and "/d2" in n and "offline" in n for n in result.notes), result.notes


def test_a_preferred_leader_moving_to_a_broker_that_leads_enough_hands_the_lead_to_a_follower():
    # Brokers 0-2: 10 partitions of "t" each led by each, 3 GiB replicas; broker 3 is empty and
    # four times as large. Once broker 3 leads 10 (as many as any did), broker 1's last replicas
    # that can go there lead their partition: a follower takes the lead instead of refusing.
    lists = [[1, 0], [1, 0], [2, 0], [2, 0], [1, 2], [2, 0], [1, 0], [1, 2], [2, 0], [1, 0], [1, 2], [2, 1], [0, 1],
             [0, 2], [0, 2], [0, 1], [1, 2], [2, 1], [0, 1], [0, 2], [2, 0], [0, 1], [1, 2], [2, 1], [0, 1], [0, 2],
             [2, 0], [0, 1], [1, 2], [2, 1]]
    assign = {("t", p): r for p, r in enumerate(lists)}
    cluster, dirs = build(dict.fromkeys(range(4)), assign, 3 * 2**30, dirs=2, capacity=100 * 2**30,
                          pin={("t", p, b): p % 2 for p, r in enumerate(lists) for b in r})
    dirs[3] = [type(d)(3, d.path, None, 400 * 2**30, 400 * 2**30, False, ()) for d in dirs[3]]
    result = balance_brokers(cluster, dirs)
    assert result.stopped == BALANCED, result.unresolved
    leaders = Counter(cluster.partitions[tp].replicas[0] for tp in cluster.partitions)
    leaders.update({b: 0 for b in range(4)})
    for entry in result.plan.partitions:
        leaders[cluster.partitions[entry.tp].replicas[0]] -= 1
        leaders[entry.replicas[0]] += 1
    assert max(leaders.values()) - min(leaders.values()) <= 1


@pytest.mark.parametrize("copied", [GB, None])
def test_a_reassignment_under_way_counts_as_done(copied):
    # "big" (40 GB) is moving from broker 1 to broker 2 (1 GB copied so far, or not begun); "t"
    # (4 x 5 GB) is on brokers 1 and 3. Once the move ends broker 1 holds 20 GB and broker 2
    # 40 GB: sending broker 1's bytes to broker 2 (as its figures today suggest) makes it worse.
    from dataclasses import replace

    from kadmin.model import ReplicaInfo

    assign = {("big", 0): [1, 2]} | {("t", p): [1, 3] for p in range(4)}
    size = {("big", 0): 40 * GB} | {("t", p): 5 * GB for p in range(4)}
    cluster, dirs = build(dict.fromkeys((1, 2, 3)), assign, size, dirs=1, capacity=100 * GB)
    tp = TopicPartition("big", 0)
    cluster.partitions[tp] = replace(cluster.partitions[tp], adding=(2,), removing=(1,))
    d = dirs[2][0]
    listed = () if copied is None else (ReplicaInfo("big", 0, copied, 0, False),)
    dirs[2] = [replace(d, usable_bytes=d.total_bytes - (copied or 0), replicas=listed)]
    result = balance_brokers(cluster, dirs, BalanceRequest(threshold=0.02))
    start = {u.broker: u for u in result.brokers_start}
    assert (start[1].occupied, start[2].occupied, start[3].occupied) == (20 * GB, 40 * GB, 20 * GB)
    assert (start[1].replicas, start[2].replicas) == (4, 1)
    assert not any(m.dest_broker == 2 for m in result.moves)
    assert result.stopped == STUCK  # broker 2 above the band, but "big" is moving already
    # The figures before are what the disks hold now (as log-dirs describe shows them), not
    # the reassignment's end; a note says what the figures after count of it.
    before = {u.broker: u for u in result.brokers_before}
    assert (before[1].occupied, before[2].occupied) == (60 * GB, copied or 0)
    assert (before[1].replicas, before[2].replicas) == (5, 0 if copied is None else 1)
    after = {u.broker: u for u in result.brokers_after}
    assert (after[1].occupied, after[2].occupied) == (20 * GB, 40 * GB)
    (note,) = [n for n in result.notes if "reassignment between brokers is in flight" in n]
    assert "'before' is now" in note and "broker 1: 1 replica it removes (40.0 GB) counted as gone" in note
    if copied is None:
        assert "broker 2: 1 replica it adds not in any directory yet counted at full size (40.0 GB)" in note
    else:
        assert "broker 2: 1 replica it adds counted at full size (39.0 GB still to copy)" in note


def test_a_move_between_directories_in_flight_counts_before_as_now_and_after_as_done():
    cluster, dirs = build({1: None}, {("t", 0): [1]}, 10 * GB, dirs=2, capacity=100 * GB,
                          futures={("t", 0, 1): (1, 4 * GB)})
    result = balance_brokers(cluster, dirs, BalanceRequest())
    before = {u.path: u for u in result.dirs_before}
    after = {u.path: u for u in result.dirs_after}
    assert (before["/d0"].replica_bytes, before["/d1"].replica_bytes) == (10 * GB, 4 * GB)
    assert (after["/d0"].replica_bytes, after["/d1"].replica_bytes) == (0, 10 * GB)


# --- disks that report no capacity (Kafka before 3.3) --------------------------------------------

def no_capacity(dirs, brokers=None):
    """What DescribeLogDirs before v4 reports: no total or usable bytes (of ``brokers``, default all)."""
    from dataclasses import replace

    return {b: [replace(d, total_bytes=None, usable_bytes=None) if brokers is None or b in brokers else d
                for d in ds] for b, ds in dirs.items()}


def kafka_28_cluster():
    """The cluster of the Kafka 2.8 report: 4 brokers on 2 racks holding 77.1, 64.2, 51.7 and
    70.7 GB of RF 1 partitions of 3 GB (and one smaller per directory), broker 1 with 44.4 GB in
    /d0 and 19.8 GB in /d1."""
    layout = {0: (40.0, 37.1), 1: (44.4, 19.8), 2: (30.0, 21.7), 3: (40.0, 30.7)}  # GB per directory
    assign, size, pin = {}, {}, {}
    for b, per_dir in layout.items():
        for k, total in enumerate(per_dir):
            left = round(total * 10)  # in 0.1 GB
            while left:
                tp = ("t", len(assign))
                s = min(left, 30)
                assign[tp], size[tp], pin[(*tp, b)] = [b], s * GB // 10, k
                left -= s
    cluster, dirs = build({b: f"r{b % 2}" for b in layout}, assign, size, pin=pin)
    return cluster, no_capacity(dirs)


def test_without_capacity_brokers_are_balanced_on_their_share_of_the_kafka_bytes():
    # Before: every directory got the cluster's total as capacity, so brokers read 14.6%..9.8% used
    # "within 5% of the mean" and nothing moved, broker 1's 44.4 / 19.8 GB directories included.
    cluster, dirs = kafka_28_cluster()
    result = balance_brokers(cluster, dirs)
    assert result.balanced_on == KAFKA_BYTES
    before = {u.broker: u for u in result.brokers_before}
    assert [round(before[b].occupied / GB, 1) for b in range(4)] == [77.1, 64.2, 51.7, 70.7]
    assert [round(before[b].share, 3) for b in range(4)] == [0.292, 0.243, 0.196, 0.268]
    assert result.mean == 0.25 and result.band == pytest.approx((0.2375, 0.2625))  # 5% of the mean
    assert any(m.inter_broker for m in result.moves) and any(not m.inter_broker for m in result.moves)
    assert result.stopped == BALANCED, result.unresolved
    assert all(0.2375 - 1e-9 <= u.share <= 0.2625 + 1e-9 for u in result.brokers_after)
    for b in range(4):  # each directory within 5% of its broker's mean directory
        ds = [d.replica_bytes for d in result.dirs_after if d.broker == b]
        mean = sum(ds) / len(ds)
        assert all(abs(x - mean) <= 0.05 * mean + 1 for x in ds), (b, ds)
    # No capacity or used share made up, and a note says what the figures are.
    for u in (*result.brokers_before, *result.brokers_after):
        assert u.capacity is None and u.used_fraction is None
    assert all(d.total_bytes is None and d.used_fraction is None for d in result.dirs_after)
    assert any(n.startswith("brokers 0, 1, 2, 3 report no disk capacity (DescribeLogDirs before v4, Kafka before "
                            "3.3), so their directories were taken as equal in size and Kafka bytes balanced")
               for n in result.notes), result.notes
    assert any("balanced on Kafka bytes" in n and "relative to that mean (23.8%..26.2%)" in n for n in result.notes)


def test_the_threshold_without_capacity_is_relative_to_the_mean_share_whatever_the_number_of_brokers():
    # 20 brokers, one holding nothing: 5 points of the total (0%..10% around a 5% mean) would
    # call that balanced; 5% of the mean does not.
    assign = {("t", p): [1 + p % 19] for p in range(380)}
    cluster, dirs = build(dict.fromkeys(range(1, 21)), assign, GB // 4, dirs=1)
    result = balance_brokers(cluster, no_capacity(dirs))
    assert result.mean == pytest.approx(0.05)
    assert any(m.dest_broker == 20 for m in result.moves)
    assert result.stopped == BALANCED


def test_a_cluster_half_upgraded_balances_brokers_on_kafka_bytes_and_keeps_known_limits():
    # Brokers 1 and 2 report capacity (Kafka 3.3+), broker 3 does not (2.8). Brokers are compared
    # on their share of the Kafka bytes; broker 1's directories (capacity known, 100 and 300 GB)
    # are balanced on used share; broker 3's on bytes; a directory that reports usable bytes
    # never receives more (broker 2's /d1: 3 GB usable).
    from dataclasses import replace

    assign = {("t", p): [1] for p in range(12)} | {("u", p): [3] for p in range(6)}
    cluster, dirs = build(dict.fromkeys((1, 2, 3)), assign, 10 * GB, dirs=2)
    dirs[1] = [replace(dirs[1][0], total_bytes=300 * GB, usable_bytes=180 * GB), dirs[1][1]]
    dirs[2] = [dirs[2][0], replace(dirs[2][1], usable_bytes=3 * GB)]
    dirs = no_capacity(dirs, brokers={3})
    result = balance_brokers(cluster, dirs)
    assert result.balanced_on == KAFKA_BYTES
    before = {u.broker: u for u in result.brokers_before}
    assert before[1].capacity == 400 * GB and before[1].used_fraction == pytest.approx(120 / 400)
    assert before[3].capacity is None and before[3].used_fraction is None
    assert before[1].share == pytest.approx(120 / 180) and result.mean == pytest.approx(1 / 3)
    assert not any(m.dest_broker == 2 and m.dest_dir == "/d1" for m in result.moves)
    after = {(d.broker, d.path): d for d in result.dirs_after}
    b1 = [after[1, "/d0"].used_fraction, after[1, "/d1"].used_fraction]
    assert abs(b1[0] - b1[1]) <= 2 * 0.05 + 1e-9, b1  # used share, not bytes: 300 GB holds more
    assert after[1, "/d0"].replica_bytes > after[1, "/d1"].replica_bytes
    assert after[3, "/d0"].total_bytes is None and after[3, "/d0"].used_fraction is None
    assert any("brokers 1, 2 report capacity" in n for n in result.notes), result.notes


def test_kadmins_own_record_topic_is_not_ballast_unless_named():
    # Broker 1 is 1 GB above the band; only the record topic's replica is small enough to fix it.
    assign = {("t", 0): [1], ("t", 1): [2], (RECORD_TOPIC, 0): [1]}
    size = {("t", 0): 10 * GB, ("t", 1): 8 * GB, (RECORD_TOPIC, 0): GB}
    cluster, dirs = build(dict.fromkeys((1, 2)), assign, size, dirs=1)
    result = balance_brokers(cluster, dirs, BalanceRequest(threshold=0.005))
    assert result.moves == () and result.stopped == STUCK
    assert sum(u.occupied for u in result.brokers_before) == 19 * GB  # its bytes still count
    named = balance_brokers(cluster, dirs, BalanceRequest(threshold=0.005, topics=(RECORD_TOPIC, "t")))
    assert [m.topic for m in named.moves] == [RECORD_TOPIC]


def test_kafkas_internal_topics_move_like_any_other():
    assign = {("__consumer_offsets", p): [1] for p in range(4)}
    cluster, dirs = build(dict.fromkeys((1, 2)), assign, 10 * GB, dirs=1)
    assert {m.topic for m in balance_brokers(cluster, dirs).moves} == {"__consumer_offsets"}
    kept = balance_brokers(cluster, dirs, BalanceRequest(exclude_topics="^__"))
    assert kept.moves == ()


def test_copy_time_between_directories_is_the_busiest_brokers_bytes_at_the_log_dir_rate():
    moves = (ReplicaMove("a", 0, 1, "/d0", 1, "/d1", 30 * GB), ReplicaMove("a", 1, 1, "/d0", 1, "/d1", 20 * GB),
             ReplicaMove("b", 0, 2, "/d0", 2, "/d1", 40 * GB), ReplicaMove("c", 0, 2, "/d0", 3, "/d1", 90 * GB))
    result = SimpleNamespace(moves=moves)
    assert dir_move_seconds(result, 100 * 10**6) == 500  # broker 1: 50 GB; the move to broker 3 is not one


def test_with_capacity_everything_is_as_before():
    cluster, dirs = skewed()
    result = balance_brokers(cluster, dirs)
    assert result.balanced_on == USED_FRACTION and not result.notes
    assert all(u.share == u.used_fraction and u.capacity == 200 * GB for u in result.brokers_before)
