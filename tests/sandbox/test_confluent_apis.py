"""The AdminClient calls confluent-kafka (librdkafka) makes, against the sandbox, with error paths."""

from __future__ import annotations

import pytest

from tests.sandbox.clients import confluent, raw

MiB = 2**20


def _result(future):
    return future.result(timeout=10)


def test_describe_topic_configs_lists_defaults_and_topic_overrides(sandbox_factory):
    from confluent_kafka.admin import ConfigResource

    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", partitions=1, replication_factor=2, configs={"retention.ms": "1000"})
    admin = confluent(sb)
    configs = _result(admin.describe_configs([ConfigResource("topic", "t")])[ConfigResource("topic", "t")])
    assert configs["retention.ms"].value == "1000"
    assert configs["retention.ms"].source == 1  # DYNAMIC_TOPIC_CONFIG
    assert configs["segment.bytes"].source == 5  # DEFAULT_CONFIG
    assert configs["leader.replication.throttled.replicas"].value == ""


def test_describe_topic_configs_naming_keys_answers_those_known_in_name_order(sandbox_factory):
    """As Kafka: only the named configs, in the order of the full listing; an unknown name is
    left out; synonyms still come when asked for."""
    from kafka.protocol.admin.configs import DescribeConfigsRequest as Req

    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", partitions=1, replication_factor=2, configs={"retention.ms": "1000"})
    keys = ["retention.ms", "no.such.config", "cleanup.policy", "retention.ms"]
    answer = raw(sb, 0, Req(resources=[Req.DescribeConfigsResource(resource_type=2, resource_name="t",
                                                                    configuration_keys=keys)],
                            include_synonyms=True), 4)
    got = [(c.name, c.value, c.config_source, [(s.name, s.value, s.source) for s in c.synonyms])
           for c in answer.results[0].configs]
    assert got == [("cleanup.policy", "delete", 5, [("cleanup.policy", "delete", 5)]),
                   ("retention.ms", "1000", 1, [("retention.ms", "1000", 1), ("retention.ms", "604800000", 5)])]


def test_describe_unknown_topic_configs_fails_with_unknown_topic(sandbox_factory):
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import ConfigResource

    sb = sandbox_factory(manual_clock=True)
    admin = confluent(sb)
    with pytest.raises(KafkaException) as err:
        _result(admin.describe_configs([ConfigResource("topic", "missing")])[ConfigResource("topic", "missing")])
    assert err.value.args[0].code() == 3


def test_throttle_rates_are_listed_only_once_set_with_their_source(sandbox_factory):
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource

    sb = sandbox_factory(manual_clock=True)
    admin = confluent(sb)
    broker1 = ConfigResource("broker", "1")
    before = _result(admin.describe_configs([broker1])[broker1])
    assert "leader.replication.throttled.rate" not in before
    assert before["log.dirs"].source == 4  # STATIC_BROKER_CONFIG

    # Neither client library sends the "" (cluster default) broker resource: speak the protocol.
    from kafka.protocol.admin.configs import DescribeConfigsRequest, IncrementalAlterConfigsRequest as IAC

    res = IAC.AlterConfigsResource(resource_type=4, resource_name="", configs=[IAC.AlterConfigsResource.AlterableConfig(
        name="follower.replication.throttled.rate", config_operation=0, value="2000")])
    assert raw(sb, 0, IAC(resources=[res], validate_only=False), 1).responses[0].error_code == 0
    one = ConfigResource("broker", "1", incremental_configs=[
        ConfigEntry("leader.replication.throttled.rate", "1000", incremental_operation=AlterConfigOpType.SET)])
    _result(admin.incremental_alter_configs([one])[one])
    after = _result(admin.describe_configs([broker1])[broker1])
    assert (after["leader.replication.throttled.rate"].value, after["leader.replication.throttled.rate"].source) == ("1000", 2)
    assert (after["follower.replication.throttled.rate"].value, after["follower.replication.throttled.rate"].source) == ("2000", 3)
    described = raw(sb, 2, DescribeConfigsRequest(resources=[DescribeConfigsRequest.DescribeConfigsResource(
        resource_type=4, resource_name="", configuration_keys=None)], include_synonyms=True), 4)
    assert [(c.name, c.value, c.config_source) for c in described.results[0].configs] == [
        ("follower.replication.throttled.rate", "2000", 3)]
    # Describing another broker's own resource is refused, as Kafka's ConfigHelper does.
    other = raw(sb, 2, DescribeConfigsRequest(resources=[DescribeConfigsRequest.DescribeConfigsResource(
        resource_type=4, resource_name="1", configuration_keys=None)]), 4)
    assert other.results[0].error_code == 42
    assert sb.snapshot().broker_configs == {"": {"follower.replication.throttled.rate": "2000"},
                                            "1": {"leader.replication.throttled.rate": "1000"}}

    delete = ConfigResource("broker", "1", incremental_configs=[
        ConfigEntry("leader.replication.throttled.rate", None, incremental_operation=AlterConfigOpType.DELETE)])
    _result(admin.incremental_alter_configs([delete])[delete])
    assert "leader.replication.throttled.rate" not in _result(admin.describe_configs([broker1])[broker1])


