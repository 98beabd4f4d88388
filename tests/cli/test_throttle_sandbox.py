"""`throttle show | clear | set` against the sandbox: a throttle set by hand is flagged stale,
`clear --stale` removes it and leaves what a running reassignment needs, and (ZooKeeper mode)
a second kadmin process sees the record the first one wrote."""

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from kadmin.commands.root import cli
from kadmin.model import (
    FOLLOWER_RATE,
    FOLLOWER_REPLICAS,
    LEADER_RATE,
    LEADER_REPLICAS,
    LOG_DIR_RATE,
    AlterOp,
    Assignment,
    ConfigChange,
    ConfigResource,
    ConfigResourceType,
)
from kadmin.schemas import load
from kadmin.throttling.record import plan_id
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)
from tests.support.cli import await_broker_gone

MiB = 2**20
LOG_DIR_RATE_NAME = "replica.alter.log.dirs.io.max.bytes.per.second"


def broker(b):
    return ConfigResource(ConfigResourceType.BROKER, str(b))


def topic(t):
    return ConfigResource(ConfigResourceType.TOPIC, t)


def admin(sb):
    from kadmin.backends.admin import AdminBackend
    from kadmin.config import ConnectionSettings

    return AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=10), read_only=False)


def kadmin(*args):
    r = CliRunner(env={"COLUMNS": "200"}).invoke(cli, list(args))
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r


@pytest.fixture
def moving(sandbox_factory):  # noqa: F811
    """orders-0 moving from [0,1] to [2,1] slowly (follower rate 1 kB/s on broker 2, set by hand),
    plus a leftover throttle nobody needs on broker 3 and on topic audit."""
    sb = sandbox_factory(brokers=4, log_dirs=2, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=20 * MiB)
    sb.create_topic("audit", assignment={0: [3, 0]}, size_bytes=MiB)
    with admin(sb) as be:
        be.incremental_alter_configs([
            ConfigChange(broker(2), FOLLOWER_RATE, AlterOp.SET, "1000"),
            ConfigChange(topic("orders"), FOLLOWER_REPLICAS, AlterOp.SET, "0:2"),
            ConfigChange(broker(3), LEADER_RATE, AlterOp.SET, "5000000"),
            ConfigChange(topic("audit"), LEADER_REPLICAS, AlterOp.SET, "0:3"),
        ])
        assert be.reassign_partitions([Assignment("orders", 0, (2, 1))]) == {("orders", 0): None} or True
    sb.clock.advance(1)
    sb.wait_for(lambda s: s.partition("orders", 0).reassigning)
    return sb


def test_show_flags_the_hand_set_throttles_no_move_needs(moving):
    r = kadmin("throttle", "show", "-o", "json", "-b", moving.bootstrap)
    assert r.exit_code == 0, r.output
    by = {(t["resource"], t["config"]): t for t in json.loads(r.output)["throttles"]}
    assert by[("3", LEADER_RATE)]["stale"] and not by[("3", LEADER_RATE)]["set_by_kadmin"]
    assert by[("audit", LEADER_REPLICAS)]["stale"]
    assert by[("2", FOLLOWER_RATE)]["needed"] and not by[("2", FOLLOWER_RATE)]["stale"]
    assert not by[("orders", FOLLOWER_REPLICAS)]["stale"]
    assert json.loads(r.output)["reassigning_partitions"] == 1


def test_show_says_what_not_kadmin_means(moving):
    r = kadmin("throttle", "show", "-b", moving.bootstrap)
    assert r.exit_code == 0, r.output
    text = " ".join(r.stdout.split())
    assert "not kadmin: no kadmin record of it here; set by another tool, or by kadmin through the other" in text
    assert "(--zookeeper and --bootstrap-server keep separate records)" in text


def test_clear_stale_removes_them_and_leaves_the_needed_throttle(moving):
    r = kadmin("throttle", "clear", "--stale", "-b", moving.bootstrap)
    assert r.exit_code == 0, r.output
    assert "broker 3 leader.replication.throttled.rate: 5000000 -> (deleted)" in r.output
    snap = moving.snapshot()
    assert LEADER_RATE not in snap.broker_configs.get("3", {})
    assert LEADER_REPLICAS not in snap.topic_configs["audit"]
    assert snap.broker_configs["2"][FOLLOWER_RATE] == "1000"  # the running move still needs these
    assert snap.topic_configs["orders"][FOLLOWER_REPLICAS] == "0:2"
    assert snap.partition("orders", 0).reassigning


def test_clear_all_keeps_what_the_move_needs_unless_forced(moving):
    r = kadmin("throttle", "clear", "--all", "--yes", "-b", moving.bootstrap)
    assert r.exit_code == 0
    assert moving.snapshot().broker_configs["2"][FOLLOWER_RATE] == "1000"
    r = kadmin("throttle", "clear", "--all", "--yes", "--force", "-b", moving.bootstrap)
    assert r.exit_code == 0
    snap = moving.snapshot()
    assert FOLLOWER_RATE not in snap.broker_configs.get("2", {})
    assert FOLLOWER_REPLICAS not in snap.topic_configs["orders"]


