"""Over the AdminClient protocol each resource of an IncrementalAlterConfigs batch succeeds or
fails on its own (the sandbox's authorizer, as Kafka's: a broker's configs need ALTER_CONFIGS on
CLUSTER, a topic's are not limited here). A user without ALTER_CONFIGS sets the topics'
throttled-replica lists and is refused the broker rates: the lists are printed as done and
claimed by kadmin's record, the refusal names the broker and the permission."""

from __future__ import annotations

import json

import pytest

from kadmin.sandbox import Sandbox
from tests.support.cli import run_as

PASSWORDS = {"admin": "adm1n-Pw-3391", "mover": "m0ver-Pw-6624", "looker": "l00ker-Pw-1187"}


@pytest.fixture(scope="module")
def sandbox():
    sb = Sandbox(
        brokers=3,
        log_dirs=1,
        sasl_users=PASSWORDS,
        super_users={"admin"},
        cluster_acls={"mover": {"ALTER", "DESCRIBE", "DESCRIBE_CONFIGS"}, "looker": {"DESCRIBE", "DESCRIBE_CONFIGS"}},
    ).start()
    sb.create_topic("orders", assignment={0: [0, 1], 1: [1, 2]})
    yield sb
    sb.stop()


def run(sb, tmp_path, user, *args):
    return run_as(sb, tmp_path, user, PASSWORDS[user], *args)


def test_the_topic_lists_set_before_a_refused_broker_rate_are_printed_and_recorded(sandbox, tmp_path):
    # kadmin's record topic, created by an admin (creating it needs CREATE)
    assert run(sandbox, tmp_path, "admin", "throttle", "set", "--rate", "1MB/s", "--brokers", "2").exit_code == 0
    assert run(sandbox, tmp_path, "admin", "throttle", "clear", "--all", "--yes").exit_code == 0
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": [2, 1]}]}))
    result = run(sandbox, tmp_path, "mover", "reassign", "execute", "--reassignment-json-file", str(plan),
                 "--throttle", "10MB/s", "--rollback-file", str(tmp_path / "rb.json"))
    assert result.exit_code == 1, result.output
    assert "done    topic orders leader.replication.throttled.replicas: (not set) -> 0:0,0:1" in result.stdout, result.stdout
    assert "done    topic orders follower.replication.throttled.replicas: (not set) -> 0:2" in result.stdout
    assert "broker" not in result.stdout.split("Changes:")[1]  # no rate was set
    line = result.stderr.strip().splitlines()[-1]
    assert "changing configs of broker 0: CLUSTER_AUTHORIZATION_FAILED" in line, line
    assert "ALTER_CONFIGS on CLUSTER" in line, line
    assert f"`kadmin throttle clear --plan {plan}` removes them" in line, line
    # kadmin's record claims what was set, the lists and no rate: clear --plan removes exactly them
    cleared = run(sandbox, tmp_path, "admin", "throttle", "clear", "--plan", str(plan), "--yes")
    assert cleared.exit_code == 0, cleared.output
    assert "topic orders leader.replication.throttled.replicas: 0:0,0:1 -> (deleted)" in cleared.stdout, cleared.stdout
    assert "broker" not in cleared.stdout



def test_a_reassignment_refused_as_a_whole_keeps_no_rollback_file(sandbox, tmp_path):
    """AlterPartitionReassignments needs ALTER on CLUSTER; Kafka checks it before it acts on any
    partition, so a refusal moves nothing and the rollback file is removed again, as for any run
    that moved no replica (it was kept: a raised error counted as 'may have moved')."""
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [{"topic": "orders", "partition": 1, "replicas": [2, 0]}]}))
    rollback = tmp_path / "rb.json"
    result = run(sandbox, tmp_path, "looker", "reassign", "execute", "--reassignment-json-file", str(plan),
                 "--rollback-file", str(rollback))
    assert result.exit_code == 1, result.output
    assert "CLUSTER_AUTHORIZATION_FAILED" in result.stderr and "ALTER on CLUSTER" in result.stderr, result.stderr
    assert not rollback.exists()
    assert "no rollback file was kept" in result.stderr or "was removed again" in result.output, result.output
