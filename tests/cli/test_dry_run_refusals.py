"""`reassign execute --dry-run` refuses whatever the run itself would refuse before its first
change (help: "--dry-run prints the same changes and makes none"), plain and --incremental,
with the same message and exit code; it used to say yes (exit 0, "write rollback file ...")
where the run then said no. Against the sandbox, over the wire."""


import pytest

from kadmin.commands import options
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)
from tests.support.cli import kadmin, write_plan

MB = 1_000_000


@pytest.fixture
def sb(sandbox_factory):  # noqa: F811
    sb = sandbox_factory(brokers=4, log_dirs=2, manual_clock=True)
    sb.create_topic("foo", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=10 * MB)
    sb.clear_requests()
    return sb


def both(capsys, *args):
    """The dry run's outcome, then the run's, each (exit code, stderr)."""
    dry = kadmin(capsys, *args, "--dry-run")
    real = kadmin(capsys, *args)
    return (dry[0], dry[2]), (real[0], real[2])


@pytest.mark.parametrize("incremental", [False, True], ids=["plain", "incremental"])
def test_an_existing_rollback_file_is_refused_by_the_dry_run_too(sb, tmp_path, capsys, incremental):
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    exist = tmp_path / "exist.json"
    exist.write_text("precious")
    args = ["reassign", "execute", "--reassignment-json-file", plan, "--rollback-file", str(exist),
            "-b", sb.bootstrap] + (["--incremental"] if incremental else [])
    dry, real = both(capsys, *args)
    assert real == (2, f"kadmin: error: rollback file {exist} already exists; nothing was changed "
                       "(choose another --rollback-file)\n")
    assert dry == real
    code, out, err = kadmin(capsys, *args, "--dry-run", "-o", "json")
    assert (code, out, err) == (2, "", real[1])
    assert exist.read_text() == "precious" and sb.mutating_requests() == []


def test_a_rollback_file_in_no_directory_is_refused_by_the_dry_run_too(sb, tmp_path, capsys):
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    nowhere = tmp_path / "no-such-dir" / "rb.json"
    dry, real = both(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--rollback-file", str(nowhere),
                     "-b", sb.bootstrap)
    assert real[0] == 2 and "cannot write rollback file" in real[1] and "nothing was changed" in real[1]
    assert dry == real
    assert sb.mutating_requests() == []


def test_a_plan_already_in_place_is_no_refusal_even_with_an_existing_rollback_file(sb, tmp_path, capsys):
    """The run writes no rollback file when there is nothing to change, so neither refuses."""
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [0, 1]}])
    exist = tmp_path / "exist.json"
    exist.write_text("precious")
    args = ["reassign", "execute", "--reassignment-json-file", plan, "--rollback-file", str(exist), "-b", sb.bootstrap]
    assert kadmin(capsys, *args, "--dry-run")[0] == 0
    assert kadmin(capsys, *args)[0] == 0


@pytest.mark.parametrize("incremental", [False, True], ids=["plain", "incremental"])
def test_throttles_with_no_place_to_record_them_are_refused_by_the_dry_run_too(
    sb, tmp_path, capsys, monkeypatch, incremental
):
    monkeypatch.setattr(options, "open_records", lambda backend: None)
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    dry, real = both(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--throttle", "10MB/s",
                     "-b", sb.bootstrap, *(["--incremental"] if incremental else []))
    assert real[0] == 1 and "no place to record the throttles" in real[1]
    assert dry == real
    assert sb.mutating_requests() == [] and list(tmp_path.glob("*.rollback-*")) == []


def test_incremental_state_file_of_another_plan_is_refused_by_the_dry_run_too(sb, tmp_path, capsys):
    from kadmin.execute import state_file
    from kadmin.execute.incremental_resume import plan_fingerprint
    from kadmin.model import Assignment, ReassignmentPlan
    from kadmin.plan.batches import Limits

    state = tmp_path / "state.json"
    other = ReassignmentPlan((Assignment("foo", 1, (3, 2)),))
    state_file.save(state, state_file.IncrementalState(plan_fingerprint(other), Limits(), {}))
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}])
    dry, real = both(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental",
                     "--state-file", str(state), "-b", sb.bootstrap)
    assert real[0] == 2 and f"the state file {state} belongs to another plan" in real[1]
    assert dry == real
    assert sb.mutating_requests() == [] and list(tmp_path.glob("plan.rollback-*")) == []


@pytest.mark.parametrize("additional", [["--additional"], []], ids=["additional", "alone"])
def test_incremental_partition_already_moving_is_refused_by_the_dry_run_too(sb, tmp_path, capsys, additional):
    """Without --additional too: the partition moving is what --incremental refuses, said first
    (it used to say "another reassignment is running ... pass --additional", then this)."""
    first = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 1]}], name="first.json")
    assert kadmin(capsys, "reassign", "execute", "--reassignment-json-file", first, "-b", sb.bootstrap)[0] == 0
    sb.clear_requests()  # foo-0 moves (the clock stands still)
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [2, 1]}])
    dry, real = both(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental", *additional,
                     "-b", sb.bootstrap)
    assert real[0] == 2 and "1 partition of the plan is being reassigned already: foo-0" in real[1]
    assert dry == real
    assert sb.mutating_requests() == [] and list(tmp_path.glob("plan.rollback-*")) == []
