"""An incremental run (execute --incremental, AdminClient protocol) interrupted by Ctrl-C at
several points and by a broker restart, then run again: it resumes, and every KIP-435 step is
sent exactly once (the AlterPartitionReassignments requests the sandbox saw, and their
contents), none skipped. The sandbox's clock is manual: the run's own sleep between polls is
the hook that moves simulated time and injects the faults, so every point is exact."""

from __future__ import annotations

import pytest

from kadmin.execute import incremental, state_file
from tests.faults.support import MB, injected, kadmin, throttles_left, write_plan

PLAN = [
    {"topic": "foo", "partition": 0, "replicas": [3, 4, 2]},
    {"topic": "foo", "partition": 1, "replicas": [1, 3, 4]},
    {"topic": "foo", "partition": 2, "replicas": [2, 3, 1]},
]
TARGET = {0: (3, 4, 2), 1: (1, 3, 4), 2: (2, 3, 1)}


@pytest.fixture
def sb(sandbox_factory):
    sb = sandbox_factory(brokers=5, log_dirs=1, manual_clock=True)
    sb.create_topic("foo", assignment={0: [0, 1, 2], 1: [1, 2, 0], 2: [2, 0, 1]}, size_bytes=20 * MB)
    sb.clear_requests()
    return sb


class Harness:
    """Records every step sent (kadmin's side) and runs fault hooks at exact points."""

    def __init__(self, sb, monkeypatch):
        from kadmin.backends.admin import AdminBackend

        self.sb = sb
        self.sent: list[tuple[int, tuple[int, ...]]] = []
        self.polls = 0
        self.on_poll = lambda n: None  # before simulated time moves on, at the n-th sleep
        self.on_send = lambda n, when: None  # n-th AlterPartitionReassignments, when "before" / "after"
        self.on_save = lambda changes: None
        real_send = AdminBackend.reassign_partitions
        harness = self

        def reassign_partitions(backend, assignments, validate_only=False):
            harness.attempts += 1
            harness.on_send(harness.attempts, "before")
            answers = real_send(backend, assignments, validate_only)
            harness.calls += 1
            harness.sent += [(a.partition, tuple(a.replicas)) for a in assignments]
            harness.on_send(harness.attempts, "after")
            return answers

        def sleep(clock, seconds):
            harness.polls += 1
            harness.on_poll(harness.polls)
            sb.clock.advance(seconds)

        real_save = incremental._Run._save

        def save(run, **changes):
            real_save(run, **changes)
            harness.on_save(changes)

        self.attempts = 0  # reassign_partitions calls, sent or not
        self.calls = 0  # AlterPartitionReassignments actually sent
        monkeypatch.setattr(AdminBackend, "reassign_partitions", reassign_partitions)
        monkeypatch.setattr(incremental.SystemClock, "sleep", sleep)
        monkeypatch.setattr(incremental._Run, "_save", save)

    def reset_hooks(self):
        self.on_poll = lambda n: None
        self.on_send = lambda n, when: None
        self.on_save = lambda changes: None


def run_args(sb, tmp_path, plan):
    return ["reassign", "execute", "--reassignment-json-file", plan, "--incremental", "--bootstrap-server",
            sb.bootstrap, "--throttle", "20MB/s", "--state-file", tmp_path / "state.json",
            "--max-parallel-partitions", "1"]


def interrupt():
    injected()
    raise KeyboardInterrupt


def check_finished(sb, tmp_path, harness, records):
    snap = sb.snapshot()
    assert {tp.partition: p.replicas for tp, p in snap.partitions.items()} == TARGET
    assert not any(p.reassigning for p in snap.partitions.values())
    assert throttles_left(snap) == {} and records.load_all() == {}
    saved = state_file.load(tmp_path / "state.json")
    assert saved.finished and saved.steps_completed == saved.steps_total
    every_step = sorted((tp.partition, tuple(s.after)) for tp, p in saved.partitions.items() for s in p.steps)
    assert sorted(harness.sent) == every_step  # each step sent once: none repeated, none skipped
    apis = [api for _, api, _ in sb.mutating_requests()]
    assert apis.count("AlterPartitionReassignments") == harness.calls


