"""Throttles and brokers that are down: a down broker's log-dir rate is kept while its move may
resume (ZooKeeper mode), rates are planned only on brokers that can take them (-b), what could
not be cleared makes the run fail, and --dry-run refuses what the run refuses."""

from __future__ import annotations

import json
import time

import pytest

from kadmin.model import FOLLOWER_RATE, LEADER_RATE, LOG_DIR_RATE
from tests.support.cli import kadmin, write_plan, await_broker_gone
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

MB = 1_000_000


def admin(sb):
    from kadmin.backends.admin import AdminBackend
    from kadmin.config import ConnectionSettings

    return AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=10), read_only=False)


# --- 1. ZooKeeper: the log-dir rate of a down broker in the middle of a move ---------------------
@pytest.mark.zookeeper
@pytest.mark.parametrize("how", [("--stale",), ("--all", "--yes")])
def test_zookeeper_clear_keeps_the_log_dir_rate_of_a_down_broker_mid_move(sandbox_factory, zk_connect, tmp_path,  # noqa: F811
                                                                          capsys, how):
    """Broker 2 is down in the middle of a log-dir move: its future replica cannot be seen, so
    its log-dir rate counts as needed (it resumes the copy when it restarts). ZooKeeper holds the
    rate whether or not the broker runs; clear --stale / --all (no --force) must leave it."""
    from kadmin.backends.zookeeper import ZooKeeperBackend
    from tests.support.zookeeper import znode_json

    sb = sandbox_factory(brokers=3, log_dirs=2, manual_clock=True, zookeeper=zk_connect, kafka_version="3.3")
    sb.create_topic("audit-log", assignment={0: [1, 2, 0]}, size_bytes=50 * MB)
    current = sb.snapshot().replica_dir("audit-log", 0, 2)
    target = next(d for d in sb.log_dir_paths(2) if d != current)
    plan = write_plan(tmp_path, [{"topic": "audit-log", "partition": 0, "replicas": [1, 2, 0],
                                  "log_dirs": ["any", target, "any"]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan,
                            "--replica-alter-log-dirs-throttle", "1MB/s", "--zookeeper", zk_connect,
                            "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 0, err
    sb.wait_for(lambda s: s.future_replica("audit-log", 0, 2) is not None)
    assert znode_json(zk_connect, "/config/brokers/2")["config"][LOG_DIR_RATE] == "1000000"

    sb.faults.broker_stop(2)
    await_broker_gone(lambda: ZooKeeperBackend(zk_connect, timeout=10), 2)

    code, out, err = kadmin(capsys, "throttle", "show", "-o", "json", "--zookeeper", zk_connect)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["log_dir_moves_known"] is False
    rate = next(t for t in doc["throttles"] if (t["resource"], t["config"]) == ("2", LOG_DIR_RATE))
    assert rate["needed"] and not rate["stale"], rate

    code, out, err = kadmin(capsys, "throttle", "clear", *how, "--zookeeper", zk_connect)
    assert code == 0, err
    assert znode_json(zk_connect, "/config/brokers/2")["config"].get(LOG_DIR_RATE) == "1000000", out


# --- 4. --dry-run refuses an unreadable record as the run does -----------------------------------
@pytest.mark.parametrize("args", [("set", "--rate", "2MB/s", "--brokers", "1"), ("set", "--rate", "2MB/s"),
                                  ("clear", "--stale"), ("clear", "--stale", "--yes")])
def test_dry_run_refuses_an_unreadable_record_like_the_run(sandbox_factory, capsys, args):  # noqa: F811
    from kadmin.backends.admin_records import RecordTopic
    from kadmin.throttling import RECORD_TOPIC

    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    with admin(sb) as be:
        RecordTopic(be, RECORD_TOPIC).write("bad00001", b"notjson")
    for dry in (("--dry-run",), ()):
        code, out, err = kadmin(capsys, "throttle", *args, *dry, "-b", sb.bootstrap)
        assert code == 1, (dry, out, err)
        assert err.count("\n") == 1 and "unreadable kadmin throttle record" in err and "nothing was changed" in err
        assert "key 'bad00001'" in err and out == ""
    assert not any(sb.snapshot().broker_configs.get(str(b), {}).get(LEADER_RATE) for b in range(3))


def test_clear_all_dry_run_goes_on_past_an_unreadable_record_like_the_run(sandbox_factory, capsys):  # noqa: F811
    from kadmin.backends.admin_records import RecordTopic
    from kadmin.throttling import RECORD_TOPIC

    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    assert kadmin(capsys, "throttle", "set", "--rate", "1MB/s", "--brokers", "0", "-b", sb.bootstrap)[0] == 0
    with admin(sb) as be:
        RecordTopic(be, RECORD_TOPIC).write("bad00001", b"notjson")
    code, out, err = kadmin(capsys, "throttle", "clear", "--all", "--dry-run", "-b", sb.bootstrap)
    assert code == 0, err
    assert "broker 0 leader.replication.throttled.rate: 1000000 -> (deleted)" in out and "left as it is" in err


# --- 5. clear fails when what kadmin set on a down broker is left --------------------------------
@pytest.mark.parametrize("how", ["--all", "--stale", "--plan"])
def test_clear_removes_what_it_can_and_fails_naming_what_a_down_broker_keeps(sandbox_factory, tmp_path, capsys,  # noqa: F811
                                                                             how):
    """Over the AdminClient protocol a down broker's configs cannot be read: clear removes the
    rest, then exits 1 with one line naming the rates left there (a script running
    `throttle clear --all && ...` must not be told everything was cleared). Once the broker is
    back, the same command removes them and exits 0."""
    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("foo", assignment={0: [0, 1]}, size_bytes=MB)
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [2, 1]}])
    code, out, err = kadmin(capsys, "throttle", "set", "--rate", "5MB/s", "--from-plan", plan, "-b", sb.bootstrap)
    assert code == 0, err
    sb.faults.broker_stop(1)
    await_broker_gone(lambda: admin(sb), 1)

    args = ("--plan", plan) if how == "--plan" else (how,)
    code, out, err = kadmin(capsys, "throttle", "clear", *args, "--yes", "-b", sb.bootstrap)
    assert code == 1, (out, err)
    assert err.count("\n") == 1, err
    assert "not everything was cleared: broker 1 is down" in err
    assert f"{LEADER_RATE} 5000000" in err and f"{FOLLOWER_RATE} 5000000" in err
    assert "broker 0 leader.replication.throttled.rate: 5000000 -> (deleted)" in out  # the rest was removed
    assert LEADER_RATE not in sb.snapshot().broker_configs.get("0", {})

    code, out, err = kadmin(capsys, "throttle", "clear", *args, "--yes", "--dry-run", "-o", "json", "-b", sb.bootstrap)
    assert code == 1, err  # a dry run exits as the run would: not everything can be cleared
    assert "nothing was changed (dry run); the run would not clear everything" in err
    assert json.loads(out)["left_on_down_brokers"] == [f"broker 1 {FOLLOWER_RATE} 5000000",
                                                       f"broker 1 {LEADER_RATE} 5000000"]

    sb.faults.broker_start(1)
    deadline = time.monotonic() + 20
    while True:  # until kadmin reads broker 1 again
        with admin(sb) as be:
            if 1 in be.describe_cluster().brokers:
                break
        assert time.monotonic() < deadline
        time.sleep(0.05)  # polling a condition with a deadline
    code, out, err = kadmin(capsys, "throttle", "clear", *args, "--yes", "-b", sb.bootstrap)
    assert code == 0, err
    assert "broker 1 leader.replication.throttled.rate: 5000000 -> (deleted)" in out
    assert LEADER_RATE not in sb.snapshot().broker_configs.get("1", {})