@pytest.mark.zookeeper
def test_a_second_process_sees_the_record_in_zookeeper(sandbox_factory, zk_connect, tmp_path):  # noqa: F811
    sb = sandbox_factory(brokers=3, log_dirs=1, zookeeper=zk_connect, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1]}, size_bytes=MiB)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": [2, 1]}]}))

    def run(*args):
        return subprocess.run([sys.executable, "-m", "kadmin", *args, "--zookeeper", zk_connect],
                              capture_output=True, text=True, timeout=120)

    first = run("throttle", "set", "--rate", "10MB/s", "--from-plan", str(plan))
    assert first.returncode == 0, first.stderr
    second = run("throttle", "show", "-o", "json")
    assert second.returncode == 0, second.stderr
    doc = json.loads(second.stdout)
    pid = plan_id(plan.read_bytes())
    assert [r["plan_id"] for r in doc["records"]] == [pid]
    by = {(t["resource"], t["config"]): t for t in doc["throttles"]}
    assert by[("2", LEADER_RATE)]["plan_ids"] == [pid]
    assert by[("orders", FOLLOWER_REPLICAS)]["value"] == "0:2"
    # the broker saw it too: ZooKeeper config change notifications reached the sandbox's brokers
    sb.wait_for(lambda s: s.broker_configs.get("2", {}).get(LEADER_RATE) == "10000000", timeout=20)
    # and a third run removes exactly it (nothing moves)
    third = run("throttle", "clear", "--plan", str(plan))
    assert third.returncode == 0, third.stderr
    assert json.loads(run("throttle", "show", "-o", "json").stdout)["throttles"] == []


def test_admin_mode_record_topic_round_trip(sandbox_factory, tmp_path):  # noqa: F811
    """AdminClient mode keeps records in __kadmin_throttle_records; a second process reads them.
    (Edited when the sandbox began serving Produce/Fetch: this used to assert the refusal a
    cluster without them gets, which the sandbox can no longer show; test_throttle_commands.py
    still checks that changes are refused when the records cannot be read.)"""
    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1]}, size_bytes=MiB)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": [2, 1]}]}))

    def run(*args):
        return subprocess.run([sys.executable, "-m", "kadmin", *args, "-b", sb.bootstrap],
                              capture_output=True, text=True, timeout=120)

    first = run("throttle", "set", "--rate", "10MB/s", "--from-plan", str(plan))
    assert first.returncode == 0, first.stderr
    assert sb.snapshot().topic_configs["__kadmin_throttle_records"] == {"cleanup.policy": "compact"}
    doc = json.loads(run("throttle", "show", "-o", "json").stdout)
    assert [r["plan_id"] for r in doc["records"]] == [plan_id(plan.read_bytes())]


# --- issue 12: what broke on real clusters ----------------------------------------------------
def write_plan(tmp_path, name, partitions):
    p = tmp_path / name
    p.write_text(json.dumps({"version": 1, "partitions": partitions}))
    return str(p)


def records_of(sb):
    r = kadmin("throttle", "show", "-o", "json", "-b", sb.bootstrap)
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def test_record_topic_is_created_on_a_cluster_that_serves_describe_cluster_v0_only(sandbox_factory, tmp_path,  # noqa: F811
                                                                                  monkeypatch):
    """Kafka 3.3 answers DescribeCluster v0 only (no endpoint_type): creating the record topic
    must not go through kafka-python's describe_cluster (KeyError: 'endpoint_type')."""
    from kadmin.sandbox import protocol

    monkeypatch.setitem(protocol.MAX_VERSIONS, protocol.DESCRIBE_CLUSTER, 0)
    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1]}, size_bytes=MiB)
    r = kadmin("throttle", "set", "--rate", "1MB/s", "-b", sb.bootstrap)
    assert r.exit_code == 0, r.output
    assert sb.snapshot().broker_configs["2"][LEADER_RATE] == "1000000"
    assert [x["plan_id"] for x in records_of(sb)["records"]] == ["manual"]

    plan = write_plan(tmp_path, "plan.json", [{"topic": "orders", "partition": 0, "replicas": [2, 1]}])
    r = kadmin("reassign", "execute", "--reassignment-json-file", plan, "--throttle", "2MB/s",
               "--rollback-file", str(tmp_path / "rb.json"), "-b", sb.bootstrap)
    assert r.exit_code == 0, r.output
    assert plan_id(open(plan, "rb").read()) in [x["plan_id"] for x in records_of(sb)["records"]]


def set_default_rate(sb, value="7000000"):
    """kafka-configs --entity-type brokers --entity-default --alter --add-config leader...rate=..."""
    with admin(sb) as be:
        be.incremental_alter_configs([ConfigChange(ConfigResource(ConfigResourceType.BROKER, ""), LEADER_RATE,
                                                   AlterOp.SET, value)])


