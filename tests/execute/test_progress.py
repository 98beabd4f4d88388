"""Progress arithmetic: KIP-179's statuses, bytes moved/left from sizes, rate and ETA from two
snapshots, per replica and in total, for moves between brokers and between directories."""

import pytest

from kadmin.backends.base import BrokerLogDirs
from kadmin.execute.progress import (
    INTER_BROKER,
    LOG_DIR,
    NOT_HOSTED,
    OFFLINE,
    UNANSWERED,
    UNKNOWN_BROKER,
    UNKNOWN_PARTITION,
    UNKNOWN_TOPIC,
    snapshot,
    snapshot_json,
)
from kadmin.model import (
    Assignment,
    Broker,
    ClusterState,
    LogDir,
    PartitionReassignment,
    PartitionState,
    ReassignmentPlan,
    ReplicaInfo,
    TopicPartition,
)

TP = TopicPartition
MB = 1_000_000


def cluster(parts, brokers=(1, 2, 3, 4)):
    return ClusterState("c", 1, {b: Broker(b, "127.0.0.1", 9000 + b) for b in brokers},
                        {TP(p.topic, p.partition): p for p in parts})


def dirs(entries):
    """entries: (broker, path, topic, partition, size, lag, is_future)."""
    by = {}
    for b, path, t, p, size, lag, fut in entries:
        by.setdefault(b, {}).setdefault(path, []).append(ReplicaInfo(t, p, size, lag, fut))
    return {b: BrokerLogDirs(b, tuple(LogDir(b, path, replicas=tuple(reps)) for path, reps in paths.items()))
            for b, paths in by.items()}


# foo-0 moves from [1,2] to [3,2]: broker 3 is adding and has copied 30 of 80 MB.
FOO0 = PartitionState("foo", 0, 1, (3, 2, 1), (1, 2), adding=(3,), removing=(1,))
ONGOING = {TP("foo", 0): PartitionReassignment("foo", 0, (3, 2, 1), (3,), (1,))}


def sizes(copied, leader_size=80 * MB):
    return dirs([(1, "/d1", "foo", 0, leader_size, 0, False), (2, "/d1", "foo", 0, leader_size, 0, False),
                 (3, "/d1", "foo", 0, copied, 0, False)])


def test_catching_up_follower_progress_comes_from_sizes():
    s = snapshot(0.0, cluster([FOO0]), ONGOING, sizes(30 * MB), end_offsets={TP("foo", 0): 8000})
    rows = {r.broker: r for r in s.replicas}
    assert set(rows) == {1, 2, 3}  # every replica of a reassigning partition
    new = rows[3]
    assert new.move == INTER_BROKER
    assert (new.total_bytes, new.moved_bytes, new.remaining_bytes) == (80 * MB, 30 * MB, 50 * MB)
    assert new.status == "Behind: ~5000 messages" and new.messages_estimated  # 8000 * 50/80
    assert rows[1].status == rows[2].status == "In sync"
    assert new.rate is None and s.totals.eta is None  # one snapshot: no rate yet
    assert not s.done and s.reassigning_partitions == 1


def test_rate_and_eta_from_successive_snapshots_with_producers_still_writing():
    first = snapshot(100.0, cluster([FOO0]), ONGOING, sizes(30 * MB))
    # 2 s later: 2 MB more copied, but the leader grew by 0.5 MB: the gap closes at 0.75 MB/s
    second = snapshot(102.0, cluster([FOO0]), ONGOING, sizes(32 * MB, 80.5 * MB), previous=first)
    new = next(r for r in second.replicas if r.broker == 3)
    assert new.rate == pytest.approx(1 * MB)
    assert new.remaining_bytes == 48.5 * MB
    assert new.eta == pytest.approx(48.5 / 0.75)
    assert second.totals.rate == pytest.approx(1 * MB)
    assert second.totals.eta == pytest.approx(48.5 / 0.75)
    assert second.totals.moved_bytes == 32 * MB and second.totals.remaining_bytes == 48.5 * MB


