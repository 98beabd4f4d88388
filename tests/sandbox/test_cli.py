"""``kadmin sandbox`` as a user runs it: subprocesses, a state dir per test."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

KADMIN = [sys.executable, "-m", "kadmin"]


def run(*args, timeout=60, env=None):
    return subprocess.run([*KADMIN, *args], capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture
def state_dir(tmp_path):
    d = tmp_path / "state"
    yield d
    if (d / "control.sock").exists():
        run("sandbox", "stop", "--state-dir", str(d))


def test_start_detach_status_fault_stop(state_dir):
    started = run("sandbox", "start", "--detach", "--brokers", "2", "--log-dirs", "2", "--speed", "10",
                  "--state-dir", str(state_dir))
    assert started.returncode == 0, started.stderr
    bootstrap = started.stdout.strip()
    assert len(bootstrap.split(",")) == 2
    for hostport in bootstrap.split(","):  # every broker answers already
        host, port = hostport.split(":")
        socket.create_connection((host, int(port)), timeout=2).close()

    status = run("sandbox", "status", "--state-dir", str(state_dir))
    assert status.returncode == 0
    assert "mode: kraft" in status.stdout and bootstrap in status.stdout
    assert "topics: 5" in status.stdout  # the demo topics
    assert run("sandbox", "status", "--bootstrap", "--state-dir", str(state_dir)).stdout.strip() == bootstrap

    fault = run("sandbox", "fault", "dir-offline", "1", "/var/lib/kafka/data0", "--state-dir", str(state_dir))
    assert fault.returncode == 0, fault.stderr
    assert "/var/lib/kafka/data0 (offline)" in run("sandbox", "status", "--state-dir", str(state_dir)).stdout
    assert run("sandbox", "fault", "broker-stop", "1", "--state-dir", str(state_dir)).returncode == 0
    assert "broker 1: 127.0.0.1:" in run("sandbox", "status", "--state-dir", str(state_dir)).stdout
    # --state-dir before the fault's name works as well (as `sandbox fault --help` lists it)
    before = run("sandbox", "fault", "--state-dir", str(state_dir), "dir-online", "1", "/var/lib/kafka/data0")
    assert before.returncode == 0, before.stderr
    assert "/var/lib/kafka/data0 (offline)" not in run("sandbox", "status", "--state-dir", str(state_dir)).stdout
    twice = run("sandbox", "fault", "--state-dir", str(state_dir), "broker-start", "1", "--state-dir", "/elsewhere")
    assert twice.returncode == 2 and "--state-dir given twice" in twice.stderr

    bad = run("sandbox", "fault", "dir-offline", "9", "/x", "--state-dir", str(state_dir))
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines()[0] == "kadmin: error: no broker 9 in the sandbox (brokers: 0, 1)"

    again = run("sandbox", "start", "--detach", "--state-dir", str(state_dir))
    assert again.returncode == 2 and "already running" in again.stderr

    stopped = run("sandbox", "stop", "--state-dir", str(state_dir))
    assert stopped.returncode == 0, stopped.stderr
    port = int(bootstrap.split(",")[0].split(":")[1])
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    gone = run("sandbox", "status", "--state-dir", str(state_dir))
    assert gone.returncode == 1 and "no sandbox is running" in gone.stderr


def test_port_in_use_is_one_clear_line(state_dir):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        result = run("sandbox", "start", "--detach", "--brokers", "1", "--port", str(port), "--state-dir", str(state_dir))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith(f"kadmin: error: cannot listen on 127.0.0.1:{port}: ")
    assert "Traceback" not in result.stderr


def test_unreachable_zookeeper_is_one_clear_line(state_dir):
    result = run("sandbox", "start", "--detach", "--zookeeper", "127.0.0.1:1", "--state-dir", str(state_dir))
    assert result.returncode == 1
    assert result.stderr.startswith("kadmin: error: cannot reach ZooKeeper at 127.0.0.1:1")
    assert "Traceback" not in result.stderr


def test_unknown_option_is_a_usage_error(state_dir):
    result = run("sandbox", "start", "--bogus", "--state-dir", str(state_dir))
    assert result.returncode == 2
    assert "No such option '--bogus'" in result.stderr


def test_foreground_prints_bootstrap_and_stops_cleanly_on_ctrl_c(state_dir):
    proc = subprocess.Popen([*KADMIN, "sandbox", "start", "--brokers", "1", "--no-demo", "--state-dir", str(state_dir)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        bootstrap = proc.stdout.readline().strip()
        assert bootstrap.startswith("127.0.0.1:")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "sandbox stopped" in err and "Traceback" not in err
    assert not (state_dir / "control.sock").exists()
    assert not (state_dir / "sandbox.json").exists()


def test_kafka_version_is_chosen_at_start_and_shown_by_status(state_dir):
    started = run("sandbox", "start", "--detach", "--brokers", "1", "--no-demo", "--kafka-version", "3.3",
                  "--state-dir", str(state_dir))
    assert started.returncode == 0, started.stderr
    status = run("sandbox", "status", "--state-dir", str(state_dir))
    assert "kafka version: 3.3" in status.stdout
    from types import SimpleNamespace

    from kafka.protocol.metadata import ApiVersionsRequest

    from tests.sandbox.clients import raw

    broker0 = SimpleNamespace(ports={0: int(started.stdout.strip().split(":")[1])})
    answer = raw(broker0, 0, ApiVersionsRequest(version=3, client_software_name="t", client_software_version="1"), 3)
    ranges = {k.api_key: (k.min_version, k.max_version) for k in answer.api_keys}
    assert ranges[35] == (1, 4) and ranges[60] == (0, 0)  # Kafka 3.3's DescribeLogDirs and DescribeCluster


def test_default_kafka_version_is_4_3_and_4_x_has_no_zookeeper_mode(state_dir):
    started = run("sandbox", "start", "--detach", "--brokers", "1", "--no-demo", "--state-dir", str(state_dir))
    assert started.returncode == 0, started.stderr
    assert "kafka version: 4.3" in run("sandbox", "status", "--state-dir", str(state_dir)).stdout
    refused = run("sandbox", "start", "--kafka-version", "4.3", "--zookeeper", "127.0.0.1:1",
                  "--state-dir", str(state_dir / "other"))
    assert refused.returncode == 2
    assert refused.stderr.startswith("kadmin: error: Kafka 4.3 has no ZooKeeper mode")


def test_a_started_sandbox_has_the_configs_its_kafka_version_formats(state_dir):
    """`kadmin sandbox start` is a freshly formatted cluster: Kafka 4.3 (KRaft) writes
    min.insync.replicas=1 as a cluster-wide dynamic default at format time (KAFKA-FACTS)."""
    started = run("sandbox", "start", "--detach", "--brokers", "1", "--no-demo", "--state-dir", str(state_dir))
    assert started.returncode == 0, started.stderr
    from confluent_kafka.admin import AdminClient, ConfigResource

    admin = AdminClient({"bootstrap.servers": started.stdout.strip()})
    r = ConfigResource("broker", "0")
    entry = admin.describe_configs([r])[r].result(timeout=10)["min.insync.replicas"]
    assert (entry.value, entry.source) == ("1", 3)  # DYNAMIC_DEFAULT_BROKER_CONFIG


def test_a_demo_that_would_not_fit_its_disks_is_refused(state_dir):
    """The demo topics in 40 GB directories: Kafka would take the overfull directories offline at
    once, so the start is refused with the way out; nothing keeps running."""
    result = run("sandbox", "start", "--detach", "--dir-capacity", str(40 * 10**9), "--state-dir", str(state_dir))
    assert result.returncode == 2, result.stderr
    line = result.stderr.strip()
    assert line.startswith("kadmin: error: the demo topics would fill broker 0's /var/lib/kafka/data0 to 163%")
    assert "--no-demo" in line and "\n" not in line
    assert not (state_dir / "sandbox.json").exists() and not (state_dir / "control.sock").exists()
    assert run("sandbox", "start", "--detach", "--dir-capacity", str(40 * 10**9), "--no-demo",
               "--state-dir", str(state_dir)).returncode == 0
