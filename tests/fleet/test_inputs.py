"""Reading a fleet: the TOML inventory, result files by name, tolerant document shapes."""

from __future__ import annotations

import json
import os

import pytest

from kadmin.errors import InputError
from kadmin.fleet.files import discover
from kadmin.fleet.inventory import load_inventory
from kadmin.fleet.rows import COMMANDS, document_rows
from tests.fleet import fixtures as fx


@pytest.fixture
def profiles(tmp_path, monkeypatch):
    """A kadmin config file (KADMIN_CONFIG) defining the profiles the inventories name."""
    path = tmp_path / "kadmin.toml"
    path.write_text("".join(f'[clusters.{n}]\nbootstrap_server = "127.0.0.1:9092"\n' for n in ("p", "q", "us")))
    monkeypatch.setenv("KADMIN_CONFIG", str(path))
    return path


def test_inventory_entries_with_resolved_paths(tmp_path, profiles):
    (tmp_path / "eu.properties").write_text("client.id=kadmin\n")
    inv = tmp_path / "fleet.toml"
    inv.write_text(
        'timeout = "5s"\n'
        '[[clusters]]\nname = "prod-eu"\nbootstrap_server = "127.0.0.1:9092"\ncommand_config = "eu.properties"\n'
        '[[clusters]]\nname = "prod-us"\nprofile = "us"\ntimeout = "20s"\n'
    )
    eu, us = load_inventory(inv)
    assert eu == {"name": "prod-eu", "bootstrap_server": "127.0.0.1:9092",
                  "command_config": str(tmp_path / "eu.properties"), "timeout": "5s"}
    assert us == {"name": "prod-us", "profile": "us", "timeout": "20s"}


def test_inventory_problems_are_reported_together(tmp_path, profiles):
    inv = tmp_path / "fleet.toml"
    inv.write_text(
        '[[clusters]]\nname = "a"\nbootstrap_server = "x:1"\nzookeeper = "z:2"\n'
        '[[clusters]]\nname = "b"\npassword = "hunter2"\nprofile = "p"\n'
    )
    with pytest.raises(InputError) as err:
        load_inventory(inv)
    problems = err.value.problems
    assert any(p.startswith("clusters.0: give exactly one of") for p in problems)
    assert any(p.startswith("clusters.1: unknown key: password") for p in problems)
    assert "hunter2" not in " ".join(problems)


def test_inventory_targets_are_host_port(tmp_path):
    inv = tmp_path / "fleet.toml"
    inv.write_text('[[clusters]]\nname = "a"\nbootstrap_server = "kafka-a"\n'
                   '[[clusters]]\nname = "b"\nbootstrap_server = "kafka-b:9092,kafka-c:9092"\n'
                   '[[clusters]]\nname = "c"\nzookeeper = "zk:2181/kafka/"\n'
                   '[[clusters]]\nname = "d"\nzookeeper = "zk/kafka"\n')
    with pytest.raises(InputError) as err:
        load_inventory(inv)
    assert err.value.problems == [
        "clusters.0.bootstrap_server: 'kafka-a' is not HOST:PORT (a port from 1 to 65535; an IPv6 address as [::1]:9092)",
        "clusters.2.zookeeper: chroot '/kafka/' is not a ZooKeeper path (no empty, '.' or '..' part, no '/' at the end)",
    ]


def test_inventory_duplicate_names(tmp_path, profiles):
    inv = tmp_path / "fleet.toml"
    inv.write_text('[[clusters]]\nname = "a"\nprofile = "p"\n[[clusters]]\nname = "a"\nprofile = "q"\n')
    with pytest.raises(InputError) as err:
        load_inventory(inv)
    assert err.value.problems == ["clusters.1.name: cluster 'a' is listed twice"]


def test_result_files_by_name(tmp_path):
    fx.throttle_fleet(tmp_path)
    files = {(f.cluster, f.kind) for f in discover(tmp_path, "throttle")}
    assert files == {("east", "throttle"), ("east", "reassign"), ("east", "log-dirs"), ("west", "throttle"),
                     ("west", "reassign"), ("north", "throttle"), ("south", "throttle")}


def test_cluster_key_overrides_file_name():
    rows = document_rows("reassign", "file-stem", "x.json", {"cluster": "real", "reassignments": []})
    assert rows["clusters"] == [("real", "reassign", "x.json")]


