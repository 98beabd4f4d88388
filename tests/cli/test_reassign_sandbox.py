"""reassign execute | verify | cancel | list against the sandbox over the wire (AdminClient
protocol), in-process through kadmin's entry point. The sandbox's clock is manual: moves
progress only when a test advances it, so "midway" is a state, not a race."""

import json
from pathlib import Path

import pytest

from kadmin.model import TopicPartition
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)
from tests.support.cli import kadmin, write_plan

MB = 1_000_000


@pytest.fixture
def sb(sandbox_factory):  # noqa: F811
    sb = sandbox_factory(brokers=4, log_dirs=2, manual_clock=True)
    sb.create_topic("foo", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=10 * MB)
    sb.create_topic("bar", assignment={0: [2, 0]}, size_bytes=1 * MB)
    sb.clear_requests()
    return sb


def mutating(sb):
    return [api for _, api, _ in sb.mutating_requests()]


def settle(sb, seconds=60):
    """Advance simulated time until nothing reassigns or moves between directories."""
    def idle(s):
        return not any(p.reassigning for p in s.partitions.values()) and not any(
            d.futures for b in s.brokers.values() for d in b.dirs.values())
    for _ in range(int(seconds)):
        if idle(sb.snapshot()):
            return
        sb.clock.advance(1)
    assert idle(sb.snapshot()), "moves did not finish"


def test_plain_move_then_verify(sb, tmp_path, capsys):
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0, err
    assert "done    reassign foo-0: 0,1 -> 3,1 (adding 3; removing 0)" in out
    assert mutating(sb) == ["AlterPartitionReassignments"]
    [rollback] = tmp_path.glob("plan.rollback-*.json")
    assert json.loads(rollback.read_text())["partitions"] == [
        {"topic": "foo", "partition": 0, "replicas": [0, 1], "log_dirs": [sb.snapshot().replica_dir("foo", 0, 0), sb.snapshot().replica_dir("foo", 0, 1)]}]
    code, out, _ = kadmin(capsys, "reassign", "list", "-b", sb.bootstrap)
    assert out.splitlines()[1:] == ["foo-0: replicas: 3,1,0. adding: 3. removing: 0."]
    assert kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)[0] == 3
    settle(sb)
    code, out, _ = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0 and "Reassignment of partition foo-0 is completed." in out
    assert sb.snapshot().partition("foo", 0).replicas == (3, 1)


def test_rollback_file_puts_things_back(sb, tmp_path, capsys):
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    rollback = tmp_path / "rb.json"
    assert kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--rollback-file", str(rollback),
                  "-b", sb.bootstrap)[0] == 0
    settle(sb)
    assert kadmin(capsys, "reassign", "execute", "--reassignment-json-file", str(rollback),
                  "--rollback-file", str(tmp_path / "rb2.json"), "-b", sb.bootstrap)[0] == 0
    settle(sb)
    assert sb.snapshot().partition("foo", 0).replicas == (0, 1)


def test_refuses_while_another_runs_unless_additional(sb, tmp_path, capsys):
    first = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}], "first.json")
    second = write_plan(tmp_path, [{"topic": "bar", "partition": 0, "replicas": [3, 0]}], "second.json")
    assert kadmin(capsys, "reassign", "execute", "--reassignment-json-file", first, "-b", sb.bootstrap)[0] == 0
    sb.clear_requests()
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", second, "-b", sb.bootstrap)
    assert code == 2 and "another reassignment is running (1 partition: foo-0)" in err
    assert mutating(sb) == []
    assert kadmin(capsys, "reassign", "execute", "--reassignment-json-file", second, "--additional", "-b", sb.bootstrap)[0] == 0
    assert {tp for tp, p in sb.snapshot().partitions.items() if p.reassigning} == {TopicPartition("foo", 0), TopicPartition("bar", 0)}