def test_cluster_wide_default_throttle_is_shown_and_cleared_like_a_broker_rate(sandbox_factory):  # noqa: F811
    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1]}, size_bytes=MiB)
    set_default_rate(sb)
    [item] = [t for t in records_of(sb)["throttles"] if t["config"] == LEADER_RATE]
    assert (item["resource"], item["value"], item["stale"]) == ("<default>", "7000000", True)
    table = kadmin("throttle", "show", "-b", sb.bootstrap)
    assert "broker <default>" in table.output

    r = kadmin("throttle", "clear", "--stale", "-o", "json", "-b", sb.bootstrap)
    assert r.exit_code == 0, r.output
    assert [(c["resource"], c["config"], c["op"]) for c in json.loads(r.output)["removed"]] == [
        ("<default>", LEADER_RATE, "delete")]
    assert LEADER_RATE not in sb.snapshot().broker_configs.get("", {})


def test_cluster_wide_default_throttle_is_kept_by_clear_all_while_a_move_needs_it(moving):
    set_default_rate(moving)
    r = kadmin("throttle", "clear", "--all", "--yes", "-b", moving.bootstrap)
    assert r.exit_code == 0, r.output
    assert moving.snapshot().broker_configs[""][LEADER_RATE] == "7000000"
    assert "broker <default> leader.replication.throttled.rate" in r.output
    r = kadmin("throttle", "clear", "--all", "--yes", "--force", "-b", moving.bootstrap)
    assert r.exit_code == 0, r.output
    assert LEADER_RATE not in moving.snapshot().broker_configs.get("", {})


def test_clear_all_after_someone_deleted_a_rate_leaves_no_record_behind(sandbox_factory):  # noqa: F811
    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1]}, size_bytes=MiB)
    assert kadmin("throttle", "set", "--rate", "1MB/s", "-b", sb.bootstrap).exit_code == 0
    with admin(sb) as be:  # someone else: kafka-configs --delete-config on broker 1
        be.incremental_alter_configs([ConfigChange(broker(1), LEADER_RATE, AlterOp.DELETE)])
    r = kadmin("throttle", "clear", "--all", "--yes", "-b", sb.bootstrap)
    assert r.exit_code == 0, r.output
    doc = records_of(sb)
    assert doc["throttles"] == [] and doc["records"] == []


def test_clear_stale_is_done_in_one_run_when_kadmin_had_set_a_rate_over_a_persons(sandbox_factory):  # noqa: F811
    """A person's 7000, then kadmin's 1 MB/s over it, no move: --stale deletes the rate (the
    person's value given back would be stale too, and a second run would delete it)."""
    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1]}, size_bytes=MiB)
    with admin(sb) as be:
        be.incremental_alter_configs([ConfigChange(broker(1), FOLLOWER_RATE, AlterOp.SET, "7000")])
    assert kadmin("throttle", "set", "--rate", "1MB/s", "--brokers", "1", "-b", sb.bootstrap).exit_code == 0
    for _ in range(2):
        r = kadmin("throttle", "clear", "--stale", "--yes", "-b", sb.bootstrap)
        assert r.exit_code == 0, r.output
        assert FOLLOWER_RATE not in sb.snapshot().broker_configs.get("1", {})
    assert records_of(sb)["records"] == []


