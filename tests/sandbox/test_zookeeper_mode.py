"""ZooKeeper mode against a real ZooKeeper server (Debian's), one chroot per test."""

from __future__ import annotations

import json
import time
import uuid

import pytest

from kadmin.sandbox.zookeeper import topic_id_text
from tests.sandbox.clients import kafka_python, raw

pytestmark = pytest.mark.zookeeper
MiB = 2**20
REASSIGN = "/admin/reassign_partitions"


@pytest.fixture
def zk(zk_connect):
    from kazoo.client import KazooClient

    client = KazooClient(hosts=zk_connect)
    client.start(timeout=15)
    yield client
    client.stop()
    client.close()


def poll(check, timeout=10.0):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)


def read(zk, path):
    data, _ = zk.get(path)
    return json.loads(data)


def test_brokers_controller_and_topics_in_kafkas_znode_formats(sandbox_factory, zk_connect, zk):
    sb = sandbox_factory(brokers=3, racks=3, zookeeper=zk_connect, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1], 1: [1, 2]})
    assert sorted(zk.get_children("/brokers/ids")) == ["0", "1", "2"]
    b1 = read(zk, "/brokers/ids/1")
    assert b1["version"] == 5 and b1["port"] == sb.ports[1] and b1["rack"] == "rack-1"
    assert b1["endpoints"] == [f"PLAINTEXT://127.0.0.1:{sb.ports[1]}"]
    assert b1["listener_security_protocol_map"] == {"PLAINTEXT": "PLAINTEXT"}
    assert isinstance(b1["timestamp"], str)
    assert (b1["jmx_port"], b1["features"]) == (-1, {})
    ctl = read(zk, "/controller")
    assert ctl["brokerid"] in (0, 1, 2)
    assert int(zk.get("/controller_epoch")[0]) >= 1
    assert read(zk, "/cluster/id") == {"version": "1", "id": sb.snapshot().cluster_id}
    topic = poll(lambda: zk.exists("/brokers/topics/t/partitions/1/state") and read(zk, "/brokers/topics/t"))
    assert topic["version"] == 3 and topic["partitions"] == {"0": [0, 1], "1": [1, 2]}
    assert topic["adding_replicas"] == {} and topic["removing_replicas"] == {}
    state = read(zk, "/brokers/topics/t/partitions/1/state")
    assert (state["leader"], state["isr"], state["version"]) == (1, [1, 2], 1)
    # Metadata reports the ZooKeeper controller.
    from tests.sandbox.clients import confluent

    admin = confluent(sb)
    assert admin.describe_cluster().result(timeout=10).controller.id == ctl["brokerid"]


def test_a_broker_without_a_rack_registers_no_rack_key(sandbox_factory, zk_connect, zk):
    sandbox_factory(brokers=1, zookeeper=zk_connect, manual_clock=True)
    b0 = read(zk, "/brokers/ids/0")
    assert "rack" not in b0
    assert (b0["jmx_port"], b0["features"]) == (-1, {})


def _write_configs(zk, entity: str, config: dict) -> None:
    """What Kafka's ZooKeeper-mode tools do: the config znode, then a change notification."""
    path = f"/config/{entity}"
    data = json.dumps({"version": 1, "config": config}).encode()
    if zk.exists(path):
        zk.set(path, data)
    else:
        zk.create(path, data, makepath=True)
    zk.create("/config/changes/config_change_", json.dumps({"version": 2, "entity_path": entity}).encode(),
              sequence=True, makepath=True)


