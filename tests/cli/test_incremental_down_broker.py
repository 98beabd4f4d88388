"""``reassign execute --incremental --throttle`` with a broker down: over --bootstrap-server a down
broker's configs can be neither read nor changed, so its rates are left out with the one warning
plain ``execute`` and ``throttle set`` print, before any change (--dry-run too) and before the
rollback and state files are written; over --zookeeper its rates are set (ZooKeeper holds them)."""

from __future__ import annotations

import json

import pytest

from kadmin.execute import state_file
from kadmin.model import FOLLOWER_RATE, LEADER_RATE
from tests.cli.test_throttle_down_brokers import admin, await_broker_gone, write_plan
from tests.support.cli import kadmin
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

MB = 1_000_000

WARNING = ("kadmin: warning: broker 2 is down: no rate is set there (a broker's configs change only while it runs; "
           "it sends nothing while down); if it comes back before the move ends, set its rate: "
           "`kadmin throttle set --rate 5000000 --brokers 2`")


@pytest.fixture
def down(sandbox_factory, tmp_path):  # noqa: F811
    """Broker 2 holds replicas of clicks and is stopped; the plan moves clicks onto 0,1."""
    sb = sandbox_factory(brokers=3, log_dirs=1, speed=40.0)
    sb.create_topic("clicks", assignment={0: [2, 0], 1: [1, 2]}, size_bytes=MB)
    sb.faults.broker_stop(2)
    await_broker_gone(lambda: admin(sb), 2)
    sb.plan = write_plan(tmp_path, [{"topic": "clicks", "partition": 0, "replicas": [0, 1]},
                                    {"topic": "clicks", "partition": 1, "replicas": [1, 0]}], "clicks.json")
    sb.state = tmp_path / "state.json"
    sb.rollback = tmp_path / "rb.json"
    return sb


def rates_set(sb):
    configs = sb.snapshot().broker_configs
    return {int(b): {n: v for n, v in c.items() if n in (LEADER_RATE, FOLLOWER_RATE)}
            for b, c in configs.items() if b.isdigit() and (LEADER_RATE in c or FOLLOWER_RATE in c)}


def run(sb, capsys, *more):
    return kadmin(capsys, "reassign", "execute", "--reassignment-json-file", sb.plan, "--incremental",
                  "--throttle", "5MB/s", "--state-file", sb.state, "--rollback-file", sb.rollback,
                  "--timeout", "5s", *more, "-b", sb.bootstrap)


def test_incremental_throttle_leaves_out_a_down_broker_with_one_warning(down, capsys):
    code, out, err = run(down, capsys, "--dry-run")
    assert code == 0, err
    assert err.splitlines()[0] == WARNING and err.count("is down") == 1, err
    assert "broker 2 " not in out and "broker 0 leader.replication.throttled.rate" in out
    assert not down.state.exists() and not down.rollback.exists()
    assert rates_set(down) == {}

    code, out, err = run(down, capsys)
    assert code == 0, err
    assert err.splitlines()[0] == WARNING and err.count("is down") == 1, err
    assert "broker 2 " not in err.split("Throttles set", 1)[1].split("Batch", 1)[0]
    snap = down.snapshot()
    assert {tp.partition: p.replicas for tp, p in snap.partitions.items()} == {0: (0, 1), 1: (1, 0)}
    assert state_file.load(down.state).finished
    assert rates_set(down) == {}  # set on 0 and 1, removed at the end
    assert json.loads(down.rollback.read_text())["partitions"][0]["replicas"] == [2, 0]


@pytest.mark.zookeeper
def test_zookeeper_incremental_throttle_still_rates_the_down_broker(sandbox_factory, zk_connect, tmp_path,  # noqa: F811
                                                                     capsys):
    """ZooKeeper holds /config/brokers/2 whether or not broker 2 runs: its rate is planned, and
    nothing is said."""
    from kadmin.backends.zookeeper import ZooKeeperBackend

    sb = sandbox_factory(brokers=3, log_dirs=1, speed=40.0, zookeeper=zk_connect)
    sb.create_topic("clicks", assignment={0: [2, 0], 1: [1, 2]}, size_bytes=MB)
    sb.faults.broker_stop(2)
    await_broker_gone(lambda: ZooKeeperBackend(zk_connect, timeout=10), 2)
    plan = write_plan(tmp_path, [{"topic": "clicks", "partition": 0, "replicas": [0, 1]}], "clicks.json")
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental",
                            "--throttle", "5MB/s", "--state-file", tmp_path / "state.json", "--dry-run",
                            "--zookeeper", zk_connect)
    assert code == 0, err
    assert "is down" not in err and "broker 2 leader.replication.throttled.rate" in out