@pytest.mark.parametrize("doc", [
    {"throttles": [{"resource": "broker", "entity": "5", "config": "leader.replication.throttled.rate", "value": "9"}]},
    {"brokers": [{"broker": 5, "configs": {"leader.replication.throttled.rate": "9"}}]},
    {"brokers": [{"broker": 5, "throttles": [{"name": "leader.replication.throttled.rate", "value": "9"}]}]},
])
def test_throttle_shapes_accepted(doc):
    rows = document_rows("throttle", "c", "c.json", doc)
    assert rows["throttles"] == [("c", "broker", "5", "leader.replication.throttled.rate", "9", None, None)]


def test_throttle_show_schema_shape(tmp_path):
    import jsonschema

    from kadmin.schemas import load

    jsonschema.validate(fx.THROTTLE_SOUTH, load("throttle-show-result"))
    rows = document_rows("throttle", "south", "south.json", fx.THROTTLE_SOUTH)
    assert rows["throttles"] == [("south", "topic", "orders", "leader.replication.throttled.replicas", "0:1,0:2",
                                  "3f2a9c0d1e2b4a5c", True)]
    assert ("south", "reassign", "south.json") in rows["clusters"]  # nothing moves: known


def test_a_down_broker_whose_throttles_could_not_be_read_is_an_error_row():
    """A throttle show result names the down brokers whose throttles it could not read
    (unreadable_brokers): each is the error row of a down broker, as in the log-dirs reports;
    the throttles it did read are kept. A value that is not a list of broker ids refuses the file."""
    import jsonschema

    from kadmin.model import DOWN_ERROR
    from kadmin.schemas import load

    doc = dict(fx.THROTTLE_SOUTH, down_brokers=[1, 4], unreadable_brokers=[4, 1])
    jsonschema.validate(doc, load("throttle-show-result"))
    rows = document_rows("throttle", "south", "south.json", doc)
    assert rows["errors"] == [("south", 1, "south.json", DOWN_ERROR), ("south", 4, "south.json", DOWN_ERROR)]
    assert [t[2] for t in rows["throttles"]] == ["orders"]
    read_from_zookeeper = dict(fx.THROTTLE_SOUTH, down_brokers=[1], unreadable_brokers=[])
    assert document_rows("throttle", "south", "south.json", read_from_zookeeper)["errors"] == []
    for bad in ("1", [True], [None]):
        rows = document_rows("throttle", "south", "south.json", dict(fx.THROTTLE_SOUTH, unreadable_brokers=bad))
        assert rows["errors"] == [("south", None, "south.json", "not a throttle show result: unreadable_brokers is "
                                   f"not a list of broker ids: {bad!r}; {T_NEEDS}")]


def test_reassign_list_schema_shape():
    import jsonschema

    from kadmin.schemas import load

    jsonschema.validate(dict(fx.REASSIGN_EAST, version=1), load("reassign-list-result"))
    other_spelling = [{"topic": "t", "partition": 1, "replicas": [1, 2], "adding_replicas": [2], "removing_replicas": [1]}]
    rows = document_rows("reassign", "c", "c.json", {"partitions": other_spelling})
    assert rows["reassignments"] == [("c", "t", 1, [1, 2], [2], [1])]


def test_wrong_shape_is_an_error_row_not_a_crash():
    rows = document_rows("reassign", "c", "c.json", {"something": "else"})
    assert rows["errors"] == [("c", None, "c.json", "not a reassign list result: no 'reassignments' list")]


def _entry(**kw):
    return {"topic": "t", "partition": 0, "replicas": [1, 2], "adding": [2], "removing": [1], **kw}


