"""A reassignment that waits for a replica nothing copies now (offline, on a down broker, or new
in an offline directory) shows no ETA: Kafka ends it only once every target replica is in the
ISR, so the other replicas' 0 bytes left are not "ETA 0s"; progress names what it waits for."""

from kadmin.backends.base import BrokerLogDirs
from kadmin.commands.render_progress import held_note, progress_line
from kadmin.execute.progress import INTER_BROKER, OFFLINE, PAUSED_DESTINATION, snapshot, snapshot_json
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

MB = 1_000_000
P5, P0 = TopicPartition("payments", 5), TopicPartition("payments", 0)
D0, D1 = "/var/lib/kafka/data0", "/var/lib/kafka/data1"


def cluster(parts, brokers=(0, 1, 2, 3, 4)):
    return ClusterState("c", 0, {b: Broker(b, "127.0.0.1", 9000 + b) for b in brokers}, {p.tp: p for p in parts})


def held_dirs(broker, offline, online):
    """A broker's DescribeLogDirs: ``offline`` lists nothing, ``online`` what it holds."""
    return BrokerLogDirs(
        broker,
        (
            LogDir(broker, offline, error="KafkaStorageException"),
            LogDir(broker, D0 if offline == D1 else D1, replicas=tuple(online)),
        ),
    )


def full(broker, tp, size):
    return BrokerLogDirs(broker, (LogDir(broker, D1, replicas=(ReplicaInfo(tp.topic, tp.partition, size, 0, False),)),))


def test_a_partition_waiting_for_an_offline_replica_has_no_eta_though_its_copies_are_done():
    # payments-5 [0,3,2] -> [1,3,4]: brokers 1 and 4 hold every byte; broker 3's replica sits
    # in data1, offline (Metadata's offline replicas), so the reassignment cannot end.
    part = PartitionState("payments", 5, 0, (1, 3, 4, 0, 2), (0, 2, 4), (3,), adding=(1, 4), removing=(0, 2))
    ongoing = {P5: PartitionReassignment("payments", 5, (1, 3, 4, 0, 2), (1, 4), (0, 2))}
    logs = {b: full(b, P5, 860 * MB) for b in (0, 1, 2, 4)}
    logs[3] = held_dirs(3, D1, ())
    plan = ReassignmentPlan((Assignment("payments", 5, (1, 3, 4)),))
    first = snapshot(0.0, cluster([part]), ongoing, logs, plan=plan)
    s = snapshot(5.0, cluster([part]), ongoing, logs, plan=plan, previous=first)
    assert [(r.broker, r.status) for r in s.held] == [(3, OFFLINE)]
    assert s.totals.remaining_bytes == 0 and s.totals.eta is None
    assert all(r.eta is None for r in s.replicas)
    assert snapshot_json(s)["totals"]["eta_seconds"] is None
    line = progress_line(s)
    assert ", ETA" not in line
    assert line.endswith(
        "; payments-5 waits for broker 3's replica (its log directory is offline): its reassignment ends only "
        "once it is back (no ETA meanwhile)"
    )


def test_a_new_replica_whose_plan_directory_is_offline_is_paused_its_bytes_unknown():
    # payments-0 [3,4] -> [2,3,4], the plan putting broker 2's new replica in data0, now offline.
    part = PartitionState("payments", 0, 3, (2, 3, 4), (3, 4), (2,), adding=(2,))  # Metadata: offline
    ongoing = {P0: PartitionReassignment("payments", 0, (2, 3, 4), (2,), ())}
    logs = {b: full(b, P0, 860 * MB) for b in (3, 4)}
    logs[2] = held_dirs(2, D0, ())
    plan = ReassignmentPlan((Assignment("payments", 0, (2, 3, 4), (D0, "any", "any")),))
    s = snapshot(0.0, cluster([part]), ongoing, logs, plan=plan)
    row = next(r for r in s.replicas if r.broker == 2)
    assert (row.status, row.move, row.future_log_dir) == (PAUSED_DESTINATION, INTER_BROKER, D0)
    assert row.moved_bytes is None and row.remaining_bytes is None
    assert s.held == (row,) and s.totals.eta is None and not s.done
    assert held_note(s) == (
        f"payments-0 waits for broker 2's replica (its directory {D0} is offline): its reassignment ends only "
        "once it is back (no ETA meanwhile)"
    )


def test_a_partition_waiting_for_a_down_broker_has_no_eta():
    # payments-3 [0,1] -> [2,0,1]: broker 2 copied it all, broker 1 (a replica it keeps) is down.
    part = PartitionState("payments", 3, 0, (2, 0, 1), (0,), (1,), adding=(2,))
    ongoing = {TopicPartition("payments", 3): PartitionReassignment("payments", 3, (2, 0, 1), (2,), ())}
    tp = TopicPartition("payments", 3)
    logs = {b: full(b, tp, 100 * MB) for b in (0, 2)}
    first = snapshot(0.0, cluster([part], brokers=(0, 2, 3, 4)), ongoing, logs)
    s = snapshot(5.0, cluster([part], brokers=(0, 2, 3, 4)), ongoing, logs, previous=first)
    assert [r.broker for r in s.held] == [1]
    assert s.totals.eta is None
    assert "waiting for broker 1 (down)" in progress_line(s)


def test_without_a_plan_a_new_replica_metadata_calls_offline_holds_its_partition():
    part = PartitionState("payments", 0, 3, (2, 3, 4), (3, 4), (2,), adding=(2,))
    ongoing = {P0: PartitionReassignment("payments", 0, (2, 3, 4), (2,), ())}
    logs = {b: full(b, P0, 860 * MB) for b in (3, 4)}
    logs[2] = held_dirs(2, D0, ())
    s = snapshot(0.0, cluster([part]), ongoing, logs)
    row = next(r for r in s.replicas if r.broker == 2)
    assert (row.status, row.move, row.remaining_bytes) == (OFFLINE, INTER_BROKER, None)
    assert s.held == (row,) and s.totals.eta is None
