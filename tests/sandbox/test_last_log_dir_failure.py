"""A broker whose last online log directory fails halts, in every mode and version (Kafka's
LogManager.handleLogDirFailure: "Shutdown broker because all log dirs in ... have failed",
Exit.halt(1)), before telling any controller: the cluster sees it go as a stopped broker. It does
not start again while every directory has failed (LogManager.createAndValidateLogDirs: "none of
the specified log dirs ... can be created or validated"); with one back it starts, a directory
still failed staying offline with its replicas.
"""

from __future__ import annotations

import socket

import pytest

from kadmin.errors import ClusterError
from kadmin.model import TopicPartition
from tests.sandbox.clients import describe_log_dirs, raw

D0, D1 = "/var/lib/kafka/data0", "/var/lib/kafka/data1"
KAFKA_STORAGE_ERROR = 56


def _metadata(sb, broker=1):
    """(live broker ids, partition -> (leader, isr)) as broker ``broker`` answers Metadata v9."""
    from kafka.protocol.metadata.metadata import MetadataRequest

    md = raw(sb, broker, MetadataRequest(topics=None, allow_auto_topic_creation=False), 9)
    parts = {(t.name, p.partition_index): (p.leader_id, sorted(p.isr_nodes)) for t in md.topics for p in t.partitions}
    return sorted(b.node_id for b in md.brokers), parts


def _refuses_connections(sb, broker_id) -> bool:
    try:
        socket.create_connection(("127.0.0.1", sb.ports[broker_id]), timeout=5).close()
    except ConnectionRefusedError:
        return True
    return False


def _registered(zk_connect) -> list[int]:
    from kazoo.client import KazooClient

    zk = KazooClient(hosts=zk_connect)
    zk.start(timeout=15)
    try:
        return sorted(int(c) for c in zk.get_children("/brokers/ids"))
    finally:
        zk.stop()
        zk.close()


@pytest.fixture(params=[
    pytest.param(("3.3", False), id="3.3-kraft"),
    pytest.param(("4.3", False), id="4.3-kraft"),
    pytest.param(("2.8", True), id="2.8-zookeeper", marks=pytest.mark.zookeeper),
    pytest.param(("3.3", True), id="3.3-zookeeper", marks=pytest.mark.zookeeper),
])
def halted(request, sandbox_factory):
    """Broker 0 lost both its directories: t-0 (led by 0) was on D0, t-1 (led by 1) on D1, and
    solo-0 (broker 0 alone) on D1."""
    version, zk_mode = request.param
    zk = request.getfixturevalue("zk_connect") if zk_mode else None
    sb = sandbox_factory(brokers=3, log_dirs=2, manual_clock=True, kafka_version=version, zookeeper=zk)
    sb.create_topic("t", assignment={0: [0, 1], 1: [1, 0]}, size_bytes=2**20, log_dirs={(0, 0): D0, (1, 0): D1})
    sb.create_topic("solo", assignment={0: [0]}, size_bytes=2**20, log_dirs={(0, 0): D1})
    sb.settle()
    sb.faults.dir_offline(0, D0)
    sb.settle()
    assert sb.snapshot().brokers[0].alive  # another directory is still online
    sb.faults.dir_offline(0, D1)
    sb.settle()
    return sb, zk


def test_the_last_directory_failing_halts_the_broker(halted):
    sb, zk = halted
    assert not sb.snapshot().brokers[0].alive
    assert _refuses_connections(sb, 0)
    live, parts = _metadata(sb)
    assert live == [1, 2]
    assert parts[("t", 0)] == (1, [1]) and parts[("t", 1)] == (1, [1])
    assert parts[("solo", 0)] == (-1, [0])  # its only replica is gone; Kafka keeps the last ISR member
    status = sb.status()
    assert status["brokers"][0]["alive"] is False
    assert status["brokers"][0]["halted"] == f"all log dirs in {D0}, {D1} have failed"  # says why
    if zk:
        assert _registered(zk) == [1, 2]  # its ephemeral registration went with it