POINTS = {
    "after-throttles-set": lambda h: setattr(h, "on_save", lambda c: interrupt() if c.get("throttles_set") else None),
    "before-second-batch": lambda h: setattr(h, "on_send", lambda n, w: interrupt() if (n, w) == (2, "before") else None),
    "after-second-batch-sent": lambda h: setattr(h, "on_send", lambda n, w: interrupt() if (n, w) == (2, "after") else None),
    "after-batch-saved": lambda h: setattr(h, "on_save", lambda c: interrupt() if c.get("batches") == 3 else None),
    "while-waiting": lambda h: setattr(h, "on_poll", lambda n: interrupt() if n == 4 else None),
}


@pytest.mark.parametrize("point", sorted(POINTS))
def test_ctrl_c_then_resume(sb, tmp_path, capsys, records, monkeypatch, point):
    plan = write_plan(tmp_path, PLAN)
    h = Harness(sb, monkeypatch)
    POINTS[point](h)
    code, out, err = kadmin(capsys, *run_args(sb, tmp_path, plan), "--rollback-file", tmp_path / "rb.json")
    assert code == 130, err
    assert "Run the same command again to resume" in err
    h.reset_hooks()
    code, out, err = kadmin(capsys, *run_args(sb, tmp_path, plan), "--rollback-file", tmp_path / "rb2.json")
    assert code == 0, err
    assert "Resuming:" in err
    check_finished(sb, tmp_path, h, records)


def test_broker_restart_during_the_run(sb, tmp_path, capsys, records, monkeypatch):
    """Broker 3 (a target of every partition) stops at the 2nd poll and is back at the 8th:
    the run names it once when it sees it down and once when it is back, its progress says it
    waits for it, and it finishes without resending or skipping a step."""
    from kadmin.commands import render_incremental

    plan = write_plan(tmp_path, PLAN)
    h = Harness(sb, monkeypatch)
    # every progress line (the run's clock is simulated: a line per 5 s of the real one shows none)
    monkeypatch.setattr(render_incremental, "incremental_reporter", lambda: render_incremental.IncrementalLines(True, 0))

    def poll(n):
        if n == 2:
            sb.faults.broker_stop(3)
            injected()
        elif n == 8:
            sb.faults.broker_start(3)
    h.on_poll = poll
    code, out, err = kadmin(capsys, *run_args(sb, tmp_path, plan), "--rollback-file", tmp_path / "rb.json")
    assert code == 0, err
    lines = err.splitlines()
    down = ("kadmin: warning: broker 3 is down (not in the cluster's broker list): the steps with a replica on it "
            "finish only once it is back; waiting (Ctrl-C stops the run, which the same command resumes)")
    assert lines.count(down) == 1 and lines.count("note: broker 3 is back") == 1, err
    between = lines[lines.index(down) + 1: lines.index("note: broker 3 is back")]
    assert any(ln.endswith(", waiting for broker 3 (down)") for ln in between), err
    assert not any("waiting for" in ln for ln in lines[lines.index("note: broker 3 is back") + 1:]), err
    check_finished(sb, tmp_path, h, records)


def test_broker_restart_and_ctrl_c_while_it_is_down(sb, tmp_path, capsys, records, monkeypatch):
    plan = write_plan(tmp_path, PLAN)
    h = Harness(sb, monkeypatch)

    def poll(n):
        if n == 2:
            sb.faults.broker_stop(3)
            injected()
        elif n == 4:
            interrupt()
    h.on_poll = poll
    code, out, err = kadmin(capsys, *run_args(sb, tmp_path, plan), "--rollback-file", tmp_path / "rb.json")
    assert code == 130, err
    h.reset_hooks()
    sb.faults.broker_start(3)
    code, out, err = kadmin(capsys, *run_args(sb, tmp_path, plan), "--rollback-file", tmp_path / "rb2.json")
    assert code == 0, err
    check_finished(sb, tmp_path, h, records)


