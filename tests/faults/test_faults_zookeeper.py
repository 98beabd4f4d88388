"""ZooKeeper mode: the controller moves in the middle of a reassignment (deleting /controller
forces an election; the new controller reads the pending /admin/reassign_partitions node), and
the run finishes: execute + verify, execute run twice, and an incremental run."""

from __future__ import annotations

import json
import time

import pytest

from kadmin.execute import incremental
from tests.faults.support import MB, injected, kadmin, throttles_left, write_plan

pytestmark = pytest.mark.zookeeper


@pytest.fixture
def zsb(sandbox_factory, zk_connect):
    sb = sandbox_factory(brokers=4, log_dirs=2, manual_clock=True, zookeeper=zk_connect)
    sb.create_topic("foo", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=10 * MB)
    sb.zk_connect = zk_connect
    return sb


class ZK:
    def __init__(self, connect):
        from kazoo.client import KazooClient

        self.zk = KazooClient(hosts=connect)
        self.zk.start(timeout=15)

    def controller(self):
        if not self.zk.exists("/controller"):
            return None
        return json.loads(self.zk.get("/controller")[0])["brokerid"]

    def reassign_node(self):
        if not self.zk.exists("/admin/reassign_partitions"):
            return None
        return json.loads(self.zk.get("/admin/reassign_partitions")[0])

    def topic_config(self, topic: str) -> dict:
        """The topic's config as written in ZooKeeper (brokers apply it a moment later)."""
        if not self.zk.exists(f"/config/topics/{topic}"):
            return {}
        return json.loads(self.zk.get(f"/config/topics/{topic}")[0]).get("config", {})

    def move_controller(self):
        """Delete /controller and wait (real deadline) for the election to write it again."""
        before = self.controller()
        epoch = int(self.zk.get("/controller_epoch")[0])
        self.zk.delete("/controller")
        injected()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.controller() is not None and int(self.zk.get("/controller_epoch")[0]) > epoch:
                return before, self.controller()
            time.sleep(0.02)
        pytest.fail("no controller elected within 15s")

    def close(self):
        self.zk.stop()
        self.zk.close()


@pytest.fixture
def zk(zsb):
    z = ZK(zsb.zk_connect)
    yield z
    z.close()


def advance_until_done(sb, zk, deadline_s=20.0):
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        snap = sb.snapshot()
        if not any(p.reassigning for p in snap.partitions.values()) and zk.reassign_node() is None:
            return
        sb.clock.advance(0.5)
    pytest.fail(f"not finished within {deadline_s}s: {sb.snapshot().partitions}")


def test_controller_moves_mid_reassignment(zsb, zk, tmp_path, capsys):
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]},
                                 {"topic": "foo", "partition": 1, "replicas": [3, 2]}])
    args = ["reassign", "execute", "--reassignment-json-file", plan, "--zookeeper", zsb.zk_connect,
            "--throttle", "1MB/s"]
    code, out, err = kadmin(capsys, *args, "--rollback-file", tmp_path / "rb1.json")
    assert code == 0, err
    zsb.clock.advance(1)
    assert zk.reassign_node() is not None
    zk.move_controller()
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan,
                            "--zookeeper", zsb.zk_connect)
    assert code == 3, err
    # Executing the same plan again while it runs changes nothing and says so.
    code, out, err = kadmin(capsys, *args, "--rollback-file", tmp_path / "rb2.json")
    assert code == 0, err
    assert "Nothing to change" in out
    advance_until_done(zsb, zk)
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan,
                            "--zookeeper", zsb.zk_connect)
    assert code == 0, err
    snap = zsb.wait_for(lambda s: throttles_left(s) == {})  # brokers apply /config/changes a moment later
    assert snap.partition("foo", 0).replicas == (3, 1) and snap.partition("foo", 1).replicas == (3, 2)
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan,
                            "--zookeeper", zsb.zk_connect)
    assert code == 0 and "Removed throttles" not in out, err


def test_controller_moves_during_an_incremental_run(zsb, zk, tmp_path, capsys, monkeypatch):
    """The run's sleep between polls moves simulated time; at the 3rd poll the controller moves."""
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 2]},
                                 {"topic": "foo", "partition": 1, "replicas": [3, 0]}])
    polls = {"n": 0}

    def sleep(clock, seconds):
        polls["n"] += 1
        if polls["n"] == 3:
            zk.move_controller()
        zsb.clock.advance(0.5)
        time.sleep(0.01)  # the controller reacts to ZooKeeper watches in real time

    monkeypatch.setattr(incremental.SystemClock, "sleep", sleep)
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental",
                            "--zookeeper", zsb.zk_connect, "--state-file", tmp_path / "state.json",
                            "--rollback-file", tmp_path / "rb.json", "--max-parallel-partitions", "1")
    assert code == 0, err
    assert polls["n"] >= 3
    snap = zsb.snapshot()
    assert snap.partition("foo", 0).replicas == (3, 2) and snap.partition("foo", 1).replicas == (3, 0)
    assert zk.reassign_node() is None


def test_target_broker_down_while_the_controller_moves(zsb, zk, tmp_path, capsys):
    """A target broker stops, then the controller moves while it is down: the partition waits
    (the node stays) and finishes once the broker is back."""
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan,
                            "--zookeeper", zsb.zk_connect, "--throttle", "1MB/s", "--rollback-file", tmp_path / "rb.json")
    assert code == 0, err
    zsb.clock.advance(1)
    zsb.faults.broker_stop(3)
    injected()
    zk.move_controller()
    for _ in range(6):
        zsb.clock.advance(1)
    assert zk.reassign_node() is not None  # waiting for broker 3, not lost
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan,
                            "--zookeeper", zsb.zk_connect)
    assert code == 3, err
    assert zk.topic_config("foo").get("follower.replication.throttled.replicas")  # still needed: kept
    zsb.faults.broker_start(3)
    advance_until_done(zsb, zk)
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan,
                            "--zookeeper", zsb.zk_connect)
    assert code == 0, err
    snap = zsb.wait_for(lambda s: throttles_left(s) == {})  # brokers apply /config/changes a moment later
    assert snap.partition("foo", 0).replicas == (3, 1)