R_NEEDS, T_NEEDS = "kadmin needs `reassign list -o json`", "kadmin needs `throttle show -o json`"
# Values a reassign list or throttle show result cannot hold, each with the reason its file is
# refused for; also the odd files of the Spark test (tests/fleet/test_spark.py).
BAD_VALUES = {
    "topic.json": ("reassign", {"reassignments": [_entry(topic=5)]}, "reassignments[0] has no 'topic'"),
    "notopic.json": ("reassign", [_entry(topic=None)], "[0] has no 'topic'"),
    "huge.json": ("reassign", {"reassignments": [_entry(partition=2**40)]},
                  "reassignments[0].partition is not a whole number from 0 to 2147483647: 1099511627776"),
    "bool.json": ("reassign", {"partitions": [_entry(partition=True)]},
                  "partitions[0].partition is not a whole number from 0 to 2147483647: True"),
    "digits.json": ("reassign", {"reassignments": [_entry(replicas="12")]},
                    "reassignments[0].replicas is not a list of broker ids: '12'"),
    "broker.json": ("reassign", {"reassignments": [_entry(adding_replicas=[-1], adding=None)]},
                    "reassignments[0].adding_replicas[0] is not a whole number from 0 to 2147483647: -1"),
    "noconfig.json": ("throttle", {"throttles": [{"resource": "broker", "entity": 1, "value": 5}]},
                      "throttles[0] names no config"),
    "string.json": ("throttle", {"throttles": ["kind"]}, "throttles[0] is not an object"),
    "plans.json": ("throttle", {"throttles": [{"kind": "broker_rate", "resource": "1", "config": "x", "value": "1",
                                               "plan_ids": "ab"}]}, "throttles[0].plan_ids is not a list of plan ids: 'ab'"),
    "stale.json": ("throttle", {"throttles": [{"resource": "broker", "entity": "1", "config": "x", "stale": "no"}]},
                   "throttles[0].stale is not true or false: 'no'"),
    "resource.json": ("throttle", {"throttles": [{"resource": "group", "entity": "g", "config": "x"}]},
                      "throttles[0] is not a broker or topic throttle: 'group'"),
    "item.json": ("throttle", {"brokers": [{"broker": 1, "configs": [{"name": "x", "value": "1"}, "oops"]}]},
                  "brokers[0].configs[1] is not an object"),
}


@pytest.mark.parametrize("name", sorted(BAD_VALUES))
def test_a_reassign_or_throttle_result_with_a_value_the_reports_cannot_use_is_refused_whole(name):
    """A topic that is not text, a partition or broker id that is not a whole number of Kafka's
    range, a throttle without its config or with a stale that is not true or false: the file is
    an unreachable row saying where (as a log-dirs result is), not rows that crash the Spark
    engine (a number where a topic goes, a partition past int32) or make plain Python raise
    (an entry that is not an object was 'a bug in kadmin')."""
    kind, doc, why = BAD_VALUES[name]
    rows = document_rows(kind, "c", name, doc)
    assert rows["errors"] == [("c", None, name, f"not a {COMMANDS[kind]} result: {why}; {R_NEEDS if kind == 'reassign' else T_NEEDS}")]
    assert not rows["reassignments"] and not rows["throttles"]


KAFKA_JSON = {"version": 1, "brokers": [{"broker": 0, "logDirs": [{"logDir": "/d", "error": None, "partitions": [
    {"partition": "t-0", "size": 5, "offsetLag": 0, "isFuture": False}]}]}]}
NEEDS = "kadmin needs `log-dirs describe -o json`"


@pytest.mark.parametrize("doc, error", [
    (KAFKA_JSON, f"kafka-log-dirs.sh output (kafka-json): {NEEDS}"),
    ({"version": 1, "brokers": []}, f"not a log-dirs describe result: its 'brokers' list is empty; {NEEDS}"),
    ({"version": 1, "brokers": [{"broker": 0}]},
     f"not a log-dirs describe result: brokers[0] has no 'log_dirs' list; {NEEDS}"),
    ({"brokers": [{"broker": 1, "log_dirs": [{"path": "/d", "status": "weird"}]}]},
     f"not a log-dirs describe result: brokers[0].log_dirs[0].status is not online, offline or cordoned: 'weird'; {NEEDS}"),
    ({"brokers": [{"broker": 1, "log_dirs": [{"path": "/d", "replicas": [{"topic": "t", "size": 5}]}]}]},
     "not a log-dirs describe result: brokers[0].log_dirs[0].replicas[0].partition is not a whole number from 0 to "
     f"2147483647: None; {NEEDS}"),
    ({"reassignments": []}, f"a reassign list result: {NEEDS}"),
])
def test_a_file_that_is_not_a_log_dirs_result_is_unreachable(doc, error):
    rows = document_rows("log-dirs", "c", "c.json", doc)
    assert rows["errors"] == [("c", None, "c.json", error)]
    assert not rows["clusters"] and not rows["log_dirs"]


