"""Fleet ``reassign list`` reports with a stuck /admin/reassign_partitions (ZooKeeper mode).

Its entries are requests the controller never took: no broker moves them, the topic znode names
no adding or removing replica. ``reassign list --zookeeper`` lists them apart as waiting, with
the partition's replicas now and the target, and warns; a fleet report read them as running
reassignments with a replica set, adding and removing of its own making ("not started"), or
(``--from`` a saved result) left them out without a word. Now they are ``waiting`` rows and a
``reassignment_waiting`` report, counted apart in the summary, and warned of per cluster, live
and ``--from``, with and without ``--spark``.
"""

from __future__ import annotations

import json

import jsonschema
import pytest

from kadmin.fleet.run import FleetRequest, build_reports
from kadmin.schemas import load
from tests.fleet import fixtures as fx
from tests.fleet.conftest import MASTER
from tests.fleet.fakes import FakeOpener
from tests.support.cli import kadmin
from tests.support.stuck_znode import stuck  # noqa: F401  (fixture)

# clicks-2 moves [1,0] -> [1,2] (running); clicks-4 [0,1] -> [1,2] is only requested in the stuck
# node, and the ZooKeeper backend lists it as it lists every entry of the node: replicas [1,2,0],
# adding 2, removing 0, which are the request's, not the cluster's.
LISTED = [
    {"topic": "clicks", "partition": 2, "replicas": [1, 2, 0], "adding": [2], "removing": [0]},
    {"topic": "clicks", "partition": 4, "replicas": [1, 2, 0], "adding": [2], "removing": [0]},
]
STUCK = {("clicks", 4): [0, 1]}
LOG_DIRS = fx.log_dirs_doc(
    fx.broker(0, [fx.log_dir("/d", [fx.replica("clicks", 2, 100), fx.replica("clicks", 4, 100)], 10**6, 10**5)]),
    fx.broker(1, [fx.log_dir("/d", [fx.replica("clicks", 2, 100), fx.replica("clicks", 4, 100)], 10**6, 10**5)]),
    fx.broker(2, [fx.log_dir("/d", [fx.replica("clicks", 2, 40)], 10**6, 10**5)]),
)
# What `reassign list --zookeeper -o json` saves of the same cluster.
SAVED = {
    "version": 1,
    "reassignments": [LISTED[0]],
    "waiting": [{"topic": "clicks", "partition": 4, "replicas": [0, 1], "target": [1, 2]}],
}
WAITING_ROW = {"cluster": "zk", "topic": "clicks", "partition": 4, "replicas": [0, 1], "target": [1, 2]}
WARNING = (
    "kadmin: warning: cluster zk: /admin/reassign_partitions looks stuck: clicks-4 (replicas 0,1, requested 1,2) "
    "is requested there, but no broker is moving it (listed as waiting, not as ongoing): the way out is to delete "
    "the node and force a controller election"
)


def inventory(tmp_path) -> str:
    path = tmp_path / "fleet.toml"
    path.write_text('[[clusters]]\nname = "zk"\nbootstrap_server = "127.0.0.1:1"\n')
    return str(path)


def saved(tmp_path) -> str:
    d = tmp_path / "zrl"
    d.mkdir()
    (d / "zk.json").write_text(json.dumps(SAVED))
    return str(d)


def records(reports) -> dict:
    return {r.name: r.records() for r in reports}


def test_live_fleet_lists_stuck_requests_as_waiting_not_as_reassignments(tmp_path):
    opener = FakeOpener({"zk": (LOG_DIRS, LISTED, STUCK)})
    reports = records(build_reports(FleetRequest("reassign", fleet=inventory(tmp_path)), opener=opener))
    assert [(r["partition"], r["replicas"], r["status"]) for r in reports["reassignment_status"]] == [
        (2, [1, 2, 0], "copying")
    ]
    assert reports["reassignment_waiting"] == [WAITING_ROW]
    assert reports["reassignment_summary"] == [
        {"cluster": "zk", "ongoing": 1, "not_progressed": 0, "adding_replicas": 1, "removing_replicas": 1, "waiting": 1}
    ]
    assert reports["unreachable"] == []


def test_a_node_that_is_not_stuck_lists_its_entries_as_reassignments(tmp_path):
    """In the controller's first seconds a new node is not called stuck: its entries run."""
    opener = FakeOpener({"zk": (LOG_DIRS, LISTED, None)})
    reports = records(build_reports(FleetRequest("reassign", fleet=inventory(tmp_path)), opener=opener))
    assert [r["partition"] for r in reports["reassignment_status"]] == [4, 2]  # not started first
    assert reports["reassignment_waiting"] == []
    assert reports["reassignment_summary"][0]["waiting"] == 0


