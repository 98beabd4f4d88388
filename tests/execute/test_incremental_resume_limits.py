"""A resumed incremental run keeps the --max-* limits its state file holds unless given anew."""

from __future__ import annotations

import json

import pytest

from kadmin.execute import state_file
from kadmin.execute.incremental_resume import limits_of_run
from kadmin.plan.batches import Limits
from tests.execute.test_incremental_cli import (  # noqa: F401  (fixtures)
    PLAN,
    _interrupt_after_first_batch,
    kadmin,
    records,
    sb,
    write_plan,
)
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)


def _saved(limits: Limits):
    return state_file.IncrementalState("digest", limits, {}, None)


def test_a_limit_not_given_on_resume_keeps_the_saved_one_and_a_given_one_replaces_it():
    saved = _saved(Limits(1, 1, 1, 5))
    given = Limits(2, 3, None, 5)  # --max-leader-movements not given: its default None is not a choice
    out = limits_of_run(saved, given, {"--max-parallel-partitions", "--max-parallel-replicas"})
    assert out.limits == Limits(1, 3, 1, 5)  # replicas: the steps were planned with 1
    assert out.replaced == (("--max-parallel-partitions", 1, 3),)
    assert set(out.kept) == {"--max-leader-movements", "--max-moves-per-broker"}


def test_a_fresh_run_takes_the_limits_as_given():
    assert limits_of_run(None, Limits(1, None, None, 5), set()).limits == Limits(1, None, None, 5)


@pytest.mark.timeout(120)
def test_resuming_without_the_limit_flags_keeps_the_limits_the_run_began_with(
    sb,  # noqa: F811
    tmp_path,
    capsys,
    records,  # noqa: F811
    monkeypatch,
):
    from kadmin.execute import incremental

    plan = write_plan(tmp_path, PLAN)
    state = tmp_path / "state.json"
    args = [
        "reassign",
        "execute",
        "--reassignment-json-file",
        plan,
        "--incremental",
        "--bootstrap-server",
        sb.bootstrap,
        "--state-file",
        str(state),
        "--rollback-file",
        str(tmp_path / "rb.json"),
    ]
    save = incremental._Run._save
    monkeypatch.setattr(incremental._Run, "_save", _interrupt_after_first_batch(save))
    code, _out, err = kadmin(
        capsys, *args, "--max-parallel-partitions", "1", "--max-leader-movements", "1", "--max-moves-per-broker", "2"
    )
    assert code == 130, err
    monkeypatch.setattr(incremental._Run, "_save", save)
    code, _out, err = kadmin(capsys, *args, "--max-parallel-partitions", "2")
    assert code == 0, err
    assert state_file.load(state).limits == Limits(1, 2, 1, 2)
    assert (
        "resumed under the limits this run began with (its state file keeps them), unless given now: "
        "--max-parallel-replicas 1, --max-parallel-partitions 2, --max-leader-movements 1, "
        "--max-moves-per-broker 2 (--max-parallel-partitions 2 replaces 1)"
    ) in err


def test_a_state_file_held_by_a_run_of_another_plan_is_said_so_and_a_dry_run_says_would_resume(
    sb,  # noqa: F811
    tmp_path,
    capsys,
    records,  # noqa: F811
    monkeypatch,
):
    from kadmin.execute import incremental

    plan = write_plan(tmp_path, PLAN)
    state = tmp_path / "state.json"
    args = ["reassign", "execute", "--incremental", "--bootstrap-server", sb.bootstrap, "--state-file", str(state)]
    save = incremental._Run._save
    monkeypatch.setattr(incremental._Run, "_save", _interrupt_after_first_batch(save))
    code, _out, err = kadmin(
        capsys,
        *args,
        "--reassignment-json-file",
        plan,
        "--throttle",
        "20MB/s",
        "--max-parallel-partitions",
        "1",
        "--rollback-file",
        str(tmp_path / "rb.json"),
    )
    assert code == 130, err
    monkeypatch.setattr(incremental._Run, "_save", save)
    code, _out, err = kadmin(capsys, *args, "--reassignment-json-file", plan, "--dry-run")
    assert code == 0, err
    assert "note: would resume with the throttles this run began with" in err and "note: resumed" not in err
    assert "would resume under the limits this run began with" in err
    other = tmp_path / "other.json"
    other.write_text(
        json.dumps({"version": 1, "partitions": [{"topic": "foo", "partition": 0, "replicas": [0, 1, 2]}]})
    )
    with state_file.locked(state):  # the first plan's run holds it
        code, _out, err = kadmin(capsys, *args, "--reassignment-json-file", str(other))
    assert code == 2
    assert f"a run of another plan ({plan}) holds the state file {state} (pid " in err, err
    assert "another run of this plan" not in err


def test_ctrl_c_with_output_json_prints_the_document_with_aborted_interrupted(
    sb,  # noqa: F811
    tmp_path,
    capsys,
    records,  # noqa: F811
    monkeypatch,
):
    import jsonschema

    from kadmin.execute import incremental
    from kadmin.schemas import load

    plan = write_plan(tmp_path, PLAN)
    state = tmp_path / "state.json"
    monkeypatch.setattr(incremental._Run, "_save", _interrupt_after_first_batch(incremental._Run._save))
    code, out, err = kadmin(
        capsys,
        "reassign",
        "execute",
        "--reassignment-json-file",
        plan,
        "--incremental",
        "--bootstrap-server",
        sb.bootstrap,
        "--state-file",
        str(state),
        "--throttle",
        "20MB/s",
        "--rollback-file",
        str(tmp_path / "rb.json"),
        "-o",
        "json",
    )
    assert code == 130, err
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-execute-incremental-result"))
    assert doc["aborted"] == "interrupted" and doc["batches"] == 1 and doc["resumed"] is False
    assert doc["state_file"] == str(state) and doc["rollback_file"] == str((tmp_path / "rb.json").absolute())
