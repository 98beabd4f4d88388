"""A log directory fails under a log-dir move, and comes back.

While the current replica's directory is offline, the future replica in the other (online)
directory stays listed by DescribeLogDirs, its lag unknown: OffsetLag -1, INVALID_OFFSET_LAG, as
ReplicaManager.getLogEndOffsetLag answers for a partition that is not online (2.8 to 4.x), and
the copy stops (the failed directory's partitions leave the ReplicaAlterLogDirsThread).

A failed directory comes back only through a broker restart, so `fault dir-online` on a running
broker restarts it: it leaves the cluster and comes back, as `broker-stop` then `broker-start`.
At start-up Kafka loads the "-future" logs it finds on disk (LogManager.loadLog) and resumes
their moves (ReplicaManager.maybeAddLogDirFetchers), at the log-dir rate configured then.
"""

from __future__ import annotations

import pytest

from tests.sandbox.clients import confluent, describe_log_dirs, kafka_python, partitions_of

D0, D1 = "/var/lib/kafka/data0", "/var/lib/kafka/data1"
MiB = 2**20
LOG_DIR_RATE = "replica.alter.log.dirs.io.max.bytes.per.second"


@pytest.fixture(params=[
    pytest.param(("2.8", True), id="2.8-zookeeper", marks=pytest.mark.zookeeper),
    pytest.param(("3.3", False), id="3.3-kraft"),
    pytest.param(("3.9", False), id="3.9-kraft"),
    pytest.param(("4.3", False), id="4.3-kraft"),
])
def moving(request, sandbox_factory):
    """Broker 1 moves t-0 (led by broker 0) from D1 to D0 at 1 MiB/s; 2 MiB copied of 20."""
    version, zk_mode = request.param
    extra = {"zookeeper": request.getfixturevalue("zk_connect")} if zk_mode else {}
    sb = sandbox_factory(brokers=3, log_dirs=2, manual_clock=True, kafka_version=version, **extra)
    from kafka.errors import NoError

    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=20 * MiB, log_dirs={(0, 1): D1})
    _set_log_dir_rate(sb, MiB)
    with kafka_python(sb) as admin:
        assert list(admin.alter_replica_log_dirs({("t", 0, 1): D0}).values()) == [NoError]
    sb.settle()
    sb.clock.advance(2)
    future = partitions_of(describe_log_dirs(sb, brokers=[1])[1][D0])[("t", 0, True)]
    assert 0 < future["partition_size"] < 20 * MiB and future["offset_lag"] > 0
    return sb


def _set_log_dir_rate(sb, rate: int | None, broker: int = 1) -> None:
    """A broker's log-dir rate (None: removed, as reassign verify removes it)."""
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource

    op = AlterConfigOpType.SET if rate is not None else AlterConfigOpType.DELETE
    res = ConfigResource("BROKER", str(broker), incremental_configs=[
        ConfigEntry(LOG_DIR_RATE, None if rate is None else str(rate), incremental_operation=op)])
    admin = confluent(sb)
    admin.incremental_alter_configs([res])[res].result(timeout=10)


def test_a_future_replica_whose_partition_is_offline_has_an_unknown_lag(moving):
    sb = moving
    sb.faults.dir_offline(1, D1)
    sb.settle()
    dirs = describe_log_dirs(sb, brokers=[1])[1]
    assert dirs[D1]["error_code"] == 56 and dirs[D1]["topics"] == []
    future = partitions_of(dirs[D0])[("t", 0, True)]
    assert future["offset_lag"] == -1
    assert sb.snapshot().future_replica("t", 0, 1)[1].offset_lag == -1
    # The copy stopped with the partition: the future replica does not grow.
    size = future["partition_size"]
    sb.clock.advance(5)
    assert partitions_of(describe_log_dirs(sb, brokers=[1])[1][D0])[("t", 0, True)]["partition_size"] == size


def _leader(sb, topic, index):
    p = sb.snapshot().partition(topic, index)
    return p.leader, p.leader_epoch


