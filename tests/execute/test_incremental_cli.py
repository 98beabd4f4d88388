"""``kadmin reassign execute --incremental`` through kadmin's entry point, against the sandbox
over the wire (time sped up: the command waits on the real clock)."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

from kadmin.commands.root import run
from kadmin.execute import state_file
from kadmin.schemas import load
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

MB = 1_000_000


def kadmin(capsys, *args):
    with pytest.raises(SystemExit) as e:
        run(list(args))
    out, err = capsys.readouterr()
    return e.value.code, out, err


@pytest.fixture
def sb(sandbox_factory):  # noqa: F811
    sb = sandbox_factory(brokers=5, log_dirs=1, speed=40.0)
    sb.create_topic("foo", assignment={0: [0, 1, 2], 1: [1, 2, 0], 2: [2, 0, 1]}, size_bytes=20 * MB)
    return sb


@pytest.fixture
def records(monkeypatch):
    """kadmin's throttle records in memory: the sandbox serves no Produce/Fetch, so the
    AdminClient-mode record topic cannot be used (tests/cli/test_reassign_sandbox.py does the same)."""
    from kadmin.commands import options
    from kadmin.throttling.stores import MemoryRecordStore

    store = MemoryRecordStore()
    monkeypatch.setattr(options, "open_records", lambda backend: store)
    return store


def write_plan(tmp_path, partitions):
    p = tmp_path / "plan.json"
    p.write_text(json.dumps({"version": 1, "partitions": partitions}))
    return str(p)


PLAN = [
    {"topic": "foo", "partition": 0, "replicas": [3, 4, 2]},
    {"topic": "foo", "partition": 1, "replicas": [1, 3, 4]},
    {"topic": "foo", "partition": 2, "replicas": [2, 3, 1]},
]


def test_incremental_runs_to_the_end_and_cleans_up(sb, tmp_path, capsys, records):
    plan = write_plan(tmp_path, PLAN)
    state = tmp_path / "state.json"
    code, out, err = kadmin(
        capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental",
        "--bootstrap-server", sb.bootstrap, "--throttle", "20MB/s", "--max-parallel-partitions", "2",
        "--max-moves-per-broker", "2", "--state-file", str(state), "--rollback-file", str(tmp_path / "rb.json"),
    )
    assert code == 0, err
    assert f"Saving the current assignment to {tmp_path / 'rb.json'}" in out
    # Nothing is left to resume: stdout says so, not "run the same command again to resume".
    assert f"State file: {state} (should the run stop before its end, the same command resumes it)" in out
    assert "to resume" not in out
    assert re.fullmatch(r"Finished: 6 steps, \d+ batch(es)? in this run, \d+s\. "
                        r"Run again, the same command says the plan is done\.", out.splitlines()[-1]), out
    assert "Batch 1: foo-" in err and "Throttles set" in err and "Throttles removed" in err
    assert "Done: 6 of 6 steps done, 0 running, 100.0 MB of 100.0 MB copied\n" in err  # 5 copies of 20 MB
    snap = sb.snapshot()
    assert {tp.partition: p.replicas for tp, p in snap.partitions.items()} == {0: (3, 4, 2), 1: (1, 3, 4), 2: (2, 3, 1)}
    assert not snap.topic_configs["foo"].get("follower.replication.throttled.replicas")
    assert not any(c.get("follower.replication.throttled.rate") for c in snap.broker_configs.values())
    saved = state_file.load(state)
    assert saved.finished and saved.steps_completed == saved.steps_total == 6
    assert records.load_all() == {}  # the record of what it set is gone with the throttles
    rollback = json.loads((tmp_path / "rb.json").read_text())
    assert [p["replicas"] for p in rollback["partitions"]] == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]

    # The same command again, with the same rollback file: a clean no-op that says it is done
    # (not "rollback file already exists"); nothing is sent, nothing is written.
    sb.clear_requests()
    code, out, err = kadmin(
        capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental",
        "--bootstrap-server", sb.bootstrap, "--throttle", "20MB/s", "--state-file", str(state),
        "--rollback-file", str(tmp_path / "rb.json"),
    )
    assert code == 0, err
    assert "Nothing to do: every partition of the plan already has its planned replicas" in out
    assert "already exists" not in err
    assert json.loads((tmp_path / "rb.json").read_text()) == rollback  # untouched
    code, out, err = kadmin(
        capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental",
        "--bootstrap-server", sb.bootstrap, "--state-file", str(state), "--output", "json",
        "--rollback-file", str(tmp_path / "rb2.json"),
    )
    assert code == 0, err
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-execute-incremental-result"))
    assert doc["already_done"] is True and doc["steps_run"] == 0 and doc["batches"] == 0
    assert doc["rollback_file"] == str(tmp_path / "rb.json")  # the finished run's, which the state records
    assert not (tmp_path / "rb2.json").exists()
    assert state_file.load(state).finished
    assert not sb.mutating_requests()


def test_interrupted_run_resumes_from_the_command_line(sb, tmp_path, capsys, records, monkeypatch):
    """Ctrl-C after the first batch (the run stops; what was sent goes on), then the same
    command: it resumes from the state file and finishes, each step sent once."""
    from kadmin.execute import incremental

    plan = write_plan(tmp_path, PLAN)
    state = tmp_path / "state.json"
    args = ["reassign", "execute", "--reassignment-json-file", plan, "--incremental", "--bootstrap-server",
            sb.bootstrap, "--throttle", "20MB/s", "--state-file", str(state), "--max-parallel-partitions", "1"]
    save = incremental._Run._save
    monkeypatch.setattr(incremental._Run, "_save", _interrupt_after_first_batch(save))
    code, out, err = kadmin(capsys, *args, "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 130 and "Run the same command again to resume" in err
    assert records.load_all()  # the throttle record stays while the run is interrupted
    monkeypatch.setattr(incremental._Run, "_save", save)
    code, out, err = kadmin(capsys, *args, "--rollback-file", str(tmp_path / "rb-unused.json"))
    assert code == 0, err
    assert "Resuming: 6 steps over 3 partitions" in err
    assert not (tmp_path / "rb-unused.json").exists()  # a resumed run writes no new rollback
    snap = sb.snapshot()
    assert {tp.partition: p.replicas for tp, p in snap.partitions.items()} == {0: (3, 4, 2), 1: (1, 3, 4), 2: (2, 3, 1)}
    assert not snap.topic_configs["foo"].get("follower.replication.throttled.replicas")
    assert records.load_all() == {}


def _interrupt_after_first_batch(save):
    def wrapped(self, **changes):
        save(self, **changes)
        if "batches" in changes:
            raise KeyboardInterrupt
    return wrapped


def test_incremental_json_names_the_rollback_file_it_wrote(sb, tmp_path, capsys, records):
    """A script gets the undo file's path from the document (the default name carries a time)."""
    plan = write_plan(tmp_path, PLAN[:1])
    code, out, err = kadmin(
        capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental",
        "--bootstrap-server", sb.bootstrap, "--state-file", str(tmp_path / "state.json"), "--output", "json",
    )
    assert code == 0, err
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-execute-incremental-result"))
    [written] = tmp_path.glob("plan.rollback-*.json")
    assert doc["rollback_file"] == str(written) and doc["resumed"] is False