def test_verify_of_the_last_plan_removes_the_rates_two_plans_shared(sandbox_factory, tmp_path):  # noqa: F811
    """A and B (B with --additional) both throttled; A verified while B still moves keeps the
    rates B uses; B verified once it finished removes kadmin's rates: nothing moves any more."""
    sb = sandbox_factory(brokers=4, log_dirs=1, manual_clock=True)
    sb.create_topic("small", assignment={0: [0, 1]}, size_bytes=MiB)
    sb.create_topic("big", assignment={0: [0, 1]}, size_bytes=20 * MiB)
    a = write_plan(tmp_path, "a.json", [{"topic": "small", "partition": 0, "replicas": [2, 1]}])
    b = write_plan(tmp_path, "b.json", [{"topic": "big", "partition": 0, "replicas": [2, 1]}])

    def execute(plan, *extra):
        r = kadmin("reassign", "execute", "--reassignment-json-file", plan, "--throttle", "1MB/s", *extra,
                   "--rollback-file", str(tmp_path / (plan.rsplit("/", 1)[-1] + ".rb")), "-b", sb.bootstrap)
        assert r.exit_code == 0, r.output

    def verify(plan):
        return kadmin("reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)

    execute(a)
    execute(b, "--additional")
    for _ in range(60):
        if not sb.snapshot().partition("small", 0).reassigning:
            break
        sb.clock.advance(1)
    assert sb.snapshot().partition("big", 0).reassigning
    assert verify(a).exit_code == 0
    snap = sb.snapshot()
    assert snap.broker_configs["2"][FOLLOWER_RATE] == "1000000"  # B still needs it
    for _ in range(120):
        if not sb.snapshot().partition("big", 0).reassigning:
            break
        sb.clock.advance(1)
    assert not sb.snapshot().partition("big", 0).reassigning
    assert verify(b).exit_code == 0
    snap = sb.snapshot()
    left = {(bk, name) for bk, configs in snap.broker_configs.items() for name in configs
            if name in (LEADER_RATE, FOLLOWER_RATE)}
    assert left == set()
    assert records_of(sb)["records"] == []


def test_a_rollback_that_found_its_log_dir_rate_already_set_by_the_plan_leaves_it_to_that_plan(sandbox_factory, tmp_path):  # noqa: F811
    """The operator's run: plan A moves audit-0 between the directories of brokers 0 and 1 at a
    log-dir rate of 1 MB/s; its rollback file, executed with --additional and the same rate,
    finds the rate set (changes nothing) and cancels the moves. Verifying the rollback, with
    nothing moving, leaves the rate (A set it, A's record still claims it), names A as its
    owner, and drops the rollback's claim; A's verify then removes it. The rollback's verify used
    to delete A's rates."""
    sb = sandbox_factory(brokers=3, log_dirs=2, manual_clock=True)
    sb.create_topic("audit", assignment={0: [0, 1, 2]}, size_bytes=100 * MiB)
    snap = sb.snapshot()
    there = {b: next(p for p in sb.log_dir_paths(b) if p != snap.replica_dir("audit", 0, b)) for b in (0, 1)}
    a = write_plan(tmp_path, "a.json", [{"topic": "audit", "partition": 0, "replicas": [0, 1, 2],
                                         "log_dirs": [there[0], there[1], "any"]}])
    rollback = str(tmp_path / "a.rollback.json")

    def execute(plan, rb, *extra):
        r = kadmin("reassign", "execute", "--reassignment-json-file", plan, "--replica-alter-log-dirs-throttle",
                   "1MB/s", *extra, "--rollback-file", rb, "-b", sb.bootstrap)
        assert r.exit_code == 0, r.output
        return r

    execute(a, rollback)
    sb.wait_for(lambda s: all(s.future_replica("audit", 0, b) is not None for b in (0, 1)))
    sb.clock.advance(3)
    r = execute(rollback, str(tmp_path / "rb2.json"), "--additional")
    assert LOG_DIR_RATE_NAME not in r.stdout  # already 1 MB/s: nothing set
    sb.wait_for(lambda s: all(s.future_replica("audit", 0, b) is None for b in (0, 1)))
    a_id, rb_id = (plan_id(Path(p).read_bytes()) for p in (a, rollback))
    claims = {rec["plan_id"]: {(c["broker"], c["config"]) for c in rec["rates"]} for rec in records_of(sb)["records"]}
    assert claims == {a_id: {(0, LOG_DIR_RATE_NAME), (1, LOG_DIR_RATE_NAME)}, rb_id: {(0, LOG_DIR_RATE_NAME), (1, LOG_DIR_RATE_NAME)}}

    r = kadmin("throttle", "clear", "--plan", rollback, "--dry-run", "-b", sb.bootstrap)
    assert r.exit_code == 0, r.output
    assert "Nothing to remove." in r.stdout
    assert f"  broker 0 {LOG_DIR_RATE_NAME} 1000000: still claimed by plan {a_id}" in r.stderr

    r = kadmin("reassign", "verify", "--reassignment-json-file", rollback, "-b", sb.bootstrap, "-o", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, load("reassign-verify-result"))
    assert doc["throttles_removed"] == []
    assert sorted((s["broker"], s["config"], s["value"], s["plan_ids"]) for s in doc["throttles_shared"]) == [
        (b, LOG_DIR_RATE_NAME, "1000000", [a_id]) for b in (0, 1)]  # said, with the plan still claiming them
    assert all(sb.snapshot().broker_configs[str(b)][LOG_DIR_RATE_NAME] == "1000000" for b in (0, 1))
    assert {rec["plan_id"]: {(c["broker"], c["config"]) for c in rec["rates"]} for rec in records_of(sb)["records"]} == {
        a_id: {(0, LOG_DIR_RATE_NAME), (1, LOG_DIR_RATE_NAME)}}  # A's claims, and no claim on a rate that is gone

    r = kadmin("reassign", "verify", "--reassignment-json-file", a, "-b", sb.bootstrap)
    assert r.exit_code == 4, r.output  # rolled back: A's directories differ, nothing moves
    assert f"  broker 0 {LOG_DIR_RATE_NAME}: 1000000 -> (deleted)" in r.stdout
    assert not any(LOG_DIR_RATE_NAME in sb.snapshot().broker_configs.get(str(b), {}) for b in range(3))
    assert records_of(sb)["records"] == []


def test_the_last_verify_names_another_plans_throttles_no_move_needs_any_more(sandbox_factory, tmp_path):  # noqa: F811
    """B (--additional, another rate) finishes first: its verify keeps the rates A's move still
    runs under. A's verify, once nothing moves, removes A's own and names B's as stale: they
    would otherwise stay set, unseen (nobody verifies B again)."""
    sb = sandbox_factory(brokers=4, log_dirs=1, manual_clock=True)
    sb.create_topic("small", assignment={0: [0, 1]}, size_bytes=MiB)
    sb.create_topic("big", assignment={0: [0, 1]}, size_bytes=20 * MiB)
    a = write_plan(tmp_path, "a.json", [{"topic": "big", "partition": 0, "replicas": [2, 1]}])
    b = write_plan(tmp_path, "b.json", [{"topic": "small", "partition": 0, "replicas": [2, 1]}])
    for plan, rate, extra in ((a, "1MB/s", ()), (b, "2MB/s", ("--additional",))):
        r = kadmin("reassign", "execute", "--reassignment-json-file", plan, "--throttle", rate, *extra,
                   "--rollback-file", str(tmp_path / (plan.rsplit("/", 1)[-1] + ".rb")), "-b", sb.bootstrap)
        assert r.exit_code == 0, r.output

    def verify(plan):
        return kadmin("reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap, "-o", "json")

    for topic in ("small", "big"):
        for _ in range(200):
            if not sb.snapshot().partition(topic, 0).reassigning:
                break
            sb.clock.advance(1)
        if topic == "small":
            r = verify(b)
            assert r.exit_code == 0 and json.loads(r.stdout)["throttles_kept"] is True
    r = verify(a)
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, load("reassign-verify-result"))
    b_id = next(rec["plan_id"] for rec in records_of(sb)["records"] if rec["plan_file"].endswith("b.json"))
    assert doc["stale_throttle_plans"] == [b_id]
    assert f"throttles kadmin set for another plan ({b_id}) are no longer needed by any move" in r.stderr


def test_a_cluster_without_produce_and_fetch_is_refused_before_any_change(sandbox_factory, monkeypatch):  # noqa: F811
    from kadmin.sandbox import protocol

    served = protocol.served
    monkeypatch.setattr(protocol, "served", lambda *a, **kw: {k: v for k, v in served(*a, **kw).items()
                                                              if k not in (protocol.PRODUCE, protocol.FETCH)})
    sb = sandbox_factory(brokers=2, log_dirs=1, manual_clock=True)
    r = kadmin("throttle", "set", "--rate", "1MB/s", "-b", sb.bootstrap)
    assert r.exit_code != 0
    assert "does not serve Produce/Fetch" in r.output and "nothing was changed" in r.output
    assert all(LEADER_RATE not in c for c in sb.snapshot().broker_configs.values())


@pytest.mark.zookeeper
def test_zookeeper_mode_shows_and_clears_the_cluster_wide_default(sandbox_factory, zk_connect):  # noqa: F811
    """/config/brokers/<default> (kafka-configs --zookeeper ... --entity-default) in ZooKeeper mode."""
    sb = sandbox_factory(brokers=3, log_dirs=1, zookeeper=zk_connect, manual_clock=True)
    assert kadmin("throttle", "set", "--rate", "1MB/s", "--brokers", "1", "--zookeeper", zk_connect).exit_code == 0
    from kadmin.backends.zookeeper import ZooKeeperBackend

    with ZooKeeperBackend(zk_connect, timeout=10) as be:
        be.incremental_alter_configs([ConfigChange(ConfigResource(ConfigResourceType.BROKER, ""), FOLLOWER_RATE,
                                                   AlterOp.SET, "3000")])
    # The brokers apply the default (entity brokers/<default>, the cluster-wide key) on its notification.
    sb.wait_for(lambda s: s.broker_configs.get("", {}).get(FOLLOWER_RATE) == "3000", timeout=20)
    # A config node written without a notification is in ZooKeeper, but no broker applies it.
    from kazoo.client import KazooClient

    zk = KazooClient(hosts=zk_connect)
    zk.start(timeout=15)
    try:
        zk.create("/config/brokers/2", json.dumps({"version": 1, "config": {LEADER_RATE: "5000"}}).encode())
    finally:
        zk.stop()
        zk.close()
    sb.settle()
    assert LEADER_RATE not in sb.snapshot().broker_configs.get("2", {})

    def show():  # after the --zookeeper deprecation warning (CliRunner mixes stderr in)
        r = kadmin("throttle", "show", "-o", "json", "--zookeeper", zk_connect)
        assert r.exit_code == 0, r.output
        return json.loads(r.output[r.output.index("{"):])

    doc = show()
    assert {(t["resource"], t["config"], t["stale"]) for t in doc["throttles"]} == {
        ("<default>", FOLLOWER_RATE, True), ("1", LEADER_RATE, True), ("1", FOLLOWER_RATE, True),
        ("2", LEADER_RATE, True)}
    r = kadmin("throttle", "clear", "--all", "--yes", "--zookeeper", zk_connect)
    assert r.exit_code == 0, r.output
    assert "broker <default> follower.replication.throttled.rate: 3000 -> (deleted)" in r.output
    doc = show()
    assert doc["throttles"] == [] and doc["records"] == []
    sb.wait_for(lambda s: FOLLOWER_RATE not in s.broker_configs.get("", {}), timeout=20)  # the brokers saw it


def test_verify_of_a_plan_kafkas_tool_ran_names_the_throttles_it_left(sandbox_factory, tmp_path):  # noqa: F811
    """Kafka's --verify deletes the plan's throttles whoever set them; kadmin removes only what it
    recorded, so for a plan it has no record of it names what is left instead of keeping quiet."""
    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1]}, size_bytes=MiB)
    sb.create_topic("audit", assignment={0: [1, 2]}, size_bytes=MiB)
    with admin(sb) as be:  # what kafka-reassign-partitions --execute --throttle sets
        be.incremental_alter_configs([
            *(ConfigChange(broker(b), name, AlterOp.SET, "1000000") for b in (0, 1, 2) for name in (LEADER_RATE, FOLLOWER_RATE)),
            ConfigChange(topic("orders"), LEADER_REPLICAS, AlterOp.SET, "0:0,0:1"),
            ConfigChange(topic("orders"), FOLLOWER_REPLICAS, AlterOp.SET, "0:2"),
            ConfigChange(topic("audit"), LEADER_REPLICAS, AlterOp.SET, "0:1"),  # another topic: not this plan's
        ])
        be.reassign_partitions([Assignment("orders", 0, (2, 1))])
    plan = write_plan(tmp_path, "plan.json", [{"topic": "orders", "partition": 0, "replicas": [2, 1]}])
    r = kadmin("reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert r.exit_code == 3 and "still set" not in r.stderr  # while it moves, the throttles are needed
    sb.clock.advance(30)
    sb.wait_for(lambda s: not s.partition("orders", 0).reassigning)
    r = kadmin("reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert r.exit_code == 0, r.output
    assert "throttles no move needs are still set (rates on brokers 0, 1, 2; throttled-replica lists of orders)" in r.stderr
    assert "kadmin throttle clear --stale" in r.stderr
    assert sb.snapshot().broker_configs["0"][LEADER_RATE] == "1000000"  # named, not removed
    r = kadmin("throttle", "clear", "--stale", "--yes", "-b", sb.bootstrap)
    assert r.exit_code == 0, r.output
    r = kadmin("reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap, "-o", "json")
    assert r.exit_code == 0 and json.loads(r.stdout)["throttles_left_behind"] == [] and "still set" not in r.stderr


def test_a_verify_that_may_not_read_configs_still_gives_its_verdict(sandbox_factory, tmp_path, monkeypatch):  # noqa: F811
    """Naming leftover throttles is advice: a user allowed to see reassignments but not configs
    still gets verify's verdict."""
    from kadmin.backends.admin import AdminBackend
    from kadmin.errors import AuthorizationError

    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1]}, size_bytes=MiB)
    with admin(sb) as be:
        be.incremental_alter_configs([ConfigChange(broker(0), LEADER_RATE, AlterOp.SET, "1000000")])

    def refused(self, *a, **kw):
        raise AuthorizationError("not authorized to describe configs")

    monkeypatch.setattr(AdminBackend, "describe_configs", refused)
    plan = write_plan(tmp_path, "plan.json", [{"topic": "orders", "partition": 0, "replicas": [0, 1]}])
    r = kadmin("reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert r.exit_code == 0, r.output
    assert "Reassignment of partition orders-0 is completed." in r.stdout and "still set" not in r.stderr


@pytest.mark.zookeeper
def test_zookeeper_mode_shows_and_clears_a_rate_written_by_hand_that_is_not_a_number(sandbox_factory, zk_connect):  # noqa: F811
    """/config/brokers/0 written in ZooKeeper directly with a rate Kafka cannot read: show names it
    (as set, flagged invalid) and clear --stale removes it, instead of failing with a ValueError."""
    from kazoo.client import KazooClient

    sandbox_factory(brokers=3, log_dirs=1, zookeeper=zk_connect, manual_clock=True)
    zk = KazooClient(hosts=zk_connect)
    zk.start(timeout=15)
    try:
        zk.ensure_path("/config/brokers/0")
        zk.set("/config/brokers/0", json.dumps({"version": 1, "config": {LEADER_RATE: "abc"}}).encode())
        r = kadmin("throttle", "show", "-o", "json", "--zookeeper", zk_connect)
        assert r.exit_code == 0, r.output
        assert "unexpected" not in r.output and "not a rate Kafka can apply" in r.output
        doc = json.loads(r.output[r.output.index("{"):])
        assert [(t["resource"], t["config"], t["value"], t["invalid"]) for t in doc["throttles"]] == [
            ("0", LEADER_RATE, "abc", True)]
        r = kadmin("throttle", "clear", "--stale", "--yes", "--zookeeper", zk_connect)
        assert r.exit_code == 0, r.output
        assert "broker 0 leader.replication.throttled.rate: abc -> (deleted)" in r.output
        assert LEADER_RATE not in json.loads(zk.get("/config/brokers/0")[0])["config"]
    finally:
        zk.stop()
        zk.close()


def test_show_names_the_down_broker_whose_recorded_throttles_it_cannot_read(sandbox_factory):  # noqa: F811
    """Over the AdminClient protocol a broker answers for its own configs: a down broker's rates
    cannot be read. show says so on stderr, naming the broker and what kadmin recorded there, and
    lists it in unreadable_brokers (the rates vanished without a word)."""
    from kadmin.schemas import load
    import jsonschema

    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    assert kadmin("throttle", "set", "--rate", "5MB/s", "--brokers", "1", "-b", sb.bootstrap).exit_code == 0
    sb.faults.broker_stop(1)
    await_broker_gone(lambda: admin(sb), 1)
    r = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["throttle", "show", "-o", "json", "-b", sb.bootstrap])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, load("throttle-show-result"))
    assert doc["throttles"] == [] and doc["down_brokers"] == [1] and doc["unreadable_brokers"] == [1]
    assert "broker 1 is down" in r.stderr and f"{LEADER_RATE} 5000000" in r.stderr
    r = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["throttle", "show", "-b", sb.bootstrap])
    assert "No replication throttles are set on the running brokers." in r.stdout and "broker 1 is down" in r.stderr
    # clear says it too: "Nothing to remove." alone would read as "broker 1 is not throttled";
    # and fails (exit 1): what is left there is not cleared
    r = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["throttle", "clear", "--all", "--yes", "-b", sb.bootstrap])
    assert r.exit_code == 1, r.output
    assert "broker 1 is down" in r.stderr and "could not be read and are not removed" in r.stderr


