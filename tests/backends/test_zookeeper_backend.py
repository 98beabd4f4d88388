"""The ZooKeeper backend against a real ZooKeeper server: znodes written as a Kafka 3.x cluster
writes them (literal JSON below), read and written through the backend."""

from __future__ import annotations

import json
import time

import pytest

from kadmin.backends.base import Backend, BrokerLogDirs, Capability, ReadOnlyViolation
from kadmin.backends.zookeeper import ZooKeeperBackend
from kadmin.errors import (
    EXIT_USAGE,
    ClusterError,
    ConnectionFailed,
    InputError,
    NotFoundError,
    ReassignmentInProgress,
    UnsupportedOperation,
)
from kadmin.model import (
    AlterOp,
    Assignment,
    Broker,
    ConfigChange,
    ConfigEntry,
    ConfigResource,
    ConfigResourceType,
    ConfigSource,
    LogDir,
    PartitionReassignment,
    TopicPartition,
    TopicPartitionReplica,
)
from tests.support.zookeeper import free_port

pytestmark = pytest.mark.zookeeper


def broker_json(i: int, rack: str | None = None, sasl_port: int | None = None) -> bytes:
    eps = [f"PLAINTEXT://127.0.0.1:{9090 + i}"]
    proto = {"PLAINTEXT": "PLAINTEXT"}
    if sasl_port:
        eps.append(f"SECURE://127.0.0.1:{sasl_port}")
        proto["SECURE"] = "SASL_SSL"
    obj = {"features": {}, "listener_security_protocol_map": proto, "endpoints": eps, "jmx_port": -1,
           "port": 9090 + i, "host": "127.0.0.1", "version": 5, "timestamp": "1700000000000"}
    if rack:
        obj["rack"] = rack
    return json.dumps(obj, separators=(",", ":")).encode()


@pytest.fixture
def zk(zk_connect):
    """A raw kazoo client on the test's chroot, for writing what Kafka would write."""
    from kazoo.client import KazooClient

    client = KazooClient(hosts=zk_connect)
    client.start(timeout=15)
    yield client
    client.stop()
    client.close()


@pytest.fixture
def cluster(zk):
    """Three live brokers (1 and 2 with racks), broker 4 registered earlier but now gone, a topic
    "foo" mid-reassignment, a v1 topic "old" and a topic with a missing partition state."""
    for path in ("/brokers/ids", "/brokers/topics", "/config/topics", "/config/brokers", "/config/changes",
                 "/admin/delete_topics", "/brokers/seqid", "/isr_change_notification"):
        zk.ensure_path(path)
    zk.create("/brokers/ids/1", broker_json(1, "r1", sasl_port=9191), ephemeral=True)
    zk.create("/brokers/ids/2", broker_json(2, "r2"), ephemeral=True)
    zk.create("/brokers/ids/3", broker_json(3), ephemeral=True)
    zk.create("/cluster/id", b'{"version":"1","id":"AbCdEfGhIjKlMnOpQrStUv"}', makepath=True)
    zk.create("/controller", b'{"version":2,"brokerid":2,"timestamp":"1700000000001","kraftControllerEpoch":-1}',
              ephemeral=True)
    zk.create("/controller_epoch", b"7")
    zk.create("/brokers/topics/foo", (
        b'{"partitions":{"0":[1,2],"1":[3,2,1]},"topic_id":"Zm9vdG9waWNpZGZvb3Rv","adding_replicas":{"1":[3]},'
        b'"removing_replicas":{"1":[1]},"version":3}'))
    zk.create("/brokers/topics/foo/partitions/0/state",
              b'{"controller_epoch":7,"leader":1,"version":1,"leader_epoch":3,"isr":[1,2]}', makepath=True)
    zk.create("/brokers/topics/foo/partitions/1/state",
              b'{"controller_epoch":7,"leader":2,"version":1,"leader_epoch":5,"isr":[2,1]}', makepath=True)
    zk.create("/brokers/topics/old", b'{"version":1,"partitions":{"0":[4,3]}}')
    zk.create("/brokers/topics/old/partitions/0/state",
              b'{"controller_epoch":6,"leader":3,"version":1,"leader_epoch":0,"isr":[3]}', makepath=True)
    zk.create("/brokers/topics/new", b'{"version":3,"partitions":{"0":[2]},"adding_replicas":{},"removing_replicas":{}}')
    zk.create("/config/topics/foo", b'{"version":1,"config":{"retention.ms":"1000","leader.replication.throttled.replicas":"1:1"}}')
    zk.create("/config/brokers/<default>", b'{"version":1,"config":{"follower.replication.throttled.rate":"10","log.cleaner.threads":"2"}}')
    zk.create("/config/brokers/1", b'{"version":1,"config":{"follower.replication.throttled.rate":"99"}}')
    return zk


