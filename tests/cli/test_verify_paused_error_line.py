"""``reassign verify``'s exit-4 line when what differs is a log-dir move paused by an offline
directory (source or destination): it says the move is paused and why, not "nothing of this plan
is moving, but ... 1 log-dir replica differ from it" beside a kept-throttle reason naming the
paused move. The exit code stays 4. At 3.3 KRaft, with and without --preserve-throttles."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.support.cli import kadmin
from tests.support.log_dir_move import D0, D1, start_log_dir_move
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)


@pytest.fixture
def moving(request, sandbox_factory, tmp_path, monkeypatch, capsys):  # noqa: F811
    """t-0's replica on broker 1 moving from D1 to D0 at 1 MB/s, 1 s in."""
    return start_log_dir_move(request, sandbox_factory, tmp_path, monkeypatch, capsys, "3.3", "kraft")


@pytest.mark.parametrize(
    ("failed", "why"),
    [(D1, "(its source directory is offline)"), (D0, f"(its destination directory {D0} is offline)")],
    ids=["source", "destination"],
)
def test_the_exit_4_line_says_the_move_is_paused_and_why(moving, capsys, failed, why):
    moving.faults.dir_offline(1, failed)
    moving.settle()
    line = (
        f"kadmin: error: nothing of this plan is copying: 1 log-dir move paused: t-0 on broker 1 {why}; "
        "it resumes when the broker restarts with that directory back\n"
    )
    for extra in ((), ("--preserve-throttles",)):
        code, out, err = kadmin(
            capsys, "reassign", "verify", "--reassignment-json-file", moving.plan, *moving.connect, *extra
        )
        assert code == 4, (extra, out, err)
        assert err.endswith(line), (extra, err)
        assert "nothing of this plan is moving" not in err


def test_what_else_differs_is_said_beside_the_paused_moves():
    from kadmin.commands.render_reassign import _differs_line
    from kadmin.model import TopicPartition, TopicPartitionReplica
    from kadmin.plan.verify import MoveState, PartitionVerdict, ReplicaVerdict, State

    paused = ReplicaVerdict(TopicPartitionReplica("t", 0, 1), MoveState.MISSING_LOG_DIR, State.DIFFERS, D0, None, D0)
    other = ReplicaVerdict(TopicPartitionReplica("t", 1, 1), MoveState.NOT_MOVING, State.DIFFERS, D0, D1)
    part = PartitionVerdict(TopicPartition("u", 0), State.DIFFERS, (1, 2), (2, 3))
    result = SimpleNamespace(partitions=[part], replicas=[paused, other])
    assert _differs_line(result, (paused,)) == (
        "nothing of this plan is copying: 1 log-dir move paused: t-0 on broker 1 (its source directory is offline); "
        "it resumes when the broker restarts with that directory back; besides, 1 partition and 1 other log-dir "
        "replica differ from the plan"
    )
    assert _differs_line(result, ()) == (
        "nothing of this plan is moving, but 1 partition and 2 log-dir replicas differ from it"
    )
