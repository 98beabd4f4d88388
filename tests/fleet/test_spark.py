"""The Spark engine on local[2]: the same numbers as plain Python on the same input, live
collection with an unreachable cluster, and the files --report-dir writes.

One SparkSession for all of them (tests/fleet/conftest.py)."""

from __future__ import annotations

import pytest

from kadmin.fleet.run import FleetRequest, build_reports
from tests.fleet import fixtures as fx
from tests.fleet.conftest import MASTER
from tests.fleet.synthetic import write_fleet

pytestmark = pytest.mark.spark


def both(kind, spark, **kw):
    local = build_reports(FleetRequest(kind, **kw))
    on_spark = build_reports(FleetRequest(kind, spark=True, spark_master=MASTER, **kw))
    return local, on_spark


def assert_same(local, on_spark):
    assert [r.name for r in local] == [r.name for r in on_spark]
    for a, b in zip(local, on_spark):
        assert a.rows == b.rows, a.name


def test_same_numbers_on_a_synthetic_fleet(spark, tmp_path):
    rows = write_fleet(tmp_path, clusters=8, brokers=4, dirs=3, replicas=30)
    local, on_spark = both("log-dirs", spark, from_dir=str(tmp_path), top=5)
    assert_same(local, on_spark)
    by = {r.name: r for r in on_spark}
    assert sum(r[12] + r[13] for r in by["cluster_usage"].rows) == rows  # every replica counted once
    assert len(by["largest_partitions"].rows) == 8 * 5
    assert by["moves_in_flight"].rows and by["unavailable_dirs"].rows and by["unreachable"].rows


def test_same_numbers_on_the_hand_made_fleets(spark, tmp_path):
    assert_same(*both("log-dirs", spark, from_dir=str(fx.log_dirs_fleet(tmp_path / "l"))))
    assert_same(*both("reassign", spark, from_dir=str(fx.reassign_fleet(tmp_path / "r"))))
    assert_same(*both("throttle", spark, from_dir=str(fx.throttle_fleet(tmp_path / "t"))))


def test_same_numbers_when_two_files_hold_one_cluster(spark, tmp_path):
    """Files that name the same cluster: a move whose current replica is in the other file is
    still found (the tasks narrow the replica rows per file only when each cluster has one)."""
    import json

    moving, rest = fx.EAST["brokers"][0]["log_dirs"][1], fx.EAST["brokers"][0]["log_dirs"][0]
    split = {
        "a.json": fx.log_dirs_doc(fx.broker(1, [moving], rack="a")),
        "b.json": fx.log_dirs_doc(fx.broker(1, [rest, fx.log_dir("/d3", [fx.replica("t", p, 10 * fx.GB + p) for p in range(30)])])),
    }
    for name, doc in split.items():
        (tmp_path / name).write_text(json.dumps(dict(doc, cluster="east")))
    local, on_spark = both("log-dirs", spark, from_dir=str(tmp_path), top=2)
    assert_same(local, on_spark)
    moves = {r.name: r for r in on_spark}["moves_in_flight"].rows
    assert [(m[2], m[3], m[4], m[5]) for m in moves] == [("orders", 0, "/d1", "/d2")]


def test_a_reassign_or_throttle_result_with_values_it_cannot_hold_is_unreachable_on_spark_too(spark, tmp_path):
    """A partition past int32 or a topic that is a number made the Spark job fail with a Python
    worker's traceback; now such a file is an unreachable row on both engines, the rest counts."""
    from tests.fleet.test_inputs import BAD_VALUES

    for kind, good, report in (("reassign", fx.REASSIGN_EAST, "reassignment_status"),
                               ("throttle", fx.THROTTLE_EAST, "throttle_state")):
        bad = {name: doc for name, (k, doc, _) in BAD_VALUES.items() if k == kind}
        fx.write(tmp_path / kind, {**bad, "east.json": good})
        local, on_spark = both(kind, spark, from_dir=str(tmp_path / kind))
        assert_same(local, on_spark)
        by = {r.name: r for r in on_spark}
        assert sorted(r[2] for r in by["unreachable"].rows) == sorted(bad)
        assert {r[0] for r in by[report].rows} == {"east"}


