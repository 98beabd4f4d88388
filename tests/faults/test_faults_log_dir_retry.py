"""Faults on execute's log-dir path (AdminClient protocol, manual clock):

- a destination broker stops between execute's first AlterReplicaLogDirs (the new replica
  answers REPLICA_NOT_AVAILABLE, the broker remembers the destination) and the retry loop;
- a log directory goes offline while a replica moves into it.

Never a lost move: execute either completes or says which move failed, in one line, and
verify afterwards names the replica that is not where the plan wants it."""

from __future__ import annotations

import json

import pytest

from tests.faults.support import (
    MB,
    clear_failure,
    injected,
    kadmin,
    settle,
    write_plan,
)

DATA0, DATA1 = "/var/lib/kafka/data0", "/var/lib/kafka/data1"


@pytest.fixture
def sb(sandbox_factory):
    sb = sandbox_factory(brokers=4, log_dirs=2, manual_clock=True)
    sb.create_topic("foo", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=10 * MB,
                    log_dirs={(0, 0): DATA0, (0, 1): DATA0, (1, 1): DATA0, (1, 2): DATA0})
    sb.clear_requests()
    return sb


class Hooks:
    """Fault points inside execute: ``before_reassign`` runs just before AlterPartitionReassignments
    is sent (after the first AlterReplicaLogDirs), ``after_reassign`` once it is answered (before
    the retry loop), ``waiting(n)`` on the n-th pass of the retry loop."""

    def __init__(self):
        self.before_reassign = self.after_reassign = lambda: None
        self.waiting = lambda n: None


def install(monkeypatch, hooks: Hooks):
    from kadmin.execute import executor
    from kadmin.execute.changes import Reassign

    real = executor.apply_execution

    def apply_execution(backend, xplan, request, *, reporter, **kw):
        class Backend:
            def __getattr__(self, name):
                return getattr(backend, name)

            def reassign_partitions(self, *a, **k):
                hooks.before_reassign()
                return backend.reassign_partitions(*a, **k)

        class Reporter:
            passes = 0
            fired = False

            def change(self, change, error):
                reporter.change(change, error)
                if isinstance(change, Reassign) and not Reporter.fired:
                    Reporter.fired = True
                    hooks.after_reassign()

            def waiting(self, replicas, seconds_left):
                reporter.waiting(replicas, seconds_left)
                Reporter.passes += 1
                hooks.waiting(Reporter.passes)

        return real(Backend(), xplan, request, reporter=Reporter(), **kw)

    monkeypatch.setattr(executor, "apply_execution", apply_execution)


@pytest.mark.parametrize("point", ["before_reassign", "after_reassign"])
@pytest.mark.parametrize("back_in_time", [False, True], ids=["stays-down", "back-before-timeout"])
def test_broker_stopped_around_the_retry_loop(sb, tmp_path, capsys, monkeypatch, point, back_in_time):
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1], "log_dirs": [DATA1, "any"]}])
    hooks = Hooks()
    setattr(hooks, point, lambda: sb.faults.broker_stop(3))
    if back_in_time:
        def back(n):
            if n == 1:
                sb.faults.broker_start(3)
                sb.clock.advance(0.1)  # the restarted broker creates the logs assigned to it
        hooks.waiting = back
    install(monkeypatch, hooks)
    injected()
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--timeout", "3s", "-o", "json")
    doc = json.loads(out)
    moves = [c for c in doc["changes"] if c["kind"] == "log_dir_move"]
    assert len(moves) == 1, doc  # the move is reported, with its fate
    reassign = [c for c in doc["changes"] if c["kind"] == "reassignment"]
    assert len(reassign) == 1 and reassign[0]["error"] is None, doc
    if back_in_time:
        assert code == 0, err
        assert moves[0]["error"] is None
    else:  # down for the whole retry loop: reported failed, with why, in one line
        line = clear_failure(code, err)
        assert "1 change failed" in line
        assert "until the 3s timeout" in moves[0]["error"], moves
    monkeypatch.undo()
    sb.faults.broker_start(3)
    settle(sb)
    # A restarted broker forgets destinations it had not used: verify names the replica.
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "-o", "json")
    doc = json.loads(out)
    [replica] = doc["replicas"]
    assert (replica["broker"], replica["target_dir"]) == (3, DATA1)
    if replica["current_dir"] != DATA1:
        assert not back_in_time
        assert code == 4 and replica["state"] != "complete", doc
        # Running the plan again resumes: only the missing log-dir move is sent.
        sb.clear_requests()
        code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                                "--rollback-file", tmp_path / "rb2.json")
        assert code == 0, err
        assert [api for _, api, _ in sb.mutating_requests()] == ["AlterReplicaLogDirs"]
        settle(sb)
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0, err
    assert sb.snapshot().replica_dir("foo", 0, 3) == DATA1
