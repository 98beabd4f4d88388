"""`log-dirs balance` planner: golden plans for literal brokers, evacuation, in-flight moves, limits.

Golden files: tests/plan/golden/balance_*.json (KADMIN_UPDATE_GOLDEN=1 rewrites them).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmin.errors import InputError, NotFoundError
from kadmin.model import Broker, ClusterState, LogDir, LogDirStatus, PartitionState, ReplicaInfo, TopicPartition
from kadmin.plan.balance import balance_log_dirs, usage_spread
from kadmin.plan.filesystems import no_capacity_note
from kadmin.plan.reassignment_file import plan_to_json
from tests.support.golden import check_golden

GOLDEN = Path(__file__).parent / "golden"
GB = 10**9


def build(dirs: dict[int, dict[str, list[tuple]]], total: int = 100 * GB, other: int = 0,
          offline=(), cordoned=(), reassigning=()) -> tuple[ClusterState, dict[int, list[LogDir]]]:
    """``dirs``: broker -> path -> replicas as (topic, partition, size[, "future"]). Every
    partition's replica set is the brokers that list it (sorted); ``other`` bytes of each disk
    are not Kafka's."""
    holders: dict[TopicPartition, set[int]] = {}
    log_dirs = {}
    for b, paths in dirs.items():
        out = []
        for path, reps in paths.items():
            infos = tuple(ReplicaInfo(t, p, size, 0, bool(rest)) for t, p, size, *rest in reps)
            for r in infos:
                holders.setdefault(r.tp, set()).add(b)
            if (b, path) in offline:
                out.append(LogDir(b, path, "KafkaStorageException"))
                continue
            used = sum(r.size for r in infos) + other
            out.append(LogDir(b, path, None, total, total - used, (b, path) in cordoned, infos))
        log_dirs[b] = out
    parts = {tp: PartitionState(tp.topic, tp.partition, min(bs), tuple(sorted(bs)), tuple(sorted(bs)),
                                adding=(max(bs),) if tp in reassigning else ())
             for tp, bs in holders.items()}
    brokers = {b: Broker(b, "127.0.0.1", 9092 + b) for b in dirs}
    return ClusterState("test", 1, brokers, parts), log_dirs


# Broker 1: /a is full of data, /b and /c are nearly empty. Broker 2: already even.
CLUSTER, DIRS = build({
    1: {"/a": [("logs", p, (p + 1) * GB) for p in range(8)], "/b": [("logs", 8, GB)], "/c": []},
    2: {"/a": [("logs", 0, 3 * GB), ("logs", 1, 2 * GB)], "/b": [("logs", 2, 5 * GB)]},
})


def golden(name: str, result) -> None:
    doc = {
        "plan": plan_to_json(result.plan.partitions),
        "moves": [[m.broker, str(m.tp), m.source, m.destination, m.size] for m in result.moves],
        "after": [[u.broker, u.path, u.status.value, u.usable_bytes, u.replica_bytes, u.replicas] for u in result.after],
    }
    path = GOLDEN / f"balance_{name}.json"
    check_golden(path, doc)


def test_golden_balance():
    result = balance_log_dirs(CLUSTER, DIRS)
    golden("even_out", result)
    assert {m.broker for m in result.moves} == {1}  # broker 2 is within tolerance already
    spread = usage_spread(result.after)
    assert spread[1] < usage_spread(result.before)[1]
    assert spread[1] == pytest.approx(0.01)  # 38 GB in whole GB over 3 disks: 13, 13, 12 at best


def test_golden_evacuate():
    result = balance_log_dirs(CLUSTER, DIRS, evacuate=[(1, "/a")])
    golden("evacuate", result)
    after = {(u.broker, u.path): u for u in result.after}
    assert after[1, "/a"].replicas == 0 and after[1, "/a"].replica_bytes == 0


