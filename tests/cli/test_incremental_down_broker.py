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

WARNING = ("kadmin: warning: broker 2 is down: this run cannot set its rates now (a broker's configs change only "
           "while it runs; it sends nothing while down); it sets them once it is back, while it runs or when resumed, "
           "recorded as its own and removed at its end")


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


def test_resumed_with_a_down_broker_its_earlier_part_rated_says_no_rate_is_missing(sandbox_factory, tmp_path,  # noqa: F811
                                                                                     capsys, monkeypatch):
    """The first part of the run set broker 2's rates (recorded as the run's), then broker 2
    went down: the resumed run neither says it has no rate nor advises a ``throttle set`` by
    hand (that would be recorded as set by hand and outlive the run)."""
    from kadmin.execute import incremental

    sb = sandbox_factory(brokers=3, log_dirs=1, speed=40.0)
    sb.create_topic("clicks", assignment={0: [2, 0], 1: [1, 2]}, size_bytes=MB)
    sb.plan = write_plan(tmp_path, [{"topic": "clicks", "partition": 0, "replicas": [0, 1]},
                                    {"topic": "clicks", "partition": 1, "replicas": [1, 0]}], "clicks.json")
    sb.state, sb.rollback = tmp_path / "state.json", tmp_path / "rb.json"
    monkeypatch.setattr(incremental._Run, "_maybe_start_batch", lambda self: (_ for _ in ()).throw(KeyboardInterrupt))
    code, out, err = run(sb, capsys)
    assert code == 130, err  # throttles set, no step sent: the state is kept
    monkeypatch.undo()
    assert rates_set(sb)[2] == {LEADER_RATE: "5000000", FOLLOWER_RATE: "5000000"}

    sb.faults.broker_stop(2)
    await_broker_gone(lambda: admin(sb), 2)
    code, out, err = run(sb, capsys, "--dry-run")
    assert code == 0, err
    assert "A run of this plan is in progress" in out
    assert "is down" not in err and "throttle set" not in err, err
    code, out, err = run(sb, capsys, "--throttle", "7MB/s", "--dry-run")  # another rate: not set there yet
    assert code == 0, err
    assert ("kadmin: warning: broker 2 is down: this run cannot set its rates now" in err
            and "until then broker 2 keeps the rates an earlier part of this run set there" in err), err


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


