"""``reassign progress`` of a cancelled plan: done (exit 0, as documented: nothing moves any
more), and it says that the cluster differs from the plan (seen by hand on a 4.3 KRaft sandbox:
"done", every replica "In sync", while verify of the same plan exits 4).

``t-0`` on [0,1], in each broker's first directory; the plan moves broker 0's replica to its
second directory, throttled, and is cancelled halfway: the replica stays in the first. At 4.3
and 3.3 in KRaft mode and 2.8 in ZooKeeper mode (execute and progress over --zookeeper; cancel
is --bootstrap-server only, so over the ZooKeeper-mode sandbox's brokers).
"""

from __future__ import annotations

import json

import pytest

from tests.support.cli import kadmin, write_plan
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

MB = 1_000_000
MODES = [("4.3", "kraft"), ("3.3", "kraft"), ("2.8", "zookeeper")]
NOTE = "nothing moves any more, but 1 log-dir replica differs from the plan: `kadmin reassign verify` says what"


@pytest.fixture(params=MODES, ids=[f"kafka{v}-{m}" for v, m in MODES])
def cancelled(request, sandbox_factory, tmp_path, capsys):  # noqa: F811
    version, mode = request.param
    zk = request.getfixturevalue("zk_connect") if mode == "zookeeper" else None
    sb = sandbox_factory(brokers=3, log_dirs=2, manual_clock=True, kafka_version=version, zookeeper=zk)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=20 * MB)
    sb.connect = ["--zookeeper", zk] if zk else ["-b", sb.bootstrap]
    first, second = sb.log_dir_paths(0)[:2]
    assert sb.snapshot().replica_dir("t", 0, 0) == first
    sb.plan = write_plan(tmp_path, [{"topic": "t", "partition": 0, "replicas": [0, 1], "log_dirs": [second, "any"]}])
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", sb.plan,
                          "--replica-alter-log-dirs-throttle", "1MB/s", "--rollback-file", tmp_path / "rollback.json",
                          *sb.connect)
    assert code == 0, err
    sb.clock.advance(2)
    code, _, err = kadmin(capsys, "reassign", "cancel", "--reassignment-json-file", sb.plan, "-b", sb.bootstrap)
    assert code == 0, err
    sb.clock.advance(1)
    assert sb.snapshot().replica_dir("t", 0, 0) == first
    return sb


def progress(sb, capsys, *args, interval="0"):
    return kadmin(capsys, "reassign", "progress", "--reassignment-json-file", sb.plan, "--interval", interval, *args,
                  *sb.connect)


def test_progress_of_a_cancelled_plan_is_done_and_says_it_differs(cancelled, capsys):
    sb = cancelled
    code, out, err = progress(sb, capsys)
    assert code == 0, out + err
    assert "In sync" in out and NOTE in err
    code, out, err = progress(sb, capsys, "--output", "json")
    assert code == 0, out + err
    doc = json.loads(out)
    assert doc["done"] is True
    assert doc["differs_from_plan"] == {"partitions": 0, "log_dir_replicas": 1}
    code, out, err = progress(sb, capsys, "--watch", interval="0.1")  # not a terminal: one line per snapshot, then the table
    assert code == 0, out + err
    assert f"kadmin: done: {NOTE}" in out
    # verify of the same plan: finished but different
    assert kadmin(capsys, "reassign", "verify", "--reassignment-json-file", sb.plan, "--preserve-throttles",
                  *sb.connect)[0] == 4
