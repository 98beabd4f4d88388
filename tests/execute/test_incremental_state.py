"""The incremental state file: round trip, schema, atomic writes, default location."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from kadmin.errors import InputError
from kadmin.execute import state_file
from kadmin.execute.state_file import IncrementalState, PartitionProgress
from kadmin.model import TopicPartition
from kadmin.plan.batches import Limits
from kadmin.plan.steps import partition_steps
from kadmin.schemas import load as load_schema

TP = TopicPartition("foo", 3)


def example_state() -> IncrementalState:
    steps = partition_steps(TP, (0, 1, 2, 3, 4), (5, 6, 7, 8, 9), 2, leader=1)
    return IncrementalState(
        plan_digest="ab" * 32,
        limits=Limits(2, 10, None, 3),
        partitions={TP: PartitionProgress(TP, (0, 1, 2, 3, 4), 1, steps, completed=1, submitted=2)},
        plan_file="plan.json",
        batches=2,
        throttles_set=True,
        throttle_rate=50_000_000,
        log_dir_rate=20_000_000,
    )


def test_round_trip_and_schema(tmp_path):
    path = tmp_path / "deep" / "state.json"
    state = example_state()
    state_file.save(path, state)
    data = json.loads(path.read_text())
    jsonschema.Draft202012Validator(load_schema("incremental-state")).validate(data)
    assert data["partitions"][0]["steps"] == [[5, 0, 1, 2, 3, 4], [5, 6, 2, 3, 4], [5, 6, 7, 8, 4], [5, 6, 7, 8, 9]]
    back = state_file.load(path)
    assert back == state
    assert back.partitions[TP].steps[1].leader_before == 1  # rebuilt with the recorded leader
    assert (back.steps_total, back.steps_completed) == (4, 1)
    assert (data["throttle_rate"], data["log_dir_rate"]) == (50_000_000, 20_000_000)  # a resumed run sets them again


def test_save_replaces_atomically_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "state.json"
    state_file.save(path, example_state())
    state_file.save(path, example_state().with_progress(TP, completed=2))
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]
    assert state_file.load(path).partitions[TP].completed == 2


def test_missing_file_is_none_and_bad_files_are_input_errors(tmp_path):
    assert state_file.load(tmp_path / "nope.json") is None
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="is not JSON"):
        state_file.load(bad)
    data = example_state().to_json()
    data["partitions"][0]["steps"][0] = [5, 5]
    bad.write_text(json.dumps(data))
    with pytest.raises(InputError, match="not a kadmin incremental state") as e:
        state_file.load(bad)
    assert any("partitions/0/steps/0" in p for p in e.value.problems)


def test_default_path_under_xdg_state_home_keyed_by_plan_path(tmp_path):
    env = {"XDG_STATE_HOME": str(tmp_path), "HOME": "/home/x"}
    a = state_file.default_state_path("plans/a.json", env)
    assert a.parent == Path(tmp_path) / "kadmin" / "incremental" and a.suffix == ".json"
    assert a == state_file.default_state_path(Path("plans/a.json").resolve(), env)
    assert a != state_file.default_state_path("plans/b.json", env)
    home = state_file.default_state_path("plans/a.json", {"HOME": "/home/x"})
    assert str(home).startswith("/home/x/.local/state/kadmin/incremental/")


def test_rates_of_run_a_resumed_run_takes_the_rates_its_state_keeps_unless_given():
    from kadmin.execute.step_throttles import RunRates, rates_of_run

    saved = example_state()
    assert rates_of_run(None, None, None) == RunRates(None, None)
    assert rates_of_run(saved, None, None) == RunRates(
        50_000_000, 20_000_000, (("--throttle", 50_000_000), ("--replica-alter-log-dirs-throttle", 20_000_000)))
    assert rates_of_run(saved, 10, None) == RunRates(10, 20_000_000, (("--replica-alter-log-dirs-throttle", 20_000_000),))
    old = state_file.IncrementalState.from_json({k: v for k, v in saved.to_json().items() if not k.endswith("_rate")})
    assert rates_of_run(old, None, None) == RunRates(None, None)  # a state from before rates were kept
