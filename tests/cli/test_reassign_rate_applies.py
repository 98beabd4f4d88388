"""`reassign execute` with a rate that has nothing to throttle says so, by `throttle set`'s rule
(kadmin.plan.validate): --throttle with a plan that moves no replica between brokers (only
between the directories of one), --replica-alter-log-dirs-throttle with a plan that moves none
between directories. Execute used to drop either rate without a word. It warns (before any
change, --dry-run and --output json alike) and goes on: as with Kafka's tool, a script may pass
both rates for every plan. `throttle set`, which sets nothing but rates, refuses the same plan.
A run that sends nothing at all (the same command run again once the plan is in place) still
says "Nothing to change". Against the sandbox, over the wire."""

import json

import pytest

from tests.support.cli import kadmin, write_plan
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

MB = 1_000_000


@pytest.fixture
def sb(sandbox_factory):  # noqa: F811
    sb = sandbox_factory(brokers=3, log_dirs=2, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1, 2], 1: [1, 2, 0]}, size_bytes=10 * MB)
    sb.create_topic("clicks", assignment={0: [0, 1]}, size_bytes=10 * MB)
    sb.clear_requests()
    return sb


def log_dir_plan(sb, tmp_path):
    """orders-0 stays on brokers 0, 1, 2; broker 0's replica moves to its other directory."""
    here = sb.snapshot().replica_dir("orders", 0, 0)
    there = next(p for p in sb.log_dir_paths(0) if p != here)
    return write_plan(tmp_path, [{"topic": "orders", "partition": 0, "replicas": [0, 1, 2],
                                  "log_dirs": [there, "any", "any"]}], name="dirs.json")


def broker_plan(tmp_path):
    """clicks-0 [0,1] -> [2,1]: no directory named."""
    return write_plan(tmp_path, [{"topic": "clicks", "partition": 0, "replicas": [2, 1]}], name="brokers.json")


def warned(capsys, sb, tmp_path, plan, flag, rate, reason, kind):
    """Every form warns (stderr, before any change) and sets no rate of that kind; the run goes on."""
    for extra in (["--dry-run"], ["-o", "json", "--dry-run"], []):
        code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, flag, rate, *extra,
                                "-b", sb.bootstrap, "--rollback-file", str(tmp_path / f"rb{len(extra)}.json"))
        assert code == 0, out + err
        assert f"kadmin: warning: {flag}: {reason}, so {flag} has nothing to throttle: no {kind} rate is set (" in err
    names = {"leader.replication.throttled.rate", "follower.replication.throttled.rate"} if kind == "replication" \
        else {"replica.alter.log.dirs.io.max.bytes.per.second"}
    assert not {n for configs in sb.snapshot().broker_configs.values() for n in configs} & names


def test_throttle_for_a_plan_moving_no_replica_between_brokers_is_set_nowhere_and_said(sb, tmp_path, capsys):
    plan = log_dir_plan(sb, tmp_path)
    warned(capsys, sb, tmp_path, plan, "--throttle", "50MB/s", "the plan moves no replica between brokers",
           "replication")
    # throttle set, which sets nothing but rates, refuses the same plan
    code, _, err = kadmin(capsys, "throttle", "set", "--from-plan", plan, "--rate", "50MB/s", "-b", sb.bootstrap)
    assert code == 2 and "the plan moves no replica between brokers" in err


def test_log_dir_throttle_for_a_plan_moving_no_replica_between_directories_is_set_nowhere_and_said(
    sb, tmp_path, capsys
):
    plan = broker_plan(tmp_path)
    warned(capsys, sb, tmp_path, plan, "--replica-alter-log-dirs-throttle", "20MB/s",
           "the plan moves no replica between log directories (no log_dirs target that is not already in place)",
           "log-dir")
    code, _, err = kadmin(capsys, "throttle", "set", "--from-plan", plan, "--log-dir-rate", "20MB/s",
                          "-b", sb.bootstrap)
    assert code == 2 and "the plan moves no replica between log directories" in err


def test_each_rate_with_moves_of_its_kind_still_applies(sb, tmp_path, capsys):
    plan = log_dir_plan(sb, tmp_path)
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan,
                            "--replica-alter-log-dirs-throttle", "20MB/s", "-b", sb.bootstrap)
    assert code == 0, err
    assert "  done    broker 0 replica.alter.log.dirs.io.max.bytes.per.second: (not set) -> 20000000 (20.0 MB/s)" in out
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", broker_plan(tmp_path),
                            "--throttle", "50MB/s", "-b", sb.bootstrap, "-o", "json")
    assert code == 0, err
    assert {c["name"] for c in json.loads(out)["changes"] if c["kind"] == "config"} >= {
        "leader.replication.throttled.rate", "follower.replication.throttled.rate"}


def test_the_same_command_run_again_once_in_place_says_nothing_to_change(sb, tmp_path, capsys):
    """Nothing is sent, so nothing is throttled either: "Nothing to change", exit 0, as a
    repeated execute has always said (README: the same command can simply be run again)."""
    plan = log_dir_plan(sb, tmp_path)
    assert kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap)[0] == 0
    sb.clock.advance(600)
    sb.wait_for(lambda snap: not any(d.futures for b in snap.brokers.values() for d in b.dirs.values()))
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--throttle", "50MB/s",
                            "-b", sb.bootstrap)
    assert code == 0, err
    assert out.strip() == ("Nothing to change: every partition of the plan already has its replicas and directories. "
                           "Nothing moves, so no throttle is set.")
