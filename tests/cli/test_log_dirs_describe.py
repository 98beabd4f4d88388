"""`kadmin log-dirs describe` end to end: CLI -> backend -> wire -> sandbox, both backends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from kadmin.commands.root import cli

STORAGE = "org.apache.kafka.common.errors.KafkaStorageException"


def run(*args: str, env: dict | None = None):
    return CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)


def kafka_json(sandbox, *extra):
    result = run("log-dirs", "describe", "--bootstrap-server", sandbox.bootstrap, "-o", "kafka-json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # stdout is the JSON alone: this fails on any prose


def test_kafka_json_is_kafka_log_dirs_format_with_the_clusters_figures(sandbox):
    doc = kafka_json(sandbox)
    snap = sandbox.snapshot()
    assert set(doc) == {"version", "brokers"} and doc["version"] == 1
    assert sorted(b["broker"] for b in doc["brokers"]) == sorted(snap.brokers)
    for b in doc["brokers"]:
        assert set(b) == {"broker", "logDirs"}
        broker = snap.brokers[b["broker"]]
        assert sorted(d["logDir"] for d in b["logDirs"]) == sorted(broker.dirs)
        for d in b["logDirs"]:
            assert set(d) == {"logDir", "error", "partitions"} and d["error"] is None
            expected = {f"{tp.topic}-{tp.partition}" for tp in broker.dirs[d["logDir"]].replicas}
            assert {p["partition"] for p in d["partitions"]} == expected
            for p in d["partitions"]:
                assert set(p) == {"partition", "size", "offsetLag", "isFuture"}
                assert isinstance(p["size"], int) and isinstance(p["isFuture"], bool)


def test_payments_sizes_match_the_sandbox(sandbox):
    doc = kafka_json(sandbox, "--topic-list", "payments")
    snap = sandbox.snapshot()
    seen = {}
    for b in doc["brokers"]:
        for d in b["logDirs"]:
            for p in d["partitions"]:
                assert p["partition"].startswith("payments-")
                seen[(b["broker"], p["partition"])] = p["size"]
    expected = {
        (bid, f"{tp.topic}-{tp.partition}"): r.size
        for bid, br in snap.brokers.items() for d in br.dirs.values() for tp, r in d.replicas.items()
        if tp.topic == "payments"
    }
    assert seen == expected  # payments takes no produce traffic, so sizes are stable


def test_json_output_follows_its_schema_and_reports_usage(sandbox):
    from jsonschema import validate

    from kadmin.schemas import load

    result = run("log-dirs", "describe", "-b", sandbox.bootstrap, "-o", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    validate(doc, load("log-dirs-describe"))
    snap = sandbox.snapshot()
    assert doc["cluster_id"] == snap.cluster_id
    for b in doc["brokers"]:
        assert b["rack"] == snap.brokers[b["broker"]].rack
        for d in b["log_dirs"]:
            dsnap = snap.brokers[b["broker"]].dirs[d["path"]]
            assert d["total_bytes"] == dsnap.capacity
            assert d["replica_count"] == len(dsnap.replicas)
            assert 0.0 <= d["used_fraction"] <= 1.0


def test_offline_directory_is_shown_offline_not_an_error(sandbox):
    path = sandbox.log_dir_paths(1)[0]
    sandbox.faults.dir_offline(1, path)
    doc = kafka_json(sandbox, "--broker-list", "1")
    [b1] = doc["brokers"]
    offline = next(d for d in b1["logDirs"] if d["logDir"] == path)
    assert offline == {"logDir": path, "error": STORAGE, "partitions": []}
    table = run("log-dirs", "describe", "-b", sandbox.bootstrap, "--broker-list", "1")
    assert table.exit_code == 0 and "offline" in table.stdout
    js = json.loads(run("log-dirs", "describe", "-b", sandbox.bootstrap, "-o", "json").stdout)
    d = next(d for b in js["brokers"] if b["broker"] == 1 for d in b["log_dirs"] if d["path"] == path)
    assert (d["status"], d["total_bytes"], d["usable_bytes"]) == ("offline", None, None)


@pytest.mark.parametrize("kafka_version", ["4.3"], indirect=True)  # cordoning came with Kafka 4 (DescribeLogDirs v5)
def test_cordoned_directory_is_shown_cordoned(sandbox):
    path = sandbox.log_dir_paths(0)[1]
    sandbox.faults.dir_cordon(0, path)
    js = json.loads(run("log-dirs", "describe", "-b", sandbox.bootstrap, "-o", "json").stdout)
    d = next(d for b in js["brokers"] if b["broker"] == 0 for d in b["log_dirs"] if d["path"] == path)
    assert d["status"] == "cordoned"


def test_unknown_brokers_are_named_with_the_existing_ones_exit_2(sandbox):
    result = run("log-dirs", "describe", "-b", sandbox.bootstrap, "--broker-list", "1,9")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "9" in result.stderr and "existing brokers: 0,1,2" in result.stderr


def test_log_dirs_filter_and_csv(sandbox):
    path = sandbox.log_dir_paths(0)[0]
    result = run("log-dirs", "describe", "-b", sandbox.bootstrap, "--log-dirs", path, "-o", "csv")
    assert result.exit_code == 0
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("broker,rack,log_dir,status")
    assert len(lines) == 1 + 3 and all(f",{path}," in line for line in lines[1:])


def test_a_log_dir_no_broker_has_is_named_not_shown_as_an_empty_report(sandbox):
    paths = sandbox.log_dir_paths(0)
    result = run("log-dirs", "describe", "-b", sandbox.bootstrap, "--log-dirs", f"{paths[0]},/nope", "-o", "json")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip() == (
        f"kadmin: error: --log-dirs: no broker has the log directory /nope; their directories: {', '.join(paths)}")


def test_table_shows_future_replica_in_flight(sandbox_factory):
    sb = sandbox_factory(brokers=1, log_dirs=2, manual_clock=True)
    src, dst = sb.log_dir_paths(0)
    sb.create_topic("big", assignment={0: [0]}, size_bytes=500 * 2**20, log_dirs={(0, 0): src})
    from kadmin.backends.admin import AdminBackend
    from kadmin.config import ConnectionSettings
    from kadmin.model import TopicPartitionReplica

    with AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap), read_only=False) as backend:
        assert backend.alter_replica_log_dirs({TopicPartitionReplica("big", 0, 0): dst}) == {
            TopicPartitionReplica("big", 0, 0): None}
    sb.clock.advance(0.5)
    js = json.loads(run("log-dirs", "describe", "-b", sb.bootstrap, "-o", "json").stdout)
    dirs = {d["path"]: d for d in js["brokers"][0]["log_dirs"]}
    assert dirs[dst]["future_replica_count"] == 1 and dirs[src]["replica_count"] == 1
    table = run("log-dirs", "describe", "-b", sb.bootstrap)
    assert "big-0 (" in table.stdout  # the future replica and its lag


def test_real_process_json_is_pure_and_fast_to_fail(sandbox):
    out = subprocess.run([sys.executable, "-m", "kadmin", "log-dirs", "describe", "-b", sandbox.bootstrap,
                          "-o", "json"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["version"] == 1
    assert out.stderr == ""


@pytest.mark.parametrize("command", [["log-dirs", "describe"], ["reassign", "list"], ["reassign", "progress"],
                                     ["leaders", "show"], ["throttle", "show"]])
def test_unreachable_cluster_fails_clearly_within_the_timeout(command):
    """Every read command says it the same way, whichever client library found out."""
    from tests.support.zookeeper import free_port

    t0 = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "kadmin", *command, "-b",
                          f"127.0.0.1:{free_port()}", "--timeout", "2s"], capture_output=True, text=True, timeout=60)
    elapsed = time.monotonic() - t0
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "no broker answered" in lines[0] and "Traceback" not in out.stderr
    assert elapsed < 2 + 5  # the timeout plus process start-up


def test_both_bootstrap_and_zookeeper_is_a_usage_error():
    result = run("log-dirs", "describe", "-b", "127.0.0.1:1", "--zookeeper", "127.0.0.1:2")
    assert result.exit_code == 2
    assert "--bootstrap-server" in result.stderr and "--zookeeper" in result.stderr


def test_a_bootstrap_server_without_a_port_is_a_usage_error_at_once():
    result = run("log-dirs", "describe", "-b", "localhost", "--timeout", "60s")
    assert result.exit_code == 2
    assert result.stderr.strip() == ("kadmin: error: --bootstrap-server: 'localhost' is not HOST:PORT (a port from 1 "
                                     "to 65535; an IPv6 address as [::1]:9092)")


def test_a_zookeeper_port_that_is_not_a_number_is_a_usage_error_not_a_bug():
    result = run("log-dirs", "describe", "--zookeeper", "127.0.0.1:abc/kafka", "--timeout", "60s")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines()[-1] == (
        "kadmin: error: --zookeeper: '127.0.0.1:abc' is not HOST[:PORT] (a port from 1 to 65535; an IPv6 address "
        "as [::1]:2181)")


def test_debug_shows_the_traceback_only_when_asked():
    from tests.support.zookeeper import free_port

    port = free_port()
    plain = subprocess.run([sys.executable, "-m", "kadmin", "log-dirs", "describe", "-b", f"127.0.0.1:{port}",
                            "--timeout", "1s"], capture_output=True, text=True, timeout=60)
    debug = subprocess.run([sys.executable, "-m", "kadmin", "--debug", "log-dirs", "describe", "-b",
                            f"127.0.0.1:{port}", "--timeout", "1s"], capture_output=True, text=True, timeout=60)
    assert "Traceback" not in plain.stderr
    assert "Traceback" in debug.stderr and debug.returncode == 1


@pytest.mark.parametrize("at", [0, 1, 2, 5], ids=["before the command", "after the group", "after the command",
                                                  "at the end"])
def test_debug_is_the_same_flag_before_or_after_the_command(at):
    """The unexpected-error line says "run with --debug": adding it at the end of the command
    line, where one adds it, shows the traceback (it was "No such option '--debug'")."""
    argv = ["log-dirs", "describe", "-b", "127.0.0.1:abc", "-o", "json"]
    argv.insert(at, "--debug")
    out = subprocess.run([sys.executable, "-m", "kadmin", *argv], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr  # the documented exit code of a bad address, not a usage error
    assert "Traceback" in out.stderr
    assert out.stderr.strip().splitlines()[-1].startswith("kadmin: error: --bootstrap-server: '127.0.0.1:abc'")


def test_debug_after_a_double_dash_is_not_the_flag():
    from kadmin.commands.root import debug_first

    assert debug_first(["log-dirs", "describe", "--debug"]) == ["--debug", "log-dirs", "describe"]
    assert debug_first(["--debug", "log-dirs"]) == ["--debug", "log-dirs"]
    assert debug_first(["x", "--", "--debug"]) == ["x", "--", "--debug"]
    assert debug_first(["x", "--debug", "--", "--debug"]) == ["--debug", "x", "--", "--debug"]


def test_debug_keeps_the_documented_exit_code(sandbox):
    """A script that branches on the exit code (2: bad input) behaves the same with KADMIN_DEBUG set."""
    argv = [sys.executable, "-m", "kadmin", "log-dirs", "describe", "-b", sandbox.bootstrap, "--broker-list", "9"]
    plain = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    debug = subprocess.run(argv, capture_output=True, text=True, timeout=60, env={**os.environ, "KADMIN_DEBUG": "1"})
    assert plain.returncode == debug.returncode == 2
    assert "Traceback" in debug.stderr and "Traceback" not in plain.stderr
    assert debug.stderr.strip().splitlines()[-1] == plain.stderr.strip().splitlines()[-1]


@pytest.mark.zookeeper
def test_zookeeper_mode_describes_through_brokers_found_in_zookeeper(sandbox_factory, zk_connect):
    sb = sandbox_factory(brokers=2, log_dirs=2, zookeeper=zk_connect)
    sb.create_topic("zk-topic", assignment={0: [0, 1], 1: [1, 0]}, size_bytes=2**20)
    result = run("log-dirs", "describe", "--zookeeper", zk_connect, "-o", "kafka-json")
    assert result.exit_code == 0, result.output
    assert "deprecated" in result.stderr
    doc = json.loads(result.stdout)
    parts = {p["partition"] for b in doc["brokers"] for d in b["logDirs"] for p in d["partitions"]}
    assert parts == {"zk-topic-0", "zk-topic-1"}
    # kadmin's JSON names the cluster as over --bootstrap-server: ZooKeeper's /cluster/id
    doc = json.loads(run("log-dirs", "describe", "--zookeeper", zk_connect, "-o", "json").stdout)
    assert doc["cluster_id"] == sb.snapshot().cluster_id is not None


def test_capacity_is_reported_where_the_brokers_describelogdirs_has_it(sandbox_factory, zk_connect, kafka_version):
    """TotalBytes/UsableBytes came with DescribeLogDirs v4 (Kafka 3.3, KIP-827): against 2.8
    (DescribeLogDirs v0-2) capacity is unknown, shown as such, and `log-dirs balance` evens the
    directories out by Kafka's bytes instead; from 3.3 on it is the broker's figure."""
    from jsonschema import validate

    from kadmin.schemas import load

    sb = sandbox_factory(brokers=2, log_dirs=2, zookeeper=zk_connect)
    first = sorted(sb.snapshot().brokers[0].dirs)[0]
    sb.create_topic("t", assignment={p: [0, 1] for p in range(4)}, size_bytes=64 * 2**20,
                    log_dirs={(p, b): first for p in range(4) for b in (0, 1)})
    result = run("log-dirs", "describe", "-b", sb.bootstrap, "-o", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    validate(doc, load("log-dirs-describe"))
    dirs = [d for b in doc["brokers"] for d in b["log_dirs"]]
    old = kafka_version == "2.8"
    assert all((d["total_bytes"] is None and d["used_fraction"] is None) == old for d in dirs), dirs
    assert sum(d["replica_count"] for d in dirs) == 8
    table = run("log-dirs", "describe", "-b", sb.bootstrap, env={"COLUMNS": "200"})
    assert table.exit_code == 0 and ("unknown" in table.stdout) == old
    # every replica of t sits in one directory of each broker: balance moves some out on both
    plan = run("log-dirs", "balance", "-b", sb.bootstrap, "-o", "json")
    assert plan.exit_code == 0, plan.output
    moves, notes = json.loads(plan.stdout)["moves"], json.loads(plan.stdout)["notes"]
    assert {m["broker"] for m in moves} == {0, 1}
    assert any("report no disk capacity (DescribeLogDirs before v4, Kafka before 3.3)" in n for n in notes) == old
    if old:  # by Kafka's bytes alone: two of the four 64 MiB replicas on each broker
        assert len(moves) == 4


def test_a_topic_with_no_replica_anywhere_is_named_not_silently_empty(sandbox):
    """--topic-list with a typo ("paymnets"): Kafka's tool prints empty partition lists without a
    word; kadmin prints the same and names the topic on stderr (exit 0: a filter, not a failure)."""
    r = CliRunner().invoke(cli, ["log-dirs", "describe", "-b", sandbox.bootstrap, "-o", "kafka-json",
                                                 "--topic-list", "payments,paymnets"])
    assert r.exit_code == 0, r.stderr
    assert r.stderr == "kadmin: warning: no replica of paymnets on any broker (no such topic?)\n", r.stderr
    assert json.loads(r.stdout)["brokers"]
    r = CliRunner().invoke(cli, ["log-dirs", "describe", "-b", sandbox.bootstrap, "-o", "csv",
                                                 "--topic-list", "payments", "--broker-list", "0"])
    assert r.exit_code == 0 and r.stderr == "", r.stderr


# --- a broker that is down: it holds replicas but is not among the live brokers ----------------
# Down, it was not asked: never said to have not answered (the JSON keeps the error's words).
DOWN_ERROR = ("kadmin: error: broker 1 is down (not in the cluster's broker list): the report lacks its log "
              "directories (check the broker and run it again; --broker-list leaves a broker out)")
LEFT_OUT = "kadmin: warning: broker 1 is down (not in the cluster's broker list) and is left out"


def stop_broker_1(sb, open_backend):
    """Broker 1 of four holds replicas of t (and all of lonely), then stops."""
    from tests.support.cli import await_broker_gone

    sb.create_topic("t", assignment={0: [0, 1], 1: [1, 2], 2: [2, 3], 3: [3, 0]}, size_bytes=2**20)
    sb.create_topic("lonely", assignment={0: [1]}, size_bytes=2**20)
    sb.faults.broker_stop(1)
    await_broker_gone(open_backend, 1)


def kadmin_lines(capsys, *args):
    """(exit code, stdout, stderr lines without --zookeeper's deprecation warning)."""
    from tests.support.cli import kadmin

    code, out, err = kadmin(capsys, *args)
    return code, out, [line for line in err.splitlines() if "deprecated" not in line]


def check_the_down_broker_is_named(capsys, connect):
    """Every form of `log-dirs describe` names broker 1 as down and exits 1; `--broker-list`
    takes it as a broker that exists; `log-dirs balance` says it leaves it out."""
    from jsonschema import validate

    from kadmin.schemas import load

    def describe(*args):
        return kadmin_lines(capsys, "log-dirs", "describe", *connect, *args)

    code, out, err = describe()
    assert (code, err) == (1, [DOWN_ERROR])
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in out.splitlines() if line.startswith("│")]
    assert [c[:4] for c in cells if c[0] == "1"] == [["1", "-", "down", "unknown"]], out
    code, out, err = describe("-o", "csv")
    assert (code, err) == (1, [DOWN_ERROR])
    rows = out.splitlines()[1:]
    # its bytes, replicas and future replicas are unknown: empty cells, not 0
    assert "1,,,down,,,,,,,down: not in the cluster's broker list" in rows
    assert sorted({int(r.split(",")[0]) for r in rows}) == [0, 1, 2, 3]
    code, out, err = describe("-o", "json")
    assert (code, err) == (1, [DOWN_ERROR])
    doc = json.loads(out)
    validate(doc, load("log-dirs-describe"))
    b1 = next(b for b in doc["brokers"] if b["broker"] == 1)
    assert b1 == {"broker": 1, "host": None, "port": None, "rack": None,
                  "error": "down: not in the cluster's broker list", "log_dirs": []}
    assert all(b["log_dirs"] for b in doc["brokers"] if b["broker"] != 1)
    code, out, err = describe("-o", "kafka-json")
    assert (code, err) == (1, [DOWN_ERROR])
    assert [b["broker"] for b in json.loads(out)["brokers"]] == [0, 2, 3]  # Kafka's shape has no place for it

    code, out, err = describe("--broker-list", "1", "-o", "csv")  # it exists: down, not unknown
    assert (code, err) == (1, [DOWN_ERROR])
    assert out.splitlines()[1:] == ["1,,,down,,,,,,,down: not in the cluster's broker list"]
    code, out, err = describe("--broker-list", "1,9")
    assert (code, out, err) == (2, "", ["kadmin: error: the given brokers do not exist: 9; existing brokers: "
                                        "0,1 (down),2,3"])
    code, out, err = describe("--topic-list", "lonely", "-o", "kafka-json")
    assert code == 1
    assert err == ["kadmin: warning: no replica of lonely on the brokers that answered (no such topic?)", DOWN_ERROR]

    code, out, err = kadmin_lines(capsys, "log-dirs", "balance", *connect, "-o", "json")
    assert (code, err) == (0, [LEFT_OUT])
    doc = json.loads(out)
    assert {m["broker"] for m in doc["moves"]} <= {0, 2, 3} and 1 not in {d["broker"] for d in doc["log_dirs"]}
    code, out, err = kadmin_lines(capsys, "log-dirs", "balance", *connect, "--broker-list", "1")
    assert (code, out, err) == (1, "", ["kadmin: error: broker 1 is down (not in the cluster's broker list)"])