def test_a_plan_found_done_names_the_rollback_file_its_finished_run_recorded(sb, tmp_path, capsys, records):
    """Run again after the end: nothing to do, and the rollback file of the run that did it is
    still named (the state file holds it), in JSON and in the line."""
    plan = write_plan(tmp_path, PLAN[:1])
    args = ["reassign", "execute", "--reassignment-json-file", plan, "--incremental",
            "--bootstrap-server", sb.bootstrap, "--state-file", str(tmp_path / "state.json")]
    code, out, err = kadmin(capsys, *args, "--output", "json")
    assert code == 0, err
    written = json.loads(out)["rollback_file"]
    code, out, err = kadmin(capsys, *args, "--output", "json")
    assert code == 0, err
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-execute-incremental-result"))
    assert doc["already_done"] is True and doc["rollback_file"] == written
    assert list(tmp_path.glob("plan.rollback-*.json")) == [tmp_path / written.rsplit("/", 1)[1]]  # none written
    code, out, err = kadmin(capsys, *args)
    assert code == 0, err
    assert f"Rollback file: {written} " in out


def test_the_run_counts_the_partitions_that_have_steps_as_the_preview_does(capsys):
    from types import SimpleNamespace

    from kadmin.commands.render_incremental import IncrementalLines

    parts = {i: SimpleNamespace(steps=("s",) * n) for i, n in enumerate((2, 0, 1))}  # one already in place
    IncrementalLines(True).planned(SimpleNamespace(steps_total=3, steps_completed=0, partitions=parts), False)
    assert capsys.readouterr().err == "Planned: 3 steps over 2 partitions; 0 done.\n"


def test_incremental_dry_run_previews_batches_and_changes_nothing(sb, tmp_path, capsys):
    plan = write_plan(tmp_path, PLAN)
    sb.clear_requests()
    code, out, err = kadmin(
        capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental", "--dry-run",
        "--bootstrap-server", sb.bootstrap, "--max-parallel-partitions", "2", "--output", "json",
        "--state-file", str(tmp_path / "state.json"),
    )
    assert code == 0, err
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-execute-incremental-result"))
    batches = doc["batches"]
    assert all(len(b) <= 2 for b in batches)
    steps = [(s["partition"], s["step"], s["replicas"]) for b in batches for s in b]
    assert (0, 1, [3, 2, 0, 1]) in steps and (0, 3, [3, 4, 2]) in steps  # the new leader 3 first
    assert not sb.mutating_requests()
    assert not (tmp_path / "state.json").exists()


def test_incremental_bad_plan_exit_2_nothing_changed(sb, tmp_path, capsys):
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 3, 1]}])
    sb.clear_requests()
    code, out, err = kadmin(
        capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental",
        "--bootstrap-server", sb.bootstrap, "--state-file", str(tmp_path / "state.json"),
    )
    assert code == 2
    assert "appears more than once" in err
    assert not sb.mutating_requests() and not (tmp_path / "state.json").exists()



