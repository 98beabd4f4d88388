"""Behaviours seen on real clusters that differ per Kafka version or mode (KAFKA-FACTS.md, "second
round"), through the real client libraries over the sandbox's sockets: KRaft's re-target of a
running reassignment, replica order during a move and after a cancel, stray logs, the metadata
delay of ZooKeeper mode, /config/topics in ZooKeeper mode, cluster-wide default throttles."""

from __future__ import annotations

import json
import time

import pytest

from tests.sandbox.clients import confluent, kafka_python, raw

MiB = 2**20
ZK_33 = pytest.param("3.3", True, marks=pytest.mark.zookeeper, id="3.3-zookeeper")
KRAFT_43 = pytest.param("4.3", False, id="4.3-kraft")


@pytest.fixture
def versioned(sandbox_factory, request):
    """versioned(version, zk_mode, **kwargs): a manual-clock sandbox of that Kafka version, in
    ZooKeeper mode (a fresh chroot) when asked."""

    def make(version, zookeeper, **kwargs):
        if zookeeper:
            kwargs["zookeeper"] = request.getfixturevalue("zk_connect")
        return sandbox_factory(kafka_version=version, manual_clock=True, **kwargs)

    return make


def metadata(sb, topic, partition=0):
    """(replicas, leader) as Metadata reports them (confluent-kafka)."""
    p = confluent(sb).list_topics(topic=topic, timeout=10).topics[topic].partitions[partition]
    return list(p.replicas), p.leader


def reassign(sb, moves):
    from kafka import TopicPartition

    with kafka_python(sb) as admin:
        result = admin.alter_partition_reassignments({TopicPartition(t, p): r for (t, p), r in moves.items()})
    assert all(e is None for e in result.values()), result
    sb.settle()


def listed(sb):
    with kafka_python(sb) as admin:
        return {(tp.topic, tp.partition): v for tp, v in admin.list_partition_reassignments().items()}


def listed_by_log_dirs(sb, broker):
    """(topic, partition) -> size of what DescribeLogDirs (all topics: Topics null, as kadmin and
    Kafka's tool ask) lists on one broker, through kadmin's AdminClient backend."""
    from kadmin.backends.admin import AdminBackend
    from kadmin.config import ConnectionSettings

    with AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=10), read_only=True) as b:
        dirs = b.describe_log_dirs(brokers=[broker])[broker].log_dirs
    return {(r.topic, r.partition): r.size for d in dirs for r in d.replicas}


@pytest.mark.parametrize("version,zk_mode", [KRAFT_43, ZK_33])
def test_retarget_in_flight_kraft_keeps_adding_and_removing_zookeeper_takes_the_new_target(
        versioned, version, zk_mode):
    sb = versioned(version, zk_mode)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=10 * MiB)
    reassign(sb, {("t", 0): [0, 2]})
    assert listed(sb)[("t", 0)] == {"replicas": [0, 2, 1], "adding_replicas": [2], "removing_replicas": [1]}
    reassign(sb, {("t", 0): [0, 1, 2]})
    if not zk_mode:
        # KRaft: computed from the full set [0,2,1]; nothing to add or remove, so the old stay.
        assert listed(sb)[("t", 0)] == {"replicas": [0, 1, 2], "adding_replicas": [2], "removing_replicas": [1]}
    else:
        # ZooKeeper mode: computed from the original replicas [0,1].
        assert listed(sb)[("t", 0)] == {"replicas": [0, 1, 2], "adding_replicas": [2], "removing_replicas": []}
    sb.clock.advance(5)
    assert listed(sb) == {}
    assert metadata(sb, "t")[0] == ([0, 2] if not zk_mode else [0, 1, 2])


@pytest.mark.parametrize("version,zk_mode", [KRAFT_43, ZK_33])
def test_replica_order_during_a_move_and_after_a_cancel(versioned, version, zk_mode):
    sb = versioned(version, zk_mode, bandwidth=MiB)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=10 * MiB)
    reassign(sb, {("t", 0): [2, 1]})
    sb.clock.advance(1)  # past ZooKeeper mode's metadata delay; 1 of 10 MiB copied
    # target ++ (original - target); the old leader leads until the move completes.
    assert metadata(sb, "t") == ([2, 1, 0], 0)
    assert listed(sb)[("t", 0)] == {"replicas": [2, 1, 0], "adding_replicas": [2], "removing_replicas": [0]}
    reassign(sb, {("t", 0): None})
    sb.clock.advance(1)
    # Cancel: the full set minus the adding replicas, in the full set's order ([0,1] -> [1,0]).
    assert listed(sb) == {}
    assert metadata(sb, "t") == ([1, 0], 0)