def test_plan_keeps_replica_sets_and_names_the_destination_only_on_the_moving_broker():
    c, dirs = build({1: {"/a": [("t", 0, 10 * GB), ("t", 1, 10 * GB)], "/b": []},
                     2: {"/a": [("t", 0, 10 * GB), ("t", 1, 10 * GB)]}})
    result = balance_log_dirs(c, dirs)
    assert len(result.moves) == 1
    (entry,) = result.plan.partitions
    assert entry.replicas == (1, 2)
    assert entry.log_dirs == ("/b", "any")


def test_cordoned_directories_are_never_targets():
    c, dirs = build({1: {"/a": [("t", p, GB) for p in range(10)], "/c": [], "/d": []}}, cordoned={(1, "/c")})
    result = balance_log_dirs(c, dirs)
    assert result.moves and {m.destination for m in result.moves} == {"/d"}
    after = {u.path: u for u in result.after}
    assert after["/c"].status is LogDirStatus.CORDONED and after["/c"].replicas == 0


def test_a_broker_with_an_offline_directory_is_left_as_it_is_and_said_why():
    """Kafka creates no future replica on a broker while any of its directories is offline
    (KAFKA_STORAGE_ERROR): every move planned there would fail."""
    full = {"/a": [("t", p, GB) for p in range(10)], "/b": [], "/d": []}
    c, dirs = build({1: full, 2: {"/a": [("u", p, GB) for p in range(10)], "/b": []}}, offline={(1, "/b")})
    result = balance_log_dirs(c, dirs)
    assert result.moves and {m.broker for m in result.moves} == {2}
    assert result.notes == ("broker 1: log directory /b is offline; Kafka creates no future replica on the broker "
                            "until it is back, so its directories were left as they are",)
    with pytest.raises(InputError, match=r"cannot evacuate broker 1 /a: its log directory /b is offline"):
        balance_log_dirs(c, dirs, evacuate=[(1, "/a")])


def test_an_offline_directorys_contents_are_unknown_not_empty():
    # DescribeLogDirs lists nothing in an offline directory (KAFKA_STORAGE_ERROR), yet what it
    # holds is still the broker's: unknown (None) before and after, as log-dirs describe says.
    c, dirs = build({1: {"/a": [("t", p, GB) for p in range(4)], "/b": []}}, offline={(1, "/b")})
    result = balance_log_dirs(c, dirs)
    for rows in (result.before, result.after):
        (b,) = [u for u in rows if u.path == "/b"]
        assert (b.replica_bytes, b.replicas) == (None, None)
        (a,) = [u for u in rows if u.path == "/a"]
        assert (a.replica_bytes, a.replicas) == (4 * GB, 4)


def test_a_move_in_flight_is_left_alone_and_counted_as_done():
    # t-0 is being copied from /a to /b (3 of 8 GB so far): once done /a and /b hold 8 GB each.
    c, dirs = build({1: {"/a": [("t", 0, 8 * GB), ("t", 1, 8 * GB)], "/b": [("t", 0, 3 * GB, "future")]}})
    result = balance_log_dirs(c, dirs)
    assert result.moves == ()
    after = {u.path: u for u in result.after}
    assert after["/a"].replica_bytes == after["/b"].replica_bytes == 8 * GB
    # Replicas before are counted as log-dirs describe counts them: a future copy is no replica
    # of its directory yet (it was counted there too, t-0 twice).
    before = {u.path: u for u in result.before}
    assert (before["/a"].replicas, before["/b"].replicas) == (2, 0)
    assert (after["/a"].replicas, after["/b"].replicas) == (1, 1)


def test_evacuation_redirects_a_future_replica_headed_for_the_evacuated_directory():
    c, dirs = build({1: {"/a": [("t", 0, 8 * GB)], "/b": [("t", 0, 3 * GB, "future")], "/c": []}})
    result = balance_log_dirs(c, dirs, evacuate=[(1, "/b")])
    assert [(m.source, m.destination) for m in result.moves] == [("/a", "/c")]
    assert {u.path: u.replica_bytes for u in result.after} == {"/a": 0, "/b": 0, "/c": 8 * GB}


