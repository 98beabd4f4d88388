"""The four commands end to end through kadmin's real entry point (flags, rendering, exit
codes, JSON schemas), with the in-memory backend standing in for the cluster. The same
behaviour against the sandbox is in test_reassign_sandbox.py."""

import contextlib
import json

import jsonschema
import pytest

from kadmin.commands import options, reassign_cancel, reassign_execute, reassign_list, reassign_verify
from kadmin.model import Assignment, ConfigResource, ConfigResourceType, TopicPartition
from kadmin.plan.reassignment_file import read_reassignment
from kadmin.schemas import load
from kadmin.throttling.stores import MemoryRecordStore
from tests.execute.fakes import FakeBackend, cluster_state
from tests.support.cli import kadmin

FOO0 = TopicPartition("foo", 0)


@pytest.fixture
def fake(monkeypatch):
    be = FakeBackend(cluster_state({"foo": {0: [1, 2], 1: [2, 3]}}, brokers=(1, 2, 3, 4)),
                     {b: ["/d/a", "/d/b"] for b in (1, 2, 3, 4)})
    be.auto_create = True
    store = MemoryRecordStore()

    @contextlib.contextmanager
    def open_cluster(cluster, read_only=True):
        be.read_only = read_only  # the fake refuses changes on a read-only connection, as backends do
        try:
            yield be
        finally:
            be.read_only = False

    for mod in (reassign_execute, reassign_verify, reassign_cancel, reassign_list):
        monkeypatch.setattr(mod, "open_cluster", open_cluster)
    monkeypatch.setattr(options, "open_records", lambda backend: store)
    be.store = store
    return be


def plan_file(tmp_path, partitions, name="plan.json"):
    p = tmp_path / name
    p.write_text(json.dumps({"version": 1, "partitions": partitions}))
    return str(p)


MOVE = [{"topic": "foo", "partition": 0, "replicas": [3, 2], "log_dirs": ["/d/b", "any"]}]


def test_execute_prints_every_change_and_writes_the_rollback_first(fake, tmp_path, capsys):
    plan = plan_file(tmp_path, MOVE)
    rollback = tmp_path / "rb.json"
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan,
                            "--rollback-file", str(rollback), "--throttle", "50MB/s")
    assert code == 0, err
    assert f"Saving the current assignment to {rollback}" in out
    assert "  done    topic foo follower.replication.throttled.replicas: (not set) -> 0:3" in out
    assert "  done    reassign foo-0: 1,2 -> 3,2 (adding 3; removing 1)" in out
    assert read_reassignment(rollback).plan.partitions == (Assignment("foo", 0, (1, 2), ("/d/a", "/d/a")),)
    assert fake.configs[ConfigResource(ConfigResourceType.BROKER, "3")]["leader.replication.throttled.rate"] == "50000000"


def test_execute_default_rollback_path_is_next_to_the_plan(fake, tmp_path, capsys):
    code, out, _ = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan_file(tmp_path, MOVE))
    assert code == 0
    [rb] = tmp_path.glob("plan.rollback-*.json")
    assert str(rb) in out


def test_default_rollback_paths_of_runs_in_the_same_second_differ(tmp_path):
    from datetime import datetime, timezone

    from kadmin.execute.rollback import default_rollback_path

    now = datetime(2026, 11, 25, 21, 47, 39, tzinfo=timezone.utc)
    plan = str(tmp_path / "s2.json")
    first = default_rollback_path(plan, now)
    assert first == tmp_path / "s2.rollback-20261125T214739Z.json"
    first.write_text("{}")
    second = default_rollback_path(plan, now)
    assert second == tmp_path / "s2.rollback-20261125T214739Z-2.json"
    second.write_text("{}")
    assert default_rollback_path(plan, now).name == "s2.rollback-20261125T214739Z-3.json"


def test_dry_run_json_matches_schema_and_changes_nothing(fake, tmp_path, capsys):
    code, out, _ = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan_file(tmp_path, MOVE),
                          "--dry-run", "--throttle", "1MB/s", "--output", "json")
    assert code == 0
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-execute-result"))
    assert doc["dry_run"] is True
    assert [c["kind"] for c in doc["changes"]][0] == "rollback_file"
    assert "reassignment" in [c["kind"] for c in doc["changes"]]
    assert fake.calls == [] and list(tmp_path.glob("*.rollback-*")) == []


