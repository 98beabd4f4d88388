"""`kadmin reassign balance` through the real Click tree over an in-memory cluster; on the sandbox
(skewed topics made with size_bytes and assignments); and end to end: the plan it writes, run by
`reassign execute --wait`, leaves the sandbox's brokers and disks within the threshold, also on
Kafka 2.8, whose brokers report no disk capacity (Kafka bytes are balanced then)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time

import jsonschema
import pytest
from click.testing import CliRunner

from kadmin.backends.base import BrokerLogDirs, Capability
from kadmin.commands.root import cli
from kadmin.errors import EXIT_ERROR, EXIT_USAGE
from kadmin.model import PartitionReassignment, TopicPartition
from kadmin.plan.reassignment_file import read_reassignment
from kadmin.schemas import load
from tests.support.broker_balance import GB, build
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

MiB = 2**20


class Backend:
    """No racks. Brokers 1-3 hold "logs" (6 x 10 GB, RF 3) in /d0; broker 4 is empty; broker 5 does not
    answer DescribeLogDirs; logs-5 is being reassigned."""

    name, read_only = "fake", True
    capabilities = frozenset({Capability.LOG_DIRS, Capability.LIST_REASSIGNMENTS})

    def __init__(self):
        self.cluster, self.dirs = build(dict.fromkeys(range(1, 6)), {("logs", p): [1 + (p + k) % 3 for k in range(3)] for p in range(6)},
                                        10 * GB, capacity=100 * GB)

    def describe_cluster(self):
        return self.cluster

    def describe_log_dirs(self, brokers=None, topics=None):
        out = {b: BrokerLogDirs(b, tuple(ds)) for b, ds in self.dirs.items()}
        out[5] = BrokerLogDirs(5, error="connection refused")
        return {b: out[b] for b in (brokers or out)}

    def list_partition_reassignments(self, partitions=None):
        tp = TopicPartition("logs", 5)
        return {tp: PartitionReassignment("logs", 5, (3, 1, 2), (), ())}


@pytest.fixture
def fake(monkeypatch):
    @contextlib.contextmanager
    def open_cluster(cluster, read_only=True):
        assert read_only, "balance must not be able to change the cluster"
        yield Backend()

    monkeypatch.setattr("kadmin.commands.reassign_balance.open_cluster", open_cluster)


def run(*args):
    return CliRunner().invoke(cli, ["reassign", "balance", *args, "--bootstrap-server", "127.0.0.1:1"])


def test_table_shows_brokers_and_dirs_before_and_after_the_bytes_the_time_and_why_it_stopped(fake):
    r = run("--throttle", "100MB/s")
    assert r.exit_code == 0, r.output
    assert "Brokers: used share now (before)" in r.stdout and "Log directories" in r.stdout
    assert "replica moves between brokers" in r.stdout and "at least" in r.stdout
    assert "Estimated copy time between brokers at 100.0 MB/s (--throttle): " in r.stdout
    assert "Stopped: balanced." in r.stdout
    assert "Proposed partition reassignment configuration" in r.stdout
    assert "broker 5 did not answer DescribeLogDirs and is left out" in r.stderr


def test_json_is_pure_and_valid_and_the_plan_file_carries_absolute_log_dirs(fake, tmp_path):
    out = tmp_path / "plan.json"
    r = run("-o", "json", "--output-file", str(out), "--throttle", "50MB/s")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, load("reassign-balance-result"))
    assert doc["stopped"] == "balanced" and doc["estimated_seconds"] > 0
    assert {m["dest_broker"] for m in doc["moves"] if m["source_broker"] != m["dest_broker"]} == {4}
    assert all(m["partition"] != 5 for m in doc["moves"])  # being reassigned: left alone
    parsed = read_reassignment(out)
    assert not parsed.problems
    for _, entry in parsed.entries:
        for b, d in zip(entry.replicas, entry.log_dirs):
            moved = any(m["dest_broker"] == b and m["partition"] == entry.partition for m in doc["moves"])
            assert d == (doc_dir(doc, entry.partition, b) if moved else "any")
    again = run("--output-file", str(out))
    assert again.exit_code == EXIT_USAGE and "already exists" in again.stderr


def doc_dir(doc, partition, broker):
    return next(m["dest_dir"] for m in doc["moves"] if m["partition"] == partition and m["dest_broker"] == broker)


def test_a_plan_stopping_short_of_the_threshold_says_its_bound_is_more_than_it_moves(fake):
    """The bytes any plan must move to reach --threshold are a bound on a plan that reaches it:
    one that stops short (--max-moves) does not read as moving less than it needs."""
    doc = json.loads(run("-o", "json", "--max-moves", "1").stdout)
    assert doc["bytes_between_brokers"] < doc["lower_bound_bytes"]
    r = run("--max-moves", "1")
    assert r.exit_code == 0, r.output
    assert "reaching the threshold takes at least 35.0 GB, more than this plan moves" in r.stdout, r.stdout
    assert "needed)" not in r.stdout and "Stopped: limit reached" in r.stdout


class Moving(Backend):
    """logs-5 being reassigned from broker 3 to broker 4, which has not begun the copy."""

    def __init__(self):
        from dataclasses import replace

        super().__init__()
        tp = TopicPartition("logs", 5)
        self.cluster.partitions[tp] = replace(self.cluster.partitions[tp], replicas=(3, 1, 2, 4))

    def list_partition_reassignments(self, partitions=None):
        return {TopicPartition("logs", 5): PartitionReassignment("logs", 5, (3, 1, 2, 4), (4,), (3,))}


def test_before_is_now_and_after_counts_a_reassignment_in_flight_with_a_note(monkeypatch):
    """As log-dirs balance says it: 'before' is what log-dirs describe shows, 'after' once the
    reassignment in flight and the plan are done, and a note says per broker what was counted."""

    @contextlib.contextmanager
    def open_cluster(cluster, read_only=True):
        yield Moving()

    monkeypatch.setattr("kadmin.commands.reassign_balance.open_cluster", open_cluster)
    r = run("-o", "json", "--max-moves", "0")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, load("reassign-balance-result"))
    brokers = {u["broker"]: u for u in doc["brokers"]}
    assert (brokers[3]["used_bytes_before"], brokers[3]["used_bytes_after"]) == (60 * GB, 50 * GB)
    assert (brokers[4]["used_bytes_before"], brokers[4]["used_bytes_after"]) == (0, 10 * GB)
    dirs = {(u["broker"], u["path"]): u for u in doc["log_dirs"]}
    assert (dirs[3, "/d0"]["replica_bytes_before"], dirs[3, "/d0"]["replica_bytes_after"]) == (60 * GB, 50 * GB)
    (note,) = [n for n in doc["notes"] if "in flight" in n]
    assert note.startswith("a reassignment between brokers is in flight; 'after' is once it and this plan are done, "
                           "'before' is now: broker 3: 1 replica it removes (10.0 GB) counted as gone; broker 4: "
                           "1 replica it adds not in any directory yet counted at full size (10.0 GB)")
    table = run("--max-moves", "0")
    assert "Brokers: used share now (before) and once the moves in flight and the plan are done (after)" in " ".join(
        table.stdout.split())
    assert "Note: a reassignment between brokers is in flight" in table.stdout


@pytest.mark.parametrize("args, words", [
    (["--threshold", "lots"], "expected a percentage"),
    (["--threshold", "150%"], "--threshold must be between"),
    (["--max-bytes", "5Mb"], "ambiguous"),
    (["--exclude-topics", "("], "not a regular expression"),
    (["--topic-list", "nope"], "unknown topic: nope"),
    (["--broker-list", "9"], "do not exist: 9"),
    (["--broker-list", "1,2,1,2,3"], "Broker list contains duplicate entries: 1, 2"),  # as reassign generate says
])
def test_bad_input_is_refused_with_exit_2(fake, args, words):
    r = run(*args)
    assert r.exit_code == EXIT_USAGE, r.output
    assert words in r.output


def test_limits_and_a_broker_that_does_not_answer(fake):
    doc = json.loads(run("-o", "json", "--max-moves", "1").stdout)
    assert len(doc["moves"]) == 1 and doc["stopped"] == "limit reached"
    r = run("--broker-list", "4,5")
    assert r.exit_code == EXIT_ERROR and "broker 5 did not answer DescribeLogDirs" in r.stderr


def test_a_broker_with_an_offline_directory_is_named_in_a_note(monkeypatch):
    backend = Backend()
    backend.cluster, backend.dirs = build(dict.fromkeys(range(1, 6)), {("logs", p): [1 + (p + k) % 3 for k in range(3)]
                                                                      for p in range(6)},
                                          10 * GB, dirs=3, capacity=100 * GB, offline={(4, 2)})

    @contextlib.contextmanager
    def open_cluster(cluster, read_only=True):
        yield backend

    monkeypatch.setattr("kadmin.commands.reassign_balance.open_cluster", open_cluster)
    r = run("-o", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, load("reassign-balance-result"))
    assert len(doc["notes"]) == 1 and doc["notes"][0].startswith("broker 4: log directory /d2 is offline")
    assert doc["moves"] and all(4 not in (m["source_broker"], m["dest_broker"]) for m in doc["moves"])
    (four,) = [b for b in doc["brokers"] if b["broker"] == 4]
    assert [four[k] for k in ("used_bytes_before", "share_before", "replicas_before", "replicas_after")] == [None] * 4
    (offline,) = [d for d in doc["log_dirs"] if (d["broker"], d["path"]) == (4, "/d2")]
    assert [offline[k] for k in ("replica_bytes_before", "replica_bytes_after", "replicas_before")] == [None] * 3
    table = run().stdout
    assert "Note: broker 4: log directory /d2 is offline" in table
    row = next(line for line in table.splitlines() if "/d2" in line and "offline" in line)
    assert row.count("unknown") == 3 and " 0 B" not in row, row  # used before, after, Kafka bytes
    row = next(line for line in table.splitlines() if line.split("│")[1:2] == ["      4 "])
    assert row.count("unknown") == 3, row  # its share before, after, replicas


class NoCapacityBackend(Backend):
    """Backend's cluster as Kafka before 3.3 reports it (no total or usable bytes), with broker 1's
    replicas all in /d0 and broker 4 holding one small partition."""

    def __init__(self):
        from dataclasses import replace

        assign = {("logs", p): [1 + (p + k) % 3 for k in range(3)] for p in range(6)} | {("tiny", 0): [4]}
        size = {("logs", p): 10 * GB for p in range(6)} | {("tiny", 0): GB}
        self.cluster, dirs = build(dict.fromkeys(range(1, 6)), assign, size, dirs=2)
        self.dirs = {b: [replace(d, total_bytes=None, usable_bytes=None) for d in ds] for b, ds in dirs.items()}


@pytest.fixture
def no_capacity(monkeypatch):
    @contextlib.contextmanager
    def open_cluster(cluster, read_only=True):
        yield NoCapacityBackend()

    monkeypatch.setattr("kadmin.commands.reassign_balance.open_cluster", open_cluster)


def test_without_capacity_shares_of_the_kafka_bytes_are_shown_with_a_note_and_no_capacity_is_made_up(no_capacity):
    r = run()
    assert r.exit_code == 0, r.output
    text = " ".join(r.stdout.split())
    assert ("Brokers: share of the Kafka bytes now (before) and once the moves in flight and the plan are done "
            "(after) (band 23.8%..26.2%, mean 25.0%)") in text
    assert "Share before" in text and "Brokers: used share" not in text
    assert "Widest distance of a broker's share of the Kafka bytes from the mean (25.0%)" in text
    assert ("Note: brokers 1, 2, 3, 4 report no disk capacity (DescribeLogDirs before v4, Kafka before 3.3), so "
            "their directories were taken as equal in size and Kafka bytes balanced") in text
    assert "--threshold 5.0% is taken relative to that mean (23.8%..26.2%)" in text
    doc = json.loads(run("-o", "json").stdout)
    jsonschema.validate(doc, load("reassign-balance-result"))
    assert doc["balanced_on"] == "kafka_bytes" and doc["mean_used_fraction"] is None
    assert doc["mean_share"] == 0.25 and doc["band"] == pytest.approx([0.2375, 0.2625])
    for b in doc["brokers"]:
        assert b["capacity_bytes"] is None and b["used_fraction_before"] is None and b["used_fraction_after"] is None
    assert all(d["total_bytes"] is None and d["used_fraction_after"] is None for d in doc["log_dirs"])
    assert {m["dest_broker"] for m in doc["moves"] if m["source_broker"] != m["dest_broker"]} == {4}
    assert any(m["source_broker"] == m["dest_broker"] for m in doc["moves"])  # /d0 -> /d1 on brokers 1-3
    # 10 GB replicas cannot bring 181 GB within 45.25 GB +- 5% on each of 4 brokers: the furthest
    # get closer, and what is left outside is said in the same terms as the table.
    spread = [max(abs(b[k] - 0.25) for b in doc["brokers"]) for k in ("share_before", "share_after")]
    assert spread[1] < spread[0]
    assert doc["stopped"] == "cannot improve"
    assert "broker 1: 27.6% of the Kafka bytes, outside 23.8%..26.2%; no replica can move" in doc["unresolved"][0]
    assert any(" of Kafka bytes, outside " in u and "its broker's mean directory" in u for u in doc["unresolved"])
    assert not any("% used" in u for u in doc["unresolved"])


def test_copy_time_covers_moves_between_directories_at_their_own_rate_or_says_it_does_not(no_capacity):
    # Moves between brokers (to broker 4) and between directories of brokers 1-3.
    r = run("--throttle", "50MB/s")
    assert r.exit_code == 0, r.output
    out = " ".join(r.stdout.split())
    assert "Estimated copy time between brokers at 50.0 MB/s (--throttle): " in out
    assert "Moves between directories (" in out and "are not paced by --throttle and not in any estimate" in out
    assert " 0s" not in out
    r = run("--throttle", "50MB/s", "--replica-alter-log-dirs-throttle", "100MB/s")
    out = " ".join(r.stdout.split())
    assert "Estimated copy time between directories at 100.0 MB/s (--replica-alter-log-dirs-throttle): " in out
    assert "not paced" not in out
    doc = json.loads(run("-o", "json", "--throttle", "50MB/s", "--replica-alter-log-dirs-throttle", "100MB/s").stdout)
    jsonschema.validate(doc, load("reassign-balance-result"))
    per_broker: dict = {}
    for m in doc["moves"]:
        if m["source_broker"] == m["dest_broker"]:
            per_broker[m["source_broker"]] = per_broker.get(m["source_broker"], 0) + m["size_bytes"]
    assert doc["log_dir_throttle_bytes_per_second"] == 10**8
    assert doc["estimated_seconds_between_dirs"] == max(per_broker.values()) / 10**8 > 0
    assert doc["estimated_seconds"] > 0
    r = run("--replica-alter-log-dirs-throttle", "100MB/s")
    assert "are not paced by --replica-alter-log-dirs-throttle" in " ".join(r.stdout.split())
    # Broker 1 alone: moves between its directories only. No "0s" for them at --throttle.
    r = run("--broker-list", "1", "--throttle", "50MB/s")
    out = " ".join(r.stdout.split())
    assert "0 replica moves between brokers" in out and "between directories (30.0 GB)" in out
    assert "Estimated copy time" not in out and "Moves between directories (30.0 GB) are not paced by --throttle" in out


# --- on the sandbox ---------------------------------------------------------------------------------

def _kadmin(sb, *args):
    return subprocess.run([sys.executable, "-m", "kadmin", *args, "--bootstrap-server", sb.bootstrap],
                          capture_output=True, text=True, timeout=180)


def _skewed(sandbox_factory, **kwargs):  # noqa: F811
    """4 brokers on 2 racks, 2 x 256 MiB disks each: "big" (6 x 16 MiB, RF 2) on brokers 0 and 1,
    all in their first directory; "small" (4 x 1 MiB) on brokers 2 and 3."""
    kwargs.setdefault("speed", 50.0)
    sb = sandbox_factory(brokers=4, log_dirs=2, racks=2, dir_capacity=256 * MiB, **kwargs)
    first = {b: sb.log_dir_paths(b)[0] for b in range(4)}
    sb.create_topic("big", assignment={p: [p % 2, 1 - p % 2] for p in range(6)}, size_bytes=16 * MiB,
                    log_dirs={(p, b): first[b] for p in range(6) for b in (0, 1)})
    sb.create_topic("small", assignment={p: [2 + p % 2, 3 - p % 2] for p in range(4)}, size_bytes=MiB)
    return sb


def _within(doc, threshold=0.05) -> bool:
    mean = doc["mean_used_fraction"]
    brokers = {b["broker"]: b["used_fraction_before"] for b in doc["brokers"]}
    dirs_ok = all(abs(d["used_fraction_before"] - brokers[d["broker"]]) <= threshold + 1e-9
                  for d in doc["log_dirs"] if d["status"] == "online")
    return dirs_ok and all(abs(f - mean) <= threshold + 1e-9 for f in brokers.values())


def test_plan_on_the_sandbox_moves_bytes_to_the_light_brokers(sandbox_factory, tmp_path):  # noqa: F811
    sb = _skewed(sandbox_factory)
    p = _kadmin(sb, "reassign", "balance", "-o", "json", "--output-file", str(tmp_path / "plan.json"))
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    jsonschema.validate(doc, load("reassign-balance-result"))
    assert not _within(doc) and doc["stopped"] == "balanced"
    inter = [m for m in doc["moves"] if m["source_broker"] != m["dest_broker"]]
    assert inter and {m["source_broker"] for m in inter} <= {0, 1} and {m["dest_broker"] for m in inter} <= {2, 3}
    racks = {0: "rack-0", 1: "rack-1", 2: "rack-0", 3: "rack-1"}
    for entry in doc["plan"]["partitions"]:
        assert len({racks[b] for b in entry["replicas"]}) == 2  # "big" was rack-aware and stays so
    assert doc["bytes_between_brokers"] >= doc["lower_bound_bytes"] > 0


def test_the_plan_executed_with_wait_brings_the_sandbox_within_the_threshold(sandbox_factory, tmp_path):  # noqa: F811
    sb = _skewed(sandbox_factory)
    plan = tmp_path / "plan.json"
    first = json.loads(_kadmin(sb, "reassign", "balance", "-o", "json", "--output-file", str(plan)).stdout)
    assert not _within(first)
    kinds = {m["source_broker"] == m["dest_broker"] for m in first["moves"]}
    assert kinds == {True, False}  # moves between brokers and between the disks of one broker
    done = _kadmin(sb, "reassign", "execute", "--reassignment-json-file", str(plan), "--wait", "--interval", "0.2s",
                   "--rollback-file", str(tmp_path / "rollback.json"))
    assert done.returncode == 0, done.stderr + done.stdout
    after = _kadmin(sb, "reassign", "balance", "-o", "json")
    assert after.returncode == 0, after.stderr
    doc = json.loads(after.stdout)
    assert _within(doc), doc["brokers"]
    assert doc["moves"] == [] and doc["stopped"] == "balanced"
    # Every moved replica landed in the directory the plan named.
    snap = sb.snapshot()
    for m in first["moves"]:
        assert snap.replica_dir(m["topic"], m["partition"], m["dest_broker"]) == m["dest_dir"]


def test_a_partition_being_reassigned_is_left_alone(sandbox_factory, tmp_path):  # noqa: F811
    sb = _skewed(sandbox_factory, manual_clock=True, speed=1.0)
    moving = tmp_path / "moving.json"
    moving.write_text(json.dumps({"version": 1, "partitions": [{"topic": "big", "partition": 2, "replicas": [2, 1]}]}))
    started = _kadmin(sb, "reassign", "execute", "--reassignment-json-file", str(moving),
                      "--rollback-file", str(tmp_path / "rollback.json"))
    assert started.returncode == 0, started.stderr
    assert sb.snapshot().partition("big", 2).reassigning  # the clock is stopped: it stays in flight
    p = _kadmin(sb, "reassign", "balance", "-o", "json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["moves"]
    assert all((e["topic"], e["partition"]) != ("big", 2) for e in doc["plan"]["partitions"])
    # Before is now; after counts it as done: broker 2 holds big-2 (16 MiB, nothing copied yet)
    # and broker 0 no longer does. Over --bootstrap-server the adding and removing replicas come
    # from ListPartitionReassignments (Metadata lists the whole replica set and nothing more).
    brokers = {b["broker"]: b for b in doc["brokers"]}
    # As log-dirs describe shows them now: broker 2 lists the new replica already (copy begun).
    assert (brokers[0]["replicas_before"], brokers[2]["replicas_before"]) == (6, 5)
    moved = {m["source_broker"] for m in doc["moves"]} | {m["dest_broker"] for m in doc["moves"]}
    if not moved & {0, 2}:
        assert (brokers[0]["replicas_after"], brokers[2]["replicas_after"]) == (5, 5)
        assert brokers[2]["used_bytes_after"] - brokers[2]["used_bytes_before"] >= 16 * MiB
    assert any(n.startswith("a reassignment between brokers is in flight") for n in doc["notes"])


def test_a_down_broker_is_named_and_left_out(sandbox_factory, tmp_path):  # noqa: F811
    sb = _skewed(sandbox_factory)
    sb.faults.broker_stop(3)
    p = _kadmin(sb, "reassign", "balance", "-o", "json")
    assert p.returncode == 0, p.stderr
    assert "kadmin: warning: broker 3 is down (not in the cluster's broker list) and is left out\n" in p.stderr
    assert "did not answer" not in p.stderr, p.stderr
    assert 3 not in {b["broker"] for b in json.loads(p.stdout)["brokers"]}
    named = _kadmin(sb, "reassign", "balance", "--broker-list", "0,3")
    assert named.returncode == 1, named.stderr
    assert "kadmin: error: broker 3 is down (not in the cluster's broker list)" in named.stderr, named.stderr


def test_with_an_offline_directory_the_plan_passes_execute_dry_run(sandbox_factory, tmp_path):  # noqa: F811
    """Brokers 0 (its first directory full) and 2 each have a directory offline: what they hold
    is unknown, so they take no part in the plan (Kafka would create no future replica on them
    either), the partitions with a replica in those directories are left alone, and execute
    accepts the plan."""
    sb = sandbox_factory(brokers=4, log_dirs=3, racks=2, dir_capacity=256 * MiB)
    first = {b: sb.log_dir_paths(b)[0] for b in range(4)}
    sb.create_topic("big", assignment={p: [p % 2, 1 - p % 2] for p in range(6)}, size_bytes=16 * MiB,
                    log_dirs={(p, b): first[b] for p in range(6) for b in (0, 1)})
    sb.create_topic("small", assignment={p: [2 + p % 2, 3 - p % 2] for p in range(4)}, size_bytes=MiB)
    for b in (0, 2):
        sb.faults.dir_offline(b, sb.log_dir_paths(b)[2])
    plan = tmp_path / "plan.json"
    p = _kadmin(sb, "reassign", "balance", "-o", "json", "--output-file", str(plan))
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    jsonschema.validate(doc, load("reassign-balance-result"))
    assert [n.split(":")[0] for n in doc["notes"][:2]] == ["broker 0", "broker 2"]
    assert all(not {m["source_broker"], m["dest_broker"]} & {0, 2} for m in doc["moves"])
    offline = [d for d in doc["log_dirs"] if d["status"] == "offline"]
    assert len(offline) == 2 and all(d["replica_bytes_before"] is None and d["replicas_before"] is None for d in offline)
    dry = _kadmin(sb, "reassign", "execute", "--reassignment-json-file", str(plan), "--dry-run")
    assert dry.returncode == 0, dry.stderr + dry.stdout


def test_directories_sharing_one_filesystem_count_it_once_end_to_end(sandbox_factory, tmp_path):  # noqa: F811
    """Each broker's two directories share one 1000 MiB filesystem (the sandbox's shared_fs):
    broker 0 holds 600 MiB, broker 1 100 MiB, each in its first directory (25 MiB replicas).
    Counted once, 200 MiB bring both within 5 points of 35%; counted per directory (2000 MiB at
    30% and 5%), 400 MiB went to broker 1, 50% of its filesystem, above --max-dir-usage 45%.
    The directories of each are balanced on Kafka bytes, and a note says why, as log-dirs
    balance words it. Executed, the plan leaves nothing to do."""
    sb = sandbox_factory(brokers=2, log_dirs=2, dir_capacity=1000 * MiB, shared_fs=True, speed=50.0)
    first = {b: sb.log_dir_paths(b)[0] for b in range(2)}
    sb.create_topic("big", assignment={p: [0] for p in range(24)}, size_bytes=25 * MiB,
                    log_dirs={(p, 0): first[0] for p in range(24)})
    sb.create_topic("small", assignment={p: [1] for p in range(4)}, size_bytes=25 * MiB,
                    log_dirs={(p, 1): first[1] for p in range(4)})
    plan = tmp_path / "plan.json"
    p = _kadmin(sb, "reassign", "balance", "-o", "json", "--max-dir-usage", "45%", "--output-file", str(plan))
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    jsonschema.validate(doc, load("reassign-balance-result"))
    brokers = {b["broker"]: b for b in doc["brokers"]}
    assert [brokers[b]["capacity_bytes"] for b in (0, 1)] == [1000 * MiB] * 2
    assert [brokers[b]["used_fraction_before"] for b in (0, 1)] == [0.6, 0.1]
    assert brokers[1]["used_fraction_after"] == pytest.approx(0.3) and doc["bytes_between_brokers"] == 200 * MiB
    for d in doc["log_dirs"]:  # every directory says what its filesystem does
        assert d["used_fraction_after"] == brokers[d["broker"]]["used_fraction_after"]
    assert doc["stopped"] == "balanced", doc["unresolved"]
    assert len(doc["notes"]) == 1
    assert doc["notes"][0].startswith("brokers 0, 1: the log directories share one filesystem (each reports the "
                                      "same total and usable bytes, e.g. ")
    table = " ".join(_kadmin(sb, "reassign", "balance", "--max-dir-usage", "45%").stdout.split())
    assert "Note: brokers 0, 1: the log directories share one filesystem" in table
    assert "Kafka bytes were balanced instead" in table
    done = _kadmin(sb, "reassign", "execute", "--reassignment-json-file", str(plan), "--wait", "--interval", "0.2s",
                   "--rollback-file", str(tmp_path / "rollback.json"))
    assert done.returncode == 0, done.stderr + done.stdout
    again = json.loads(_kadmin(sb, "reassign", "balance", "-o", "json", "--max-dir-usage", "45%").stdout)
    assert sorted(b["used_fraction_before"] for b in again["brokers"]) == pytest.approx([0.3, 0.4])
    assert sorted(d["replica_bytes_before"] for d in again["log_dirs"]) == [150 * MiB] * 2 + [200 * MiB] * 2
    assert again["moves"] == [] and again["stopped"] == "balanced"


@pytest.mark.zookeeper
def test_over_zookeeper(sandbox_factory, zk_connect):  # noqa: F811
    sb = _skewed(sandbox_factory, zookeeper=zk_connect)
    _wait_for_topics(zk_connect, ("big", "small"))
    p = subprocess.run([sys.executable, "-m", "kadmin", "reassign", "balance", "-o", "json", "--zookeeper", zk_connect],
                       capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr
    assert "deprecated" in p.stderr
    doc = json.loads(p.stdout)
    jsonschema.validate(doc, load("reassign-balance-result"))
    assert {m["dest_broker"] for m in doc["moves"] if m["source_broker"] != m["dest_broker"]} <= {2, 3}
    assert doc["moves"]
    if doc["balanced_on"] == "used_fraction":
        assert doc["stopped"] == "balanced"
    else:  # Kafka 2.8: no capacity; the 16 MiB replicas cannot even two directories within 5% of bytes
        assert any("report no disk capacity" in n for n in doc["notes"])


def _wait_for_topics(zk_connect, topics):
    """The topics reach ZooKeeper through the sandbox's controller a moment later, their
    partitions' state (leader and ISR) a moment after: until then a partition has no ISR, and
    the planner leaves it alone."""
    from kazoo.client import KazooClient

    zk = KazooClient(hosts=zk_connect)
    zk.start(timeout=15)

    def ready(topic: str) -> bool:
        if not zk.exists(f"/brokers/topics/{topic}"):
            return False
        partitions = json.loads(zk.get(f"/brokers/topics/{topic}")[0])["partitions"]
        return all(zk.exists(f"/brokers/topics/{topic}/partitions/{p}/state") for p in partitions)

    try:
        deadline = time.monotonic() + 15
        while not all(ready(t) for t in topics):
            assert time.monotonic() < deadline, "topics not registered in ZooKeeper"
            time.sleep(0.05)
    finally:
        zk.stop()
        zk.close()


def _within_bytes(doc, threshold=0.05) -> bool:
    """Brokers' shares of the Kafka bytes within the band, each online directory within
    ``threshold`` of its broker's mean directory."""
    low, high = doc["band"]
    if not all(low - 1e-9 <= b["share_before"] <= high + 1e-9 for b in doc["brokers"]):
        return False
    by_broker: dict = {}
    for d in doc["log_dirs"]:
        by_broker.setdefault(d["broker"], []).append(d["replica_bytes_before"])
    return all(abs(x - sum(xs) / len(xs)) <= threshold * sum(xs) / len(xs) + 1 for xs in by_broker.values() for x in xs)


