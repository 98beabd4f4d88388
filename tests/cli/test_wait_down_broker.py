"""``reassign execute --wait`` and ``reassign progress --watch`` in a log (not a terminal) when
the broker a replica is being copied to goes down mid-move: it is named once on stderr, each line
says "waiting for broker 3 (down)", and the bytes moved stay what was copied until then (a floor,
">= ..."), never "0 B". Over --zookeeper at 3.3 and --bootstrap-server at 4.3."""

from __future__ import annotations

import re
import time

import pytest

from kadmin.execute import clock as clock_module
from tests.cli.test_execute_wait import SimClock, drive, throttled
from tests.support.cli import await_broker_gone, kadmin, write_plan
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

MB = 1_000_000
DOWN_WARNING = (
    "kadmin: warning: broker 3 is down (not in the cluster's broker list): its replicas' state, "
    "log-dir moves and sizes are unknown"
)
WAITING = re.compile(
    r"^kadmin: 1 partition reassigning, 1 replica moving: >= (\d+\.\d) MB moved, bytes left "
    r"unknown, waiting for broker 3 \(down\)$"
)
MOVING = re.compile(r"^kadmin: 1 partition reassigning, 1 replica moving: (\d+\.\d) MB moved \(\d+%\), ")


@pytest.fixture(params=[pytest.param("zookeeper", marks=pytest.mark.zookeeper), "admin"])
def cluster(request, sandbox_factory):  # noqa: F811
    """(sandbox, connection flags, a backend opener): foo-0 on [0, 1], 10 MB; ZooKeeper at 3.3,
    KRaft at 4.3."""
    from kadmin.backends import open_backend
    from kadmin.config import resolve_connection

    if request.param == "zookeeper":
        zk = request.getfixturevalue("zk_connect")
        sb = sandbox_factory(brokers=4, log_dirs=2, manual_clock=True, zookeeper=zk, kafka_version="3.3")
        flags = ["--zookeeper", zk]
        settings = resolve_connection(zookeeper=zk, timeout="10s", env={}, config_path="/nonexistent.toml")
    else:
        sb = sandbox_factory(brokers=4, log_dirs=2, manual_clock=True, kafka_version="4.3")
        flags = ["--bootstrap-server", sb.bootstrap]
        settings = resolve_connection(
            bootstrap_server=sb.bootstrap, timeout="10s", env={}, config_path="/nonexistent.toml"
        )
    sb.create_topic("foo", assignment={0: [0, 1]}, size_bytes=10 * MB)
    opener = lambda: open_backend(settings, read_only=True)  # noqa: E731
    deadline = time.monotonic() + 15
    while True:  # ZooKeeper: the topic is registered a moment later
        with opener() as be:
            if "foo" in be.describe_cluster().topics:
                break
        assert time.monotonic() < deadline, "topic foo not visible"
        time.sleep(0.05)
    return sb, flags, opener


def test_wait_names_the_down_broker_and_keeps_what_was_copied(cluster, tmp_path, capsys, monkeypatch):
    """Broker 3 (the replica being added) stops after a few samples and starts again later."""
    sb, flags, backend = cluster

    def on_sleep(c):
        if c.sleeps == 3:
            sb.faults.broker_stop(3)
            await_broker_gone(backend, 3)
        elif c.sleeps == 6:
            sb.faults.broker_start(3)

    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    drive(monkeypatch, SimClock(sb, throttled, on_sleep=on_sleep))
    code, out, err = kadmin(
        capsys,
        "reassign",
        "execute",
        "--reassignment-json-file",
        plan,
        *flags,
        "--throttle",
        "1MB/s",
        "--wait",
        "--interval",
        "2s",
    )
    assert code == 0, err
    lines = err.splitlines()
    assert lines.count(DOWN_WARNING) == 1, err
    assert "kadmin: broker 3 seen again" in lines, err
    down = lines.index(DOWN_WARNING)
    assert "did not answer" not in err, err  # asked on metadata a moment old, it is still down
    before = [float(m[1]) for ln in lines[:down] if (m := MOVING.match(ln))]
    waiting = list(lines[down + 1 : lines.index("kadmin: broker 3 seen again")])
    assert before and before[-1] > 0, err
    assert waiting and all(WAITING.match(ln) for ln in waiting), err
    assert {float(WAITING.match(ln)[1]) for ln in waiting} == {before[-1]}, err  # what it had copied, not 0 B
    assert "Reassignment of partition foo-0 is completed." in out


def test_watch_in_a_log_names_the_down_broker(cluster, tmp_path, capsys, monkeypatch):
    """progress --watch (stdout not a terminal) while broker 3 is down: the warning once on
    stderr, each line the wait; Ctrl-C (after three samples) ends it."""
    sb, flags, backend = cluster
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    code, out, err = kadmin(
        capsys, "reassign", "execute", "--reassignment-json-file", plan, *flags, "--throttle", "1MB/s"
    )
    assert code == 0, err
    sb.wait_for(throttled, timeout=15)
    sb.clock.advance(3)
    sb.faults.broker_stop(3)
    await_broker_gone(backend, 3)

    class Clock:
        sleeps = 0

        def now(self):
            return sb.clock.now

        def sleep(self, seconds):
            self.sleeps += 1
            if self.sleeps == 3:
                raise KeyboardInterrupt
            sb.clock.advance(seconds)

    monkeypatch.setattr(clock_module, "SystemClock", Clock)
    code, out, err = kadmin(capsys, "reassign", "progress", *flags, "--watch")
    lines = out.splitlines()
    assert err.count(DOWN_WARNING) == 1, err
    assert len(lines) == 3 and all(ln.endswith(", waiting for broker 3 (down)") for ln in lines), out
    assert not any(" 0 B moved" in ln for ln in lines), out
