"""`throttle show` and `throttle clear --stale` during an incremental run (`reassign execute
--incremental`): what its steps still to come need is not stale, whether a step of the partition
runs at that moment or not (between two batches no reassignment is listed at all); what its
finished partitions needed is. Run against the sandbox on a manual clock, with kadmin's real
record store, so the commands read the record the run wrote."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kadmin.commands.root import cli
from kadmin.execute.incremental import IncrementalReporter, run_incremental
from kadmin.execute.step_throttles import RecordedThrottles
from kadmin.model import (
    FOLLOWER_RATE,
    FOLLOWER_REPLICAS,
    LEADER_RATE,
    LEADER_REPLICAS,
    Assignment,
    ReassignmentPlan,
    TopicPartition,
)
from kadmin.plan.batches import Limits
from kadmin.throttling.stores import open_record_store
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)
from tests.support.watch import Watch

MiB = 2**20
P0, P3 = TopicPartition("payments", 0), TopicPartition("payments", 3)
PLAN_ID = "payments-plan"


def kadmin(*args):
    r = CliRunner(env={"COLUMNS": "200"}).invoke(cli, list(args))
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r


class Moments(Watch):
    """Calls ``act(name)`` once at each moment of the run: "P0 running" (payments-0's first step
    running, payments-3 not started) and "between" (payments-0 done, payments-3 not sent yet:
    nothing reassigning)."""

    def __init__(self, sb, act):
        super().__init__(sb)
        self.act = act
        self.seen: list[str] = []

    def observe(self) -> None:
        super().observe()
        snap = self.sb.snapshot()
        p0, p3 = snap.partitions[P0], snap.partitions[P3]
        if "P0 running" not in self.seen and p0.reassigning:
            self.seen.append("P0 running")
            self.act("P0 running")
        elif (
            "P0 running" in self.seen
            and "between" not in self.seen
            and not p0.reassigning
            and p0.replicas == (1, 0, 3)
            and not p3.reassigning
            and p3.replicas == (0, 1, 2)
        ):
            self.seen.append("between")
            self.act("between")
        assert self.now() < 600, "the run did not end"


def backend_for(sb, zk=None):
    from kadmin.config import ConnectionSettings

    if zk is not None:
        from kadmin.backends.zookeeper import ZooKeeperBackend

        return ZooKeeperBackend(zk, timeout=10.0)
    from kadmin.backends.admin import AdminBackend

    return AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=10.0), read_only=False)


def run_with_moments(sb, plan, tmp_path, connect, zk=None):
    """The run, one partition at a time at 2 MiB/s, `throttle show` and `throttle clear --stale`
    at each moment; their JSON documents by moment, and the run's notes."""
    shown, cleared, notes = {}, {}, []

    def act(moment):
        r = kadmin("throttle", "show", "-o", "json", *connect)
        assert r.exit_code == 0, r.output
        shown[moment] = json.loads(r.stdout)
        r = kadmin("throttle", "clear", "--stale", "-o", "json", *connect)
        assert r.exit_code == 0, r.output
        cleared[moment] = json.loads(r.stdout)

    class Notes(IncrementalReporter):
        def note(self, message):
            notes.append(message)

    watch = Moments(sb, act)
    backend = backend_for(sb, zk)
    try:
        throttle = RecordedThrottles(backend, 2 * MiB, PLAN_ID, open_record_store(backend))
        run_incremental(
            backend,
            plan,
            Limits(max_parallel_partitions=1),
            tmp_path / "s.json",
            Notes(),
            watch,
            throttle=throttle,
            poll_interval=0.5,
        )
    finally:
        backend.close()
    assert watch.seen == ["P0 running", "between"]
    return shown, cleared, notes


def payments(sb):
    """payments-0 on [1,0,2] and payments-3 on [0,1,2], each gaining broker 3 in place of 2."""
    sb.create_topic("payments", assignment={0: [1, 0, 2], 1: [2, 1, 0], 2: [0, 2, 1], 3: [0, 1, 2]}, size_bytes=8 * MiB)
    return ReassignmentPlan((Assignment("payments", 0, (1, 0, 3)), Assignment("payments", 3, (0, 1, 3))))


def by_config(doc):
    return {(t["resource"], t["config"]): t for t in doc["throttles"]}


def check(shown, cleared, notes, sb):
    # payments-0's first step running: payments-3's entries (its step is still to come) are needed.
    running = by_config(shown["P0 running"])
    follower = running[("payments", FOLLOWER_REPLICAS)]
    assert follower["value"] == "0:3,3:3"
    assert not follower["stale"] and follower["unneeded_entries"] == []
    assert follower["needed_by_runs"] == [PLAN_ID]
    assert not running[("payments", LEADER_REPLICAS)]["stale"]
    assert cleared["P0 running"]["removed"] == []
    # Between the batches nothing is reassigning: payments-0 is done (its entries are stale and
    # removed), payments-3's entries and every broker's rates are still needed.
    between = by_config(shown["between"])
    assert between[("payments", FOLLOWER_REPLICAS)]["unneeded_entries"] == ["0:3"]
    assert sorted(between[("payments", LEADER_REPLICAS)]["unneeded_entries"]) == ["0:0", "0:1", "0:2"]
    for b in ("0", "1", "2", "3"):
        assert not between[(b, LEADER_RATE)]["stale"] and not between[(b, FOLLOWER_RATE)]["stale"]
    removed = {(c["resource"], c["config"]): c["after"] for c in cleared["between"]["removed"]}
    assert removed == {("payments", FOLLOWER_REPLICAS): "3:3", ("payments", LEADER_REPLICAS): "3:0,3:1,3:2"}
    # The run found nothing of what payments-3 needs removed, and removed the rest at its end.
    assert not [n for n in notes if "needs a throttle removed meanwhile" in n]
    assert sb.snapshot().partitions[P3].replicas == (0, 1, 3)
    # (ZooKeeper mode: brokers hear of config changes through /config/changes, asynchronously)
    sb.wait_for(
        lambda s: (
            not s.topic_configs["payments"].get(FOLLOWER_REPLICAS)
            and not any(c.get(FOLLOWER_RATE) for c in s.broker_configs.values())
        )
    )


def test_what_the_steps_to_come_need_is_not_stale(sandbox_factory, tmp_path):  # noqa: F811
    sb = sandbox_factory(brokers=4, log_dirs=1, manual_clock=True)
    plan = payments(sb)
    check(*run_with_moments(sb, plan, tmp_path, ("-b", sb.bootstrap)), sb)


@pytest.mark.zookeeper
def test_what_the_steps_to_come_need_is_not_stale_in_zookeeper_mode(sandbox_factory, zk_connect, tmp_path):  # noqa: F811
    sb = sandbox_factory(brokers=4, log_dirs=1, zookeeper=zk_connect, manual_clock=True)
    plan = payments(sb)
    check(*run_with_moments(sb, plan, tmp_path, ("--zookeeper", zk_connect), zk=zk_connect), sb)