def test_invalid_plan_exit_2_every_problem_on_stderr_nothing_changed(fake, tmp_path, capsys):
    plan = plan_file(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 3]},
                                {"topic": "nope", "partition": 0, "replicas": [1, 2]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan)
    assert code == 2 and out == ""
    assert "partitions[0] (foo-0) replicas: broker 3 appears more than once" in err
    assert "partitions[1] (nope-0) topic: unknown topic 'nope'" in err
    assert fake.calls == [] and list(tmp_path.glob("*.rollback-*")) == []


def test_execute_refuses_while_another_runs(fake, tmp_path, capsys):
    fake.reassign_partitions([Assignment("foo", 1, (4, 3))])
    fake.calls.clear()
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan_file(tmp_path, MOVE))
    assert code == 2 and "another reassignment is running" in err and "--additional" in err
    assert fake.calls == []


def test_verify_exit_codes_and_json(fake, tmp_path, capsys):
    plan = plan_file(tmp_path, MOVE)
    assert kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--throttle", "1000")[0] == 0
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan)
    assert code == 3
    assert "Reassignment of partition foo-0 is still in progress." in out
    # an outcome to wait on, not a failure: no "error:" on its line
    assert err.splitlines()[-1] == "kadmin: still in progress: 1 partition reassigning, 0 log-dir replicas moving"
    fake.complete()
    code, out, _ = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "--output", "json")
    assert code == 0
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-verify-result"))
    assert doc["state"] == "complete"
    assert doc["replicas"][0]["message"] == "Reassignment of replica foo-0-3 completed successfully."
    assert {c["name"] for c in doc["throttles_removed"]} >= {"leader.replication.throttled.rate", "follower.replication.throttled.replicas"}
    assert fake.configs[ConfigResource(ConfigResourceType.TOPIC, "foo")] == {}
    other = plan_file(tmp_path, [{"topic": "foo", "partition": 1, "replicas": [3, 2]}], "other.json")
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", other)
    assert code == 4
    assert "There is no active reassignment of partition foo-1, but replica set is 2,3 rather than 3,2." in out
    assert "but 1 partition and 0 log-dir replicas differ from it" in err


def test_list_in_kafkas_words_and_json(fake, capsys):
    assert kadmin(capsys, "reassign", "list")[1] == "No partition reassignments found.\n"
    fake.reassign_partitions([Assignment("foo", 0, (4, 3))])
    code, out, _ = kadmin(capsys, "reassign", "list")
    assert out.splitlines() == ["Current partition reassignments:", "foo-0: replicas: 4,3,1,2. adding: 4,3. removing: 1,2."]
    code, out, _ = kadmin(capsys, "reassign", "list", "--output", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-list-result"))
    assert doc["reassignments"] == [{"topic": "foo", "partition": 0, "replicas": [4, 3, 1, 2], "adding": [4, 3], "removing": [1, 2]}]


def test_cancel_plan_and_all(fake, tmp_path, capsys):
    plan = plan_file(tmp_path, MOVE)
    assert kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan)[0] == 0
    code, out, _ = kadmin(capsys, "reassign", "cancel", "--reassignment-json-file", plan, "--output", "json")
    assert code == 0
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-cancel-result"))
    assert [c["kind"] for c in doc["cancelled"]] == ["cancel_reassignment"]
    assert fake.reassigning == {}
    code, _, err = kadmin(capsys, "reassign", "cancel")
    assert code == 2 and "--all" in err
    code, out, _ = kadmin(capsys, "reassign", "cancel", "--all")
    assert code == 0 and "Nothing to cancel: no reassignment or log-dir move in the cluster is running." in out
    code, out, _ = kadmin(capsys, "reassign", "cancel", "--reassignment-json-file", plan)
    assert code == 0 and "Nothing to cancel: no reassignment or log-dir move of this plan is running." in out