def test_a_down_broker_is_named_not_silently_left_out(sandbox_factory, capsys):
    from tests.cli.test_throttle_down_brokers import admin

    sb = sandbox_factory(brokers=4, log_dirs=2)
    stop_broker_1(sb, lambda: admin(sb))
    check_the_down_broker_is_named(capsys, ["-b", sb.bootstrap])


@pytest.mark.zookeeper
def test_zookeeper_a_down_broker_is_named_not_silently_left_out(sandbox_factory, zk_connect, capsys):
    from kadmin.backends.zookeeper import ZooKeeperBackend

    sb = sandbox_factory(brokers=4, log_dirs=2, zookeeper=zk_connect)
    stop_broker_1(sb, lambda: ZooKeeperBackend(zk_connect, timeout=10))
    check_the_down_broker_is_named(capsys, ["--zookeeper", zk_connect])


# --- an offline directory: Kafka says nothing of what it holds ---------------------------------


def check_an_offline_directory_is_unknown_not_empty(capsys, sb, connect):
    """Broker 2's first directory, holding replicas, goes offline. DescribeLogDirs gives it
    KAFKA_STORAGE_ERROR, no topics and -1 totals: every form of `log-dirs describe` says its
    bytes, replicas and future replicas are unknown (JSON null, CSV empty, the table "unknown"),
    never 0; kafka-json is kafka-log-dirs.sh's (the error, no partitions); exit 0."""
    from jsonschema import validate

    from kadmin.schemas import load

    data0 = sb.log_dir_paths(2)[0]
    sb.create_topic("t", assignment={0: [2, 0], 1: [2, 1], 2: [2, 3], 3: [0, 2]}, size_bytes=2**20,
                    log_dirs={(p, 2): data0 for p in range(4)})
    sb.faults.dir_offline(2, data0)

    def describe(*args):
        code, out, err = kadmin_lines(capsys, "log-dirs", "describe", *connect, *args)
        assert (code, err) == (0, []), (out, err)
        return out

    rows = describe("-o", "csv").splitlines()
    assert f"2,rack-0,{data0},offline,,,,,,,{STORAGE}" in rows, rows
    doc = json.loads(describe("-o", "json"))
    validate(doc, load("log-dirs-describe"))
    [d] = [d for b in doc["brokers"] if b["broker"] == 2 for d in b["log_dirs"] if d["path"] == data0]
    assert d == {"path": data0, "status": "offline", "error": STORAGE, "used_bytes": None, "total_bytes": None,
                 "usable_bytes": None, "used_fraction": None, "replica_count": None,
                 "future_replica_count": None, "replicas": []}
    others = [d for b in doc["brokers"] for d in b["log_dirs"] if (b["broker"], d["path"]) != (2, data0)]
    assert all(isinstance(d["used_bytes"], int) and isinstance(d["replica_count"], int) for d in others)
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in describe().splitlines() if data0 in line]
    assert ["2 rack-0", data0, "offline", "unknown", "unknown", "unknown", "unknown", "unknown", "unknown",
            "unknown"] in cells, cells
    [b2] = [b for b in json.loads(describe("-o", "kafka-json"))["brokers"] if b["broker"] == 2]
    assert {"logDir": data0, "error": STORAGE, "partitions": []} in b2["logDirs"]