def test_incremental_append_and_subtract_throttled_replica_lists(sandbox_factory):
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource

    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", partitions=2, replication_factor=2, configs={"leader.replication.throttled.replicas": "0:1"})
    admin = confluent(sb)

    def run(op, value):
        r = ConfigResource("topic", "t", incremental_configs=[
            ConfigEntry("leader.replication.throttled.replicas", value, incremental_operation=op)])
        _result(admin.incremental_alter_configs([r])[r])
        return sb.snapshot().topic_configs["t"]["leader.replication.throttled.replicas"]

    assert run(AlterConfigOpType.APPEND, "1:2,0:1") == "0:1,1:2"
    assert run(AlterConfigOpType.SUBTRACT, "0:1") == "1:2"


def test_incremental_alter_rejects_bad_values_and_changes_nothing(sandbox_factory):
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource

    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", partitions=1, replication_factor=1)
    admin = confluent(sb)
    cases = [
        (ConfigResource("topic", "t", incremental_configs=[ConfigEntry(
            "leader.replication.throttled.replicas", "zero:one", incremental_operation=AlterConfigOpType.SET)]), 40),
        (ConfigResource("topic", "t", incremental_configs=[ConfigEntry(
            "no.such.config", "1", incremental_operation=AlterConfigOpType.SET)]), 40),
        (ConfigResource("topic", "t", incremental_configs=[ConfigEntry(
            "follower.replication.throttled.replicas", "0:x", incremental_operation=AlterConfigOpType.SET)]), 40),
        (ConfigResource("topic", "t", incremental_configs=[ConfigEntry(
            "leader.replication.throttled.replicas", "0", incremental_operation=AlterConfigOpType.SET)]), 40),
        # A bad rate is INVALID_REQUEST (42) on real 3.3.1 and 4.3.1 brokers, not INVALID_CONFIG.
        (ConfigResource("broker", "0", incremental_configs=[ConfigEntry(
            "leader.replication.throttled.rate", "fast", incremental_operation=AlterConfigOpType.SET)]), 42),
        (ConfigResource("broker", "0", incremental_configs=[ConfigEntry(
            "leader.replication.throttled.rate", "-1", incremental_operation=AlterConfigOpType.SET)]), 42),
        (ConfigResource("broker", "1", incremental_configs=[ConfigEntry(
            "follower.replication.throttled.rate", "1.5", incremental_operation=AlterConfigOpType.SET)]), 42),
        (ConfigResource("broker", "2", incremental_configs=[ConfigEntry(
            "replica.alter.log.dirs.io.max.bytes.per.second", "-5", incremental_operation=AlterConfigOpType.SET)]), 42),
        (ConfigResource("topic", "missing", incremental_configs=[ConfigEntry(
            "retention.ms", "1", incremental_operation=AlterConfigOpType.SET)]), 3),
        (ConfigResource("topic", "t", incremental_configs=[ConfigEntry(
            "retention.ms", "1", incremental_operation=AlterConfigOpType.APPEND)]), 40),
    ]
    for resource, code in cases:
        with pytest.raises(KafkaException) as err:
            _result(admin.incremental_alter_configs([resource])[resource])
        assert err.value.args[0].code() == code, resource
    snap = sb.snapshot()
    assert snap.topic_configs["t"] == {} and snap.broker_configs == {}
    # A log-dir rate of 0 is accepted.
    ok = ConfigResource("broker", "2", incremental_configs=[ConfigEntry(
        "replica.alter.log.dirs.io.max.bytes.per.second", "0", incremental_operation=AlterConfigOpType.SET)])
    _result(admin.incremental_alter_configs([ok])[ok])
    assert sb.snapshot().broker_configs["2"] == {"replica.alter.log.dirs.io.max.bytes.per.second": "0"}


def test_alter_configs_rejects_a_bad_rate_as_invalid_request(sandbox_factory):
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import ConfigResource

    sb = sandbox_factory(manual_clock=True, kafka_version="3.3", format_defaults=True)
    admin = confluent(sb)
    for value in ("fast", "-1"):
        r = ConfigResource("broker", "0", set_config={"leader.replication.throttled.rate": value})
        with pytest.raises(KafkaException) as err:
            _result(admin.alter_configs([r])[r])
        assert err.value.args[0].code() == 42
    assert sb.snapshot().broker_configs == {}  # 3.3 writes no dynamic default at format time


