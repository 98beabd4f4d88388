"""Log-dir moves paused by an offline directory (source or destination): progress shows them as
paused moves, never "done"; what was copied is not dropped to 0; following ends once nothing
but paused moves is left (as verify says, exit 4); verify names the offline destination."""

from types import SimpleNamespace

import pytest

from kadmin.backends.base import BrokerLogDirs
from kadmin.execute.progress import LOG_DIR, PAUSED, PAUSED_DESTINATION, snapshot, snapshot_json
from kadmin.model import (
    LOG_DIR_RATE,
    Assignment,
    Broker,
    ClusterState,
    LogDir,
    PartitionState,
    ReassignmentPlan,
    ReplicaInfo,
    TopicPartition,
)

MB = 1_000_000
D0, D1 = "/var/lib/kafka/data0", "/var/lib/kafka/data1"
PART = PartitionState("audit-log", 1, 0, (0, 2, 1), (0, 2, 1))
PLAN = ReassignmentPlan((Assignment("audit-log", 1, (0, 2, 1), (D0, "any", "any")),))


def cluster():
    return ClusterState(
        "c", 0, {b: Broker(b, "127.0.0.1", 9000 + b) for b in (0, 1, 2)}, {TopicPartition("audit-log", 1): PART}
    )


def log_dirs(broker0: tuple[LogDir, ...]):
    others = {
        b: BrokerLogDirs(b, (LogDir(b, D1, replicas=(ReplicaInfo("audit-log", 1, 900 * MB, 0, False),)),))
        for b in (1, 2)
    }
    return {0: BrokerLogDirs(0, broker0), **others}


def destination_offline():
    """Broker 0's replica still in data1; data0, where the plan moves it, offline."""
    return log_dirs(
        (
            LogDir(0, D0, error="KafkaStorageException"),
            LogDir(0, D1, replicas=(ReplicaInfo("audit-log", 1, 900 * MB, 0, False),)),
        )
    )


def source_offline():
    """data1 (the source) offline; the future replica in data0 holds 304 MB, OffsetLag -1."""
    return log_dirs(
        (
            LogDir(0, D0, replicas=(ReplicaInfo("audit-log", 1, 304_478_844, -1, True),)),
            LogDir(0, D1, error="KafkaStorageException"),
        )
    )


def test_a_move_towards_an_offline_destination_is_paused_not_done():
    s = snapshot(0.0, cluster(), {}, destination_offline(), plan=PLAN)
    row = s.replicas[0]
    assert (row.broker, row.status, row.move, row.future_log_dir) == (0, PAUSED_DESTINATION, LOG_DIR, D0)
    assert (row.moved_bytes, row.remaining_bytes, row.eta) == (None, None, None)  # unseen: unknown, not 0
    assert not s.done and s.paused_only
    assert not s.totals.moved_known  # the total is not a wrong "0 B moved"
    assert snapshot_json(s)["done"] is False
    # The same replica where the plan wants it elsewhere online is no move (a cancelled one).
    online = log_dirs((LogDir(0, D0), LogDir(0, D1, replicas=(ReplicaInfo("audit-log", 1, 900 * MB, 0, False),))))
    assert snapshot(0.0, cluster(), {}, online, plan=PLAN).done


def test_a_move_paused_by_its_offline_source_keeps_the_bytes_its_future_replica_holds():
    s = snapshot(0.0, cluster(), {}, source_offline(), plan=PLAN)
    row = s.replicas[0]
    assert (row.status, row.moved_bytes, row.remaining_bytes) == (PAUSED, 304_478_844, None)
    assert (s.totals.moved_bytes, s.totals.moved_known, s.totals.remaining_bytes) == (304_478_844, True, None)
    assert s.paused_only and not s.done
    assert snapshot_json(s)["totals"]["moved_bytes"] == 304_478_844


def test_the_progress_line_says_the_moves_are_paused_and_why():
    from kadmin.commands.render_progress import progress_line

    line = progress_line(snapshot(0.0, cluster(), {}, destination_offline(), plan=PLAN))
    assert line.startswith("kadmin: nothing copies: the move left is paused: audit-log-1 on broker 0")
    assert f"its destination directory {D0} is offline" in line
    line = progress_line(snapshot(0.0, cluster(), {}, source_offline(), plan=PLAN))
    assert "(its source directory is offline)" in line and "0 B moved" not in line


@pytest.mark.parametrize("paused", [destination_offline, source_offline], ids=["destination", "source"])
def test_following_ends_once_only_paused_moves_are_left(paused):
    """--watch and --wait follow until done; a paused move is never done, so they stop there."""
    from kadmin.commands.render_progress import AllPaused, StopWhenPaused
    from kadmin.execute.follow import FollowReporter, follow

    seen = []

    class Record(FollowReporter):
        def snapshot(self, snap):
            seen.append(snap)

    samples = iter([snapshot(float(i), cluster(), {}, paused(), plan=PLAN) for i in range(50)])
    clock = SimpleNamespace(sleep=lambda s: None, now=lambda: 0.0)
    with pytest.raises(AllPaused) as stopped:
        follow(lambda prev: next(samples), clock, 1.0, StopWhenPaused(Record()))
    assert len(seen) == 1 and stopped.value.snap is seen[0]


def test_verify_names_the_offline_destination_of_a_paused_move():
    from kadmin.execute.verification import paused_reason
    from kadmin.model import ReplicaLogDir, TopicPartitionReplica
    from kadmin.plan.verify import verify_plan

    r = TopicPartitionReplica("audit-log", 1, 0)
    result = verify_plan(PLAN, cluster(), {}, {r: ReplicaLogDir(r, D1)})
    removal = SimpleNamespace(kept=SimpleNamespace(rates=(SimpleNamespace(broker=0, name=LOG_DIR_RATE),)))
    reason = paused_reason(result, removal, {0: {D0}})
    assert reason == (
        "the log-dir rate of broker 0 stays: the move of audit-log-1 on broker 0 to /var/lib/kafka/data0 is "
        "paused (its destination, broker 0's /var/lib/kafka/data0, is offline: a future replica there cannot "
        "be seen) and resumes when the broker restarts with that directory back, at the rate set then; verify "
        "again once it has finished"
    )
    assert "running moves" not in reason
    assert paused_reason(result, removal, {}) is None  # no directory offline: a move not running