@pytest.mark.zookeeper
@pytest.mark.parametrize("kafka_version", ["2.8"], indirect=True)
@pytest.mark.parametrize("via", ["--bootstrap-server", "--zookeeper"])
def test_kafka_2_8_reports_no_capacity_so_kafka_bytes_are_balanced_end_to_end(sandbox_factory, zk_connect, via,  # noqa: F811
                                                                              tmp_path):
    """4 brokers on 2 racks: "big" (24 x 4 MiB, RF 2) and "tiny" (8 x 1 MiB) on brokers 0 and 1,
    all in their first directory; "small" (4 x 1 MiB) on brokers 2 and 3. Kafka 2.8 reports no
    capacity: the plan balances Kafka bytes, says so, names no capacity, and once executed leaves
    every broker and directory within 5% of the mean."""
    sb = sandbox_factory(brokers=4, log_dirs=2, racks=2, dir_capacity=256 * MiB, speed=50.0, zookeeper=zk_connect)
    first = {b: sb.log_dir_paths(b)[0] for b in range(4)}
    sb.create_topic("big", assignment={p: [p % 2, 1 - p % 2] for p in range(24)}, size_bytes=4 * MiB,
                    log_dirs={(p, b): first[b] for p in range(24) for b in (0, 1)})
    sb.create_topic("tiny", assignment={p: [p % 2, 1 - p % 2] for p in range(8)}, size_bytes=MiB,
                    log_dirs={(p, b): first[b] for p in range(8) for b in (0, 1)})
    sb.create_topic("small", assignment={p: [2 + p % 2, 3 - p % 2] for p in range(4)}, size_bytes=MiB)
    _wait_for_topics(zk_connect, ("big", "tiny", "small"))
    conn = [via, sb.bootstrap if via == "--bootstrap-server" else zk_connect]

    def kadmin(*args):
        return subprocess.run([sys.executable, "-m", "kadmin", *args, *conn], capture_output=True, text=True,
                              timeout=180)

    table = kadmin("reassign", "balance", "--throttle", "50MB/s")
    assert table.returncode == 0, table.stderr
    text = " ".join(table.stdout.split())
    assert "Brokers: share of the Kafka bytes now (before)" in text
    assert "Note: brokers 0, 1, 2, 3 report no disk capacity (DescribeLogDirs before v4, Kafka before 3.3)" in text
    assert "Estimated copy time between brokers at 50.0 MB/s" in text and "not paced by --throttle" in text
    plan = tmp_path / "plan.json"
    p = kadmin("reassign", "balance", "-o", "json", "--output-file", str(plan))
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    jsonschema.validate(doc, load("reassign-balance-result"))
    assert doc["balanced_on"] == "kafka_bytes" and doc["mean_used_fraction"] is None and not _within_bytes(doc)
    assert all(b["capacity_bytes"] is None and b["used_fraction_before"] is None for b in doc["brokers"])
    assert {m["source_broker"] == m["dest_broker"] for m in doc["moves"]} == {True, False}
    assert doc["stopped"] == "balanced", doc["unresolved"]
    done = kadmin("reassign", "execute", "--reassignment-json-file", str(plan), "--wait", "--interval", "0.2s",
                  "--rollback-file", str(tmp_path / "rollback.json"))
    assert done.returncode == 0, done.stderr + done.stdout
    after = kadmin("reassign", "balance", "-o", "json")
    assert after.returncode == 0, after.stderr
    again = json.loads(after.stdout)
    assert _within_bytes(again), (again["brokers"], again["log_dirs"])
    assert again["moves"] == [] and again["stopped"] == "balanced"