def test_other_results_are_named_for_the_other_commands():
    plan = {"version": 1, "partitions": [{"topic": "t", "partition": 0, "replicas": [1, 2], "log_dirs": ["any", "any"]}]}
    assert document_rows("reassign", "c", "c.json", plan)["errors"] == [
        ("c", None, "c.json", "a reassignment plan (kafka-reassign-partitions.sh JSON): kadmin needs `reassign list -o json`")]
    assert document_rows("throttle", "c", "c.json", fx.EAST)["errors"] == [
        ("c", None, "c.json", "a log-dirs describe result: kadmin needs `throttle show -o json`")]
    assert document_rows("throttle", "c", "c.json", {"brokers": [{"broker": 0}]})["errors"] == [
        ("c", None, "c.json", "not a throttle show result: broker 0 carries no throttles or configs")]


def test_foreign_files_are_in_the_unreachable_report_and_the_rest_still_counts(tmp_path):
    from kadmin.fleet.run import FleetRequest, build_reports

    fx.write(tmp_path, {"east.json": fx.EAST, "kj.json": KAFKA_JSON, "empty.json": {"version": 1, "brokers": []},
                        "bare.json": {"version": 1, "brokers": [{"broker": 0}]}})
    by = {r.name: r for r in build_reports(FleetRequest("log-dirs", from_dir=str(tmp_path)))}
    assert [(r[0], r[2]) for r in by["unreachable"].rows] == [
        ("bare", "bare.json"), ("empty", "empty.json"), ("kj", "kj.json")]
    assert [r[0] for r in by["cluster_usage"].rows] == ["east"]


FOREIGN = {
    "kj.json": KAFKA_JSON,
    "empty.json": {"version": 1, "brokers": []},
    "bare.json": {"version": 1, "brokers": [{"broker": 0}]},
    "status.json": {"brokers": [{"broker": 1, "log_dirs": [{"path": "/d", "status": "weird"}]}]},
    "negative.json": {"brokers": [{"broker": 1, "log_dirs": [{"path": "/d", "replicas": [
        {"topic": "t", "partition": -1, "size": 5}]}]}]},
    "notopic.json": {"brokers": [{"broker": 1, "log_dirs": [{"path": "/d", "replicas": [{"partition": 1, "size": 5}]}]}]},
    "nullbroker.json": {"brokers": [None]},
    "good.json": fx.EAST,
    # what pyarrow cannot parse: the reasons are the plain reader's
    "wrongtypes.json": {"brokers": [{"broker": "x", "log_dirs": "nope"}]},
    "textsize.json": {"brokers": [{"broker": 1, "log_dirs": [{"path": "/d", "used_bytes": "5"}]}]},
    "rack.json": {"brokers": [{"broker": 1, "rack": 3, "log_dirs": []}]},
    "array.json": [1, 2],
    "broken.json": "{not json",
    "two.json": '{"brokers": []}\n{"brokers": []}',
    # empty, cut short, nested deeper than the decoder goes: their own reasons (below)
    "blank.json": "",
    "spaces.json": " \n",
    "cut.json": json.dumps(fx.EAST)[:500],
    "deep.json": '{"brokers": ' + "[" * 100_000 + "]" * 100_000 + "}",
}


@pytest.mark.parametrize("name", sorted(FOREIGN))
def test_the_spark_reader_says_what_the_plain_reader_says(tmp_path, name):
    """The pyarrow reader of the Spark engine (run here without Spark) and the plain-Python
    reader give the same rows of every report for the same file."""
    pytest.importorskip("pyarrow")
    from kadmin.fleet import local
    from kadmin.fleet.files import ResultFile, read_rows
    from kadmin.fleet.per_file import file_piece

    fx.write(tmp_path, {name: FOREIGN[name]})
    f = ResultFile(str(tmp_path / name), "log-dirs", name[: -len(".json")])
    plain = {r.name: list(r.rows) for r in local.log_dirs_reports(read_rows(f), 3)}
    assert file_piece(f, 3, cache=False)[1] == plain


