"""``reassign verify`` over --zookeeper next to a stuck /admin/reassign_partitions that holds none
of the plan's partitions as a request: it says what ``reassign list`` and ``progress`` say of the
node (a warning on stderr; in its JSON document, ``reassignments_blocked``), and keeps its verdict
and exit code.

A node carrying ``log_dirs`` is rejected by the controller's parser and stays, doing nothing
(KAFKA-FACTS.md): nothing lists its entries as reassignments, so the plan's partition is only
"differing" (exit 4), and no new reassignment can start until the node is removed.
"""

from __future__ import annotations

import json

import jsonschema
import pytest

from kadmin.schemas import load
from tests.support.cli import kadmin, write_plan
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

pytestmark = pytest.mark.zookeeper

NODE = "/admin/reassign_partitions"
STUCK = "/admin/reassign_partitions exists but looks stuck: its content is invalid"
WAY_OUT = "delete /admin/reassign_partitions and force a controller election (delete /controller)"
VERDICT = "There is no active reassignment of partition orders-1, but replica set is 1,2,3 rather than 0,1,2."


@pytest.fixture
def invalid_node(sandbox_factory, zk_connect, tmp_path):  # noqa: F811
    """orders-1 on [1,2,3]; a node by hand asking for it on [0,1,2] with log_dirs (ignored)."""
    from kazoo.client import KazooClient

    sb = sandbox_factory(brokers=4, log_dirs=2, kafka_version="3.3", zookeeper=zk_connect)
    sb.create_topic("orders", assignment={0: [0, 1, 2], 1: [1, 2, 3]})
    sb.zk = ["--zookeeper", zk_connect]
    sb.plan = write_plan(tmp_path, [{"topic": "orders", "partition": 1, "replicas": [0, 1, 2]}], "o1.json")
    node = {
        "version": 1,
        "partitions": [{"topic": "orders", "partition": 1, "replicas": [0, 1, 2], "log_dirs": ["any"] * 3}],
    }
    zk = KazooClient(hosts=zk_connect)
    zk.start(timeout=15)
    try:
        zk.create(NODE, json.dumps(node).encode(), makepath=True)
    finally:
        zk.stop()
        zk.close()
    return sb


def test_verify_warns_of_the_stuck_node_as_list_does_and_keeps_its_verdict(invalid_node, capsys):
    sb = invalid_node
    code, _, listed = kadmin(capsys, "reassign", "list", *sb.zk)
    assert code == 0 and STUCK in listed
    said = next(line for line in listed.splitlines() if STUCK in line)
    for extra in ((), ("--preserve-throttles",)):
        code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", sb.plan, *sb.zk, *extra)
        assert code == 4, (extra, out, err)
        assert out == f"Status of partition reassignment:\n{VERDICT}\n"
        assert said in err.splitlines() and WAY_OUT in err  # list's words, on stderr
        assert "kadmin: error: nothing of this plan is moving, but 1 partition" in err


def test_verify_json_carries_the_stuck_node(invalid_node, capsys):
    sb = invalid_node
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", sb.plan, *sb.zk, "-o", "json")
    assert code == 4, out + err
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-verify-result"))
    assert doc["state"] == "differs" and doc["partitions"][0]["message"] == VERDICT
    blocked = doc["reassignments_blocked"]
    assert blocked["reason"].startswith(STUCK) and WAY_OUT in blocked["hint"]
    assert STUCK in err


def test_no_node_no_word_of_it(sandbox_factory, zk_connect, tmp_path, capsys):  # noqa: F811
    sb = sandbox_factory(brokers=4, log_dirs=2, kafka_version="3.3", zookeeper=zk_connect)
    sb.create_topic("orders", assignment={0: [0, 1, 2], 1: [1, 2, 3]})
    plan = write_plan(tmp_path, [{"topic": "orders", "partition": 1, "replicas": [0, 1, 2]}], "o1.json")
    code, out, err = kadmin(
        capsys, "reassign", "verify", "--reassignment-json-file", plan, "--zookeeper", zk_connect, "-o", "json"
    )
    assert code == 4, out + err
    assert "reassignments_blocked" not in json.loads(out) and NODE not in err