def test_log_dir_move_uses_the_future_replica():
    bar = PartitionState("bar", 0, 2, (2,), (2,))
    d = dirs([(2, "/a", "bar", 0, 10 * MB, 0, False), (2, "/b", "bar", 0, 4 * MB, 1234, True)])
    first = snapshot(0.0, cluster([bar]), {}, d)
    row = first.replicas[0]
    assert (row.move, row.status, row.messages_behind, row.messages_estimated) == (LOG_DIR, "Behind: 1234 messages", 1234, False)
    assert (row.log_dir, row.future_log_dir) == ("/a", "/b")
    assert (row.moved_bytes, row.remaining_bytes) == (4 * MB, 6 * MB)
    d2 = dirs([(2, "/a", "bar", 0, 10 * MB, 0, False), (2, "/b", "bar", 0, 7 * MB, 500, True)])
    second = snapshot(3.0, cluster([bar]), {}, d2, previous=first)
    assert second.replicas[0].rate == pytest.approx(1 * MB) and second.replicas[0].eta == pytest.approx(3.0)
    # once promoted, the replica is in sync and nothing moves
    d3 = dirs([(2, "/b", "bar", 0, 10 * MB, 0, False)])
    assert snapshot(4.0, cluster([bar]), {}, d3).done


def test_kip179_statuses_for_a_plan():
    parts = [PartitionState("my_topic", 0, 0, (0, 1), (0, 1)), PartitionState("my_topic", 1, 0, (0, 2), (0, 2))]
    plan = ReassignmentPlan((
        Assignment("my_topic", 0, (0, 42)),
        Assignment("asdf", 0, (1,)),
        Assignment("my_topic", 42, (1,)),
        Assignment("my_topic", 1, (1, 0)),
    ))
    s = snapshot(0.0, cluster(parts, brokers=(0, 1, 2)), {}, dirs([]), plan=plan)
    status = {(r.topic, r.partition, r.broker): r.status for r in s.replicas}
    assert status == {
        ("my_topic", 0, 0): "In sync",
        ("my_topic", 0, 42): UNKNOWN_BROKER,
        ("asdf", 0, 1): UNKNOWN_TOPIC,
        ("my_topic", 42, 1): UNKNOWN_PARTITION,
        ("my_topic", 1, 1): NOT_HOSTED,
        ("my_topic", 1, 0): "In sync",
    }


@pytest.mark.parametrize("metadata_says", [True, False])
def test_a_replica_in_an_offline_log_dir_is_offline_not_a_move(metadata_says):
    # foo-0 on [1, 2]; broker 2's directory /d2 holding it went offline: out of the ISR, and no
    # online directory of broker 2 lists it. Metadata (v5+) names it offline; librdkafka's view
    # does not, and the offline directory tells instead. Nothing copies it: no move to wait for.
    foo0 = PartitionState("foo", 0, 1, (1, 2), (1,), offline_replicas=(2,) if metadata_says else ())
    d = dirs([(1, "/d1", "foo", 0, 80 * MB, 0, False), (2, "/d1", "bar", 0, 1 * MB, 0, False)])
    d[2] = BrokerLogDirs(2, d[2].log_dirs + (LogDir(2, "/d2", error="KafkaStorageException"),))
    plan = ReassignmentPlan((Assignment("foo", 0, (1, 2)),))
    s = snapshot(0.0, cluster([foo0]), {}, d, plan=plan)
    rows = {r.broker: r for r in s.replicas}
    assert rows[2].status == OFFLINE and not rows[2].moving and rows[1].status == "In sync"
    assert s.done and s.totals.moving_replicas == 0
    # a follower merely behind on a broker whose directories are all online is still catching up
    caught = snapshot(0.0, cluster([PartitionState("foo", 0, 1, (1, 2), (1,))]), {}, sizes_of_two(), plan=plan)
    assert {r.broker: r.move for r in caught.replicas} == {1: "none", 2: INTER_BROKER} and not caught.done


