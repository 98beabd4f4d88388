"""A fleet ``throttle show`` over a cluster with one broker slower than its timeout (AdminClient
protocol): the report holds the other brokers' throttles and names the slow one (an
``unreachable`` row, a warning, exit 1), as it names a down broker; it failed the whole
cluster ("cluster east could not be read", no throttle of it) while ``throttle show`` of that
cluster read the others."""

from __future__ import annotations

import json

import pytest

from kadmin.fleet.rows import document_rows, silent_error
from kadmin.model import DOWN_ERROR
from tests.fleet.conftest import MASTER
from tests.support.cli import kadmin

RATE = "10000000"
SILENT = silent_error("REQUEST_TIMED_OUT")


def run(capsys, fleet, *engine):
    code, out, err = kadmin(capsys, "throttle", "show", "--fleet", str(fleet), "-o", "json", *engine)
    reports = {r["name"]: r["rows"] for r in json.loads(out)["reports"]}
    return code, reports, err


def check(code, reports, err):
    assert code == 1, err
    rates = {
        r["entity"]: r["value"] for r in reports["throttle_state"] if r["config"] == "leader.replication.throttled.rate"
    }
    assert rates == {"0": RATE, "2": RATE, "3": RATE}
    assert reports["unreachable"] == [{"cluster": "east", "broker": 1, "source": "live", "error": SILENT}]
    assert err.splitlines() == [
        f"kadmin: warning: cluster east broker 1 could not be read (live): {SILENT}",
        "kadmin: error: the report is incomplete: 1 broker could not be read (named above, and in the unreachable report)",
    ]


def slow_cluster(sandbox_factory, tmp_path, capsys):
    sb = sandbox_factory(brokers=4)
    code, _, err = kadmin(capsys, "throttle", "set", "--rate", "10MB/s", "-b", sb.bootstrap)
    assert code == 0, err
    fleet = tmp_path / "fleet.toml"
    fleet.write_text(f'[[clusters]]\nname = "east"\nbootstrap_server = "{sb.bootstrap}"\ntimeout = "2s"\n')
    return sb, fleet


def test_a_slow_broker_is_named_and_the_others_are_read(sandbox_factory, tmp_path, capsys):
    sb, fleet = slow_cluster(sandbox_factory, tmp_path, capsys)
    sb.faults.slow(1, 5000)
    try:
        check(*run(capsys, fleet))
    finally:
        sb.faults.slow(1, 0)
    code, reports, err = run(capsys, fleet)
    assert code == 0 and reports["unreachable"] == [], err


def test_a_saved_result_naming_a_silent_broker_is_reported_alike():
    doc = {"throttles": [], "unreadable_brokers": [1, 2], "silent_brokers": {"1": "REQUEST_TIMED_OUT"}}
    assert document_rows("throttle", "east", "east.json", doc)["errors"] == [
        ("east", 1, "east.json", SILENT),
        ("east", 2, "east.json", DOWN_ERROR),
    ]


@pytest.mark.spark
def test_spark_names_the_slow_broker_alike(spark, sandbox_factory, tmp_path, capsys):
    sb, fleet = slow_cluster(sandbox_factory, tmp_path, capsys)
    sb.faults.slow(1, 5000)
    try:
        check(*run(capsys, fleet, "--spark", "--spark-master", MASTER))
    finally:
        sb.faults.slow(1, 0)
