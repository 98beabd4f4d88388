"""A ZooKeeper-mode sandbox restarted in the chroot a cleanly stopped one used comes back with its
topics, as a Kafka cluster restarted on its ZooKeeper does. It failed with `topic orders already
exists` (exit 2): the demo tried to create the topics the chroot already held."""

from __future__ import annotations

import json

import pytest

from tests.sandbox.test_cli import run, state_dir  # noqa: F401  (fixture)
from tests.sandbox.test_zookeeper_mode import poll, zk  # noqa: F401  (fixture)

pytestmark = pytest.mark.zookeeper

DEMO = ["audit-log", "clicks", "empty", "orders", "payments"]


def _start(state_dir, zk_connect, *extra):  # noqa: F811
    return run(
        "sandbox", "start", "--detach", "--brokers", "3", "--kafka-version", "3.3", "--zookeeper", zk_connect,
        *extra, "--state-dir", str(state_dir),
    )  # fmt: skip


def _topics(state_dir):  # noqa: F811
    status = run("sandbox", "status", "-o", "json", "--state-dir", str(state_dir))
    assert status.returncode == 0, status.stderr
    return json.loads(status.stdout)["topics"]


def test_a_restart_in_the_same_chroot_keeps_the_topics_there(state_dir, zk_connect, zk):  # noqa: F811
    first = _start(state_dir, zk_connect)
    assert first.returncode == 0, first.stderr
    assert first.stderr == ""
    # A change made while it ran (a reassignment's result) is what the restarted cluster shows
    plan = {"version": 1, "partitions": [{"topic": "empty", "partition": 0, "replicas": [2, 1]}]}
    zk.create("/admin/reassign_partitions", json.dumps(plan).encode())
    poll(lambda: not zk.exists("/admin/reassign_partitions"), timeout=30)
    zk.create("/brokers/topics/mine", json.dumps({"version": 2, "partitions": {"0": [1, 0]}}).encode())
    run("sandbox", "stop", "--state-dir", str(state_dir))
    first_topics = sorted(zk.get_children("/brokers/topics"))
    assert first_topics == sorted([*DEMO, "mine"])
    empty0 = json.loads(zk.get("/brokers/topics/empty")[0])["partitions"]["0"]
    assert empty0 == [2, 1]

    again = _start(state_dir, zk_connect)
    assert again.returncode == 0, again.stderr
    assert again.stderr == (
        f"kadmin: note: ZooKeeper {zk_connect} already holds the demo topics audit-log, clicks, empty, orders, "
        "payments (a cluster stopped there): kept as they are, as a restarted Kafka cluster keeps its topics "
        "(their data starts empty; a new chroot gives a fresh demo)\n"
    )
    assert _topics(state_dir) == 6
    assert sorted(zk.get_children("/brokers/topics")) == first_topics
    assert json.loads(zk.get("/brokers/topics/empty")[0])["partitions"]["0"] == [2, 1]
    described = run("log-dirs", "describe", "--zookeeper", zk_connect, "-o", "json", "--timeout", "20s")
    assert described.returncode == 0, described.stderr


def test_a_restart_without_the_demo_says_nothing(state_dir, zk_connect):  # noqa: F811
    assert _start(state_dir, zk_connect).returncode == 0
    run("sandbox", "stop", "--state-dir", str(state_dir))
    again = _start(state_dir, zk_connect, "--no-demo")
    assert (again.returncode, again.stderr) == (0, "")
    assert _topics(state_dir) == 5


def test_the_demo_creates_the_topics_a_chroot_lacks(state_dir, zk_connect, zk):  # noqa: F811
    zk.create("/brokers/topics/orders", json.dumps({"version": 2, "partitions": {"0": [0]}}).encode(), makepath=True)
    started = _start(state_dir, zk_connect)
    assert started.returncode == 0, started.stderr
    assert "already holds the demo topics orders (" in started.stderr
    assert sorted(zk.get_children("/brokers/topics")) == DEMO
    assert json.loads(zk.get("/brokers/topics/orders")[0])["partitions"] == {"0": [0]}  # kept as found


