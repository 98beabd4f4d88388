"""A cancelled reassignment's leftover log is no replica (seen by hand on a 4.3 KRaft sandbox).

``t-0`` [0,1] -> [2,3] with broker 2 in the second log directory, throttled, cancelled halfway:
broker 2 keeps the half-copied log in that directory (a stray log, listed by DescribeLogDirs
until it restarts) while the replica set is [0,1] again. ``reassign verify`` called the plan's
log-dir target "completed successfully" (JSON move complete) next to "replica set is 0,1 rather
than 2,3", and running the plan again took the target as already in place (no "place new
replica" request, a warning that --replica-alter-log-dirs-throttle had nothing to throttle).
At 4.3 and 3.3 in KRaft mode and 2.8 in ZooKeeper mode (execute, verify over --zookeeper;
cancel is --bootstrap-server only, so over the ZooKeeper-mode sandbox's brokers).
"""

from __future__ import annotations

import json

import pytest

from tests.support.cli import kadmin, write_plan
from tests.support.sandbox import SandboxClock, sandbox_factory  # noqa: F401  (fixture)

MB = 1_000_000
MODES = [("4.3", "kraft"), ("3.3", "kraft"), ("2.8", "zookeeper")]


@pytest.fixture(params=MODES, ids=[f"kafka{v}-{m}" for v, m in MODES])
def cancelled(request, sandbox_factory, tmp_path, monkeypatch, capsys):  # noqa: F811
    """The plan run and cancelled halfway: broker 2 holds a stray log of t-0 in its target."""
    version, mode = request.param
    zk = request.getfixturevalue("zk_connect") if mode == "zookeeper" else None
    sb = sandbox_factory(brokers=4, log_dirs=2, manual_clock=True, kafka_version=version, zookeeper=zk)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=20 * MB)
    sb.connect = ["--zookeeper", zk] if zk else ["-b", sb.bootstrap]
    second = sb.log_dir_paths(2)[1]
    sb.target = second
    sb.plan = write_plan(tmp_path, [{"topic": "t", "partition": 0, "replicas": [2, 3], "log_dirs": [second, "any"]}])
    from kadmin.execute import verification

    monkeypatch.setattr(verification, "SystemClock", lambda: SandboxClock(sb))
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", sb.plan, "--throttle", "1MB/s",
                          "--rollback-file", tmp_path / "rollback.json", *sb.connect)
    assert code == 0, err
    sb.clock.advance(3)  # a few MB copied
    code, _, err = kadmin(capsys, "reassign", "cancel", "--reassignment-json-file", sb.plan, "-b", sb.bootstrap)
    assert code == 0, err
    sb.clock.advance(1)
    snap = sb.snapshot()
    assert set(snap.partition("t", 0).replicas) == {0, 1}
    return sb


def test_verify_does_not_take_a_stray_log_for_a_completed_log_dir_move(cancelled, capsys):
    sb = cancelled
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", sb.plan, "--output", "json",
                            *sb.connect)
    assert code == 4, out + err
    doc = json.loads(out)
    (replica,) = doc["replicas"]
    assert (replica["broker"], replica["state"], replica["move"]) == (2, "differs", "missing_replica")
    assert replica["current_dir"] is None
    assert f"its log in {sb.target} is a stray log" in replica["message"]
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", sb.plan, *sb.connect)
    assert code == 4 and "completed successfully" not in out, out + err


def test_running_the_plan_again_places_the_new_replica_and_paces_it(cancelled, capsys):
    sb = cancelled
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", sb.plan, "--dry-run",
                            "--throttle", "1MB/s", "--replica-alter-log-dirs-throttle", "1MB/s", *sb.connect)
    assert code == 0, out + err
    assert f"place new replica t-0 on broker 2 in {sb.target}" in out
    assert "broker 2 replica.alter.log.dirs.io.max.bytes.per.second" in out
    assert "nothing to throttle" not in out + err
