"""The ZooKeeper backend end to end: a sandbox in ZooKeeper mode registered in a real ZooKeeper,
reached the way the CLI reaches it (resolve_connection + open_backend), with the log-dir RPCs
going to the brokers found under /brokers/ids through the AdminClient backend."""

from __future__ import annotations

import time

import pytest

from kadmin.backends import open_backend
from kadmin.backends.zookeeper import ZooKeeperBackend
from kadmin.config import resolve_connection
from kadmin.errors import ReassignmentInProgress
from kadmin.model import (
    FOLLOWER_RATE,
    FOLLOWER_REPLICAS,
    LEADER_RATE,
    LEADER_REPLICAS,
    AlterOp,
    Assignment,
    ConfigChange,
    ConfigResource,
    ConfigResourceType,
    PartitionReassignment,
    TopicPartition,
    TopicPartitionReplica,
)

pytestmark = pytest.mark.zookeeper
MiB = 2**20


def poll(check, timeout=10.0):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)


@pytest.fixture
def zk_sandbox(sandbox_factory, zk_connect, tmp_path):
    sb = sandbox_factory(brokers=3, log_dirs=2, racks=3, zookeeper=zk_connect, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=10 * MiB)
    settings = resolve_connection(zookeeper=zk_connect, timeout="10s", env={}, config_path=tmp_path / "none.toml")
    backend = open_backend(settings, read_only=False)
    assert isinstance(backend, ZooKeeperBackend)
    # The topic's partition states appear once the sandbox's controller has written them.
    poll(lambda: all(p.leader >= 0 for p in backend.describe_cluster().partitions.values())
         and len(backend.describe_cluster().partitions) == 2)
    yield sb, backend
    backend.close()


def test_cluster_and_log_dirs_as_the_brokers_see_them(zk_sandbox):
    sb, backend = zk_sandbox
    snap = sb.snapshot()
    state = backend.describe_cluster()
    assert (state.cluster_id, state.controller_id) == (snap.cluster_id, snap.controller_id)
    assert {i: (b.port, b.rack) for i, b in state.brokers.items()} == {
        i: (b.port, b.rack) for i, b in snap.brokers.items()}
    for tp, p in snap.partitions.items():
        got = state.partitions[tp]
        assert (got.replicas, got.leader, set(got.isr)) == (p.replicas, p.leader, set(p.isr))

    dirs = backend.describe_log_dirs()  # DescribeLogDirs on the brokers registered in ZooKeeper
    assert sorted(dirs) == [0, 1, 2]
    for broker, result in dirs.items():
        assert result.error is None
        assert sorted(d.path for d in result.log_dirs) == sorted(sb.log_dir_paths(broker))
    on_broker_0 = {r.tp: r.size for d in dirs[0].log_dirs for r in d.replicas}
    assert on_broker_0 == {TopicPartition("t", 0): 10 * MiB}


def test_throttled_reassignment_through_the_znodes(zk_sandbox):
    sb, backend = zk_sandbox
    topic = ConfigResource(ConfigResourceType.TOPIC, "t")
    changes = [ConfigChange(ConfigResource(ConfigResourceType.BROKER, str(b)), rate, AlterOp.SET, str(MiB))
               for b in (0, 1, 2) for rate in (LEADER_RATE, FOLLOWER_RATE)]
    changes += [ConfigChange(topic, LEADER_REPLICAS, AlterOp.SET, "0:0,0:1"),
                ConfigChange(topic, FOLLOWER_REPLICAS, AlterOp.SET, "0:2")]
    backend.incremental_alter_configs(changes)
    # The brokers act on the change notifications.
    poll(lambda: all(sb.snapshot().broker_configs.get(str(b), {}).get(FOLLOWER_RATE) == str(MiB) for b in (0, 1, 2))
         and sb.snapshot().topic_configs["t"].get(FOLLOWER_REPLICAS) == "0:2")

    assert backend.reassign_partitions([Assignment("t", 0, (1, 2))]) == {TopicPartition("t", 0): None}
    moving = poll(lambda: backend.list_partition_reassignments().get(TopicPartition("t", 0)))
    assert moving == PartitionReassignment("t", 0, (1, 2, 0), adding=(2,), removing=(0,))
    with pytest.raises(ReassignmentInProgress, match="existing assignment running"):
        backend.reassign_partitions([Assignment("t", 1, (2, 0))])

    sb.clock.advance(9.0)  # 10 MiB at 1 MiB/s: still copying
    assert TopicPartition("t", 0) in backend.list_partition_reassignments()
    sb.clock.advance(2.0)
    poll(lambda: backend.list_partition_reassignments() == {} and backend.reassign_node() == (None, None, None))
    assert backend.describe_cluster().partitions[TopicPartition("t", 0)].replicas == (1, 2)


def test_log_dir_move_through_the_brokers_found_in_zookeeper(zk_sandbox):
    sb, backend = zk_sandbox
    replica = TopicPartitionReplica("t", 1, 2)
    where = backend.describe_replica_log_dirs([replica])[replica]
    target = next(p for p in sb.log_dir_paths(2) if p != where.current_dir)
    assert backend.alter_replica_log_dirs({replica: target}) == {replica: None}
    sb.clock.advance(5.0)
    done = poll(lambda: (r := backend.describe_replica_log_dirs([replica])[replica]).future_dir is None
                and r.current_dir == target and r)
    assert done.current_dir == target