def test_evacuation_that_cannot_fit_is_refused_with_the_shortfall():
    c, dirs = build({1: {"/a": [("t", 0, 30 * GB), ("t", 1, 30 * GB)], "/b": [("t", 2, 10 * GB)]}},
                    total=60 * GB)
    with pytest.raises(InputError) as e:
        balance_log_dirs(c, dirs, evacuate=[(1, "/a")])
    # 60 GB to move, 50 GB usable on /b.
    assert "short by 10,000,000,000 bytes" in str(e.value)


def test_evacuation_blocked_by_one_large_replica_says_which():
    c, dirs = build({1: {"/a": [("t", 0, 30 * GB)], "/b": [("t", 1, 35 * GB)], "/c": [("t", 2, 35 * GB)]}},
                    total=60 * GB)
    with pytest.raises(InputError) as e:
        balance_log_dirs(c, dirs, evacuate=[(1, "/a")])
    assert "replica t-0" in str(e.value) and "short by 5,000,000,000 bytes" in str(e.value)


def test_evacuation_refuses_a_partition_being_reassigned():
    c, dirs = build({1: {"/a": [("t", 0, GB)], "/b": []}}, reassigning={TopicPartition("t", 0)})
    with pytest.raises(InputError) as e:
        balance_log_dirs(c, dirs, evacuate=[(1, "/a")])
    assert e.value.problems == ["t-0 (being reassigned)"]


def test_max_moves_keeps_the_most_useful_moves():
    unlimited = balance_log_dirs(CLUSTER, DIRS)
    limited = balance_log_dirs(CLUSTER, DIRS, max_moves=1)
    assert len(unlimited.moves) > 1 and len(limited.moves) == 1
    assert limited.moves[0] == unlimited.moves[0] or limited.moves[0] in unlimited.moves
    assert usage_spread(limited.after)[1] < usage_spread(limited.before)[1]
    assert balance_log_dirs(CLUSTER, DIRS, max_moves=0).moves == ()


def test_max_moves_counts_only_the_replicas_an_evacuation_must_move():
    """/a holds t-0 and t-1, and t-2's future copy (from /c) is headed there: emptying /a takes 2
    moves; the future is re-aimed if the budget allows, else sent back to /c (a cancel)."""
    c, dirs = build({1: {"/a": [("t", 0, GB), ("t", 1, GB), ("t", 2, GB // 2, "future")],
                         "/b": [], "/c": [("t", 2, GB), ("u", 0, 9 * GB)]}})
    unlimited = balance_log_dirs(c, dirs, evacuate=[(1, "/a")])
    assert ("t", 2, "/c", "/b") in {(m.topic, m.partition, m.source, m.destination) for m in unlimited.moves}
    result = balance_log_dirs(c, dirs, max_moves=2, evacuate=[(1, "/a")])
    moves = {(m.tp.partition, m.source, m.destination) for m in result.moves}
    assert {(0, "/a"), (1, "/a")} <= {(p, src) for p, src, _ in moves}
    assert (2, "/c", "/c") in moves  # the future copy is cancelled: the budget went on emptying /a


def test_max_moves_smaller_than_an_evacuation_is_refused():
    with pytest.raises(InputError, match="evacuating needs 8 moves, more than --max-moves 2"):
        balance_log_dirs(CLUSTER, DIRS, max_moves=2, evacuate=[(1, "/a")])


def test_broker_list_limits_the_plan():
    result = balance_log_dirs(CLUSTER, DIRS, brokers=[2])
    assert result.moves == () and {u.broker for u in result.after} == {2}


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"brokers": [7]}, NotFoundError, "no log directories known for broker 7"),
        ({"evacuate": [(1, "/zz")]}, NotFoundError, "broker 1 has no log directory /zz"),
        ({"evacuate": [(9, "/a")]}, NotFoundError, "broker 9 is unknown"),
        ({"evacuate": [(1, "/a")], "brokers": [2]}, InputError, "not in the broker list"),
        ({"max_moves": -1}, InputError, "--max-moves"),
        ({"brokers": [2, 1, 2, 1]}, InputError, "Broker list contains duplicate entries: 1, 2"),
    ],
)
def test_bad_requests(kwargs, error, words):
    with pytest.raises(error, match=None) as e:
        balance_log_dirs(CLUSTER, DIRS, **kwargs)
    assert words in str(e.value)


