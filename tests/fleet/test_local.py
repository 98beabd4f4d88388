"""The fleet reports in plain Python, on hand-made fleets whose figures are worked out by hand
(tests/fleet/fixtures.py explains each one)."""

from __future__ import annotations

import pytest

from kadmin.errors import InputError, UsageError
from kadmin.fleet.run import FleetRequest, build_reports
from tests.fleet import fixtures as fx

GB = fx.GB


def by_name(reports):
    return {r.name: r.records() for r in reports}


@pytest.fixture
def log_dirs_reports(tmp_path):
    return by_name(build_reports(FleetRequest("log-dirs", from_dir=str(fx.log_dirs_fleet(tmp_path)))))


def test_usage_and_skew_per_cluster_and_broker(log_dirs_reports):
    east, west = log_dirs_reports["cluster_usage"]  # most skewed cluster first
    assert east["cluster"] == "east" and west["cluster"] == "west"
    assert (east["brokers"], east["dirs"], east["offline_dirs"], east["cordoned_dirs"]) == (2, 5, 1, 1)
    assert east["used_bytes"] == 33 * GB and east["total_bytes"] == 400 * GB
    assert east["used_fraction"] == pytest.approx(0.30)
    assert east["broker_skew"] == pytest.approx(0.20)  # brokers at 40 % and 20 %
    assert east["max_dir_skew"] == pytest.approx(0.40)  # broker 1's dirs at 20 % and 60 %
    assert (east["replicas"], east["future_replicas"]) == (5, 1)
    assert west["used_fraction"] == pytest.approx(0.5) and west["broker_skew"] == 0.0

    brokers = {(r["cluster"], r["broker"]): r for r in log_dirs_reports["broker_usage"]}
    b2 = brokers[("east", 2)]
    assert b2["used_fraction"] == pytest.approx(0.20)  # the offline dir does not count
    assert (b2["min_dir_fraction"], b2["max_dir_fraction"]) == (pytest.approx(0.1), pytest.approx(0.3))
    assert ("west", 7) not in brokers  # did not answer: no directories to measure


def test_fullest_directories_first_and_offline_has_no_fraction(log_dirs_reports):
    dirs = log_dirs_reports["dir_usage"]
    assert (dirs[0]["cluster"], dirs[0]["broker"], dirs[0]["path"]) == ("east", 1, "/d2")
    offline = [d for d in dirs if d["status"] == "offline"]
    assert offline == [dict(offline[0], used_fraction=None)] and dirs[-1] == offline[0]


def test_largest_partitions_ranked_per_cluster(log_dirs_reports):
    east = [r for r in log_dirs_reports["largest_partitions"] if r["cluster"] == "east"]
    assert [(r["rank"], r["topic"], r["partition"], r["broker"], r["size"]) for r in east[:4]] == [
        (1, "logs", 0, 1, 9 * GB), (2, "logs", 0, 2, 9 * GB), (3, "orders", 0, 1, 8 * GB), (4, "orders", 0, 1, 3 * GB),
    ]
    assert east[3]["is_future"] is True


def test_moves_in_flight_join_future_to_current_replica(log_dirs_reports):
    assert log_dirs_reports["moves_in_flight"] == [{
        "cluster": "east", "broker": 1, "topic": "orders", "partition": 0, "source_path": "/d1",
        "target_path": "/d2", "source_size": 8 * GB, "future_size": 3 * GB, "offset_lag": 500,
    }]


def test_offline_cordoned_and_unreadable(log_dirs_reports):
    assert [(r["cluster"], r["broker"], r["path"], r["status"]) for r in log_dirs_reports["unavailable_dirs"]] == [
        ("east", 2, "/d2", "offline"), ("east", 2, "/d3", "cordoned"),
    ]
    unreachable = [(r["cluster"], r["broker"], r["source"]) for r in log_dirs_reports["unreachable"]]
    assert unreachable == [("broken", None, "broken.json"), ("west", 7, "west.json")]


def check_unknown_contents(reports, doc, cluster="demo"):
    """The usage reports of ``doc`` (a log-dirs describe result with directories whose contents
    are unknown): such a directory's used bytes, replicas and future replicas are null, never 0;
    a broker's and the cluster's sums are over the known directories, ``unknown_dirs`` counting
    the others, and null over none (fixtures.known_figures works them out from the document)."""
    by = by_name(reports)
    want = fx.known_figures(doc)
    figures = ("used_bytes", "replicas", "future_replicas")
    dirs = {(r["broker"], r["path"]): tuple(r[k] for k in figures) for r in by["dir_usage"] if r["cluster"] == cluster}
    assert dirs == want["dirs"]
    sums = ("unknown_dirs", *figures)
    brokers = {r["broker"]: tuple(r[k] for k in sums) for r in by["broker_usage"] if r["cluster"] == cluster}
    assert brokers == want["brokers"]
    [usage] = [tuple(r[k] for k in sums) for r in by["cluster_usage"] if r["cluster"] == cluster]
    assert usage == want["cluster"]
    return by