def inventory(tmp_path, names, dead_port=None):
    lines = []
    for name in names:
        lines += ["[[clusters]]", f'name = "{name}"', f'bootstrap_server = "127.0.0.1:{dead_port or 9}"', 'timeout = "2s"']
    path = tmp_path / "fleet.toml"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_live_fleet_with_an_unreachable_cluster(spark, tmp_path):
    from tests.fleet.fakes import FakeOpener

    opener = FakeOpener({"east": (fx.EAST, fx.REASSIGN_EAST["reassignments"]), "west": (fx.WEST, [])}, dead=("gone",))
    fleet = inventory(tmp_path, ["east", "gone", "west"])
    local = build_reports(FleetRequest("log-dirs", fleet=fleet), opener=opener)
    on_spark = build_reports(FleetRequest("log-dirs", spark=True, spark_master=MASTER, fleet=fleet), opener=opener)
    assert_same(local, on_spark)
    by = {r.name: r.records() for r in on_spark}
    assert [(r["cluster"], r["broker"]) for r in by["unreachable"]] == [("gone", None), ("west", 7)]
    assert "no broker of 127.0.0.1:9 answered" in by["unreachable"][0]["error"]
    # the rest of the fleet still reports, with the numbers its result files give
    from_files = {r.name: r.rows for r in build_reports(FleetRequest("log-dirs", from_dir=str(fx.log_dirs_fleet(tmp_path / "f"))))}
    assert {r["cluster"] for r in by["cluster_usage"]} == {"east", "west"}
    assert [tuple(r.values()) for r in by["cluster_usage"]] == list(from_files["cluster_usage"])

    # reassignment progress needs sizes: the live path reads them from the adding brokers
    opener = FakeOpener({"east": (fx.EAST_MORE, fx.REASSIGN_EAST["reassignments"]), "west": (fx.WEST, [])}, dead=("gone",))
    live = build_reports(FleetRequest("reassign", spark=True, spark_master=MASTER, fleet=fleet), opener=opener)
    files = build_reports(FleetRequest("reassign", from_dir=str(fx.reassign_fleet(tmp_path / "r"))))
    assert live[1].name == "reassignment_status"
    live_rows = {(r[1], r[2]): r for r in live[1].rows}
    for row in files[1].rows:
        if (row[1], row[2]) == ("logs", 1):
            # live, the cluster says broker 4 is not one of its brokers: the move waits for it
            assert live_rows[("logs", 1)][8:] == ("target broker unreachable", False)
        else:
            assert live_rows[(row[1], row[2])] == row


def test_a_down_broker_of_a_moving_partition_is_named_on_spark_too(spark, tmp_path):
    """The same rows as plain Python, read from files and live (tests/fleet/test_local.py)."""
    from tests.fleet.test_local import north_live

    fleet, opener = north_live(tmp_path)
    assert_same(*both("reassign", spark, from_dir=str(fx.reassign_down_fleet(tmp_path / "from"))))
    local = build_reports(FleetRequest("reassign", fleet=fleet), opener=opener)
    on_spark = build_reports(FleetRequest("reassign", spark=True, spark_master=MASTER, fleet=fleet), opener=opener)
    assert_same(local, on_spark)
    by = {r.name: r for r in on_spark}
    assert [r[8] for r in by["reassignment_status"].rows][:2] == ["target broker unreachable", "source broker unreachable"]
    assert [r[:2] for r in by["unreachable"].rows] == [("north", 4)]
    assert_same(*both("throttle", spark, from_dir=str(fx.throttle_down_fleet(tmp_path / "throttle"))))


def test_a_down_broker_no_reassignment_touches_is_not_named_on_spark_either(spark, tmp_path):
    """The same rows as plain Python, read from files and live (tests/fleet/test_local.py)."""
    from tests.fleet.test_local import north_quiet

    saved, fleet, opener = north_quiet(tmp_path, "elsewhere")
    local, on_spark = both("reassign", spark, from_dir=str(saved))
    assert_same(local, on_spark)
    assert {r.name: r for r in on_spark}["unreachable"].rows == ()
    live = build_reports(FleetRequest("reassign", spark=True, spark_master=MASTER, fleet=fleet), opener=opener)
    assert_same(local, live)


def general_path(spark, directory, top):
    """The log-dirs reports through the Spark engine's queries over the loaded tables."""
    from kadmin.fleet import spark as engine
    from kadmin.fleet.files import discover

    frames = engine.frames_from_files(spark, discover(directory, "log-dirs"))
    return engine.log_dirs_reports(frames, top)