def test_a_directory_in_two_files_of_one_cluster_is_an_input_error(tmp_path):
    """A cluster (even a broker's directories) may be spread over files, but a directory
    described by two of them would be counted twice: refused (exit 2), every one listed."""
    import json

    from kadmin.fleet.run import FleetRequest, build_reports

    one = fx.log_dirs_doc(fx.broker(5, [fx.log_dir("/a", total=10, usable=5), fx.log_dir("/b", total=10, usable=5)]),
                          fx.broker(6, [fx.log_dir("/a", total=10, usable=5)]))
    other = fx.log_dirs_doc(fx.broker(6, [fx.log_dir("/a", total=10, usable=5), fx.log_dir("/b", total=10, usable=1)]))
    for name, doc in (("a.json", one), ("b.json", other), ("c.json", one)):
        (tmp_path / name).write_text(json.dumps(dict(doc, cluster="west")))
    with pytest.raises(InputError) as err:
        build_reports(FleetRequest("log-dirs", from_dir=str(tmp_path)))
    assert err.value.problems == [
        "cluster 'west' broker 5: /a, /b in a.json and c.json: a directory is counted from one file only "
        "(keep it in one of them)",
        "cluster 'west' broker 6: /a in a.json and b.json and c.json: a directory is counted from one file only "
        "(keep it in one of them)",
    ]
    (tmp_path / "c.json").unlink()
    (tmp_path / "b.json").write_text(json.dumps(dict(fx.log_dirs_doc(fx.broker(6, [fx.log_dir("/b", total=10, usable=1)])),
                                                     cluster="west")))
    usage = {r.name: r for r in build_reports(FleetRequest("log-dirs", from_dir=str(tmp_path)))}["cluster_usage"]
    assert [(r[0], r[1], r[2]) for r in usage.rows] == [("west", 2, 4)]  # broker 6's /a and /b from two files


def _repeated_docs():
    """One file listing broker 5 twice, one listing /b of broker 6 twice, one listing a replica
    twice in /a of broker 7 (and a future replica of it once), one clean."""
    b5 = fx.broker(5, [fx.log_dir("/a", [fx.replica("t", 0, 4)], total=10, usable=5)])
    twice = fx.log_dir("/b", [fx.replica("t", 1, 3)], total=10, usable=5)
    rep = fx.replica("t", 2, 7)
    return {
        "a.json": fx.log_dirs_doc(b5, b5),
        "b.json": fx.log_dirs_doc(fx.broker(6, [fx.log_dir("/a", total=10, usable=5), twice, twice])),
        "c.json": fx.log_dirs_doc(fx.broker(7, [fx.log_dir("/a", [rep, rep, fx.replica("t", 2, 1, future=True)],
                                                            total=10, usable=5)])),
        "d.json": fx.EAST,
    }


REPEATED_PROBLEMS = [
    "a.json: cluster 'a' broker 5: log directory /a listed more than once",
    "b.json: cluster 'b' broker 6: log directory /b listed more than once",
    "c.json: cluster 'c' broker 7: replica t-2 in /a listed more than once",
]


@pytest.mark.parametrize("kind, main", [("log-dirs", None), ("reassign", fx.REASSIGN_EAST)])
def test_a_broker_directory_or_replica_listed_twice_in_one_file_is_an_input_error(tmp_path, kind, main):
    """One file listing a broker, a directory or a replica twice would count it twice (usage,
    replica counts, moves, largest partitions): refused (exit 2) like a directory in two files,
    each named with its file."""
    from kadmin.fleet.run import FleetRequest, build_reports

    docs = _repeated_docs()
    if main is not None:  # beside another command's result: <cluster>.log-dirs.json
        docs = {**{f"{n[:-5]}.log-dirs.json": d for n, d in docs.items()}, **{n: main for n in docs}}
    fx.write(tmp_path, docs)
    with pytest.raises(InputError) as err:
        build_reports(FleetRequest(kind, from_dir=str(tmp_path)))
    assert err.value.exit_code == 2
    assert "a file lists the same log directories or replicas more than once" in str(err.value)
    assert err.value.problems == [p.replace(".json:", ".log-dirs.json:") if main else p for p in REPEATED_PROBLEMS]


def _repeated_results():
    """Per report: a result listing a partition's reassignment, or throttles, twice, beside a
    clean one of another cluster; for log-dirs, such results beside a clean log-dirs result."""
    r, t = fx.REASSIGN_EAST["reassignments"], fx.THROTTLE_EAST["throttles"]
    reassign, throttle = {"reassignments": [*r, r[0]]}, {"throttles": [*t, t[0], t[3]]}
    return {
        "reassign": {"east.json": reassign, "west.json": fx.REASSIGN_WEST},
        "throttle": {"east.json": throttle, "west.json": fx.THROTTLE_WEST},
        "log-dirs": {"east.json": fx.EAST, "east.reassign-list.json": reassign, "east.throttle-show.json": throttle},
    }