def test_an_offline_directorys_contents_are_unknown_not_empty(tmp_path):
    """A saved `log-dirs describe -o json` of the sandbox with a directory offline (null counts),
    the same file as kadmin wrote it before (0 there), and one whose broker has every directory
    offline: the directory says unknown, the sums say how many directories they lack."""
    fleets = fx.offline_dir_fleets(tmp_path)
    saved = build_reports(FleetRequest("log-dirs", from_dir=str(fleets["saved"])))
    by = check_unknown_contents(saved, fx.SANDBOX_DIR_OFFLINE)
    broker, path = fx.OFFLINE_DIR
    assert fx.known_figures(fx.SANDBOX_DIR_OFFLINE)["dirs"][(broker, path)] == (None, None, None)
    [b1] = [r for r in by["broker_usage"] if r["broker"] == broker]
    assert (b1["offline_dirs"], b1["unknown_dirs"]) == (1, 1) and b1["used_bytes"] > 0 and b1["replicas"] == 19
    [c] = by["cluster_usage"]
    assert (c["unknown_dirs"], c["replicas"]) == (1, 99)
    older = build_reports(FleetRequest("log-dirs", from_dir=str(fleets["older"])))
    assert [r.rows for r in older] == [r.rows for r in saved]  # an older file's 0 is read as unknown too

    whole = fx.every_dir_offline(fx.SANDBOX_DIR_OFFLINE, broker)
    for name in ("broker-offline", "broker-offline-older"):
        by = check_unknown_contents(build_reports(FleetRequest("log-dirs", from_dir=str(fleets[name]))), whole)
        [b1] = [r for r in by["broker_usage"] if r["broker"] == broker]
        assert (b1["unknown_dirs"], b1["used_bytes"], b1["replicas"], b1["future_replicas"]) == (2, None, None, None)


def check_unread_brokers(reports, doc, cluster="demo"):
    """The usage reports of ``doc`` (a log-dirs describe result with brokers that did not
    answer: an error and no log directories): those brokers have no broker_usage row and are in
    none of the cluster's sums, which ``unknown_brokers`` says (fixtures.known_figures works the
    sums out from the answered brokers' directories)."""
    by = by_name(reports)
    unread = {b["broker"] for b in doc["brokers"] if b["error"]}
    answered = {b["broker"] for b in doc["brokers"] if b["log_dirs"]}
    assert unread and not unread & answered
    assert {r["broker"] for r in by["broker_usage"] if r["cluster"] == cluster} == answered
    assert {r["broker"]: r["unknown_brokers"] for r in by["broker_usage"] if r["cluster"] == cluster} == dict.fromkeys(
        answered, 0)
    [c] = [r for r in by["cluster_usage"] if r["cluster"] == cluster]
    want = fx.known_figures(doc)["cluster"]
    assert (c["unknown_dirs"], c["used_bytes"], c["replicas"], c["future_replicas"]) == want
    assert (c["brokers"], c["unknown_brokers"]) == (len(answered), len(unread))
    assert {(r["cluster"], r["broker"]) for r in by["unreachable"]} == {(cluster, b) for b in unread}
    return by


def test_a_broker_that_did_not_answer_is_said_to_be_missing_from_the_sums(tmp_path):
    """A saved `log-dirs describe -o json` of the sandbox with broker 3 stopped: the cluster's
    sums are over brokers 0 to 2 and its row says one broker is missing from them
    (unknown_brokers 1), where it said they were whole (unknown_dirs 0 alone). A throttle show
    result beside a whole log-dirs result, naming a broker whose throttles it could not read,
    takes nothing from the log-dirs sums. A broker whose directories one file holds while
    another file of its cluster says it did not answer: its own row says so too."""
    fleets = fx.broker_down_fleets(tmp_path)
    by = check_unread_brokers(build_reports(FleetRequest("log-dirs", from_dir=str(fleets["saved"]))),
                              fx.SANDBOX_BROKER_DOWN)
    [c] = by["cluster_usage"]
    assert (c["brokers"], c["dirs"], c["unknown_dirs"], c["unknown_brokers"]) == (3, 6, 0, 1)

    by = by_name(build_reports(FleetRequest("log-dirs", from_dir=str(fleets["beside"]))))
    assert [(r["broker"], r["source"]) for r in by["unreachable"]] == [(2, "demo.throttle-show.json")]
    assert [r["unknown_brokers"] for r in by["cluster_usage"]] == [0]
    assert {r["unknown_brokers"] for r in by["broker_usage"]} == {0}

    by = by_name(build_reports(FleetRequest("log-dirs", from_dir=str(fleets["split"]))))
    brokers = {r["broker"]: r["unknown_brokers"] for r in by["broker_usage"]}
    assert brokers == {0: 0, 1: 0, 2: 0, fx.DOWN_BROKER: 1}
    [c] = by["cluster_usage"]
    assert (c["brokers"], c["dirs"], c["unknown_brokers"]) == (4, 7, 1)