def test_incremental_plan_with_log_dirs_ends_with_every_replica_in_its_directory(
        sandbox_factory, tmp_path, capsys, records):  # noqa: F811
    """Replicas moving between brokers in KIP-435 steps, some into named directories (new
    replicas and ones staying on their broker): the run ends with every replica where the
    plan says, verified, its throttles (the log-dir rate among them) recorded and removed."""
    sb = sandbox_factory(brokers=5, log_dirs=2, speed=40.0)
    sb.create_topic("foo", assignment={0: [0, 1, 2], 1: [1, 2, 0], 2: [2, 0, 1]}, size_bytes=20 * MB)
    snap = sb.snapshot()
    dirs = sorted(snap.brokers[0].dirs)
    other = {b: next(d for d in dirs if d != snap.replica_dir("foo", 1, b)) for b in (1,)}
    plan = write_plan(tmp_path, [
        {"topic": "foo", "partition": 0, "replicas": [3, 4, 2], "log_dirs": [dirs[1], "any", "any"]},
        {"topic": "foo", "partition": 1, "replicas": [1, 3, 4], "log_dirs": [other[1], dirs[0], "any"]},
        {"topic": "foo", "partition": 2, "replicas": [2, 3, 1]},
    ])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental", "--dry-run",
                            "--bootstrap-server", sb.bootstrap, "--output", "json")
    assert code == 0, err
    preview = json.loads(out)
    jsonschema.validate(preview, load("reassign-execute-incremental-result"))
    assert sorted((m["partition"], m["broker"], m["log_dir"], m["replica_exists"]) for m in preview["log_dir_moves"]) == [
        (0, 3, dirs[1], False), (1, 1, other[1], True), (1, 3, dirs[0], False)]
    sb.clear_requests()
    history = []
    put = records.put
    records.put = lambda record: history.append(record) or put(record)
    args = ["--reassignment-json-file", plan, "--bootstrap-server", sb.bootstrap]
    code, out, err = kadmin(
        capsys, "reassign", "execute", *args, "--incremental", "--throttle", "20MB/s",
        "--replica-alter-log-dirs-throttle", "30MB/s", "--max-parallel-partitions", "1",
        "--state-file", str(tmp_path / "state.json"), "--rollback-file", str(tmp_path / "rb.json"),
    )
    assert code == 0, err
    assert "3 replicas sent to their log directories (2 to be created there by the steps)" in err
    assert "Finished:" in out
    snap = sb.snapshot()
    assert {tp.partition: p.replicas for tp, p in snap.partitions.items()} == {0: (3, 4, 2), 1: (1, 3, 4), 2: (2, 3, 1)}
    assert (snap.replica_dir("foo", 0, 3), snap.replica_dir("foo", 1, 1), snap.replica_dir("foo", 1, 3)) == (
        dirs[1], other[1], dirs[0])
    assert not any(snap.future_replica("foo", p, b) for p in range(3) for b in range(5))
    # Told once, before the first step (one request to each of brokers 1 and 3): the new
    # replicas were created in their directories, not copied there afterwards.
    assert [r[0] for r in sb.requests if r[1] == "AlterReplicaLogDirs"] in ([1, 3], [3, 1])
    rates = {(c.broker, c.name): c.value for r in history for c in r.rates}
    assert rates[(3, "replica.alter.log.dirs.io.max.bytes.per.second")] == 30_000_000
    assert rates[(1, "replica.alter.log.dirs.io.max.bytes.per.second")] == 30_000_000
    assert records.load_all() == {}
    assert not any(c.get("replica.alter.log.dirs.io.max.bytes.per.second") for c in snap.broker_configs.values())
    code, out, err = kadmin(capsys, "reassign", "verify", *args, "--preserve-throttles")
    assert code == 0, out + err


def test_incremental_progress_counts_the_bytes_moved_between_directories(sandbox_factory, tmp_path, capsys,  # noqa: F811
                                                                         records):
    """A plan of moves between directories only (as `reassign balance` writes for a cluster
    whose brokers are even): the bytes moving are counted in the progress lines and in
    bytes_total, never "0 B of 0 B" while they move."""
    sb = sandbox_factory(brokers=3, log_dirs=2, speed=40.0)
    sb.create_topic("foo", assignment={0: [0, 1, 2]}, size_bytes=20 * MB)
    snap = sb.snapshot()
    other = [next(d for d in sb.log_dir_paths(b) if d != snap.replica_dir("foo", 0, b)) for b in range(3)]
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [0, 1, 2], "log_dirs": other}])
    code, out, err = kadmin(
        capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental", "--bootstrap-server",
        sb.bootstrap, "--replica-alter-log-dirs-throttle", "20MB/s", "--state-file", str(tmp_path / "state.json"),
        "--rollback-file", str(tmp_path / "rb.json"), "--output", "json")
    assert code == 0, err
    assert [sb.snapshot().replica_dir("foo", 0, b) for b in range(3)] == other
    lines = [line for line in err.splitlines() if line.endswith("copied") or " copied, ETA " in line]
    assert lines and all(" of 60.0 MB copied" in line for line in lines), err
    assert lines[-1] == "Done: 0 of 0 steps done, 0 running, 60.0 MB of 60.0 MB copied", err
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-execute-incremental-result"))
    assert doc["bytes_total"] == 60 * MB


def test_the_progress_line_has_an_eta_while_directories_copy_after_the_last_step():
    from kadmin.commands.render_incremental import _progress_line
    from kadmin.execute.incremental_progress import Progress

    copying = Progress(4, 4, 2, (), 10 * MB, 60 * MB, 2.0, 10.0)
    assert _progress_line(copying) == "4 of 4 steps done, 0 running, 10.0 MB of 60.0 MB copied, ETA 10s"
    assert _progress_line(Progress(4, 4, 2, (), 60 * MB, 60 * MB, 2.0, 0.0)).endswith("60.0 MB of 60.0 MB copied")


def test_the_step_count_is_the_steps_done_and_never_goes_back():
    """'x of y steps done': two steps running with none done is '0 of 4 steps done, 2 running'
    (not 'step 2 of 4'), and a running step cancelled leaves the count as it was."""
    from kadmin.commands.render_incremental import _progress_line
    from kadmin.execute.incremental_progress import Progress
    from kadmin.model import TopicPartition
    from kadmin.plan.steps import Step

    a, b = (Step(TopicPartition("t", p), 1, 2, (0, 1), (2, 0, 1), 0, 0) for p in range(2))
    assert _progress_line(Progress(0, 4, 1, (a, b), 0, 40 * MB, 2.0, None)).startswith("0 of 4 steps done, 2 running")
    running = Progress(4, 8, 5, (a,), 0, 80 * MB, 2.0, None)
    cancelled = Progress(4, 8, 5, (), 0, 80 * MB, 4.0, None)
    assert (running.step_label, cancelled.step_label) == ("4 of 8 steps done", "4 of 8 steps done")