def test_on_a_terminal_the_tables_show_usage_bars():
    from io import StringIO

    from rich.console import Console

    from kadmin.commands.render_balance import brokers_table, dirs_table
    from kadmin.plan.broker_balance import balance_brokers

    b = Backend()
    result = balance_brokers(b.cluster, {k: v for k, v in b.dirs.items() if k != 5})
    out = StringIO()
    console = Console(file=out, width=200, color_system=None)
    console.print(brokers_table(result, bars=True))
    console.print(dirs_table(result, bars=True))
    text = out.getvalue()
    assert "█" in text and "░" in text and " 30.0%" in text  # brokers 1-3 before: 60 of 200 GB


def test_tables_show_racks_and_paths_as_written():
    """Racks and directory paths are free text: brackets in them are not console markup."""
    import dataclasses
    from io import StringIO

    from rich.console import Console

    from kadmin.commands.render_balance import brokers_table, dirs_table
    from kadmin.plan.broker_balance import balance_brokers

    cluster, dirs = build({1: "[bold]a", 2: "[bold]a", 3: "b", 4: "b"},
                          {("logs", p): [1 + p % 2, 3 + p % 2] for p in range(4)}, 10 * GB)
    dirs = {b: [dataclasses.replace(d, path=f"/data/[red]{d.path[1:]}") for d in ds] for b, ds in dirs.items()}
    result = balance_brokers(cluster, dirs)
    out = StringIO()
    console = Console(file=out, width=200, color_system=None)
    console.print(brokers_table(result, bars=False))
    console.print(dirs_table(result, bars=False))
    text = out.getvalue()
    assert "[bold]a" in text and "/data/[red]d0" in text


