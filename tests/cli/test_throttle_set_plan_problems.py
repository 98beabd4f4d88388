"""throttle set --from-plan refuses a plan as `reassign execute` does: the file's own problems and
the cluster's at once (exit 2, the same --output json document), the file's own alone when the
cluster cannot be reached."""

from __future__ import annotations

import json

from tests.support.cli import kadmin, write_plan
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

BAD = [
    {"topic": "nope", "partition": 0, "replicas": [1, 2]},  # the cluster's problem: unknown topic
    {"topic": "orders", "partition": 0, "replicas": [1, 1, 2]},  # the file's own: broker 1 twice
]


def test_throttle_set_reports_the_files_and_the_clusters_problems_at_once(sandbox_factory, tmp_path, capsys):  # noqa: F811
    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1]}, size_bytes=1000)
    plan = write_plan(tmp_path, BAD)
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--dry-run",
                            "-o", "json", "-b", sb.bootstrap)
    assert code == 2, err
    expected = json.loads(out)
    assert [p["message"] for p in expected["problems"]] == ["unknown topic 'nope'", "broker 1 appears more than once"]
    for dry in (("--dry-run",), ()):
        code, out, err = kadmin(capsys, "throttle", "set", "--rate", "1MB/s", "--from-plan", plan, *dry,
                                "-o", "json", "-b", sb.bootstrap)
        assert code == 2, err
        assert json.loads(out) == expected
        code, out, err = kadmin(capsys, "throttle", "set", "--rate", "1MB/s", "--from-plan", plan, *dry,
                                "-b", sb.bootstrap)
        assert code == 2 and "the reassignment plan has 2 problems; nothing was changed" in err, err
    assert not sb.snapshot().broker_configs.get("1", {})


def test_throttle_set_says_the_files_own_problems_when_the_cluster_cannot_be_reached(tmp_path, capsys):
    plan = write_plan(tmp_path, BAD)
    code, _out, err = kadmin(capsys, "throttle", "set", "--rate", "1MB/s", "--from-plan", plan,
                            "-b", "127.0.0.1:1", "--timeout", "1s")
    assert code == 2, err
    assert "the reassignment plan has 1 problem of its own (the cluster could not be reached" in err
    assert "broker 1 appears more than once" in err


def test_throttle_set_throttles_a_running_plan_while_a_directory_is_offline(sandbox_factory, tmp_path, capsys):  # noqa: F811
    """A log-dir move whose directory goes offline is paused and resumes at the log-dir rate set by
    then: the offline directory is the move's problem, not its throttles', so throttle set
    --from-plan sets that rate (verify, progress and cancel accept the file too). A directory the
    broker does not have is still refused."""
    from kadmin.model import LOG_DIR_RATE

    sb = sandbox_factory(brokers=3, log_dirs=2, manual_clock=True)
    sb.create_topic("payments", assignment={0: [2, 0], 1: [2, 1]}, size_bytes=50 * 1_000_000)
    snap = sb.snapshot()
    current = snap.replica_dir("payments", 0, 2)
    other = next(d for d in sb.log_dir_paths(2) if d != current)
    parts = [{"topic": "payments", "partition": p, "replicas": r, "log_dirs": [other, "any"]}
             for p, r in ((0, [2, 0]), (1, [2, 1]))]
    plan = write_plan(tmp_path, parts)
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan,
                            "--replica-alter-log-dirs-throttle", "1MB/s", "-b", sb.bootstrap,
                            "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 0, err
    sb.faults.dir_offline(2, current)

    code, out, err = kadmin(capsys, "throttle", "set", "--from-plan", plan, "--log-dir-rate", "10MB/s",
                            "-b", sb.bootstrap)
    assert code == 0, (out, err)
    assert sb.snapshot().broker_configs["2"][LOG_DIR_RATE] == "10000000"

    typo = write_plan(tmp_path, [{**parts[0], "log_dirs": ["/no/such/dir", "any"]}], name="typo.json")
    code, _out, err = kadmin(capsys, "throttle", "set", "--from-plan", typo, "--log-dir-rate", "10MB/s",
                            "-b", sb.bootstrap)
    assert code == 2 and "/no/such/dir is not a log directory of broker 2" in err, err
