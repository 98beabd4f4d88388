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