def test_brokers_act_on_the_notification_not_on_the_config_node(sandbox_factory, zk_connect, zk):
    sb = sandbox_factory(brokers=2, zookeeper=zk_connect, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]})
    zk.create("/config/brokers/<default>", json.dumps(
        {"version": 1, "config": {"follower.replication.throttled.rate": "3000"}}).encode(), makepath=True)
    zk.set("/config/topics/t", json.dumps({"version": 1, "config": {"retention.ms": "1000"}}).encode())
    sb.settle()
    assert sb.snapshot().broker_configs.get("", {}) == {} and sb.snapshot().topic_configs["t"] == {}
    for entity in ("brokers/<default>", "topics/t"):
        zk.create("/config/changes/config_change_", json.dumps({"version": 2, "entity_path": entity}).encode(),
                  sequence=True)
    sb.settle()
    assert sb.snapshot().broker_configs[""] == {"follower.replication.throttled.rate": "3000"}
    assert sb.snapshot().topic_configs["t"] == {"retention.ms": "1000"}


def test_reassignment_through_the_admin_znode_with_throttles(sandbox_factory, zk_connect, zk):
    sb = sandbox_factory(brokers=3, zookeeper=zk_connect, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=10 * MiB)
    for b in ("0", "1", "2"):
        _write_configs(zk, f"brokers/{b}", {"leader.replication.throttled.rate": str(MiB),
                                           "follower.replication.throttled.rate": str(MiB)})
    _write_configs(zk, "topics/t", {"leader.replication.throttled.replicas": "0:0,0:1",
                                    "follower.replication.throttled.replicas": "0:2"})
    poll(lambda: sb.snapshot().topic_configs["t"].get("follower.replication.throttled.replicas") == "0:2"
         and len(sb.snapshot().broker_configs) == 3)

    zk.create("/admin/reassign_partitions", json.dumps(
        {"version": 1, "partitions": [{"topic": "t", "partition": 0, "replicas": [1, 2]},
                                      {"topic": "missing", "partition": 0, "replicas": [1, 2]}]}).encode(),
              makepath=True)
    poll(lambda: sb.snapshot().partition("t", 0).reassigning)
    topic = poll(lambda: (t := read(zk, "/brokers/topics/t"))["adding_replicas"] and t)
    assert topic["partitions"] == {"0": [1, 2, 0]}
    assert (topic["adding_replicas"], topic["removing_replicas"]) == ({"0": [2]}, {"0": [0]})
    # The unknown partition is dropped from the node; the rest stays until done.
    node = poll(lambda: (n := read(zk, "/admin/reassign_partitions"))["partitions"] and len(n["partitions"]) == 1 and n)
    assert node["partitions"] == [{"topic": "t", "partition": 0, "replicas": [1, 2]}]

    sb.clock.advance(9.5)
    assert sb.snapshot().partition("t", 0).reassigning  # 1 MiB/s: 10 s
    sb.clock.advance(0.75)
    poll(lambda: zk.exists("/admin/reassign_partitions") is None)
    topic = read(zk, "/brokers/topics/t")
    assert topic["partitions"] == {"0": [1, 2]} and topic["adding_replicas"] == {}
    state = read(zk, "/brokers/topics/t/partitions/0/state")
    assert (state["leader"], sorted(state["isr"])) == (1, [1, 2])
    # The controller watches again: a second node is carried out too.
    zk.create("/admin/reassign_partitions", json.dumps(
        {"version": 1, "partitions": [{"topic": "t", "partition": 0, "replicas": [2, 1]}]}).encode())
    poll(lambda: zk.exists("/admin/reassign_partitions") is None)
    assert sb.snapshot().partition("t", 0).replicas == (2, 1)


def test_reassign_node_with_log_dirs_is_ignored_until_a_completed_reassignment_deletes_it(sandbox_factory, zk_connect, zk):
    sb = sandbox_factory(brokers=3, zookeeper=zk_connect, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]})
    zk.create("/admin/reassign_partitions", json.dumps({"version": 1, "partitions": [
        {"topic": "t", "partition": 0, "replicas": [1, 2], "log_dirs": ["any", "any"]}]}).encode(), makepath=True)
    sb.settle()  # the controller has acted on the node: it must have done nothing
    assert zk.exists("/admin/reassign_partitions") is not None
    assert sb.snapshot().partition("t", 0).replicas == (0, 1)
    # Until a reassignment completes: the controller then reads the node, its parser makes nothing
    # of it, and a node with nothing left in it is deleted (maybeRemoveFromZkReassignment).
    from kafka import TopicPartition

    with kafka_python(sb) as admin:
        assert admin.alter_partition_reassignments({TopicPartition("t", 0): [1, 0]}) == {TopicPartition("t", 0): None}
    sb.settle()
    assert zk.exists("/admin/reassign_partitions") is None


