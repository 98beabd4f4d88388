"""The four RPCs librdkafka lacks, plus CreateTopics with explicit assignments, through
kafka-python's KafkaAdminClient, with their error paths."""

from __future__ import annotations

import pytest

from tests.sandbox.clients import describe_log_dirs, kafka_python, partitions_of, raw

MiB = 2**20
D0, D1 = "/var/lib/kafka/data0", "/var/lib/kafka/data1"


def test_describe_log_dirs_reports_every_dir_with_sizes_and_totals(sandbox_factory):
    sb = sandbox_factory(manual_clock=True, dir_capacity=10 * 2**30)
    sb.create_topic("t", assignment={0: [0, 1], 1: [1, 0]}, size_bytes=3 * MiB,
                    log_dirs={(0, 0): D0, (1, 0): D1, (0, 1): D1, (1, 1): D1})
    dirs = describe_log_dirs(sb)
    assert sorted(dirs) == [0, 1, 2]
    assert sorted(dirs[0]) == [D0, D1]
    assert partitions_of(dirs[0][D0]) == {("t", 0, False): {
        "partition_index": 0, "partition_size": 3 * MiB, "offset_lag": 0, "is_future_key": False}}
    assert set(partitions_of(dirs[1][D1])) == {("t", 0, False), ("t", 1, False)}
    assert dirs[1][D1]["total_bytes"] == 10 * 2**30
    assert dirs[1][D1]["usable_bytes"] == 10 * 2**30 - 6 * MiB
    assert dirs[2][D0]["topics"] == [] and dirs[2][D0]["error_code"] == 0


def test_describe_log_dirs_with_topic_filter(sandbox_factory):
    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("a", assignment={0: [0]}, size_bytes=MiB)
    sb.create_topic("b", assignment={0: [0]}, size_bytes=MiB)
    dirs = describe_log_dirs(sb, brokers=[0], topics={"b": [0]})
    found = {k for d in dirs[0].values() for k in partitions_of(d)}
    assert found == {("b", 0, False)}


def test_offline_dir_answers_storage_error_with_unknown_totals(sandbox_factory):
    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]}, log_dirs={(0, 0): D1})
    sb.faults.dir_offline(0, D1)
    dirs = describe_log_dirs(sb, brokers=[0])
    assert dirs[0][D1]["error_code"] == 56
    assert dirs[0][D1]["topics"] == []
    assert (dirs[0][D1]["total_bytes"], dirs[0][D1]["usable_bytes"]) == (-1, -1)
    assert dirs[0][D0]["error_code"] == 0


def test_cordoned_dir_is_reported_and_gets_no_new_replicas(sandbox_factory):
    sb = sandbox_factory(kafka_version="4.3", brokers=1, manual_clock=True)  # cordoning came with 4.3 (KIP-1066)
    sb.faults.dir_cordon(0, D0)
    dirs = describe_log_dirs(sb)
    assert dirs[0][D0]["is_cordoned"] is True and dirs[0][D1]["is_cordoned"] is False
    with kafka_python(sb) as admin:
        admin.create_topics({"t": {"assignments": {0: [0], 1: [0], 2: [0]}}})
    snap = sb.snapshot()
    assert {snap.replica_dir("t", p, 0) for p in range(3)} == {D1}


def test_alter_replica_log_dirs_error_codes_in_kafkas_order(sandbox_factory):
    from kafka.errors import (
        KafkaStorageError, LogDirNotFoundError, NoError, ReplicaNotAvailableError, UnknownTopicOrPartitionError)

    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1], 1: [1, 2]}, log_dirs={(0, 0): D0})
    with kafka_python(sb) as admin:
        result = admin.alter_replica_log_dirs({
            ("t", 0, 0): "/nowhere",  # not a configured dir
            ("t", 1, 1): D1,
            ("missing", 0, 2): D0,  # unknown topic
            ("t", 1, 0): D1,  # broker 0 holds no replica of t-1
        })
        by = {(r.topic, r.partition, r.broker_id): e for r, e in result.items()}
        assert by[("t", 0, 0)] is LogDirNotFoundError
        assert by[("missing", 0, 2)] is UnknownTopicOrPartitionError
        assert by[("t", 1, 0)] is ReplicaNotAvailableError
        sb.faults.dir_offline(2, D1)
        result = admin.alter_replica_log_dirs({("t", 1, 2): D1})
        assert list(result.values()) == [KafkaStorageError]
        # Already in the destination: nothing happens.
        result = admin.alter_replica_log_dirs({("t", 0, 0): D0})
        assert list(result.values()) == [NoError]
    assert sb.snapshot().future_replica("t", 0, 0) is None