def test_evacuating_a_broker_left_out_of_the_broker_list_says_so():
    """The command reads only the listed brokers' directories: the broker is not unknown."""
    listed = {2: DIRS[2]}
    with pytest.raises(InputError, match=r"--evacuate 1:/a: broker 1 is not in the broker list"):
        balance_log_dirs(CLUSTER, listed, brokers=[2], evacuate=[(1, "/a")])


def test_evacuating_an_offline_directory_is_refused():
    c, dirs = build({1: {"/a": [], "/b": []}}, offline={(1, "/a")})
    with pytest.raises(InputError, match="offline"):
        balance_log_dirs(c, dirs, evacuate=[(1, "/a")])


def test_brokers_without_capacity_figures_are_balanced_by_replica_bytes():
    reps = [ReplicaInfo("t", p, GB, 0, False) for p in range(6)]
    dirs = {1: [LogDir(1, "/a", replicas=tuple(reps)), LogDir(1, "/b")]}
    c = ClusterState("c", 1, {1: Broker(1, "h", 1)},
                     {r.tp: PartitionState("t", r.partition, 1, (1,), (1,)) for r in reps})
    result = balance_log_dirs(c, dirs)
    assert {u.path: u.replica_bytes for u in result.after} == {"/a": 3 * GB, "/b": 3 * GB}


def test_evacuation_refuses_a_move_in_flight_it_may_not_redirect():
    c, dirs = build({1: {"/a": [("t", 0, 8 * GB)], "/b": [("t", 0, 3 * GB, "future")], "/c": []}},
                    reassigning={TopicPartition("t", 0)})
    with pytest.raises(InputError) as e:
        balance_log_dirs(c, dirs, evacuate=[(1, "/b")])
    assert e.value.problems == ["t-0 (a move into it is in flight)"]


def _shared_fs(broker: int, dirs: dict[str, list[tuple[str, int, int]]], total: int = 100 * GB,
               other: int = 0) -> list[LogDir]:
    """Directories on one filesystem: each reports the filesystem's total and usable bytes."""
    used = sum(size for reps in dirs.values() for _, _, size in reps) + other
    return [LogDir(broker, path, None, total, total - used, False,
                   tuple(ReplicaInfo(t, p, size, 0, False) for t, p, size in reps)) for path, reps in dirs.items()]


def test_directories_sharing_one_filesystem_are_balanced_by_kafka_bytes_with_a_note():
    reps = [("t", p, GB) for p in range(6)]
    dirs = {1: _shared_fs(1, {"/a": reps, "/b": []}, other=7 * GB),
            2: [LogDir(2, "/a", None, 100 * GB, 99 * GB, False, (ReplicaInfo("u", 0, GB, 0, False),)),
                LogDir(2, "/b", None, 100 * GB, 100 * GB)]}
    parts = {TopicPartition("t", p): PartitionState("t", p, 1, (1,), (1,)) for p in range(6)}
    parts[TopicPartition("u", 0)] = PartitionState("u", 0, 2, (2,), (2,))
    c = ClusterState("c", 1, {b: Broker(b, "h", b) for b in (1, 2)}, parts)
    assert usage_spread(balance_log_dirs(c, dirs).before)[1] == 0  # what the fraction alone sees
    result = balance_log_dirs(c, dirs)
    assert {u.path: u.replica_bytes for u in result.after if u.broker == 1} == {"/a": 3 * GB, "/b": 3 * GB}
    assert {m.broker for m in result.moves} == {1}  # broker 2 has separate disks, 1% apart: left alone
    assert len(result.notes) == 1
    assert "broker 1: the log directories share one filesystem" in result.notes[0]
    assert "Kafka bytes were balanced instead" in result.notes[0]
    # Separate disks reporting different figures: no note.
    assert balance_log_dirs(CLUSTER, DIRS).notes == ()