REASSIGN_TWICE = "cluster 'east': reassignment of orders-1 listed more than once"
THROTTLES_TWICE = ("cluster 'east': throttles leader.replication.throttled.rate of broker 2, "
                   "leader.replication.throttled.replicas of topic orders listed more than once")
REPEATED_RESULTS = {  # kind -> (what the heading names, the problems)
    "reassign": ("reassignments", [f"east.json: {REASSIGN_TWICE}"]),
    "throttle": ("throttles", [f"east.json: {THROTTLES_TWICE}"]),
    "log-dirs": ("reassignments or throttles",
                 [f"east.reassign-list.json: {REASSIGN_TWICE}", f"east.throttle-show.json: {THROTTLES_TWICE}"]),
}


@pytest.mark.parametrize("kind", sorted(REPEATED_RESULTS))
def test_a_reassignment_or_throttle_listed_twice_in_one_file_is_an_input_error(tmp_path, kind):
    """A reassign list or throttle show result listing a partition or a throttle twice counted
    it twice (5 reassignments ongoing for 4, a throttle twice in the summary and its state):
    refused (exit 2) by the rule that refuses a log directory or replica listed twice, with the
    same words, also in a result beside the one being reported on."""
    from kadmin.fleet.run import FleetRequest, build_reports

    fx.write(tmp_path, _repeated_results()[kind])
    with pytest.raises(InputError) as err:
        build_reports(FleetRequest(kind, from_dir=str(tmp_path)))
    what, problems = REPEATED_RESULTS[kind]
    assert err.value.exit_code == 2
    assert str(err.value) == (f"--from {tmp_path}: a file lists the same {what} more than once: they would be "
                              "counted once per copy (keep one)")
    assert err.value.problems == problems


def _one_cluster_in_two_results():
    """Per report: two results of one command naming the same cluster (a "cluster" key), with
    results of other clusters; for log-dirs, two such results beside the log-dirs results."""
    return {
        "reassign": {"a.json": dict(fx.REASSIGN_EAST, cluster="east"), "east.json": {"reassignments": []},
                     "west.json": fx.REASSIGN_WEST, "east.log-dirs.json": fx.EAST_MORE},
        "throttle": {"a.json": dict(fx.THROTTLE_EAST, cluster="east"), "b.json": dict(fx.THROTTLE_WEST, cluster="east"),
                     "c.json": dict(fx.THROTTLE_SOUTH, cluster="east"), "east.reassign-list.json": fx.REASSIGN_EAST},
        "log-dirs": {"east.json": fx.EAST, "west.json": fx.WEST, "east.reassign-list.json": fx.REASSIGN_EAST,
                     "x.reassign-list.json": dict(fx.REASSIGN_WEST, cluster="east")},
    }


ONE_CLUSTER_IN_TWO_RESULTS = {
    "reassign": ["cluster 'east': a.json and east.json both hold its reassign list result: a cluster's result is read "
                 "from one file only (keep one of them)"],
    "throttle": ["cluster 'east': a.json and b.json and c.json all hold its throttle show result: a cluster's result "
                 "is read from one file only (keep one of them)"],
    "log-dirs": ["cluster 'east': east.reassign-list.json and x.reassign-list.json both hold its reassign list result: "
                 "a cluster's result is read from one file only (keep one of them)"],
}


@pytest.mark.parametrize("kind", sorted(ONE_CLUSTER_IN_TWO_RESULTS))
def test_a_cluster_whose_reassign_or_throttle_result_is_in_two_files_is_an_input_error(tmp_path, kind):
    """A "cluster" key naming a cluster another file holds: its reassignments or throttles were
    counted once per file (each in both: twice), or two snapshots were mixed. A reassign list or
    throttle show result is the whole cluster's (a log-dirs result may hold some of its
    brokers), so a second one is refused as two files named for the cluster are (exit 2)."""
    from kadmin.fleet.run import FleetRequest, build_reports

    fx.write(tmp_path, _one_cluster_in_two_results()[kind])
    with pytest.raises(InputError) as err:
        build_reports(FleetRequest(kind, from_dir=str(tmp_path)))
    assert err.value.exit_code == 2
    assert str(err.value) == f"--from {tmp_path}: the same cluster results are in more than one file"
    assert err.value.problems == ONE_CLUSTER_IN_TWO_RESULTS[kind]


