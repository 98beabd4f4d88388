from dataclasses import replace

from kadmin.model import (
    Assignment,
    PartitionReassignment,
    ReassignmentPlan,
    ReplicaLogDir,
    TopicPartition,
    TopicPartitionReplica,
)
from kadmin.plan.verify import MoveState, State, verify_plan
from tests.execute.fakes import cluster_state

CLUSTER = cluster_state({"foo": {0: [1, 2], 1: [2, 3], 2: [3, 1]}}, brokers=(1, 2, 3, 4))
FOO0, FOO1, FOO2 = (TopicPartition("foo", p) for p in range(3))


def rep(p, b):
    return TopicPartitionReplica("foo", p, b)


def test_partitions_in_kafkas_words():
    plan = ReassignmentPlan((Assignment("foo", 0, (1, 2)), Assignment("foo", 1, (4, 3)), Assignment("foo", 2, (1, 3))))
    ongoing = {FOO1: PartitionReassignment("foo", 1, (4, 3, 2), (4,), (2,))}
    result = verify_plan(plan, CLUSTER, ongoing, {})
    assert [v.message for v in result.partitions] == [
        "Reassignment of partition foo-0 is completed.",
        "Reassignment of partition foo-1 is still in progress.",
        "There is no active reassignment of partition foo-2, but replica set is 3,1 rather than 1,3.",
    ]
    assert result.state is State.IN_PROGRESS
    assert result.reassigning == (FOO1,)


def test_finished_but_different_when_nothing_runs():
    plan = ReassignmentPlan((Assignment("foo", 0, (1, 2)), Assignment("foo", 2, (1, 3))))
    assert verify_plan(plan, CLUSTER, {}, {}).state is State.DIFFERS
    assert verify_plan(ReassignmentPlan((Assignment("foo", 0, (1, 2)),)), CLUSTER, {}, {}).state is State.COMPLETE


def test_log_dir_replicas_in_kafkas_words():
    plan = ReassignmentPlan((
        Assignment("foo", 0, (1, 2), ("/a", "/b")),
        Assignment("foo", 1, (2, 3), ("/b", "/b")),
        Assignment("foo", 2, (3, 1), ("/a", "any")),
    ))
    dirs = {
        rep(0, 1): ReplicaLogDir(rep(0, 1), "/a"),
        rep(0, 2): ReplicaLogDir(rep(0, 2), "/a", "/b"),
        rep(1, 2): ReplicaLogDir(rep(1, 2), "/a", "/c"),
        rep(1, 3): ReplicaLogDir(rep(1, 3), "/a"),
        rep(2, 3): ReplicaLogDir(rep(2, 3), None),
    }
    result = verify_plan(plan, CLUSTER, {}, dirs)
    assert [v.message for v in result.replicas] == [
        "Reassignment of replica foo-0-1 completed successfully.",
        "Reassignment of replica foo-0-2 is still in progress.",
        "Partition foo-1 on broker 2 is being moved to log dir /c instead of /b.",
        "Partition foo-1 on broker 3 is not being moved from log dir /a to /b.",
        "Partition foo-2 cannot be found in any live log directory on broker 3.",
    ]
    assert [v.move for v in result.replicas][-1] is MoveState.MISSING_REPLICA
    assert result.moving_log_dirs == (rep(0, 2), rep(1, 2))
    assert result.state is State.IN_PROGRESS  # foo-0-2 still moves


def test_replica_no_broker_answered_for():
    plan = ReassignmentPlan((Assignment("foo", 0, (1, 2), ("/a", "any")),))
    result = verify_plan(plan, CLUSTER, {}, {})
    assert result.replicas[0].message == (
        "Partition foo-0 is not found in any live log dir on broker 1. There is likely an offline log directory on the broker."
    )
    assert result.state is State.DIFFERS


def test_a_move_whose_source_directory_went_offline_differs_in_kafkas_words():
    # DescribeLogDirs lists the future replica in the destination but the current one nowhere:
    # its directory is offline and the broker stopped the copy. Kafka's tool checks the current
    # directory first: not "still in progress", which a script looping on verify waits on for ever.
    plan = ReassignmentPlan((Assignment("foo", 0, (1, 2), ("any", "/b")),))
    stranded = {rep(0, 2): ReplicaLogDir(rep(0, 2), None, "/b")}
    result = verify_plan(plan, CLUSTER, {}, stranded)
    (verdict,) = result.replicas
    assert verdict.message == (
        "Partition foo-0 is not found in any live log dir on broker 2. There is likely an offline log directory on the broker."
    )
    assert (verdict.move, verdict.future_dir) == (MoveState.MISSING_LOG_DIR, "/b")
    assert result.state is State.DIFFERS and result.moving_log_dirs == ()