@pytest.fixture
def backend(zk_connect):
    b = ZooKeeperBackend(zk_connect, timeout=10)
    yield b
    b.close()


def test_it_is_a_backend(backend):
    assert isinstance(backend, Backend)
    assert backend.name == "zookeeper" and not backend.read_only
    assert Capability.REASSIGN in backend.capabilities
    assert Capability.CANCEL_REASSIGNMENTS not in backend.capabilities
    assert Capability.LOG_DIRS not in backend.capabilities  # no broker backend factory given


def test_describe_cluster_reads_kafkas_znodes(cluster, backend):
    state = backend.describe_cluster()
    assert state.cluster_id == "AbCdEfGhIjKlMnOpQrStUv" and state.controller_id == 2
    assert state.brokers == {1: Broker(1, "127.0.0.1", 9091, "r1"), 2: Broker(2, "127.0.0.1", 9092, "r2"),
                             3: Broker(3, "127.0.0.1", 9093, None)}
    foo1 = state.partitions[TopicPartition("foo", 1)]
    assert (foo1.leader, foo1.replicas, foo1.isr, foo1.adding, foo1.removing) == (2, (3, 2, 1), (2, 1), (3,), (1,))
    foo0 = state.partitions[TopicPartition("foo", 0)]
    assert (foo0.leader, foo0.isr, foo0.adding, foo0.offline_replicas) == (1, (1, 2), (), ())
    old = state.partitions[TopicPartition("old", 0)]
    assert old.offline_replicas == (4,) and old.leader == 3  # broker 4 is not registered
    new = state.partitions[TopicPartition("new", 0)]
    assert (new.leader, new.isr) == (-1, ())  # no state znode yet
    assert state.topics == ["foo", "new", "old"]
    assert backend.describe_brokers() == state.brokers


def test_replica_brokers_come_from_the_topic_znodes_alone(cluster, backend, monkeypatch):
    # broker 4 is named by topic "old" but not registered: down. The partition states (one
    # znode per partition, the slow part of describe_cluster on a big cluster) are not read.
    read: list[str] = []
    get_many = backend._get_many
    monkeypatch.setattr(backend, "_get_many", lambda paths: read.extend(paths) or get_many(paths))
    assert backend.replica_brokers() == {1, 2, 3, 4}
    assert read and not [p for p in read if p.endswith("/state")]
    assert backend.replica_brokers() - set(backend.describe_brokers()) == {4}
    assert backend.replica_brokers() == backend.describe_cluster().replica_brokers()


def test_brokers_listed_by_the_listener_of_our_security_protocol(cluster, zk_connect):
    with ZooKeeperBackend(zk_connect, timeout=10, security_protocol="SASL_SSL") as b:
        assert b.describe_brokers()[1] == Broker(1, "127.0.0.1", 9191, "r1")
        assert b.bootstrap_servers() == "127.0.0.1:9191"  # only broker 1 offers SASL_SSL


def test_a_chroot_without_kafka_says_so(zk_connect):
    with ZooKeeperBackend(zk_connect + "/nothing-here", timeout=10) as b:
        with pytest.raises(ClusterError, match="no /brokers/ids") as info:
            b.describe_cluster()
        assert "chroot" in info.value.hint


def test_list_partition_reassignments_from_topic_znodes_and_the_node(cluster, backend):
    cluster.create("/admin/reassign_partitions",
                   b'{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[3,2]}]}', makepath=True)
    assert backend.list_partition_reassignments() == {
        TopicPartition("foo", 0): PartitionReassignment("foo", 0, (3, 2, 1), (3,), (1,)),  # requested, not started
        TopicPartition("foo", 1): PartitionReassignment("foo", 1, (3, 2, 1), (3,), (1,)),  # in flight
    }
    assert list(backend.list_partition_reassignments([TopicPartition("foo", 1), TopicPartition("old", 0)])) == [
        TopicPartition("foo", 1)]