def test_cancel_midway(sb, tmp_path, capsys):
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]},
                                 {"topic": "foo", "partition": 1, "replicas": [1, 2], "log_dirs": ["any", "/var/lib/kafka/data1"]}])
    dir_before = sb.snapshot().replica_dir("foo", 1, 2)
    assert dir_before != "/var/lib/kafka/data1"
    assert kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap)[0] == 0
    s = sb.snapshot()  # the clock has not moved: both moves are midway
    assert s.partition("foo", 0).reassigning and s.future_replica("foo", 1, 2) is not None
    code, out, err = kadmin(capsys, "reassign", "cancel", "--reassignment-json-file", plan, "-b", sb.bootstrap, "-o", "json")
    assert code == 0, err
    kinds = sorted(c["kind"] for c in json.loads(out)["cancelled"])
    assert kinds == ["cancel_log_dir_move", "cancel_reassignment"]
    settle(sb)
    s = sb.snapshot()
    # Back to the original replicas, in the full set's order (target first), as Kafka reverts.
    assert s.partition("foo", 0).replicas == (1, 0) and not s.partition("foo", 0).reassigning
    assert s.replica_dir("foo", 1, 2) == dir_before and s.future_replica("foo", 1, 2) is None
    assert kadmin(capsys, "reassign", "list", "-b", sb.bootstrap)[1] == "No partition reassignments found.\n"


def dry_run_and_run(capsys, plan, *connection):
    """The lines of ``reassign execute --dry-run`` and of the same command run, each said as
    the dry run says it (no 'done    ')."""
    # One rollback file named for both: the default name carries the second it is made, and the
    # two runs may fall in different seconds.
    rollback = str(Path(plan).with_name("rollback.json"))
    args = ("reassign", "execute", "--reassignment-json-file", plan, "--throttle", "10MB/s",
            "--replica-alter-log-dirs-throttle", "5MB/s", "--rollback-file", rollback, "--timeout", "5s", *connection)
    code, out, err = kadmin(capsys, *args, "--dry-run")
    assert code == 0, err
    planned = out.splitlines()
    assert planned[0] == "Plan of changes (dry run: nothing was changed):"
    code, out, err = kadmin(capsys, *args)
    assert code == 0, err
    made = [line.replace("  done    ", "  ", 1) for line in out.splitlines() if line.startswith("  done    ")]
    return planned[1:], made


def test_the_dry_run_lists_the_changes_in_the_order_the_run_makes_them(sb, tmp_path, capsys, records):
    """Seen by hand: the dry run listed 'place new replica' before the reassignment, the run after."""
    target = sb.log_dir_paths(3)[1]
    here = sb.snapshot().replica_dir("foo", 0, 1)
    other = next(p for p in sb.log_dir_paths(1) if p != here)
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1], "log_dirs": [target, other]}])
    planned, made = dry_run_and_run(capsys, plan, "-b", sb.bootstrap)
    assert made == planned
    assert planned[-3:] == [
        f"  move replica foo-0 on broker 1 from {here} to {other}",
        "  reassign foo-0: 0,1 -> 3,1 (adding 3; removing 0)",
        f"  place new replica foo-0 on broker 3 in {target}",
    ]
    assert sum(1 for line in planned if "throttled" in line or "alter.log.dirs" in line) >= 5


def test_log_dir_move_on_one_broker(sb, tmp_path, capsys):
    s = sb.snapshot()
    here = s.replica_dir("foo", 0, 0)
    there = next(p for p in sb.log_dir_paths(0) if p != here)
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [0, 1], "log_dirs": [there, "any"]}])
    code, out, _ = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0
    assert f"done    move replica foo-0 on broker 0 from {here} to {there}" in out
    assert mutating(sb) == ["AlterReplicaLogDirs"]
    code, out, _ = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 3 and "Reassignment of replica foo-0-0 is still in progress." in out
    settle(sb)
    assert sb.snapshot().replica_dir("foo", 0, 0) == there
    code, out, _ = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0 and "Reassignment of replica foo-0-0 completed successfully." in out


def test_new_broker_and_chosen_dir_at_once(sb, tmp_path, capsys):
    """KIP-113: the first AlterReplicaLogDirs gets REPLICA_NOT_AVAILABLE (broker 3 has no replica
    yet, but remembers the destination); after the reassignment starts it is sent again."""
    target = sb.log_dir_paths(3)[1]
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1], "log_dirs": [target, "any"]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--timeout", "5s")
    assert code == 0, err
    assert mutating(sb) == ["AlterReplicaLogDirs", "AlterPartitionReassignments", "AlterReplicaLogDirs"]
    assert f"done    place new replica foo-0 on broker 3 in {target}" in out
    settle(sb)
    assert sb.snapshot().replica_dir("foo", 0, 3) == target
    assert kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)[0] == 0


