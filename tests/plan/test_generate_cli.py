"""`kadmin reassign generate` through the real Click tree, over an in-memory cluster; and once
end to end against the sandbox (a subprocess, real wire protocol)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys

import jsonschema
import pytest
from click.testing import CliRunner

from kadmin.commands.root import cli
from kadmin.errors import EXIT_USAGE
from kadmin.model import Broker, ClusterState, PartitionState, TopicPartition
from kadmin.plan.reassignment_file import read_reassignment
from kadmin.schemas import load
from tests.support.sandbox import sandbox, sandbox_factory  # noqa: F401  (fixtures)


def _cluster() -> ClusterState:
    racks = {1: "a", 2: "b", 3: "a", 4: "b"}
    parts = {}
    for p, reps in {0: (1, 2), 1: (2, 1), 2: (1, 2), 3: (2, 1)}.items():
        parts[TopicPartition("orders", p)] = PartitionState("orders", p, reps[0], reps, reps)
    return ClusterState("c", 1, {b: Broker(b, "127.0.0.1", 9092 + b, r) for b, r in racks.items()}, parts)


class Backend:
    name, read_only = "fake", True

    def describe_cluster(self):
        return _cluster()

    def list_partition_reassignments(self, partitions=None):
        return {}


@pytest.fixture
def fake(monkeypatch):
    @contextlib.contextmanager
    def open_cluster(cluster, read_only=True):
        assert read_only, "generate must not be able to change the cluster"
        yield Backend()

    monkeypatch.setattr("kadmin.commands.reassign_generate.open_cluster", open_cluster)


def run(*args):
    """The root group turns errors into a line on stderr and the exit code, as in the process."""
    r = CliRunner().invoke(cli, ["reassign", "generate", *args, "--bootstrap-server", "127.0.0.1:1"])
    r.code = r.exit_code
    return r


@pytest.fixture
def topics(tmp_path):
    path = tmp_path / "topics.json"
    path.write_text('{"version":1,"topics":[{"topic":"orders"}]}')
    return path


def test_prints_current_and_proposed_as_kafka_does(fake, topics):
    r = run("--topics-to-move-json-file", str(topics), "--broker-list", "1,2,3,4")
    assert r.code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0] == "Current partition replica assignment"
    assert lines[3] == "Proposed partition reassignment configuration"
    current, proposed = json.loads(lines[1]), json.loads(lines[4])
    assert current["partitions"][0] == {"topic": "orders", "partition": 0, "replicas": [1, 2], "log_dirs": ["any", "any"]}
    counts = {}
    for e in proposed["partitions"]:
        for b in e["replicas"]:
            counts[b] = counts.get(b, 0) + 1
    assert counts == {1: 2, 2: 2, 3: 2, 4: 2}
    assert "4 replicas to copy" in r.stderr


def test_json_output_is_one_object_and_the_plan_file_is_kafkas_format(fake, topics, tmp_path):
    out = tmp_path / "plan.json"
    r = run("--topics-to-move-json-file", str(topics), "--broker-list", "1,2,3,4", "-o", "json",
            "--output-file", str(out))
    assert r.code == 0, r.output
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, load("reassign-generate-result"))
    parsed = read_reassignment(out)
    assert not parsed.problems
    assert [(a.topic, a.partition, list(a.replicas)) for _, a in parsed.entries] == [
        (e["topic"], e["partition"], e["replicas"]) for e in doc["proposed"]["partitions"]]
    again = run("--topics-to-move-json-file", str(topics), "--broker-list", "1,2,3,4", "--output-file", str(out))
    assert again.code == EXIT_USAGE and "already exists" in again.stderr


@pytest.mark.parametrize(
    "where, words",
    [
        ("missing/p.json", "its directory {tmp}/missing does not exist"),
        ("afile/p.json", "{tmp}/afile is not a directory"),
        ("plan.json", "it already exists"),
    ],
)
def test_an_output_file_that_cannot_be_written_is_refused_before_any_output(fake, topics, tmp_path, where, words):
    """Nothing on stdout (a script capturing it must not get a complete-looking plan with a
    failure code), the path as the user gave it and the reason in words (no errno, no .tmp)."""
    (tmp_path / "afile").write_text("x")
    (tmp_path / "plan.json").write_text("keep me")
    for output in ("table", "json"):
        r = run("--topics-to-move-json-file", str(topics), "--broker-list", "1,2,3,4", "-o", output,
                "--output-file", str(tmp_path / where))
        assert r.code == EXIT_USAGE and r.stdout == "", r.output
        assert f"cannot write the plan to {tmp_path / where}: {words.format(tmp=tmp_path)}" in r.stderr
        assert "Errno" not in r.stderr and ".tmp" not in r.stderr
    assert (tmp_path / "plan.json").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "plan.json", "topics.json"]


def test_a_plan_file_that_fails_to_be_written_leaves_stdout_empty(fake, topics, tmp_path, monkeypatch):
    """The file is written before anything is printed: if writing fails after the checks (the
    path taken meanwhile, the disk full), no plan reaches stdout."""
    from kadmin.errors import InputError

    def taken(path, plan):
        raise InputError(f"{path} already exists; choose another path (nothing was changed)")

    monkeypatch.setattr("kadmin.plan.reassignment_file.write_reassignment", taken)
    r = run("--topics-to-move-json-file", str(topics), "--broker-list", "1,2,3,4", "--output-file",
            str(tmp_path / "plan.json"))
    assert r.code == EXIT_USAGE and "already exists" in r.stderr
    assert r.stdout == ""


def test_strategy_kafka_and_disable_rack_aware(fake, topics):
    r = run("--topics-to-move-json-file", str(topics), "--broker-list", "1,2,3", "--strategy", "kafka",
            "--disable-rack-aware", "-o", "json")
    assert r.code == 0, r.output
    assert {b for e in json.loads(r.stdout)["proposed"]["partitions"] for b in e["replicas"]} <= {1, 2, 3}


@pytest.mark.parametrize(
    "content, words",
    [
        ('{"version":2,"topics":[{"topic":"orders"}]}', "version: must be 1, not 2"),
        ('{"topics":[{"topic":"orders"},{"name":"x"}]}', "topics[1]: unknown key: name"),
        ('{"topics":[{"topic":"a b"}]}', "topics[0].topic: 'a b' is not a valid topic name"),
        ('{"topics": [', "not valid JSON"),
        ('{"topics":[{"topic":"nope"}]}', "unknown topic: nope"),
    ],
)
def test_bad_topics_files_name_the_place(fake, tmp_path, content, words):
    path = tmp_path / "t.json"
    path.write_text(content)
    r = run("--topics-to-move-json-file", str(path), "--broker-list", "1,2,3")
    assert r.code == EXIT_USAGE
    assert words in r.stderr and r.stdout == ""


def test_topics_and_brokers_problems_are_reported_together(fake, tmp_path):
    """A duplicate and an unknown topic, and an unknown broker: every one, before any output."""
    path = tmp_path / "t.json"
    path.write_text('{"version":1,"topics":[{"topic":"orders"},{"topic":"nope"},{"topic":"orders"}]}')
    r = run("--topics-to-move-json-file", str(path), "--broker-list", "1,2,9")
    assert r.code == EXIT_USAGE and r.stdout == ""
    assert "3 problems" in r.stderr
    assert f"{path}: List of topics to reassign contains duplicate entries (topics[2].topic: 'orders'" in r.stderr
    assert f"{path}: unknown topic: nope" in r.stderr
    assert "unknown broker in the broker list: 9" in r.stderr
    doc = json.loads(run("--topics-to-move-json-file", str(path), "--broker-list", "1,2,9", "-o", "json").stdout)
    assert len(doc["problems"]) == 3


def test_a_duplicate_topic_is_reported_when_the_cluster_cannot_be_reached(tmp_path):
    path = tmp_path / "t.json"
    path.write_text('{"version":1,"topics":[{"topic":"orders"},{"topic":"orders"}]}')
    r = CliRunner().invoke(cli, ["reassign", "generate", "--topics-to-move-json-file", str(path), "--broker-list",
                                 "1,2", "--bootstrap-server", "127.0.0.1:1", "--timeout", "1s"])
    assert r.exit_code == EXIT_USAGE, r.output
    assert "duplicate entries" in r.stderr and "topics[1].topic: 'orders' is listed more than once" in r.stderr


def test_bad_broker_list_is_a_usage_error(fake, topics):
    assert run("--topics-to-move-json-file", str(topics), "--broker-list", "1,x").code == EXIT_USAGE


def test_end_to_end_on_the_sandbox(sandbox, tmp_path):
    topics = tmp_path / "topics.json"
    topics.write_text('{"version":1,"topics":[{"topic":"payments"}]}')  # replication factor 2
    plan = tmp_path / "plan.json"
    cmd = [sys.executable, "-m", "kadmin", "reassign", "generate", "--topics-to-move-json-file", str(topics),
           "--broker-list", "0,1", "--disable-rack-aware", "--output-file", str(plan), "-o", "json",
           "--bootstrap-server", sandbox.bootstrap]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)  # stdout holds the JSON and nothing else
    assert {b for e in doc["proposed"]["partitions"] for b in e["replicas"]} == {0, 1}  # broker 2 evacuated
    assert doc["current"]["partitions"] == [
        {"topic": "payments", "partition": p, "replicas": r} for p, r in enumerate([[0, 1], [1, 2], [2, 0], [0, 2]])]
    assert not read_reassignment(plan).problems
    dry = subprocess.run([sys.executable, "-m", "kadmin", "reassign", "execute", "--reassignment-json-file", str(plan),
                          "--dry-run", "--bootstrap-server", sandbox.bootstrap], capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0, dry.stderr  # `reassign execute` accepts the plan as it stands
    bad = subprocess.run([*cmd[:cmd.index("0,1")], "0,7", "--bootstrap-server", sandbox.bootstrap],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == EXIT_USAGE
    assert bad.stdout == "" and "unknown broker in the broker list: 7" in bad.stderr