def test_evacuation_skips_stray_logs_and_names_them():
    # /a holds a replica, a deleted topic's log (unknown partition) and the copy a cancelled move
    # left (broker 1 is no replica of moved-0).
    c, dirs = build({1: {"/a": [("t", 0, GB), ("gone", 0, GB), ("moved", 0, GB)], "/b": []},
                     2: {"/a": [("moved", 0, GB)]}})
    parts = {tp: s for tp, s in c.partitions.items() if tp.topic != "gone"}
    parts[TopicPartition("moved", 0)] = PartitionState("moved", 0, 2, (2,), (2,))
    c = ClusterState(c.cluster_id, c.controller_id, c.brokers, parts)
    result = balance_log_dirs(c, dirs, evacuate=[(1, "/a")])
    assert [(m.broker, str(m.tp), m.destination) for m in result.moves] == [(1, "t-0", "/b")]
    assert result.notes == (
        "broker 1 /a: 2 stray logs left in place, not replicas to move (a deleted topic's log, or the copy "
        "a cancelled move left; Kafka removes them itself): gone-0 (unknown partition), "
        "moved-0 (not a replica of this broker)",)


def test_directories_on_one_filesystem_share_its_room_for_the_copies():
    """Two directories reporting the same total and usable bytes to the byte (one filesystem,
    4 bytes free): balanced by Kafka bytes, yet every copy in flight needs room on that one
    filesystem at once, so the moves planned together bring at most 4 bytes (found by the
    property test: two moves of 3 and 2 bytes, 5 in all)."""
    sizes0 = {("t1", 1): 0, ("t2", 2): 3, ("t0", 3): 0, ("t2", 8): 2, ("t0", 6): 41, ("t1", 7): 50}
    sizes1 = {("t0", 0): 46, ("t0", 9): 41}
    parts = {TopicPartition(t, p): PartitionState(t, p, 1, (1,), (1,)) for t, p in [*sizes0, *sizes1]}
    dirs = [LogDir(1, path, None, 100, 4, False, tuple(ReplicaInfo(t, p, n, 0, False) for (t, p), n in sizes.items()))
            for path, sizes in (("/d0", sizes0), ("/d1", sizes1))]
    result = balance_log_dirs(ClusterState("c", 1, {1: Broker(1, "h", 9092)}, parts), {1: dirs})
    assert result.moves and sum(m.size for m in result.moves) <= 4


def test_the_note_on_brokers_without_capacity_agrees_with_their_number():
    assert no_capacity_note([3]).startswith("broker 3 reports no disk capacity (DescribeLogDirs before v4, ")
    assert "so its directories were taken as equal in size" in no_capacity_note([3])
    assert no_capacity_note([1, 2]).startswith("brokers 1, 2 report no disk capacity")
    assert "so their directories were taken as equal in size" in no_capacity_note([1, 2])


def test_kadmins_throttle_records_are_not_balanced_but_are_evacuated():
    """kadmin's own record topic is left where it is when evening directories out (as `reassign
    balance` leaves it), even when it is the replica that would even them best; an evacuation
    moves it like every other replica."""
    from kadmin.throttling import RECORD_TOPIC

    cluster, dirs = build({1: {"/a": [(RECORD_TOPIC, 0, 2 * GB), ("logs", 0, 5 * GB)], "/b": []}})
    result = balance_log_dirs(cluster, dirs)
    assert [(m.topic, m.source, m.destination) for m in result.moves] == [("logs", "/a", "/b")]
    result = balance_log_dirs(cluster, dirs, evacuate=[(1, "/a")])
    assert {m.topic for m in result.moves} == {RECORD_TOPIC, "logs"}


def _reassigning(cluster: ClusterState, **moves: tuple[tuple[int, ...], tuple[int, ...]]) -> ClusterState:
    """``cluster`` with reassignments in flight: "topic_partition"=(adding, removing)."""
    from dataclasses import replace

    parts = dict(cluster.partitions)
    for name, (adding, removing) in moves.items():
        topic, p = name.rsplit("_", 1)
        tp = TopicPartition(topic, int(p))
        parts[tp] = replace(parts[tp], adding=adding, removing=removing)
    return replace(cluster, partitions=parts)


