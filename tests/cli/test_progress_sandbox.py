"""`reassign progress` against the sandbox: its figures against the sandbox's own byte counts,
for a move between brokers and one between directories; the rate against the throttle; JSON
lines with --watch until done; exit 3 while moving."""

import json

import pytest
from click.testing import CliRunner

from kadmin.execute.sampler import Sampler
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
    TopicPartitionReplica,
)
from kadmin.schemas import load
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

MiB = 2**20
RATE = 1_000_000


def admin(sb):
    from kadmin.backends.admin import AdminBackend
    from kadmin.config import ConnectionSettings

    return AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=10), read_only=False)


def kadmin(*args):
    r = CliRunner(env={"COLUMNS": "200"}).invoke(cli, list(args))
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r


def throttle_move(be, rate=RATE):
    """orders-0 from [0,1] to [2,1], throttled as Kafka's tool would."""
    changes = [ConfigChange(ConfigResource(ConfigResourceType.BROKER, str(b)), name, AlterOp.SET, str(rate))
               for b in (0, 1, 2) for name in (LEADER_RATE, FOLLOWER_RATE)]
    changes += [ConfigChange(ConfigResource(ConfigResourceType.TOPIC, "orders"), LEADER_REPLICAS, AlterOp.SET, "0:0,0:1"),
                ConfigChange(ConfigResource(ConfigResourceType.TOPIC, "orders"), FOLLOWER_REPLICAS, AlterOp.SET, "0:2")]
    be.incremental_alter_configs(changes)
    be.reassign_partitions([Assignment("orders", 0, (2, 1))])


@pytest.fixture
def slow(sandbox_factory):  # noqa: F811
    sb = sandbox_factory(brokers=3, log_dirs=2, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=20 * MiB)
    return sb


def test_inter_broker_figures_match_the_sandbox_and_the_rate_the_throttle(slow):
    with admin(slow) as be:
        throttle_move(be)
        slow.clock.advance(1)
        sample = Sampler(be, None, clock=lambda: slow.clock.now)
        first = sample(None)
        slow.clock.advance(4)
        second = sample(first)
    snap = slow.snapshot()
    leader = snap.replica("orders", 0, 0).size
    new = snap.replica("orders", 0, 2).size
    row = next(r for r in second.replicas if r.broker == 2)
    assert row.move == "inter-broker" and row.status.startswith("Behind: ~")
    assert (row.total_bytes, row.moved_bytes, row.remaining_bytes) == (leader, new, leader - new)
    assert row.rate == pytest.approx(RATE, rel=0.1)
    assert row.eta == pytest.approx((leader - new) / RATE, rel=0.15)
    assert [r.status for r in second.replicas if r.broker != 2] == ["In sync", "In sync"]
    assert second.totals.remaining_bytes == leader - new and not second.done


def test_cli_json_snapshot_matches_and_exits_3_while_moving(slow, tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "orders", "partition": 0, "replicas": [2, 1]}, {"topic": "ghost", "partition": 0, "replicas": [1]}]}))
    with admin(slow) as be:
        throttle_move(be)
    slow.clock.advance(3)
    r = kadmin("reassign", "progress", "--reassignment-json-file", str(plan), "-o", "json", "--interval", "0",
               "-b", slow.bootstrap)
    assert r.exit_code == 3, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1
    doc = json.loads(lines[0])
    import jsonschema

    jsonschema.validate(doc, load("progress-snapshot"))
    snap = slow.snapshot()
    rows = {(x["topic"], x["broker"]): x for x in doc["replicas"]}
    assert rows[("orders", 2)]["moved_bytes"] == snap.replica("orders", 0, 2).size
    assert rows[("orders", 2)]["total_bytes"] == snap.replica("orders", 0, 0).size
    assert rows[("orders", 1)]["status"] == "In sync"
    assert rows[("ghost", 1)]["status"] == "Unknown topic"
    assert doc["totals"]["moving_replicas"] == 1 and not doc["done"]
    table = kadmin("reassign", "progress", "--interval", "0", "-b", slow.bootstrap)
    assert table.exit_code == 3 and "Behind: ~" in table.output and "total" in table.output