def test_nothing_to_change_writes_no_rollback(fake, tmp_path, capsys):
    plan = plan_file(tmp_path, [{"topic": "foo", "partition": 1, "replicas": [2, 3]}])
    code, out, _ = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan)
    assert code == 0 and out.startswith("Nothing to change")
    code, out, _ = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-o", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-execute-result"))
    assert doc["changes"] == [] and doc["unchanged"] == [{"topic": "foo", "partition": 1}]
    assert fake.calls == [] and list(tmp_path.glob("*.rollback-*")) == []


def test_execute_json_lists_every_change_made(fake, tmp_path, capsys):
    code, out, _ = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan_file(tmp_path, MOVE),
                          "--throttle", "1MB/s", "-o", "json")
    assert code == 0
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-execute-result"))
    assert doc["dry_run"] is False and doc["failures"] == 0 and doc["aborted"] is None
    kinds = [c["kind"] for c in doc["changes"]]
    assert kinds[0] == "rollback_file" and kinds[-2:] == ["reassignment", "log_dir_move"]
    assert all(c["error"] is None for c in doc["changes"])
    assert (tmp_path / doc["rollback_file"]).exists()


def test_refused_plan_problems_as_json_for_scripts(fake, tmp_path, capsys):
    plan = plan_file(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 3]}, {"topic": "nope", "partition": 0, "replicas": [1, 2]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-o", "json")
    assert code == 2 and "nothing was changed" in err
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-plan-problems"))
    assert doc["problems"] == [
        {"index": 0, "topic": "foo", "partition": 0, "field": "replicas", "message": "broker 3 appears more than once"},
        {"index": 1, "topic": "nope", "partition": 0, "field": "topic", "message": "unknown topic 'nope'"},
    ]
    assert fake.calls == []


def test_incremental_limits_without_incremental_are_refused(tmp_path):
    from click.testing import CliRunner

    from kadmin.commands.root import cli

    plan = tmp_path / "plan.json"
    plan.write_text('{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2]}]}')
    result = CliRunner().invoke(cli, ["reassign", "execute", "--reassignment-json-file", str(plan),
                                      "--max-moves-per-broker", "2", "-b", "127.0.0.1:9"])
    assert result.exit_code == 2
    assert "--max-moves-per-broker only apply to --incremental" in result.stderr


def test_a_bad_plan_file_is_reported_even_when_the_cluster_is_unreachable(tmp_path):
    import json

    from click.testing import CliRunner

    from kadmin.commands.root import cli
    from tests.support.zookeeper import free_port

    plan = tmp_path / "plan.json"
    plan.write_text('{"version":2,"partitions":[]}')
    args = ["reassign", "execute", "--reassignment-json-file", str(plan), "-b", f"127.0.0.1:{free_port()}",
            "--timeout", "2s"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert "version: must be 1, not 2" in result.stderr and "could not be reached" in result.stderr
    as_json = CliRunner().invoke(cli, args + ["-o", "json"])
    assert as_json.exit_code == 2 and json.loads(as_json.stdout)["problems"]


class _BrokenStore(MemoryRecordStore):
    """The record store of the real-cluster issue: kafka-python's describe_cluster failing
    against DescribeCluster v0 while the record topic is created."""

    def put(self, record):
        raise KeyError("endpoint_type")


def test_an_execute_that_fails_before_changing_anything_leaves_no_rollback_and_can_run_again(
        fake, tmp_path, capsys, monkeypatch):
    plan = plan_file(tmp_path, MOVE)
    rollback = tmp_path / "rb.json"
    args = ["reassign", "execute", "--reassignment-json-file", plan, "--rollback-file", str(rollback),
            "--throttle", "50MB/s"]
    monkeypatch.setattr(options, "open_records", lambda backend: _BrokenStore())
    code, out, err = kadmin(capsys, *args)
    assert code == 1
    [line] = [ln for ln in err.splitlines() if ln.startswith("kadmin:")]
    assert line.startswith("kadmin: error: unexpected KeyError: 'endpoint_type'")
    assert "a bug in kadmin" in line and "--debug" in line
    assert "Traceback" not in err
    assert fake.calls == [] and not rollback.exists()  # nothing changed, nothing left behind

    monkeypatch.setattr(options, "open_records", lambda backend: fake.store)
    code, out, err = kadmin(capsys, *args)
    assert code == 0, err  # not "rollback file already exists"
    assert rollback.exists()


def test_an_existing_rollback_file_is_bad_input_and_nothing_changes(fake, tmp_path, capsys):
    rollback = tmp_path / "rb.json"
    rollback.write_text("earlier state")
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan_file(tmp_path, MOVE),
                            "--rollback-file", str(rollback))
    assert code == 2, err
    assert f"kadmin: error: rollback file {rollback} already exists; nothing was changed" in err
    assert fake.calls == [] and rollback.read_text() == "earlier state"


def test_an_execute_whose_every_move_is_refused_removes_its_rollback_file(fake, tmp_path, capsys):
    fake.reassign_errors[FOO0] = "INVALID_REPLICA_ASSIGNMENT"
    plan = plan_file(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 2]}])
    rollback = tmp_path / "rb.json"
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan,
                            "--rollback-file", str(rollback))
    assert code == 1
    assert "  FAILED  reassign foo-0" in out and "INVALID_REPLICA_ASSIGNMENT" in out
    assert "no replica was moved, so no rollback file was kept" in err
    assert not rollback.exists()
    fake.reassign_errors.clear()
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan,
                            "--rollback-file", str(rollback))
    assert code == 0, err
    assert read_reassignment(rollback).plan.partitions[0].replicas == (1, 2)


