"""What a failed log directory changes, per mode and Kafka version.

KRaft before JBOD (3.3; KIP-858 came in 3.7): the broker alone stops serving the directory's
replicas (3.3.1's ReplicaManager.handleLogDirFailure: "Unable to propagate log dir failure via
Zookeeper in KRaft mode"); the controller is not told, so leaders, ISR and leader epochs stay,
and Metadata lists as offline only the replicas of fenced brokers (KRaftMetadataCache). A leader
drops a follower whose directory failed from the ISR after replica.lag.time.max.ms (30 s).
KRaft with JBOD (3.9, 4.3) and ZooKeeper mode: the controller moves leadership off the
directory and lists its replicas as offline. A 3.3 KRaft broker starts with several log.dirs
(3.3.1's KafkaConfig does not refuse them), as these sandboxes do.
"""

from __future__ import annotations

import pytest

from tests.sandbox.clients import describe_log_dirs, raw

D0, D1 = "/var/lib/kafka/data0", "/var/lib/kafka/data1"
KAFKA_STORAGE_ERROR = 56


def _metadata(sb, broker=1):
    """partition -> (leader, leader epoch, isr, offline replicas), as Metadata v12 answers."""
    from kafka.protocol.metadata.metadata import MetadataRequest

    md = raw(sb, broker, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="t")],
                                         allow_auto_topic_creation=False), 12)
    return {p.partition_index: (p.leader_id, p.leader_epoch, sorted(p.isr_nodes), list(p.offline_replicas))
            for p in md.topics[0].partitions}


@pytest.fixture(params=[
    pytest.param(("3.3", False), id="3.3-kraft"),
    pytest.param(("3.9", False), id="3.9-kraft"),
    pytest.param(("4.3", False), id="4.3-kraft"),
    pytest.param(("3.3", True), id="3.3-zookeeper", marks=pytest.mark.zookeeper),
])
def failed(request, sandbox_factory):
    """A sandbox whose broker 0 lost D0, which held t-0 (led by 0) and t-1 (a follower of 1)."""
    version, zk_mode = request.param
    extra = {"zookeeper": request.getfixturevalue("zk_connect")} if zk_mode else {}
    sb = sandbox_factory(brokers=3, log_dirs=2, manual_clock=True, kafka_version=version, **extra)
    sb.create_topic("t", assignment={0: [0, 1], 1: [1, 0]}, size_bytes=2**20, log_dirs={(0, 0): D0, (1, 0): D0})
    sb.settle()
    assert _metadata(sb) == {0: (0, 0, [0, 1], []), 1: (1, 0, [0, 1], [])}
    sb.faults.dir_offline(0, D0)
    sb.settle()
    return sb, version, zk_mode


def test_describe_log_dirs_reports_the_failed_directory_in_every_mode(failed):
    sb, _, _ = failed
    dirs = describe_log_dirs(sb, brokers=[0])[0]
    assert dirs[D0]["error_code"] == KAFKA_STORAGE_ERROR and dirs[D0]["topics"] == []
    assert dirs[D1]["error_code"] == 0


def test_only_kraft_before_jbod_keeps_leadership_on_the_failed_directory(failed):
    sb, version, zk_mode = failed
    if version == "3.3" and not zk_mode:
        # The controller never heard of it: the leader stays, nothing is offline in Metadata.
        assert _metadata(sb) == {0: (0, 0, [0, 1], []), 1: (1, 0, [0, 1], [])}
        sb.clock.advance(29)
        assert _metadata(sb)[1] == (1, 0, [0, 1], [])
        sb.clock.advance(2)  # replica.lag.time.max.ms: the leader drops the follower that stopped
        assert _metadata(sb) == {0: (0, 0, [0, 1], []), 1: (1, 0, [1], [])}
        # The leader on the failed directory serves nothing; no election moves it off.
        snap = sb.snapshot()
        assert snap.partition("t", 0).leader == 0 and snap.partition("t", 0).offline_replicas == (0,)
    else:
        md = _metadata(sb)
        assert md[0][0] == 1 and md[0][1] >= 1 and md[0][2] == [1] and md[0][3] == [0]
        assert md[1][0] == 1 and md[1][2] == [1] and md[1][3] == [0]


def test_the_directory_back_online_rejoins_the_isr(failed):
    sb, _, _ = failed
    sb.clock.advance(31)
    sb.faults.dir_online(0, D0)
    sb.clock.advance(1)
    sb.settle()
    md = _metadata(sb)
    assert md[0][2] == [0, 1] and md[1][2] == [0, 1]
    assert md[0][3] == [] and md[1][3] == []


def _list_offsets(sb, broker, partition):
    """(error code, offset) of t-<partition>'s latest offset, as broker answers ListOffsets v7."""
    from kafka.protocol.consumer.offsets import ListOffsetsRequest as R

    topic = R.ListOffsetsTopic(name="t", partitions=[
        R.ListOffsetsTopic.ListOffsetsPartition(partition_index=partition, current_leader_epoch=-1, timestamp=-1)])
    [rp] = raw(sb, broker, R(replica_id=-1, isolation_level=0, topics=[topic], timeout_ms=0), 7).topics[0].partitions
    return rp.error_code, rp.offset


def test_list_offsets_of_a_replica_on_the_failed_directory_is_a_storage_error(failed):
    """ReplicaManager.fetchOffsetForTimestamp: an offline partition is KAFKA_STORAGE_ERROR before
    leadership is asked, so a 3.3 KRaft leader left on the failed directory serves no offsets
    (it answered offset 0: an empty log, to a reader of a topic that holds records)."""
    sb, version, zk_mode = failed
    assert _list_offsets(sb, 0, 0)[0] == KAFKA_STORAGE_ERROR
    assert _list_offsets(sb, 0, 1)[0] == KAFKA_STORAGE_ERROR
    assert _list_offsets(sb, 1, 1)[0] == 0
    if version == "3.3" and not zk_mode:
        assert _list_offsets(sb, 1, 0)[0] == 6  # NOT_LEADER_OR_FOLLOWER: 0 still leads t-0
    else:
        assert _list_offsets(sb, 1, 0)[0] == 0