def test_log_dir_move_progress_from_the_future_replica(slow):
    with admin(slow) as be:
        be.incremental_alter_configs([ConfigChange(ConfigResource(ConfigResourceType.BROKER, "1"), LOG_DIR_RATE, AlterOp.SET, str(RATE))])
        src = slow.snapshot().replica_dir("orders", 1, 1)
        dst = next(p for p in slow.log_dir_paths(1) if p != src)
        assert be.alter_replica_log_dirs({TopicPartitionReplica("orders", 1, 1): dst}) == {
            TopicPartitionReplica("orders", 1, 1): None}
        slow.clock.advance(1)
        sample = Sampler(be, None, clock=lambda: slow.clock.now)
        first = sample(None)
        slow.clock.advance(3)
        second = sample(first)
    path, future = slow.snapshot().future_replica("orders", 1, 1)
    row = next(r for r in second.replicas if r.move == "log-dir")
    assert (row.topic, row.partition, row.broker) == ("orders", 1, 1)
    assert (row.log_dir, row.future_log_dir) == (src, dst) and path == dst
    assert row.moved_bytes == future.size
    assert row.messages_behind == future.offset_lag and row.status == f"Behind: {future.offset_lag} messages"
    assert row.rate == pytest.approx(RATE, rel=0.1)


def test_watch_json_lines_until_done(sandbox_factory):  # noqa: F811
    sb = sandbox_factory(brokers=3, log_dirs=1, speed=10.0)
    sb.create_topic("orders", assignment={0: [0, 1]}, size_bytes=4 * MiB)
    with admin(sb) as be:
        throttle_move(be, rate=128 * 1024)  # 32 simulated seconds: about 3 s here, time to watch
    r = kadmin("reassign", "progress", "--watch", "-o", "json", "--interval", "0.25s", "-b", sb.bootstrap)
    assert r.exit_code == 0, r.output
    docs = [json.loads(line) for line in r.output.strip().splitlines()]
    assert len(docs) >= 2
    assert docs[-1]["done"] and not docs[0]["done"]
    moved = [d["totals"]["moved_bytes"] for d in docs[:-1]]
    moved = [m for m in moved if m is not None]  # null: unknown (the new replica not seen yet), not 0
    assert moved and moved == sorted(moved)  # bytes only ever grow while it copies


@pytest.mark.zookeeper
def test_zookeeper_mode_progress_and_throttle_lifecycle(sandbox_factory, zk_connect, tmp_path):  # noqa: F811
    """The same figures through --zookeeper; the plan's throttles are needed while it moves,
    stale once it is done, and `clear --plan` then removes exactly them."""
    sb = sandbox_factory(brokers=3, log_dirs=1, zookeeper=zk_connect, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1]}, size_bytes=4 * MiB)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": [2, 1]}]}))
    zk = ("--zookeeper", zk_connect)
    assert kadmin("throttle", "set", "--rate", str(RATE), "--from-plan", str(plan), *zk).exit_code == 0

    from kadmin.backends import open_backend
    from kadmin.config import ConnectionSettings

    with open_backend(ConnectionSettings(zookeeper=zk_connect, timeout=10), read_only=False) as be:
        be.reassign_partitions([Assignment("orders", 0, (2, 1))])
    sb.wait_for(lambda s: s.partition("orders", 0).reassigning, timeout=20)
    sb.wait_for(lambda s: s.broker_configs.get("2", {}).get(FOLLOWER_RATE) == str(RATE), timeout=20)
    sb.clock.advance(2)

    r = kadmin("reassign", "progress", "-o", "json", "--interval", "0", *zk)
    assert r.exit_code == 3, r.output
    rows = {x["broker"]: x for x in json.loads(r.stdout)["replicas"]}
    snap = sb.snapshot()
    assert rows[2]["moved_bytes"] == snap.replica("orders", 0, 2).size > 0
    assert rows[2]["total_bytes"] == snap.replica("orders", 0, 0).size
    show = json.loads(kadmin("throttle", "show", "-o", "json", *zk).stdout)
    assert show["throttles"] and not any(t["stale"] for t in show["throttles"])

    sb.clock.advance(10)  # 4 MiB at 1 MB/s: done
    sb.wait_for(lambda s: not s.partition("orders", 0).reassigning, timeout=20)
    show = json.loads(kadmin("throttle", "show", "-o", "json", *zk).stdout)
    assert show["throttles"] and all(t["stale"] and t["set_by_kadmin"] for t in show["throttles"])
    assert kadmin("throttle", "clear", "--plan", str(plan), *zk).exit_code == 0
    show = json.loads(kadmin("throttle", "show", "-o", "json", *zk).stdout)
    assert show["throttles"] == [] and show["records"] == []


