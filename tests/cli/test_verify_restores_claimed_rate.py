"""A rate a live kadmin record still claims ends at that record's value when a plan that set its
own rate over it is verified: `throttle set --log-dir-rate 1MB/s --brokers 0` (the "manual"
record), then a plan run at 10MB/s on broker 0; verify puts 1000000 back. It used to delete it
(the plan's claim inherited the manual record's "nothing before"), leaving the manual record
claiming a rate that was gone. Against the sandbox, on a manual clock."""

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
    sb.create_topic("orders", assignment={0: [0, 1, 2]}, size_bytes=10 * MB)
    return sb


def test_verify_gives_back_the_rate_the_manual_record_claims(sb, tmp_path, capsys):
    here = sb.snapshot().replica_dir("orders", 0, 0)
    there = next(p for p in sb.log_dir_paths(0) if p != here)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "orders", "partition": 0, "replicas": [0, 1, 2], "log_dirs": [there, "any", "any"]}]}))
    code, out, err = kadmin(capsys, "throttle", "set", "--log-dir-rate", "1MB/s", "--brokers", "0", "-b", sb.bootstrap)
    assert code == 0, err
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--replica-alter-log-dirs-throttle", "10MB/s", "--additional",
                            "--rollback-file", tmp_path / "rb.json")
    assert code == 0, err
    assert sb.snapshot().broker_configs["0"][LOG_DIR_RATE] == "10000000"
    code, out, err = kadmin(capsys, "throttle", "show", "-b", sb.bootstrap, "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    jsonschema.validate(doc, load("throttle-show-result"))
    [plan_record] = [r for r in doc["records"] if r["plan_id"] != "manual"]
    assert plan_record["rates"] == [
        {"broker": 0, "config": LOG_DIR_RATE, "value": 10 * MB, "previous": None, "replaced": MB}]
    sb.clock.advance(5)
    sb.wait_for(lambda s: s.future_replica("orders", 0, 0) is None and s.replica_dir("orders", 0, 0) == there)

    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0, out + err
    assert f"broker 0 {LOG_DIR_RATE}: 10000000 -> 1000000 (1.0 MB/s)" in out, out
    assert sb.snapshot().broker_configs["0"].get(LOG_DIR_RATE) == "1000000"

    code, out, err = kadmin(capsys, "throttle", "show", "-b", sb.bootstrap, "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    [manual] = [r for r in doc["records"] if r["plan_id"] == "manual"]
    assert [(r["broker"], r["config"], r["value"]) for r in manual["rates"]] == [(0, LOG_DIR_RATE, MB)]