def test_stopped_broker_deregisters_and_controller_moves(sandbox_factory, zk_connect, zk):
    sb = sandbox_factory(brokers=3, zookeeper=zk_connect, manual_clock=True)
    first = read(zk, "/controller")["brokerid"]
    epoch = int(zk.get("/controller_epoch")[0])
    sb.faults.broker_stop(first)
    poll(lambda: str(first) not in zk.get_children("/brokers/ids"))
    new = poll(lambda: zk.exists("/controller") and read(zk, "/controller")["brokerid"] != first
               and read(zk, "/controller"))
    assert int(zk.get("/controller_epoch")[0]) == epoch + 1
    assert new["brokerid"] != first
    sb.faults.broker_start(first)
    poll(lambda: str(first) in zk.get_children("/brokers/ids"))


def test_admin_client_config_changes_are_written_to_zookeeper(sandbox_factory, zk_connect, zk):
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource

    from tests.sandbox.clients import confluent

    sb = sandbox_factory(brokers=2, zookeeper=zk_connect, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]})
    r = ConfigResource("topic", "t", incremental_configs=[
        ConfigEntry("retention.ms", "1000", incremental_operation=AlterConfigOpType.SET)])
    admin = confluent(sb)
    admin.incremental_alter_configs([r])[r].result(timeout=10)
    poll(lambda: zk.exists("/config/topics/t") and read(zk, "/config/topics/t")["config"] == {"retention.ms": "1000"})
    # The notification follows the config node (as Kafka writes them): await it too.
    poll(lambda: any(read(zk, f"/config/changes/{c}")["entity_path"] == "topics/t"
                     for c in zk.get_children("/config/changes")))


def test_admin_client_reassignment_rejects_brokers_that_are_not_live(sandbox_factory, zk_connect):
    """Only the brokers a move adds must be live (KafkaController.validateReplicas): a reorder
    or a shrink onto replicas that include a down broker is accepted, and waits for it."""
    from kafka import TopicPartition
    from kafka.errors import InvalidReplicationAssignmentError

    sb = sandbox_factory(brokers=3, zookeeper=zk_connect, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1], 1: [0, 1, 2], 2: [1, 2]})
    sb.faults.broker_stop(2)
    t0, t1, t2 = (TopicPartition("t", p) for p in range(3))
    with kafka_python(sb) as admin:
        result = admin.alter_partition_reassignments({t0: [1, 2], t1: [2, 1], t2: [2, 1]})
    assert result == {t0: InvalidReplicationAssignmentError, t1: None, t2: None}
    snap = sb.snapshot()
    assert snap.partition("t", 0).replicas == (0, 1)
    assert snap.partition("t", 1).replicas == (2, 1, 0) and snap.partition("t", 1).reassigning  # 2 is not in sync
    assert snap.partition("t", 2).replicas == (2, 1) and not snap.partition("t", 2).reassigning  # a reorder