@pytest.mark.parametrize("version,zk_mode", [KRAFT_43, ZK_33])
def test_cancelled_moves_leave_stray_logs_until_the_broker_restarts(versioned, version, zk_mode):
    sb = versioned(version, zk_mode, bandwidth=MiB)
    sb.create_topic("t", assignment={0: [0, 1], 1: [1, 0]}, size_bytes=10 * MiB)
    reassign(sb, {("t", 0): [2, 1]})
    sb.clock.advance(3)
    reassign(sb, {("t", 0): None})
    half = listed_by_log_dirs(sb, 2)[("t", 0)]
    assert 2 * MiB <= half <= 4 * MiB  # half-copied, and still listed
    sb.clock.advance(120)
    assert listed_by_log_dirs(sb, 2) == {("t", 0): half}
    assert metadata(sb, "t")[0] == [1, 0]  # not a replica of broker 2
    # Broker 2 restarts (with a live replica of t-1): it deletes the stray log.
    reassign(sb, {("t", 1): [2, 0]})
    sb.faults.broker_stop(2)
    sb.faults.broker_start(2)
    sb.settle()
    assert listed_by_log_dirs(sb, 2) == {("t", 1): 0}  # the stray log is gone after a restart


@pytest.mark.parametrize("version,zk_mode", [KRAFT_43, ZK_33])
def test_deleted_topics_replicas_stay_listed_for_a_minute(versioned, version, zk_mode):
    sb = versioned(version, zk_mode)
    sb.create_topic("gone", assignment={0: [0, 1]}, size_bytes=MiB)
    with kafka_python(sb) as admin:
        admin.delete_topics(["gone"])
    assert "gone" not in sb.snapshot().topics
    assert listed_by_log_dirs(sb, 0) == {("gone", 0): MiB}
    sb.clock.advance(59)
    assert listed_by_log_dirs(sb, 1) == {("gone", 0): MiB}
    sb.clock.advance(2)
    assert listed_by_log_dirs(sb, 0) == {} and listed_by_log_dirs(sb, 1) == {}


@pytest.mark.zookeeper
def test_zookeeper_mode_metadata_lags_the_controllers_znodes_after_a_reassignment_starts(versioned):
    from tests.support.zookeeper import znode_json

    sb = versioned("3.3", True, bandwidth=MiB)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=10 * MiB)
    reassign(sb, {("t", 0): [2, 1]})
    topic = znode_json(sb.zookeeper, "/brokers/topics/t")
    assert topic["partitions"] == {"0": [2, 1, 0]} and topic["adding_replicas"] == {"0": [2]}
    assert listed(sb)[("t", 0)]["replicas"] == [2, 1, 0]  # the controller knows
    assert metadata(sb, "t") == ([0, 1], 0)  # the brokers do not yet
    sb.clock.advance(sb.version.zookeeper_metadata_lag_seconds)
    assert metadata(sb, "t") == ([2, 1, 0], 0)


def test_kraft_metadata_shows_a_reassignment_at_once(versioned):
    sb = versioned("4.3", False, bandwidth=MiB)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=10 * MiB)
    reassign(sb, {("t", 0): [2, 1]})
    assert metadata(sb, "t") == ([2, 1, 0], 0)


@pytest.mark.zookeeper
def test_zookeeper_mode_creating_a_topic_writes_its_config_znode(versioned):
    from kazoo.client import KazooClient

    sb = versioned("3.3", True)
    with kafka_python(sb) as admin:
        from kafka.admin import NewTopic

        admin.create_topics([NewTopic("plain", 1, 2), NewTopic("tuned", 1, 1, topic_configs={"retention.ms": "5"})])
    sb.settle()
    zk = KazooClient(hosts=sb.zookeeper)
    zk.start(timeout=15)
    try:
        deadline = time.monotonic() + 10
        while not (zk.exists("/config/topics/plain") and zk.exists("/config/topics/tuned")):
            assert time.monotonic() < deadline, "config znodes not written"
            time.sleep(0.05)
        assert json.loads(zk.get("/config/topics/plain")[0]) == {"version": 1, "config": {}}
        assert json.loads(zk.get("/config/topics/tuned")[0]) == {"version": 1, "config": {"retention.ms": "5"}}
        assert zk.exists("/brokers/topics/plain")
    finally:
        zk.stop()
        zk.close()


