"""Ctrl-C during a plain ``reassign execute``, through kadmin's real entry point with the
in-memory backend: the run prints every change it made as a normal run prints it, the ones sent
without an answer as unknown, says what it leaves (throttles set, moves going on) and how to go
on, keeps the rollback file whenever a move may have been sent, and exits 130. It used to print
the rollback line and "kadmin: interrupted" only, and remove the rollback file, with throttles
set. The interrupt comes from the backend at a chosen call."""

import json

import jsonschema
import pytest

from kadmin.schemas import load
from tests.cli.test_reassign_cli import fake, plan_file  # noqa: F401  (fixture)
from tests.support.cli import kadmin

MOVE = [{"topic": "foo", "partition": 0, "replicas": [3, 2]}]
THROTTLES = [
    "broker 1 leader.replication.throttled.rate: (not set) -> 1000000 (1.0 MB/s)",
    "broker 1 follower.replication.throttled.rate: (not set) -> 1000000 (1.0 MB/s)",
    "broker 2 leader.replication.throttled.rate: (not set) -> 1000000 (1.0 MB/s)",
    "broker 2 follower.replication.throttled.rate: (not set) -> 1000000 (1.0 MB/s)",
    "broker 3 leader.replication.throttled.rate: (not set) -> 1000000 (1.0 MB/s)",
    "broker 3 follower.replication.throttled.rate: (not set) -> 1000000 (1.0 MB/s)",
    "topic foo leader.replication.throttled.replicas: (not set) -> 0:1,0:2",
    "topic foo follower.replication.throttled.replicas: (not set) -> 0:3",
]


def interrupt_after(be, name):
    """``be.<name>`` does its work, then Ctrl-C comes before its answer is read."""
    real = getattr(be, name)

    def call(*args, **kwargs):
        real(*args, **kwargs)
        raise KeyboardInterrupt

    setattr(be, name, call)


def execute(capsys, plan, rollback, *extra):
    return kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--rollback-file", str(rollback),
                  "--throttle", "1MB/s", *extra)


def test_interrupted_as_the_throttles_are_set(fake, tmp_path, capsys):  # noqa: F811
    interrupt_after(fake, "incremental_alter_configs")
    plan, rollback = plan_file(tmp_path, MOVE), tmp_path / "rb.json"
    code, out, err = execute(capsys, plan, rollback)
    assert code == 130, err
    assert [ln.split(": interrupted")[0] for ln in out.splitlines() if ln.startswith("  UNKNOWN ")] == [
        f"  UNKNOWN {t}" for t in THROTTLES]
    assert "interrupted before the cluster answered: it may have been made" in out
    assert f"Nothing was moved, so the rollback file {rollback} was removed again." in out
    assert out.index("  UNKNOWN ") < out.index("Nothing was moved")  # the changes' list first
    assert not rollback.exists() and fake.reassigning == {}
    assert err.startswith("kadmin: interrupted. What this run changed stays:\n")
    assert "  - throttles, left in place: 8 changes (8 not confirmed). Nothing moves yet: " \
           f"`kadmin throttle clear --plan {plan}` removes them" in err
    assert "  - not sent: 1 reassignment. Running the same command again sends what is missing" in err
    assert "Started" not in out


def test_interrupted_after_the_throttles_were_set(fake, tmp_path, capsys):  # noqa: F811
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    fake.reassign_partitions = interrupted  # the request never left
    plan, rollback = plan_file(tmp_path, MOVE), tmp_path / "rb.json"
    code, out, err = execute(capsys, plan, rollback)
    assert code == 130, err
    for t in THROTTLES:
        assert f"  done    {t}\n" in out
    assert "  UNKNOWN reassign foo-0: 1,2 -> 3,2 (adding 3; removing 1)" in out  # sent: its outcome is unknown
    assert rollback.exists()  # it may have reached the controller
    assert "throttles, left in place: 8 changes." in err and "1 reassignment (1 not confirmed)" in err


def test_interrupted_as_the_reassignment_is_sent(fake, tmp_path, capsys):  # noqa: F811
    interrupt_after(fake, "reassign_partitions")
    plan, rollback = plan_file(tmp_path, MOVE), tmp_path / "rb.json"
    code, out, err = execute(capsys, plan, rollback)
    assert code == 130, err
    assert f"  done    {THROTTLES[0]}\n" in out
    assert rollback.exists() and "removed again" not in out
    assert fake.reassigning  # it goes on
    lines = err.splitlines()
    assert lines[0] == "kadmin: interrupted. What this run changed stays:"
    assert lines[1] == (
        f"  - sent, and going on: 1 reassignment (1 not confirmed). Follow: `kadmin reassign progress "
        f"--reassignment-json-file {plan} --watch`; stop: `kadmin reassign cancel --reassignment-json-file {plan}`; "
        f"put every replica back: `kadmin reassign execute --reassignment-json-file {rollback}`")
    assert lines[2] == (f"  - throttles, left in place: 8 changes. `kadmin reassign verify "
                        f"--reassignment-json-file {plan}` removes them once the plan is done")
    assert lines[3] == "  (with this run's connection options)"


def test_interrupted_json_document_lists_what_was_made_and_what_is_unknown(fake, tmp_path, capsys):  # noqa: F811
    interrupt_after(fake, "reassign_partitions")
    plan, rollback = plan_file(tmp_path, MOVE), tmp_path / "rb.json"
    code, out, err = execute(capsys, plan, rollback, "-o", "json")
    assert code == 130, err
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-execute-result"))
    assert doc["aborted"] == "interrupted" and doc["failures"] == 0 and doc["rollback_file"] == str(rollback)
    assert [c["kind"] for c in doc["changes"]] == ["rollback_file"] + ["config"] * 8 + ["reassignment"]
    assert [c["error"] for c in doc["changes"]] == [None] * 9 + [
        "interrupted before the cluster answered: it may have been made"]
    assert "kadmin reassign cancel" in err


@pytest.mark.parametrize("output", ["table", "json"])
def test_interrupted_before_any_change(fake, tmp_path, capsys, output):  # noqa: F811
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    fake.store.put = interrupted  # kadmin's throttle record, written before any throttle
    plan, rollback = plan_file(tmp_path, MOVE), tmp_path / "rb.json"
    code, out, err = execute(capsys, plan, rollback, "-o", output)
    assert code == 130, err
    assert fake.calls == [] and not rollback.exists()
    assert err == "kadmin: interrupted before any change to the cluster; nothing was changed.\n"
    if output == "json":
        doc = json.loads(out)  # the rollback file was written, then removed again (nothing moved): not listed
        jsonschema.validate(doc, load("reassign-execute-result"))
        assert doc["changes"] == [] and doc["rollback_file"] is None