def test_a_broker_that_is_not_the_controller_answers_not_controller(sandbox_factory, zk_connect):
    """ZooKeeper-mode brokers hand these requests to their own KafkaController, which answers
    NOT_CONTROLLER unless it is the active one: whole-request for Alter/ListPartitionReassignments,
    per partition for ElectLeaders. Clients send them to the controller Metadata names."""
    from kafka.protocol.admin.topics import AlterPartitionReassignmentsRequest as Alter
    from kafka.protocol.admin.topics import ElectLeadersRequest as Elect
    from kafka.protocol.admin.topics import ListPartitionReassignmentsRequest as List

    sb = sandbox_factory(brokers=2, zookeeper=zk_connect, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1], 1: [1, 0]})
    controller = sb.snapshot().controller_id
    other = 1 - controller
    alter = Alter(timeout_ms=1000, topics=[Alter.ReassignableTopic(name="t", partitions=[
        Alter.ReassignableTopic.ReassignablePartition(partition_index=0, replicas=[1, 0])])])
    answer = raw(sb, other, alter, 0)
    assert (answer.error_code, answer.error_message, answer.responses) == (
        41, "This is not the correct controller for this cluster.", [])
    answer = raw(sb, other, List(timeout_ms=1000, topics=None), 0)
    assert (answer.error_code, answer.topics) == (41, [])
    for partitions in ([Elect.TopicPartitions(topic="t", partitions=[0])], None):
        answer = raw(sb, other, Elect(election_type=0, topic_partitions=partitions, timeout_ms=1000), 2)
        assert answer.error_code == 0
        results = {(r.topic, p.partition_id): (p.error_code, p.error_message)
                   for r in answer.replica_election_results for p in r.partition_result}
        assert results == {("t", i): (41, None) for i in ([0] if partitions else [0, 1])}
    assert sb.snapshot().partition("t", 0).replicas == (0, 1)
    assert raw(sb, controller, alter, 0).responses[0].partitions[0].error_code == 0
    assert sb.snapshot().partition("t", 0).replicas == (1, 0)


def test_a_restart_keeps_the_topic_ids_the_znodes_hold(sandbox_factory, zk_connect, zk):
    first = sandbox_factory(brokers=2, zookeeper=zk_connect, manual_clock=True)
    first.create_topic("t", assignment={0: [0, 1]})
    first.settle()
    topic_id = read(zk, "/brokers/topics/t")["topic_id"]
    first.stop()
    again = sandbox_factory(brokers=2, zookeeper=zk_connect, manual_clock=True)
    again.settle()
    assert read(zk, "/brokers/topics/t")["topic_id"] == topic_id
    from confluent_kafka import TopicCollection

    from tests.sandbox.clients import confluent

    admin = confluent(again)
    described = admin.describe_topics(TopicCollection(["t"]))["t"].result(timeout=10)
    bits = (described.topic_id.get_most_significant_bits() % 2**64) << 64
    bits |= described.topic_id.get_least_significant_bits() % 2**64
    assert topic_id_text(uuid.UUID(int=bits)) == topic_id  # librdkafka prints it in base64's other alphabet


def test_unreachable_zookeeper_is_a_clear_error():
    from kadmin.errors import ConnectionFailed
    from kadmin.sandbox import Sandbox

    with pytest.raises(ConnectionFailed, match="cannot reach ZooKeeper at 127.0.0.1:1"):
        Sandbox(zookeeper="127.0.0.1:1").start()


def _reassign_node(zk, topic, partition, replicas, *, create=True):
    data = json.dumps({"version": 1, "partitions": [
        {"topic": topic, "partition": partition, "replicas": replicas}]}).encode()
    if create:
        zk.create(REASSIGN, data, makepath=True)
    else:
        zk.set(REASSIGN, data)


def test_reassign_node_deleted_by_hand_leaves_the_controller_unarmed_until_it_moves(sandbox_factory, zk_connect, zk):
    sb = sandbox_factory(brokers=3, zookeeper=zk_connect, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1], 1: [0, 1]}, size_bytes=MiB)
    sb.faults.broker_stop(2)  # the target is down: the partition waits
    _reassign_node(zk, "t", 0, [1, 2])
    poll(lambda: sb.snapshot().partition("t", 0).reassigning)
    zk.delete(REASSIGN)  # no reassignment completes after this: the controller does not look again
    _reassign_node(zk, "t", 1, [1, 2])
    sb.settle()  # the controller saw every event: a stuck node, nobody carries it out
    assert sb.snapshot().partition("t", 1).replicas == (0, 1)
    assert zk.exists(REASSIGN) is not None
    zk.delete("/controller")  # force an election: the new controller reads the pending node
    poll(lambda: sb.snapshot().partition("t", 1).reassigning)
    sb.faults.broker_start(2)
    sb.clock.advance(1)
    poll(lambda: zk.exists(REASSIGN) is None)
    assert sb.snapshot().partition("t", 0).replicas == (1, 2)  # the controller still finished it
    assert sb.snapshot().partition("t", 1).replicas == (1, 2)