def test_reassign_writes_kafkas_node_without_log_dirs(cluster, backend):
    result = backend.reassign_partitions([
        Assignment("foo", 0, (3, 1), log_dirs=("/data/d2", "any")),
        Assignment("old", 0, (3, 9)),  # broker 9 does not exist
        Assignment("nope", 0, (1,)),
    ])
    assert result == {
        TopicPartition("foo", 0): None,
        TopicPartition("old", 0): "INVALID_REPLICA_ASSIGNMENT: broker 9 not alive",
        TopicPartition("nope", 0): "UNKNOWN_TOPIC_OR_PARTITION: no such partition",
    }
    data, _ = cluster.get("/admin/reassign_partitions")
    assert data == b'{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[3,1]}]}'


def test_validate_only_writes_nothing(cluster, zk_connect):
    with ZooKeeperBackend(zk_connect, timeout=10, read_only=True) as b:
        assert b.reassign_partitions([Assignment("foo", 0, (3, 1))], validate_only=True) == {TopicPartition("foo", 0): None}
    assert cluster.exists("/admin/reassign_partitions") is None


def test_refuses_while_the_node_exists(cluster, backend):
    node = b'{"version":1,"partitions":[{"topic":"foo","partition":1,"replicas":[3,2]}]}'
    cluster.create("/admin/reassign_partitions", node, makepath=True)
    for validate_only in (False, True):
        with pytest.raises(ReassignmentInProgress, match="existing assignment running") as info:
            backend.reassign_partitions([Assignment("foo", 0, (3, 1))], validate_only=validate_only)
        assert info.value.exit_code == EXIT_USAGE
    assert cluster.get("/admin/reassign_partitions")[0] == node  # untouched


def test_a_node_nobody_acts_on_is_explained(cluster, zk_connect):
    # foo-0 is listed but its topic znode shows no move, a minute after the node was created.
    cluster.create("/admin/reassign_partitions",
                   b'{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[3,2]}]}', makepath=True)
    with ZooKeeperBackend(zk_connect, timeout=10, clock=lambda: time.time() + 60) as b:
        with pytest.raises(ReassignmentInProgress, match="looks stuck") as info:
            b.reassign_partitions([Assignment("foo", 0, (3, 1))])
    assert "delete /controller" in info.value.hint and "--bootstrap-server" in info.value.hint


def test_a_node_with_log_dirs_is_stuck_at_once(cluster, backend):
    assert backend.reassign_node_problem() is None  # no node
    cluster.create("/admin/reassign_partitions",
                   b'{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[3,2],"log_dirs":["any","any"]}]}',
                   makepath=True)
    with pytest.raises(ReassignmentInProgress, match="invalid for Kafka's controller"):
        backend.reassign_partitions([Assignment("foo", 0, (3, 1))])
    assert "invalid for Kafka's controller" in backend.reassign_node_problem()


def test_a_fresh_or_moving_node_is_not_called_stuck(cluster, zk_connect):
    cluster.create("/admin/reassign_partitions",
                   b'{"version":1,"partitions":[{"topic":"foo","partition":1,"replicas":[3,2]}]}', makepath=True)
    with ZooKeeperBackend(zk_connect, timeout=10) as fresh:
        assert fresh.reassign_node_problem() is None
    with ZooKeeperBackend(zk_connect, timeout=10, clock=lambda: time.time() + 3600) as later:
        assert later.reassign_node_problem() is None  # foo-1 is moving (adding/removing in its znode)


def test_cancel_names_bootstrap_server(cluster, backend):
    with pytest.raises(UnsupportedOperation) as info:
        backend.cancel_partition_reassignments([TopicPartition("foo", 1)])
    assert "--bootstrap-server" in info.value.hint


def notifications(zk) -> list[bytes]:
    return [zk.get(f"/config/changes/{c}")[0] for c in sorted(zk.get_children("/config/changes"))]