def _set_default(sb, name, value):
    """The broker resource with an empty name (kafka-configs --entity-default): neither client
    library sends it, so speak the protocol."""
    from kafka.protocol.admin.configs import IncrementalAlterConfigsRequest as IAC

    res = IAC.AlterConfigsResource(resource_type=4, resource_name="", configs=[
        IAC.AlterConfigsResource.AlterableConfig(name=name, config_operation=0, value=value)])
    assert raw(sb, 0, IAC(resources=[res], validate_only=False), 1).responses[0].error_code == 0


@pytest.mark.parametrize("version", ["3.3", "4.3"])
def test_cluster_wide_default_throttle_governs_brokers_without_their_own(versioned, version):
    from confluent_kafka.admin import ConfigResource

    sb = versioned(version, False)
    sb.create_topic("t", assignment={0: [0, 1], 1: [0, 1]}, size_bytes=10 * MiB,
                    configs={"follower.replication.throttled.replicas": "0:2,1:2"})
    _set_default(sb, "follower.replication.throttled.rate", str(MiB))
    admin = confluent(sb)
    r = ConfigResource("broker", "2")
    described = admin.describe_configs([r])[r].result(timeout=10)
    entry = described["follower.replication.throttled.rate"]
    assert (entry.value, int(entry.source)) == (str(MiB), 3)  # DYNAMIC_DEFAULT_BROKER_CONFIG
    reassign(sb, {("t", 0): [0, 1, 2], ("t", 1): [0, 1, 2]})
    sb.clock.advance(4)
    # Broker 2 fetches both partitions under the default's 1 MiB/s: 2 MiB each after 4 s.
    sizes = listed_by_log_dirs(sb, 2)
    assert sizes[("t", 0)] == pytest.approx(2 * MiB, rel=0.02)
    assert sizes[("t", 1)] == pytest.approx(2 * MiB, rel=0.02)
    # A broker's own value wins over the default.
    own = ConfigResource("broker", "2", set_config={"follower.replication.throttled.rate": str(4 * MiB)})
    admin.alter_configs([own])[own].result(timeout=10)
    sb.clock.advance(1)
    assert listed_by_log_dirs(sb, 2)[("t", 0)] == pytest.approx(4 * MiB, rel=0.02)


def test_kafka_43_formats_min_insync_replicas_as_a_cluster_wide_default(versioned):
    from confluent_kafka.admin import ConfigResource

    for version, expected in (("4.3", ("1", 3)), ("3.3", ("1", 5))):
        sb = versioned(version, False, format_defaults=True)
        r = ConfigResource("broker", "0")
        admin = confluent(sb)
        entry = admin.describe_configs([r])[r].result(timeout=10)["min.insync.replicas"]
        assert (entry.value, int(entry.source)) == expected, version
        assert sb.snapshot().broker_configs == ({"": {"min.insync.replicas": "1"}} if version == "4.3" else {})


def test_kadmin_verify_after_a_kraft_retarget_reports_differs(versioned, tmp_path, capsys):
    from kadmin.commands.root import run

    sb = versioned("4.3", False)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=10 * MiB)
    reassign(sb, {("t", 0): [0, 2]})
    reassign(sb, {("t", 0): [0, 1, 2]})  # what `execute --additional` of a second plan sends
    sb.clock.advance(5)
    plan = tmp_path / "b.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [{"topic": "t", "partition": 0, "replicas": [0, 1, 2]}]}))
    with pytest.raises(SystemExit) as e:
        run(["reassign", "verify", "--reassignment-json-file", str(plan), "-b", sb.bootstrap])
    out = capsys.readouterr().out
    assert e.value.code == 4, out  # finished, but not as planned: never "complete"
    assert "0,2" in out.replace(", ", ",")