def _left_alone_and_the_rest_completes(sb, tmp_path, fault, conn, zk_connect=None):
    """As seen by hand: with broker 2 stopped (or the directory holding its replicas of "big"
    offline), the plan moved big's replica on broker 1 and kept broker 2's, which cannot rejoin
    the ISR, so the reassignment never completed and verify said 3 until broker 2 was back.
    Racks: 0, 2, 4 on rack-0, 1 and 3 on rack-1; broker 1 is the fullest and the big-N
    [2, 1] are left alone (named in a note); the rest of the plan runs to the end."""
    first = {b: sb.log_dir_paths(b)[0] for b in range(5)}
    sb.create_topic("big", assignment={p: [2, 1] for p in range(4)}, size_bytes=16 * MiB,
                    log_dirs={(p, b): first[b] for p in range(4) for b in (1, 2)})
    sb.create_topic("other", assignment={p: [1, 3] for p in range(4)}, size_bytes=16 * MiB,
                    log_dirs={(p, b): first[b] for p in range(4) for b in (1, 3)})
    sb.create_topic("small", assignment={0: [0], 1: [4]}, size_bytes=MiB)
    if zk_connect:
        _wait_for_topics(zk_connect, ("big", "other", "small"))
    if fault == "broker-stop":
        sb.faults.broker_stop(2)
    else:
        sb.faults.dir_offline(2, first[2])

    def kadmin(*args):
        return subprocess.run([sys.executable, "-m", "kadmin", *args, *conn], capture_output=True, text=True,
                              timeout=180)

    plan = tmp_path / "plan.json"
    p = kadmin("reassign", "balance", "-o", "json", "--output-file", str(plan))
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    jsonschema.validate(doc, load("reassign-balance-result"))
    assert doc["plan"]["partitions"] and all(e["topic"] != "big" for e in doc["plan"]["partitions"]), doc["plan"]
    assert any(n.startswith("4 partitions left as they are") and n.endswith("big-0, big-1, big-2, big-3")
               for n in doc["notes"]), doc["notes"]
    racks = {0: "rack-0", 1: "rack-1", 2: "rack-0", 3: "rack-1", 4: "rack-0"}
    before = {(t, p): reps for t, reps in (("big", [2, 1]), ("other", [1, 3])) for p in range(4)}
    for e in doc["plan"]["partitions"]:  # no partition spans fewer racks, broker 2's counted
        was = before.get((e["topic"], e["partition"]), [])
        assert len({racks[b] for b in e["replicas"]}) >= len({racks[b] for b in was}), e
    started = kadmin("reassign", "execute", "--reassignment-json-file", str(plan),
                     "--rollback-file", str(tmp_path / "rollback.json"))
    assert started.returncode == 0, started.stderr
    deadline = time.monotonic() + 60
    while (verify := kadmin("reassign", "verify", "--reassignment-json-file", str(plan))).returncode == 3:
        assert time.monotonic() < deadline, "the plan never completed:\n" + verify.stdout
        time.sleep(0.2)
    assert verify.returncode == 0, verify.stdout + verify.stderr