def test_a_broker_that_did_not_answer_leaves_the_snapshot_not_done():
    """Broker 2's DescribeLogDirs failed: its log-dir moves cannot be seen, so nothing seen
    moving is not 'done'; the snapshot names it (and its JSON)."""
    bar = PartitionState("bar", 0, 1, (1, 2), (1, 2))
    d = dirs([(1, "/d1", "bar", 0, 10 * MB, 0, False)])
    d[2] = BrokerLogDirs(2, error="REQUEST_TIMED_OUT")
    s = snapshot(0.0, cluster([bar]), {}, d, plan=ReassignmentPlan((Assignment("bar", 0, (1, 2)),)))
    assert not s.done and s.totals.moving_replicas == 0 and dict(s.unanswered) == {2: "REQUEST_TIMED_OUT"}
    assert snapshot_json(s)["unanswered_brokers"] == [{"broker": 2, "error": "REQUEST_TIMED_OUT"}]
    d[2] = BrokerLogDirs(2, (LogDir(2, "/d1", replicas=(ReplicaInfo("bar", 0, 10 * MB, 0, False),)),))
    assert snapshot(1.0, cluster([bar]), {}, d).done


def test_a_replica_on_a_broker_that_did_not_answer_is_unknown_not_in_sync():
    """Broker 2 did not answer DescribeLogDirs while Metadata's ISR still lists it: its replicas'
    rows say their state is unknown (the ISR lags a dead broker; a log-dir move there cannot be
    seen), in the snapshot and its JSON; the answering brokers' rows are unchanged, and a
    replica the ISR leaves out is still behind, with its sizes unknown."""
    import jsonschema

    from kadmin.schemas import load

    bar = PartitionState("bar", 0, 1, (1, 2), (1, 2))
    baz = PartitionState("baz", 0, 1, (1, 2), (1,))  # broker 2 out of the ISR: catching up
    d = dirs([(1, "/d1", "bar", 0, 10 * MB, 0, False), (1, "/d1", "baz", 0, 10 * MB, 0, False)])
    d[2] = BrokerLogDirs(2, error="REQUEST_TIMED_OUT")
    plan = ReassignmentPlan((Assignment("bar", 0, (1, 2)), Assignment("baz", 0, (1, 2))))
    s = snapshot(0.0, cluster([bar, baz]), {}, d, plan=plan)
    rows = {(r.topic, r.broker): r for r in s.replicas}
    assert rows[("bar", 2)].status == UNANSWERED and rows[("bar", 2)].status != "In sync"
    assert not rows[("bar", 2)].moving and rows[("bar", 2)].log_dir is None
    assert rows[("bar", 1)].status == rows[("baz", 1)].status == "In sync"
    assert (rows[("baz", 2)].status, rows[("baz", 2)].move, rows[("baz", 2)].remaining_bytes) == (
        "Behind", INTER_BROKER, None)
    doc = snapshot_json(s, "2026-11-26T02:00:00Z")
    jsonschema.validate(doc, load("progress-snapshot"))
    assert {(x["topic"], x["broker"]): x["status"] for x in doc["replicas"]}[("bar", 2)] == UNANSWERED
    # once it answers, its replica is in sync again
    d[2] = BrokerLogDirs(2, (LogDir(2, "/d1", replicas=(ReplicaInfo("bar", 0, 10 * MB, 0, False),)),))
    again = snapshot(1.0, cluster([bar, baz]), {}, d, plan=plan)
    assert {r.broker: r.status for r in again.replicas if r.topic == "bar"} == {1: "In sync", 2: "In sync"}


def sizes_of_two():
    return dirs([(1, "/d1", "foo", 0, 80 * MB, 0, False), (2, "/d1", "foo", 0, 30 * MB, 0, False)])


def test_totals_over_several_moves_and_json_shape():
    foo1 = PartitionState("foo", 1, 2, (4, 2), (2,), adding=(4,))
    ongoing = dict(ONGOING)
    ongoing[TP("foo", 1)] = PartitionReassignment("foo", 1, (4, 2), (4,), ())
    d = dirs([(1, "/d", "foo", 0, 10, 0, False), (2, "/d", "foo", 0, 10, 0, False), (3, "/d", "foo", 0, 4, 0, False),
              (2, "/d", "foo", 1, 20, 0, False), (4, "/d", "foo", 1, 5, 0, False)])
    a = snapshot(0.0, cluster([FOO0, foo1]), ongoing, d)
    d2 = dirs([(1, "/d", "foo", 0, 10, 0, False), (2, "/d", "foo", 0, 10, 0, False), (3, "/d", "foo", 0, 6, 0, False),
               (2, "/d", "foo", 1, 20, 0, False), (4, "/d", "foo", 1, 9, 0, False)])
    b = snapshot(1.0, cluster([FOO0, foo1]), ongoing, d2, previous=a)
    assert b.totals.moving_replicas == 2
    assert (b.totals.moved_bytes, b.totals.remaining_bytes) == (15, 15)
    assert b.totals.rate == pytest.approx(6.0)
    # The makespan: broker 4 has 11 bytes left closing at 4/s, broker 3 has 4 left at 2/s.
    assert b.totals.eta == pytest.approx(11 / 4)
    doc = snapshot_json(b, "2026-11-21T13:00:00Z")
    assert doc["totals"]["remaining_bytes"] == 15 and len(doc["replicas"]) == 5
    from kadmin.schemas import load
    import jsonschema

    jsonschema.validate(doc, load("progress-snapshot"))


