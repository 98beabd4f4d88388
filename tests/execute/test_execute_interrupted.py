"""Ctrl-C in the middle of a plain ``reassign execute``: the executor returns what it made
(each change reported as a normal run reports it) and what it sent without an answer, never
loses one; the rollback file stays whenever a move may have been sent. The interrupt comes
from the in-memory backend (or the reporter, or the sleep) at a chosen call, not from a timer."""

from __future__ import annotations

import pytest

from kadmin.execute.changes import LogDirMove, Reassign, describe
from kadmin.execute.executor import AWAITED, UNANSWERED, apply_execution, plan_execution, read_cluster
from kadmin.execute.preamble import ChangeWatch, RollbackFile
from kadmin.model import Assignment, ReassignmentPlan, TopicPartition
from kadmin.throttling.stores import MemoryRecordStore
from tests.execute.test_executor import Clock, backend, request

FOO0 = TopicPartition("foo", 0)
# foo-0 [1,2] -> [3,2], its replica on broker 3 placed in /d/b, broker 2's moved to /d/b:
# throttles (8), then two AlterReplicaLogDirs (a new replica, an existing one), then the reassignment.
PLAN = [{"topic": "foo", "partition": 0, "replicas": [3, 2], "log_dirs": ["/d/b", "/d/b"]}]


class Reporter:
    """Keeps what it is told; ``interrupt_on`` (n): raises KeyboardInterrupt instead of taking
    the n-th report (1-based), once, as a Ctrl-C landing just before the line is written."""

    def __init__(self, interrupt_on: int | None = None):
        self.lines: list[str] = []
        self.calls = 0
        self.interrupt_on = interrupt_on

    def change(self, change, error):
        self.calls += 1
        if self.calls == self.interrupt_on:
            raise KeyboardInterrupt
        self.lines.append(describe(change) + (f": {error}" if error else ""))

    def waiting(self, replicas, seconds_left):
        pass


def run(be, reporter=None, clock=None, plan=PLAN, **kw):
    store = MemoryRecordStore()
    req = request(plan, throttle=1000, **kw)
    xplan = plan_execution(req, read_cluster(be, req.parsed, store))
    clock = clock or Clock()
    result = apply_execution(be, xplan, req, write_rollback=lambda p, plan: None, records=store,
                             reporter=reporter or Reporter(), clock=clock, sleep=clock.sleep)
    return xplan, result, store


def interrupt_after(be, name, *, applied: bool):
    """``be.<name>`` raises KeyboardInterrupt: after doing its work (the answer lost on its
    way back) or before (the request never left)."""
    real = getattr(be, name)

    def call(*args, **kwargs):
        if applied:
            real(*args, **kwargs)
        raise KeyboardInterrupt

    setattr(be, name, call)


def test_interrupted_while_the_throttles_are_set_says_they_may_be_set():
    """The operator's case: the brokers took the throttles, the answer never came."""
    be = backend()
    interrupt_after(be, "incremental_alter_configs", applied=True)
    reporter = Reporter()
    xplan, result, store = run(be, reporter)
    assert result.interrupted and result.aborted == "interrupted"
    assert reporter.lines == ["write rollback file /tmp/rb.json (1 partition)"]
    assert result.unanswered == [(c, UNANSWERED) for c in xplan.throttles.changes]
    assert len(xplan.throttles.changes) == 8 and be.configs  # they are set, and recorded
    assert "plan-1" in store.records
    # in the plan's order: the existing replica's move, the reassignment, the new replica's place
    assert [describe(c) for c in result.not_sent(xplan.changes())] == [
        "move replica foo-0 on broker 2 from /d/a to /d/b",
        "reassign foo-0: 1,2 -> 3,2 (adding 3; removing 1)",
        "place new replica foo-0 on broker 3 in /d/b",
    ]


def test_interrupted_after_the_throttles_were_set_reports_each_of_them():
    be = backend()
    interrupt_after(be, "alter_replica_log_dirs", applied=False)
    reporter = Reporter()
    xplan, result, _ = run(be, reporter)
    assert result.interrupted
    assert reporter.lines == [describe(c) for c in xplan.changes()[: 1 + len(xplan.throttles.changes)]]
    assert [c for c, _ in result.unanswered] == list(xplan.log_dir_moves)
    assert result.not_sent(xplan.changes()) == list(xplan.reassignments)
    assert be.mutating_calls() == ["incremental_alter_configs"]