def test_it_does_not_start_while_every_directory_has_failed(halted):
    sb, _ = halted
    with pytest.raises(ClusterError, match="none of the specified log dirs from .* can be created or validated"):
        sb.faults.broker_start(0)
    assert not sb.snapshot().brokers[0].alive
    assert _refuses_connections(sb, 0)


def test_dir_online_then_broker_start_brings_it_back_with_the_other_directory_still_offline(halted):
    sb, zk = halted
    sb.faults.dir_online(0, D1)  # the disk is replaced while the broker is down
    sb.settle()
    assert _metadata(sb)[1][("solo", 0)] == (-1, [0])  # nothing leads on a stopped broker
    sb.faults.broker_start(0)
    sb.settle()
    sb.clock.advance(5)
    live, parts = _metadata(sb)
    assert live == [0, 1, 2]
    assert parts[("solo", 0)] == (0, [0])
    assert parts[("t", 1)] == (1, [0, 1])  # its replica on D1 caught up
    assert parts[("t", 0)] == (1, [1])  # its replica on D0 is still offline
    dirs = describe_log_dirs(sb, brokers=[0])[0]
    assert dirs[D0]["error_code"] == KAFKA_STORAGE_ERROR and dirs[D1]["error_code"] == 0
    assert sb.status()["brokers"][0]["halted"] is None  # started again
    if zk:
        assert _registered(zk) == [0, 1, 2]


def test_a_replica_in_a_directory_still_offline_does_not_lead_after_the_start(halted):
    sb, _ = halted
    sb.create_topic("late", assignment={0: [1]}, size_bytes=0)  # any change while it is down
    sb.faults.dir_online(0, D0)  # solo-0's directory, D1, stays failed
    sb.faults.broker_start(0)
    sb.settle()
    snap = sb.snapshot()
    assert snap.brokers[0].alive
    assert snap.partitions[TopicPartition("solo", 0)].leader == -1


@pytest.mark.parametrize("version", ["3.3", "4.3"])
def test_directories_filling_up_halt_the_broker(sandbox_factory, version):
    """Full directories fail on their own (replication's _fail_full_dirs): the last one halts."""
    sb = sandbox_factory(brokers=2, log_dirs=1, manual_clock=True, kafka_version=version, dir_capacity=2**20)
    sb.create_topic("big", assignment={0: [0, 1]}, size_bytes=0, produce_rate=2**20)
    sb.clock.advance(2)
    assert not sb.snapshot().brokers[0].alive
    assert _refuses_connections(sb, 0)


def test_a_directory_filling_up_halts_the_broker_on_the_running_clock(sandbox_factory):
    sb = sandbox_factory(brokers=2, log_dirs=1, speed=50, dir_capacity=2**20)
    sb.create_topic("big", assignment={0: [1, 0]}, size_bytes=0, produce_rate=2**20)
    sb.wait_for(lambda s: not s.brokers[0].alive and not s.brokers[1].alive, timeout=20)
    for b in (0, 1):
        _wait(lambda b=b: _refuses_connections(sb, b))


def _wait(condition, timeout=10.0):
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met"
        time.sleep(0.02)


def test_kraft_brokers_keep_their_metadata_log_outside_the_log_dirs(sandbox_factory):
    """So a failed log dir is never the metadata log dir, whose failure halts a 3.7+ KRaft broker
    (KafkaConfig.metadataLogDir defaults to the first log dir)."""
    from confluent_kafka.admin import ConfigResource

    from tests.sandbox.clients import confluent

    sb = sandbox_factory(brokers=1, log_dirs=2, kafka_version="4.3")
    admin = confluent(sb)
    (future,) = admin.describe_configs([ConfigResource("broker", "0")]).values()
    configs = future.result(10)
    assert configs["metadata.log.dir"].value == "/var/lib/kafka/metadata"
    assert configs["metadata.log.dir"].value not in configs["log.dirs"].value.split(",")
