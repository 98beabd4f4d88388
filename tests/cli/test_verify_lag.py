"""``reassign verify`` run back to back while moves finish never says "differs" (issue 17).

When a move ends, ListPartitionReassignments empties at once but each broker's Metadata and
DescribeLogDirs catch up a moment later (the sandbox models it: ``kadmin.sandbox.lag``). A
verify in that moment read views that disagree; it must read again until they agree (the
sandbox's brokers catch up within verify's bound) and say 0. The sandbox's clock is manual; the
time verify waits between its reads is simulated time passing (its clock is the sandbox's).
"""

import json

import pytest

from tests.support.sandbox import SandboxClock, sandbox_factory  # noqa: F401  (fixture)
from tests.support.cli import kadmin

MB = 1_000_000
POLL = 0.05  # simulated seconds between two verifies: back to back


@pytest.fixture(params=["kraft", "zookeeper"])
def lagging(request, sandbox_factory, monkeypatch):  # noqa: F811
    if request.param == "zookeeper":
        zk = request.getfixturevalue("zk_connect")
        sb = sandbox_factory(brokers=4, log_dirs=2, manual_clock=True, lag=True, zookeeper=zk,
                             kafka_version="3.3", bandwidth=20 * MB)
    else:
        sb = sandbox_factory(brokers=4, log_dirs=2, manual_clock=True, lag=True, kafka_version="4.3",
                             bandwidth=20 * MB)
    from kadmin.execute import verification

    monkeypatch.setattr(verification, "SystemClock", lambda: SandboxClock(sb), raising=False)
    return sb


def write_plan(tmp_path, name, partitions):
    p = tmp_path / f"{name}.json"
    p.write_text(json.dumps({"version": 1, "partitions": partitions}))
    return str(p)


def poll_verify(sb, capsys, plan, limit=400, step=POLL):
    codes = []
    for _ in range(limit):
        code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
        codes.append(code)
        if code != 3:
            return codes, out + err
        sb.clock.advance(step)
    return codes, "still in progress"


def test_verify_back_to_back_across_many_completions_is_3s_then_0(lagging, tmp_path, capsys):
    sb = lagging
    moves = [  # (assignment, target): moves between brokers, a reorder, a log-dir target
        ({0: [0, 1], 1: [1, 2]}, [{"partition": 0, "replicas": [3, 1]}, {"partition": 1, "replicas": [2, 3]}]),
        ({0: [0, 1, 2]}, [{"partition": 0, "replicas": [2, 1, 3]}]),
        ({0: [1, 2], 1: [2, 3]}, [{"partition": 0, "replicas": [0, 2]}, {"partition": 1, "replicas": [3, 0]}]),
        ({0: [3, 0]}, [{"partition": 0, "replicas": [1, 2], "log_dirs": [sb.log_dir_paths(1)[1], "any"]}]),
        ({0: [0, 1]}, [{"partition": 0, "replicas": [1, 3]}]),
        ({0: [2, 3]}, [{"partition": 0, "replicas": [0, 1]}]),
    ]
    seen = []
    for i, (assignment, partitions) in enumerate(moves):
        topic = f"t{i}"
        sb.create_topic(topic, assignment=assignment, size_bytes=(2 + i) * MB)
        plan = write_plan(tmp_path, topic, [dict(p, topic=topic) for p in partitions])
        code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap)
        assert code == 0, err
        codes, last = poll_verify(sb, capsys, plan)
        seen.append(codes)
        assert codes[-1] == 0 and set(codes[:-1]) <= {3}, f"{topic}: exit codes {codes}: {last}"
    assert sum(len(c) for c in seen) > 2 * len(moves)  # the polls did see moves running


def test_execute_wait_interrupted_then_verify_until_done_ends_complete(lagging, tmp_path, capsys, monkeypatch):
    """Issue 12 item 6: `execute --wait` stopped with Ctrl-C, then `verify` repeated until it
    stopped saying 3: the last verify said "differs" where the plan had completed as planned
    (a broker's Metadata not caught up with the end). Moves between brokers, a new leader, a
    log-dir target for a new replica and a log-dir move of a kept one."""
    from kadmin.commands import reassign_wait

    sb = lagging
    sb.create_topic("w", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=6 * MB)
    d2 = sb.log_dir_paths(2)[1]
    d1 = next(p for p in sb.log_dir_paths(1) if p != sb.snapshot().replica_dir("w", 1, 1))
    plan = write_plan(tmp_path, "w", [
        {"topic": "w", "partition": 0, "replicas": [2, 1], "log_dirs": [d2, "any"]},
        {"topic": "w", "partition": 1, "replicas": [3, 1], "log_dirs": ["any", d1]},
    ])

    class Interrupted(SandboxClock):
        sleeps = 0

        def sleep(self, seconds):
            self.sleeps += 1
            if self.sleeps == 2:
                raise KeyboardInterrupt
            super().sleep(seconds)

    monkeypatch.setattr(reassign_wait, "follow_clock", lambda: Interrupted(sb))
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                          "--throttle", "2MB/s", "--replica-alter-log-dirs-throttle", "6MB/s", "--wait",
                          "--interval", "1s")
    assert code == 130, err
    assert sb.snapshot().partition("w", 0).reassigning  # still moving when interrupted
    codes, last = poll_verify(sb, capsys, plan, step=0.1)
    assert codes[-1] == 0 and set(codes[:-1]) == {3}, f"exit codes {codes}: {last}"
    snap = sb.snapshot()
    assert (snap.partition("w", 0).replicas, snap.partition("w", 1).replicas) == ((2, 1), (3, 1))
    assert snap.replica_dir("w", 0, 2) == d2 and snap.replica_dir("w", 1, 1) == d1
    assert "Removed throttles this plan set:" in last


def test_a_cancelled_move_still_differs_once_the_views_agree(lagging, tmp_path, capsys):
    """The re-reading never hides a real difference: right after a cancel the brokers still show
    the move's full replica set, and verify reads on until they show the original one: 4."""
    sb = lagging
    sb.create_topic("c", assignment={0: [0, 1]}, size_bytes=20 * MB)
    plan = write_plan(tmp_path, "c", [{"topic": "c", "partition": 0, "replicas": [2, 1]}])
    assert kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap)[0] == 0
    sb.clock.advance(0.2)
    assert kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)[0] == 3
    code, _, err = kadmin(capsys, "reassign", "cancel", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0, err
    start = sb.clock.now
    code, out, _ = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 4 and "rather than 2,1" in out
    assert sb.clock.now - start <= 2.5  # the bound, in the simulated time verify slept
    assert set(sb.snapshot().partition("c", 0).replicas) == {0, 1}
