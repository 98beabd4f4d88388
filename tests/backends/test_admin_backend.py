"""The AdminClient backend against the sandbox over real sockets: every method of the interface."""

from __future__ import annotations

import pytest

from kadmin.backends.admin import DEFAULT_BROKER, AdminBackend
from kadmin.backends.base import Backend, ReadOnlyViolation
from kadmin.config import ConnectionSettings
from kadmin.model import (
    FOLLOWER_RATE, LEADER_RATE, LEADER_REPLICAS, AlterOp, Assignment, ConfigChange, ConfigResource,
    ConfigResourceType, ConfigSource, TopicPartition, TopicPartitionReplica,
)

MiB = 2**20


def backend_for(sb, read_only=False, timeout=10.0):
    return AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=timeout), read_only=read_only)


@pytest.fixture
def cluster(sandbox_factory):
    sb = sandbox_factory(brokers=4, log_dirs=2, racks=2, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1], 1: [1, 2], 2: [2, 3]}, size_bytes=10 * MiB)
    return sb


def test_a_broker_back_from_a_restart_is_asked_again(cluster):
    """One backend over a broker's stop and start (as `execute --wait` keeps one): once the broker
    is back, its log directories are read again, not left out until the library's periodic
    metadata refresh (minutes)."""
    with backend_for(cluster, read_only=True, timeout=5.0) as b:
        assert sorted(b.describe_log_dirs()) == [0, 1, 2, 3]
        cluster.faults.broker_stop(0)
        down = b.describe_log_dirs()
        assert down.get(0) is None or down[0].error
        cluster.faults.broker_start(0)
        back = b.describe_log_dirs()
        assert sorted(back) == [0, 1, 2, 3] and back[0].error is None and back[0].log_dirs


def test_is_a_backend_and_describes_the_cluster(cluster):
    with backend_for(cluster, read_only=True) as b:
        assert isinstance(b, Backend)
        state = b.describe_cluster()
        snap = cluster.snapshot()
        assert state.cluster_id == snap.cluster_id and state.controller_id == snap.controller_id
        assert sorted(state.brokers) == [0, 1, 2, 3]
        assert {s.rack for s in state.brokers.values()} == {snap.brokers[i].rack for i in snap.brokers}
        p = state.partitions[TopicPartition("t", 1)]
        assert (p.replicas, p.leader, set(p.isr)) == ((1, 2), 1, {1, 2})
        assert b.describe_brokers().keys() == state.brokers.keys()


def test_stopped_broker_shows_as_offline_replica_and_as_a_per_broker_error(cluster):
    cluster.faults.broker_stop(3)
    with backend_for(cluster, read_only=True, timeout=3) as b:
        state = b.describe_cluster()
        assert 3 not in state.brokers
        assert state.partitions[TopicPartition("t", 2)].offline_replicas == (3,)
        dirs = b.describe_log_dirs(brokers=[0, 1])
        assert all(dirs[i].error is None for i in (0, 1))
        assert b.replica_brokers() == {0, 1, 2, 3}  # broker 3 still named by t-2: down, not gone
        assert b.replica_brokers() - set(b.describe_brokers()) == {3}


def test_config_changes_in_one_call_across_brokers_topics_and_the_default(cluster):
    brokers = [ConfigResource(ConfigResourceType.BROKER, str(i)) for i in range(4)]
    topic = ConfigResource(ConfigResourceType.TOPIC, "t")
    changes = [ConfigChange(r, LEADER_RATE, AlterOp.SET, "1000") for r in brokers]
    changes += [ConfigChange(DEFAULT_BROKER, FOLLOWER_RATE, AlterOp.SET, "2000"),
                ConfigChange(topic, LEADER_REPLICAS, AlterOp.SET, "0:0,0:1")]
    with backend_for(cluster) as b:
        b.incremental_alter_configs(changes)
        got = b.describe_configs(brokers + [topic, DEFAULT_BROKER])
        for r in brokers:
            assert got[r][LEADER_RATE].value == "1000" and got[r][LEADER_RATE].source is ConfigSource.DYNAMIC_BROKER
        assert got[DEFAULT_BROKER][FOLLOWER_RATE].value == "2000"
        assert got[topic][LEADER_REPLICAS].value == "0:0,0:1"
        b.incremental_alter_configs([ConfigChange(brokers[0], LEADER_RATE, AlterOp.DELETE)])
        after = b.describe_configs([brokers[0], brokers[1]])
        assert LEADER_RATE not in after[brokers[0]] or after[brokers[0]][LEADER_RATE].source is not ConfigSource.DYNAMIC_BROKER
        assert after[brokers[1]][LEADER_RATE].value == "1000"  # the others untouched
    assert cluster.snapshot().topic_configs["t"][LEADER_REPLICAS] == "0:0,0:1"


def test_reassign_list_and_cancel(cluster):
    tp = TopicPartition("t", 0)
    with backend_for(cluster) as b:
        assert b.reassign_partitions([Assignment("t", 0, (2, 3))]) == {tp: None}
        ongoing = b.list_partition_reassignments()
        assert ongoing[tp].adding == (2, 3) and ongoing[tp].removing == (0, 1)
        assert ongoing[tp].target == (2, 3)
        assert b.list_partition_reassignments([TopicPartition("t", 1)]) == {}
        assert b.cancel_partition_reassignments([tp]) == {tp: None}
        assert b.list_partition_reassignments() == {}
        assert b.cancel_partition_reassignments([tp]) == {tp: "NO_REASSIGNMENT_IN_PROGRESS"}
        bad = b.reassign_partitions([Assignment("t", 1, (1, 1))])
        assert bad == {TopicPartition("t", 1): "INVALID_REPLICA_ASSIGNMENT"}
    assert cluster.snapshot().partitions[tp].replicas == (0, 1)