def test_a_topic_only_an_offline_directory_holds_is_not_said_to_be_missing(sandbox_factory, capsys, kafka_version):
    """--topic-list of a topic whose only replica sits in the offline directory: nothing lists
    it, but it is not 'no such topic?': the warning says an offline directory may hold it."""
    sb = sandbox_factory(brokers=4, log_dirs=2, racks=2)
    sb.create_topic("lonely", assignment={0: [2]}, size_bytes=2**20, log_dirs={(0, 2): sb.log_dir_paths(2)[0]})
    check_an_offline_directory_is_unknown_not_empty(capsys, sb, ["-b", sb.bootstrap])
    code, out, err = kadmin_lines(capsys, "log-dirs", "describe", "-b", sb.bootstrap, "--topic-list", "lonely",
                                  "-o", "kafka-json")
    assert (code, err) == (0, ["kadmin: warning: no replica of lonely on the log directories that could be read "
                               "(an offline directory may hold it)"])
    assert not [p for b in json.loads(out)["brokers"] for d in b["logDirs"] for p in d["partitions"]]
    code, _, err = kadmin_lines(capsys, "log-dirs", "describe", "-b", sb.bootstrap, "--topic-list", "lonely",
                                  "--broker-list", "2", "-o", "csv")
    assert (code, err) == (0, ["kadmin: warning: no replica of lonely on the brokers and log directories described "
                               "(an offline directory may hold it)"])


