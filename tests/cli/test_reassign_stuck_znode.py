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
import time

import jsonschema
import pytest

from kadmin.backends.zk_reassign import STUCK_AFTER_SECONDS
from kadmin.backends.zookeeper import ZooKeeperBackend
from kadmin.schemas import load
from tests.support.cli import kadmin, write_plan
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

pytestmark = pytest.mark.zookeeper
VERSIONS = ["2.8", "3.3", "3.9"]


class BackendClock:
    """The ZooKeeper backend's clock (it ages the node against ZooKeeper's ctime): real time plus
    what a test adds."""

    def __init__(self):
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead


@pytest.fixture(params=VERSIONS, ids=[f"kafka{v}" for v in VERSIONS])
def stuck(request, sandbox_factory, zk_connect, tmp_path, monkeypatch, capsys):  # noqa: F811
    """foo-0 moving to [3,1] (held: manual clock); foo-1 -> [3,2] written to a node the controller
    does not watch any more."""
    from kazoo.client import KazooClient

    sb = sandbox_factory(brokers=4, log_dirs=2, manual_clock=True, kafka_version=request.param, zookeeper=zk_connect)
    sb.create_topic("foo", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=10_000_000)
    sb.zk = ["--zookeeper", zk_connect]
    sb.backend_clock = BackendClock()
    monkeypatch.setitem(ZooKeeperBackend.__init__.__kwdefaults__, "clock", sb.backend_clock)
    sb.running = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}], "running.json")
    sb.waiting = write_plan(tmp_path, [{"topic": "foo", "partition": 1, "replicas": [3, 2]}], "waiting.json")
    code, _, err = kadmin(
        capsys, "reassign", "execute", "--reassignment-json-file", sb.running, "--throttle", "1MB/s", *sb.zk
    )
    assert code == 0, err
    sb.settle()
    zk = KazooClient(hosts=zk_connect)
    zk.start(timeout=15)
    try:
        zk.delete("/admin/reassign_partitions")  # by hand: the controller's watch fires and is not set again
    finally:
        zk.stop()
        zk.close()
    sb.settle()
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", sb.waiting, "--additional", *sb.zk)
    assert code == 0, err
    sb.settle()
    snap = sb.snapshot()
    assert snap.partition("foo", 1).replicas == (1, 2)  # not taken
    assert snap.partition("foo", 0).replicas == (3, 1, 0)  # still moving
    return sb


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