def test_a_target_broker_that_is_down_is_refused(sb, tmp_path, capsys):
    sb.faults.broker_stop(3)
    sb.wait_for(lambda s: not s.brokers[3].alive)
    sb.clear_requests()
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 2
    assert "partitions[0] (foo-0) replicas[0]: unknown broker 3: not among the running brokers (0, 1, 2)" in err
    assert mutating(sb) == [] and list(tmp_path.glob("*.rollback-*")) == []


@pytest.fixture(scope="module")
def shared_sb():
    from kadmin.sandbox import Sandbox

    with Sandbox(brokers=3, log_dirs=2, manual_clock=True) as sb:
        sb.create_topic("foo", assignment={0: [0, 1], 1: [1, 2]})
        sb.faults.dir_offline(2, sb.log_dir_paths(2)[1])
        yield sb


D0, D1 = "/var/lib/kafka/data0", "/var/lib/kafka/data1"
VALIDATION_CASES = {
    "empty plan": ([], "partitions: is empty"),
    "duplicate partition": ([{"topic": "foo", "partition": 0, "replicas": [1, 0]}, {"topic": "foo", "partition": 0, "replicas": [0, 1]}],
                            "partitions[1] (foo-0): duplicate partition: foo-0 already appears at partitions[0]"),
    "broker twice": ([{"topic": "foo", "partition": 0, "replicas": [1, 1]}], "partitions[0] (foo-0) replicas: broker 1 appears more than once"),
    "unknown topic": ([{"topic": "nope", "partition": 0, "replicas": [0, 1]}], "partitions[0] (nope-0) topic: unknown topic 'nope'"),
    "unknown partition": ([{"topic": "foo", "partition": 9, "replicas": [0, 1]}], "partitions[0] (foo-9) partition: unknown partition"),
    "unknown broker": ([{"topic": "foo", "partition": 0, "replicas": [0, 7]}], "partitions[0] (foo-0) replicas[1]: unknown broker 7"),
    "log_dirs length": ([{"topic": "foo", "partition": 0, "replicas": [0, 1], "log_dirs": ["any"]}], "partitions[0] (foo-0) log_dirs: has 1 entries but replicas has 2"),
    "relative log dir": ([{"topic": "foo", "partition": 0, "replicas": [0, 1], "log_dirs": ["data0", "any"]}], "partitions[0] (foo-0) log_dirs[0]: 'data0' is neither"),
    "not a dir of that broker": ([{"topic": "foo", "partition": 0, "replicas": [0, 1], "log_dirs": ["/elsewhere", "any"]}], "/elsewhere is not a log directory of broker 0"),
    "offline dir": ([{"topic": "foo", "partition": 1, "replicas": [1, 2], "log_dirs": ["any", D1]}], f"partitions[0] (foo-1) log_dirs[1]: {D1} on broker 2 is offline"),
    "replication factor change": ([{"topic": "foo", "partition": 0, "replicas": [0, 1, 2]}], "changes the replication factor from 2 to 3"),
}


@pytest.mark.parametrize("case", sorted(VALIDATION_CASES))
def test_each_validation_error_exits_2_and_changes_nothing(shared_sb, tmp_path, capsys, case):
    partitions, expected = VALIDATION_CASES[case]
    plan = write_plan(tmp_path, partitions)
    shared_sb.clear_requests()
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", shared_sb.bootstrap)
    assert code == 2 and out == ""
    assert expected in err
    assert shared_sb.mutating_requests() == []
    assert list(tmp_path.glob("*.rollback-*")) == []


def test_version_other_than_1_exits_2(shared_sb, tmp_path, capsys):
    p = tmp_path / "plan.json"
    p.write_text(json.dumps({"version": 2, "partitions": [{"topic": "foo", "partition": 0, "replicas": [1, 0]}]}))
    shared_sb.clear_requests()
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", str(p), "-b", shared_sb.bootstrap)
    assert code == 2 and "version: must be 1, not 2" in err
    assert shared_sb.mutating_requests() == []


@pytest.fixture
def records(monkeypatch):
    """kadmin's throttle record, kept in memory across the in-process runs of one test: the
    sandbox does not serve Produce/Fetch, which the record topic needs. The configs are real."""
    from kadmin.commands import options
    from kadmin.throttling.stores import MemoryRecordStore

    store = MemoryRecordStore()
    monkeypatch.setattr(options, "open_records", lambda backend: store)
    return store


