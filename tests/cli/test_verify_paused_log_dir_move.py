"""A log-dir move paused by a failed directory keeps its log-dir rate.

When the source directory of a move fails, the broker lists the future replica (OffsetLag -1)
and stops copying; when the destination fails, the future replica sits unseen on that disk.
Either way the restart that brings the directory back resumes the move (LogManager.loadLog,
ReplicaManager.maybeAddLogDirFetchers) at whatever log-dir rate is set by then. So the rate
the plan set is still needed: verify keeps it (and says why), throttle show counts it as
needed, throttle clear --stale keeps it, and the resumed move runs throttled. At 3.3 and 4.3
KRaft, and 2.8 in ZooKeeper mode through --zookeeper.
"""

from __future__ import annotations

import json

import jsonschema
import pytest

from kadmin.schemas import load
from tests.support.cli import kadmin
from tests.support.log_dir_move import D0, D1, start_log_dir_move
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

LOG_DIR_RATE = "replica.alter.log.dirs.io.max.bytes.per.second"
MODES = [("3.3", "kraft"), ("4.3", "kraft"), ("2.8", "zookeeper")]


@pytest.fixture(params=MODES, ids=[f"kafka{v}-{m}" for v, m in MODES])
def moving(request, sandbox_factory, tmp_path, monkeypatch, capsys):  # noqa: F811
    """t-0's replica on broker 1 moving from D1 to D0 at 1 MB/s (8 MB: 8 s), 1 s in."""
    return start_log_dir_move(request, sandbox_factory, tmp_path, monkeypatch, capsys, *request.param)


def log_dir_rate(sb, capsys) -> dict | None:
    """Broker 1's log-dir rate as throttle show lists it (None: not set)."""
    code, out, err = kadmin(capsys, "throttle", "show", "-o", "json", *sb.connect)
    assert code == 0, err
    rates = [t for t in json.loads(out)["throttles"] if t["resource"] == "1" and t["config"] == LOG_DIR_RATE]
    return rates[0] if rates else None


@pytest.mark.parametrize("failed", [D1, D0], ids=["source", "destination"])
def test_a_paused_move_keeps_its_log_dir_rate_until_it_resumes_and_ends(moving, capsys, failed):
    sb = moving
    sb.faults.dir_offline(1, failed)
    sb.settle()
    rate = log_dir_rate(sb, capsys)
    assert rate is not None and rate["value"] == "1000000"
    assert (rate["needed"], rate["stale"]) == (True, False)
    code, _, err = kadmin(capsys, "throttle", "clear", "--stale", *sb.connect)
    assert code == 0, err
    assert log_dir_rate(sb, capsys) is not None
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", sb.plan, *sb.connect)
    assert code == 4, out + err
    assert "Removed throttles" not in out
    assert log_dir_rate(sb, capsys) is not None

    # The restart that brings the disk back resumes the move, throttled: 7 MB left at 1 MB/s.
    sb.faults.dir_online(1, failed)
    sb.settle()
    sb.clock.advance(2)
    assert sb.snapshot().future_replica("t", 0, 1) is not None
    sb.clock.advance(10)
    assert sb.snapshot().replica_dir("t", 0, 1) == D0 and sb.snapshot().future_replica("t", 0, 1) is None
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", sb.plan, *sb.connect)
    assert code == 0, out + err
    assert log_dir_rate(sb, capsys) is None


def test_verify_says_why_it_keeps_the_rate_of_a_move_paused_by_its_source_directory(moving, capsys):
    reason = (
        "the log-dir rate of broker 1 stays: the move of t-0 on broker 1 is paused (its source directory is "
        "offline) and resumes when the broker restarts with that directory back, at the rate set then; verify "
        "again once it has finished"
    )
    moving.faults.dir_offline(1, D1)
    moving.settle()
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", moving.plan, *moving.connect)
    assert code == 4, out + err
    assert f"Throttles this plan set were kept: {reason}." in out
    code, out, err = kadmin(
        capsys, "reassign", "verify", "--reassignment-json-file", moving.plan, "-o", "json", *moving.connect
    )
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-verify-result"))
    assert doc["throttles_kept"] is True and doc["throttles_kept_reason"] == reason