# --- 2 and 3. Rates over -b go only where configs can change: a dead broker being evacuated -------
@pytest.fixture
def evac(sandbox_factory, tmp_path):  # noqa: F811
    """Broker 3 holds replicas of foo and is down; the plan moves them onto 0,1,2."""
    sb = sandbox_factory(brokers=4, log_dirs=1, manual_clock=True)
    sb.create_topic("foo", assignment={0: [3, 0], 1: [1, 3]}, size_bytes=MB)
    sb.faults.broker_stop(3)
    await_broker_gone(lambda: admin(sb), 3)
    sb.plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [0, 2]},
                                    {"topic": "foo", "partition": 1, "replicas": [1, 2]}], "evac.json")
    sb.rollback = str(tmp_path / "rb.json")
    return sb


def rates_set(sb):
    configs = sb.snapshot().broker_configs
    return {int(b): {n: v for n, v in c.items() if n in (LEADER_RATE, FOLLOWER_RATE)}
            for b, c in configs.items() if b.isdigit() and (LEADER_RATE in c or FOLLOWER_RATE in c)}


WARNING = ("kadmin: warning: broker 3 is down: no rate is set there (a broker's configs change only while it runs; "
           "it sends nothing while down); if it comes back before the move ends, set its rate: "
           "`kadmin throttle set --rate 5000000 --brokers 3`")


def test_execute_throttle_evacuates_a_dead_broker_over_bootstrap(evac, capsys):
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", evac.plan, "--throttle", "5MB/s",
                            "--rollback-file", evac.rollback, "--dry-run", "-b", evac.bootstrap)
    assert code == 0, err
    assert "broker 3" not in out and "broker 2 leader.replication.throttled.rate" in out
    assert err.strip() == WARNING
    assert rates_set(evac) == {}

    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", evac.plan, "--throttle", "5MB/s",
                            "--rollback-file", evac.rollback, "-b", evac.bootstrap)
    assert code == 0, err
    assert err.strip() == WARNING
    assert rates_set(evac) == {b: {LEADER_RATE: "5000000", FOLLOWER_RATE: "5000000"} for b in (0, 1, 2)}
    snap = evac.snapshot()
    assert all(2 in snap.partition("foo", p).replicas for p in (0, 1)), "the reassignment was not sent"