def test_the_per_file_path_gives_the_reports_of_the_general_path(spark, tmp_path):
    """Each file turned into its final report rows in the tasks: the same reports as the queries
    over the whole fleet's tables and as plain Python, on a fleet with moves in flight, offline
    and cordoned directories, brokers and files that could not be read; when a cluster is spread
    over two files, the per-file pieces are not used and the reports are still the same."""
    import json

    from kadmin.fleet import spark as engine
    from kadmin.fleet.files import discover

    fleet = tmp_path / "fleet"
    write_fleet(fleet, clusters=6, brokers=4, dirs=3, replicas=40)
    fx.write(fleet, {"east.json": fx.EAST, "west.json": fx.WEST, "broken.json": "{not json",
                     "west.reassign-list.json": "{not json either"})
    top = 3
    local = build_reports(FleetRequest("log-dirs", from_dir=str(fleet), top=top))
    per_file = engine.log_dirs_reports_from_files(spark, discover(fleet, "log-dirs"), top)
    assert per_file is not None
    assert_same(local, per_file)
    assert_same(general_path(spark, fleet, top), per_file)
    by = {r.name: r for r in per_file}
    assert ("east", 1, "orders", 0, "/d1", "/d2", 8 * fx.GB, 3 * fx.GB, 500) in by["moves_in_flight"].rows
    assert {r[3] for r in by["unavailable_dirs"].rows} == {"offline", "cordoned"}
    assert {r[2] for r in by["unreachable"].rows} >= {"broken.json", "west.json", "west.reassign-list.json"}
    assert len(by["largest_partitions"].rows) == 7 * top + 1  # "west" holds one replica

    # "east" also in a second file: broker 3 of it, whose replica is the source of a move there
    spread = fx.log_dirs_doc(fx.broker(3, [
        fx.log_dir("/d1", [fx.replica("orders", 5, 7 * fx.GB)], total=100 * fx.GB, usable=50 * fx.GB),
        fx.log_dir("/d2", [fx.replica("orders", 5, 1 * fx.GB, lag=9, future=True)], total=100 * fx.GB, usable=60 * fx.GB),
    ]))
    (fleet / "east-more.json").write_text(json.dumps(dict(spread, cluster="east")))
    assert engine.log_dirs_reports_from_files(spark, discover(fleet, "log-dirs"), top) is None
    local = build_reports(FleetRequest("log-dirs", from_dir=str(fleet), top=top))
    on_spark = build_reports(FleetRequest("log-dirs", spark=True, spark_master=MASTER, from_dir=str(fleet), top=top))
    assert_same(local, on_spark)
    assert_same(general_path(spark, fleet, top), on_spark)
    east = [r for r in {r.name: r for r in on_spark}["cluster_usage"].rows if r[0] == "east"]
    assert east[0][1] == 3  # brokers 1, 2 and 3: one cluster from both files


def test_an_offline_directorys_contents_are_unknown_on_spark_too(spark, tmp_path):
    """F.sum skips nulls (and is null over nulls alone): the Spark engine's queries, its per-file
    path and plain Python give the same rows for a saved result with a directory offline, the
    same file as an older kadmin wrote it (0 there), and a broker with every directory offline
    (tests/fleet/test_local.py)."""
    from tests.fleet.test_local import check_unknown_contents

    whole = fx.every_dir_offline(fx.SANDBOX_DIR_OFFLINE, fx.OFFLINE_DIR[0])
    expected = {"saved": fx.SANDBOX_DIR_OFFLINE, "older": fx.SANDBOX_DIR_OFFLINE,
                "broker-offline": whole, "broker-offline-older": whole}
    for name, directory in fx.offline_dir_fleets(tmp_path).items():
        local, on_spark = both("log-dirs", spark, from_dir=str(directory))
        assert_same(local, on_spark)
        queries = general_path(spark, directory, 10)
        assert_same(local, queries)
        check_unknown_contents(queries, expected[name])


def test_a_broker_that_did_not_answer_is_said_to_be_missing_from_the_sums_on_spark_too(spark, tmp_path):
    """The Spark engine's queries, its per-file path and plain Python give the same rows for the
    saved result with broker 3 down (unknown_brokers 1), a throttle show result beside a whole
    one naming a broker whose throttles it could not read (0), and the cluster split over two
    files, one saying broker 3 did not answer and one holding its directories
    (tests/fleet/test_local.py)."""
    from kadmin.fleet import spark as engine
    from kadmin.fleet.files import discover
    from tests.fleet.test_local import check_unread_brokers

    fleets = fx.broker_down_fleets(tmp_path)
    for name, directory in fleets.items():
        local, on_spark = both("log-dirs", spark, from_dir=str(directory))
        assert_same(local, on_spark)
        assert_same(local, general_path(spark, directory, 10))
        per_file = engine.log_dirs_reports_from_files(spark, discover(directory, "log-dirs"), 10)
        assert (per_file is None) == (name == "split")  # one cluster in two files: the general path
        if per_file is not None:
            assert_same(local, per_file)
    check_unread_brokers(general_path(spark, fleets["saved"], 10), fx.SANDBOX_BROKER_DOWN)
    unknown = {r.name: [row[-1] for row in r.rows] for r in general_path(spark, fleets["split"], 10)}
    assert (unknown["cluster_usage"], sorted(unknown["broker_usage"])) == ([1], [0, 0, 0, 1])
    unknown = {r.name: [row[-1] for row in r.rows] for r in general_path(spark, fleets["beside"], 10)}
    assert (unknown["cluster_usage"], unknown["broker_usage"]) == ([0], [0, 0, 0])


