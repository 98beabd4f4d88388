"""Cancel and verify (with throttle removal) against the in-memory backend."""

from dataclasses import replace

from kadmin.execute.cancel import apply_cancel, plan_cancel
from kadmin.execute.changes import describe, to_json
from kadmin.execute.rollback import replica_dirs
from kadmin.execute.verification import run_verify
from kadmin.model import Assignment, ConfigResource, ConfigResourceType, ReassignmentPlan, TopicPartition, TopicPartitionReplica
from kadmin.plan.verify import State
from kadmin.throttling.stores import MemoryRecordStore
from tests.execute.test_executor import backend, execute, request

FOO0, FOO1 = TopicPartition("foo", 0), TopicPartition("foo", 1)
PLAN_DOC = [
    {"topic": "foo", "partition": 0, "replicas": [3, 2]},
    {"topic": "foo", "partition": 1, "replicas": [2, 3], "log_dirs": ["/d/b", "any"]},
]


def started(throttle=None):
    be = backend()
    store = MemoryRecordStore()
    req = request(PLAN_DOC, throttle=throttle)
    execute(be, req, store)
    return be, store, req.parsed.plan


def test_cancel_a_plan_midway_returns_replicas_and_directories():
    be, _, plan = started()
    cplan = plan_cancel(plan, be.list_partition_reassignments(), replica_dirs(be.describe_log_dirs()))
    assert [describe(c) for c in cplan.changes()] == [
        "cancel reassignment of foo-0: replicas 3,2,1 back to 2,1, removing 3",
        "cancel move of replica foo-1 on broker 2 to /d/b; it stays in /d/a",
    ]
    # a cancel removes the replica being added, not every replica (its JSON says so too)
    assert cplan.reassignments[0].removing == (3,) and cplan.reassignments[0].adding == ()
    assert to_json(cplan.reassignments[0])["removing"] == [3]
    result = apply_cancel(be, cplan)
    assert result.failures == []
    assert be.cluster.partitions[FOO0].replicas == (2, 1)  # original set (Kafka's order: target first)
    assert be.reassigning == {} and be.future == {}


def test_cancel_all_takes_moves_of_other_plans_too():
    be, _, _ = started()
    be.alter_replica_log_dirs({TopicPartitionReplica("foo", 1, 3): "/d/b"})  # someone else's move
    cplan = plan_cancel(None, be.list_partition_reassignments(), replica_dirs(be.describe_log_dirs()))
    assert [c.tp for c in cplan.reassignments] == [FOO0]
    assert [m.replica for m in cplan.log_dir_moves] == [TopicPartitionReplica("foo", 1, 2), TopicPartitionReplica("foo", 1, 3)]


def test_verify_in_progress_keeps_needed_throttles_then_removes_only_its_own():
    be, store, plan = started(throttle=1000)
    topic = ConfigResource(ConfigResourceType.TOPIC, "foo")
    # Someone else throttles another partition of the same topic meanwhile.
    be.configs[topic]["leader.replication.throttled.replicas"] += ",9:9"
    out = run_verify(be, plan, plan_id="plan-1", records=store)
    assert out.result.state is State.IN_PROGRESS
    assert be.configs[topic]["follower.replication.throttled.replicas"] == "0:3"  # still needed
    be.complete()
    out = run_verify(be, plan, plan_id="plan-1", records=store)
    assert out.result.state is State.COMPLETE
    assert be.configs[topic] == {"leader.replication.throttled.replicas": "9:9"}
    assert "leader.replication.throttled.rate" not in be.configs[ConfigResource(ConfigResourceType.BROKER, "1")]
    assert store.records == {}


def test_verify_preserve_throttles_and_differs():
    be, store, plan = started(throttle=1000)
    be.complete()
    be.calls.clear()
    out = run_verify(be, plan, plan_id="plan-1", records=store, preserve_throttles=True)
    assert out.removal is None and be.calls == [] and "plan-1" in store.records
    other = ReassignmentPlan((Assignment("foo", 0, (1, 2)),))
    assert run_verify(be, other, plan_id="x", records=store).result.state is State.DIFFERS


def test_verify_keeps_log_dir_rates_of_brokers_it_cannot_see():
    be = backend()
    store = MemoryRecordStore()
    req = request([{"topic": "foo", "partition": 1, "replicas": [2, 3], "log_dirs": ["/d/b", "any"]}], log_dir_throttle=1000)
    execute(be, req, store)
    be.complete()
    rate = "replica.alter.log.dirs.io.max.bytes.per.second"
    broker2 = ConfigResource(ConfigResourceType.BROKER, "2")
    answers = be.describe_log_dirs
    be.describe_log_dirs = lambda brokers=None, topics=None: {
        b: (replace(d, error="broker 2 unreachable", log_dirs=()) if b == 2 else d) for b, d in answers().items()}
    run_verify(be, req.parsed.plan, plan_id="plan-1", records=store)
    assert be.configs[broker2][rate] == "1000"
    be.describe_log_dirs = answers
    run_verify(be, req.parsed.plan, plan_id="plan-1", records=store)
    assert rate not in be.configs[broker2]


def test_blind_spots_are_paused_moves_and_offline_directories_in_scope():
    from kadmin.backends.base import BrokerLogDirs
    from kadmin.execute.cancel import log_dir_blind_spots
    from kadmin.model import LogDir, ReplicaInfo

    future = ReplicaInfo("foo", 1, 10, -1, True)
    log_dirs = {
        2: BrokerLogDirs(2, (LogDir(2, "/d/a", error="KafkaStorageException"), LogDir(2, "/d/b", replicas=(future,)))),
        3: BrokerLogDirs(3, (LogDir(3, "/d/a"), LogDir(3, "/d/c", error="KafkaStorageException"))),
    }
    plan = ReassignmentPlan((Assignment("foo", 1, (2, 3), ("/d/b", "/d/a")),))
    # foo-1 on broker 2 copies from the offline /d/a into /d/b: paused. Broker 3's offline /d/c is
    # none of the plan's destinations; with --all it may hold a move, unseen.
    paused = ((TopicPartitionReplica("foo", 1, 2), "/d/b"),)
    assert log_dir_blind_spots(plan, log_dirs, replica_dirs(log_dirs)) == (paused, {})
    assert log_dir_blind_spots(None, log_dirs, replica_dirs(log_dirs)) == (paused, {2: ("/d/a",), 3: ("/d/c",)})
    into_c = ReassignmentPlan((Assignment("foo", 0, (3,), ("/d/c",)),))
    assert log_dir_blind_spots(into_c, log_dirs, replica_dirs(log_dirs)) == ((), {3: ("/d/c",)})
