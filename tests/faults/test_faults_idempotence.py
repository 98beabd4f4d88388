"""Running a mutating command twice is safe and says so (AdminClient protocol, manual clock):
execute (with and without --additional, while the plan runs and after it finished), cancel,
verify and throttle clear. The second run sends nothing it does not have to, keeps kadmin's
throttle record right, and tells what is already in place."""

from __future__ import annotations

import json

import pytest

from tests.faults.support import DATA1, MB, foo_on_four_brokers, kadmin, settle, throttles_left, write_plan


@pytest.fixture
def sb(sandbox_factory):
    sb = foo_on_four_brokers(sandbox_factory)
    sb.create_topic("bar", assignment={0: [2, 0]}, size_bytes=1 * MB)
    return sb


PLAN = [{"topic": "foo", "partition": 0, "replicas": [3, 1]},
        {"topic": "foo", "partition": 1, "replicas": [1, 2], "log_dirs": [DATA1, "any"]}]


def mutating(sb):
    return [api for _, api, _ in sb.mutating_requests()]


def execute(capsys, sb, plan, rollback, *extra):
    return kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                  "--throttle", "1MB/s", "--replica-alter-log-dirs-throttle", "1MB/s", "--rollback-file", rollback,
                  *extra)


@pytest.mark.parametrize("additional", [False, True], ids=["plain", "additional"])
def test_execute_twice_while_running(sb, tmp_path, capsys, records, additional):
    plan = write_plan(tmp_path, PLAN)
    code, out, err = execute(capsys, sb, plan, tmp_path / "rb1.json")
    assert code == 0, err
    record = records.load_all()
    configs = sb.snapshot()
    sb.clock.advance(1)
    sb.clear_requests()
    code, out, err = execute(capsys, sb, plan, tmp_path / "rb2.json", *(["--additional"] if additional else []))
    assert code == 0, err
    assert "already moving to" in out and "with the throttles asked for" in out, out  # says what is in place
    assert mutating(sb) == []  # nothing re-sent: no second reassignment, move or config change
    assert records.load_all() == record  # the record is the same
    assert throttles_left(sb.snapshot()) == throttles_left(configs)
    assert not (tmp_path / "rb2.json").exists()  # nothing changed, so nothing to roll back
    settle(sb)
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0, err
    assert throttles_left(sb.snapshot()) == {} and records.load_all() == {}


def test_execute_twice_after_it_finished(sb, tmp_path, capsys, records):
    plan = write_plan(tmp_path, PLAN)
    assert execute(capsys, sb, plan, tmp_path / "rb1.json")[0] == 0
    settle(sb)
    assert kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)[0] == 0
    sb.clear_requests()
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--rollback-file", tmp_path / "rb2.json")
    assert code == 0, err
    assert out.strip() == "Nothing to change: every partition of the plan already has its replicas and directories."
    assert mutating(sb) == []
    # With --throttle: no move needs one, so none is set and no record is written.
    code, out, err = execute(capsys, sb, plan, tmp_path / "rb3.json")
    assert code == 0, err
    assert mutating(sb) == [] and records.load_all() == {} and throttles_left(sb.snapshot()) == {}


def test_execute_other_plan_with_additional_keeps_both_records(sb, tmp_path, capsys, records):
    """A second plan added with --additional merges its throttles; verify of the first removes
    only what the first needs no more, and the second's record stays whole."""
    first = write_plan(tmp_path, [PLAN[0]], "first.json")
    second = write_plan(tmp_path, [{"topic": "bar", "partition": 0, "replicas": [3, 0]}], "second.json")

    def execute(capsys, sb, plan, rollback, *extra):  # neither plan moves a replica between directories
        return kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                      "--throttle", "1MB/s", "--rollback-file", rollback, *extra)

    assert execute(capsys, sb, first, tmp_path / "rb1.json")[0] == 0
    code, out, err = execute(capsys, sb, second, tmp_path / "rb2.json", "--additional")
    assert code == 0, err
    assert len(records.load_all()) == 2
    snap = sb.snapshot()
    assert snap.topic_configs["foo"].get("follower.replication.throttled.replicas")
    assert snap.topic_configs["bar"].get("follower.replication.throttled.replicas")
    settle(sb)
    for plan in (first, first, second, second):  # verify twice each
        code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
        assert code == 0, err
    assert throttles_left(sb.snapshot()) == {} and records.load_all() == {}


def test_cancel_twice(sb, tmp_path, capsys, records):
    plan = write_plan(tmp_path, PLAN)
    assert execute(capsys, sb, plan, tmp_path / "rb1.json")[0] == 0
    code, out, err = kadmin(capsys, "reassign", "cancel", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0, err
    assert "Cancelling:" in out
    sb.clear_requests()
    code, out, err = kadmin(capsys, "reassign", "cancel", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0, err
    assert "Nothing to cancel" in out
    assert mutating(sb) == []
    settle(sb)
    code, out, err = kadmin(capsys, "reassign", "cancel", "--all", "-b", sb.bootstrap, "-o", "json")
    assert code == 0 and json.loads(out)["cancelled"] == [], err


def test_verify_and_throttle_clear_twice(sb, tmp_path, capsys, records):
    plan = write_plan(tmp_path, PLAN)
    assert execute(capsys, sb, plan, tmp_path / "rb1.json")[0] == 0
    # Clear while moving: nothing a running move needs is removed, and it says so.
    sb.clear_requests()
    code, out, err = kadmin(capsys, "throttle", "clear", "--plan", plan, "-b", sb.bootstrap)
    assert code == 0, err
    assert mutating(sb) == [] and records.load_all()
    settle(sb)
    code, out, err = kadmin(capsys, "throttle", "clear", "--plan", plan, "-b", sb.bootstrap)
    assert code == 0, err
    assert throttles_left(sb.snapshot()) == {} and records.load_all() == {}
    sb.clear_requests()
    code, out, err = kadmin(capsys, "throttle", "clear", "--plan", plan, "-b", sb.bootstrap)
    assert code == 0, err
    assert "nothing to remove" in err and mutating(sb) == []
    for _ in range(2):
        code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
        assert code == 0 and "Removed throttles" not in out, err
    code, out, err = kadmin(capsys, "throttle", "clear", "--stale", "-b", sb.bootstrap)
    assert code == 0, err
    assert mutating(sb) == []