def test_a_timeout_written_as_a_number_is_refused_as_a_string_without_a_unit_is(tmp_path):
    """`timeout = 10000` (Kafka's milliseconds habit) was read as 2.8 hours, `timeout = 5` as
    5 s, while `timeout = "10"` was refused: every number is refused now, with the words a
    unit-less string gets, among the inventory's other problems (exit 2, nothing collected)."""
    inv = tmp_path / "fleet.toml"
    inv.write_text(
        'timeout = 10000\n'
        '[[clusters]]\nname = "a"\nbootstrap_server = "127.0.0.1:9092"\ntimeout = 5\n'
        '[[clusters]]\nname = "b"\nbootstrap_server = "127.0.0.1:9092"\ntimeout = "5"\n'
        '[[clusters]]\nname = "c"\nbootstrap_server = "127.0.0.1:9092"\ntimeout = 2.5\n'
        '[[clusters]]\nname = "d"\nbootstrap_server = "kafka"\ntimeout = "5s"\n'
    )
    with pytest.raises(InputError) as err:
        load_inventory(inv)
    assert err.value.exit_code == 2
    assert err.value.problems == [
        "timeout: 10000 has no unit: write 10000ms (as Kafka's tool meant it) or 10000s",
        "clusters.0.timeout: 5 has no unit: write 5ms (as Kafka's tool meant it) or 5s",
        "clusters.1.timeout: 5 has no unit: write 5ms (as Kafka's tool meant it) or 5s",  # the string's words
        "clusters.2.timeout: 2.5 has no unit: write 2.5ms (as Kafka's tool meant it) or 2.5s",
        "clusters.3.bootstrap_server: 'kafka' is not HOST:PORT (a port from 1 to 65535; an IPv6 address as [::1]:9092)",
    ]
    inv.write_text('timeout = "10s"\n[[clusters]]\nname = "a"\nbootstrap_server = "127.0.0.1:9092"\n'
                   'timeout = "500ms"\n')
    assert [e["timeout"] for e in load_inventory(inv)] == ["500ms"]


def test_the_inventory_schema_takes_a_timeout_as_a_string_only():
    from kadmin.schemas import load

    schema = load("fleet-inventory")
    assert schema["properties"]["timeout"]["type"] == "string"
    assert schema["$defs"]["cluster"]["properties"]["timeout"]["type"] == "string"


def test_every_inventory_problem_is_reported_up_front_with_where_it_is(tmp_path, monkeypatch):
    """Settings that would only fail as each cluster connects (a timeout that is not a duration,
    a missing config or properties file, an unknown profile, a JKS keystore) are found with the
    schema's problems, all of them, each saying where it is; nothing is collected."""
    (tmp_path / "kadmin.toml").write_text('[clusters.p]\nbootstrap_server = "127.0.0.1:9092"\n')
    (tmp_path / "jks.properties").write_text("security.protocol=SSL\nssl.keystore.location=/k.jks\n"
                                             "ssl.keystore.password=hunter2\n")
    inv = tmp_path / "fleet.toml"
    inv.write_text(
        'timeout = "10x"\nconfig = "kadmin.toml"\n'
        '[[clusters]]\nname = "a"\nbootstrap_server = "127.0.0.1:9092"\ntimeout = -5\n'
        '[[clusters]]\nname = "b"\nprofile = "nope"\n'
        '[[clusters]]\nname = "c"\nbootstrap_server = "127.0.0.1:9092"\ncommand_config = "nowhere.properties"\n'
        '[[clusters]]\nname = "d"\nbootstrap_server = "127.0.0.1:9092"\ncommand_config = "jks.properties"\n'
        '[[clusters]]\nname = "e"\nbootstrap_server = "kafka"\nport = 1\n'
        '[[clusters]]\nname = "f"\nprofile = "p"\ntimeout = "2m"\n'
    )
    with pytest.raises(InputError) as err:
        load_inventory(inv)
    assert err.value.problems == [
        "timeout: expected a duration such as 30s, 500ms or 2m, got '10x'",
        "clusters.0.timeout: expected a duration such as 30s, 500ms or 2m, got -5",
        "clusters.1.profile: no profile 'nope' in kadmin.toml",
        f"clusters.2.command_config: cannot read properties file {tmp_path / 'nowhere.properties'}: "
        "No such file or directory",
        "clusters.3.command_config: ssl.keystore.type=JKS cannot be used (ssl.keystore.location): only PEM stores "
        "are supported",
        "clusters.4: unknown key: port",
        "clusters.4.bootstrap_server: 'kafka' is not HOST:PORT (a port from 1 to 65535; an IPv6 address as [::1]:9092)",
    ]
    assert "hunter2" not in " ".join(err.value.problems)

    inv.write_text('config = "gone.toml"\n[[clusters]]\nname = "b"\nprofile = "p"\n')
    with pytest.raises(InputError) as err:
        load_inventory(inv)
    assert err.value.problems == [f"config: profile file {tmp_path / 'gone.toml'} does not exist"]


