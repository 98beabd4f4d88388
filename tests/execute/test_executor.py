"""The executor's logic against an in-memory backend: order of changes, validation first,
throttles merged and recorded, KIP-113's REPLICA_NOT_AVAILABLE retry loop."""

import json

import pytest

from kadmin.errors import InputError, ReassignmentInProgress
from kadmin.execute.changes import LogDirMove, describe
from kadmin.execute.executor import ExecuteRequest, apply_execution, plan_execution, read_cluster
from kadmin.model import Assignment, ConfigResource, ConfigResourceType, TopicPartition
from kadmin.plan.reassignment_file import parse_reassignment
from kadmin.throttling.stores import MemoryRecordStore
from tests.execute.fakes import FakeBackend, cluster_state

DIRS = {b: ["/d/a", "/d/b"] for b in (1, 2, 3, 4)}
FOO0 = TopicPartition("foo", 0)


def backend():
    return FakeBackend(cluster_state({"foo": {0: [1, 2], 1: [2, 3]}}, brokers=(1, 2, 3, 4)), DIRS)


def request(partitions, **kw):
    text = json.dumps({"version": 1, "partitions": partitions})
    return ExecuteRequest(parse_reassignment(text), "plan-1", kw.pop("rollback_path", "/tmp/rb.json"), **kw)


class Clock:
    """A manual clock: sleep advances it, and can make things happen on the way."""

    def __init__(self, on_sleep=None):
        self.t = 0.0
        self.sleeps = 0
        self.on_sleep = on_sleep

    def __call__(self):
        return self.t

    def sleep(self, s):
        self.t += s
        self.sleeps += 1
        if self.on_sleep:
            self.on_sleep(self.sleeps)


def execute(be, req, store=None, clock=None):
    store = store if store is not None else MemoryRecordStore()
    written = {}
    xplan = plan_execution(req, read_cluster(be, req.parsed, store), now=1_700_000_000)
    clock = clock or Clock()
    result = apply_execution(be, xplan, req, write_rollback=lambda p, plan: written.update({p: plan}),
                             records=store, clock=clock, sleep=clock.sleep)
    return xplan, result, written


def test_plain_move_writes_rollback_first_then_reassigns():
    be = backend()
    xplan, result, written = execute(be, request([{"topic": "foo", "partition": 0, "replicas": [3, 2]}]))
    assert written["/tmp/rb.json"].partitions == (Assignment("foo", 0, (1, 2), ("/d/a", "/d/a")),)
    assert be.mutating_calls() == ["reassign_partitions"]
    assert [describe(c) for c, _ in result.applied] == [
        "write rollback file /tmp/rb.json (1 partition)",
        "reassign foo-0: 1,2 -> 3,2 (adding 3; removing 1)",
    ]
    assert result.failures == [] and result.aborted is None
    assert be.reassigning[FOO0].target == (3, 2)


def test_partition_already_in_place_is_left_alone():
    be = backend()
    xplan, result, _ = execute(be, request([{"topic": "foo", "partition": 1, "replicas": [2, 3]}]))
    assert xplan.unchanged == (TopicPartition("foo", 1),)
    assert be.mutating_calls() == []


def test_invalid_plan_changes_nothing():
    be = backend()
    with pytest.raises(InputError) as err:
        execute(be, request([{"topic": "foo", "partition": 0, "replicas": [3, 3]}, {"topic": "nope", "partition": 0, "replicas": [1, 2]}]))
    assert len(err.value.problems) == 2
    assert be.calls == []


def test_refuses_while_another_reassignment_runs_unless_additional():
    be = backend()
    be.reassign_partitions([Assignment("foo", 1, (4, 3))])
    be.calls.clear()
    with pytest.raises(ReassignmentInProgress, match="1 partition: foo-1"):
        execute(be, request([{"topic": "foo", "partition": 0, "replicas": [3, 2]}]))
    assert be.calls == []
    execute(be, request([{"topic": "foo", "partition": 0, "replicas": [3, 2]}], additional=True))
    assert be.mutating_calls() == ["reassign_partitions"]


def test_rollback_of_a_partition_already_moving_is_its_original_replicas():
    be = backend()
    be.reassign_partitions([Assignment("foo", 0, (4, 2))])
    xplan, _, written = execute(be, request([{"topic": "foo", "partition": 0, "replicas": [3, 2]}], additional=True))
    # Kafka lists a moving partition as target ++ original, so the original order is lost.
    assert written["/tmp/rb.json"].partitions[0].replicas == (2, 1)


