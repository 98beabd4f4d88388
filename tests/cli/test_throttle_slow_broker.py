"""A broker slower than --timeout (AdminClient protocol): ``throttle show`` prints what the others
answered, names the silent broker (its rates unknown) and exits 1, as ``log-dirs describe`` does;
the commands that change throttles refuse instead of taking its rates for unset."""

from __future__ import annotations

import json

import jsonschema
import pytest

from kadmin.schemas import load
from tests.support.cli import kadmin
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

RATE = "10000000"


def rates(doc) -> dict[str, str]:
    return {t["resource"]: t["value"] for t in doc["throttles"] if t["config"] == "leader.replication.throttled.rate"}


@pytest.mark.parametrize("kafka_version", ["3.3", "4.3"], indirect=True)
def test_a_slow_broker_is_named_and_the_others_are_read(sandbox_factory, capsys):  # noqa: F811
    sb = sandbox_factory(brokers=4)
    code, out, err = kadmin(capsys, "throttle", "set", "--rate", "10MB/s", "-b", sb.bootstrap)
    assert code == 0, err
    sb.faults.slow(1, 5000)
    try:
        for _ in range(3):  # which broker each request meets varied from run to run
            code, out, err = kadmin(capsys, "throttle", "show", "-b", sb.bootstrap, "--timeout", "2s", "-o", "json")
            assert code == 1, err
            doc = json.loads(out)
            assert rates(doc) == {"0": RATE, "2": RATE, "3": RATE}
            assert doc["unreadable_brokers"] == [1] and doc["silent_brokers"] == {"1": "REQUEST_TIMED_OUT"}
            jsonschema.validate(doc, load("throttle-show-result"))
            assert "broker 1 (REQUEST_TIMED_OUT) did not answer DescribeConfigs" in err, err
            assert "_TIMED_OUT (" not in err and "<default>" not in err, err
        code, out, err = kadmin(capsys, "throttle", "show", "-b", sb.bootstrap, "--timeout", "2s")
        assert code == 1 and "broker 2" in out and "broker 1 (REQUEST_TIMED_OUT)" in err, (out, err)

        # A change would need broker 1's rates: refused, nothing changed.
        code, out, err = kadmin(capsys, "throttle", "set", "--rate", "20MB/s", "-b", sb.bootstrap, "--timeout", "2s")
        assert code == 1 and "broker 1 (REQUEST_TIMED_OUT) did not answer DescribeConfigs" in err, err
        code, out, err = kadmin(capsys, "throttle", "clear", "--all", "--yes", "-b", sb.bootstrap, "--timeout", "2s")
        assert code == 1 and "broker 1 (REQUEST_TIMED_OUT)" in err and "nothing was changed" in err, err
    finally:
        sb.faults.slow(1, 0)
    code, out, err = kadmin(capsys, "throttle", "show", "-b", sb.bootstrap, "-o", "json")
    assert code == 0, err
    assert rates(json.loads(out)) == {"0": RATE, "1": RATE, "2": RATE, "3": RATE}


@pytest.mark.zookeeper
def test_over_zookeeper_a_broker_that_does_not_answer_describe_log_dirs_is_named(sandbox_factory, zk_connect, capsys):  # noqa: F811
    """Over --zookeeper the rates come from ZooKeeper and the log-dir moves from the brokers: a
    broker that does not answer DescribeLogDirs is named with what it means (its log-dir rate
    counts as needed), and the report exits 1 as it does over -b for that broker (there it does
    not answer DescribeConfigs either). It said only 'log-dir moves could not be seen' and exited 0."""
    sb = sandbox_factory(brokers=3, log_dirs=1, zookeeper=zk_connect)
    code, _, err = kadmin(
        capsys, "throttle", "set", "--log-dir-rate", "5MB/s", "--brokers", "1", "--zookeeper", zk_connect
    )
    assert code == 0, err
    sb.faults.slow(1, 5000)
    try:
        for output in ("table", "json"):
            code, out, err = kadmin(
                capsys, "throttle", "show", "--zookeeper", zk_connect, "--timeout", "2s", "-o", output
            )
            assert code == 1, err
            assert (
                "broker 1 (REQUEST_TIMED_OUT) did not answer DescribeLogDirs: its log-dir moves could not be seen, "
                "so a log-dir rate set there counts as needed" in err
            ), err
            assert "could not be seen on every broker" not in err, err
            if output == "json":  # the rates are all there (ZooKeeper holds them)
                doc = json.loads(out)
                jsonschema.validate(doc, load("throttle-show-result"))
                assert doc["log_dir_moves_known"] is False and doc["unreadable_brokers"] == []
                assert doc["log_dirs_unseen"] == {"1": "REQUEST_TIMED_OUT"}
                assert [(t["resource"], t["needed"]) for t in doc["throttles"]] == [("1", True)]
    finally:
        sb.faults.slow(1, 0)
    code, out, err = kadmin(capsys, "throttle", "show", "--zookeeper", zk_connect, "-o", "json")
    assert code == 0, err
    assert json.loads(out)["log_dir_moves_known"] is True
    assert "log_dirs_unseen" not in json.loads(out)