def test_slow_cluster_during_the_run(sb, tmp_path, capsys, records, monkeypatch):
    """Every broker answers slower than --timeout for a while (from the 3rd poll to the 6th):
    reads are retried; a step whose request timed out on the client may still have been
    applied. The run goes on, or stops in one clear line and resumes when run again; each
    step is sent once either way."""
    from tests.faults.support import clear_failure

    plan = write_plan(tmp_path, PLAN)
    h = Harness(sb, monkeypatch)

    def poll(n):
        if n == 3:
            for b in range(5):
                sb.faults.slow(b, 1500)
            injected()
        elif n == 6:
            for b in range(5):
                sb.faults.slow(b, 0)
    h.on_poll = poll
    args = [*run_args(sb, tmp_path, plan), "--timeout", "1s"]
    code, out, err = kadmin(capsys, *args, "--rollback-file", tmp_path / "rb.json")
    if code != 0:
        clear_failure(code, err)
        h.reset_hooks()
        for b in range(5):
            sb.faults.slow(b, 0)
        code, out, err = kadmin(capsys, *args, "--rollback-file", tmp_path / "rb2.json")
        assert code == 0, err
    snap = sb.snapshot()
    assert {tp.partition: p.replicas for tp, p in snap.partitions.items()} == TARGET
    saved = state_file.load(tmp_path / "state.json")
    every_step = sorted((tp.partition, tuple(s.after)) for tp, p in saved.partitions.items() for s in p.steps)
    assert sorted(set(h.sent)) == every_step  # none skipped
    assert len(h.sent) == len(every_step), h.sent  # none sent twice


def test_ctrl_c_after_throttles_set_keeps_the_rollback_file_for_the_resumed_run(sb, tmp_path, capsys, records,
                                                                               monkeypatch):
    """Ctrl-C after the throttles were set, before the first batch: nothing moved, but the state
    stays (its throttles are to be removed at the end), and so does the rollback file; the
    resumed run, which moves every replica, names it."""
    import json

    plan = write_plan(tmp_path, PLAN)
    h = Harness(sb, monkeypatch)
    POINTS["after-throttles-set"](h)
    code, out, err = kadmin(capsys, *run_args(sb, tmp_path, plan), "--rollback-file", tmp_path / "rb.json")
    assert code == 130, err
    assert (tmp_path / "rb.json").is_file() and state_file.load(tmp_path / "state.json").throttles_set
    h.reset_hooks()
    code, out, err = kadmin(capsys, *run_args(sb, tmp_path, plan), "--rollback-file", tmp_path / "rb2.json",
                            "--output", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["resumed"] is True and doc["rollback_file"] == str(tmp_path / "rb.json")
    assert not (tmp_path / "rb2.json").exists()
    rollback = json.loads((tmp_path / "rb.json").read_text())
    assert [p["replicas"] for p in rollback["partitions"]] == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    check_finished(sb, tmp_path, h, records)


def test_a_resumed_run_whose_rollback_file_is_gone_writes_one_before_its_first_step(sb, tmp_path, capsys, records,
                                                                                     monkeypatch):
    """The state outlived its rollback file (removed by hand, or written by an older kadmin): the
    resumed run writes the assignment from before the plan's first step, from the state."""
    import json

    plan = write_plan(tmp_path, PLAN)
    h = Harness(sb, monkeypatch)
    POINTS["after-second-batch-sent"](h)
    code, out, err = kadmin(capsys, *run_args(sb, tmp_path, plan), "--rollback-file", tmp_path / "rb.json")
    assert code == 130, err
    (tmp_path / "rb.json").unlink()
    h.reset_hooks()
    code, out, err = kadmin(capsys, *run_args(sb, tmp_path, plan), "--rollback-file", tmp_path / "rb2.json")
    assert code == 0, err
    assert f"No rollback file of this run found: saving the assignment from before its first step" in out
    rollback = json.loads((tmp_path / "rb2.json").read_text())
    assert [p["replicas"] for p in rollback["partitions"]] == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    assert state_file.load(tmp_path / "state.json").rollback_file == str(tmp_path / "rb2.json")
    check_finished(sb, tmp_path, h, records)
