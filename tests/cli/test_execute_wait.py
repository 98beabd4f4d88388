"""``kadmin reassign execute --wait`` against the sandbox, over the AdminClient protocol and over
ZooKeeper: a throttled move followed to the end, then exactly the throttles it set removed
(throttles set by hand stay or come back), with verify's exit codes; Ctrl-C leaves the move running.

The sandbox's clock is manual and --wait's clock is injected (``reassign_wait.follow_clock``):
each of its sleeps advances simulated time, so a 10-second move takes a few polls of real time.
"""

from __future__ import annotations

import json
import time

import jsonschema
import pytest

from kadmin.backends import open_backend
from kadmin.commands import reassign_wait
from kadmin.config import resolve_connection
from kadmin.model import (
    FOLLOWER_RATE,
    FOLLOWER_REPLICAS,
    LOG_DIR_RATE,
    AlterOp,
    ConfigChange,
    ConfigResource,
    ConfigResourceType,
)
from kadmin.schemas import load
from kadmin.throttling.record import plan_id
from kadmin.throttling.stores import open_record_store
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)
from tests.support.cli import kadmin

MB = 1_000_000
HAND_TOPIC = {FOLLOWER_REPLICAS: "1:0"}  # foo-1, which the plan does not move
HAND_BROKERS = {"0": {LOG_DIR_RATE: "1000"}, "3": {FOLLOWER_RATE: "7777777"}}  # 3 is the plan's destination


class SimClock:
    """--wait's clock: every sleep advances the sandbox's simulated time. Before the first
    advance it waits (real deadline) until ``ready(snapshot)``: in ZooKeeper mode the controller
    and the brokers hear of the reassign znode and the throttle configs through watches."""

    def __init__(self, sb, ready=lambda snap: True, on_sleep=None):
        self.sb = sb
        self.ready = ready
        self.on_sleep = on_sleep
        self.sleeps = 0

    def now(self) -> float:
        return self.sb.clock.now

    def sleep(self, seconds: float) -> None:
        if self.sleeps == 0:
            self.sb.wait_for(self.ready, timeout=15)
        self.sleeps += 1
        if self.on_sleep is not None:
            self.on_sleep(self)
        self.sb.clock.advance(seconds)


@pytest.fixture(params=["admin", pytest.param("zookeeper", marks=pytest.mark.zookeeper)])
def cluster(request, sandbox_factory):  # noqa: F811
    """(sandbox, connection flags, backend) in both modes."""
    yield from _cluster(request, sandbox_factory, request.param)


@pytest.fixture
def admin_cluster(request, sandbox_factory):  # noqa: F811
    yield from _cluster(request, sandbox_factory, "admin")


def _cluster(request, sandbox_factory, mode):  # noqa: F811
    """(sandbox, connection flags, backend) with foo-0 on [0,1], foo-1 on [1,2], 10 MB each,
    and throttles set by hand on the topic and brokers the plan will touch."""
    kwargs = {}
    if mode == "zookeeper":
        kwargs["zookeeper"] = request.getfixturevalue("zk_connect")
    sb = sandbox_factory(brokers=4, log_dirs=2, manual_clock=True, **kwargs)
    sb.create_topic("foo", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=10 * MB)
    if mode == "zookeeper":
        flags = ["--zookeeper", kwargs["zookeeper"]]
        settings = resolve_connection(zookeeper=kwargs["zookeeper"], timeout="10s", env={}, config_path="/nonexistent.toml")
    else:
        flags = ["--bootstrap-server", sb.bootstrap]
        settings = resolve_connection(bootstrap_server=sb.bootstrap, timeout="10s", env={}, config_path="/nonexistent.toml")
    backend = open_backend(settings, read_only=False)
    deadline = time.monotonic() + 15
    while "foo" not in backend.describe_cluster().topics:  # ZooKeeper: registered a moment later
        assert time.monotonic() < deadline, "topic foo not visible"
        time.sleep(0.05)
    backend.incremental_alter_configs(
        [ConfigChange(ConfigResource(ConfigResourceType.TOPIC, "foo"), k, AlterOp.SET, v) for k, v in HAND_TOPIC.items()]
        + [ConfigChange(ConfigResource(ConfigResourceType.BROKER, b), k, AlterOp.SET, v)
           for b, cfg in HAND_BROKERS.items() for k, v in cfg.items()]
    )
    sb.wait_for(hand_throttles_only)
    yield sb, flags, backend
    backend.close()