def test_config_changes_merge_and_notify_brokers(cluster, backend):
    topic, b1, b3, default = (ConfigResource(ConfigResourceType.TOPIC, "foo"), ConfigResource(ConfigResourceType.BROKER, "1"),
                              ConfigResource(ConfigResourceType.BROKER, "3"), ConfigResource(ConfigResourceType.BROKER, ""))
    backend.incremental_alter_configs([
        ConfigChange(topic, "follower.replication.throttled.replicas", AlterOp.SET, "0:3"),
        ConfigChange(topic, "leader.replication.throttled.replicas", AlterOp.DELETE),
        ConfigChange(b3, "leader.replication.throttled.rate", AlterOp.SET, "1000"),
        ConfigChange(default, "log.cleaner.threads", AlterOp.DELETE),
    ])
    assert json.loads(cluster.get("/config/topics/foo")[0]) == {
        "version": 1, "config": {"retention.ms": "1000", "follower.replication.throttled.replicas": "0:3"}}
    assert cluster.get("/config/brokers/3")[0] == b'{"version":1,"config":{"leader.replication.throttled.rate":"1000"}}'
    assert json.loads(cluster.get("/config/brokers/<default>")[0])["config"] == {"follower.replication.throttled.rate": "10"}
    changes = cluster.get_children("/config/changes")
    assert all(c.startswith("config_change_") and len(c) == len("config_change_") + 10 for c in changes)
    assert notifications(cluster) == [
        b'{"version":2,"entity_path":"brokers/<default>"}',
        b'{"version":2,"entity_path":"brokers/3"}',
        b'{"version":2,"entity_path":"topics/foo"}',
    ]
    configs = backend.describe_configs([topic, b1, b3, default])
    assert configs[topic]["retention.ms"] == ConfigEntry("retention.ms", "1000", ConfigSource.TOPIC)
    assert configs[b1] == {
        "follower.replication.throttled.rate": ConfigEntry("follower.replication.throttled.rate", "99", ConfigSource.DYNAMIC_BROKER)}
    assert configs[b3]["follower.replication.throttled.rate"].source == ConfigSource.DYNAMIC_DEFAULT_BROKER
    assert configs[b3]["leader.replication.throttled.rate"].value == "1000"
    assert list(configs[default]) == ["follower.replication.throttled.rate"]
    only = backend.describe_configs([topic, b1, b3, default], keys=["leader.replication.throttled.rate"])
    assert only == {topic: {}, b1: {}, b3: {"leader.replication.throttled.rate": configs[b3]["leader.replication.throttled.rate"]},
                    default: {}}


def test_topic_configs_alone(cluster, backend):
    topic = ConfigResource(ConfigResourceType.TOPIC, "foo")
    assert backend.describe_configs([topic, ConfigResource(ConfigResourceType.TOPIC, "old")]) == {
        topic: {"leader.replication.throttled.replicas": ConfigEntry("leader.replication.throttled.replicas", "1:1", ConfigSource.TOPIC),
                "retention.ms": ConfigEntry("retention.ms", "1000", ConfigSource.TOPIC)},
        ConfigResource(ConfigResourceType.TOPIC, "old"): {},
    }


def test_config_change_of_a_missing_topic_or_bad_broker_changes_nothing(cluster, backend):
    before = cluster.get("/config/brokers/1")[0]
    with pytest.raises(NotFoundError, match="'ghost'"):
        backend.incremental_alter_configs([
            ConfigChange(ConfigResource(ConfigResourceType.BROKER, "1"), "x", AlterOp.SET, "1"),
            ConfigChange(ConfigResource(ConfigResourceType.TOPIC, "ghost"), "x", AlterOp.SET, "1"),
        ])
    with pytest.raises(InputError, match="'one'"):
        backend.incremental_alter_configs([
            ConfigChange(ConfigResource(ConfigResourceType.BROKER, "1"), "x", AlterOp.SET, "1"),
            ConfigChange(ConfigResource(ConfigResourceType.BROKER, "one"), "x", AlterOp.SET, "1"),
        ])
    assert cluster.get_children("/config/changes") == []
    assert cluster.exists("/config/topics/ghost") is None
    assert cluster.get("/config/brokers/1")[0] == before


def test_sensitive_dynamic_configs_are_not_returned(cluster, backend):
    cluster.create("/config/brokers/2", b'{"version":1,"config":{"listener.name.x.ssl.key.password":"ENCRYPTED","num.io.threads":"8"}}')
    entries = backend.describe_configs([ConfigResource(ConfigResourceType.BROKER, "2")])[ConfigResource(ConfigResourceType.BROKER, "2")]
    assert entries["listener.name.x.ssl.key.password"] == ConfigEntry(
        "listener.name.x.ssl.key.password", None, ConfigSource.DYNAMIC_BROKER, sensitive=True)
    assert entries["num.io.threads"].value == "8"