def test_the_run_names_down_brokers_once_and_its_progress_line_the_wait():
    """Brokers said down in the words of every report (``render.not_answering``) with what the
    run does; the progress line says what it waits for, with no ETA (it cannot end meanwhile)."""
    from kadmin.commands.render_incremental import IncrementalLines, _progress_line
    from kadmin.execute.incremental_progress import Progress

    waiting = Progress(1, 4, 1, (), 10 * MB, 60 * MB, 2.0, None, (3, 4))
    assert _progress_line(waiting) == ("1 of 4 steps done, 0 running, 10.0 MB of 60.0 MB copied, "
                                       "waiting for brokers 3, 4 (down)")
    lines = []
    reporter = IncrementalLines(True)
    reporter._echo = lines.append
    reporter.brokers([3, 4], [])
    reporter.brokers([], [4])
    assert lines == [
        "kadmin: warning: brokers 3, 4 are down (not in the cluster's broker list): the steps with a replica on them "
        "finish only once they are back; waiting (Ctrl-C stops the run, which the same command resumes)",
        "note: broker 4 is back",
    ]


def test_incremental_log_dirs_a_broker_forgot_are_placed_after_the_last_step(
        sandbox_factory, tmp_path, capsys, records, monkeypatch):  # noqa: F811
    """As if the brokers forgot the directories they were told before the first step (a
    restart): the new replicas are created wherever the broker likes, then moved after the
    last step; the run waits for that and ends with them in place."""
    from kadmin.execute import incremental_log_dirs

    sb = sandbox_factory(brokers=5, log_dirs=2, speed=40.0)
    sb.create_topic("foo", assignment={0: [0, 1, 2]}, size_bytes=20 * MB)
    dirs = sorted(sb.snapshot().brokers[0].dirs)
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 4, 2], "log_dirs": dirs[1:] * 2 + ["any"]}])
    sent = []
    real = incremental_log_dirs.send_targets
    monkeypatch.setattr(incremental_log_dirs, "send_targets",
                        lambda backend, targets, held=None: sent.append(dict(targets))
                        or (set(targets) if len(sent) == 1 else real(backend, targets, held)))
    code, out, err = kadmin(
        capsys, "reassign", "execute", "--reassignment-json-file", plan, "--bootstrap-server", sb.bootstrap,
        "--incremental", "--state-file", str(tmp_path / "state.json"), "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 0, err
    assert len(sent) >= 2 and set(sent[1]) == set(sent[0])  # both new replicas sent again after the last step
    snap = sb.snapshot()
    assert snap.partition("foo", 0).replicas == (3, 4, 2)
    assert (snap.replica_dir("foo", 0, 3), snap.replica_dir("foo", 0, 4)) == (dirs[1], dirs[1])
    assert not snap.future_replica("foo", 0, 3) and not snap.future_replica("foo", 0, 4)


def test_incremental_plan_with_any_log_dirs_finished_then_run_again_is_a_no_op(sb, tmp_path, capsys, records):
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1, 2], "log_dirs": ["any"] * 3}])
    args = ["reassign", "execute", "--reassignment-json-file", plan, "--incremental", "--bootstrap-server",
            sb.bootstrap, "--state-file", str(tmp_path / "state.json"), "--rollback-file", str(tmp_path / "rb.json")]
    code, out, err = kadmin(capsys, *args)
    assert code == 0, err
    assert "Finished:" in out
    sb.clear_requests()
    code, out, err = kadmin(capsys, *args)
    assert code == 0, err
    assert "Nothing to do: every partition of the plan already has its planned replicas " \
           "(a run of this plan finished earlier)." in out
    assert not sb.mutating_requests()


def test_incremental_run_failing_before_any_step_leaves_no_rollback_or_state(sb, tmp_path, capsys, monkeypatch):
    from kadmin.commands import options
    from kadmin.throttling.stores import MemoryRecordStore

    class Broken(MemoryRecordStore):
        def put(self, record):
            raise KeyError("endpoint_type")

    monkeypatch.setattr(options, "open_records", lambda backend: Broken())
    plan = write_plan(tmp_path, PLAN)
    args = ["reassign", "execute", "--reassignment-json-file", plan, "--incremental", "--bootstrap-server",
            sb.bootstrap, "--throttle", "20MB/s", "--state-file", str(tmp_path / "state.json"),
            "--rollback-file", str(tmp_path / "rb.json")]
    sb.clear_requests()
    code, out, err = kadmin(capsys, *args)
    assert code == 1
    assert "unexpected KeyError: 'endpoint_type'" in err and "a bug in kadmin" in err
    assert not (tmp_path / "rb.json").exists() and not (tmp_path / "state.json").exists()
    assert not [r for r in sb.mutating_requests() if r[1] == "AlterPartitionReassignments"]


