"""`reassign execute --wait | --incremental` and `reassign verify` with --elect-preferred: a plan
that reorders replicas leaves the old leaders in place (as Kafka does) until the preferred
election kadmin runs once the plan is complete; --incremental elects at most
--max-leader-movements partitions at a time (KIP-435)."""

import json

import jsonschema
import pytest

from kadmin.schemas import load
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)
from tests.support.cli import kadmin

REORDER = [{"topic": "t", "partition": 0, "replicas": [1, 0, 2]},
           {"topic": "t", "partition": 1, "replicas": [2, 1, 0]},
           {"topic": "t", "partition": 2, "replicas": [0, 2, 1]}]


def leaders(sb):
    snap = sb.snapshot()
    return [snap.partition("t", p).leader for p in range(3)]


@pytest.fixture
def sb(sandbox_factory):  # noqa: F811
    sb = sandbox_factory(brokers=3, log_dirs=1, speed=50.0)
    sb.create_topic("t", assignment={0: [0, 1, 2], 1: [1, 2, 0], 2: [2, 0, 1]})
    return sb


def plan_file(tmp_path):
    p = tmp_path / "plan.json"
    p.write_text(json.dumps({"version": 1, "partitions": REORDER}))
    return str(p)


def test_execute_wait_elect_preferred(sb, tmp_path, capsys):
    args = ["reassign", "execute", "--reassignment-json-file", plan_file(tmp_path), "--wait", "--interval", "0.1s",
            "--rollback-file", str(tmp_path / "rb.json"), "--bootstrap-server", sb.bootstrap]
    code, out, err = kadmin(capsys, *args, "--elect-preferred", "-o", "json")
    assert code == 0, err
    last = json.loads(out.strip().splitlines()[-1])
    jsonschema.validate(last, load("reassign-verify-result"))
    assert {(e["topic"], e["partition"]) for e in last["preferred_election"]["elected"]} == {("t", 0), ("t", 1), ("t", 2)}
    assert leaders(sb) == [1, 2, 0]


def test_without_the_flag_the_old_leaders_stay(sb, tmp_path, capsys):
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan_file(tmp_path), "--wait",
                          "--interval", "0.1s", "--rollback-file", str(tmp_path / "rb.json"),
                          "--bootstrap-server", sb.bootstrap)
    assert code == 0, err
    assert leaders(sb) == [0, 1, 2]
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan_file(tmp_path),
                            "--elect-preferred", "--bootstrap-server", sb.bootstrap)
    assert code == 0, err
    assert "Successfully completed leader election (PREFERRED) for partitions t-0, t-1, t-2" in out
    assert leaders(sb) == [1, 2, 0]


def test_a_failed_election_in_json_points_at_the_document_not_at_lines_above(sb, tmp_path, capsys):
    """verify --elect-preferred -o json with broker 1, t-0's preferred leader, down: the
    failure is in the JSON only, and the error line's hint says where (stderr has nothing above
    it: no 'see the lines above')."""
    from tests.cli.test_throttle_down_brokers import admin, await_broker_gone

    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan_file(tmp_path), "--wait",
                          "--interval", "0.1s", "--rollback-file", str(tmp_path / "rb.json"),
                          "--bootstrap-server", sb.bootstrap)
    assert code == 0, err
    sb.faults.broker_stop(1)
    await_broker_gone(lambda: admin(sb), 1)
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan_file(tmp_path),
                            "--elect-preferred", "-o", "json", "--bootstrap-server", sb.bootstrap)
    assert code == 1, err
    failed = json.loads(out.strip().splitlines()[-1])["preferred_election"]["failed"]
    assert ("t", 0) in {(f["topic"], f["partition"]) for f in failed}
    assert "could not get" in err and "preferred_election.failed" in err and "lines above" not in err, err


def test_incremental_elects_at_most_max_leader_movements_at_a_time(sb, tmp_path, capsys):
    sb.clear_requests()
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan_file(tmp_path),
                            "--incremental", "--max-leader-movements", "1", "--elect-preferred",
                            "--state-file", str(tmp_path / "state.json"), "--rollback-file", str(tmp_path / "rb.json"),
                            "-o", "json", "--bootstrap-server", sb.bootstrap)
    assert code == 0, err
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-execute-incremental-result"))
    assert doc["preferred_election"]["batches"] == 3
    assert len([r for r in sb.requests if r[1] == "ElectLeaders"]) == 3
    assert leaders(sb) == [1, 2, 0]


def test_elect_preferred_needs_the_plan_complete(sb, tmp_path, capsys):
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan_file(tmp_path),
                          "--elect-preferred", "--bootstrap-server", sb.bootstrap)
    assert code == 2 and "--wait or --incremental" in err


@pytest.mark.zookeeper
def test_verify_elect_preferred_over_zookeeper(sandbox_factory, zk_connect, tmp_path, capsys):  # noqa: F811
    sb = sandbox_factory(brokers=3, log_dirs=1, speed=50.0, zookeeper=zk_connect)
    sb.create_topic("t", assignment={0: [0, 1, 2], 1: [1, 2, 0], 2: [2, 0, 1]})
    sb.settle()
    plan = plan_file(tmp_path)
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--wait",
                          "--interval", "0.1s", "--elect-preferred", "--rollback-file", str(tmp_path / "rb.json"),
                          "--zookeeper", zk_connect)
    assert code == 0, err
    assert leaders(sb) == [1, 2, 0]
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "--elect-preferred",
                            "--zookeeper", zk_connect)
    assert code == 0, err
    assert "Every partition of the plan is led by its preferred replica." in out