def test_throttle_set_from_plan_leaves_out_the_dead_broker_with_a_warning(evac, capsys):
    for dry in (("--dry-run",), ()):
        code, out, err = kadmin(capsys, "throttle", "set", "--rate", "5MB/s", "--from-plan", evac.plan, *dry,
                                "-b", evac.bootstrap)
        assert code == 0, (dry, err)
        assert err.strip() == WARNING and "broker 3" not in out
    assert rates_set(evac) == {b: {LEADER_RATE: "5000000", FOLLOWER_RATE: "5000000"} for b in (0, 1, 2)}


def test_throttle_set_on_every_broker_names_the_down_one(evac, capsys):
    code, out, err = kadmin(capsys, "throttle", "set", "--rate", "9MB/s", "-b", evac.bootstrap)
    assert code == 0, err
    assert err.strip() == WARNING.replace("5000000", "9000000")
    assert rates_set(evac) == {b: {LEADER_RATE: "9000000", FOLLOWER_RATE: "9000000"} for b in (0, 1, 2)}


def test_throttle_set_on_the_down_broker_says_it_is_not_alive(evac, capsys):
    code, out, err = kadmin(capsys, "throttle", "set", "--rate", "9MB/s", "--brokers", "3", "-b", evac.bootstrap)
    assert code == 2, err
    assert err.count("\n") == 1
    assert "broker 3 not alive (down, or not a broker of this cluster)" in err and "unknown" not in err
    assert "the cluster has 0,1,2" in err and "nothing was changed" in err
    code, out, err = kadmin(capsys, "throttle", "set", "--rate", "9MB/s", "--brokers", "9", "-b", evac.bootstrap)
    assert code == 2 and "unknown broker 9; the cluster has 0,1,2" in err
    assert rates_set(evac) == {}


@pytest.mark.zookeeper
def test_zookeeper_execute_still_throttles_the_dead_broker(sandbox_factory, zk_connect, tmp_path, capsys):  # noqa: F811
    """ZooKeeper holds /config/brokers/3 whether or not broker 3 runs: its rate is set there, and
    nothing is said."""
    from kadmin.backends.zookeeper import ZooKeeperBackend
    from tests.support.zookeeper import znode_json

    sb = sandbox_factory(brokers=4, log_dirs=1, manual_clock=True, zookeeper=zk_connect)
    sb.create_topic("foo", assignment={0: [3, 0], 1: [1, 3]}, size_bytes=MB)
    sb.faults.broker_stop(3)
    await_broker_gone(lambda: ZooKeeperBackend(zk_connect, timeout=10), 3)
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [0, 2]},
                                 {"topic": "foo", "partition": 1, "replicas": [1, 2]}], "evac.json")
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--throttle", "5MB/s",
                            "--rollback-file", str(tmp_path / "rb.json"), "--zookeeper", zk_connect)
    assert code == 0, err
    assert "broker 3 is down" not in err
    assert znode_json(zk_connect, "/config/brokers/3")["config"][LEADER_RATE] == "5000000"


@pytest.mark.zookeeper
def test_zookeeper_clear_plan_removes_the_rates_of_a_down_broker(sandbox_factory, zk_connect, tmp_path,  # noqa: F811
                                                                  capsys):
    """ZooKeeper holds /config/brokers/1 whether or not broker 1 runs: clear --plan reads and
    removes the rates the plan set there (exit 0), as --stale and --all do, and so does the
    removal at the end of a plan (verify)."""
    from kadmin.backends.zookeeper import ZooKeeperBackend
    from tests.support.zookeeper import znode_json

    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True, zookeeper=zk_connect)
    sb.create_topic("foo", assignment={0: [0, 1]}, size_bytes=MB)
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [2, 1]}])
    code, out, err = kadmin(capsys, "throttle", "set", "--rate", "5MB/s", "--from-plan", plan,
                            "--zookeeper", zk_connect)
    assert code == 0, err
    sb.faults.broker_stop(1)
    await_broker_gone(lambda: ZooKeeperBackend(zk_connect, timeout=10), 1)

    code, out, err = kadmin(capsys, "throttle", "clear", "--plan", plan, "--yes", "--zookeeper", zk_connect)
    assert code == 0, (out, err)
    assert "broker 1 leader.replication.throttled.rate: 5000000 -> (deleted)" in out
    assert LEADER_RATE not in znode_json(zk_connect, "/config/brokers/1").get("config", {})

    code, out, err = kadmin(capsys, "throttle", "set", "--rate", "5MB/s", "--from-plan", plan,
                            "--zookeeper", zk_connect)
    assert code == 0, err
    assert znode_json(zk_connect, "/config/brokers/1")["config"][LEADER_RATE] == "5000000"
    from kadmin.throttling.operations import remove_plan_throttles
    from kadmin.throttling.record import plan_id
    from kadmin.throttling.stores import open_record_store

    with ZooKeeperBackend(zk_connect, timeout=10, read_only=False) as be:
        removal = remove_plan_throttles(be, open_record_store(be), plan_id(open(plan, "rb").read()))
    assert removal is not None and "1" in {c.resource.name for c in removal.changes}
    assert LEADER_RATE not in znode_json(zk_connect, "/config/brokers/1").get("config", {})