def test_a_directory_in_two_files_of_one_cluster_is_refused_on_spark_too(spark, tmp_path):
    import json

    from kadmin.errors import InputError

    doc = fx.log_dirs_doc(fx.broker(5, [fx.log_dir("/data", total=10, usable=5)]))
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_text(json.dumps(dict(doc, cluster="west")))
    with pytest.raises(InputError) as err:
        build_reports(FleetRequest("log-dirs", spark=True, spark_master=MASTER, from_dir=str(tmp_path)))
    assert err.value.problems == [
        "cluster 'west' broker 5: /data in a.json and b.json: a directory is counted from one file only "
        "(keep it in one of them)"
    ]


def test_a_broker_directory_or_replica_listed_twice_in_one_file_is_refused_on_spark_too(spark, tmp_path):
    """Both Spark paths (per file: each cluster in one file; general: reassign list) refuse it
    with the problems plain Python names, also from the columnar copies of a second run."""
    from kadmin.errors import InputError
    from tests.fleet.test_inputs import REPEATED_PROBLEMS, _repeated_docs

    fx.write(tmp_path / "l", _repeated_docs())
    for _ in range(2):  # parsed, then from the copies
        with pytest.raises(InputError) as err:
            build_reports(FleetRequest("log-dirs", spark=True, spark_master=MASTER, from_dir=str(tmp_path / "l")))
        assert err.value.problems == REPEATED_PROBLEMS
    docs = {f"{n[:-5]}.log-dirs.json": d for n, d in _repeated_docs().items()}
    fx.write(tmp_path / "r", {**docs, **{f"{n[:-len('.log-dirs.json')]}.json": fx.REASSIGN_EAST for n in docs}})
    with pytest.raises(InputError) as err:
        build_reports(FleetRequest("reassign", spark=True, spark_master=MASTER, from_dir=str(tmp_path / "r")))
    assert err.value.problems == [p.replace(".json:", ".log-dirs.json:") for p in REPEATED_PROBLEMS]


@pytest.mark.parametrize("kind", ["reassign", "throttle", "log-dirs"])
def test_a_reassignment_or_throttle_listed_twice_in_one_file_is_refused_on_spark_too(spark, tmp_path, kind):
    """The general path (reassign, throttle) and the per-file path (log-dirs, with such results
    beside) refuse it with the problems plain Python names."""
    from kadmin.errors import InputError
    from tests.fleet.test_inputs import REPEATED_RESULTS, _repeated_results

    fx.write(tmp_path, _repeated_results()[kind])
    with pytest.raises(InputError) as err:
        build_reports(FleetRequest(kind, spark=True, spark_master=MASTER, from_dir=str(tmp_path)))
    what, problems = REPEATED_RESULTS[kind]
    assert f"a file lists the same {what} more than once" in str(err.value)
    assert err.value.problems == problems


@pytest.mark.parametrize("kind", ["reassign", "throttle", "log-dirs"])
def test_a_cluster_whose_reassign_or_throttle_result_is_in_two_files_is_refused_on_spark_too(spark, tmp_path, kind):
    from kadmin.errors import InputError
    from tests.fleet.test_inputs import ONE_CLUSTER_IN_TWO_RESULTS, _one_cluster_in_two_results

    fx.write(tmp_path, _one_cluster_in_two_results()[kind])
    with pytest.raises(InputError) as err:
        build_reports(FleetRequest(kind, spark=True, spark_master=MASTER, from_dir=str(tmp_path)))
    assert str(err.value) == f"--from {tmp_path}: the same cluster results are in more than one file"
    assert err.value.problems == ONE_CLUSTER_IN_TWO_RESULTS[kind]


def test_the_driver_starts_with_kadmins_log4j_configuration_unless_told_otherwise(monkeypatch, tmp_path):
    """The quiet Log4j configuration is in the environment the driver JVM starts with, and only
    then; --debug (spark_logs) or a LOG4J_CONFIGURATION_FILE of the user's leave Spark's logging
    as configured."""
    import os
    from pathlib import Path

    from kadmin.fleet.spark import LOG4J2_ENV, QUIET_LOG4J2, _driver_environment

    monkeypatch.delenv(LOG4J2_ENV, raising=False)
    with _driver_environment(spark_logs=False):
        assert Path(os.environ[LOG4J2_ENV]).read_text(encoding="utf-8") == QUIET_LOG4J2
    assert LOG4J2_ENV not in os.environ
    with _driver_environment(spark_logs=True):
        assert LOG4J2_ENV not in os.environ
    mine = str(tmp_path / "log4j2.properties")
    monkeypatch.setenv(LOG4J2_ENV, mine)
    with _driver_environment(spark_logs=False):
        assert os.environ[LOG4J2_ENV] == mine
    assert os.environ[LOG4J2_ENV] == mine
