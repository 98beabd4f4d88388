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
    code, out, err = kadmin(capsys, "throttle", "set", "--rate", "1MB/s", "--from-plan", plan,
                            "-b", "127.0.0.1:1", "--timeout", "1s")
    assert code == 2, err
    assert "the reassignment plan has 1 problem of its own (the cluster could not be reached" in err
    assert "broker 1 appears more than once" in err