def test_a_re_target_is_said_against_where_the_move_was_heading():
    """foo-0 [1,2] moving to [4,2] (Kafka lists 4,2,1), re-targeted to [4,2,1]: keeping 1 is a
    change of the replication factor's target, not "order only" of the full set in flight."""
    be = backend()
    be.reassign_partitions([Assignment("foo", 0, (4, 2))])
    xplan, _, _ = execute(be, request([{"topic": "foo", "partition": 0, "replicas": [4, 2, 1]}], additional=True,
                                      allow_replication_factor_change=True))
    [change] = xplan.reassignments
    # Not "(adding 1)": 1 is an original replica. What is added and removed is said from the
    # move's original replicas [1, 2] (tests/execute/test_retarget_wording.py), in JSON too.
    assert describe(change) == (
        "reassign foo-0: re-target the running move from 4,2 to 4,2,1 (still adding 4; no longer removing 1); "
        "a KRaft controller keeps removing 1 (it counts from the replicas in flight, 4,2,1), so there the move "
        "ends as 4,2")
    assert (change.adding, change.removing) == ((4,), ())


def test_throttles_merge_with_existing_lists_and_are_recorded_before_they_are_set():
    be = backend()
    topic = ConfigResource(ConfigResourceType.TOPIC, "foo")
    be.configs[topic] = {"leader.replication.throttled.replicas": "7:9"}
    store = MemoryRecordStore()
    order = []
    put = store.put
    store.put = lambda rec: (order.append("record"), put(rec))
    alter = be.incremental_alter_configs
    be.incremental_alter_configs = lambda ch: (order.append("configs"), alter(ch))
    req = request([{"topic": "foo", "partition": 0, "replicas": [3, 2], "log_dirs": ["/d/b", "any"]}],
                  throttle=50_000_000, log_dir_throttle=10_000_000)
    execute(be, req, store)
    assert order == ["record", "configs"]
    assert be.configs[topic] == {
        "leader.replication.throttled.replicas": "0:1,0:2,7:9",
        "follower.replication.throttled.replicas": "0:3",
    }
    for b in (1, 2, 3):
        assert be.configs[ConfigResource(ConfigResourceType.BROKER, str(b))]["leader.replication.throttled.rate"] == "50000000"
        assert be.configs[ConfigResource(ConfigResourceType.BROKER, str(b))]["follower.replication.throttled.rate"] == "50000000"
    assert be.configs[ConfigResource(ConfigResourceType.BROKER, "3")]["replica.alter.log.dirs.io.max.bytes.per.second"] == "10000000"
    assert "replica.alter.log.dirs.io.max.bytes.per.second" not in be.configs[ConfigResource(ConfigResourceType.BROKER, "1")]
    record = store.records["plan-1"]
    assert record.replicas["foo"]["leader.replication.throttled.replicas"] == ("0:1", "0:2")
    assert {(c.broker, c.name) for c in record.rates} >= {(1, "leader.replication.throttled.rate"), (3, "replica.alter.log.dirs.io.max.bytes.per.second")}


def test_additional_changes_the_throttle_of_a_running_plan():
    be = backend()
    store = MemoryRecordStore()
    plan = [{"topic": "foo", "partition": 0, "replicas": [3, 2]}]
    execute(be, request(plan, throttle=1000), store)
    be.calls.clear()
    xplan, result, _ = execute(be, request(plan, throttle=2000, additional=True), store)
    assert be.mutating_calls() == ["incremental_alter_configs"]  # the partition already heads there
    assert {c.value for c in xplan.throttles.changes} == {"2000"}
    assert be.configs[ConfigResource(ConfigResourceType.BROKER, "1")]["leader.replication.throttled.rate"] == "2000"
    # The record keeps what was there before kadmin (nothing), not kadmin's own earlier 1000.
    assert {c.previous for c in store.records["plan-1"].rates} == {None}


def test_log_dir_move_on_one_broker():
    be = backend()
    xplan, result, written = execute(be, request([{"topic": "foo", "partition": 0, "replicas": [1, 2], "log_dirs": ["/d/b", "any"]}]))
    assert be.mutating_calls() == ["alter_replica_log_dirs"]
    assert [describe(c) for c, _ in result.applied][1:] == ["move replica foo-0 on broker 1 from /d/a to /d/b"]
    assert be.future[(FOO0, 1)] == "/d/b"


def test_a_partition_given_a_log_dir_move_is_not_counted_as_unchanged():
    be = backend()
    xplan, _, _ = execute(be, request([{"topic": "foo", "partition": 0, "replicas": [1, 2], "log_dirs": ["/d/b", "any"]},
                                       {"topic": "foo", "partition": 1, "replicas": [2, 3], "log_dirs": ["/d/a", "any"]}]))
    assert [describe(m) for m in xplan.log_dir_moves] == ["move replica foo-0 on broker 1 from /d/a to /d/b"]
    assert xplan.unchanged == (TopicPartition("foo", 1),)  # already in /d/a: nothing sent