def test_an_execute_that_moved_something_keeps_its_rollback_file_though_a_later_change_failed(
        fake, tmp_path, capsys):
    fake.reassign_errors[TopicPartition("foo", 1)] = "INVALID_REPLICA_ASSIGNMENT"
    plan = plan_file(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 2]},
                                {"topic": "foo", "partition": 1, "replicas": [4, 3]}])
    rollback = tmp_path / "rb.json"
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan,
                            "--rollback-file", str(rollback))
    assert code == 1
    assert rollback.exists() and f"the rollback file {rollback} holds the assignment" in err


def many_problems_plan(tmp_path, n):
    return plan_file(tmp_path, [{"topic": "foo", "partition": i, "replicas": "3,3"} for i in range(n)])


@pytest.mark.parametrize("command", [["reassign", "execute"], ["reassign", "verify"], ["reassign", "progress"],
                                     ["reassign", "cancel"], ["throttle", "set", "--rate", "1MB/s"]])
def test_a_plan_with_many_problems_prints_the_first_50_and_the_count_json_carries_all(
        fake, tmp_path, capsys, command):
    plan = many_problems_plan(tmp_path, 120)
    flag = "--from-plan" if command[0] == "throttle" else "--reassignment-json-file"
    # throttle set lists a plan's problems with the cluster's: with no cluster, after --timeout
    command = [*command, "--timeout", "1s"]
    code, out, err = kadmin(capsys, *command, flag, plan, "-b", "127.0.0.1:1")
    assert code == 2
    listed = [ln for ln in err.splitlines() if ln.startswith("  - ")]
    assert len(listed) == 50
    assert "  ... and 70 more problems (--output json lists every one)" in err
    assert len(err) < 10_000
    code, out, err = kadmin(capsys, *command, flag, plan, "-b", "127.0.0.1:1", "-o", "json")
    assert code == 2
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-plan-problems"))
    assert len(doc["problems"]) == 120
    assert fake.calls == []


def test_verify_prints_kafkas_words_in_kafkas_order(fake, tmp_path, capsys):
    """As kafka-reassign-partitions.sh --verify (3.3.1 and later): "is completed.", partitions by
    topic and partition, then the log-dir replicas by broker, topic and partition, no extra header."""
    plan = plan_file(tmp_path, [
        {"topic": "foo", "partition": 1, "replicas": [2, 3], "log_dirs": ["/d/b", "any"]},
        {"topic": "foo", "partition": 0, "replicas": [1, 2], "log_dirs": ["/d/b", "/d/b"]},
    ])
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan,
                          "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 0, err
    fake.complete()
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan)
    assert code == 0, err
    assert out.splitlines()[:6] == [
        "Status of partition reassignment:",
        "Reassignment of partition foo-0 is completed.",
        "Reassignment of partition foo-1 is completed.",
        "Reassignment of replica foo-0-1 completed successfully.",
        "Reassignment of replica foo-0-2 completed successfully.",
        "Reassignment of replica foo-1-2 completed successfully.",
    ]