@pytest.mark.parametrize("nth", [2, 5, 9])
def test_a_change_made_but_not_yet_reported_is_reported_once(nth):
    """Ctrl-C between a change's outcome and its line (the throttles' 1st, 4th or 8th line):
    every line is still written, once, in order; nothing is said to be unknown."""
    be = backend()
    reporter = Reporter(interrupt_on=nth)
    xplan, result, _ = run(be, reporter)
    assert result.interrupted and result.unanswered == []
    assert reporter.lines == [describe(c) for c in xplan.changes()[: 1 + len(xplan.throttles.changes)]]
    assert be.mutating_calls() == ["incremental_alter_configs"]


def test_interrupted_while_the_reassignment_is_sent():
    be = backend()
    interrupt_after(be, "reassign_partitions", applied=True)
    _, result, _ = run(be)
    assert result.interrupted
    [(reassign, why)] = [(c, e) for c, e in result.unanswered if isinstance(c, Reassign)]
    assert reassign.tp == FOO0 and why == UNANSWERED
    # Broker 2's replica started moving; broker 3's is waited for by nobody now: the broker
    # remembers its destination.
    assert [describe(c) for c in result.made() if isinstance(c, LogDirMove)] == [
        "move replica foo-0 on broker 2 from /d/a to /d/b"]
    assert [(describe(c), e) for c, e in result.unanswered if isinstance(c, LogDirMove)] == [
        ("place new replica foo-0 on broker 3 in /d/b", AWAITED)]
    assert be.reassigning[FOO0].target == (3, 2)


def test_interrupted_while_waiting_for_a_new_replica():
    be = backend()
    clock = Clock(on_sleep=lambda n: (_ for _ in ()).throw(KeyboardInterrupt) if n == 2 else None)
    xplan, result, _ = run(be, clock=clock)
    assert result.interrupted and clock.sleeps == 2
    assert [c for c in result.made() if isinstance(c, Reassign)] == list(xplan.reassignments)
    assert [(describe(c), e) for c, e in result.unanswered] == [("place new replica foo-0 on broker 3 in /d/b", AWAITED)]
    assert result.not_sent(xplan.changes()) == []


def test_interrupted_while_the_rollback_file_is_written_changes_nothing():
    be = backend()
    store = MemoryRecordStore()
    req = request(PLAN, throttle=1000)
    xplan = plan_execution(req, read_cluster(be, req.parsed, store))

    def write(path, plan):
        raise KeyboardInterrupt

    result = apply_execution(be, xplan, req, write_rollback=write, records=store)
    assert result.interrupted and result.applied == [] and result.unanswered == []
    assert be.mutating_calls() == [] and store.records == {}


class Answers(dict):
    """An answer that a Ctrl-C interrupts while it is being read."""

    def keys(self):
        raise KeyboardInterrupt

    def __iter__(self):
        raise KeyboardInterrupt


def test_rollback_file_stays_when_the_interrupt_comes_as_the_answer_is_read(tmp_path):
    be = backend()
    real = be.reassign_partitions
    be.reassign_partitions = lambda assignments, validate_only=False: Answers(real(assignments))
    watch = ChangeWatch(be)
    path = str(tmp_path / "rb.json")
    with pytest.raises(KeyboardInterrupt), RollbackFile(path, watch) as rb:
        rb.write(path, ReassignmentPlan((Assignment("foo", 0, (1, 2)),)))
        watch.reassign_partitions([Assignment("foo", 0, (3, 2))])
    assert watch.moved and not rb.discarded and (tmp_path / "rb.json").exists()


def test_a_refused_or_validate_only_call_still_counts_as_no_move():
    be = backend()
    be.reassign_errors[FOO0] = "INVALID_REPLICA_ASSIGNMENT"
    watch = ChangeWatch(be)
    watch.reassign_partitions([Assignment("foo", 0, (3, 2))])
    assert not watch.moved
    be.reassign_errors.clear()
    watch.reassign_partitions([Assignment("foo", 0, (3, 2))], validate_only=True)
    assert not watch.moved