def test_resumed_without_throttle_still_removes_the_throttles_the_first_part_set(sb, tmp_path, capsys, records,
                                                                                 monkeypatch):
    """The end of a run removes what any of its parts set, as the state knows: the first part
    set throttles, the resumed one was run without --throttle (and goes on under the rate the
    state keeps: nothing was removed meanwhile, so nothing is set again)."""
    from kadmin.execute import incremental

    plan = write_plan(tmp_path, PLAN)
    state = tmp_path / "state.json"
    args = ["reassign", "execute", "--reassignment-json-file", plan, "--incremental", "--bootstrap-server",
            sb.bootstrap, "--state-file", str(state), "--max-parallel-partitions", "1"]
    save = incremental._Run._save
    monkeypatch.setattr(incremental._Run, "_save", _interrupt_after_first_batch(save))
    code, out, err = kadmin(capsys, *args, "--throttle", "20MB/s", "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 130, err
    assert state_file.load(state).throttles_set and records.load_all()
    monkeypatch.setattr(incremental._Run, "_save", save)
    code, out, err = kadmin(capsys, *args, "--rollback-file", str(tmp_path / "rb2.json"))
    assert code == 0, err
    assert "resumed with the throttles this run began with (its state file keeps them): --throttle 20.0 MB/s" in err
    assert "Throttles set" not in err and "Throttles removed (" in err  # all still set: no header of none
    snap = sb.snapshot()
    assert {tp.partition: p.replicas for tp, p in snap.partitions.items()} == {0: (3, 4, 2), 1: (1, 3, 4), 2: (2, 3, 1)}
    assert not snap.topic_configs["foo"].get("follower.replication.throttled.replicas")
    assert not snap.topic_configs["foo"].get("leader.replication.throttled.replicas")
    assert not any(c.get("follower.replication.throttled.rate") for c in snap.broker_configs.values())
    assert records.load_all() == {}
    saved = state_file.load(state)
    assert saved.finished and not saved.throttles_set


def test_resumed_without_throttle_sets_the_rates_it_began_with_again_before_sending(sandbox_factory, tmp_path,  # noqa: F811
                                                                                  capsys, records, monkeypatch):
    """The first part set the log-dir rate and stopped before sending anything; `reassign verify`
    removed that rate meanwhile (no move needed it). Resumed without the flag, the run sets the
    rate its state keeps again, says so, before it sends the replicas to their directories, and
    removes it at the end (it re-sent them unthrottled, "Throttles removed (0 config changes)")."""
    from kadmin.execute import incremental
    from kadmin.model import LOG_DIR_RATE

    sb = sandbox_factory(brokers=3, log_dirs=2, speed=40.0)
    sb.create_topic("foo", assignment={0: [0, 1, 2]}, size_bytes=20 * MB)
    snap = sb.snapshot()
    other = [next(d for d in sb.log_dir_paths(b) if d != snap.replica_dir("foo", 0, b)) for b in range(3)]
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [0, 1, 2], "log_dirs": other}])
    args = ["reassign", "execute", "--reassignment-json-file", plan, "--incremental", "--bootstrap-server",
            sb.bootstrap, "--state-file", str(tmp_path / "state.json"), "--rollback-file", str(tmp_path / "rb.json")]
    send = incremental.send_before_first_batch
    monkeypatch.setattr(incremental, "send_before_first_batch", lambda *a: (_ for _ in ()).throw(KeyboardInterrupt))
    code, out, err = kadmin(capsys, *args, "--replica-alter-log-dirs-throttle", "20MB/s")
    assert code == 130, err
    monkeypatch.setattr(incremental, "send_before_first_batch", send)
    saved = state_file.load(tmp_path / "state.json")
    assert saved.throttles_set and saved.log_dir_rate == 20 * MB and saved.throttle_rate is None
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "--bootstrap-server",
                            sb.bootstrap)
    assert "Removed throttles this plan set" in out and code == 4, out + err
    assert not any(c.get(LOG_DIR_RATE) for c in sb.snapshot().broker_configs.values())

    sb.clear_requests()
    code, out, err = kadmin(capsys, *args)
    assert code == 0, err
    assert ("kadmin: note: resumed with the throttles this run began with (its state file keeps them): "
            "--replica-alter-log-dirs-throttle 20.0 MB/s") in err
    assert "Throttles set (3 config changes):" in err and "Throttles removed (3 config changes):" in err
    apis = [r[1] for r in sb.requests]
    assert "IncrementalAlterConfigs" in apis[:apis.index("AlterReplicaLogDirs")]
    assert [sb.snapshot().replica_dir("foo", 0, b) for b in range(3)] == other
    assert not any(c.get(LOG_DIR_RATE) for c in sb.snapshot().broker_configs.values())