def hand_throttles_only(snap) -> bool:
    return snap.topic_configs["foo"] == HAND_TOPIC and {b: c for b, c in snap.broker_configs.items() if c} == HAND_BROKERS


def throttled(snap) -> bool:
    """The plan's throttles have reached the brokers and the controller has taken the move up."""
    return (snap.partition("foo", 0).reassigning and snap.broker_configs.get("3", {}).get(FOLLOWER_RATE) == "1000000")


def write_plan(tmp_path, partitions):
    p = tmp_path / "plan.json"
    p.write_text(json.dumps({"version": 1, "partitions": partitions}))
    return str(p)


def drive(monkeypatch, clock):
    monkeypatch.setattr(reassign_wait, "follow_clock", lambda: clock)
    return clock


def test_wait_follows_to_the_end_and_removes_exactly_its_throttles(cluster, tmp_path, capsys, monkeypatch):
    sb, flags, backend = cluster
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    seen = []
    clock = drive(monkeypatch, SimClock(sb, throttled, on_sleep=lambda c: seen.append(sb.snapshot().partition("foo", 0))))
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, *flags,
                            "--throttle", "1MB/s", "--wait", "--output", "json")
    assert code == 0, err
    final = sb.snapshot().partition("foo", 0)
    assert final.replicas == (3, 1) and not final.reassigning
    assert seen and seen[0].reassigning and clock.sleeps >= 4  # 10 MB at 1 MB/s, sampled every 2 s

    docs = [json.loads(line) for line in out.strip().splitlines()]
    jsonschema.validate(docs[0], load("reassign-execute-result"))
    snapshots = docs[1:-1]
    for doc in snapshots:
        jsonschema.validate(doc, load("progress-snapshot"))
    moving = [d["totals"] for d in snapshots if not d["done"]]
    # (moved_bytes is null while a moving replica's bytes moved are unknown, its new replica unseen)
    assert any((t["moved_bytes"] or 0) > 0 and t["remaining_bytes"] > 0 for t in moving)
    assert snapshots[-1]["done"] and all(not d["done"] for d in snapshots[:-1])
    verdict = docs[-1]
    jsonschema.validate(verdict, load("reassign-verify-result"))
    assert verdict["state"] == "complete" and verdict["throttles_removed"] and not verdict["throttles_kept"]

    sb.wait_for(hand_throttles_only)  # ZooKeeper: brokers apply /config/changes a moment later
    assert backend.describe_configs([ConfigResource(ConfigResourceType.TOPIC, "foo")])[
        ConfigResource(ConfigResourceType.TOPIC, "foo")][FOLLOWER_REPLICAS].value == "1:0"
    pid = plan_id(open(plan, "rb").read())
    assert pid not in open_record_store(backend).load_all()


def test_wait_in_a_log_prints_lines_then_verify_report(cluster, tmp_path, capsys, monkeypatch):
    sb, flags, _ = cluster
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    drive(monkeypatch, SimClock(sb, throttled))
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, *flags,
                            "--throttle", "1MB/s", "--wait", "--interval", "3s")
    assert code == 0, err
    assert "Started. Following it to the end" in out
    assert "1 partition reassigning, 1 replica moving:" in err and "left" in err
    assert "Reassignment of partition foo-0 is completed." in out
    assert "Removed throttles this plan set:" in out
    sb.wait_for(hand_throttles_only)