def test_unreachable_broker_leaves_sizes_unknown_not_wrong():
    s = snapshot(0.0, cluster([FOO0]), ONGOING, {1: BrokerLogDirs(1, error="broker 1 unreachable")})
    new = next(r for r in s.replicas if r.broker == 3)
    assert new.status == "Behind" and new.remaining_bytes is None
    assert (s.totals.remaining_bytes, s.totals.eta) == (None, None)  # not "0 B left, ETA 0s"
    assert snapshot_json(s)["totals"]["remaining_bytes"] is None


def test_the_table_names_log_dirs_as_written():
    """The Move column's directories are paths, not console markup."""
    from io import StringIO

    from rich.console import Console

    from kadmin.commands.render_progress import progress_table

    bar = PartitionState("bar", 0, 2, (2,), (2,))
    d = dirs([(2, "/[bold]a", "bar", 0, 10 * MB, 0, False), (2, "/[/b]", "bar", 0, 4 * MB, 1234, True)])
    out = StringIO()
    Console(file=out, width=250, color_system=None).print(progress_table(snapshot(0.0, cluster([bar]), {}, d)))
    assert "dir /[bold]a -> /[/b]" in out.getvalue()
    assert "Reassignment progress: 0 partitions reassigning, 1 replica moving" in out.getvalue()


def _moving(n, silent=()):
    """``n`` partitions of t moving [1,2] -> [3,2], broker 3 having copied i MB of 200 MB;
    the ``silent`` brokers did not answer DescribeLogDirs."""
    parts = [PartitionState("t", i, 1, (3, 2, 1), (1, 2), adding=(3,), removing=(1,)) for i in range(n)]
    ongoing = {TP("t", i): PartitionReassignment("t", i, (3, 2, 1), (3,), (1,)) for i in range(n)}
    d = dirs([(b, "/d1", "t", i, 200 * MB, 0, False) for i in range(n) for b in (1, 2)]
             + [(3, "/d1", "t", i, i * MB, 0, False) for i in range(n)])
    d.update({b: BrokerLogDirs(b, error="REQUEST_TIMED_OUT") for b in silent})
    return snapshot(0.0, cluster(parts), ongoing, d)


def _render(table) -> list[str]:
    from io import StringIO

    from rich.console import Console

    out = StringIO()
    Console(file=out, width=250, color_system=None).print(table)
    return out.getvalue().splitlines()


