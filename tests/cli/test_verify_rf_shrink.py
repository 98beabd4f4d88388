"""``reassign verify`` of a plan that lowers a partition's replication factor ([0,1,2] -> [0,1]).

Never executed, nothing runs: Kafka's ``--verify`` says "There is no active reassignment of
partition t-0, but replica set is 0,1,2 rather than 0,1." and kadmin exits 4 (finished but
different), not 3: a script that runs verify until it stops saying 3 must not wait forever.
Executed while a replica it keeps is out of the ISR (its broker down), the controller lists it
until that replica is back: 3, then 0. At every version the sandbox emulates, over the protocol
a user of that version has (2.8 only in ZooKeeper mode, through ``--zookeeper``).
"""

from __future__ import annotations

import time

import pytest

from tests.support.cli import kadmin, write_plan
from tests.support.sandbox import SandboxClock, sandbox_factory  # noqa: F401  (fixture)

NEVER_RUN = "There is no active reassignment of partition t-0, but replica set is 0,1,2 rather than 0,1."
MODES = [("4.3", "kraft"), ("3.3", "kraft"), ("3.3", "zookeeper"), ("2.8", "zookeeper")]


@pytest.fixture(params=MODES, ids=[f"kafka{v}-{m}" for v, m in MODES])
def shrink(request, sandbox_factory, tmp_path, monkeypatch):  # noqa: F811
    version, mode = request.param
    zk = request.getfixturevalue("zk_connect") if mode == "zookeeper" else None
    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True, kafka_version=version, zookeeper=zk)
    sb.create_topic("t", assignment={0: [0, 1, 2]}, size_bytes=1_000_000)
    sb.connect = ["--zookeeper", zk] if zk else ["-b", sb.bootstrap]
    sb.plan = write_plan(tmp_path, [{"topic": "t", "partition": 0, "replicas": [0, 1]}])
    from kadmin.execute import verification

    monkeypatch.setattr(verification, "SystemClock", lambda: SandboxClock(sb))
    return sb


def verify(sb, capsys):
    return kadmin(capsys, "reassign", "verify", "--reassignment-json-file", sb.plan, *sb.connect)


def test_a_plan_never_run_that_shrinks_the_replication_factor_differs(shrink, capsys):
    shrink.clear_requests()
    code, out, err = verify(shrink, capsys)
    assert code == 4, out + err
    assert NEVER_RUN in out and "still in progress" not in out + err
    assert shrink.mutating_requests() == []
    assert shrink.snapshot().partition("t", 0).replicas == (0, 1, 2)


def test_a_running_replication_factor_shrink_is_in_progress_until_it_ends(shrink, capsys):
    shrink.faults.broker_stop(1)  # replica 1 leaves the ISR: the shrink waits for it to come back
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", shrink.plan,
                            "--allow-replication-factor-change", "--rollback-file", f"{shrink.plan}.rollback",
                            *shrink.connect)
    assert code == 0, err
    code, out, err = verify(shrink, capsys)
    assert code == 3, out + err
    assert "Reassignment of partition t-0 is still in progress." in out
    shrink.faults.broker_start(1)
    deadline = time.monotonic() + 30
    while (code := verify(shrink, capsys)[0]) == 3 and time.monotonic() < deadline:
        shrink.clock.advance(0.5)  # the controller acts on ZooKeeper's watches in real time
    assert code == 0
    assert shrink.snapshot().partition("t", 0).replicas == (0, 1)
