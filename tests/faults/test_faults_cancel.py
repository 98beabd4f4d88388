"""Cancel under faults (AdminClient protocol, manual clock): a target broker stopped, the
broker of a log-dir move stopped, connections dropped. Cancel stops what it can see, says in
one line what it could not, and a second cancel once the broker is back finishes the job."""

from __future__ import annotations

import json

import pytest

from tests.faults.support import (
    DATA0,
    DATA1,
    clear_failure,
    foo_on_four_brokers,
    injected,
    kadmin,
    settle,
    write_plan,
)


@pytest.fixture
def sb(sandbox_factory):
    return foo_on_four_brokers(sandbox_factory)


PLAN = [{"topic": "foo", "partition": 0, "replicas": [3, 1]},
        {"topic": "foo", "partition": 1, "replicas": [1, 2], "log_dirs": [DATA1, "any"]}]


def start(sb, tmp_path, capsys):
    plan = write_plan(tmp_path, PLAN)
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--throttle", "1MB/s", "--replica-alter-log-dirs-throttle", "1MB/s")
    assert code == 0, err
    sb.clock.advance(1)
    return plan


def cancel(capsys, sb, plan):
    return kadmin(capsys, "reassign", "cancel", "--reassignment-json-file", plan, "-b", sb.bootstrap, "-o", "json")


def test_cancel_with_the_target_broker_stopped(sb, tmp_path, capsys, records):
    plan = start(sb, tmp_path, capsys)
    sb.faults.broker_stop(3)
    injected()
    code, out, err = cancel(capsys, sb, plan)
    assert code == 0, err
    assert sorted(c["kind"] for c in json.loads(out)["cancelled"]) == ["cancel_log_dir_move", "cancel_reassignment"]
    sb.faults.broker_start(3)
    settle(sb)
    snap = sb.snapshot()
    assert set(snap.partition("foo", 0).replicas) == {0, 1} and snap.replica_dir("foo", 1, 1) == DATA0


def test_cancel_with_the_log_dir_moves_broker_stopped(sb, tmp_path, capsys, records):
    """Broker 1 (moving foo-1 between its directories) is down: its move cannot be seen or
    cancelled. Cancel says so (exit 1, one line) after cancelling the rest; once broker 1 is
    back, the same cancel finishes the job."""
    plan = start(sb, tmp_path, capsys)
    sb.faults.broker_stop(1)
    injected()
    code, out, err = cancel(capsys, sb, plan)
    line = clear_failure(code, err)
    assert "broker 1" in line, line
    assert [c["kind"] for c in json.loads(out)["cancelled"]] == ["cancel_reassignment"]
    sb.faults.broker_start(1)
    sb.clock.advance(0.1)
    code, out, err = cancel(capsys, sb, plan)
    assert code == 0, err
    kinds = [c["kind"] for c in json.loads(out)["cancelled"]]
    assert "cancel_reassignment" not in kinds  # not sent twice
    settle(sb)
    assert sb.snapshot().replica_dir("foo", 1, 1) == DATA0


def test_cancel_through_dropped_connections(sb, tmp_path, capsys, records, monkeypatch):
    from kadmin.backends.admin import AdminBackend

    plan = start(sb, tmp_path, capsys)
    for method in ("cancel_partition_reassignments", "alter_replica_log_dirs"):
        real = getattr(AdminBackend, method)

        def wrapped(self, *a, _real=real, **k):
            for b in range(4):
                sb.faults.drop_connections(b)
            injected()
            return _real(self, *a, **k)
        monkeypatch.setattr(AdminBackend, method, wrapped)
    code, out, err = cancel(capsys, sb, plan)
    assert code == 0, err
    assert len(json.loads(out)["cancelled"]) == 2
    monkeypatch.undo()
    settle(sb)
    snap = sb.snapshot()
    assert set(snap.partition("foo", 0).replicas) == {0, 1} and snap.replica_dir("foo", 1, 1) == DATA0


MOVE = [{"topic": "foo", "partition": 1, "replicas": [1, 2], "log_dirs": [DATA1, "any"]}]


def start_move(sb, tmp_path, capsys):
    plan = write_plan(tmp_path, MOVE, "move.json")
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                          "--replica-alter-log-dirs-throttle", "1MB/s")
    assert code == 0, err
    sb.clock.advance(1)
    assert sb.snapshot().future_replica("foo", 1, 1)[0] == DATA1
    return plan


def cancel_scope(capsys, sb, *scope):
    return kadmin(capsys, "reassign", "cancel", *scope, "-b", sb.bootstrap, "-o", "json")


@pytest.mark.parametrize("failed", [DATA0, DATA1], ids=["source-offline", "destination-offline"])
def test_cancel_says_a_move_in_an_offline_directory_cannot_be_cancelled_then_cancels_it_once_back(
        sb, tmp_path, capsys, records, failed):
    """Broker 1 copies foo-1 from data0 to data1, and one of the two fails. Source offline: the
    move is paused (its future replica is listed), and AlterReplicaLogDirs to the offline source
    is KAFKA_STORAGE_ERROR. Destination offline: the future replica is in a directory that lists
    nothing. Either way cancel cannot stop it, and the restart that brings the directory back
    resumes it: cancel says so (exit 1, one line), never 'nothing to cancel'; once the directory
    is back, the same cancel stops it."""
    plan = start_move(sb, tmp_path, capsys)
    sb.faults.dir_offline(1, failed)
    injected()
    sb.clock.advance(1)
    for scope in (("--reassignment-json-file", plan), ("--all",)):
        code, out, err = cancel_scope(capsys, sb, *scope)
        line = clear_failure(code, err)
        assert json.loads(out)["cancelled"] == [], scope
        if failed == DATA0:
            assert "log-dir move of foo-1 on broker 1 (to /var/lib/kafka/data1) is paused" in line, line
        else:
            assert "offline log directory (broker 1: /var/lib/kafka/data1)" in line, line
            assert "a log-dir move into it cannot be seen" in line
        assert "run the same cancel again once the directory is back" in line
        code, out, err = kadmin(capsys, "reassign", "cancel", *scope, "-b", sb.bootstrap)
        assert code == 1 and "Nothing to cancel" not in out, out
    sb.faults.dir_online(1, failed)
    sb.clock.advance(1)
    code, out, err = cancel_scope(capsys, sb, "--reassignment-json-file", plan)
    assert code == 0, err
    assert [c["kind"] for c in json.loads(out)["cancelled"]] == ["cancel_log_dir_move"]
    settle(sb)
    assert sb.snapshot().replica_dir("foo", 1, 1) == DATA0