def test_inventory_config_in_the_home_directory(tmp_path, monkeypatch):
    """config = "~/..." is the home directory's file, not one beside the inventory."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "kadmin.toml").write_text('[clusters.p]\nbootstrap_server = "127.0.0.1:9092"\n')
    monkeypatch.setenv("HOME", str(home))
    inv = tmp_path / "inv" / "fleet.toml"
    inv.parent.mkdir()
    inv.write_text('config = "~/kadmin.toml"\n[[clusters]]\nname = "b"\nprofile = "p"\n')
    assert load_inventory(inv)[0]["config"] == str(home / "kadmin.toml")


@pytest.mark.parametrize("kind", ["log-dirs", "reassign", "throttle"])
def test_an_empty_cut_short_or_too_deep_file_says_so(tmp_path, kind):
    """An empty file said 'Expecting value: line 1 column 1 (char 0)'; a file cut short (still
    being written, a full disk) named only the place the decoder stopped at; one nested deeper
    than the decoder goes (a RecursionError) ended the whole run as 'a bug in kadmin'. Each is
    now its cluster's unreachable row saying what is wrong, and the others report."""
    from kadmin.fleet.files import ResultFile, read_rows

    good = {"log-dirs": fx.EAST, "reassign": fx.REASSIGN_EAST, "throttle": fx.THROTTLE_EAST}[kind]
    text = json.dumps(good)
    cut = len(text) // 2
    fx.write(tmp_path, {"blank.json": "", "spaces.json": " \n", "cut.json": text[:cut],
                        "deep.json": '{"brokers": ' + "[" * 100_000 + "]" * 100_000 + "}"})
    reasons = {n: read_rows(ResultFile(str(tmp_path / n), kind, "c"))["errors"] for n in sorted(os.listdir(tmp_path))}
    assert {n: [e[3] for e in errors] for n, errors in reasons.items()} == {
        "blank.json": ["the file is empty: no JSON document"],
        "spaces.json": ["the file is empty: no JSON document"],
        "cut.json": [f"not valid JSON: {_decoder_error(text[:cut])} (the file ends before its document does: cut "
                     "short, or still being written?)"],
        "deep.json": ["not valid JSON: arrays or objects nested too deeply"],
    }


def _decoder_error(text: str) -> str:
    with pytest.raises(json.JSONDecodeError) as err:
        json.loads(text)
    at = "" if err.value.msg.endswith(" at") else " at"
    return f"{err.value.msg}{at} line {err.value.lineno} column {err.value.colno}"


def test_the_same_reasons_for_files_pyarrow_cannot_parse(tmp_path):
    from kadmin.fleet.files import ResultFile, read_rows

    fx.write(tmp_path, {k: FOREIGN[k] for k in ("wrongtypes.json", "broken.json")})
    reasons = [read_rows(ResultFile(str(tmp_path / n), "log-dirs", "c"))["errors"][0][3] for n in ("wrongtypes.json",
                                                                                                   "broken.json")]
    assert reasons == [
        f"not a log-dirs describe result: brokers[0].broker is not a whole number from 0 to 2147483647: 'x'; {NEEDS}",
        "not valid JSON: Expecting property name enclosed in double quotes at line 1 column 2",
    ]