def test_move_with_throttles_exact_configs_then_removed_by_verify(sb, tmp_path, capsys, records):
    from kadmin.model import ConfigResource, ConfigResourceType

    from kadmin.model import AlterOp, ConfigChange

    def alter(changes):
        from kadmin.backends import open_backend
        from kadmin.config import resolve_connection

        be = open_backend(resolve_connection(bootstrap_server=sb.bootstrap, zookeeper=None, command_config=None,
                                             cluster=None, timeout=None), read_only=False)
        try:
            be.incremental_alter_configs(changes)
        finally:
            be.close()

    # Someone else's throttles, on foo-1 and on broker 2, must survive everything below.
    alter([ConfigChange(ConfigResource(ConfigResourceType.TOPIC, "foo"), "leader.replication.throttled.replicas", AlterOp.SET, "1:1"),
           ConfigChange(ConfigResource(ConfigResourceType.BROKER, "2"), "leader.replication.throttled.rate", AlterOp.SET, "777")])
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1], "log_dirs": [sb.log_dir_paths(3)[1], "any"]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--throttle", "50MB/s", "--replica-alter-log-dirs-throttle", "20MB/s")
    assert code == 0, err
    # Each change said with what it replaces, as throttle set says it: the list it merges into.
    assert "  done    topic foo leader.replication.throttled.replicas: 1:1 -> 0:0,0:1,1:1\n" in out, out
    assert "  done    broker 3 replica.alter.log.dirs.io.max.bytes.per.second: (not set) -> 20000000 (20.0 MB/s)\n" in out
    s = sb.snapshot()
    assert s.topic_configs["foo"] == {
        "leader.replication.throttled.replicas": "0:0,0:1,1:1",  # merged with the existing entry
        "follower.replication.throttled.replicas": "0:3",
    }
    rates = {"leader.replication.throttled.rate": "50000000", "follower.replication.throttled.rate": "50000000"}
    assert s.broker_configs["0"] == rates and s.broker_configs["1"] == rates
    assert s.broker_configs["3"] == {**rates, "replica.alter.log.dirs.io.max.bytes.per.second": "20000000"}
    assert s.broker_configs["2"] == {"leader.replication.throttled.rate": "777"}

    # --additional changes the throttle of the running plan, and nothing else.
    sb.clear_requests()
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--throttle", "80MB/s", "--additional", "--rollback-file", str(tmp_path / "rb2.json"))
    assert code == 0, err
    assert set(mutating(sb)) == {"IncrementalAlterConfigs"}  # no reassignment, no log-dir request
    assert sb.snapshot().broker_configs["0"]["leader.replication.throttled.rate"] == "80000000"

    assert kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)[0] == 3
    assert sb.snapshot().topic_configs["foo"]["follower.replication.throttled.replicas"] == "0:3"  # still needed
    settle(sb)
    code, out, _ = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0 and "Removed throttles this plan set:" in out
    # Said as what was removed, not as the value left (which is someone else's).
    assert "  topic foo leader.replication.throttled.replicas: removed 0:0,0:1, left 1:1\n" in out, out
    assert "  topic foo follower.replication.throttled.replicas: 0:3 -> (deleted)\n" in out, out
    assert "  broker 0 leader.replication.throttled.rate: 80000000 -> (deleted)\n" in out, out
    s = sb.snapshot()
    assert s.topic_configs["foo"] == {"leader.replication.throttled.replicas": "1:1"}
    assert {b: c for b, c in s.broker_configs.items() if c} == {"2": {"leader.replication.throttled.rate": "777"}}
    assert records.records == {}


def test_dry_run_prints_the_plan_of_changes_and_sends_nothing(sb, tmp_path, capsys):
    target = sb.log_dir_paths(3)[1]
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1], "log_dirs": [target, "any"]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--dry-run",
                            "--throttle", "10MB/s", "-b", sb.bootstrap)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "Plan of changes (dry run: nothing was changed):"
    assert "  broker 3 follower.replication.throttled.rate: (not set) -> 10000000 (10.0 MB/s)" in lines
    assert "  topic foo follower.replication.throttled.replicas: (not set) -> 0:3" in lines
    # the new replica is placed once the reassignment has created it, and said so
    assert lines[-2:] == ["  reassign foo-0: 0,1 -> 3,1 (adding 3; removing 0)",
                          f"  place new replica foo-0 on broker 3 in {target}"]
    assert sb.mutating_requests() == [] and list(tmp_path.glob("*.rollback-*")) == []