def test_one_shot_progress_already_has_a_rate_and_eta_for_a_log_dir_move(slow, monkeypatch):
    """Without --interval, a one-shot answer takes a second sample shortly after the first when
    anything moves (issue 17): a log-dir move's row has its rate and ETA, not "0.0"."""
    from kadmin.execute import clock as clocks
    from kadmin.execute.follow import ONE_SHOT_GAP

    sleeps = []

    class SandboxClock:  # kadmin sleeping is simulated time passing
        def now(self):
            return slow.clock.now

        def sleep(self, seconds):
            sleeps.append(seconds)
            slow.clock.advance(seconds)

    monkeypatch.setattr(clocks, "SystemClock", SandboxClock)
    with admin(slow) as be:
        be.incremental_alter_configs([ConfigChange(ConfigResource(ConfigResourceType.BROKER, "1"), LOG_DIR_RATE, AlterOp.SET, str(RATE))])
        src = slow.snapshot().replica_dir("orders", 1, 1)
        dst = next(p for p in slow.log_dir_paths(1) if p != src)
        be.alter_replica_log_dirs({TopicPartitionReplica("orders", 1, 1): dst})
    slow.clock.advance(1)
    r = kadmin("reassign", "progress", "-o", "json", "-b", slow.bootstrap)
    assert r.exit_code == 3, r.output
    [line] = r.output.strip().splitlines()
    doc = json.loads(line)
    row = next(x for x in doc["replicas"] if x["move"] == "log-dir")
    assert row["status"].startswith("Behind: ") and row["rate_bytes_per_second"] == pytest.approx(RATE, rel=0.1)
    assert row["eta_seconds"] is not None and doc["totals"]["eta_seconds"] >= row["eta_seconds"]
    assert sleeps == [ONE_SHOT_GAP] and 0.5 <= ONE_SHOT_GAP <= 1.0


def test_nothing_moving_is_said_in_one_line_and_exits_0(slow):
    r = kadmin("reassign", "progress", "--bootstrap-server", slow.bootstrap)
    assert r.exit_code == 0, r.output
    assert r.output == "No partition reassignment or log-dir move in progress.\n"
    doc = json.loads(kadmin("reassign", "progress", "--bootstrap-server", slow.bootstrap, "-o", "json").output)
    assert doc["reassigning_partitions"] == 0 and doc["replicas"] == []


def test_a_replica_on_a_broker_that_did_not_answer_is_unknown_in_every_view(slow, tmp_path):
    """Broker 1 answers 20 s late (--timeout 2s) while Metadata's ISR still lists it: its
    replicas' rows say their state is unknown, not "In sync", in the JSON (schema-valid), the
    table and the --watch JSON lines; the other brokers' rows are unchanged."""
    import jsonschema

    from kadmin.execute.progress import UNANSWERED

    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "orders", "partition": 0, "replicas": [2, 1]}, {"topic": "orders", "partition": 1, "replicas": [1, 2]}]}))
    slow.create_topic("quiet", assignment={0: [0, 1]}, size_bytes=MiB)
    with admin(slow) as be:
        throttle_move(be)  # orders-0 [0,1] -> [2,1]; leader 0 answers
    slow.clock.advance(1)
    slow.faults.latency(1, 20000)
    first = slow.bootstrap.split(",")[0]  # broker 0: the bootstrap answers
    args = ("reassign", "progress", "--reassignment-json-file", str(plan), "--interval", "0", "-b", first,
            "--timeout", "2s")
    r = kadmin(*args, "-o", "json")
    assert r.exit_code == 3, r.output
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, load("progress-snapshot"))
    assert [u["broker"] for u in doc["unanswered_brokers"]] == [1]
    status = {(x["partition"], x["broker"]): x["status"] for x in doc["replicas"]}
    assert status[(0, 1)] == status[(1, 1)] == UNANSWERED
    assert status[(1, 2)] == "In sync" and status[(0, 2)].startswith("Behind")

    table = kadmin(*args)
    assert table.exit_code == 3, table.output
    rows = [line.split("│") for line in table.stdout.splitlines() if line.startswith("│ orders ")]
    by_broker = {(int(c[2]), int(c[3])): c[4].strip() for c in rows}
    assert by_broker[(0, 1)] == by_broker[(1, 1)] == UNANSWERED and by_broker[(1, 2)] == "In sync"

    # Nothing of this plan moves (its leader, 0, answers): --watch ends once only broker 1 is unseen.
    only_done = tmp_path / "done.json"
    only_done.write_text(json.dumps({"version": 1, "partitions": [{"topic": "quiet", "partition": 0, "replicas": [0, 1]}]}))
    r = kadmin("reassign", "progress", "--reassignment-json-file", str(only_done), "--watch", "--interval", "100ms",
               "-o", "json", "-b", first, "--timeout", "2s")
    assert r.exit_code == 1, r.output
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert lines and all({x["broker"]: x["status"] for x in d["replicas"]} == {0: "In sync", 1: UNANSWERED}
                         for d in lines), r.output