@pytest.mark.parametrize("failed", [D1, D0], ids=["source", "destination"])
def test_dir_online_restarts_the_broker_which_resumes_the_move_at_the_rate_set_by_then(moving, failed):
    sb = moving
    sb.create_topic("led", assignment={0: [1, 2]}, size_bytes=MiB, log_dirs={(0, 1): D0 if failed == D1 else D1})
    sb.settle()
    assert _leader(sb, "led", 0) == (1, 0)
    sb.faults.dir_offline(1, failed)
    sb.settle()
    future = sb.snapshot().future_replica("t", 0, 1)[1].size
    sb.clock.advance(5)
    assert sb.snapshot().future_replica("t", 0, 1)[1].size == future  # the copy stopped
    assert _leader(sb, "led", 0) == (1, 0)  # its directory is fine
    _set_log_dir_rate(sb, None)  # as reassign verify removes it when nothing moves

    sb.faults.dir_online(1, failed)
    sb.settle()
    # A restart: broker 1 left the cluster (its leadership moved away, for good: no preferred
    # election brings it back) and came back, its replicas in sync again once caught up.
    leader, epoch = _leader(sb, "led", 0)
    assert leader == 2 and epoch >= 1
    sb.clock.advance(1)
    snap = sb.snapshot()
    assert snap.brokers[1].alive and snap.brokers[1].dirs[failed].online
    assert sorted(snap.partition("led", 0).isr) == [1, 2] and sorted(snap.partition("t", 0).isr) == [0, 1]
    # The future log found on disk at start-up: the move resumes, unthrottled now (1 MiB/s
    # would need 18 s more).
    sb.clock.advance(1)
    assert sb.snapshot().replica_dir("t", 0, 1) == D0 and sb.snapshot().future_replica("t", 0, 1) is None


def test_dir_online_of_a_directory_that_is_online_restarts_nothing(moving):
    sb = moving
    sb.faults.dir_online(1, D1)
    assert sb.snapshot().future_replica("t", 0, 1) is not None
    assert sb.snapshot().partition("t", 0).isr == (0, 1) and _leader(sb, "t", 0) == (0, 0)


def test_the_moves_queued_behind_a_failed_one_go_on(sandbox_factory):
    """One move at a time per broker: the failed one, first in line, is left out, not waited for."""
    from kafka.errors import NoError

    D2 = "/var/lib/kafka/data2"
    sb = sandbox_factory(brokers=1, log_dirs=3, manual_clock=True)
    sb.create_topic("t", assignment={0: [0]}, size_bytes=20 * MiB, log_dirs={(0, 0): D1})
    sb.create_topic("u", assignment={0: [0]}, size_bytes=2 * MiB, log_dirs={(0, 0): D0})
    _set_log_dir_rate(sb, MiB, broker=0)
    with kafka_python(sb) as admin:
        assert list(admin.alter_replica_log_dirs({("t", 0, 0): D0}).values()) == [NoError]
        assert list(admin.alter_replica_log_dirs({("u", 0, 0): D2}).values()) == [NoError]
    sb.clock.advance(1)
    assert sb.snapshot().future_replica("u", 0, 0)[1].size == 0  # waiting behind t-0
    sb.faults.dir_offline(0, D1)
    sb.clock.advance(3)
    snap = sb.snapshot()
    assert snap.replica_dir("u", 0, 0) == D2 and snap.future_replica("u", 0, 0) is None
    assert snap.future_replica("t", 0, 0)[0] == D0


def test_a_new_destination_does_not_cancel_a_move_into_a_failed_directory(sandbox_factory):
    """The future log on the failed disk is out of the broker's hands, not deleted: the new
    destination is refused (a future replica is not created while a directory is offline), and
    the restart that brings the disk back resumes the old move."""
    from kafka.errors import KafkaStorageError, NoError

    D2 = "/var/lib/kafka/data2"
    sb = sandbox_factory(brokers=1, log_dirs=3, manual_clock=True)
    sb.create_topic("t", assignment={0: [0]}, size_bytes=20 * MiB, log_dirs={(0, 0): D0})
    _set_log_dir_rate(sb, MiB, broker=0)
    with kafka_python(sb) as admin:
        assert list(admin.alter_replica_log_dirs({("t", 0, 0): D1}).values()) == [NoError]
        sb.clock.advance(1)
        sb.faults.dir_offline(0, D1)
        assert list(admin.alter_replica_log_dirs({("t", 0, 0): D2}).values()) == [KafkaStorageError]
    assert sb.snapshot().future_replica("t", 0, 0)[0] == D1
    _set_log_dir_rate(sb, None, broker=0)
    sb.faults.dir_online(0, D1)
    sb.settle()
    sb.clock.advance(1)
    assert sb.snapshot().replica_dir("t", 0, 0) == D1