def test_reassignment_completes_as_the_clock_runs(cluster):
    tp = TopicPartition("t", 0)
    with backend_for(cluster) as b:
        b.reassign_partitions([Assignment("t", 0, (3, 1))])
        cluster.clock.advance(60)
        assert b.list_partition_reassignments() == {}
        state = b.describe_cluster().partitions[tp]
        assert state.replicas == (3, 1) and state.leader in (3, 1)


def test_log_dir_moves_report_kafka_errors_per_replica(cluster):
    src, dst = cluster.log_dir_paths(0)
    snap = cluster.snapshot()
    here = snap.brokers[0].dir_of(TopicPartition("t", 0))
    there = dst if here == src else src
    r_ok = TopicPartitionReplica("t", 0, 0)
    r_new = TopicPartitionReplica("t", 1, 0)  # broker 0 does not host t-1 (yet)
    with backend_for(cluster) as b:
        res = b.alter_replica_log_dirs({r_ok: there, r_new: there})
        assert res == {r_ok: None, r_new: "REPLICA_NOT_AVAILABLE"}
        assert b.alter_replica_log_dirs({r_ok: "/no/such/dir"}) == {r_ok: "LOG_DIR_NOT_FOUND"}
        cluster.clock.advance(0.01)
        where = b.describe_replica_log_dirs([r_ok])[r_ok]
        assert where.current_dir == here and where.future_dir == there


def test_log_dir_moves_with_a_broker_down_are_answered_per_broker(cluster):
    """AlterReplicaLogDirs with broker 3 stopped: broker 0 accepts its move (None) and copies it;
    broker 3's replica alone gets its error, naming broker 3. Nothing raises, so the caller
    reports broker 0's move as made, not failed."""
    snap = cluster.snapshot()
    r0, r3 = TopicPartitionReplica("t", 0, 0), TopicPartitionReplica("t", 2, 3)
    there = {r: next(d for d in cluster.log_dir_paths(r.broker) if d != snap.replica_dir("t", r.partition, r.broker))
             for r in (r0, r3)}
    cluster.faults.broker_stop(3)
    with backend_for(cluster, timeout=3) as b:
        answers = b.alter_replica_log_dirs(there)
        assert answers.keys() == {r0, r3} and answers[r0] is None, answers
        assert answers[r3].startswith("on broker 3: "), answers
        cluster.clock.advance(0.01)
        assert b.describe_replica_log_dirs([r0])[r0].future_dir == there[r0]


def test_end_offsets_grow_with_produce_traffic(sandbox_factory):
    sb = sandbox_factory(brokers=1, log_dirs=1, manual_clock=True)
    sb.create_topic("p", assignment={0: [0]}, size_bytes=0, produce_rate=1024 * 100)
    tp = TopicPartition("p", 0)
    with backend_for(sb, read_only=True) as b:
        first = b.list_end_offsets([tp])[tp]
        sb.clock.advance(10)
        assert b.list_end_offsets([tp])[tp] > first


def test_read_only_backend_refuses_every_change(cluster):
    with backend_for(cluster, read_only=True) as b:
        with pytest.raises(ReadOnlyViolation):
            b.reassign_partitions([Assignment("t", 0, (2, 3))])
        with pytest.raises(ReadOnlyViolation):
            b.cancel_partition_reassignments([TopicPartition("t", 0)])
        with pytest.raises(ReadOnlyViolation):
            b.alter_replica_log_dirs({TopicPartitionReplica("t", 0, 0): "/x"})
        with pytest.raises(ReadOnlyViolation):
            b.incremental_alter_configs([])
    assert cluster.mutating_requests() == []


def test_end_offsets_leave_out_a_partition_without_leader_instead_of_failing(sandbox_factory):
    sb = sandbox_factory(brokers=2, log_dirs=1, manual_clock=True)
    sb.create_topic("solo", assignment={0: [1], 1: [0]}, size_bytes=0, produce_rate=1024)
    sb.clock.advance(5)
    sb.faults.broker_stop(1)  # solo-0 has no live replica: no leader to ask
    with backend_for(sb, read_only=True, timeout=5) as b:
        offsets = b.list_end_offsets([TopicPartition("solo", 0), TopicPartition("solo", 1)])
    assert list(offsets) == [TopicPartition("solo", 1)] and offsets[TopicPartition("solo", 1)] > 0


def test_log_dirs_of_a_stopped_broker_are_an_error_for_that_broker_only(cluster):
    cluster.faults.broker_stop(3)
    with backend_for(cluster, read_only=True, timeout=3) as b:
        dirs = b.describe_log_dirs(brokers=[0, 3])
    assert dirs[0].error is None and len(dirs[0].log_dirs) == 2
    assert dirs[3].error is not None and dirs[3].log_dirs == ()  # not an exception for the whole call