def test_progress_goes_on_when_the_leader_of_every_moving_partition_does_not_answer(slow, tmp_path):
    """Broker 1 leads the only partition moving and answers 20 s late (--timeout 2s): no end
    offset can be read. Progress still shows the rows (exit 3), the new replica's messages
    behind unknown and its bytes known, and says what it could not read, with and without a
    plan; it failed with "reading the end offset of orders-1: no answer from broker 1"."""
    import jsonschema

    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [{"topic": "orders", "partition": 1, "replicas": [1, 0]}]}))
    with admin(slow) as be:  # orders-1 [1,2] -> [1,0], led by broker 1, throttled
        changes = [ConfigChange(ConfigResource(ConfigResourceType.BROKER, str(b)), name, AlterOp.SET, str(RATE))
                   for b in (0, 1, 2) for name in (LEADER_RATE, FOLLOWER_RATE)]
        changes += [
            ConfigChange(ConfigResource(ConfigResourceType.TOPIC, "orders"), LEADER_REPLICAS, AlterOp.SET, "1:1,1:2"),
            ConfigChange(ConfigResource(ConfigResourceType.TOPIC, "orders"), FOLLOWER_REPLICAS, AlterOp.SET, "1:0")]
        be.incremental_alter_configs(changes)
        be.reassign_partitions([Assignment("orders", 1, (1, 0))])
    slow.clock.advance(2)
    slow.faults.latency(1, 20000)
    first = slow.bootstrap.split(",")[0]  # broker 0: the bootstrap answers
    for with_plan in (("--reassignment-json-file", str(plan)), ()):
        args = ("reassign", "progress", *with_plan, "--interval", "0", "-b", first, "--timeout", "2s")
        r = kadmin(*args, "-o", "json")
        assert r.exit_code == 3, r.output
        doc = json.loads(r.stdout)
        jsonschema.validate(doc, load("progress-snapshot"))
        new = next(x for x in doc["replicas"] if x["broker"] == 0)
        assert (new["status"], new["move"], new["messages_behind"]) == ("Behind", "inter-broker", None)
        assert new["moved_bytes"] == slow.snapshot().replica("orders", 1, 0).size > 0
        assert "kadmin: warning: orders-1: messages behind not estimated (reading the end offset of orders-1: " \
               "no answer from broker 1" in r.stderr, r.stderr

        table = kadmin(*args)
        assert table.exit_code == 3, table.output
        assert "│ orders │         1 │      0 │ Behind " in table.stdout
        # Said once, on stderr, as the down-broker note is (not in a caption as well)
        assert "orders-1: messages behind not estimated" not in table.stdout, table.stdout
        assert table.stderr.count("orders-1: messages behind not estimated") == 1, table.stderr


def test_a_down_broker_is_named_once_on_stderr_and_as_data_on_stdout(slow):
    """As log-dirs describe does: stdout carries the fact as data (its replicas' rows say
    "Unknown: its broker is down"; the JSON's unanswered_brokers), the sentence naming the
    broker is said once, on stderr, and the table does not repeat it in a caption."""
    from kadmin.execute.progress import DOWN
    from tests.support.cli import await_broker_gone

    with admin(slow) as be:
        throttle_move(be)  # orders-0 [0,1] -> [2,1]
    slow.clock.advance(1)
    slow.faults.broker_stop(1)
    await_broker_gone(lambda: admin(slow), 1)
    sentence = "broker 1 is down (not in the cluster's broker list): its replicas' state, log-dir moves and sizes are unknown"
    args = ("reassign", "progress", "--interval", "0", "-b", slow.bootstrap.split(",")[0])

    table = kadmin(*args)
    assert table.exit_code == 3, table.output
    rows = [line.split("│") for line in table.stdout.splitlines() if line.startswith("│ orders ")]
    assert {int(c[3]): c[4].strip() for c in rows if int(c[2]) == 0}[1] == DOWN
    assert "is down" not in table.stdout.replace(DOWN, "")
    assert table.stderr.count("is down") == 1 and f"kadmin: warning: {sentence}" in table.stderr

    machine = kadmin(*args, "-o", "json")
    assert machine.exit_code == 3, machine.output
    doc = json.loads(machine.stdout)  # the whole of stdout: one JSON document
    assert doc["unanswered_brokers"] == [{"broker": 1, "error": "down: not in the cluster's broker list"}]
    assert machine.stderr.count("is down") == 1 and f"kadmin: warning: {sentence}" in machine.stderr
