"""`kadmin log-dirs balance` through the real Click tree over an in-memory cluster; and end to end
on the sandbox: the plan it writes is accepted and carried out by `reassign execute`, after which
balance finds nothing left to do."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time

import jsonschema
import pytest
from click.testing import CliRunner

from kadmin.backends.base import BrokerLogDirs
from kadmin.commands.root import cli
from kadmin.errors import EXIT_ERROR, EXIT_USAGE
from kadmin.model import Broker, ClusterState, LogDir, PartitionState, ReplicaInfo, TopicPartition
from kadmin.plan.reassignment_file import read_reassignment
from kadmin.schemas import load
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

GB = 10**9
MiB = 2**20


class Backend:
    """Broker 1: /a holds 6 GB, /b is empty, /c is cordoned. Broker 2 does not answer."""

    name, read_only = "fake", True

    def describe_cluster(self):
        parts = {TopicPartition("t", p): PartitionState("t", p, 1, (1, 2), (1, 2)) for p in range(6)}
        return ClusterState("c", 1, {b: Broker(b, "127.0.0.1", 9092 + b) for b in (1, 2)}, parts)

    def describe_log_dirs(self, brokers=None, topics=None):
        reps = tuple(ReplicaInfo("t", p, GB, 0, False) for p in range(6))
        dirs = (LogDir(1, "/a", None, 10 * GB, 4 * GB, False, reps), LogDir(1, "/b", None, 10 * GB, 10 * GB),
                LogDir(1, "/c", None, 10 * GB, 10 * GB, True))
        out = {1: BrokerLogDirs(1, dirs), 2: BrokerLogDirs(2, error="connection refused")}
        return {b: out[b] for b in (brokers or out)}

    def list_partition_reassignments(self, partitions=None):
        return {}


@pytest.fixture
def fake(monkeypatch):
    @contextlib.contextmanager
    def open_cluster(cluster, read_only=True):
        assert read_only, "balance must not be able to change the cluster"
        yield Backend()

    monkeypatch.setattr("kadmin.commands.log_dirs_balance.open_cluster", open_cluster)


def run(*args):
    return CliRunner().invoke(cli, ["log-dirs", "balance", *args, "--bootstrap-server", "127.0.0.1:1"])


def test_table_shows_before_and_after_and_the_plan(fake):
    r = run()
    assert r.exit_code == 0, r.output
    assert "60.0%" in r.stdout and "30.0%" in r.stdout  # /a before and after
    assert "3 moves (3.0 GB) on 1 broker" in r.stdout
    # the cordoned /c is left out of the spread, and the summary says so
    assert "within a broker: 60.0% before, 0.0% after (not counted: 1:/c (cordoned))." in r.stdout
    assert "Proposed partition reassignment configuration" in r.stdout
    assert "broker 2 did not answer DescribeLogDirs and is left out" in r.stderr


def test_json_output_is_pure_and_the_plan_file_is_a_reassignment_with_log_dirs(fake, tmp_path):
    out = tmp_path / "plan.json"
    r = run("-o", "json", "--output-file", str(out), "--broker-list", "1")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, load("log-dirs-balance-result"))
    assert [(m["source"], m["destination"]) for m in doc["moves"]] == [("/a", "/b")] * 3
    rows = {row["path"]: row for row in doc["log_dirs"]}
    assert (rows["/a"]["used_fraction_before"], rows["/a"]["used_fraction_after"]) == (0.6, 0.3)
    assert rows["/c"]["replicas_after"] == 0  # cordoned: never a target
    parsed = read_reassignment(out)
    assert not parsed.problems
    assert {a.log_dirs for _, a in parsed.entries} == {("/b", "any")}


def test_evacuate_and_its_refusal(fake):
    r = run("-o", "json", "--evacuate", "1:/a", "--broker-list", "1")
    assert r.exit_code == 0, r.output
    assert {row["path"]: row["replicas_after"] for row in json.loads(r.stdout)["log_dirs"]} == {"/a": 0, "/b": 6, "/c": 0}
    # The evacuated directory ends empty on purpose: not counted in the spread after (/b alone).
    assert json.loads(r.stdout)["brokers"] == [{"broker": 1, "spread_before": 0.6, "spread_after": 0.0}]
    r = CliRunner(env={"COLUMNS": "300"}).invoke(
        cli, ["log-dirs", "balance", "--evacuate", "1:/a", "--broker-list", "1", "-b", "127.0.0.1:1"])
    assert "60.0% before, 0.0% after (not counted: 1:/c (cordoned), 1:/a (evacuated, after))." in r.stdout
    r = run("--evacuate", "1:/b", "--evacuate", "1:/a", "--broker-list", "1")
    assert r.exit_code == EXIT_USAGE and "no other online, uncordoned directory" in r.stderr
    assert run("--evacuate", "1-/a").exit_code == EXIT_USAGE


def test_max_moves_and_unanswered_brokers(fake):
    r = run("-o", "json", "--max-moves", "1", "--broker-list", "1")
    assert len(json.loads(r.stdout)["moves"]) == 1
    r = run("--broker-list", "2")
    assert r.exit_code == EXIT_ERROR and "broker 2 did not answer DescribeLogDirs" in r.stderr
    assert run("--broker-list", "9").exit_code == EXIT_USAGE


class OfflineBackend(Backend):
    """Broker 1 as in Backend, but /b is offline (KAFKA_STORAGE_ERROR: nothing listed, -1 totals)."""

    def describe_log_dirs(self, brokers=None, topics=None):
        out = super().describe_log_dirs(brokers, topics)
        a, b, c = out[1].log_dirs
        return {**out, 1: BrokerLogDirs(1, (a, LogDir(1, "/b", "KafkaStorageException"), c))}


def test_an_offline_directorys_figures_are_unknown_and_the_result_has_a_version(monkeypatch):
    @contextlib.contextmanager
    def open_cluster(cluster, read_only=True):
        yield OfflineBackend()

    monkeypatch.setattr("kadmin.commands.log_dirs_balance.open_cluster", open_cluster)
    r = run("-o", "json", "--broker-list", "1")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, load("log-dirs-balance-result"))
    assert doc["version"] == 1 and doc["moves"] == []
    rows = {row["path"]: row for row in doc["log_dirs"]}
    assert [rows["/b"][k] for k in ("replica_bytes_before", "replica_bytes_after", "replicas_before",
                                     "replicas_after")] == [None] * 4
    assert (rows["/a"]["replica_bytes_before"], rows["/a"]["replicas_before"]) == (6 * GB, 6)
    table = CliRunner(env={"COLUMNS": "200"}).invoke(
        cli, ["log-dirs", "balance", "--broker-list", "1", "-b", "127.0.0.1:1"]).stdout
    row = next(line for line in table.splitlines() if "/b" in line)
    assert "offline" in row and row.count("unknown") == 4 and " 0 B" not in row, row


def test_evacuating_a_directory_of_a_broker_that_does_not_exist_says_so(fake):
    # Without --broker-list it said "broker 9 is not in the broker list": there was none.
    r = run("--evacuate", "9:/a")
    assert r.exit_code == EXIT_USAGE
    assert "kadmin: error: --evacuate 9:/a: the given brokers do not exist: 9; existing brokers: 1,2\n" == r.stderr


def _kadmin(sb, *args, check=True):
    p = subprocess.run([sys.executable, "-m", "kadmin", *args, "--bootstrap-server", sb.bootstrap],
                       capture_output=True, text=True, timeout=120)
    assert not check or p.returncode == 0, p.stderr
    return p


def test_plan_is_executed_by_reassign_execute_on_the_sandbox(sandbox_factory, tmp_path):
    sb = sandbox_factory(brokers=2, log_dirs=3, speed=50.0, dir_capacity=2**30)
    first = sb.log_dir_paths(0)[0], sb.log_dir_paths(1)[0]
    sb.create_topic("logs", assignment={p: [0, 1] for p in range(6)}, size_bytes=16 * MiB,
                    log_dirs={(p, b): first[b] for p in range(6) for b in (0, 1)})
    plan = tmp_path / "plan.json"
    doc = json.loads(_kadmin(sb, "log-dirs", "balance", "-o", "json", "--output-file", str(plan)).stdout)
    assert {m["source"] for m in doc["moves"]} == set(first)
    assert len(doc["moves"]) == 8  # 6 partitions of 16 MiB over 3 dirs: 2 stay, 4 leave, per broker
    assert max(b["spread_after"] for b in doc["brokers"]) < 0.002
    dry = _kadmin(sb, "reassign", "execute", "--reassignment-json-file", str(plan), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    _kadmin(sb, "reassign", "execute", "--reassignment-json-file", str(plan),
            "--rollback-file", str(tmp_path / "rollback.json"))
    deadline = time.monotonic() + 60
    while True:  # the moves complete at the sandbox's pace: poll what DescribeLogDirs shows
        again = json.loads(_kadmin(sb, "log-dirs", "balance", "-o", "json").stdout)
        observed = sorted(r["replicas_before"] for r in again["log_dirs"])  # futures count while in flight
        if observed == [2] * 6:
            break
        assert time.monotonic() < deadline, f"moves not done after 60 s: {again['log_dirs']}"
        time.sleep(0.2)
    assert again["moves"] == []  # balanced: nothing left to do


def test_directories_sharing_one_filesystem_are_balanced_by_kafka_bytes_on_the_sandbox(sandbox_factory):
    sb = sandbox_factory(brokers=2, log_dirs=2, manual_clock=True, shared_fs=True, dir_capacity=2**30)
    first = sb.log_dir_paths(0)[0]
    sb.create_topic("logs", assignment={p: [0, 1] for p in range(4)}, size_bytes=16 * MiB,
                    log_dirs={(p, b): first for p in range(4) for b in (0, 1)})
    doc = json.loads(_kadmin(sb, "log-dirs", "balance", "-o", "json").stdout)
    jsonschema.validate(doc, load("log-dirs-balance-result"))
    rows = doc["log_dirs"]
    assert len({(r["total_bytes"], r["usable_bytes_before"]) for r in rows}) == 1  # one filesystem
    assert len(doc["moves"]) == 4  # two of the four 16 MiB replicas leave on each broker
    assert sorted(r["replica_bytes_after"] for r in rows) == [32 * MiB] * 4
    assert len(doc["notes"]) == 1 and "share one filesystem" in doc["notes"][0]
    table = _kadmin(sb, "log-dirs", "balance").stdout
    assert "Note: brokers 0, 1: the log directories share one filesystem" in table


def test_evacuate_skips_stray_logs_of_a_cancelled_move_and_a_deleted_topic(sandbox_factory):
    from kafka import TopicPartition as KTP

    from tests.sandbox.clients import kafka_python

    sb = sandbox_factory(brokers=3, log_dirs=2, manual_clock=True, bandwidth=MiB)
    d0, d1 = sb.log_dir_paths(2)
    sb.create_topic("keep", assignment={0: [2]}, size_bytes=MiB, log_dirs={(0, 2): d1})
    sb.create_topic("gone", assignment={0: [2]}, size_bytes=MiB, log_dirs={(0, 2): d1})
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=10 * MiB)
    with kafka_python(sb) as admin:
        admin.alter_replica_log_dirs({("t", 0, 2): d1})  # where broker 2 will create its copy
        assert admin.alter_partition_reassignments({KTP("t", 0): [2, 1]}) == {KTP("t", 0): None}
        sb.clock.advance(3)
        assert admin.alter_partition_reassignments({KTP("t", 0): None}) == {KTP("t", 0): None}
        admin.delete_topics(["gone"])
    assert sb.snapshot().replica_dir("keep", 0, 2) == d1
    assert set(sb.snapshot().brokers[2].dirs[d1].strays) == {TopicPartition("t", 0), TopicPartition("gone", 0)}
    r = _kadmin(sb, "log-dirs", "balance", "-o", "json", "--evacuate", f"2:{d1}")
    doc = json.loads(r.stdout)
    assert [(m["topic"], m["destination"]) for m in doc["moves"]] == [("keep", d0)]
    assert doc["notes"] == [
        f"broker 2 {d1}: 2 stray logs left in place, not replicas to move (a deleted topic's log, or the copy "
        "a cancelled move left; Kafka removes them itself): gone-0 (unknown partition), "
        "t-0 (not a replica of this broker)"]


def test_a_partition_being_reassigned_stays_where_it_is_over_the_adminclient_protocol(sandbox_factory, tmp_path):
    """Metadata lists a moving partition's full replica set and no adding/removing replicas: balance
    must learn of the move from ListPartitionReassignments, as it does from ZooKeeper's topic znode,
    and not plan to move a replica of it (its plan, naming the full set, would change the
    replication factor and be refused); generate counts the partition by its replicas before the
    move, not the full set in flight."""
    from kafka import TopicPartition as KTP

    from tests.sandbox.clients import kafka_python

    sb = sandbox_factory(brokers=3, log_dirs=2, manual_clock=True, bandwidth=MiB)
    d0, d1 = sb.log_dir_paths(1)
    sb.create_topic("t", assignment={0: [2, 1]}, size_bytes=10 * MiB, log_dirs={(0, 1): d1})
    with kafka_python(sb) as admin:
        assert admin.alter_partition_reassignments({KTP("t", 0): [0, 1]}) == {KTP("t", 0): None}
    sb.clock.advance(1)  # copying at 1 MiB/s: still in flight
    r = _kadmin(sb, "log-dirs", "balance", "--evacuate", f"1:{d1}", check=False)
    assert r.returncode == EXIT_USAGE, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"kadmin: error: cannot evacuate broker 1 {d1}: some replicas there may not move", "  - t-0 (being reassigned)"]
    topics = tmp_path / "topics.json"
    topics.write_text('{"version":1,"topics":[{"topic":"t"}]}')
    r = _kadmin(sb, "reassign", "generate", "--topics-to-move-json-file", str(topics), "--broker-list", "0,1,2",
                "-o", "json")
    doc = json.loads(r.stdout)
    assert doc["current"]["partitions"] == [{"topic": "t", "partition": 0, "replicas": [1, 2]}]  # before the move
    assert [len(p["replicas"]) for p in doc["proposed"]["partitions"]] == [2]


def test_a_reassignment_in_flight_counts_as_done_on_the_sandbox(sandbox_factory):
    """The tester's broker 3: a reassignment takes broker 1's three "leaving" replicas (all in
    d0) to broker 2. Counted as staying, d0 (40 MiB) looked four times as full as d1 and d2
    (10 MiB each) and the plan moved "stay-0" out of it, leaving d0 near empty once the
    reassignment ends. They count as gone: nothing to move on broker 1. Broker 2's copies,
    barely started, count at their leader's size."""
    from kafka import TopicPartition as KTP

    from tests.sandbox.clients import kafka_python

    sb = sandbox_factory(brokers=3, log_dirs=3, manual_clock=True, bandwidth=MiB, dir_capacity=2**30)
    d = sb.log_dir_paths(1)
    sb.create_topic("leaving", assignment={p: [0, 1] for p in range(3)}, size_bytes=10 * MiB,
                    log_dirs={(p, 1): d[0] for p in range(3)})
    sb.create_topic("stay", assignment={p: [1] for p in range(3)}, size_bytes=10 * MiB,
                    log_dirs={(p, 1): d[p] for p in range(3)})
    with kafka_python(sb) as admin:
        admin.alter_partition_reassignments({KTP("leaving", p): [0, 2] for p in range(3)})
    sb.clock.advance(1)  # copying at 1 MiB/s: still in flight
    doc = json.loads(_kadmin(sb, "log-dirs", "balance", "-o", "json").stdout)
    jsonschema.validate(doc, load("log-dirs-balance-result"))
    assert [m for m in doc["moves"] if m["broker"] == 1] == []
    rows = {(r["broker"], r["path"]): r for r in doc["log_dirs"]}
    assert rows[1, d[0]]["replica_bytes_before"] == 40 * MiB  # now
    assert [rows[1, p]["replica_bytes_after"] for p in d] == [10 * MiB] * 3  # once the reassignment is done
    assert sum(r["replica_bytes_after"] for (b, _), r in rows.items() if b == 2) == 30 * MiB
    (note,) = doc["notes"]
    assert "broker 1: 3 replicas it removes (31.5 MB) counted as gone" in note
    assert "broker 2: 3 replicas it adds counted at full size" in note