def test_from_a_saved_list_keeps_its_waiting_requests(tmp_path):
    reports = records(build_reports(FleetRequest("reassign", from_dir=saved(tmp_path))))
    assert [r["partition"] for r in reports["reassignment_status"]] == [2]
    assert reports["reassignment_waiting"] == [WAITING_ROW]
    assert reports["reassignment_summary"][0]["ongoing"] == 1
    assert reports["reassignment_summary"][0]["waiting"] == 1


def test_a_waiting_entry_the_report_cannot_read_is_refused_whole(tmp_path):
    d = tmp_path / "zrl"
    d.mkdir()
    (d / "zk.json").write_text(json.dumps(dict(SAVED, waiting=[{"topic": "clicks", "partition": "4"}])))
    reports = records(build_reports(FleetRequest("reassign", from_dir=str(d))))
    assert reports["reassignment_waiting"] == [] and reports["reassignment_status"] == []
    assert [r["error"] for r in reports["unreachable"]] == [
        "not a reassign list result: waiting[0].partition is not a whole number from 0 to 2147483647: '4'; "
        "kadmin needs `reassign list -o json`"
    ]


def test_the_command_warns_of_each_cluster_with_waiting_requests_and_exits_0(tmp_path, capsys):
    from_dir = saved(tmp_path)
    code, out, err = kadmin(capsys, "reassign", "list", "--from", from_dir, "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    jsonschema.validate(doc, load("fleet-report"))
    assert {r["name"]: r["rows"] for r in doc["reports"]}["reassignment_waiting"] == [WAITING_ROW]
    assert err.splitlines() == [WARNING]
    code, out, err = kadmin(capsys, "reassign", "list", "--from", from_dir)
    assert code == 0, err
    assert "Requested, but no broker is carrying these out" in out and err.splitlines() == [WARNING]


@pytest.mark.spark
def test_spark_says_the_same_live_and_from(spark, tmp_path):
    opener = FakeOpener({"zk": (LOG_DIRS, LISTED, STUCK)})
    fleet, from_dir = inventory(tmp_path), saved(tmp_path)
    for request in (FleetRequest("reassign", fleet=fleet), FleetRequest("reassign", from_dir=from_dir)):
        plain = records(build_reports(request, opener=opener))
        on_spark = records(
            build_reports(FleetRequest(**{**request.__dict__, "spark": True, "spark_master": MASTER}), opener=opener)
        )
        assert on_spark == plain
        assert on_spark["reassignment_waiting"] == [WAITING_ROW]


@pytest.mark.zookeeper
@pytest.mark.parametrize("stuck", ["2.8"], indirect=True, ids=["kafka2.8"])
def test_live_fleet_and_from_on_the_zookeeper_sandbox_say_what_reassign_list_says(stuck, tmp_path, capsys):
    """foo-0 moving [0,1] -> [3,1]; foo-1 -> [3,2] only requested in the stuck node. The fleet
    lists foo-1 as ``reassign list --zookeeper`` does: waiting, its replicas now [1,2]."""
    from kadmin.backends.zk_reassign import STUCK_AFTER_SECONDS

    stuck.backend_clock.ahead = STUCK_AFTER_SECONDS + 1
    code, out, err = kadmin(capsys, "reassign", "list", *stuck.zk, "-o", "json")
    assert code == 0, err
    single = json.loads(out)
    fleet = tmp_path / "fleet.toml"
    fleet.write_text(f'[[clusters]]\nname = "zk"\nzookeeper = "{stuck.zk[1]}"\n')
    (tmp_path / "zrl").mkdir()
    (tmp_path / "zrl" / "zk.json").write_text(out)
    want = {**WAITING_ROW, "topic": "foo", "partition": 1, "replicas": [1, 2], "target": [3, 2]}
    assert single["waiting"] == [{k: want[k] for k in ("topic", "partition", "replicas", "target")}]
    for source in (["--fleet", str(fleet)], ["--from", str(tmp_path / "zrl")]):
        code, out, err = kadmin(capsys, "reassign", "list", *source, "-o", "json")
        assert code == 0, err
        reports = {r["name"]: r["rows"] for r in json.loads(out)["reports"]}
        assert [
            (r["topic"], r["partition"], r["replicas"], r["adding"], r["removing"])
            for r in reports["reassignment_status"]
        ] == [(r["topic"], r["partition"], r["replicas"], r["adding"], r["removing"]) for r in single["reassignments"]]
        assert reports["reassignment_waiting"] == [want]
        assert [(r["ongoing"], r["waiting"]) for r in reports["reassignment_summary"]] == [(1, 1)]
        assert [line for line in err.splitlines() if "looks stuck" in line] == [
            "kadmin: warning: cluster zk: /admin/reassign_partitions looks stuck: foo-1 (replicas 1,2, requested 3,2) "
            "is requested there, but no broker is moving it (listed as waiting, not as ongoing): the way out is to "
            "delete the node and force a controller election"
        ]
