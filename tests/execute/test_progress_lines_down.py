"""The views that follow moves (``execute --wait``, ``progress --watch``) while the broker a
replica is being copied to is down: the broker is named once on stderr when it goes down (and
when it is back), each line says what it causes ("waiting for broker 3 (down)"), and the bytes
moved never fall to a wrong "0 B": what was copied until then is a floor, the rest unknown."""

from kadmin.execute.progress import snapshot
from tests.execute.test_progress import FOO0, MB, ONGOING, _render, cluster, dirs

LEADER = [(1, "/d1", "foo", 0, 80 * MB, 0, False), (2, "/d1", "foo", 0, 80 * MB, 0, False)]


def copying(at, copied, previous=None):
    """foo-0 copying to broker 3, ``copied`` bytes there so far."""
    return snapshot(
        at, cluster([FOO0]), ONGOING, dirs([*LEADER, (3, "/d1", "foo", 0, copied, 0, False)]), previous=previous
    )


def broker_3_down(at, previous=None):
    return snapshot(at, cluster([FOO0], brokers=(1, 2)), ONGOING, dirs(LEADER), previous=previous)


def test_the_line_of_a_move_to_a_down_broker_says_so_and_no_wrong_zero():
    from kadmin.commands.render_progress import progress_line

    line = progress_line(broker_3_down(0.0))
    assert line == (
        "kadmin: 1 partition reassigning, 1 replica moving: bytes moved and left unknown, waiting for broker 3 (down)"
    )
    assert "0 B" not in line


def test_plain_lines_name_the_down_broker_once_and_keep_what_was_copied_as_a_floor(capsys):
    from kadmin.commands.render_progress import PlainLines

    lines = PlainLines(err=False)
    first = copying(0.0, 30 * MB)
    second = copying(2.0, 40 * MB, first)
    down = broker_3_down(4.0, second)
    for snap in (first, second, down, broker_3_down(6.0, down), copying(8.0, 45 * MB, down)):
        lines.snapshot(snap)
    out, err = capsys.readouterr()
    said = out.splitlines()
    assert said[1].startswith("kadmin: 1 partition reassigning, 1 replica moving: 40.0 MB moved (50%), 40.0 MB left")
    assert (
        said[2]
        == said[3]
        == (
            "kadmin: 1 partition reassigning, 1 replica moving: >= 40.0 MB moved, "
            "bytes left unknown, waiting for broker 3 (down)"
        )
    )
    assert said[4].startswith("kadmin: 1 partition reassigning, 1 replica moving: 45.0 MB moved (56%), 35.0 MB left")
    assert err.splitlines() == [
        "kadmin: warning: broker 3 is down (not in the cluster's broker list): its replicas' state, "
        "log-dir moves and sizes are unknown",
        "kadmin: broker 3 seen again",
    ]


def test_the_live_table_names_the_down_broker_and_shows_the_floor():
    from kadmin.commands.render_progress import LastSeen, progress_table

    seen = LastSeen()
    first = copying(0.0, 30 * MB)
    progress_table(first, moving_first=True, last_seen=seen)
    lines = _render(progress_table(broker_3_down(2.0, first), moving_first=True, last_seen=seen))
    row = next(line for line in lines if line.startswith("│ foo ") and line.split("│")[3].strip() == "3")
    total = next(line for line in lines if line.startswith("│ total"))
    assert ">= 30.0 MB" in row and ">= 30.0 MB" in total and " 0 B " not in total, lines
    assert "broker 3 is down (not in the cluster's broker list)" in " ".join(lines), lines
    # without what was seen before (a one-shot table): unknown, not 0 B
    lines = _render(progress_table(broker_3_down(0.0), notes=False))
    total = next(line for line in lines if line.startswith("│ total"))
    assert " 0 B " not in total and total.split("│")[7].strip() == "-", lines


def test_a_down_broker_asked_on_stale_metadata_is_down_not_silent():
    """Right after a broker stops, DescribeLogDirs may still be sent to it (the client's metadata
    a moment old) and fail: the cluster's broker list leaves it out, so it is down, said in those
    words, not "did not answer" first and "down" on the next sample."""
    from kadmin.backends.base import BrokerLogDirs
    from kadmin.model import DOWN_ERROR

    failed = {**dirs(LEADER), 3: BrokerLogDirs(3, error="UnknownBrokerIdError: 3")}
    snap = snapshot(0.0, cluster([FOO0], brokers=(1, 2)), ONGOING, failed)
    assert snap.unanswered == {3: DOWN_ERROR}