def test_partitions_counted_as_in_place_are_those_nothing_is_sent_for(fake, tmp_path, capsys):
    """A log-dir-only run said "2 partition(s) already have, or are already moving to, the
    planned replicas" although both got a log-dir move: the count, the dry run's and the JSON's
    "unchanged" now hold only partitions nothing is sent for."""
    both_move = [{"topic": "foo", "partition": 0, "replicas": [1, 2], "log_dirs": ["/d/b", "any"]},
                 {"topic": "foo", "partition": 1, "replicas": [2, 3], "log_dirs": ["any", "/d/b"]}]
    one_moves = [{"topic": "foo", "partition": 0, "replicas": [1, 2], "log_dirs": ["/d/a", "any"]},  # back
                 {"topic": "foo", "partition": 1, "replicas": [2, 3], "log_dirs": ["any", "/d/b"]}]  # in place
    for name, partitions, in_place in (("a.json", both_move, []), ("b.json", one_moves, [1])):
        plan = plan_file(tmp_path, partitions, name=name)
        said = "1 partition already has, or is already moving to, its planned replicas and directories"
        code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--dry-run")
        assert code == 0, err
        assert (said in out) == bool(in_place) and ("already" in out) == bool(in_place), out
        code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--dry-run",
                                "-o", "json")
        assert json.loads(out)["unchanged"] == [{"topic": "foo", "partition": p} for p in in_place]
        code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan)
        assert code == 0, err
        assert out.count("  done    move replica foo-") == 2 - len(in_place)
        assert (said in out) == bool(in_place) and ("already" in out) == bool(in_place), out
        fake.complete()


@pytest.mark.parametrize("output", ["table", "json"])
def test_verify_names_each_throttle_it_removes_with_the_value_it_had(fake, tmp_path, capsys, output):
    """verify's removal says what it removed, in throttle clear's words: a rate with the value
    this plan set, deleted or given back the value it replaced; a list deleted with its entries.
    It said 'delete broker 3 follower.replication.throttled.rate' (no value), and a rate given
    back 'set broker 3 ...=1000' without the one it replaced; its JSON had no value removed."""
    from kadmin.model import AlterOp, ConfigChange

    leader, follower = "leader.replication.throttled.rate", "follower.replication.throttled.rate"
    fake.incremental_alter_configs([ConfigChange(ConfigResource(ConfigResourceType.BROKER, "3"), leader, AlterOp.SET, "1000")])
    plan = plan_file(tmp_path, MOVE)
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--throttle", "50MB/s")
    assert code == 0, err
    assert f"  done    broker 3 {leader}: 1000 -> 50000000 (50.0 MB/s)\n" in out, out
    fake.complete()
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-o", output)
    assert code == 0, err
    if output == "table":
        lines = out.split("Removed throttles this plan set:\n")[1].splitlines()
        assert f"  broker 3 {leader}: 50000000 -> 1000 (1.0 kB/s), back to its value from before this plan" in lines
        assert f"  broker 3 {follower}: 50000000 -> (deleted)" in lines
        assert "  topic foo leader.replication.throttled.replicas: 0:1,0:2 -> (deleted)" in lines
        assert "  topic foo follower.replication.throttled.replicas: 0:3 -> (deleted)" in lines
    else:
        doc = json.loads(out)
        jsonschema.validate(doc, load("reassign-verify-result"))
        removed = {(c["resource"], c["name"]): (c["before"], c["value"]) for c in doc["throttles_removed"]}
        assert removed[("3", leader)] == ("50000000", "1000")
        assert removed[("3", follower)] == ("50000000", None)
        assert removed[("foo", "follower.replication.throttled.replicas")] == ("0:3", None)
    assert fake.configs[ConfigResource(ConfigResourceType.BROKER, "3")] == {leader: "1000"}