def test_reassignments_that_have_not_progressed_come_first(tmp_path):
    reports = by_name(build_reports(FleetRequest("reassign", from_dir=str(fx.reassign_fleet(tmp_path)))))
    rows = [(r["topic"], r["partition"], r["status"], r["progressed"], r["source_size"], r["adding_size"])
            for r in reports["reassignment_status"]]
    assert rows == [
        ("logs", 0, "target broker unreachable", False, 9 * GB, None),
        ("orders", 1, "not started", False, 2 * GB, 0),
        ("logs", 1, "unknown", None, None, None),
        ("orders", 0, "copying", True, 8 * GB, 1 * GB),
    ]
    assert reports["reassignment_summary"] == [
        {"cluster": "east", "ongoing": 4, "not_progressed": 2, "adding_replicas": 4, "removing_replicas": 2,
         "waiting": 0},
        # read, nothing moves: a row of 0s, where it had none (as a cluster not read)
        {"cluster": "west", "ongoing": 0, "not_progressed": 0, "adding_replicas": 0, "removing_replicas": 0,
         "waiting": 0},
    ]


def north_live(tmp_path):
    """"north" read live: broker 4 is down (not among the brokers the cluster lists)."""
    from tests.fleet.fakes import FakeOpener

    up = fx.log_dirs_doc(*(b for b in fx.NORTH_LOG_DIRS["brokers"] if b["broker"] != 4))
    fleet = tmp_path / "fleet.toml"
    fleet.write_text('[[clusters]]\nname = "north"\nbootstrap_server = "127.0.0.1:9"\n')
    return str(fleet), FakeOpener({"north": (up, fx.REASSIGN_NORTH["reassignments"])})


# In "north" (fx.NORTH_LOG_DIRS: broker 4 down) nothing is reassigned, or only a partition on
# brokers 1 and 2.
NORTH_QUIET = {"nothing": [], "elsewhere": [fx.REASSIGN_NORTH["reassignments"][3]]}


def north_quiet(tmp_path, name):
    """("north" saved: its reassign list result beside its log-dirs describe result naming
    broker 4 down; "north" live, as FakeOpener serves it: broker 4 not listed)."""
    from tests.fleet.fakes import FakeOpener

    reassignments = NORTH_QUIET[name]
    saved = fx.write(tmp_path / name / "from", {
        "north.reassign-list.json": {"version": 1, "reassignments": reassignments},
        "north.json": fx.NORTH_LOG_DIRS,  # a bare file: read as the log-dirs result it is
    })
    fleet, _ = north_live(tmp_path / name)
    up = fx.log_dirs_doc(*(b for b in fx.NORTH_LOG_DIRS["brokers"] if b["broker"] != 4))
    return saved, fleet, FakeOpener({"north": (up, reassignments)})


@pytest.mark.parametrize("name", sorted(NORTH_QUIET))
def test_a_down_broker_no_reassignment_touches_is_not_named(tmp_path, capsys, name):
    """Broker 4 of "north" is down, as its log-dirs describe result says, but it holds no
    replica of a partition being reassigned: the reassign reports lack nothing, and a run over
    the saved results says so as live collection does (no unreachable row), where it named the
    broker and failed (exit 1)."""
    saved, fleet, opener = north_quiet(tmp_path, name)
    for request in (FleetRequest("reassign", from_dir=str(saved)), FleetRequest("reassign", fleet=fleet)):
        reports = by_name(build_reports(request, opener=opener))
        assert reports["unreachable"] == [], request
        assert [(r["partition"], r["status"]) for r in reports["reassignment_status"]] == (
            [(3, "copying")] if NORTH_QUIET[name] else [])
    from tests.support.cli import kadmin

    code, _, err = kadmin(capsys, "reassign", "list", "--from", str(saved), "-o", "json")
    assert (code, err) == (0, "")


