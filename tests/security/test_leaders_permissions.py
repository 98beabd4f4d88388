"""A principal short of a CLUSTER permission, against the sandbox's authorizer (Kafka's checks:
ElectLeaders, AlterPartitionReassignments and AlterReplicaLogDirs need ALTER on CLUSTER;
ListPartitionReassignments and DescribeLogDirs need DESCRIBE). The error names the permission;
`leaders show` without DESCRIBE still shows the leaders, which come from Metadata."""

from __future__ import annotations

import json

import pytest

from kadmin.backends.admin_errors import permission_hint
from kadmin.sandbox import Sandbox
from tests.support.cli import run_as

PASSWORDS = {"admin": "adm1n-Pw-3391", "viewer": "v1ewer-Pw-4402", "nobody": "n0body-Pw-5513"}


@pytest.fixture(scope="module")
def sandbox():
    sb = Sandbox(
        brokers=2,
        log_dirs=1,
        manual_clock=True,
        sasl_users=PASSWORDS,
        super_users={"admin"},
        cluster_acls={"viewer": {"DESCRIBE"}},
    ).start()
    sb.create_topic("orders", assignment={0: [0, 1], 1: [1, 0]})
    sb.faults.broker_stop(0)
    sb.faults.broker_start(0)
    sb.clock.advance(1)
    sb.settle()  # orders-0 led by 1, its preferred replica 0 back in the ISR
    yield sb
    sb.stop()


def run(sb, tmp_path, user, *args):
    return run_as(sb, tmp_path, user, PASSWORDS[user], *args)


@pytest.mark.parametrize("user", ["viewer", "nobody"])
def test_elect_without_alter_names_alter_on_cluster(sandbox, tmp_path, user):
    result = run(sandbox, tmp_path, user, "leaders", "elect", "--preferred", "--all-topic-partitions")
    assert result.exit_code == 1, result.output
    line = result.stderr.strip().splitlines()[-1]
    assert "CLUSTER_AUTHORIZATION_FAILED" in line and "the principal needs ALTER on CLUSTER" in line, line
    assert sandbox.snapshot().partition("orders", 0).leader == 1  # nothing elected


def test_show_without_describe_shows_the_leaders_and_says_what_it_lacks(sandbox, tmp_path):
    result = run(sandbox, tmp_path, "nobody", "leaders", "show", "-o", "json")
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert [(p["topic"], p["partition"], p["leader"]) for p in doc["partitions"] if p["not_preferred"]] == [
        ("orders", 0, 1)
    ]
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("kadmin: error: listing reassignments: CLUSTER_AUTHORIZATION_FAILED"), line
    assert "shown without them" in line and "the principal needs DESCRIBE on CLUSTER" in line, line
    table = run(sandbox, tmp_path, "nobody", "leaders", "show")
    assert table.exit_code == 1 and "Leaders per broker" in table.stdout
    assert run(sandbox, tmp_path, "viewer", "leaders", "show").exit_code == 0


@pytest.mark.parametrize(
    "what,needs",
    [
        ("electing leaders (PREFERRED)", "ALTER"),
        ("starting reassignments", "ALTER"),
        ("cancelling reassignments", "ALTER"),
        ("moving replicas between log directories on broker 1", "ALTER"),
        ("listing reassignments", "DESCRIBE"),
        ("describing log directories", "DESCRIBE"),
        ("describing configs of broker 0", "DESCRIBE_CONFIGS"),
        ("changing configs of broker 0", "ALTER_CONFIGS"),
    ],
)
def test_each_refused_request_names_its_permission(what, needs):
    assert permission_hint("CLUSTER_AUTHORIZATION_FAILED", what) == f"the principal needs {needs} on CLUSTER"


@pytest.mark.parametrize("what,needs", [("starting reassignments", "ALTER"), ("listing reassignments", "DESCRIBE")])
def test_kafka_python_refusals_name_their_permission_too(what, needs):
    from kafka.errors import ClusterAuthorizationFailedError

    from kadmin.backends.admin_errors import cluster_error

    assert cluster_error(ClusterAuthorizationFailedError(), what).hint == f"the principal needs {needs} on CLUSTER"