def test_alter_configs_replaces_the_whole_dynamic_set(sandbox_factory):
    from confluent_kafka.admin import ConfigResource

    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", partitions=1, replication_factor=1, configs={"retention.ms": "5", "segment.ms": "9"})
    admin = confluent(sb)
    r = ConfigResource("topic", "t", set_config={"cleanup.policy": "compact"})
    _result(admin.alter_configs([r])[r])
    assert sb.snapshot().topic_configs["t"] == {"cleanup.policy": "compact"}


def test_create_topics_without_assignment_places_replicas_across_racks(sandbox_factory):
    from confluent_kafka.admin import NewTopic

    sb = sandbox_factory(brokers=4, racks=2, manual_clock=True)
    admin = confluent(sb)
    _result(admin.create_topics([NewTopic("new", num_partitions=8, replication_factor=2)])["new"])
    snap = sb.snapshot()
    parts = [snap.partition("new", i) for i in range(8)]
    assert all(len(p.replicas) == 2 and p.leader == p.replicas[0] for p in parts)
    racks = {b: snap.brokers[b].rack for b in snap.brokers}
    assert all(racks[p.replicas[0]] != racks[p.replicas[1]] for p in parts)
    assert {p.replicas[0] for p in parts} == {0, 1, 2, 3}  # leaders spread over brokers
    assert all(snap.replica("new", p.partition, b) is not None for p in parts for b in p.replicas)


def test_create_topics_errors(sandbox_factory):
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import NewTopic

    sb = sandbox_factory(brokers=2, manual_clock=True)
    sb.create_topic("exists", partitions=1, replication_factor=1)
    admin = confluent(sb)
    cases = {"exists": (NewTopic("exists", 1, 1), 36), "toomany": (NewTopic("toomany", 1, 3), 38),
             "bad/name": (NewTopic("bad/name", 1, 1), 17)}
    for name, (topic, code) in cases.items():
        with pytest.raises(KafkaException) as err:
            _result(admin.create_topics([topic])[name])
        assert err.value.args[0].code() == code
    assert sb.snapshot().topics == ["exists"]
    _result(admin.create_topics([NewTopic("validated", 1, 1)], validate_only=True)["validated"])
    assert sb.snapshot().topics == ["exists"]


def test_delete_topics(sandbox_factory):
    from confluent_kafka import KafkaException

    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("gone", partitions=2, replication_factor=2, size_bytes=MiB)
    admin = confluent(sb)
    _result(admin.delete_topics(["gone"])["gone"])
    snap = sb.snapshot()
    assert snap.topics == []
    assert all(not d.replicas for b in snap.brokers.values() for d in b.dirs.values())
    with pytest.raises(KafkaException) as err:
        _result(admin.delete_topics(["gone"])["gone"])
    assert err.value.args[0].code() == 3


def test_list_offsets_latest_and_earliest_follow_the_log_size(sandbox_factory):
    from confluent_kafka import TopicPartition
    from confluent_kafka.admin import OffsetSpec

    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", partitions=2, replication_factor=2, size_bytes=MiB, produce_rate=1024 * 10)
    admin = confluent(sb)
    tp0 = TopicPartition("t", 0)
    latest = admin.list_offsets({tp0: OffsetSpec.latest()})[tp0].result(timeout=10)
    assert latest.offset == 1024  # 1 MiB of 1 KiB records
    sb.clock.advance(10)  # 10 s x 10 records/s
    assert admin.list_offsets({tp0: OffsetSpec.latest()})[tp0].result(timeout=10).offset == 1124
    assert admin.list_offsets({tp0: OffsetSpec.earliest()})[tp0].result(timeout=10).offset == 0


def test_list_offsets_on_unknown_partition_fails(sandbox_factory):
    from confluent_kafka import KafkaException, TopicPartition
    from confluent_kafka.admin import OffsetSpec

    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", partitions=1, replication_factor=1)
    admin = confluent(sb)
    tp = TopicPartition("t", 7)
    with pytest.raises(KafkaException):
        admin.list_offsets({tp: OffsetSpec.latest()}, request_timeout=3)[tp].result(timeout=10)


def test_elect_preferred_leader_after_leadership_moved(sandbox_factory):
    from confluent_kafka import KafkaException, TopicPartition
    from confluent_kafka import ElectionType

    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1, 2], 1: [1, 2, 0]})
    sb.faults.broker_stop(0)
    assert sb.snapshot().partition("t", 0).leader == 1
    sb.faults.broker_start(0)
    sb.clock.advance(1)  # broker 0 catches up and rejoins the ISR
    assert 0 in sb.snapshot().partition("t", 0).isr
    admin = confluent(sb)
    result = admin.elect_leaders(ElectionType.PREFERRED, [TopicPartition("t", 0)]).result(timeout=10)
    assert result[TopicPartition("t", 0)] is None
    assert sb.snapshot().partition("t", 0).leader == 0
    # Already the preferred leader: ELECTION_NOT_NEEDED.
    result = admin.elect_leaders(ElectionType.PREFERRED, [TopicPartition("t", 1)]).result(timeout=10)
    assert result[TopicPartition("t", 1)].code() == 84
