"""A log-dir move held still on the sandbox, for the tests of what kadmin says while a directory
of it fails: t-0's replica on broker 1 moving from data1 to data0 at 1 MB/s (8 MB), its verify
on the sandbox's simulated time."""

from __future__ import annotations

from tests.support.cli import kadmin, write_plan
from tests.support.sandbox import SandboxClock

D0, D1 = "/var/lib/kafka/data0", "/var/lib/kafka/data1"


def start_log_dir_move(request, sandbox_factory, tmp_path, monkeypatch, capsys, version: str, mode: str):
    """The sandbox (``mode`` "kraft" or "zookeeper", at ``version``) with the move sent, 1 s in:
    ``sb.plan`` is its plan, ``sb.connect`` the connection flags."""
    from kadmin.execute import verification

    zk = request.getfixturevalue("zk_connect") if mode == "zookeeper" else None
    sb = sandbox_factory(brokers=2, log_dirs=2, manual_clock=True, kafka_version=version, zookeeper=zk)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=8_000_000, log_dirs={(0, 0): D0, (0, 1): D1})
    sb.settle()
    sb.connect = ["--zookeeper", zk] if zk else ["-b", sb.bootstrap]
    sb.plan = write_plan(tmp_path, [{"topic": "t", "partition": 0, "replicas": [0, 1], "log_dirs": ["any", D0]}])
    monkeypatch.setattr(verification, "SystemClock", lambda: SandboxClock(sb))
    code, _, err = kadmin(
        capsys, "reassign", "execute", "--reassignment-json-file", sb.plan,
        "--replica-alter-log-dirs-throttle", "1MB/s", "--rollback-file", f"{sb.plan}.rollback", *sb.connect,
    )  # fmt: skip
    assert code == 0, err
    sb.clock.advance(1)
    assert sb.snapshot().future_replica("t", 0, 1) is not None
    return sb