def test_a_restart_with_fewer_brokers_keeps_the_topics_with_replicas_on_missing_brokers(state_dir, zk_connect):  # noqa: F811
    """As a Kafka cluster restarted without some brokers: their replicas are offline, not lost."""
    assert _start(state_dir, zk_connect).returncode == 0
    run("sandbox", "stop", "--state-dir", str(state_dir))
    again = run(
        "sandbox", "start", "--detach", "--brokers", "1", "--kafka-version", "3.3", "--zookeeper", zk_connect,
        "--state-dir", str(state_dir),
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert again.stderr.startswith("kadmin: note: ZooKeeper ")
    assert _topics(state_dir) == 5
    described = run("log-dirs", "describe", "--bootstrap-server", again.stdout.strip(), "-o", "json", "--timeout", "20s")
    # The missing brokers are down, as a Kafka cluster's: named (exit 1), broker 0 reported.
    assert described.returncode == 1, described.stderr
    assert "brokers 1, 2 are down (not in the cluster's broker list): the report lacks their" in described.stderr
    doc = json.loads(described.stdout)
    assert {b["broker"]: b["error"] for b in doc["brokers"]}[0] is None


def test_a_foreground_restart_says_so_too(state_dir, zk_connect):  # noqa: F811
    import signal
    import subprocess

    from tests.sandbox.test_cli import KADMIN

    assert _start(state_dir, zk_connect).returncode == 0
    run("sandbox", "stop", "--state-dir", str(state_dir))
    proc = subprocess.Popen(
        [*KADMIN, "sandbox", "start", "--brokers", "3", "--kafka-version", "3.3", "--zookeeper", zk_connect,
         "--state-dir", str(state_dir)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout.readline().startswith("127.0.0.1:")
        assert proc.stderr.readline().startswith(f"kadmin: note: ZooKeeper {zk_connect} already holds the demo topics")
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0


def test_a_restart_carries_on_from_the_partition_state_in_zookeeper(sandbox_factory, zk_connect, zk):  # noqa: F811
    """Leader epochs and a reassignment in flight survive the restart, as Kafka's controller
    reads them back from the znodes (initializeControllerContext) and resumes the reassignment.
    The restarted sandbox started over: epochs from 0 (going backwards in ZooKeeper) and the
    reassignment's replicas [2, 1, 0] kept as the partition's for good (adding/removing lost)."""
    from kafka import TopicPartition

    from tests.sandbox.clients import kafka_python

    first = sandbox_factory(brokers=3, zookeeper=zk_connect, manual_clock=True, bandwidth=2**20)
    first.create_topic("t", assignment={0: [0, 1], 1: [1, 0]}, size_bytes=10 * 2**20)
    first.faults.broker_stop(0)  # leadership of t-0 moves to 1 and back: a few epochs
    first.faults.broker_start(0)
    first.clock.advance(1)
    zk.create("/admin/preferred_replica_election", json.dumps({"partitions": [{"topic": "t", "partition": 0}]}).encode())
    first.settle()
    with kafka_python(first) as admin:
        admin.alter_partition_reassignments({TopicPartition("t", 1): [2, 1]})
    first.settle()
    first.clock.advance(1)  # one of ten MiB copied
    before = first.snapshot()
    assert before.partition("t", 1).reassigning and before.partition("t", 0).leader == 0
    epochs = {i: before.partition("t", i).leader_epoch for i in (0, 1)}
    assert epochs[0] >= 2
    first.stop()
    topic = json.loads(zk.get("/brokers/topics/t")[0])
    assert (topic["adding_replicas"], topic["removing_replicas"]) == ({"1": [2]}, {"1": [0]})

    again = sandbox_factory(brokers=3, zookeeper=zk_connect, manual_clock=True, bandwidth=2**20)
    again.settle()
    snap = again.snapshot()
    assert (snap.partition("t", 0).leader, snap.partition("t", 0).leader_epoch) == (0, epochs[0])
    moving = snap.partition("t", 1)
    assert (moving.replicas, moving.adding, moving.removing) == ((2, 1, 0), (2,), (0,))
    assert moving.leader_epoch > epochs[1]  # resumed: step A1 moves the epoch on
    state = json.loads(zk.get("/brokers/topics/t/partitions/0/state")[0])
    assert state["leader_epoch"] == epochs[0]
    again.clock.advance(1)  # the restarted brokers' logs start empty: caught up at once
    done = again.snapshot().partition("t", 1)
    assert (done.replicas, done.reassigning) == ((2, 1), False)
    poll(lambda: json.loads(zk.get("/brokers/topics/t")[0])["partitions"]["1"] == [2, 1])
