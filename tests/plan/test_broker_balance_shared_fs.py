"""`reassign balance` where a broker's log directories share one filesystem (common on test and
cloud hosts): every directory then reports the filesystem's total and usable bytes. The
filesystem's capacity, room and --max-dir-usage count once, and the directories are balanced on
Kafka bytes, as `log-dirs balance` does, with the same note."""

from __future__ import annotations

from kadmin.model import Broker, ClusterState, LogDir, PartitionState, ReplicaInfo
from kadmin.plan.balance import balance_log_dirs
from kadmin.plan.broker_balance import BALANCED, BalanceRequest, balance_brokers

GB = 10**9
T = 100 * GB  # every filesystem and disk here


def shared(broker: int, dirs: dict[str, list[tuple[str, int, int]]], other: int) -> list[LogDir]:
    """Directories on one filesystem of ``T`` bytes holding their replicas and ``other`` bytes
    that are not Kafka's: each reports the filesystem's total and usable bytes."""
    used = sum(size for reps in dirs.values() for _, _, size in reps) + other
    return [LogDir(broker, path, None, T, T - used, False, _replicas(reps)) for path, reps in dirs.items()]


def disks(broker: int, dirs: dict[str, list[tuple[str, int, int]]], other: int = 0) -> list[LogDir]:
    """A disk of ``T`` bytes per directory, each holding ``other`` bytes besides its replicas."""
    return [LogDir(broker, path, None, T, T - other - sum(s for _, _, s in reps), False, _replicas(reps))
            for path, reps in dirs.items()]


def _replicas(reps):
    return tuple(ReplicaInfo(t, p, size, 0, False) for t, p, size in reps)


def cluster_of(log_dirs) -> ClusterState:
    """Every replica is its partition's only one."""
    parts = {r.tp: PartitionState(r.topic, r.partition, b, (b,), (b,))
             for b, ds in log_dirs.items() for d in ds for r in d.replicas}
    return ClusterState("c", 1, {b: Broker(b, "127.0.0.1", 9092 + b) for b in log_dirs}, parts)


def filesystem_used(result, broker: int) -> float:
    """The used share of the broker's one filesystem after the plan; every directory on it says
    the same."""
    fractions = {d.used_fraction for d in result.dirs_after if d.broker == broker}
    assert len(fractions) == 1, fractions
    return fractions.pop()


def test_the_capacity_of_a_shared_filesystem_counts_once_and_it_ends_within_max_dir_usage():
    # Broker 1: one 100 GB filesystem under /d0 and /d1, 60% used. Broker 2: three 100 GB disks,
    # 95% used. Counted once, the mean is 345/400 and broker 1 needs 21.25..30 GB; counted per
    # directory (200 GB at 60%) it took 35 GB and ended at 95%, above --max-dir-usage 90%.
    dirs = {1: shared(1, {"/d0": [("a", 0, 2 * GB)], "/d1": [("a", 1, GB)]}, other=57 * GB),
            2: disks(2, {f"/d{k}": [("b", 19 * k + i, 5 * GB) for i in range(19)] for k in range(3)})}
    result = balance_brokers(cluster_of(dirs), dirs)
    before = {u.broker: u for u in result.brokers_before}
    assert before[1].capacity == T and before[1].occupied == 60 * GB and before[1].used_fraction == 0.6
    assert result.mean == 345 / 400
    low, high = result.band
    assert all(low <= u.share <= high for u in result.brokers_after)
    assert 0.8125 <= filesystem_used(result, 1) <= 0.9
    assert {u.broker: u.used_fraction for u in result.brokers_after}[1] == filesystem_used(result, 1)


def test_no_more_than_the_usable_bytes_of_a_shared_filesystem_arrive():
    # 50 GB usable on broker 1's filesystem; each directory reporting it as its own let 60 GB in.
    dirs = {1: shared(1, {"/d0": [("a", 0, 2 * GB)], "/d1": [("a", 1, GB)]}, other=47 * GB),
            2: disks(2, {f"/d{k}": [("b", 25 * k + i, 4 * GB) for i in range(25)] for k in range(4)})}
    result = balance_brokers(cluster_of(dirs), dirs, BalanceRequest(max_dir_usage=1.0))
    arriving = sum(m.size for m in result.moves if m.inter_broker and m.dest_broker == 1)
    assert 35 * GB <= arriving <= 50 * GB  # into the band around 90%, and no further
    assert filesystem_used(result, 1) == (50 * GB + arriving) / T


def test_directories_on_one_filesystem_are_balanced_on_kafka_bytes_with_log_dirs_balances_note():
    # Their used share cannot differ, so it never moved a replica between them.
    dirs = {1: shared(1, {"/d0": [("t", p, GB) for p in range(6)], "/d1": []}, other=7 * GB)}
    cluster = cluster_of(dirs)
    result = balance_brokers(cluster, dirs)
    assert {d.path: d.replica_bytes for d in result.dirs_after} == {"/d0": 3 * GB, "/d1": 3 * GB}
    assert all(not m.inter_broker for m in result.moves) and result.stopped == BALANCED
    assert filesystem_used(result, 1) == 0.13  # moves between them change nothing on the disk
    log_dirs = balance_log_dirs(cluster, dirs)  # what `log-dirs balance` plans and says
    assert {d.path: d.replica_bytes for d in log_dirs.after} == {"/d0": 3 * GB, "/d1": 3 * GB}
    assert len(result.notes) == 1 and result.notes[0].startswith(log_dirs.notes[0])


def test_replicas_arriving_on_a_shared_filesystem_cause_no_moves_between_its_directories():
    # Broker 1's filesystem is 60% used, /d1 holding 15 GB more Kafka bytes than /d0. Broker 2
    # sends its 15 GB replica (its 30 "fill" partitions, excluded, keep the preferred leaders
    # even). Counted per directory, its arrival made /d0 look 15 points fuller than /d1 on the
    # same disk and 1 GB replicas went from /d0 to /d1, freeing nothing.
    dirs = {1: shared(1, {"/d0": [("a", p, GB) for p in range(5)], "/d1": [("a", p, GB) for p in range(5, 25)]},
                      other=35 * GB),
            2: disks(2, {"/d0": [("big", 0, 15 * GB)] + [("fill", p, 0) for p in range(30)], "/d1": []},
                     other=70 * GB)}
    result = balance_brokers(cluster_of(dirs), dirs, BalanceRequest(exclude_topics="^fill$"))
    assert [(m.topic, m.source_broker, m.dest_broker, m.dest_dir) for m in result.moves] == [("big", 2, 1, "/d0")]
    assert {d.path: d.replica_bytes for d in result.dirs_after if d.broker == 1} == {"/d0": 20 * GB, "/d1": 20 * GB}
    assert result.stopped == BALANCED, result.unresolved