def test_new_replica_in_a_chosen_dir_retries_replica_not_available_until_created():
    be = backend()
    clock = Clock(on_sleep=lambda n: be.create_adding_replicas() if n == 3 else None)
    req = request([{"topic": "foo", "partition": 0, "replicas": [4, 2], "log_dirs": ["/d/b", "any"]}])
    xplan, result, _ = execute(be, req, clock=clock)
    # First request (broker 4 remembers /d/b), the reassignment, then retries until created.
    assert be.mutating_calls() == ["alter_replica_log_dirs", "reassign_partitions"] + ["alter_replica_log_dirs"] * 4
    assert result.failures == []
    assert [describe(c) for c, _ in result.applied][1:] == [
        "reassign foo-0: 1,2 -> 4,2 (adding 4; removing 1)",
        "place new replica foo-0 on broker 4 in /d/b",
    ]
    assert be.placement[(FOO0, 4)] == "/d/b"
    assert clock.t == pytest.approx(0.3)


def test_replica_not_available_until_timeout_is_a_failure():
    be = backend()
    clock = Clock()
    req = request([{"topic": "foo", "partition": 0, "replicas": [4, 2], "log_dirs": ["/d/b", "any"]}], timeout=2.0)
    _, result, _ = execute(be, req, clock=clock)
    assert clock.t == pytest.approx(2.0)
    [(change, error)] = result.failures
    assert isinstance(change, LogDirMove) and change.new_replica
    assert error.startswith("REPLICA_NOT_AVAILABLE until the 2s timeout")


def test_a_hard_log_dir_error_stops_before_the_reassignment():
    be = backend()
    be.dirs[1] = ["/d/a"]  # /d/b vanished after validation
    req = request([{"topic": "foo", "partition": 0, "replicas": [1, 3], "log_dirs": ["/d/b", "any"]}])
    xplan = plan_execution(req, read_cluster(backend(), req.parsed, None))
    result = apply_execution(be, xplan, req, write_rollback=lambda *a: None, records=None)
    assert result.aborted and be.mutating_calls() == ["alter_replica_log_dirs"]
    assert result.failures[0][1] == "LOG_DIR_NOT_FOUND"


def test_dry_run_is_the_same_plan_and_needs_no_writes():
    be = backend()
    req = request([{"topic": "foo", "partition": 0, "replicas": [4, 2], "log_dirs": ["/d/b", "any"]}], throttle=1000)
    xplan = plan_execution(req, read_cluster(be, req.parsed, MemoryRecordStore()))
    assert be.calls == []
    kinds = [type(c).__name__ for c in xplan.changes()]
    assert kinds[0] == "WriteRollback" and kinds[-2:] == ["Reassign", "LogDirMove"]  # the new replica's place last
    assert "ConfigChange" in kinds


def test_a_refused_reassignment_does_not_wait_for_its_new_replicas():
    be = backend()
    be.reassign_errors[FOO0] = "INVALID_REPLICA_ASSIGNMENT"
    clock = Clock()
    req = request([{"topic": "foo", "partition": 0, "replicas": [4, 2], "log_dirs": ["/d/b", "any"]}])
    _, result, _ = execute(be, req, clock=clock)
    assert clock.sleeps == 0
    assert [e for _, e in result.failures] == ["INVALID_REPLICA_ASSIGNMENT", "not sent: the reassignment of foo-0 failed"]


def test_a_cluster_error_midway_stops_and_reports_what_was_done():
    from kadmin.errors import ClusterError

    be = backend()

    def broken(assignments, validate_only=False):
        raise ClusterError("controller unreachable")

    be.reassign_partitions = broken
    req = request([{"topic": "foo", "partition": 0, "replicas": [3, 2]}], throttle=1000)
    xplan, result, _ = execute(be, req)
    assert result.aborted == "stopped: controller unreachable"
    # 2 lists on foo, leader and follower rates on brokers 1, 2, 3; then the reassignment failed.
    assert [type(c).__name__ for c, _ in result.applied] == ["WriteRollback"] + ["ConfigChange"] * 8


def test_a_stray_log_in_the_target_directory_is_not_a_replica_in_place():
    """Seen by hand (4.3 KRaft sandbox): a plan adding broker 4 in /d/b, run and cancelled,
    leaves broker 4's half-copied log in /d/b (a stray log, listed by DescribeLogDirs until the
    broker restarts). Running the plan again took that target as in place: no "place new
    replica" request for broker 4, and a warning that --replica-alter-log-dirs-throttle had
    nothing to throttle."""
    be = backend()
    be.placement[(FOO0, 4)] = "/d/b"  # broker 4 is not in foo-0's replica set [1, 2]
    req = request([{"topic": "foo", "partition": 0, "replicas": [4, 2], "log_dirs": ["/d/b", "any"]}],
                  log_dir_throttle=1000)
    xplan = plan_execution(req, read_cluster(be, req.parsed, MemoryRecordStore()))
    assert [describe(m) for m in xplan.log_dir_moves] == ["place new replica foo-0 on broker 4 in /d/b"]
    assert xplan.warnings == ()
    log_dir_rates = {c.resource.name for c in xplan.throttles.changes if "alter.log.dirs" in c.name}
    assert log_dir_rates == {"4"}