# --- log directories of a down broker ---------------------------------------------------------
def await_broker_back(open_backend, broker_id, timeout=20.0):
    """Until the cluster's broker list (as kadmin reads it) names ``broker_id`` again."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        with open_backend() as be:
            if broker_id in be.describe_cluster().brokers:
                return
        assert time.monotonic() < deadline, f"broker {broker_id} not listed after {timeout}s"
        time.sleep(0.05)  # polling a condition with a deadline


@pytest.fixture
def dirs_plan(sandbox_factory, tmp_path):  # noqa: F811
    """clicks-0 and -1 on brokers 0, 1, 2; the plan keeps the replicas and moves each to the
    other directory of its broker."""
    return dirs_sandbox(sandbox_factory(brokers=3, log_dirs=2, speed=40.0), tmp_path)


def dirs_sandbox(sb, tmp_path):
    sb.create_topic("clicks", assignment={0: [0, 1, 2], 1: [1, 2, 0]}, size_bytes=MB)
    snap = sb.snapshot()
    sb.target = {(p, b): next(d for d in sb.log_dir_paths(b) if d != snap.replica_dir("clicks", p, b))
                 for p in (0, 1) for b in range(3)}
    sb.plan = write_plan(tmp_path, [
        {"topic": "clicks", "partition": 0, "replicas": [0, 1, 2], "log_dirs": [sb.target[0, b] for b in (0, 1, 2)]},
        {"topic": "clicks", "partition": 1, "replicas": [1, 2, 0], "log_dirs": [sb.target[1, b] for b in (1, 2, 0)]},
    ], "clicks.json")
    sb.state = tmp_path / "state.json"
    sb.rollback = tmp_path / "rb.json"
    return sb


def run_dirs(sb, capsys, *more):
    connect = ("--zookeeper", sb.zk) if getattr(sb, "zk", None) else ("-b", sb.bootstrap)
    return kadmin(capsys, "reassign", "execute", "--reassignment-json-file", sb.plan, "--incremental",
                  "--state-file", sb.state, "--rollback-file", sb.rollback, "--timeout", "5s", *more, *connect)


def in_place(sb, brokers):
    snap = sb.snapshot()
    return all(snap.replica_dir("clicks", p, b) == sb.target[p, b] and not snap.future_replica("clicks", p, b)
               for p in (0, 1) for b in brokers)


def test_incremental_log_dirs_with_a_broker_down_move_the_others_and_name_it(dirs_plan, capsys, monkeypatch):
    """Resumed while broker 2 is down: the moves of brokers 0 and 1 are sent and followed to the
    end, the run exits 1 naming broker 2 (no UnknownBrokerIdError for the whole batch), the same
    again at once says the same, and once broker 2 is back the same command finishes."""
    resumed_with_broker_2_down(dirs_plan, capsys, monkeypatch)


@pytest.mark.zookeeper
def test_zookeeper_incremental_log_dirs_with_a_broker_down_move_the_others_and_name_it(  # noqa: F811
        sandbox_factory, zk_connect, tmp_path, capsys, monkeypatch):
    """The same over --zookeeper against Kafka 2.8: the live brokers come from /brokers/ids, the
    log directories are read and moved through the brokers."""
    sb = dirs_sandbox(sandbox_factory(brokers=3, log_dirs=2, speed=40.0, zookeeper=zk_connect, kafka_version="2.8"),
                      tmp_path)
    sb.zk = zk_connect
    resumed_with_broker_2_down(sb, capsys, monkeypatch)


def resumed_with_broker_2_down(sb, capsys, monkeypatch):
    from kadmin.execute import incremental

    send = incremental.send_before_first_batch
    monkeypatch.setattr(incremental, "send_before_first_batch", lambda *a: (_ for _ in ()).throw(KeyboardInterrupt))
    code, out, err = run_dirs(sb, capsys, "--replica-alter-log-dirs-throttle", "50MB/s")
    assert code == 130 and "Interrupted" in err, err  # throttles set, nothing sent: the state is kept
    monkeypatch.setattr(incremental, "send_before_first_batch", send)
    assert not in_place(sb, (0,)) and not state_file.load(sb.state).finished

    def opener():
        from kadmin.backends.zookeeper import ZooKeeperBackend

        return ZooKeeperBackend(sb.zk, timeout=10) if getattr(sb, "zk", None) else admin(sb)

    sb.faults.broker_stop(2)
    await_broker_gone(opener, 2)
    for _ in range(2):
        code, out, err = run_dirs(sb, capsys)
        assert code == 1, err
        assert "UnknownBrokerIdError" not in err
        assert "2 replicas on broker 2" in err and "run the same command again once it is back" in err, err
        assert in_place(sb, (0, 1))
        assert not state_file.load(sb.state).finished

    sb.faults.broker_start(2)
    await_broker_back(opener, 2)
    code, out, err = run_dirs(sb, capsys)
    assert code == 0, err
    assert in_place(sb, (0, 1, 2))
    assert state_file.load(sb.state).finished


def test_alter_replica_log_dirs_answers_per_broker_with_one_down(dirs_plan):
    """kadmin/backends/admin.py sends AlterReplicaLogDirs to every broker at once: broker 0
    accepts its move (None) while broker 2, down, answers for its own replica
    only, named ('on broker 2: UnknownBrokerIdError'; kafka-python's one call for all raised
    for the whole batch, no id, the accepted answers lost)."""
    from kadmin.model import TopicPartitionReplica

    sb = dirs_plan
    sb.faults.broker_stop(2)
    await_broker_gone(lambda: admin(sb), 2)
    moves = {TopicPartitionReplica("clicks", 0, b): sb.target[0, b] for b in (0, 2)}
    with admin(sb) as be:
        answers = be.alter_replica_log_dirs(moves)
    assert answers[TopicPartitionReplica("clicks", 0, 0)] is None, answers
    assert answers[TopicPartitionReplica("clicks", 0, 2)].startswith("on broker 2: UnknownBrokerIdError"), answers