@pytest.mark.parametrize("fault", ["broker-stop", "dir-offline"])
def test_partitions_whose_replica_cannot_rejoin_the_isr_stay_out_of_the_plan_end_to_end(  # noqa: F811
        sandbox_factory, tmp_path, fault):
    sb = sandbox_factory(brokers=5, log_dirs=2, racks=2, dir_capacity=256 * MiB, speed=50.0)
    _left_alone_and_the_rest_completes(sb, tmp_path, fault, ["--bootstrap-server", sb.bootstrap])


@pytest.mark.zookeeper
@pytest.mark.parametrize("kafka_version", ["2.8"], indirect=True)
@pytest.mark.parametrize("fault", ["broker-stop", "dir-offline"])
def test_partitions_whose_replica_cannot_rejoin_the_isr_stay_out_of_the_plan_over_zookeeper(  # noqa: F811
        sandbox_factory, zk_connect, tmp_path, fault):
    """The same on Kafka 2.8 in ZooKeeper mode, where the controller waits on the ISR as KAFKA-FACTS
    describes (step 3), through --zookeeper."""
    sb = sandbox_factory(brokers=5, log_dirs=2, racks=2, dir_capacity=256 * MiB, speed=50.0, zookeeper=zk_connect)
    _left_alone_and_the_rest_completes(sb, tmp_path, fault, ["--zookeeper", zk_connect], zk_connect)