def test_resumed_over_the_other_connection_warns_naming_it(sb, tmp_path, capsys, monkeypatch):
    """The first part set throttles through --zookeeper (as its state says; its record lives in
    ZooKeeper), the resumed run goes through -b, whose store has no record of them: it finishes
    with a warning naming the connection that can remove them, and says so in JSON."""
    from kadmin.commands import options
    from kadmin.execute import incremental
    from kadmin.throttling.stores import MemoryRecordStore

    stores = iter([MemoryRecordStore(), MemoryRecordStore()])  # one per connection
    monkeypatch.setattr(options, "open_records", lambda backend: next(stores))
    plan = write_plan(tmp_path, PLAN)
    state = tmp_path / "state.json"
    args = ["reassign", "execute", "--reassignment-json-file", plan, "--incremental", "--bootstrap-server",
            sb.bootstrap, "--state-file", str(state), "--throttle", "20MB/s"]
    save = incremental._Run._save
    monkeypatch.setattr(incremental._Run, "_save", _interrupt_after_first_batch(save))
    code, out, err = kadmin(capsys, *args, "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 130, err
    doc = json.loads(state.read_text())
    assert doc["throttles_via"] == ["admin"]
    doc["throttles_via"] = ["zookeeper"]  # as a first part run with --zookeeper leaves it
    state.write_text(json.dumps(doc))
    monkeypatch.setattr(incremental._Run, "_save", save)
    code, out, err = kadmin(capsys, *args, "--output", "json")
    assert code == 0, err
    [warning] = [line for line in err.splitlines() if line.startswith("kadmin: warning:")]
    assert "throttles an earlier part of this run set through --zookeeper are still set" in warning
    assert f"`kadmin reassign verify --reassignment-json-file {plan} --zookeeper ...` removes them" in warning
    result = json.loads(out)
    jsonschema.validate(result, load("reassign-execute-incremental-result"))
    assert result["throttles_left_with"] == ["--zookeeper"]


def test_a_second_run_of_the_same_state_is_refused_while_the_first_runs(sb, tmp_path, capsys, records, monkeypatch):
    """Two runs of one plan at once would both drive it (both send the next batch, one removes the
    throttles while the other runs): the second is refused at once, in one line naming the first."""
    import os

    from kadmin.execute import incremental

    plan = write_plan(tmp_path, PLAN)
    state = tmp_path / "state.json"
    args = ["reassign", "execute", "--reassignment-json-file", plan, "--incremental", "--bootstrap-server",
            sb.bootstrap, "--throttle", "20MB/s", "--state-file", str(state), "--max-parallel-partitions", "1"]
    second = []
    save = incremental._Run._save

    def save_then_run_again(self, **changes):
        save(self, **changes)
        if changes.get("batches") == 1 and not second:
            sb.clear_requests()
            second.append(kadmin(capsys, *args, "--rollback-file", str(tmp_path / "rb2.json")))
            second.append(list(sb.mutating_requests()))

    monkeypatch.setattr(incremental._Run, "_save", save_then_run_again)
    code, out, err = kadmin(capsys, *args, "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 0, err
    (code2, out2, err2), mutations = second
    assert code2 == 2
    [line] = [ln for ln in err2.splitlines() if ln.startswith("kadmin:")]  # (the first run's lines come before)
    assert line == (f"kadmin: error: another run of this plan is in progress (pid {os.getpid()}, state file {state}); "
                    "nothing was changed (let it finish, or stop it (Ctrl-C) and run the same command again to resume)")
    assert err2.endswith(line + "\n")
    assert mutations == [] and not (tmp_path / "rb2.json").exists()
    assert not state_file.lock_path(state).exists()  # removed as the run ended
    snap = sb.snapshot()
    assert {tp.partition: p.replicas for tp, p in snap.partitions.items()} == {0: (3, 4, 2), 1: (1, 3, 4), 2: (2, 3, 1)}
    assert state_file.load(state).finished


def test_a_finished_run_of_an_earlier_plan_under_the_same_name_is_history(sb, tmp_path, capsys, records):
    """plan.json ran to the end; a regenerated plan.json (new content, same name, same state file)
    starts over, saying so in one line, and writes its own rollback file."""
    state = tmp_path / "state.json"
    args = ["--incremental", "--bootstrap-server", sb.bootstrap, "--state-file", str(state)]
    plan = write_plan(tmp_path, PLAN[:1])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, *args,
                            "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 0, err
    plan = write_plan(tmp_path, PLAN[1:2])  # regenerated
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, *args,
                            "--rollback-file", str(tmp_path / "rb2.json"))
    assert code == 0, err
    assert err.splitlines()[0] == f"kadmin: note: the state file {state} holds a finished run of another plan: starting over"
    assert "Planned: 2 steps over 1 partition" in err and "Finished:" in out
    assert json.loads((tmp_path / "rb2.json").read_text())["partitions"][0]["replicas"] == [1, 2, 0]
    snap = sb.snapshot()
    assert {tp.partition: p.replicas for tp, p in snap.partitions.items()} == {0: (3, 4, 2), 1: (1, 3, 4), 2: (2, 0, 1)}
    saved = state_file.load(state)
    assert saved.finished and [(tp.topic, tp.partition) for tp in saved.partitions] == [("foo", 1)]


@pytest.mark.parametrize("dry_run", [False, True])
@pytest.mark.parametrize("where", ["under-a-file", "proc"])
def test_a_state_file_that_cannot_be_written_is_one_line_exit_2_before_any_change(sb, tmp_path, capsys, records,
                                                                                   where, dry_run):
    import os

    if where == "proc":
        if not os.path.isdir("/proc/self"):
            pytest.skip("no /proc")
        state, why = "/proc/nope/x.json", "No such file or directory"
    else:
        (tmp_path / "afile").write_text("")
        state, why = str(tmp_path / "afile" / "x.json"), f"{tmp_path / 'afile'} is not a directory"
    plan = write_plan(tmp_path, PLAN)
    sb.clear_requests()
    code, out, err = kadmin(
        capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental", "--bootstrap-server",
        sb.bootstrap, "--throttle", "20MB/s", "--state-file", state, *(["--dry-run"] if dry_run else []),
    )
    assert code == 2
    assert err == f"kadmin: error: cannot write the state file {state}: {why}; nothing was changed " \
                  "(choose another --state-file)\n"
    assert out == ""
    assert not sb.mutating_requests() and not list(tmp_path.glob("plan.rollback-*"))


def test_every_throttle_change_is_printed_and_the_dry_run_prints_the_same(sb, tmp_path, capsys, records):
    """"Every change is printed; --dry-run prints the same changes and makes none": the throttle
    config changes made before the first batch and at the end, each on its line."""
    import re

    plan = write_plan(tmp_path, PLAN)
    args = ["reassign", "execute", "--reassignment-json-file", plan, "--incremental", "--bootstrap-server",
            sb.bootstrap, "--throttle", "20MB/s", "--state-file", str(tmp_path / "state.json")]
    code, out, err = kadmin(capsys, *args, "--dry-run")
    assert code == 0, err
    lines = out.splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.startswith("Throttles, set before the first batch"))
    n = int(re.search(r"\((\d+) config change", lines[head]).group(1))
    previewed = [ln.strip() for ln in lines[head + 1: head + 1 + n]]
    assert n > 0 and all(ln.startswith("  ") for ln in lines[head + 1: head + 1 + n])
    assert "topic foo follower.replication.throttled.replicas" in " ".join(previewed)
    code, out, err = kadmin(capsys, *args, "--dry-run", "--output", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-execute-incremental-result"))
    assert len(doc["throttle_changes"]) == n
    assert not sb.mutating_requests()

    code, out, err = kadmin(capsys, *args, "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 0, err
    lines = err.splitlines()
    at = lines.index(f"Throttles set ({n} config change{'' if n == 1 else 's'}):")
    assert [ln.removeprefix("  done    ") for ln in lines[at + 1: at + 1 + n]] == previewed
    removed = next(ln for ln in lines if ln.startswith("Throttles removed ("))
    m = int(re.search(r"\((\d+) config change", removed).group(1))
    at = lines.index(removed)
    assert m > 0 and all(ln.startswith("  done    ") for ln in lines[at + 1: at + 1 + m])


def test_a_fresh_run_checks_its_state_and_the_moving_partitions_once(sb, tmp_path, capsys, records):
    """The command's preflight (fresh, resume or start over; a partition already moving) is the
    run's: the run reads neither the state nor the ongoing reassignments again to refuse them."""
    plan = write_plan(tmp_path, PLAN[:1])
    sb.clear_requests()
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental",
                            "--bootstrap-server", sb.bootstrap, "--state-file", str(tmp_path / "state.json"),
                            "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 0, err
    names = [name for _, name, _ in sb.requests]
    first = names.index("AlterPartitionReassignments")
    assert names[:first].count("ListPartitionReassignments") == 2  # the plan's check, then where each step is


def test_a_fresh_run_plans_its_steps_once(sb, tmp_path, capsys, records, monkeypatch):
    """The steps the command checked before any change are the run's: planned once, from one
    read of the topics' min.insync.replicas (the run used to plan again, reading them again)."""
    from kadmin.execute import incremental_resume
    from kadmin.model import ConfigResourceType

    planned, asked = [], []
    plan_steps = incremental_resume.plan_steps
    monkeypatch.setattr(incremental_resume, "plan_steps", lambda *a: planned.append(a) or plan_steps(*a))
    from kadmin.backends.admin import AdminBackend

    describe = AdminBackend.describe_configs
    monkeypatch.setattr(AdminBackend, "describe_configs",
                        lambda self, resources, keys=None: asked.append((list(resources), keys))
                        or describe(self, resources, keys))
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", write_plan(tmp_path, PLAN),
                            "--incremental", "--bootstrap-server", sb.bootstrap, "--state-file",
                            str(tmp_path / "state.json"), "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 0, err
    assert len(planned) == 1
    min_insync = [keys for resources, keys in asked
                  if any(r.type == ConfigResourceType.TOPIC for r in resources)
                  and (keys is None or "min.insync.replicas" in keys)]
    assert len(min_insync) == 1


def test_the_run_sends_the_steps_its_dry_run_showed_under_min_insync_replicas(sandbox_factory, tmp_path, capsys,  # noqa: F811
                                                                            monkeypatch):
    """Two of three replicas down and min.insync.replicas=3: the first step adds both new
    replicas at once, so the partition takes writes again as soon as it can. --dry-run shows
    that step, and the run sends it (the dry run planned as if min.insync.replicas were 1)."""
    from kadmin.execute import incremental

    sb = sandbox_factory(brokers=5, log_dirs=1, speed=40.0)
    sb.create_topic("foo", assignment={0: [0, 1, 2]}, size_bytes=20 * MB, configs={"min.insync.replicas": "3"})
    sb.faults.broker_stop(1)
    sb.faults.broker_stop(2)
    sb.wait_for(lambda snap: snap.partition("foo", 0).isr == (0,), timeout=30)
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [0, 3, 4]}])
    args = ["reassign", "execute", "--reassignment-json-file", plan, "--incremental", "--bootstrap-server", sb.bootstrap]
    code, out, err = kadmin(capsys, *args, "--dry-run", "--output", "json")
    assert code == 0, err
    previewed = [[s["replicas"] for s in batch] for batch in json.loads(out)["batches"]]
    assert previewed == [[[0, 3, 4, 2]], [[0, 3, 4]]]
    monkeypatch.setattr(incremental._Run, "_save", _interrupt_after_first_batch(incremental._Run._save))
    code, out, err = kadmin(capsys, *args, "--state-file", str(tmp_path / "state.json"),
                            "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 130, err
    saved = state_file.load(tmp_path / "state.json")
    assert [[list(s.after)] for p in saved.partitions.values() for s in p.steps] == previewed
    assert sb.snapshot().partition("foo", 0).replicas[:3] == (0, 3, 4)  # the step sent: both added at once


def test_a_broker_stopping_while_the_run_waits_for_its_directories_is_named(sandbox_factory, tmp_path, capsys,  # noqa: F811
                                                                           records, monkeypatch):
    """After the last step the run waits for the log-dir moves, reading no broker list while
    every broker answers; broker 1 stops meanwhile: the others' replicas are placed, then the
    run stops naming it (exit 1), the same command to run again once it is back."""
    from kadmin.execute import incremental

    sb = sandbox_factory(brokers=3, log_dirs=2, speed=40.0)
    sb.create_topic("foo", assignment={0: [0, 1, 2]}, size_bytes=20 * MB)
    snap = sb.snapshot()
    other = [next(d for d in sb.log_dir_paths(b) if d != snap.replica_dir("foo", 0, b)) for b in range(3)]
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [0, 1, 2], "log_dirs": other}])
    looks = []
    looked = incremental._Run._dirs_looked

    def stop_broker_1(self, left):
        looks.append(list(sb.requests))
        if len(looks) == 3:
            sb.faults.broker_stop(1)
        looked(self, left)

    monkeypatch.setattr(incremental._Run, "_dirs_looked", stop_broker_1)
    sb.clear_requests()
    code, out, err = kadmin(
        capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental", "--bootstrap-server",
        sb.bootstrap, "--replica-alter-log-dirs-throttle", "100KB/s", "--state-file", str(tmp_path / "state.json"),
        "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 1, err
    assert "1 replica on broker 1 (down, or not answering) not placed" in err
    snap = sb.snapshot()
    assert [snap.replica_dir("foo", 0, b) for b in (0, 2)] == [other[0], other[2]]
    waited = looks[2][len(looks[0]):]  # the requests of the second and third looks: every broker answered
    assert [name for _, name, _ in waited if name != "ApiVersions"].count("DescribeLogDirs") == 6
    assert "Metadata" not in [name for _, name, _ in waited]


def test_log_dir_moves_sent_again_after_the_last_step_run_at_the_runs_log_dir_rate(
        sandbox_factory, tmp_path, capsys, records, monkeypatch):  # noqa: F811
    """The brokers forgot the directories they were told before the first step (a restart), and
    the log-dir rate was removed meanwhile (``reassign verify`` removes it while no move between
    directories runs): the moves sent again after the last step run at the run's rate, set again
    and said, and removed with the rest at the end."""
    from kadmin.execute import incremental_log_dirs
    from kadmin.model import LOG_DIR_RATE, AlterOp, ConfigChange, ConfigResource, ConfigResourceType
    from tests.cli.test_throttle_down_brokers import admin

    sb = sandbox_factory(brokers=5, log_dirs=2, speed=40.0)
    sb.create_topic("foo", assignment={0: [0, 1, 2]}, size_bytes=20 * MB)
    dirs = sorted(sb.snapshot().brokers[0].dirs)
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 4, 2], "log_dirs": dirs[1:] * 2 + ["any"]}])
    sent, rates_when_sent = [], []
    real = incremental_log_dirs.send_targets

    def forgetful(backend, targets, held=None):
        sent.append(dict(targets))
        if len(sent) == 1:  # told, then forgotten; and the rate removed, as verify removes it
            with admin(sb) as other:
                other.incremental_alter_configs([
                    ConfigChange(ConfigResource(ConfigResourceType.BROKER, str(b)), LOG_DIR_RATE, AlterOp.DELETE)
                    for b in (3, 4)])
            return set(targets)
        configs = sb.snapshot().broker_configs
        rates_when_sent.append({r.broker: configs.get(str(r.broker), {}).get(LOG_DIR_RATE) for r in targets})
        return real(backend, targets, held)

    monkeypatch.setattr(incremental_log_dirs, "send_targets", forgetful)
    code, out, err = kadmin(
        capsys, "reassign", "execute", "--reassignment-json-file", plan, "--bootstrap-server", sb.bootstrap,
        "--incremental", "--replica-alter-log-dirs-throttle", "30MB/s", "--state-file", str(tmp_path / "state.json"),
        "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 0, err
    assert len(sent) >= 2 and set(sent[1]) == set(sent[0])  # both new replicas sent again after the last step
    assert rates_when_sent[0] == {3: "30000000", 4: "30000000"}
    assert "log-dir moves sent again need a throttle removed meanwhile: " in err
    snap = sb.snapshot()
    assert (snap.replica_dir("foo", 0, 3), snap.replica_dir("foo", 0, 4)) == (dirs[1], dirs[1])
    assert not any(c.get(LOG_DIR_RATE) for c in snap.broker_configs.values())
    assert records.load_all() == {}


def test_the_dry_run_orders_its_batches_by_bytes_left_as_the_run_does(sandbox_factory, tmp_path, capsys):  # noqa: F811
    """With --max-leader-movements 1 the run sends the big partitions' steps first (it orders by
    the bytes each partition has left); the dry run showed the small clicks-0 first (it counted
    steps), so its batches were not the run's."""
    sb = sandbox_factory(brokers=4, log_dirs=1, manual_clock=True)
    sb.create_topic("payments", assignment={0: [3, 0, 1], 1: [0, 2, 3]}, size_bytes=800 * 10**6)
    sb.create_topic("clicks", assignment={0: [0, 3]}, size_bytes=20 * 10**6)
    plan = write_plan(tmp_path, [{"topic": "payments", "partition": 0, "replicas": [2, 0, 1]},
                                 {"topic": "payments", "partition": 1, "replicas": [1, 2, 3]},
                                 {"topic": "clicks", "partition": 0, "replicas": [1, 2]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental",
                            "--dry-run", "--max-leader-movements", "1", "-o", "json", "--bootstrap-server",
                            sb.bootstrap, "--state-file", str(tmp_path / "state.json"))
    assert code == 0, err
    first = json.loads(out)["batches"][0]
    assert {s["topic"] for s in first} == {"payments"}, first
