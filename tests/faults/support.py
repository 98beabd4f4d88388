"""Shared helpers of the fault tests: run kadmin in-process, check that a failure is one clear
line with a documented exit code, advance a manual-clock sandbox until its moves are done, and a
fault counter the note's figures come from (``FAULTS``: injected, and survived: injected by a
test that then passed)."""

from __future__ import annotations

from collections import Counter

import pytest

from kadmin.commands.root import run
from tests.support.cli import write_plan  # noqa: F401  (the fault tests import it from here)

MB = 1_000_000
DATA0, DATA1 = "/var/lib/kafka/data0", "/var/lib/kafka/data1"
DOCUMENTED_EXITS = {0, 1, 2, 3, 4, 130}

FAULTS: Counter = Counter()  # "injected" and "survived", summed over the session (see conftest.py)
CURRENT: Counter = Counter()  # faults injected by the test running now


def kadmin(capsys, *args):
    """(exit code, stdout, stderr) of one kadmin run through its real entry point."""
    with pytest.raises(SystemExit) as e:
        run([str(a) for a in args])
    out, err = capsys.readouterr()
    code = e.value.code
    assert code in DOCUMENTED_EXITS, (code, err)
    assert "Traceback" not in err and "Traceback" not in out, err
    return code, out, err


def clear_failure(code: int, err: str) -> str:
    """A failure is a typed kadmin error: exit 1, one line on stderr, not a bug's catch-all."""
    assert code == 1, err
    lines = [ln for ln in err.splitlines() if ln.startswith("kadmin: error:")]
    assert len(lines) == 1, err
    assert "run with --debug for the traceback" not in lines[0], lines[0]
    return lines[0]


def idle(snap) -> bool:
    return not any(p.reassigning for p in snap.partitions.values()) and not any(
        d.futures for b in snap.brokers.values() for d in b.dirs.values())


def settle(sb, seconds=120):
    """Advance a manual clock one simulated second at a time until nothing moves."""
    for _ in range(int(seconds)):
        if idle(sb.snapshot()):
            return
        sb.clock.advance(1)
    assert idle(sb.snapshot()), "moves did not finish"


def throttles_left(snap) -> dict:
    """Every throttle config still set in the sandbox, by resource."""
    names = ("leader.replication.throttled.rate", "follower.replication.throttled.rate",
             "replica.alter.log.dirs.io.max.bytes.per.second",
             "leader.replication.throttled.replicas", "follower.replication.throttled.replicas")
    left = {}
    for b, cfg in snap.broker_configs.items():
        got = {k: v for k, v in cfg.items() if k in names and v}
        if got:
            left[f"broker {b}"] = got
    for t, cfg in snap.topic_configs.items():
        got = {k: v for k, v in cfg.items() if k in names and v}
        if got:
            left[f"topic {t}"] = got
    return left


def injected(n: int = 1) -> None:
    """Count a fault; it counts as survived if the test that injected it passes."""
    FAULTS["injected"] += n
    CURRENT["injected"] += n


def foo_on_four_brokers(sandbox_factory):
    """The cluster most fault tests break: 4 brokers of 2 directories, a manual clock, and "foo"
    (2 partitions of 10 MB on brokers 0-1 and 1-2), every replica in data0."""
    sb = sandbox_factory(brokers=4, log_dirs=2, manual_clock=True)
    sb.create_topic("foo", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=10 * MB,
                    log_dirs={(0, 0): DATA0, (0, 1): DATA0, (1, 1): DATA0, (1, 2): DATA0})
    return sb