def test_a_long_table_shows_what_moves_and_counts_the_rest():
    """Past FOLD_ABOVE rows: the moving replicas with most left first, at most MOST_ROWS of them,
    the in-sync ones counted in one line (rich draws ~1,500 rows a second; --output json has all)."""
    from kadmin.commands.render_progress import FOLD_ABOVE, MOST_ROWS, progress_table

    lines = _render(progress_table(_moving(150)))  # 450 replicas: 150 moving, 300 in sync
    rows = [line for line in lines if line.startswith("│ t ")]
    assert len(rows) == MOST_ROWS
    assert all(" 3 │ Behind" in r for r in rows)
    assert [int(r.split("│")[2]) for r in rows] == list(range(MOST_ROWS))  # most left first
    assert any("+ 50 more moving or not in sync" in line for line in lines)
    assert any("+ 300 replicas in sync" in line for line in lines)
    assert any("every replica: --output json" in line for line in lines)
    # A short one lists every replica, as KIP-179's table does.
    small = [line for line in _render(progress_table(_moving(FOLD_ABOVE // 3))) if line.startswith("│ t ")]
    assert len(small) == 3 * (FOLD_ABOVE // 3)


def test_the_table_says_unknown_for_a_broker_that_did_not_answer():
    """The rows of a replica whose broker did not answer say so, in the full table and in the
    folded live view (shown, not counted among the replicas in sync), under a caption naming
    the broker."""
    from kadmin.commands.render_progress import progress_table

    bar = PartitionState("bar", 0, 1, (1, 2), (1, 2))
    d = dirs([(1, "/d1", "bar", 0, 10 * MB, 0, False)])
    d[2] = BrokerLogDirs(2, error="REQUEST_TIMED_OUT")
    s = snapshot(0.0, cluster([bar]), {}, d, plan=ReassignmentPlan((Assignment("bar", 0, (1, 2)),)))
    for moving_first in (False, True):
        lines = _render(progress_table(s, moving_first=moving_first))
        status = {int(line.split("│")[3]): line.split("│")[4].strip() for line in lines if line.startswith("│ bar ")}
        assert status[2] == UNANSWERED, lines
        assert status.get(1, "In sync") == "In sync"
        assert any("broker 2 (REQUEST_TIMED_OUT) did not answer DescribeLogDirs" in line for line in lines)
    assert any("+ 1 replicas in sync" in line for line in lines)  # broker 1's, not broker 2's


def test_a_folded_table_still_names_the_broker_that_did_not_answer():
    """Folding adds its own caption ("every replica: --output json"); the one naming a broker
    that did not answer stays (it was replaced)."""
    from kadmin.commands.render_progress import progress_table

    for moving_first in (False, True):
        lines = _render(progress_table(_moving(150, silent=(2,)), moving_first=moving_first))
        assert any("+ 200 more moving or not in sync" in line for line in lines)  # broker 2's unknown too
        assert any("every replica: --output json" in line for line in lines)
        assert any("broker 2 (REQUEST_TIMED_OUT) did not answer DescribeLogDirs" in line for line in lines), lines


def test_following_ends_when_only_an_unseen_broker_is_left():
    """--watch and execute --wait follow until done; a broker that never answers keeps every
    snapshot from saying done: once nothing is seen moving for UNSEEN_SAMPLES snapshots in a
    row, following ends with that snapshot (the caller says what is unknown), not never."""
    from kadmin.execute.follow import UNSEEN_SAMPLES, FollowReporter, follow

    bar = PartitionState("bar", 0, 1, (1, 2), (1, 2))
    d = dirs([(1, "/d1", "bar", 0, 10 * MB, 0, False)])
    d[2] = BrokerLogDirs(2, error="REQUEST_TIMED_OUT")
    taken = []

    def sample(previous):
        taken.append(previous)
        return snapshot(float(len(taken)), cluster([bar]), {}, d, previous=previous)

    class Clock:
        def sleep(self, seconds):
            assert len(taken) < 50, "follow never ended"

    last = follow(sample, Clock(), 1.0, FollowReporter())
    assert last.unseen_only and not last.done and len(taken) == UNSEEN_SAMPLES


@pytest.mark.parametrize("in_isr", [True, False], ids=["in-isr", "offline-replica"])
def test_a_log_dir_move_paused_by_its_offline_source_has_no_lag_rate_or_eta(in_isr):
    """Kafka lists the future replica with OffsetLag -1 (INVALID_OFFSET_LAG) once the current
    replica's directory fails: its lag is unknown, not -1 messages, and it copies nothing until
    the broker restarts with the disk back, so no ETA; it is still a move (it resumes)."""
    from kadmin.execute.progress import PAUSED

    bar = PartitionState("bar", 0, 1, (1, 2), (1, 2) if in_isr else (1,), offline_replicas=() if in_isr else (2,))
    d = dirs([(1, "/a", "bar", 0, 10 * MB, 0, False), (2, "/b", "bar", 0, 4 * MB, 1234, True)])
    d[2] = BrokerLogDirs(2, (LogDir(2, "/a", error="KafkaStorageException"), *d[2].log_dirs))
    moving = snapshot(0.0, cluster([bar]), {}, d)
    paused = dirs([(1, "/a", "bar", 0, 10 * MB, 0, False), (2, "/b", "bar", 0, 4 * MB, -1, True)])
    paused[2] = BrokerLogDirs(2, (LogDir(2, "/a", error="KafkaStorageException"), *paused[2].log_dirs))
    s = snapshot(3.0, cluster([bar]), {}, paused, previous=moving)
    (row,) = s.replicas  # without a plan: the replicas moving
    assert (row.broker, row.move, row.status, row.messages_behind) == (2, LOG_DIR, PAUSED, None)
    assert (row.rate, row.eta, row.remaining_bytes, row.future_log_dir) == (None, None, None, "/b")
    assert not s.done and s.totals.moving_replicas == 1
    assert (s.totals.eta, s.totals.remaining_bytes) == (None, None)
    from rich.console import Console

    from kadmin.commands.render_progress import progress_table

    console = Console(record=True, width=250)
    console.print(progress_table(s))
    assert "dir (offline) -> /b" in console.export_text()
    (doc,) = snapshot_json(s)["replicas"]
    assert (doc["status"], doc["messages_behind"], doc["eta_seconds"]) == (PAUSED, None, None)


def test_a_future_replica_with_an_unknown_lag_gets_no_eta():
    """OffsetLag -1 with the current replica listed (no offline directory): lag unknown, no ETA."""
    from kadmin.execute.progress import LAG_UNKNOWN

    bar = PartitionState("bar", 0, 2, (2,), (2,))
    first = snapshot(0.0, cluster([bar]), {}, dirs([(2, "/a", "bar", 0, 10 * MB, 0, False), (2, "/b", "bar", 0, 4 * MB, 9, True)]))
    d = dirs([(2, "/a", "bar", 0, 10 * MB, 0, False), (2, "/b", "bar", 0, 7 * MB, -1, True)])
    row = snapshot(3.0, cluster([bar]), {}, d, previous=first).replicas[0]
    assert (row.status, row.messages_behind, row.eta) == (LAG_UNKNOWN, None, None)


def test_done_but_different_from_the_plan_is_counted():
    """A cancelled log-dir move leaves foo-0's replica on broker 1 in /d1, "In sync", nothing
    moving: done (exit 0), but not where the plan puts it; and a cancelled reassignment leaves
    bar-0 on [1,2] with a stray log on broker 3 in the target directory (no replica there). The
    snapshot counts what verify would call differing; nothing moves, so progress is done."""
    import jsonschema

    from kadmin.execute.progress import PlanDifference
    from kadmin.schemas import load

    foo = PartitionState("foo", 0, 1, (1, 2), (1, 2))
    bar = PartitionState("bar", 0, 1, (1, 2), (1, 2))
    d = dirs([(1, "/d1", "foo", 0, MB, 0, False), (2, "/d1", "foo", 0, MB, 0, False),
              (1, "/d1", "bar", 0, MB, 0, False), (2, "/d1", "bar", 0, MB, 0, False),
              (3, "/d2", "bar", 0, MB // 2, 0, False)])
    plan = ReassignmentPlan((Assignment("foo", 0, (1, 2), ("/d2", "any")), Assignment("bar", 0, (3, 2), ("/d2", "any"))))
    s = snapshot(0.0, cluster([foo, bar]), {}, d, plan=plan)
    assert s.done
    assert s.differs == PlanDifference(partitions=1, log_dir_replicas=2)
    doc = snapshot_json(s, "2026-11-26T02:00:00Z")
    jsonschema.validate(doc, load("progress-snapshot"))
    assert doc["done"] is True and doc["differs_from_plan"] == {"partitions": 1, "log_dir_replicas": 2}
    # Where everything is as planned, nothing differs; without a plan, no comparison is made.
    d = dirs([(1, "/d2", "foo", 0, MB, 0, False), (2, "/d1", "foo", 0, MB, 0, False)])
    in_place = snapshot(0.0, cluster([foo]), {}, d, plan=ReassignmentPlan((plan.partitions[0],)))
    assert in_place.differs == PlanDifference(0, 0) and not in_place.differs
    assert snapshot_json(snapshot(0.0, cluster([foo]), {}, d))["differs_from_plan"] is None