def test_a_broker_named_twice_is_refused_before_the_cluster_is_read(monkeypatch):
    """As reassign balance and reassign generate refuse it (Kafka's tool too): exit 2, one line."""
    def open_cluster(cluster, read_only=True):
        raise AssertionError("the cluster must not be read")

    monkeypatch.setattr("kadmin.commands.log_dirs_balance.open_cluster", open_cluster)
    for flag in ("0,0", "0,2,2,9"):
        r = run("--broker-list", flag)
        assert (r.exit_code, r.stdout) == (EXIT_USAGE, ""), r.output
        dupe = flag.split(",")[1]
        assert r.stderr == f"kadmin: error: Broker list contains duplicate entries: {dupe}\n"


def test_table_shows_paths_as_written(fake, monkeypatch):
    """A directory named with brackets is a path, not console markup."""
    real = Backend.describe_log_dirs

    def bracketed(self, brokers=None, topics=None):
        import dataclasses

        out = real(self, brokers, topics)
        b1 = out[1]
        return {**out, 1: dataclasses.replace(
            b1, log_dirs=tuple(dataclasses.replace(d, path=f"/[bold]{d.path[1:]}") for d in b1.log_dirs))}

    monkeypatch.setattr(Backend, "describe_log_dirs", bracketed)
    r = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["log-dirs", "balance", "--bootstrap-server", "127.0.0.1:1"])
    assert r.exit_code == 0, r.output
    assert "/[bold]a" in r.stdout and "/[bold]b" in r.stdout


@pytest.mark.parametrize("command", ["log-dirs", "reassign"])
def test_an_output_file_that_cannot_be_written_is_refused_before_any_output(fake, monkeypatch, tmp_path, command):
    """As reassign generate: the path is checked before the cluster is asked or anything printed
    (it printed the whole plan, then said Errno 2 about a '.tmp' name), named as given."""
    from kadmin.errors import EXIT_USAGE

    monkeypatch.setattr("kadmin.commands.reassign_balance.open_cluster", lambda *a, **k: pytest.fail("asked"))
    if command == "log-dirs":
        monkeypatch.setattr("kadmin.commands.log_dirs_balance.open_cluster", lambda *a, **k: pytest.fail("asked"))
    missing = tmp_path / "nowhere" / "plan.json"
    r = CliRunner().invoke(cli, [command, "balance", "--output-file", str(missing), "-b", "127.0.0.1:1"])
    assert r.exit_code == EXIT_USAGE and r.stdout == ""
    assert f"cannot write the plan to {missing}: its directory {missing.parent} does not exist" in r.stderr
    assert ".tmp" not in r.stderr
