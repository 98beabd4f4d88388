"""Kafka's znode formats and the pure reassignment rules of the ZooKeeper backend (no server)."""

from __future__ import annotations

import pytest

from kadmin.backends import zk_paths as zp
from kadmin.backends.zk_reassign import check_assignments, ongoing_reassignments, reassignment_of, stuck_reason
from kadmin.model import Assignment, PartitionReassignment, TopicPartition

# As Kafka brokers of each era wrote them (ZkData.scala BrokerIdZNode docs and real clusters).
BROKER_V5 = (b'{"features":{},"listener_security_protocol_map":{"INTERNAL":"SASL_SSL","EXTERNAL":"PLAINTEXT"},'
             b'"endpoints":["INTERNAL://10.0.0.1:9093","EXTERNAL://[::1]:9092"],"jmx_port":-1,"port":9092,'
             b'"host":"10.0.0.1","version":5,"timestamp":"1700000000000","rack":"r1"}')
BROKER_V4_NO_MAP = b'{"endpoints":["SSL://h:9094"],"jmx_port":9999,"host":null,"port":-1,"version":4,"timestamp":"1"}'
BROKER_V1 = b'{"jmx_port":-1,"timestamp":"1","host":"old","version":1,"port":9092}'


def test_broker_registrations_of_every_version():
    v5 = zp.decode_broker(1, BROKER_V5)
    assert v5.rack == "r1" and v5.version == 5
    assert v5.endpoint("SASL_SSL") == zp.EndPoint("INTERNAL", "SASL_SSL", "10.0.0.1", 9093)
    assert v5.endpoint("PLAINTEXT").address == "[::1]:9092"
    assert v5.to_broker("PLAINTEXT").host == "::1" and v5.to_broker("SSL").port == 9093  # falls back to the first
    v4 = zp.decode_broker(2, BROKER_V4_NO_MAP)
    assert v4.endpoints == (zp.EndPoint("SSL", "SSL", "h", 9094),) and v4.rack is None
    v1 = zp.decode_broker(3, BROKER_V1)
    assert v1.endpoints == (zp.EndPoint("PLAINTEXT", "PLAINTEXT", "old", 9092),)


def test_encoded_broker_registration_round_trips():
    reg = zp.BrokerRegistration(4, (zp.EndPoint("PLAINTEXT", "PLAINTEXT", "127.0.0.1", 9092),), rack="a")
    assert zp.decode_broker(4, zp.encode_broker(reg, 123)) == reg


def test_topic_znode_versions():
    v1 = zp.decode_topic("t", b'{"version":1,"partitions":{"0":[1,2],"1":[2,3]}}')
    assert v1.partitions == {0: (1, 2), 1: (2, 3)} and v1.adding == {} and v1.topic_id is None
    v3 = zp.decode_topic("t", b'{"partitions":{"0":[4,1,2]},"topic_id":"q1w2e3r4t5y6u7i8o9p0aQ",'
                               b'"adding_replicas":{"0":[4]},"removing_replicas":{"0":[1]},"version":3}')
    assert (v3.adding, v3.removing, v3.topic_id) == ({0: (4,)}, {0: (1,)}, "q1w2e3r4t5y6u7i8o9p0aQ")
    assert zp.decode_topic("t", zp.encode_topic(v3)) == v3


def test_reassignment_node_bytes_are_kafkas():
    data = zp.encode_reassignment([Assignment("foo", 0, (1, 2), log_dirs=("/d1", "any")), Assignment("b", 3, (3,))])
    assert data == (b'{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1,2]},'
                    b'{"topic":"b","partition":3,"replicas":[3]}]}')


def test_reassignment_node_with_log_dirs_is_invalid_as_for_the_controller():
    assert zp.decode_reassignment(b'{"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[1]}]}') == {
        TopicPartition("a", 0): (1,)}
    with pytest.raises(ValueError, match="exactly topic, partition, replicas"):
        zp.decode_reassignment(b'{"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[1],"log_dirs":["any"]}]}')