@pytest.mark.zookeeper
def test_zookeeper_mode_shows_the_rates_of_a_down_broker_from_zookeeper(sandbox_factory, zk_connect):  # noqa: F811
    """/config/brokers/1 is in ZooKeeper whether or not broker 1 runs: show lists its rates and
    says the broker is down."""
    from kadmin.backends.zookeeper import ZooKeeperBackend

    sb = sandbox_factory(brokers=3, log_dirs=1, zookeeper=zk_connect, manual_clock=True)
    assert kadmin("throttle", "set", "--rate", "5MB/s", "--brokers", "1", "--zookeeper", zk_connect).exit_code == 0
    sb.faults.broker_stop(1)
    await_broker_gone(lambda: ZooKeeperBackend(zk_connect, timeout=10), 1)
    r = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["throttle", "show", "-o", "json", "--zookeeper", zk_connect])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert {(t["resource"], t["config"], t["value"]) for t in doc["throttles"]} == {
        ("1", LEADER_RATE, "5000000"), ("1", FOLLOWER_RATE, "5000000")}
    assert doc["down_brokers"] == [1] and doc["unreadable_brokers"] == []
    assert "broker 1 is down: its rates are listed as ZooKeeper holds them" in r.stderr


def test_a_rate_set_by_hand_on_a_down_broker_is_said_not_read(sandbox_factory):  # noqa: F811
    """No kadmin record names broker 1, but it holds replicas and is down: its configs cannot be
    read over the AdminClient protocol, so show and clear say so (the report is not whole) instead
    of a plain "No replication throttles are set." / "Nothing to remove.", and the broker's
    log-dir moves count as unknown."""
    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1]})
    with admin(sb) as be:
        be.incremental_alter_configs([ConfigChange(broker(1), LEADER_RATE, AlterOp.SET, "7000000")])
    sb.faults.broker_stop(1)
    await_broker_gone(lambda: admin(sb), 1)
    r = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["throttle", "show", "-o", "json", "-b", sb.bootstrap])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, load("throttle-show-result"))
    assert doc["down_brokers"] == [1] and doc["unreadable_brokers"] == [1]
    assert doc["log_dir_moves_known"] is False and 1 in doc["log_dir_moving_brokers"]
    assert "broker 1 is down (not in the cluster's broker list): its throttle configs could not be read" in r.stderr
    r = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["throttle", "clear", "--all", "--yes", "-b", sb.bootstrap])
    assert "its throttle configs could not be read, so any rate set there is not removed" in r.stderr, r.output