def test_a_new_replica_not_yet_created_is_in_progress_while_its_partition_moves():
    plan = ReassignmentPlan((Assignment("foo", 0, (4, 2), ("/a", "any")),))
    missing = {rep(0, 4): ReplicaLogDir(rep(0, 4), None)}
    ongoing = {FOO0: PartitionReassignment("foo", 0, (4, 2, 1), (4,), (1,))}
    assert verify_plan(plan, CLUSTER, ongoing, missing).replicas[0].state is State.IN_PROGRESS
    done = replace(CLUSTER, partitions={**CLUSTER.partitions, FOO0: replace(CLUSTER.partitions[FOO0], replicas=(4, 2))})
    result = verify_plan(plan, done, {}, missing)
    assert result.partitions[0].state is State.COMPLETE
    assert result.replicas[0].state is State.DIFFERS
    assert result.state is State.DIFFERS


def test_a_partition_the_controller_does_not_list_is_not_in_progress_whatever_its_shape():
    """The target followed by other replicas is how Kafka shows a move ending, and also how a
    plan lowering the replication factor looks before it has run: only the controller's list
    says a partition is moving, as in Kafka's --verify, so a plan never run differs (exit 4)."""
    cluster = cluster_state({"foo": {0: [3, 1, 2], 1: [2, 3]}}, brokers=(1, 2, 3, 4))
    plan = ReassignmentPlan((Assignment("foo", 0, (3, 1), ("/d/a", "any")), Assignment("foo", 1, (2, 3))))
    dirs = {rep(0, 3): ReplicaLogDir(rep(0, 3), None)}  # not listed by its broker either
    result = verify_plan(plan, cluster, {}, dirs)
    assert [v.state for v in result.partitions] == [State.DIFFERS, State.COMPLETE]
    assert result.partitions[0].message == (
        "There is no active reassignment of partition foo-0, but replica set is 3,1,2 rather than 3,1."
    )
    assert [(v.move, v.state) for v in result.replicas] == [(MoveState.MISSING_REPLICA, State.DIFFERS)]
    assert result.state is State.DIFFERS
    ongoing = {FOO0: PartitionReassignment("foo", 0, (3, 1, 2), (), (2,))}  # the same shape, running
    running = verify_plan(plan, cluster, ongoing, dirs)
    assert running.partitions[0].message == "Reassignment of partition foo-0 is still in progress."
    assert running.replicas[0].state is State.IN_PROGRESS and running.state is State.IN_PROGRESS


def test_a_stray_log_left_by_a_cancelled_reassignment_is_no_replica():
    """Seen by hand (4.3 KRaft sandbox): orders-0 [0,1,2] -> [3,4,5] with broker 3 in /a, then
    cancelled. Broker 3 keeps the half-copied log in /a (a stray log, listed by DescribeLogDirs
    until it restarts), but Metadata's replica set is [0,1,2] again: no replica of the plan is on
    broker 3, so the log-dir target is not complete; verify said "completed successfully"."""
    cluster = cluster_state({"foo": {0: [1, 2]}}, brokers=(1, 2, 3, 4))
    plan = ReassignmentPlan((Assignment("foo", 0, (3, 4), ("/a", "any")),))
    stray = {rep(0, 3): ReplicaLogDir(rep(0, 3), "/a")}
    result = verify_plan(plan, cluster, {}, stray)
    (verdict,) = result.replicas
    assert (verdict.move, verdict.state) == (MoveState.MISSING_REPLICA, State.DIFFERS)
    assert verdict.current_dir is None and verdict.stray_dir == "/a"
    assert verdict.message == (
        "Partition foo-0 has no replica on broker 3 (not in its replica set): its log in /a is a stray log "
        "left behind (as a cancelled reassignment leaves them), not a replica."
    )
    assert result.state is State.DIFFERS


def test_a_broker_being_added_that_metadata_does_not_list_yet_is_in_progress():
    # ListPartitionReassignments (read first) adds broker 3; Metadata does not show it yet, and
    # DescribeLogDirs lists a log in the target (a stray being reused): in progress, not complete.
    cluster = cluster_state({"foo": {0: [1, 2]}}, brokers=(1, 2, 3, 4))
    plan = ReassignmentPlan((Assignment("foo", 0, (3, 2), ("/a", "any")),))
    ongoing = {FOO0: PartitionReassignment("foo", 0, (3, 2, 1), (3,), (1,))}
    stray = {rep(0, 3): ReplicaLogDir(rep(0, 3), "/a")}
    result = verify_plan(plan, cluster, ongoing, stray)
    assert [(v.move, v.state) for v in result.replicas] == [(MoveState.MISSING_REPLICA, State.IN_PROGRESS)]
    # Once Metadata lists broker 3, the log in /a is its replica: complete.
    moving = cluster_state({"foo": {0: [3, 2, 1]}}, brokers=(1, 2, 3, 4))
    assert [v.move for v in verify_plan(plan, moving, ongoing, stray).replicas] == [MoveState.COMPLETE]


def test_replica_in_place_needs_the_replica_set_and_the_directory():
    from kadmin.plan.verify import replica_in_place

    assert replica_in_place((1, 2), 1, "/a", None, "/a")
    assert not replica_in_place((1, 2), 3, "/a", None, "/a")  # a stray log
    assert not replica_in_place((1, 2), 1, "/b", None, "/a")
    assert not replica_in_place((1, 2), 1, "/a", "/b", "/a")  # moving away