def test_a_completed_reassignment_rearms_the_watch_a_hand_deletion_consumed(sandbox_factory, zk_connect, zk):
    """Kafka's controller checks the node whenever a reassignment completes (an ExistsRequest,
    which sets its watch again): after that a new node is carried out without an election."""
    sb = sandbox_factory(brokers=3, zookeeper=zk_connect, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1], 1: [0, 1]}, size_bytes=MiB)
    sb.faults.broker_stop(2)
    _reassign_node(zk, "t", 0, [1, 2])
    poll(lambda: sb.snapshot().partition("t", 0).reassigning)
    zk.delete(REASSIGN)
    sb.faults.broker_start(2)
    sb.clock.advance(1)
    sb.settle()
    assert sb.snapshot().partition("t", 0).replicas == (1, 2)
    _reassign_node(zk, "t", 1, [1, 2])
    sb.settle()
    assert sb.snapshot().partition("t", 1).reassigning
    sb.clock.advance(1)
    poll(lambda: zk.exists(REASSIGN) is None)
    assert sb.snapshot().partition("t", 1).replicas == (1, 2)


def test_changing_a_pending_reassign_node_does_nothing(sandbox_factory, zk_connect, zk):
    """The controller watches the node for its creation only: a partition added to a node it is
    carrying out is never started, and stays in the node after the rest completes."""
    sb = sandbox_factory(brokers=3, zookeeper=zk_connect, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1], 1: [0, 1]}, size_bytes=MiB)
    _reassign_node(zk, "t", 0, [1, 2])
    poll(lambda: sb.snapshot().partition("t", 0).reassigning)
    zk.set(REASSIGN, json.dumps({"version": 1, "partitions": [
        {"topic": "t", "partition": 0, "replicas": [1, 2]},
        {"topic": "t", "partition": 1, "replicas": [1, 2]}]}).encode())
    sb.settle()
    assert not sb.snapshot().partition("t", 1).reassigning
    sb.clock.advance(1)
    sb.settle()
    assert sb.snapshot().partition("t", 0).replicas == (1, 2)
    assert read(zk, REASSIGN)["partitions"] == [{"topic": "t", "partition": 1, "replicas": [1, 2]}]
    assert sb.snapshot().partition("t", 1).replicas == (0, 1)


def test_admin_client_reassignment_takes_the_partition_out_of_the_reassign_node(sandbox_factory, zk_connect, zk):
    """AlterPartitionReassignments supersedes the node's entry for the partition (Kafka's
    processApiPartitionReassignment), whatever replicas the node gives it."""
    from kafka import TopicPartition

    sb = sandbox_factory(brokers=3, zookeeper=zk_connect, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=MiB)
    sb.faults.broker_stop(2)  # the node's target waits
    _reassign_node(zk, "t", 0, [1, 2])
    poll(lambda: sb.snapshot().partition("t", 0).reassigning)
    with kafka_python(sb) as admin:
        assert admin.alter_partition_reassignments({TopicPartition("t", 0): None}) == {TopicPartition("t", 0): None}
    sb.settle()
    assert zk.exists(REASSIGN) is None
    assert set(sb.snapshot().partition("t", 0).replicas) == {0, 1}