@pytest.mark.zookeeper
def test_zookeeper_mode_shows_and_clears_a_rate_set_by_hand_on_a_down_broker(sandbox_factory, zk_connect):  # noqa: F811
    """/config/brokers/1 written by hand (as kafka-configs --zookeeper does), no kadmin record:
    with broker 1 down, show lists its rates from ZooKeeper and clear --all removes the one no
    move needs; its log-dir rate stays (a down broker counts as moving between its directories)."""
    from kazoo.client import KazooClient

    from kadmin.backends.zookeeper import ZooKeeperBackend

    sb = sandbox_factory(brokers=3, log_dirs=1, zookeeper=zk_connect, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1]})
    zk = KazooClient(hosts=zk_connect)
    zk.start(timeout=15)
    try:
        zk.ensure_path("/config/brokers/1")
        rates = {LEADER_RATE: "7000000", LOG_DIR_RATE: "7000000"}
        zk.set("/config/brokers/1", json.dumps({"version": 1, "config": rates}).encode())
        sb.faults.broker_stop(1)
        await_broker_gone(lambda: ZooKeeperBackend(zk_connect, timeout=10), 1)
        r = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["throttle", "show", "-o", "json", "--zookeeper", zk_connect])
        assert r.exit_code == 0, r.output
        doc = json.loads(r.stdout)
        assert {(t["resource"], t["config"], t["needed"]) for t in doc["throttles"]} == {
            ("1", LEADER_RATE, False), ("1", LOG_DIR_RATE, True)}
        assert doc["down_brokers"] == [1] and doc["unreadable_brokers"] == [] and doc["log_dir_moves_known"] is False
        assert "broker 1 is down: its rates are listed as ZooKeeper holds them\n" in r.stderr
        r = CliRunner().invoke(cli, ["throttle", "clear", "--all", "--yes", "--zookeeper", zk_connect])
        assert r.exit_code == 0, r.output
        assert json.loads(zk.get("/config/brokers/1")[0])["config"] == {LOG_DIR_RATE: "7000000"}
    finally:
        zk.stop()
        zk.close()