def test_ctrl_c_leaves_the_move_running_and_says_how_to_follow_and_clean_up(cluster, tmp_path, capsys, monkeypatch):
    sb, flags, _ = cluster
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])

    def interrupt(clock):
        if clock.sleeps == 2:
            raise KeyboardInterrupt

    drive(monkeypatch, SimClock(sb, throttled, on_sleep=interrupt))
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, *flags,
                            "--throttle", "1MB/s", "--wait")
    assert code == 130
    assert f"kadmin reassign progress --reassignment-json-file {plan} --watch" in err
    assert f"kadmin reassign verify --reassignment-json-file {plan}" in err
    snap = sb.snapshot()
    assert snap.partition("foo", 0).reassigning  # still moving, throttled
    assert snap.topic_configs["foo"][FOLLOWER_REPLICAS] == "0:3,1:0"
    assert snap.broker_configs["3"][FOLLOWER_RATE] == "1000000"

    # Later: once it has finished, the verify it named removes what the run set.
    deadline = time.monotonic() + 30
    while sb.snapshot().partition("foo", 0).reassigning or sb.snapshot().partition("foo", 0).replicas != (3, 1):
        assert time.monotonic() < deadline, "the move did not finish"
        sb.clock.advance(1)
    deadline = time.monotonic() + 15
    while (code := kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, *flags)[0]) == 3:
        assert time.monotonic() < deadline  # ZooKeeper: the controller deletes its znode a moment later
        time.sleep(0.05)
    assert code == 0
    sb.wait_for(hand_throttles_only)


def test_ctrl_c_in_json_ends_the_stream_with_a_document_saying_so(admin_cluster, tmp_path, capsys, monkeypatch):
    """JSON lines end on a document marking the stop (as a plain execute's says aborted
    "interrupted"), with the commands that follow, clean up and stop the move; not on a progress
    snapshot a script would take for the last word."""
    sb, flags, _ = admin_cluster
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])

    def interrupt(clock):
        if clock.sleeps == 2:
            raise KeyboardInterrupt

    drive(monkeypatch, SimClock(sb, throttled, on_sleep=interrupt))
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, *flags,
                            "--throttle", "1MB/s", "--wait", "--output", "json")
    assert code == 130
    docs = [json.loads(line) for line in out.strip().splitlines()]
    jsonschema.validate(docs[0], load("reassign-execute-result"))
    assert docs[0]["aborted"] is None and docs[0]["rollback_file"]  # what was changed, how to put it back
    for doc in docs[1:-1]:
        jsonschema.validate(doc, load("progress-snapshot"))
    last = docs[-1]
    jsonschema.validate(last, load("reassign-wait-interrupted"))
    assert last == {
        "version": 1,
        "plan_id": docs[0]["plan_id"],
        "aborted": "interrupted",
        "follow": f"kadmin reassign progress --reassignment-json-file {plan} --watch",
        "clean_up": f"kadmin reassign verify --reassignment-json-file {plan}",
        "cancel": f"kadmin reassign cancel --reassignment-json-file {plan}",
    }
    assert sb.snapshot().partition("foo", 0).reassigning  # the move goes on


def test_finished_but_different_exits_4_as_verify(admin_cluster, tmp_path, capsys, monkeypatch):
    """Someone cancels the reassignment while --wait follows it: it ends, but not as planned.
    (AdminClient mode: over ZooKeeper a reassignment cannot be cancelled.)"""
    sb, flags, backend = admin_cluster
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])

    def cancel(clock):
        if clock.sleeps == 2:
            backend.cancel_partition_reassignments([p for p in backend.list_partition_reassignments()])

    drive(monkeypatch, SimClock(sb, throttled, on_sleep=cancel))
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, *flags,
                            "--throttle", "1MB/s", "--wait")
    assert code == 4, err
    assert sorted(sb.snapshot().partition("foo", 0).replicas) == [0, 1]  # back where it was
    assert "differ from it" in err
    sb.wait_for(hand_throttles_only)  # nothing needs them any more: removed all the same


