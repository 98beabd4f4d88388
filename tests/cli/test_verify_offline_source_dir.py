"""``reassign verify`` of a log-dir move whose source directory goes offline before it finishes.

The broker lists the future replica in the destination and the current one nowhere (its
directory failed), and copies no more. Kafka's ``--verify`` checks the current directory before
the future one (ReassignPartitionsCommand.findLogDirMoveStates) and says "Partition t-0 is not
found in any live log dir on broker 1. There is likely an offline log directory on the broker.";
kadmin says the same and exits 4 (finished but different), not 3: a script that runs verify until
it stops saying 3 must not wait for ever. At Kafka versions with and without JBOD in KRaft mode,
and in ZooKeeper mode through ``--zookeeper``.
"""

from __future__ import annotations

import json

import pytest

from tests.support.cli import kadmin
from tests.support.log_dir_move import D1, start_log_dir_move
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

OFFLINE = "Partition t-0 is not found in any live log dir on broker 1. There is likely an offline log directory on the broker."
MODES = [("3.3", "kraft"), ("3.9", "kraft"), ("4.3", "kraft"), ("3.9", "zookeeper"), ("2.8", "zookeeper")]


@pytest.fixture(params=MODES, ids=[f"kafka{v}-{m}" for v, m in MODES])
def moving(request, sandbox_factory, tmp_path, monkeypatch, capsys):  # noqa: F811
    """t-0's replica on broker 1 moving from D1 to D0 at 1 MB/s (8 MB: 8 s), 1 s in."""
    return start_log_dir_move(request, sandbox_factory, tmp_path, monkeypatch, capsys, *request.param)


def verify(sb, capsys, *args):
    return kadmin(capsys, "reassign", "verify", "--reassignment-json-file", sb.plan, *args, *sb.connect)


def test_a_move_whose_source_directory_went_offline_is_not_in_progress(moving, capsys):
    code, out, err = verify(moving, capsys, "--preserve-throttles")
    assert code == 3, out + err
    assert "Reassignment of replica t-0-1 is still in progress." in out
    moving.faults.dir_offline(1, D1)
    moving.settle()
    code, out, err = verify(moving, capsys, "--preserve-throttles")
    assert code == 4, out + err
    assert OFFLINE in out and "still in progress" not in out + err
    code, out, err = verify(moving, capsys, "--preserve-throttles", "-o", "json")
    (replica,) = json.loads(out)["replicas"]
    assert code == 4
    assert (replica["move"], replica["state"], replica["current_dir"]) == ("missing_log_dir", "differs", None)
    assert replica["message"] == OFFLINE