def test_an_unreadable_record_is_named_by_key_and_offset_and_clear_all_goes_on(sandbox_factory, tmp_path):  # noqa: F811
    """One unreadable record in __kadmin_throttle_records: set and clear --stale refuse (changing
    throttles without knowing what kadmin set is unsafe), naming the key, its offset and the way
    out (a tombstone); clear --all, which removes every throttle whoever set it, goes on and leaves
    the record; once tombstoned, set works again."""
    from kadmin.backends.admin_records import RecordTopic
    from kadmin.throttling import RECORD_TOPIC

    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    assert kadmin("throttle", "set", "--rate", "1MB/s", "--brokers", "0", "-b", sb.bootstrap).exit_code == 0
    with admin(sb) as be:
        RecordTopic(be, RECORD_TOPIC).write("badkey", b"garbage")  # offset 1, after the "manual" record
    for args in (("set", "--rate", "2MB/s", "--brokers", "1"), ("clear", "--stale", "--yes")):
        r = CliRunner().invoke(cli, ["throttle", *args, "-b", sb.bootstrap])
        assert r.exit_code == 1, r.output
        assert r.stderr.count("\n") == 1 and "unexpected" not in r.stderr
        assert (f"key 'badkey' (topic {RECORD_TOPIC}, partition 0, offset 1): Expecting value" in r.stderr
                and "nothing was changed" in r.stderr and "tombstone" in r.stderr and "kcat" in r.stderr)
    assert "1" not in sb.snapshot().broker_configs or LEADER_RATE not in sb.snapshot().broker_configs["1"]
    # The same refusal, the same exit code (1: what is unreadable is in the cluster, not the input),
    # from the commands that read the records to change throttles.
    plan = write_plan(tmp_path, "p.json", [{"topic": "orders", "partition": 0, "replicas": [1, 2]}])
    for args in (("execute", "--throttle", "1MB/s", "--rollback-file", str(tmp_path / "rb.json")), ("verify",)):
        r = CliRunner().invoke(cli, ["reassign", *args, "--reassignment-json-file", plan, "-b", sb.bootstrap])
        assert r.exit_code == 1 and "key 'badkey'" in r.stderr, (args, r.output)

    r = CliRunner().invoke(cli, ["throttle", "show", "-o", "json", "-b", sb.bootstrap])
    assert r.exit_code == 0 and "key 'badkey'" in r.stderr
    assert [x["plan_id"] for x in json.loads(r.stdout)["records"]] == ["manual"]  # the others are read

    r = CliRunner().invoke(cli, ["throttle", "clear", "--all", "--yes", "-b", sb.bootstrap])
    assert r.exit_code == 0, r.output
    assert "broker 0 leader.replication.throttled.rate: 1000000 -> (deleted)" in r.stdout
    assert "key 'badkey'" in r.stderr and "left as it is" in r.stderr
    assert LEADER_RATE not in sb.snapshot().broker_configs.get("0", {})

    with admin(sb) as be:
        RecordTopic(be, RECORD_TOPIC).write("badkey", None)  # the way out the error names
    r = CliRunner().invoke(cli, ["throttle", "set", "--rate", "2MB/s", "--brokers", "1", "-b", sb.bootstrap])
    assert r.exit_code == 0, r.output
    assert r.stderr == ""


@pytest.mark.zookeeper
def test_zookeeper_mode_names_the_znode_of_an_unreadable_record(sandbox_factory, zk_connect):  # noqa: F811
    from kazoo.client import KazooClient

    sandbox_factory(brokers=3, log_dirs=1, zookeeper=zk_connect, manual_clock=True)
    zk = KazooClient(hosts=zk_connect)
    zk.start(timeout=15)
    try:
        zk.create("/admin/throttled_replicas_removal/newer", b'{"version":2,"plan_id":"newer"}', makepath=True)
        r = CliRunner().invoke(cli, ["throttle", "set", "--rate", "1MB/s", "--zookeeper", zk_connect])
        assert r.exit_code == 1, r.output
        assert "znode /admin/throttled_replicas_removal/newer: unsupported record version 2" in r.stderr
        assert "delete /admin/throttled_replicas_removal/newer" in r.stderr and "another kadmin version" in r.stderr
        r = CliRunner().invoke(cli, ["throttle", "clear", "--all", "--yes", "--zookeeper", zk_connect])
        assert r.exit_code == 0, r.output
        assert zk.exists("/admin/throttled_replicas_removal/newer")  # left as it is
    finally:
        zk.stop()
        zk.close()
