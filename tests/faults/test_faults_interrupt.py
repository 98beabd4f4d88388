"""Ctrl-C during a plain ``reassign execute`` against the sandbox (AdminClient protocol, manual
clock): the request reaches the cluster, its answer never comes back (KeyboardInterrupt right
after the real call, not a timer). The run says what it left, keeps the rollback file when a
move may have been sent, exits 130; and the commands it names do clean up."""

from __future__ import annotations

import contextlib

import pytest

from tests.faults.support import (
    DATA1,
    foo_on_four_brokers,
    injected,
    kadmin,
    settle,
    throttles_left,
    write_plan,
)

PLAN = [{"topic": "foo", "partition": 0, "replicas": [3, 1]},
        {"topic": "foo", "partition": 1, "replicas": [1, 2], "log_dirs": [DATA1, "any"]}]


@pytest.fixture
def sb(sandbox_factory):
    return foo_on_four_brokers(sandbox_factory)


class Interrupting:
    """The real backend, except that ``method`` is interrupted once its request is answered."""

    def __init__(self, backend, method):
        self._backend = backend
        self._method = method

    def __getattr__(self, name):
        attr = getattr(self._backend, name)
        if name != self._method:
            return attr

        def call(*args, **kwargs):
            attr(*args, **kwargs)
            injected()
            raise KeyboardInterrupt

        return call


@pytest.fixture
def interrupt(monkeypatch):
    def at(method):
        from kadmin.commands import reassign_execute

        real = reassign_execute.open_cluster

        @contextlib.contextmanager
        def open_cluster(cluster, read_only=True):
            with real(cluster, read_only=read_only) as backend:
                yield Interrupting(backend, method)

        monkeypatch.setattr(reassign_execute, "open_cluster", open_cluster)
        return lambda: monkeypatch.setattr(reassign_execute, "open_cluster", real)

    return at


def execute(capsys, sb, plan, rollback):
    return kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                  "--throttle", "1MB/s", "--replica-alter-log-dirs-throttle", "1MB/s", "--rollback-file", rollback)


def test_interrupted_as_the_throttles_are_set(sb, tmp_path, capsys, records, interrupt):
    plan, rollback = write_plan(tmp_path, PLAN), tmp_path / "rb.json"
    restore = interrupt("incremental_alter_configs")
    code, out, err = execute(capsys, sb, plan, rollback)
    assert code == 130, err
    assert throttles_left(sb.snapshot())  # the brokers took them
    assert {api for _, api, _ in sb.mutating_requests()} == {"IncrementalAlterConfigs"}  # nothing else was sent
    assert not rollback.exists() and "was removed again" in out
    unknown = [ln for ln in out.splitlines() if ln.startswith("  UNKNOWN ")]
    # each throttle, as sent, with the value it replaces (as throttle set says it)
    assert unknown and all(ln.startswith(("  UNKNOWN broker ", "  UNKNOWN topic ")) and " -> " in ln for ln in unknown), unknown
    assert f"`kadmin throttle clear --plan {plan}` removes them" in err
    assert "not sent: 1 reassignment and 1 log-dir move" in err
    restore()
    # What it says removes them does.
    code, _, cerr = kadmin(capsys, "throttle", "clear", "--plan", plan, "-b", sb.bootstrap)
    assert code == 0, cerr
    assert throttles_left(sb.snapshot()) == {} and records.load_all() == {}


def test_interrupted_as_the_reassignment_is_sent(sb, tmp_path, capsys, records, interrupt):
    plan, rollback = write_plan(tmp_path, PLAN), tmp_path / "rb.json"
    restore = interrupt("reassign_partitions")
    code, out, err = execute(capsys, sb, plan, rollback)
    assert code == 130, err
    assert any(p.reassigning for p in sb.snapshot().partitions.values())  # it goes on
    assert rollback.exists()
    assert "  done    move replica foo-1 on broker 1 from /var/lib/kafka/data0 to /var/lib/kafka/data1" in out
    assert "  UNKNOWN reassign foo-0: 0,1 -> 3,1 (adding 3; removing 0)" in out
    assert "sent, and going on: 1 reassignment (1 not confirmed) and 1 log-dir move." in err
    assert f"`kadmin reassign cancel --reassignment-json-file {plan}`" in err
    assert f"put every replica back: `kadmin reassign execute --reassignment-json-file {rollback}`" in err
    assert f"`kadmin reassign verify --reassignment-json-file {plan}` removes them once the plan is done" in err
    restore()
    settle(sb)
    code, _, verr = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0, verr
    assert throttles_left(sb.snapshot()) == {} and records.load_all() == {}
