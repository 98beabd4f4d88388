"""reassign execute | verify | cancel | list over --zookeeper, against the sandbox in ZooKeeper
mode (brokers registered in a real ZooKeeper, a controller watching /admin/reassign_partitions).
Log-dir requests go to the brokers found in ZooKeeper."""

import json
import time

import pytest

from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)
from tests.support.cli import kadmin, write_plan

pytestmark = pytest.mark.zookeeper
MB = 1_000_000


@pytest.fixture
def zsb(sandbox_factory, zk_connect):  # noqa: F811
    sb = sandbox_factory(brokers=4, log_dirs=2, manual_clock=True, zookeeper=zk_connect)
    sb.create_topic("foo", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=10 * MB)
    sb.zk_connect = zk_connect
    sb.clear_requests()
    return sb


def reassign_node(zk_connect):
    from tests.support.zookeeper import znode_json

    return znode_json(zk_connect, "/admin/reassign_partitions")


def advance_until(sb, pred, deadline_s=30.0):
    """Advance simulated time until ``pred(snapshot)`` holds and the controller has deleted the
    reassign znode. The controller reacts to ZooKeeper watches in real time, so this polls
    against a real deadline rather than counting simulated steps."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if pred(sb.snapshot()) and reassign_node(sb.zk_connect) is None:
            return
        sb.clock.advance(0.5)
    pytest.fail(f"not settled within {deadline_s}s: {sb.snapshot().partitions}")


def test_plain_move_writes_kafkas_znode_and_refuses_while_it_exists(zsb, tmp_path, capsys):
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    other = write_plan(tmp_path, [{"topic": "foo", "partition": 1, "replicas": [3, 2]}], "other.json")
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--zookeeper", zsb.zk_connect)
    assert code == 0, err
    assert "--zookeeper is deprecated" in err
    assert "done    reassign foo-0: 0,1 -> 3,1 (adding 3; removing 0)" in out
    # Only topic, partition and replicas: Kafka's controller ignores a node carrying log_dirs.
    # The clock has not moved, so the node is still there, and a second plan is refused.
    assert reassign_node(zsb.zk_connect) == {"version": 1, "partitions": [{"topic": "foo", "partition": 0, "replicas": [3, 1]}]}
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", other, "--zookeeper", zsb.zk_connect)
    assert code == 2 and "there is an existing assignment running (/admin/reassign_partitions exists)" in err
    advance_until(zsb, lambda s: s.partition("foo", 0).replicas == (3, 1) and not s.partition("foo", 0).reassigning)
    code, out, _ = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "--zookeeper", zsb.zk_connect)
    assert code == 0 and "Reassignment of partition foo-0 is completed." in out
    assert kadmin(capsys, "reassign", "list", "--zookeeper", zsb.zk_connect)[1] == "No partition reassignments found.\n"


def test_new_broker_and_chosen_dir_through_brokers_found_in_zookeeper(zsb, tmp_path, capsys):
    target = zsb.log_dir_paths(3)[1]
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1], "log_dirs": [target, "any"]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan,
                            "--zookeeper", zsb.zk_connect, "--timeout", "5s")
    assert code == 0, err
    assert f"done    place new replica foo-0 on broker 3 in {target}" in out
    advance_until(zsb, lambda s: s.replica_dir("foo", 0, 3) == target and not s.partition("foo", 0).reassigning)
    assert kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "--zookeeper", zsb.zk_connect)[0] == 0


def test_the_dry_run_lists_the_changes_in_the_order_the_run_makes_them(zsb, tmp_path, capsys):
    """Seen by hand (2.8): the dry run listed 'place new replica' before the reassignment, the
    run after it (the broker places the replica once the reassignment has created it)."""
    from tests.cli.test_reassign_sandbox import dry_run_and_run

    target = zsb.log_dir_paths(3)[1]
    here = zsb.snapshot().replica_dir("foo", 0, 1)
    other = next(p for p in zsb.log_dir_paths(1) if p != here)
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1], "log_dirs": [target, other]}])
    planned, made = dry_run_and_run(capsys, plan, "--zookeeper", zsb.zk_connect)
    assert made == planned
    assert planned[-3:] == [
        f"  move replica foo-0 on broker 1 from {here} to {other}",
        "  reassign foo-0: 0,1 -> 3,1 (adding 3; removing 0)",
        f"  place new replica foo-0 on broker 3 in {target}",
    ]


def test_validation_error_changes_nothing(zsb, tmp_path, capsys):
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 3]},
                                 {"topic": "foo", "partition": 1, "replicas": [1, 2], "log_dirs": ["any", "/nope"]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--zookeeper", zsb.zk_connect)
    assert code == 2 and out == ""
    assert "partitions[0] (foo-0) replicas: broker 3 appears more than once" in err
    assert "partitions[1] (foo-1) log_dirs[1]: /nope is not a log directory of broker 2" in err
    assert zsb.mutating_requests() == [] and reassign_node(zsb.zk_connect) is None


def test_log_dir_move_and_cancel_midway(zsb, tmp_path, capsys):
    here = zsb.snapshot().replica_dir("foo", 1, 2)
    there = next(p for p in zsb.log_dir_paths(2) if p != here)
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 1, "replicas": [1, 2], "log_dirs": ["any", there]},
                                 {"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--zookeeper", zsb.zk_connect)
    assert code == 0, err
    assert f"done    move replica foo-1 on broker 2 from {here} to {there}" in out
    assert zsb.snapshot().future_replica("foo", 1, 2)[0] == there
    # Kafka's ZooKeeper mode has no way to cancel a reassignment: refused, nothing changed.
    code, _, err = kadmin(capsys, "reassign", "cancel", "--reassignment-json-file", plan, "--zookeeper", zsb.zk_connect)
    assert code == 1 and "use --bootstrap-server" in err
    assert reassign_node(zsb.zk_connect)["partitions"] == [{"topic": "foo", "partition": 0, "replicas": [3, 1]}]
    assert zsb.snapshot().future_replica("foo", 1, 2)[0] == there
    # A plan with only log-dir moves can be cancelled: the requests go to the brokers.
    moves_only = write_plan(tmp_path, [{"topic": "foo", "partition": 1, "replicas": [1, 2], "log_dirs": ["any", there]}], "moves.json")
    code, out, err = kadmin(capsys, "reassign", "cancel", "--reassignment-json-file", moves_only, "--zookeeper", zsb.zk_connect)
    assert code == 0, err
    assert f"done    cancel move of replica foo-1 on broker 2 to {there}; it stays in {here}" in out
    s = zsb.snapshot()
    assert s.future_replica("foo", 1, 2) is None and s.replica_dir("foo", 1, 2) == here


def test_throttles_through_config_znodes_removed_by_verify(zsb, tmp_path, capsys):
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--zookeeper", zsb.zk_connect,
                            "--throttle", "50MB/s")
    assert code == 0, err
    # Brokers act on /config/changes notifications, so the configs arrive a moment later.
    lists = {"leader.replication.throttled.replicas": "0:0,0:1", "follower.replication.throttled.replicas": "0:3"}
    rates = {"leader.replication.throttled.rate": "50000000", "follower.replication.throttled.rate": "50000000"}
    zsb.wait_for(lambda s: s.topic_configs["foo"] == lists
                 and {b: c for b, c in s.broker_configs.items() if c} == {"0": rates, "1": rates, "3": rates})
    advance_until(zsb, lambda s: not s.partition("foo", 0).reassigning)
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "--zookeeper", zsb.zk_connect)
    assert code == 0 and "Removed throttles this plan set:" in out, (out, err, reassign_node(zsb.zk_connect), zsb.snapshot().partition("foo", 0))
    zsb.wait_for(lambda s: s.topic_configs["foo"] == {} and not any(s.broker_configs.values()))


def test_verify_through_the_other_mode_names_the_throttles_it_has_no_record_of(zsb, tmp_path, capsys):
    # kadmin's records live in ZooKeeper with --zookeeper and in a topic with --bootstrap-server:
    # a plan run through one and verified through the other must not leave throttles in silence.
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--zookeeper", zsb.zk_connect,
                          "--throttle", "50MB/s")
    assert code == 0, err
    zsb.wait_for(lambda s: s.topic_configs["foo"] and s.broker_configs.get("3"))
    advance_until(zsb, lambda s: not s.partition("foo", 0).reassigning)
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", zsb.bootstrap)
    assert code == 0 and "Reassignment of partition foo-0 is completed." in out
    assert "Removed throttles" not in out  # no record here: nothing removed ...
    assert "throttles no move needs are still set (rates on brokers 0, 1, 3; throttled-replica lists of foo)" in err
    assert "verify through it removes what it set" in err  # ... and the way out is named
    code, out, _ = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", zsb.bootstrap, "-o", "json")
    left = json.loads(out)["throttles_left_behind"]
    assert {(t["kind"], t["resource"]) for t in left} == {("broker_rate", "0"), ("broker_rate", "1"), ("broker_rate", "3"),
                                                         ("topic_replicas", "foo")}
    assert len(left) == 8
    code, _, err = kadmin(capsys, "throttle", "clear", "--plan", plan, "-b", zsb.bootstrap, "--yes")
    assert code == 0 and "if kadmin set them through the other one, clear through it" in err
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "--zookeeper", zsb.zk_connect)
    assert code == 0 and "Removed throttles this plan set:" in out and "still set" not in err
    zsb.wait_for(lambda s: s.topic_configs["foo"] == {} and not any(s.broker_configs.values()))
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", zsb.bootstrap)
    assert code == 0 and "still set" not in err


def test_target_broker_down_is_refused(zsb, tmp_path, capsys):
    zsb.faults.broker_stop(3)
    zsb.wait_for(lambda s: not s.brokers[3].alive)
    zsb.clear_requests()
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--zookeeper", zsb.zk_connect)
    assert code == 2 and "partitions[0] (foo-0) replicas[0]: unknown broker 3: not among the running brokers (0, 1, 2)" in err
    assert zsb.mutating_requests() == [] and reassign_node(zsb.zk_connect) is None


def zk_tree(zk_connect, *roots):
    """{path: data} of every znode under ``roots`` (those that exist), to compare before and after."""
    from kazoo.client import KazooClient

    zk = KazooClient(hosts=zk_connect)
    zk.start(timeout=15)
    try:
        out, todo = {}, [r for r in roots if zk.exists(r)]
        while todo:
            path = todo.pop()
            out[path] = zk.get(path)[0]
            todo += [f"{path}/{c}" for c in zk.get_children(path)]
        return out
    finally:
        zk.stop()
        zk.close()


WATCHED = ("/config", "/admin")  # throttles and their notifications, kadmin's records, the reassign node


@pytest.mark.parametrize("dry_run", [False, True], ids=["run", "dry-run"])
def test_additional_while_the_znode_exists_is_refused_before_any_change(zsb, tmp_path, capsys, dry_run):
    first = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}], "first.json")
    second = write_plan(tmp_path, [{"topic": "foo", "partition": 1, "replicas": [3, 2]}], "second.json")
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", first, "--zookeeper", zsb.zk_connect,
                          "--throttle", "50MB/s")
    assert code == 0, err
    zsb.settle()  # manual clock: the first plan stays in the node, and nothing else happens by itself
    before, files = zk_tree(zsb.zk_connect, *WATCHED), sorted(tmp_path.iterdir())
    # Kafka's ZooKeeper mode cannot add to a running reassignment: refused at validation, so no
    # throttle (not even a higher rate for the running plan), no record, no rollback file.
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", second, "--additional",
                            "--throttle", "100MB/s", "--zookeeper", zsb.zk_connect, *(["--dry-run"] if dry_run else []))
    assert code == 2 and out == "", (out, err)
    assert "kadmin: error: there is an existing assignment running (/admin/reassign_partitions exists)" in err
    assert "ZooKeeper mode cannot add to it; this plan would start moving foo-1; nothing was changed" in err
    assert "use --bootstrap-server" in err and "stopped" not in err
    zsb.settle()
    assert zk_tree(zsb.zk_connect, *WATCHED) == before and sorted(tmp_path.iterdir()) == files
    assert reassign_node(zsb.zk_connect)["partitions"] == [{"topic": "foo", "partition": 0, "replicas": [3, 1]}]
    # The plan being carried out may still change its throttle: it sends nothing to the node.
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", first, "--additional",
                            "--throttle", "60MB/s", "--zookeeper", zsb.zk_connect, "--dry-run")
    assert code == 0 and "broker 3 leader.replication.throttled.rate: 50000000 -> 60000000 (60.0 MB/s)" in out, err


def test_stuck_znode_is_explained_and_refused_before_any_change(zsb, tmp_path, own_state_home, capsys):
    from kazoo.client import KazooClient

    # A node carrying log_dirs: Kafka's controller rejects it as invalid json and leaves it there.
    stuck = {"version": 1, "partitions": [{"topic": "foo", "partition": 0, "replicas": [3, 1], "log_dirs": ["any", "any"]}]}
    zk = KazooClient(hosts=zsb.zk_connect)
    zk.start(timeout=15)
    try:
        zk.create("/admin/reassign_partitions", json.dumps(stuck).encode(), makepath=True)
    finally:
        zk.stop()
        zk.close()
    zsb.settle()
    assert zsb.snapshot().partition("foo", 0).replicas == (0, 1)  # ignored
    code, out, err = kadmin(capsys, "reassign", "list", "--zookeeper", zsb.zk_connect)
    assert code == 0 and out == "No partition reassignments found.\n"
    assert "kadmin: warning: /admin/reassign_partitions exists but looks stuck: its content is invalid" in err
    assert "delete /admin/reassign_partitions and force a controller election (delete /controller)" in err
    # Kafka's controller reads the node again when a reassignment completes: stuck, not "forever"
    assert "stays until the controller next looks at the node" in err and "forever" not in err
    code, out, err = kadmin(capsys, "reassign", "list", "--zookeeper", zsb.zk_connect, "-o", "json")
    assert code == 0 and json.loads(out) == {"version": 1, "reassignments": []} and "looks stuck" in err
    code, out, err = kadmin(capsys, "reassign", "progress", "--zookeeper", zsb.zk_connect)
    assert code == 0 and "No partition reassignment or log-dir move in progress." in out and "looks stuck" in err
    before, files = zk_tree(zsb.zk_connect, *WATCHED), sorted(tmp_path.iterdir())
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 1, "replicas": [3, 2]}])
    files.append(tmp_path / "plan.json")
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--throttle", "50MB/s",
                            "--zookeeper", zsb.zk_connect)
    assert code == 2 and out == "", (out, err)
    assert "kadmin: error: /admin/reassign_partitions exists but looks stuck" in err and "delete /controller" in err
    zsb.settle()
    assert zk_tree(zsb.zk_connect, *WATCHED) == before and sorted(tmp_path.iterdir()) == sorted(files)
    # --incremental too: refused before its rollback file, state file, record or throttles (it
    # would wait for a node the controller never deletes); its preview says so as well.
    for extra in ((), ("--dry-run",)):
        code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental",
                                "--throttle", "50MB/s", "--zookeeper", zsb.zk_connect, *extra)
        assert code == 2 and out == "", (extra, out, err)
        assert "kadmin: error: /admin/reassign_partitions exists but looks stuck" in err
        zsb.settle()
        assert zk_tree(zsb.zk_connect, *WATCHED) == before and sorted(tmp_path.iterdir()) == sorted(files)
        assert not [p for p in own_state_home.rglob("*") if p.is_file()]  # no incremental state file


def test_a_kafka_brokers_address_given_to_zookeeper_is_said_at_once(sandbox_factory, capsys):  # noqa: F811
    """--zookeeper pointed at a Kafka listener: it closes the connection at ZooKeeper's
    ConnectRequest and kazoo would retry until --timeout; kadmin asks it Kafka's ApiVersions after
    a second without a session, and says what it is (exit 1) long before the 20 s."""
    sb = sandbox_factory(brokers=1)
    started = time.monotonic()
    code, out, err = kadmin(capsys, "reassign", "list", "--zookeeper", sb.bootstrap, "--timeout", "20s")
    assert code == 1 and out == "", err
    assert f"kadmin: error: no ZooKeeper at {sb.bootstrap}: {sb.bootstrap} answered Kafka's ApiVersions" in err, err
    assert "goes to --bootstrap-server" in err
    assert time.monotonic() - started < 10
