"""`throttle set --from-plan --rate` with a plan that moves no replica between brokers (only
between the log directories of one): the rate goes on the brokers data is copied from and to,
and there are none, so --rate has nothing to throttle. It used to say "Nothing to change: these
throttles are already set." and exit 0, no rate anywhere; now exit 2 saying why, pointing to
--log-dir-rate, nothing changed. Against the sandbox, over the wire."""

import json

import pytest

from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)
from tests.support.cli import kadmin

MB = 1_000_000


@pytest.fixture
def sb(sandbox_factory):  # noqa: F811
    sb = sandbox_factory(brokers=3, log_dirs=2, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1, 2], 1: [1, 2, 0]}, size_bytes=10 * MB)
    sb.clear_requests()
    return sb


def log_dir_plan(sb, tmp_path):
    """orders-0 stays on brokers 0, 1, 2; broker 0's replica moves to its other directory."""
    here = sb.snapshot().replica_dir("orders", 0, 0)
    there = next(p for p in sb.log_dir_paths(0) if p != here)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "orders", "partition": 0, "replicas": [0, 1, 2], "log_dirs": [there, "any", "any"]}]}))
    return str(plan)


@pytest.mark.parametrize("rates", [["--rate", "5MB/s"], ["--leader-rate", "5MB/s", "--follower-rate", "5MB/s"]],
                         ids=["rate", "leader-follower"])
def test_a_rate_for_a_plan_moving_no_replica_between_brokers_is_refused(sb, tmp_path, capsys, rates):
    plan = log_dir_plan(sb, tmp_path)
    for extra in ([], ["--dry-run"], ["-o", "json"]):
        code, out, err = kadmin(capsys, "throttle", "set", "--from-plan", plan, *rates, *extra, "-b", sb.bootstrap)
        assert code == 2, out + err
        flag = rates[0] if rates[0] == "--rate" else "--leader-rate/--follower-rate"
        assert err.startswith(f"kadmin: error: {flag}: the plan moves no replica between brokers, so {flag} has "
                              "nothing to throttle; nothing was changed")
        assert "--log-dir-rate" in err and len(err.splitlines()) == 1
        assert "Nothing to change" not in out
    assert sb.mutating_requests() == []


def test_the_log_dir_rate_or_named_brokers_still_apply(sb, tmp_path, capsys):
    plan = log_dir_plan(sb, tmp_path)
    code, out, err = kadmin(capsys, "throttle", "set", "--from-plan", plan, "--log-dir-rate", "5MB/s",
                            "-b", sb.bootstrap)
    assert code == 0, out + err
    assert "replica.alter.log.dirs.io.max.bytes.per.second" in out
    code, out, err = kadmin(capsys, "throttle", "set", "--from-plan", plan, "--rate", "5MB/s", "--brokers", "1",
                            "--dry-run", "-b", sb.bootstrap)
    assert code == 0, out + err
    assert "broker 1 leader.replication.throttled.rate" in out


def test_the_log_dir_rate_paces_the_move_already_running(sb, tmp_path, capsys):
    """`throttle set --log-dir-rate` on a plan whose log-dir move runs: the broker's rate is
    dynamic (KIP-113), so the running move goes on at the new rate at once, and the output says
    the rate it replaced."""
    plan = log_dir_plan(sb, tmp_path)
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--replica-alter-log-dirs-throttle", "1MB/s", "--rollback-file", tmp_path / "rb.json")
    assert code == 0, err
    sb.wait_for(lambda s: s.future_replica("orders", 0, 0) is not None)

    def copied(seconds):
        before = sb.snapshot().future_replica("orders", 0, 0)[1].size
        sb.clock.advance(seconds)
        return sb.snapshot().future_replica("orders", 0, 0)[1].size - before

    assert copied(2) == pytest.approx(2 * MB, rel=0.1)
    code, out, err = kadmin(capsys, "throttle", "set", "--from-plan", plan, "--log-dir-rate", "4MB/s",
                            "-b", sb.bootstrap)
    assert code == 0, out + err
    assert "broker 0 replica.alter.log.dirs.io.max.bytes.per.second: 1000000 -> 4000000 (4.0 MB/s)" in out
    assert copied(1) == pytest.approx(4 * MB, rel=0.1)


def test_a_plan_moving_nothing_has_no_lists_to_set_and_says_so(sb, tmp_path, capsys):
    """`throttle set --from-plan` alone sets the plan's throttled-replica lists: a plan of the
    current assignment (or one already done) moves nothing, so there are none. It said "Nothing
    to change: these throttles are already set." (exit 0) while nothing was set."""
    plan = tmp_path / "current.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "orders", "partition": 0, "replicas": [0, 1, 2]}]}))
    for extra in ([], ["--dry-run"], ["-o", "json"]):
        code, out, err = kadmin(capsys, "throttle", "set", "--from-plan", str(plan), *extra, "-b", sb.bootstrap)
        assert code == 2, out + err
        assert err.startswith("kadmin: error: --from-plan: the plan moves no replica between brokers, so --from-plan "
                              "has nothing to throttle; nothing was changed"), err
        assert "already set" not in out
    assert sb.mutating_requests() == []