def test_live_reassign_reports_ask_only_the_brokers_of_the_partitions_being_moved(tmp_path):
    """Live, the reassign reports read the sizes of the brokers holding a replica of a partition
    being moved (1 and 2 in "north"), not the others' (3), whose answer they do not use: a slow
    one would be waited for, for nothing; and no broker when nothing moves."""
    for name, asked in (("elsewhere", [1, 2]), ("nothing", [])):
        _, fleet, opener = north_quiet(tmp_path, name)
        seen = []

        def recording(entry, opener=opener, seen=seen):
            backend = opener(entry)
            describe = backend.describe_log_dirs

            def describe_log_dirs(brokers=None, topics=None):
                seen.extend(brokers)
                return describe(brokers, topics)

            backend.describe_log_dirs = describe_log_dirs
            return backend

        build_reports(FleetRequest("reassign", fleet=fleet), opener=recording)
        assert sorted(seen) == asked, name


def test_a_broker_error_counts_where_the_reassignments_are_not_known():
    """A broker's error row is kept when it holds a replica of a partition being moved, or when
    its cluster's reassignments were not read (nothing says it is not involved); a cluster's
    own error always."""
    from kadmin.fleet.local import reassign_unreachable

    errors = [("a", 1, "a.json", "down"), ("a", 2, "a.json", "down"), ("a", None, "a.x.json", "bad"),
              ("b", 1, "b.json", "down")]
    clusters = [("a", "reassign", "a.reassign-list.json"), ("a", "log-dirs", "a.json"), ("b", "log-dirs", "b.json")]
    status = [("a", "t", 0, [3, 2], [3], [])]
    assert reassign_unreachable(errors, clusters, status) == errors[1:]


def test_a_down_broker_of_a_moving_partition_is_named_with_the_partitions_it_holds(tmp_path):
    """Broker 4 of "north" is down and holds a replica of three partitions being moved, none of
    them as an adding one. The report names it (its unreachable row: incomplete, exit 1), and
    each of its partitions says which side it is on, where they said "copying" (or "finishing")
    from the replicas that were read, and live collection left the broker out (exit 0): the
    partition that keeps it waits for it; the one removing it, its only source, cannot say how
    much is to copy; the one only removing it finishes without it."""
    from kadmin.fleet.report import unread_line
    from kadmin.model import DOWN_ERROR

    fleet, opener = north_live(tmp_path)
    for source, request in (
        ("north.log-dirs.json", FleetRequest("reassign", from_dir=str(fx.reassign_down_fleet(tmp_path / "from")))),
        ("live", FleetRequest("reassign", fleet=fleet)),
    ):
        reports = by_name(build_reports(request, opener=opener))
        rows = [(r["partition"], r["status"], r["progressed"], r["source_size"], r["adding_size"])
                for r in reports["reassignment_status"]]
        assert rows == [
            (0, "target broker unreachable", False, 8 * GB, 1 * GB),
            (1, "source broker unreachable", None, None, 0),
            (3, "copying", True, 4 * GB, 1 * GB),
            (2, "finishing", True, 1 * GB, None),
        ], source
        assert reports["reassignment_summary"] == [
            {"cluster": "north", "ongoing": 4, "not_progressed": 1, "adding_replicas": 3, "removing_replicas": 3,
             "waiting": 0},
        ]
        assert reports["unreachable"] == [{"cluster": "north", "broker": 4, "source": source, "error": DOWN_ERROR}]
        assert unread_line(tuple(r.values()) for r in reports["unreachable"]).startswith(
            "the report is incomplete: 1 broker could not be read")


def test_a_move_nothing_has_reached_whose_source_was_not_read_is_unknown_not_copying(tmp_path):
    """A log-dirs result of the adding broker alone (log-dirs describe --broker-list 3): it
    holds nothing yet, and the source's size is not known; it was "copying" (progressed)."""
    only_3 = fx.log_dirs_doc(*(b for b in fx.NORTH_LOG_DIRS["brokers"] if b["broker"] == 3))
    moving = {"reassignments": [{"topic": "orders", "partition": 1, "replicas": [3, 2], "adding": [3], "removing": [2]}]}
    fx.write(tmp_path, {"north.json": moving, "north.log-dirs.json": only_3})
    reports = by_name(build_reports(FleetRequest("reassign", from_dir=str(tmp_path))))
    assert [(r["status"], r["progressed"], r["source_size"], r["adding_size"]) for r in reports["reassignment_status"]] == [
        ("unknown", None, None, 0),
    ]


