"""`reassign execute --additional --replica-alter-log-dirs-throttle RATE` on a plan whose log-dir
moves are running changes their rate, as Kafka's tool does (it sets the log-dir throttle on
every broker the plan names a directory on, moving or not; `--additional` "can also be used to
change the throttle of an ongoing reassignment"). The broker config is dynamic (KIP-113): the
move goes on at the new rate at once. It used to say "Nothing to change ... with the throttles
asked for" and leave the old rate. Against the sandbox (it paces a move at the broker's current
rate), on a manual clock."""

import json

import jsonschema
import pytest

from kadmin.schemas import load
from tests.support.cli import kadmin
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

MB = 1_000_000
LOG_DIR_RATE = "replica.alter.log.dirs.io.max.bytes.per.second"


@pytest.fixture
def sb(sandbox_factory):  # noqa: F811
    sb = sandbox_factory(brokers=3, log_dirs=2, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1, 2]}, size_bytes=100 * MB)
    return sb


def copied(sb, seconds):
    """Bytes the future replica of orders-0 on broker 0 grows by in ``seconds`` of the sandbox."""
    before = sb.snapshot().future_replica("orders", 0, 0)[1].size
    sb.clock.advance(seconds)
    return sb.snapshot().future_replica("orders", 0, 0)[1].size - before


def test_additional_changes_the_rate_of_the_running_log_dir_move(sb, tmp_path, capsys):
    here = sb.snapshot().replica_dir("orders", 0, 0)
    there = next(p for p in sb.log_dir_paths(0) if p != here)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "orders", "partition": 0, "replicas": [0, 1, 2], "log_dirs": [there, "any", "any"]}]}))
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--replica-alter-log-dirs-throttle", "1MB/s", "--rollback-file", tmp_path / "rb1.json")
    assert code == 0, err
    sb.wait_for(lambda s: s.future_replica("orders", 0, 0) is not None)
    assert copied(sb, 2) == pytest.approx(2 * MB, rel=0.1)

    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--replica-alter-log-dirs-throttle", "10MB/s", "--additional",
                            "--rollback-file", tmp_path / "rb2.json")
    assert code == 0, err
    assert f"  done    broker 0 {LOG_DIR_RATE}: 1000000 -> 10000000 (10.0 MB/s)" in out, out
    assert "Nothing to change" not in out
    assert sb.snapshot().broker_configs["0"][LOG_DIR_RATE] == "10000000"
    assert copied(sb, 2) == pytest.approx(20 * MB, rel=0.1)  # the same move, at the new rate

    # Once the move is done, the same command sets nothing: nothing moves there any more.
    sb.clock.advance(20)
    sb.wait_for(lambda s: s.future_replica("orders", 0, 0) is None and s.replica_dir("orders", 0, 0) == there)
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--replica-alter-log-dirs-throttle", "20MB/s", "--additional",
                            "--rollback-file", tmp_path / "rb3.json")
    assert code == 0, err
    assert "Nothing to change" in out
    assert sb.snapshot().broker_configs["0"][LOG_DIR_RATE] == "10000000"


def test_each_rate_change_says_the_value_it_replaces_as_throttle_set_does(sb, tmp_path, capsys):
    """A rate set by hand, then a plan run at another rate: every form execute says a change in
    (the lines of a run and of --dry-run, and their JSON) names the value it replaces, in
    ``throttle set``'s words. Execute used to say "set broker 0 <config>=10000000" and nothing of
    the 1000000 it replaced (which its rollback restores)."""
    here = sb.snapshot().replica_dir("orders", 0, 0)
    there = next(p for p in sb.log_dir_paths(0) if p != here)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "orders", "partition": 0, "replicas": [0, 1, 2], "log_dirs": [there, "any", "any"]}]}))
    code, out, err = kadmin(capsys, "throttle", "set", "--log-dir-rate", "1MB/s", "--brokers", "0", "-b", sb.bootstrap)
    assert code == 0, err
    said = f"broker 0 {LOG_DIR_RATE}: 1000000 -> 10000000 (10.0 MB/s)"
    assert f"  broker 0 {LOG_DIR_RATE}: (not set) -> 1000000 (1.0 MB/s)" in out  # throttle set's own words

    run = ("reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
           "--replica-alter-log-dirs-throttle", "10MB/s", "--additional")
    code, out, err = kadmin(capsys, *run, "--dry-run")
    assert code == 0, err
    assert f"  {said}\n" in out, out
    code, out, err = kadmin(capsys, *run, "--dry-run", "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-execute-result"))
    assert [c for c in doc["changes"] if c["kind"] == "config"] == [{
        "kind": "config", "resource_type": "broker", "resource": "0", "name": LOG_DIR_RATE, "op": "set",
        "value": "10000000", "before": "1000000", "error": None}]
    assert sb.snapshot().broker_configs["0"][LOG_DIR_RATE] == "1000000"

    code, out, err = kadmin(capsys, *run, "--rollback-file", tmp_path / "rb1.json")
    assert code == 0, err
    assert f"  done    {said}\n" in out, out
    assert sb.snapshot().broker_configs["0"][LOG_DIR_RATE] == "10000000"
    code, out, err = kadmin(capsys, *run[:-3], "--replica-alter-log-dirs-throttle", "20MB/s", "--additional",
                            "--rollback-file", tmp_path / "rb2.json", "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-execute-result"))
    [change] = [c for c in doc["changes"] if c["kind"] == "config"]
    assert (change["before"], change["value"], change["error"]) == ("10000000", "20000000", None)