def test_read_only_refuses_every_change(cluster, zk_connect):
    before = {p: cluster.get(p)[0] for p in ("/config/topics/foo", "/config/brokers/1")}
    calls = [
        lambda b: b.reassign_partitions([Assignment("foo", 0, (3, 1))]),
        lambda b: b.cancel_partition_reassignments([TopicPartition("foo", 1)]),
        lambda b: b.alter_replica_log_dirs({TopicPartitionReplica("foo", 0, 1): "/d"}),
        lambda b: b.incremental_alter_configs([
            ConfigChange(ConfigResource(ConfigResourceType.BROKER, "1"), "x", AlterOp.SET, "1")]),
    ]
    with ZooKeeperBackend(zk_connect, timeout=10, read_only=True, broker_backend_factory=lambda s: None) as b:
        assert b.read_only
        for call in calls:
            with pytest.raises(ReadOnlyViolation):
                call(b)
    assert cluster.exists("/admin/reassign_partitions") is None
    assert cluster.get_children("/config/changes") == []
    assert before == {p: cluster.get(p)[0] for p in before}


class RecordingBrokers:
    """Stands in for the AdminClient backend the CLI passes as the factory."""

    name, read_only, capabilities = "admin", False, frozenset()

    def __init__(self, bootstrap: str):
        self.bootstrap = bootstrap
        self.calls: list[tuple] = []
        self.closed = False

    def describe_log_dirs(self, brokers=None, topics=None):
        self.calls.append(("describe_log_dirs", brokers, topics))
        return {1: BrokerLogDirs(1, (LogDir(1, "/d1"),))}

    def alter_replica_log_dirs(self, moves):
        self.calls.append(("alter_replica_log_dirs", dict(moves)))
        return {r: None for r in moves}

    def list_end_offsets(self, partitions):
        return {tp: 42 for tp in partitions}

    def close(self):
        self.closed = True


def test_broker_rpcs_go_to_the_brokers_registered_in_zookeeper(cluster, zk_connect):
    made: list[RecordingBrokers] = []

    def factory(bootstrap: str) -> RecordingBrokers:
        made.append(RecordingBrokers(bootstrap))
        return made[-1]

    b = ZooKeeperBackend(zk_connect, timeout=10, broker_backend_factory=factory)
    assert {Capability.LOG_DIRS, Capability.END_OFFSETS} <= b.capabilities
    assert b.describe_log_dirs([1], ["foo"])[1].log_dirs[0].path == "/d1"
    assert b.alter_replica_log_dirs({TopicPartitionReplica("foo", 0, 1): "/d2"}) == {TopicPartitionReplica("foo", 0, 1): None}
    assert b.list_end_offsets([TopicPartition("foo", 0)]) == {TopicPartition("foo", 0): 42}
    assert len(made) == 1 and made[0].bootstrap == "127.0.0.1:9091,127.0.0.1:9092,127.0.0.1:9093"
    assert made[0].calls[0] == ("describe_log_dirs", [1], ["foo"])
    b.close()
    assert made[0].closed


def test_broker_rpcs_without_a_factory_name_bootstrap_server(cluster, backend):
    for call in (lambda: backend.describe_log_dirs(), lambda: backend.list_end_offsets([TopicPartition("foo", 0)]),
                 lambda: backend.describe_replica_log_dirs([TopicPartitionReplica("foo", 0, 1)])):
        with pytest.raises(UnsupportedOperation) as info:
            call()
        assert "--bootstrap-server" in info.value.hint


def test_no_listener_for_our_protocol_is_explained(cluster, zk_connect):
    with ZooKeeperBackend(zk_connect, timeout=10, security_protocol="SSL", broker_backend_factory=RecordingBrokers) as b:
        with pytest.raises(ConnectionFailed, match="no live broker .* SSL listener .*offer PLAINTEXT, SASL_SSL"):
            b.describe_log_dirs()


def test_unreachable_zookeeper_fails_within_the_timeout():
    port = free_port()  # nothing listens there
    started = time.monotonic()
    with pytest.raises(ConnectionFailed, match=f"127.0.0.1:{port}.* within 1.5s") as info:
        ZooKeeperBackend(f"127.0.0.1:{port}", timeout=1.5)
    elapsed = time.monotonic() - started
    assert 1.4 <= elapsed < 4.0
    assert "--zookeeper" in info.value.hint


def test_lost_connection_is_a_connection_failure(zookeeper):
    """A server that goes away mid-session: calls fail with ConnectionFailed, not a kazoo error."""
    from tests.support.zookeeper import ZooKeeperServer

    with ZooKeeperServer() as server:
        b = ZooKeeperBackend(server.connect, timeout=3)
        server.stop()
        with pytest.raises(ConnectionFailed):
            b.list_partition_reassignments()
        b.close()
