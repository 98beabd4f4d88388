"""`reassign execute --incremental --elect-preferred` whose preferred election, in batches of
--max-leader-movements, fails at a later batch: what the batches before elected is printed (as
`leaders elect` prints it), the JSON's preferred_election says where it stopped, then the error
naming the batch; before, the end of the run and the earlier batches' results were lost."""

import json

import jsonschema

from kadmin.backends import admin_elect
from kadmin.errors import ClusterError
from kadmin.schemas import load
from tests.cli.test_reassign_elect_preferred import leaders, plan_file, sb  # noqa: F401  (fixture)
from tests.support.cli import kadmin
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

NO_ANSWER = "ElectLeaders: no answer from the controller within 2s"


def _second_batch_fails(monkeypatch):
    """The run's second ElectLeaders meets a controller that does not answer."""
    real = admin_elect.elect_leaders
    calls = []

    def elect(backend, *args, **kwargs):
        calls.append(args)
        if len(calls) == 2:
            raise ClusterError(NO_ANSWER, hint="check the controller")
        return real(backend, *args, **kwargs)

    monkeypatch.setattr(admin_elect, "elect_leaders", elect)


def _run(sb, tmp_path, capsys, *extra):  # noqa: F811
    return kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan_file(tmp_path),
                  "--incremental", "--max-leader-movements", "1", "--elect-preferred",
                  "--state-file", str(tmp_path / "state.json"), "--rollback-file", str(tmp_path / "rb.json"),
                  *extra, "--bootstrap-server", sb.bootstrap)


def test_a_failed_later_election_batch_still_reports_what_earlier_batches_elected(sb, tmp_path, capsys, monkeypatch):  # noqa: F811
    _second_batch_fails(monkeypatch)
    code, out, err = _run(sb, tmp_path, capsys)
    assert code == 1, err
    assert "Finished: " in out
    assert "Preferred leader election:" in out
    assert "Successfully completed leader election (PREFERRED) for partitions t-0" in out
    assert "led by its preferred replica" not in out
    error = err.strip().splitlines()[-1]
    assert error.startswith("kadmin: error: the plan is complete, but its preferred leader election stopped at "
                            f"batch 2 of 3: {NO_ANSWER}; batch 1 elected 1 partition"), err
    assert leaders(sb)[0] == 1


def test_the_json_says_where_the_election_stopped(sb, tmp_path, capsys, monkeypatch):  # noqa: F811
    _second_batch_fails(monkeypatch)
    code, out, err = _run(sb, tmp_path, capsys, "-o", "json")
    assert code == 1, err
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-execute-incremental-result"))
    election = doc["preferred_election"]
    assert election["batches"] == 1 and election["elected"] == [{"topic": "t", "partition": 0}]
    assert election["stopped"] == {"batch": 2, "of": 3, "error": NO_ANSWER,
                                   "unanswered": [{"topic": "t", "partition": 1}, {"topic": "t", "partition": 2}]}
    assert NO_ANSWER in err