def test_a_throttle_a_down_or_unread_broker_may_need_is_not_leftover(tmp_path):
    """Nothing is being reassigned, and the brokers that were read move nothing between their
    directories, but broker 4 of "north" is down (and no log-dirs result of "wide" could be
    read): what they move is not known, so no throttle there is "leftover" (safe to remove, as
    the report said of all four); a log-dir rate is unknown where its broker was not read."""
    reports = by_name(build_reports(FleetRequest("throttle", from_dir=str(fx.throttle_down_fleet(tmp_path)))))
    states = {(r["cluster"], r["entity"], r["config"].split(".")[0]): r["state"] for r in reports["throttle_state"]}
    assert states == {
        ("north", "4", "replica"): "unknown",
        ("north", "1", "replica"): "stale",
        ("north", "1", "leader"): "stale",
        ("north", "<default>", "replica"): "unknown",
        ("wide", "4", "replica"): "unknown",
        ("wide", "1", "replica"): "unknown",
        ("wide", "1", "leader"): "stale",
        ("wide", "<default>", "replica"): "unknown",
    }
    assert [(r["cluster"], r["broker"]) for r in reports["unreachable"]] == [("north", 4), ("wide", None)]


def test_leftover_and_stale_throttles(tmp_path):
    reports = by_name(build_reports(FleetRequest("throttle", from_dir=str(fx.throttle_fleet(tmp_path)))))
    states = {(r["cluster"], r["entity"], r["config"].split(".")[0]): r["state"] for r in reports["throttle_state"]}
    assert states == {
        ("west", "5", "leader"): "leftover",  # nothing moves in west
        ("east", "6", "follower"): "stale",  # broker 6 takes part in no reassignment
        ("east", "clicks", "follower"): "stale",  # clicks is not moving
        ("north", "1", "leader"): "stale",  # the source said so
        ("south", "orders", "leader"): "leftover",  # throttle show said nothing moves there
        ("east", "2", "leader"): "needed",
        ("east", "1", "replica"): "needed",  # broker 1 has a future replica
        ("east", "orders", "leader"): "needed",
    }
    assert reports["throttle_state"][0]["state"] == "leftover"
    summary = {r["cluster"]: (r["throttles"], r["needed"], r["stale"], r["leftover"]) for r in reports["throttle_summary"]}
    assert summary == {"east": (5, 3, 2, 0), "west": (1, 0, 0, 1), "north": (1, 0, 1, 0), "south": (1, 0, 0, 1)}
    south = [r for r in reports["throttle_state"] if r["cluster"] == "south"]
    assert south[0]["plan"] == "3f2a9c0d1e2b4a5c"


def test_a_cluster_read_with_nothing_to_show_has_a_summary_row_of_zeros(tmp_path):
    """"quiet" was read and has no throttle (no reassignment): its summary row says 0, where it
    had none, as "gone", whose result could not be read, has none (it is in unreachable)."""
    fx.write(tmp_path / "t", {"east.json": fx.THROTTLE_WEST, "quiet.json": {"throttles": []}, "gone.json": "{"})
    reports = by_name(build_reports(FleetRequest("throttle", from_dir=str(tmp_path / "t"))))
    summary = {r["cluster"]: (r["throttles"], r["needed"], r["stale"], r["leftover"], r["unknown"])
               for r in reports["throttle_summary"]}
    assert summary == {"east": (1, 0, 0, 0, 1), "quiet": (0, 0, 0, 0, 0)}
    assert [r["cluster"] for r in reports["unreachable"]] == ["gone"]
    fx.write(tmp_path / "r", {"quiet.json": fx.REASSIGN_WEST, "gone.json": "{"})
    reports = by_name(build_reports(FleetRequest("reassign", from_dir=str(tmp_path / "r"))))
    assert [(r["cluster"], r["ongoing"], r["waiting"]) for r in reports["reassignment_summary"]] == [("quiet", 0, 0)]


def test_flags_are_checked_before_anything_runs(tmp_path):
    with pytest.raises(UsageError, match="mutually exclusive"):
        FleetRequest("log-dirs", fleet="f.toml", from_dir=str(tmp_path)).validate()
    with pytest.raises(UsageError, match="--fleet INVENTORY.toml or --from DIR"):
        FleetRequest("log-dirs", spark=True).validate()
    with pytest.raises(UsageError, match="--spark-master needs --spark"):
        FleetRequest("log-dirs", from_dir=str(tmp_path), spark_master="local[2]").validate()
    with pytest.raises(InputError, match="no result files"):
        build_reports(FleetRequest("log-dirs", from_dir=str(tmp_path)))
