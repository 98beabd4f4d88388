"""A stuck /admin/reassign_partitions on the ZooKeeper-mode sandbox, for the tests of what kadmin
says of it (KAFKA-FACTS.md: deleting the node by hand while a reassignment runs leaves Kafka's
controller without its watch; a node written after that is never read).
"""

from __future__ import annotations

import time

import pytest

from kadmin.backends.zookeeper import ZooKeeperBackend
from tests.support.cli import kadmin, write_plan

VERSIONS = ["2.8", "3.3", "3.9"]


class BackendClock:
    """The ZooKeeper backend's clock (it ages the node against ZooKeeper's ctime): real time plus
    what a test adds."""

    def __init__(self):
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead


@pytest.fixture(params=VERSIONS, ids=[f"kafka{v}" for v in VERSIONS])
def stuck(request, sandbox_factory, zk_connect, tmp_path, monkeypatch, capsys):
    """foo-0 moving to [3,1] at 1MB/s (plan "running": rates on brokers 0, 1 and 3; held by the
    manual clock); foo-1 -> [3,2] written to a node the controller does not watch any more."""
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