def test_leader_epoch_moves_on_through_reassignments_as_kafkas_zookeeper_controller_does(
        sandbox_factory, zk_connect, zk):
    """KafkaController.onPartitionReassignment: a new leader epoch when the move starts (A1), one
    at completion whether the leader moves or stays (B3), one per removed replica leaving the ISR
    (B4); a reassignment that completes at once skips A1. Each written by this controller."""
    from kafka import TopicPartition

    sb = sandbox_factory(brokers=4, zookeeper=zk_connect, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=MiB)
    sb.settle()
    controller_epoch = int(zk.get("/controller_epoch")[0])

    def state():
        sb.settle()
        s = read(zk, "/brokers/topics/t/partitions/0/state")
        assert s["controller_epoch"] == controller_epoch
        return s["leader"], s["leader_epoch"], sorted(s["isr"])

    leader, epoch, _ = state()
    assert leader == 0
    _reassign_node(zk, "t", 0, [1, 2])  # the leader moves: 0 -> 1
    assert state() == (0, epoch + 1, [0, 1])
    sb.clock.advance(1)
    assert state() == (1, epoch + 3, [1, 2])
    _reassign_node(zk, "t", 0, [1, 0])  # the leader stays
    assert state() == (1, epoch + 4, [1, 2])
    sb.clock.advance(1)
    assert state() == (1, epoch + 6, [0, 1])
    _reassign_node(zk, "t", 0, [0, 1])  # a reorder completes at once: no A1, no replica leaves
    assert state() == (1, epoch + 7, [0, 1])
    tp = TopicPartition("t", 0)
    with kafka_python(sb) as admin:  # a cancel with an adding replica in the ISR: it leaves it
        assert admin.alter_partition_reassignments({tp: [0, 1, 2, 3]}) == {tp: None}
        assert state() == (1, epoch + 8, [0, 1])
        sb.faults.broker_stop(3)
        sb.clock.advance(1)  # 2 catches up, 3 cannot
        assert state() == (1, epoch + 8, [0, 1, 2])
        assert admin.alter_partition_reassignments({tp: None}) == {tp: None}
    assert state() == (1, epoch + 10, [0, 1])
def test_preferred_replica_election_node(sandbox_factory, zk_connect, zk):
    sb = sandbox_factory(brokers=2, zookeeper=zk_connect, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]})
    sb.faults.broker_stop(0)
    sb.faults.broker_start(0)
    sb.clock.advance(1)
    assert sb.snapshot().partition("t", 0).leader == 1
    zk.create("/admin/preferred_replica_election", json.dumps(
        {"version": 1, "partitions": [{"topic": "t", "partition": 0}]}).encode(), makepath=True)
    poll(lambda: zk.exists("/admin/preferred_replica_election") is None)
    assert sb.snapshot().partition("t", 0).leader == 0


def test_a_directory_that_fills_fails_and_leadership_moves_in_zookeeper(sandbox_factory, zk_connect, zk):
    """ZooKeeper mode: the full directory's partitions change leader in their state znodes. (Its
    broker has another directory: a broker whose last directory fails halts instead,
    test_last_log_dir_failure.py.)"""
    sb = sandbox_factory(brokers=2, log_dirs=2, zookeeper=zk_connect, manual_clock=True, dir_capacity=100 * MiB)
    d0 = "/var/lib/kafka/data0"
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=60 * MiB, produce_rate=MiB, log_dirs={(0, 0): d0})
    sb.create_topic("pad", assignment={0: [0]}, size_bytes=30 * MiB, log_dirs={(0, 0): d0})
    events = zk.exists("/log_dir_event_notification").cversion
    sb.clock.advance(15)  # broker 0's directory would hold 105 MiB; broker 1's 75 MiB
    sb.settle()
    state = poll(lambda: (s := read(zk, "/brokers/topics/t/partitions/0/state"))["leader"] == 1 and s)
    assert state["isr"] == [1]
    assert [d.online for d in sb.snapshot().brokers[0].dirs.values()] == [False, True]
    # The broker announced it (log_dir_event_<seq>) and the controller deleted the notification.
    assert zk.exists("/log_dir_event_notification").cversion == events + 2
    assert zk.get_children("/log_dir_event_notification") == []