def test_dry_run_has_nothing_to_wait_for(sandbox_factory, tmp_path, capsys):  # noqa: F811
    sb = sandbox_factory(brokers=4, log_dirs=1, manual_clock=True)
    sb.create_topic("foo", assignment={0: [0, 1]}, size_bytes=MB)
    sb.clear_requests()
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--throttle", "1MB/s", "--dry-run", "--wait")
    assert code == 0, err
    assert "nothing to wait for" in err and "Plan of changes (dry run" in out
    assert sb.mutating_requests() == []
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--incremental", "--dry-run", "--wait")  # --incremental waits anyway: still accepted
    assert code == 0, err
    assert "Batch 1: foo-0" in out and sb.mutating_requests() == []


def test_throttles_are_only_touched_once_verify_sees_nothing_running(monkeypatch):
    """The snapshots may say "done" while verify still sees work (a log-dir replica not created
    yet, the controller's list): following goes on, and removal waits for the real end."""
    from kadmin.execute import follow
    from kadmin.execute.progress import ProgressSnapshot, Totals
    from kadmin.execute.verification import VerifyOutcome
    from kadmin.model import ReassignmentPlan, TopicPartition
    from kadmin.plan.verify import PartitionVerdict, State, VerifyResult

    tp = TopicPartition("foo", 0)
    states = iter([State.IN_PROGRESS, State.COMPLETE, State.COMPLETE])
    calls = []

    def run_verify(backend, plan, *, plan_id, records, clock=None):
        calls.append(records)
        return VerifyOutcome(VerifyResult((PartitionVerdict(tp, next(states), (3, 1), (3, 1)),), ()), None)

    monkeypatch.setattr(follow, "run_verify", run_verify)
    done = ProgressSnapshot(0.0, (), Totals(0, 0, 0, None, None), 0)
    events = []

    class Clock:
        def now(self):
            return 0.0

        def sleep(self, seconds):
            events.append(("sleep", seconds))

    class Reporter(follow.FollowReporter):
        def snapshot(self, snap):
            events.append("snapshot")

        def still_running(self, outcome):
            events.append("still running")

    store = object()
    outcome = follow.wait_for_plan(None, ReassignmentPlan(()), lambda prev: done, plan_id="p", records=store,
                                   clock=Clock(), reporter=Reporter(), interval=3.0)
    assert outcome.result.state is State.COMPLETE
    assert calls == [None, None, store]  # checks read only; the removal once, at the end
    assert events == ["snapshot", "still running", ("sleep", 3.0), "snapshot"]


def test_wait_follows_a_log_dir_move_and_removes_its_rate(cluster, tmp_path, capsys, monkeypatch):
    """A move between the directories of broker 1 (KIP-113), throttled: followed through the
    future replica, then the log-dir rate this plan set is removed; broker 0's, set by hand, stays."""
    sb, flags, _ = cluster
    src = sb.snapshot().replica_dir("foo", 1, 1)
    dst = next(p for p in sb.log_dir_paths(1) if p != src)
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 1, "replicas": [1, 2], "log_dirs": [dst, "any"]}])

    def moving(snap):
        return snap.future_replica("foo", 1, 1) is not None and snap.broker_configs["1"].get(LOG_DIR_RATE) == "1000000"

    drive(monkeypatch, SimClock(sb, moving))
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, *flags,
                            "--replica-alter-log-dirs-throttle", "1MB/s", "--wait", "-o", "json")
    assert code == 0, err
    snap = sb.snapshot()
    assert snap.replica_dir("foo", 1, 1) == dst and snap.future_replica("foo", 1, 1) is None
    docs = [json.loads(line) for line in out.strip().splitlines()]
    rows = [r for d in docs[1:-1] for r in d["replicas"] if r["move"] == "log-dir"]
    assert rows and all((r["log_dir"], r["future_log_dir"]) == (src, dst) for r in rows)
    assert any(0 < r["moved_bytes"] < r["total_bytes"] for r in rows)
    assert docs[-1]["state"] == "complete"
    sb.wait_for(hand_throttles_only)
