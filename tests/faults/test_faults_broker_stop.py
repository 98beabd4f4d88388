"""A target broker stops in the middle of a move (AdminClient protocol, manual clock): verify
says "in progress" (exit 3) and keeps the throttles, progress shows the replica's broker as down
(not an unknown broker: Metadata still names it) without failing, the broker comes back, the
move completes, verify exits 0 and removes the throttles this plan set. A broker down with a
log-dir move keeps progress from saying done."""

from __future__ import annotations

import json

import pytest

from tests.faults.support import MB, injected, kadmin, settle, throttles_left, write_plan


@pytest.fixture
def sb(sandbox_factory):
    sb = sandbox_factory(brokers=4, log_dirs=2, manual_clock=True)
    sb.create_topic("foo", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=10 * MB)
    sb.clear_requests()
    return sb


def test_target_broker_stopped_mid_move_then_back(sb, tmp_path, capsys, records):
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--throttle", "1MB/s")
    assert code == 0, err
    sb.clock.advance(2)  # some bytes copied to broker 3
    sb.faults.broker_stop(3)
    injected()

    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 3, err
    assert "still in progress" in err
    assert throttles_left(sb.snapshot()), "a running move's throttles were removed"
    assert records.load_all()

    code, out, err = kadmin(capsys, "reassign", "progress", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--interval", "0", "-o", "json")
    assert code == 3, err
    snap = json.loads(out)
    rows = {r["broker"]: r for r in snap["replicas"]} if "replicas" in snap else None
    assert rows is not None, snap
    assert rows[3]["status"] == "Unknown: its broker is down", rows[3]  # Metadata names it: not an unknown id
    assert snap["unanswered_brokers"] == [{"broker": 3, "error": "down: not in the cluster's broker list"}]

    sb.faults.broker_start(3)
    settle(sb)
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0, err
    assert "Reassignment of partition foo-0 is completed." in out
    assert sb.snapshot().partition("foo", 0).replicas == (3, 1)
    assert throttles_left(sb.snapshot()) == {}
    assert records.load_all() == {}


def sleep_hook(monkeypatch, sb, on_sleep):
    """The follow loops' sleep (progress --watch, execute --wait) moves simulated time and
    injects faults at exact points: ``on_sleep(n)`` runs at the n-th sleep."""
    from kadmin.execute import incremental

    count = {"n": 0}

    def sleep(clock, seconds):
        count["n"] += 1
        on_sleep(count["n"])
        sb.clock.advance(2)

    monkeypatch.setattr(incremental.SystemClock, "sleep", sleep)
    return count


def stop_then_start(sb, broker, stop_at, start_at):
    def on_sleep(n):
        if n == stop_at:
            sb.faults.broker_stop(broker)
            injected()
        elif n == start_at:
            sb.faults.broker_start(broker)
    return on_sleep


def test_progress_watch_through_a_broker_restart(sb, tmp_path, capsys, records, monkeypatch):
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    assert kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                  "--throttle", "1MB/s")[0] == 0
    sleep_hook(monkeypatch, sb, stop_then_start(sb, 3, 1, 3))
    code, out, err = kadmin(capsys, "reassign", "progress", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--watch", "--interval", "1s", "-o", "json")
    assert code == 0, err
    snaps = [json.loads(ln) for ln in out.splitlines()]
    statuses = [{r["broker"]: r["status"] for r in s["replicas"]}.get(3) for s in snaps]
    assert "Unknown: its broker is down" in statuses  # seen while it was down, then followed to the end
    assert snaps[-1]["done"]


def test_execute_wait_through_a_broker_restart(sb, tmp_path, capsys, records, monkeypatch):
    """execute --wait follows the move while its target broker restarts, then verifies and
    removes the throttles it set."""
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    sleep_hook(monkeypatch, sb, stop_then_start(sb, 3, 1, 3))
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--throttle", "1MB/s", "--wait", "--interval", "1s")
    assert code == 0, err
    assert sb.snapshot().partition("foo", 0).replicas == (3, 1)
    assert throttles_left(sb.snapshot()) == {} and records.load_all() == {}


def test_verify_with_a_throttled_broker_down_keeps_track_of_its_throttle(sb, tmp_path, capsys, records):
    """The move finished, but broker 0 (its source, throttled) is down when verify runs: its
    rate cannot be removed now, so the record keeps it and a later verify removes it."""
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    assert kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                  "--throttle", "1MB/s")[0] == 0
    settle(sb)
    sb.faults.broker_stop(0)
    injected()
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0, err
    sb.faults.broker_start(0)
    left = throttles_left(sb.snapshot())
    if left:  # broker 0's rate stayed: kadmin's record must still hold it, and verify removes it now
        assert records.load_all(), left
        code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
        assert code == 0, err
    assert throttles_left(sb.snapshot()) == {} and records.load_all() == {}