def test_replicas_a_reassignment_removes_count_as_gone():
    """The tester's broker 3: /a holds 24 GB of replicas a reassignment is taking off the broker,
    and 20 GB that stay; /b and /c hold 9 GB each. Once it finishes /a holds 20 GB: moving
    19.5 GB more out of it (what the planner did, counting the leaving replicas as staying) would
    leave /a nearly empty. The plan evens out what stays; before is now, after counts them gone."""
    leaving = [("orders", p, 3_500_000_000) for p in range(7)]
    c, dirs = build({3: {"/a": [*leaving, ("audit", 0, 20 * GB)], "/b": [("clicks", 0, 9 * GB)],
                         "/c": [("clicks", 1, 9 * GB)]},
                     0: {"/a": [("orders", p, 3_500_000_000) for p in range(7)]}})
    c = _reassigning(c, **{f"orders_{p}": ((), (3,)) for p in range(7)})
    result = balance_log_dirs(c, dirs, brokers=[3])
    assert [m for m in result.moves if m.source == "/a"] == []
    before = {u.path: (u.replica_bytes, u.replicas) for u in result.before}
    after = {u.path: (u.replica_bytes, u.replicas) for u in result.after}
    assert before["/a"] == (44_500_000_000, 8)  # what is there now
    assert after["/a"] == (20 * GB, 1)  # once the reassignment is done
    assert after["/a"][0] >= max(after["/b"][0], after["/c"][0])
    (note,) = result.notes
    assert "broker 3: 7 replicas it removes (24.5 GB) counted as gone" in note
    assert "'after' is once it and this plan are done, 'before' is now" in note


def test_replicas_a_reassignment_adds_count_at_their_leaders_size():
    """Broker 0 has copied 1 GB of orders-0 into /a; its leader (broker 1) holds 10 GB. Counted at
    1 GB, /a looked emptier than /b (6 GB) and received more; counted at 10 GB it gives instead,
    and its room is what the copy still needs taken off."""
    c, dirs = build({0: {"/a": [("orders", 0, GB), ("t", 0, GB), ("t", 1, GB)],
                         "/b": [("t", 2, 3 * GB), ("t", 3, 3 * GB)]},
                     1: {"/a": [("orders", 0, 10 * GB)]}})
    c = ClusterState(c.cluster_id, c.controller_id, c.brokers,
                     {**c.partitions, TopicPartition("orders", 0): PartitionState(
                         "orders", 0, 1, (1, 0), (1,), adding=(0,))})
    result = balance_log_dirs(c, dirs, brokers=[0])
    after = {u.path: u for u in result.after}
    assert {(m.source, m.destination) for m in result.moves} == {("/a", "/b")}
    assert after["/a"].replica_bytes + after["/b"].replica_bytes == 18 * GB  # orders-0 at 10 GB
    assert "broker 0: 1 replica it adds counted at full size (9.0 GB still to copy)" in result.notes[0]
    assert "counted at its leader's size" in result.notes[0]


def test_a_replica_being_added_that_no_directory_lists_yet_is_named():
    c, dirs = build({0: {"/a": [("t", 0, GB)], "/b": []}, 1: {"/a": [("orders", 0, 5 * GB)]}})
    c = ClusterState(c.cluster_id, c.controller_id, c.brokers,
                     {**c.partitions, TopicPartition("orders", 0): PartitionState(
                         "orders", 0, 1, (1, 0), (1,), adding=(0,))})
    (note,) = balance_log_dirs(c, dirs, brokers=[0]).notes
    assert "broker 0: 1 replica it adds not in any directory yet, not counted" in note


def test_evacuating_a_directory_whose_replicas_a_reassignment_removes():
    """They leave with the reassignment: nothing to move, nothing refused."""
    c, dirs = build({1: {"/a": [("t", 0, GB)], "/b": []}, 2: {"/a": [("t", 0, GB)]}})
    c = _reassigning(c, t_0=((), (1,)))
    result = balance_log_dirs(c, dirs, brokers=[1], evacuate=[(1, "/a")])
    assert result.moves == ()
    assert {u.path: u.replicas for u in result.after} == {"/a": 0, "/b": 0}
