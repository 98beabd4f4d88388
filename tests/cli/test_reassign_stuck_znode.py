"""``reassign list`` and ``verify`` over --zookeeper with a stuck /admin/reassign_partitions.

Deleting the node by hand while a reassignment runs leaves Kafka's controller without its watch
(KAFKA-FACTS.md): a node written after that is never read, and its entries are requests the
controller has not taken, not reassignments in progress on any broker (the topic znode names no
adding or removing replica; a broker's ListPartitionReassignments does not list them). Once the
node is old enough to be called stuck, ``list`` lists them apart as waiting and ``verify`` of
their plan is an error naming the node and the way out (exit 1), not "still in progress" (3)
for ever. A reassignment really running next to it stays listed and in progress. At every
Kafka version with ZooKeeper mode the sandbox emulates.
"""

from __future__ import annotations

import json

import jsonschema
import pytest

from kadmin.backends.zk_reassign import STUCK_AFTER_SECONDS
from kadmin.schemas import load
from tests.support.cli import kadmin
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)
from tests.support.stuck_znode import stuck  # noqa: F401  (fixture)

pytestmark = pytest.mark.zookeeper


def test_list_sets_requests_nobody_carries_out_apart_from_running_reassignments(stuck, capsys):
    stuck.backend_clock.ahead = STUCK_AFTER_SECONDS + 1
    code, out, err = kadmin(capsys, "reassign", "list", *stuck.zk)
    assert code == 0, err
    assert "/admin/reassign_partitions exists but looks stuck" in err and "delete /controller" in err
    assert out == (
        "Current partition reassignments:\n"
        "foo-0: replicas: 3,1,0. adding: 3. removing: 0.\n"
        "Requested, but no broker is carrying these out (stuck: see the warning):\n"
        "foo-1: replicas: 1,2. requested: 3,2.\n"
    )
    code, out, err = kadmin(capsys, "reassign", "list", *stuck.zk, "-o", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-list-result"))
    assert doc["waiting"] == [{"topic": "foo", "partition": 1, "replicas": [1, 2], "target": [3, 2]}]
    # What runs is what the brokers' own ListPartitionReassignments says runs.
    code, by_broker, err = kadmin(capsys, "reassign", "list", "-b", stuck.bootstrap, "-o", "json")
    assert code == 0, err
    assert doc["reassignments"] == json.loads(by_broker)["reassignments"] != []


def test_verify_of_a_plan_only_requested_in_the_stuck_node_is_an_error_with_the_way_out(stuck, capsys):
    # Younger than the threshold the controller may simply not have read it yet: in progress.
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", stuck.waiting, *stuck.zk)
    assert code == 3 and "Reassignment of partition foo-1 is still in progress." in out, out + err
    stuck.backend_clock.ahead = STUCK_AFTER_SECONDS + 1
    for extra in ((), ("-o", "json"), ("--preserve-throttles",)):
        code, out, err = kadmin(
            capsys, "reassign", "verify", "--reassignment-json-file", stuck.waiting, *stuck.zk, *extra
        )
        assert code == 1 and out == "", (extra, out, err)
        assert "kadmin: error: /admin/reassign_partitions exists but looks stuck" in err
        assert "this plan's foo-1 is requested there, but no broker is moving it" in err
        assert "delete /admin/reassign_partitions and force a controller election (delete /controller)" in err
        assert "still in progress" not in err
    # The reassignment really running is still in progress, stuck node or not.
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", stuck.running, *stuck.zk)
    assert code == 3 and "Reassignment of partition foo-0 is still in progress." in out, out + err