def test_alter_replica_log_dirs_refuses_while_a_directory_is_offline(sandbox_factory):
    """KAFKA_STORAGE_ERROR for a move into an online directory while another directory of the
    broker is offline (no future replica can be created then), and for a replica whose own
    directory is offline, checked before anything changes: its running move goes on."""
    from kafka.errors import KafkaStorageError, NoError

    D2 = "/var/lib/kafka/data2"
    sb = sandbox_factory(brokers=1, log_dirs=3, manual_clock=True)
    sb.create_topic("t", assignment={0: [0], 1: [0]}, size_bytes=MiB, log_dirs={(0, 0): D0, (1, 0): D0})
    with kafka_python(sb) as admin:
        assert list(admin.alter_replica_log_dirs({("t", 1, 0): D1}).values()) == [NoError]  # manual clock: it waits
        sb.faults.dir_offline(0, D2)
        assert list(admin.alter_replica_log_dirs({("t", 0, 0): D1}).values()) == [KafkaStorageError]
        assert sb.snapshot().future_replica("t", 0, 0) is None
        sb.faults.dir_online(0, D2)
        sb.faults.dir_offline(0, D0)  # t-1's own directory
        assert list(admin.alter_replica_log_dirs({("t", 1, 0): D2}).values()) == [KafkaStorageError]
    assert sb.snapshot().future_replica("t", 1, 0)[0] == D1


def test_create_topics_with_replica_assignments_and_errors(sandbox_factory):
    from kafka.errors import InvalidReplicationAssignmentError

    sb = sandbox_factory(manual_clock=True)
    with kafka_python(sb) as admin:
        admin.create_topics({"t": {"assignments": {0: [2, 0], 1: [0, 1]}, "configs": {"retention.ms": "100"}}})
        snap = sb.snapshot()
        assert snap.partition("t", 0).replicas == (2, 0) and snap.partition("t", 0).leader == 2
        assert snap.topic_configs["t"] == {"retention.ms": "100"}
        with pytest.raises(InvalidReplicationAssignmentError):
            admin.create_topics({"u": {"assignments": {0: [0, 7]}}})
        with pytest.raises(InvalidReplicationAssignmentError):
            admin.create_topics({"u": {"assignments": {0: [1, 1]}}})
    assert "u" not in sb.snapshot().topics


def test_reassignment_validation_errors_change_nothing(sandbox_factory):
    from kafka import TopicPartition
    from kafka.errors import (
        InvalidReplicationAssignmentError, NoReassignmentInProgressError, UnknownTopicOrPartitionError)

    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]})
    with kafka_python(sb) as admin:
        result = admin.alter_partition_reassignments({
            TopicPartition("t", 0): [0, 9],
            TopicPartition("missing", 0): [0, 1],
        })
        assert result[TopicPartition("t", 0)] is InvalidReplicationAssignmentError
        assert result[TopicPartition("missing", 0)] is UnknownTopicOrPartitionError
        for bad in ([1, 1], [-1, 0]):
            assert admin.alter_partition_reassignments({TopicPartition("t", 0): bad})[TopicPartition("t", 0)] \
                is InvalidReplicationAssignmentError
        result = admin.alter_partition_reassignments({TopicPartition("t", 0): None})
        assert result[TopicPartition("t", 0)] is NoReassignmentInProgressError
        assert admin.list_partition_reassignments() == {}
    # kafka-python refuses to send an empty list; the broker's answer, on the wire:
    from kafka.protocol.admin.topics import AlterPartitionReassignmentsRequest as R

    req = R(timeout_ms=1000, topics=[R.ReassignableTopic(name="t", partitions=[
        R.ReassignableTopic.ReassignablePartition(partition_index=0, replicas=[])])])
    assert raw(sb, 0, req, 0).responses[0].partitions[0].error_code == 39
    # v1 with AllowReplicationFactorChange false refuses a replication factor change.
    req = R(timeout_ms=1000, allow_replication_factor_change=False, topics=[R.ReassignableTopic(name="t", partitions=[
        R.ReassignableTopic.ReassignablePartition(partition_index=0, replicas=[0, 1, 2])])])
    assert raw(sb, 0, req, 1).responses[0].partitions[0].error_code == 38
    assert sb.snapshot().partition("t", 0).replicas == (0, 1)
    assert [r[1] for r in sb.mutating_requests()].count("AlterPartitionReassignments") == 6


def test_list_reassignments_shows_replicas_adding_and_removing(sandbox_factory):
    from kafka import TopicPartition

    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=10 * MiB)
    with kafka_python(sb) as admin:
        assert admin.alter_partition_reassignments({TopicPartition("t", 0): [2, 1]}) == {TopicPartition("t", 0): None}
        expected = {TopicPartition("t", 0): {"replicas": [2, 1, 0], "adding_replicas": [2], "removing_replicas": [0]}}
        assert admin.list_partition_reassignments() == expected
        assert admin.list_partition_reassignments({"t": [0, 1]}) == expected
        assert admin.list_partition_reassignments({"t": [1]}) == {}