def test_throttle_clear_with_a_throttled_broker_down_keeps_track_of_its_throttle(sb, tmp_path, capsys, records):
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    assert kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                  "--throttle", "1MB/s")[0] == 0
    settle(sb)
    sb.faults.broker_stop(0)
    injected()
    code, out, err = kadmin(capsys, "throttle", "clear", "--plan", plan, "-b", sb.bootstrap)
    assert code == 1, err  # the rest is removed; what broker 0 holds is not, and the run says so
    assert err.count("\n") == 1 and "not everything was cleared: broker 0 is down" in err
    assert [c.broker for c in records.load_all()[next(iter(records.load_all()))].rates] == [0, 0]
    sb.faults.broker_start(0)
    code, out, err = kadmin(capsys, "throttle", "clear", "--plan", plan, "-b", sb.bootstrap)
    assert code == 0, err
    assert throttles_left(sb.snapshot()) == {} and records.load_all() == {}


def test_execute_with_a_target_broker_already_down(sb, tmp_path, capsys, records):
    """A target broker is down before execute: either refused in one line with nothing
    changed (exit 2), or started and finished once the broker is back; never half-applied."""
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    sb.faults.broker_stop(3)
    injected()
    sb.clear_requests()
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--throttle", "1MB/s")
    if code == 2:
        assert "3" in err and [api for _, api, _ in sb.mutating_requests()] == []
        assert records.load_all() == {} and throttles_left(sb.snapshot()) == {}
        sb.faults.broker_start(3)
        code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                                "--throttle", "1MB/s", "--rollback-file", tmp_path / "rb2.json")
    assert code == 0, err
    sb.faults.broker_start(3)
    settle(sb)
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0, err
    assert throttles_left(sb.snapshot()) == {} and records.load_all() == {}


def test_progress_is_not_done_while_a_down_broker_may_hold_a_log_dir_move(sb, tmp_path, capsys):
    """Broker 2 moves foo-1 between its directories, then stops: Metadata still names it in
    foo-1's replica set, but nothing can be asked of it, so its move cannot be seen (it resumes
    when the broker restarts). Progress said "No partition reassignment or log-dir move in
    progress." (exit 0); now, without a plan or with one naming foo-1 or broker 2, it says
    broker 2 is down and exits 1 (nothing seen moving, a broker unseen), and --watch ends so
    after a few samples; a plan of live brokers' partitions only is done (exit 0). Once broker 2
    is back, its move is seen (exit 3)."""
    src = sb.snapshot().replica_dir("foo", 1, 2)
    dst = next(p for p in sb.log_dir_paths(2) if p != src)
    moving = write_plan(tmp_path, [{"topic": "foo", "partition": 1, "replicas": [1, 2], "log_dirs": ["any", dst]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", moving, "-b", sb.bootstrap,
                            "--replica-alter-log-dirs-throttle", "1MB/s")
    assert code == 0, err
    sb.clock.advance(2)
    assert sb.snapshot().future_replica("foo", 1, 2) is not None
    sb.faults.broker_stop(2)
    injected()
    naming = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [0, 2]}], name="naming.json")
    live_only = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [0, 1]}], name="live.json")

    for plan in ((), ("--reassignment-json-file", moving), ("--reassignment-json-file", naming)):
        code, out, err = kadmin(capsys, "reassign", "progress", *plan, "-b", sb.bootstrap, "--interval", "0",
                                "-o", "json")
        assert code == 1, (plan, out, err)
        doc = json.loads(out)
        assert not doc["done"] and doc["unanswered_brokers"] == [
            {"broker": 2, "error": "down: not in the cluster's broker list"}], doc
        # running again will not help while it is down: the hint says when it will
        assert err.splitlines()[-1] == ("kadmin: error: cannot tell whether every move is done: broker 2 is down "
                                        "(its moves resume when it restarts: run progress again once it is back)"), err
    assert {(r["partition"], r["broker"]): r["status"] for r in json.loads(
        kadmin(capsys, "reassign", "progress", "--reassignment-json-file", moving, "-b", sb.bootstrap,
               "--interval", "0", "-o", "json")[1])["replicas"]}[(1, 2)] == "Unknown: its broker is down"
    code, out, err = kadmin(capsys, "reassign", "progress", "-b", sb.bootstrap, "--interval", "0")
    assert code == 1 and "No partition reassignment" not in out
    assert "broker 2 is down (not in the cluster's broker list): its replicas' state" in err, err
    assert "did not answer" not in err, err
    code, out, err = kadmin(capsys, "reassign", "progress", "--reassignment-json-file", live_only, "-b", sb.bootstrap,
                            "--interval", "0", "-o", "json")
    assert code == 0 and json.loads(out)["done"], (out, err)

    code, out, err = kadmin(capsys, "reassign", "progress", "-b", sb.bootstrap, "--watch", "--interval", "10ms",
                            "-o", "json")
    assert code == 1, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) >= 2 and not any(d["done"] for d in lines)

    sb.faults.broker_start(2)  # its future replica is back: the move it could not see goes on
    assert sb.snapshot().future_replica("foo", 1, 2)[0] == dst
    code, out, err = kadmin(capsys, "reassign", "progress", "-b", sb.bootstrap, "--interval", "0", "-o", "json")
    assert code == 3, err
    doc = json.loads(out)
    assert doc["unanswered_brokers"] == [] and [(r["partition"], r["broker"]) for r in doc["replicas"]] == [(1, 2)]