def test_config_and_notification_formats():
    assert zp.encode_config({"a": "1"}) == b'{"version":1,"config":{"a":"1"}}'
    assert zp.encode_config_change("brokers/<default>") == b'{"version":2,"entity_path":"brokers/<default>"}'
    assert zp.decode_config(None) == {} and zp.decode_config(b'{"version":1,"config":{"x":"y"}}') == {"x": "y"}
    assert zp.encode_cluster_id("abc") == b'{"version":"1","id":"abc"}'


def topics(**assignments):
    return {t: zp.TopicAssignment(t, parts, {}, {}) for t, parts in assignments.items()}


def test_check_assignments_like_the_admin_client_path():
    ts = topics(a={0: (1, 2), 1: (2, 3)}, gone={0: (1,)})
    result = check_assignments(
        [Assignment("a", 0, (3, 1)), Assignment("a", 1, (2, 9)), Assignment("a", 0, (1,)), Assignment("x", 0, (1,)),
         Assignment("a", 5, (1,)), Assignment("gone", 0, (2,))],
        ts, live_brokers={1, 2, 3}, deleting={"gone"},
    )
    assert result[TopicPartition("a", 0)].startswith("INVALID_REQUEST")  # a-0 twice: neither entry is used
    assert result[TopicPartition("x", 0)].startswith("UNKNOWN_TOPIC_OR_PARTITION")
    assert result[TopicPartition("a", 5)].startswith("UNKNOWN_TOPIC_OR_PARTITION")
    assert "being deleted" in result[TopicPartition("gone", 0)]
    assert result[TopicPartition("a", 1)] == "INVALID_REPLICA_ASSIGNMENT: broker 9 not alive"
    assert check_assignments([Assignment("a", 0, (3, 1))], ts, {1, 2, 3}) == {TopicPartition("a", 0): None}
    # A current replica on a dead broker may stay; only added brokers must be alive.
    assert check_assignments([Assignment("a", 0, (2, 3))], ts, {3}) == {TopicPartition("a", 0): None}
    assert check_assignments([Assignment("a", 1, ())], ts, {1})[TopicPartition("a", 1)].endswith("empty")
    assert "more than once" in check_assignments([Assignment("a", 1, (2, 2))], ts, {2})[TopicPartition("a", 1)]


def test_reassignment_as_the_controller_starts_it():
    # KAFKA-FACTS.md example: [1,2,3] -> [4,5,6]
    assert reassignment_of((1, 2, 3), (4, 5, 6), "t", 0) == PartitionReassignment(
        "t", 0, (4, 5, 6, 1, 2, 3), adding=(4, 5, 6), removing=(1, 2, 3))
    assert reassignment_of((1, 2), (2, 3), "t", 0) == PartitionReassignment("t", 0, (2, 3, 1), (3,), (1,))


def test_ongoing_merges_topic_znodes_and_pending_node():
    ts = topics(a={0: (1, 2), 1: (4, 2, 3)}, b={0: (1,)})
    ts["a"] = zp.TopicAssignment("a", ts["a"].partitions, {1: (4,)}, {1: (3,)})
    node = {TopicPartition("a", 1): (4, 2), TopicPartition("b", 0): (2,), TopicPartition("a", 0): (1, 2),
            TopicPartition("zz", 0): (1,)}
    assert ongoing_reassignments(ts, node) == {
        TopicPartition("a", 1): PartitionReassignment("a", 1, (4, 2, 3), (4,), (3,)),  # in flight: the znode's truth
        TopicPartition("b", 0): PartitionReassignment("b", 0, (2, 1), (2,), (1,)),  # pending
    }


def test_stuck_node_detection():
    ts = topics(a={0: (1, 2)})
    node = {TopicPartition("a", 0): (2, 3)}
    assert stuck_reason(node, None, ts, age_seconds=2) is None  # the controller may not have read it yet
    assert "not acting" in stuck_reason(node, None, ts, age_seconds=60)
    ts["a"] = zp.TopicAssignment("a", {0: (2, 3, 1)}, {0: (3,)}, {0: (1,)})
    assert stuck_reason(node, None, ts, age_seconds=600) is None  # slow, but moving
    assert "invalid" in stuck_reason(None, "bad json", ts, age_seconds=0)