def test_an_offline_directory_is_unknown_not_empty(sandbox_factory, capsys, kafka_version):
    sb = sandbox_factory(brokers=4, log_dirs=2, racks=2)
    check_an_offline_directory_is_unknown_not_empty(capsys, sb, ["-b", sb.bootstrap])


@pytest.mark.zookeeper
def test_zookeeper_an_offline_directory_is_unknown_not_empty(sandbox_factory, zk_connect, capsys, kafka_version):
    sb = sandbox_factory(brokers=4, log_dirs=2, racks=2, zookeeper=zk_connect)
    check_an_offline_directory_is_unknown_not_empty(capsys, sb, ["--zookeeper", zk_connect])


def test_top_has_one_range_in_help_single_cluster_and_fleet(tmp_path):
    """Seen by hand: help said [x>=0] and a single cluster took --top 0 (an empty Largest
    column), while the fleet report refused it ('--top must be at least 1'). 0 asks for nothing:
    refused everywhere, by the option's range, which help shows."""
    from tests.fleet import fixtures as fx

    assert "[x>=1]" in " ".join(run("log-dirs", "describe", "--help").output.split())
    single = run("log-dirs", "describe", "--bootstrap-server", "127.0.0.1:1", "--top", "0")
    fleet = run("log-dirs", "describe", "--from", str(fx.log_dirs_fleet(tmp_path)), "--top", "0", "-o", "json")
    for result in (single, fleet):
        assert result.exit_code == 2 and result.stdout == ""
        assert "'--top': 0 is not in the range x>=1" in result.stderr, result.stderr
