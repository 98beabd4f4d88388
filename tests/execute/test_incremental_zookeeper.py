"""The incremental executor over the ZooKeeper backend: a sandbox in ZooKeeper mode registered
in a real ZooKeeper, whose controller carries out /admin/reassign_partitions. One node write per
batch; the next batch only once the controller has finished and deleted the node."""

from __future__ import annotations

import time

import pytest

from kadmin.backends import open_backend
from kadmin.config import resolve_connection
from kadmin.execute.incremental import IncrementalReporter, run_incremental
from kadmin.execute.step_throttles import RecordedThrottles
from kadmin.model import Assignment, ReassignmentPlan, TopicPartition
from kadmin.plan.batches import Limits
from kadmin.plan.steps import partition_steps
from tests.execute.test_incremental_sandbox import Sends, Watch
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

pytestmark = pytest.mark.zookeeper
MiB = 2**20


class ZkWatch(Watch):
    """The sandbox's controller hears of /admin/reassign_partitions asynchronously (a ZooKeeper
    watch): before simulated time moves on, wait (with a deadline) until it has taken up every
    partition of the node, as a real controller would within the poll interval."""

    def __init__(self, sb, backend):
        super().__init__(sb)
        self.backend = backend

    def taken_up(self) -> bool:
        node, _, _ = self.backend.reassign_node()
        if not node:
            return True
        snap = self.sb.snapshot()
        return all(snap.partitions[tp].reassigning or snap.partitions[tp].replicas == tuple(r)
                   for tp, r in node.items())

    def sleep(self, seconds: float) -> None:
        wait_until(self.taken_up)
        super().sleep(seconds)


class Notes(IncrementalReporter):
    def __init__(self):
        self.notes = []

    def note(self, message):
        self.notes.append(message)


def wait_until(check, timeout=15.0):
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)


def test_one_node_write_per_batch_and_limits_hold(sandbox_factory, zk_connect, tmp_path):  # noqa: F811
    sb = sandbox_factory(brokers=5, log_dirs=1, zookeeper=zk_connect, manual_clock=True)
    current = {p: [p % 3, (p + 1) % 3, (p + 2) % 3] for p in range(6)}
    sb.create_topic("t", assignment=current, size_bytes=8 * MiB)
    target = {p: (r[0], r[1], 3 + p % 2) if p % 2 else (3, 4, r[0]) for p, r in current.items()}
    plan = ReassignmentPlan(tuple(Assignment("t", p, r) for p, r in target.items()))
    settings = resolve_connection(zookeeper=zk_connect, timeout="10s", env={}, config_path=tmp_path / "none.toml")
    backend = Sends(open_backend(settings, read_only=False))
    try:
        wait_until(lambda: len(backend.describe_cluster().partitions) == 6
                   and all(p.leader >= 0 for p in backend.describe_cluster().partitions.values()))
        watch = ZkWatch(sb, backend._b)
        notes = Notes()
        limits = Limits(max_parallel_partitions=2, max_moves_per_broker=2)
        from kadmin.throttling.stores import MemoryRecordStore

        throttle = RecordedThrottles(backend, 4 * MiB, plan_id="zk-test", records=MemoryRecordStore())
        result = run_incremental(backend, plan, limits, tmp_path / "s.json", notes, watch,
                                 throttle=throttle, poll_interval=0.5)
    finally:
        backend.close()
    snap = sb.snapshot()
    assert {tp.partition: p.replicas for tp, p in snap.partitions.items()} == target
    sent: dict[TopicPartition, list] = {}
    for tp, replicas in backend.sent:
        sent.setdefault(tp, []).append(replicas)
    assert sent == {
        TopicPartition("t", p): [s.after for s in partition_steps(TopicPartition("t", p), current[p], target[p], 1)]
        for p in current
    }
    assert result.batches == backend.calls  # one /admin/reassign_partitions write per batch
    assert watch.peak["partitions"] <= 2 and watch.peak["per_broker"] <= 2
    # A batch whose partitions are done while the controller has not yet deleted the node is
    # refused by the backend (nothing written) and sent again at the next poll: the only notes.
    assert all("waiting for the controller to finish the previous batch" in n for n in notes.notes)
    # Throttles removed: brokers hear of it through /config/changes, asynchronously.
    sb.wait_for(lambda s: not s.topic_configs["t"].get("follower.replication.throttled.replicas")
                and not any(c.get("follower.replication.throttled.rate") for c in s.broker_configs.values()))


def test_cli_incremental_over_zookeeper_with_throttles(sandbox_factory, zk_connect, tmp_path, capsys):  # noqa: F811
    """The command end to end with --zookeeper: the throttle record lives in ZooKeeper (KIP-179's
    removal znodes), the steps go through /admin/reassign_partitions, all cleaned up at the end."""
    import json

    from kadmin.commands.root import run

    sb = sandbox_factory(brokers=4, log_dirs=1, zookeeper=zk_connect, speed=40.0)
    sb.create_topic("z", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=4 * MiB)
    settings = resolve_connection(zookeeper=zk_connect, timeout="10s", env={}, config_path=tmp_path / "none.toml")
    probe = open_backend(settings, read_only=True)
    try:
        wait_until(lambda: len(probe.describe_cluster().partitions) == 2
                   and all(p.leader >= 0 for p in probe.describe_cluster().partitions.values()))
    finally:
        probe.close()
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "z", "partition": 0, "replicas": [3, 1]}, {"topic": "z", "partition": 1, "replicas": [1, 3]}]}))
    with pytest.raises(SystemExit) as e:
        run(["reassign", "execute", "--reassignment-json-file", str(plan), "--incremental", "--zookeeper", zk_connect,
             "--throttle", "10MB/s", "--state-file", str(tmp_path / "s.json"), "--rollback-file", str(tmp_path / "rb.json"),
             "--output", "json"])
    out, err = capsys.readouterr()
    assert e.value.code == 0, err
    doc = json.loads(out)
    assert doc["steps_total"] == 3 and doc["resumed"] is False  # z-0: +3 (new leader), then -0
    snap = sb.wait_for(lambda s: not s.topic_configs["z"].get("follower.replication.throttled.replicas"))
    assert {tp.partition: p.replicas for tp, p in snap.partitions.items()} == {0: (3, 1), 1: (1, 3)}
    assert "Throttles set" in err and "Throttles removed" in err
