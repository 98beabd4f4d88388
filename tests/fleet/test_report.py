"""Every report prints in its total order: descending columns fullest first, nulls last, ties
broken by the other columns, whichever order the rows came in."""

from __future__ import annotations

import random

from kadmin.fleet import tables as t
from kadmin.fleet.report import Report
from tests.fleet import fixtures as fx


def test_fullest_directory_first_unknown_fraction_last_ties_by_cluster_broker_path():
    def row(cluster, broker, path, fraction):
        return (cluster, broker, path, "online", 1, 10, 5, fraction, 1, 0)

    expected = [
        row("a", 1, "/d", 0.9),
        row("a", 2, "/d", 0.5),
        row("b", 1, "/a", 0.5),
        row("b", 1, "/b", 0.5),
        row("a", 1, "/e", 0.0),
        row("a", 3, "/d", -0.25),  # usable above total: still a number, ordered as one
        row("a", 1, "/c", None),
        row("b", 0, "/a", None),
    ]
    for seed in range(5):
        shuffled = list(expected)
        random.Random(seed).shuffle(shuffled)
        assert list(Report.of(t.DIR_USAGE, shuffled).rows) == expected


def test_the_cluster_with_most_reassignments_not_progressed_first():
    summary = [("a", 3, 0, 1, 1, 0), ("b", 3, 2, 1, 1, 0), ("c", 1, 2, 0, 0, 1)]
    assert [r[0] for r in Report.of(t.REASSIGNMENT_SUMMARY, summary).rows] == ["b", "c", "a"]


def test_a_reused_report_dir_holds_only_this_run_s_reports(tmp_path):
    """Files an earlier run wrote under kadmin's report names and this run did not write (another
    command's reports, a chart) are removed; anything else in the directory stays."""
    from kadmin.fleet.output import write_reports
    from kadmin.fleet.run import FleetRequest, build_reports

    out = tmp_path / "out"
    log_dirs = build_reports(FleetRequest("log-dirs", from_dir=str(fx.log_dirs_fleet(tmp_path / "l"))))
    write_reports(out, "log-dirs", "local", log_dirs)
    assert (out / "dir-usage.png").is_file() and (out / "cluster_usage.parquet").is_file()
    (out / "notes.txt").write_text("mine")
    (out / "cluster_usage.csv").write_text("mine too")
    reassign = build_reports(FleetRequest("reassign", from_dir=str(fx.reassign_fleet(tmp_path / "r"))))
    written = write_reports(out, "reassign", "local", reassign)
    assert sorted(p.name for p in out.iterdir()) == sorted([p.name for p in written] + ["notes.txt", "cluster_usage.csv"])
    assert not (out / "dir-usage.png").exists()

    # a log-dirs run with nothing to draw leaves no earlier chart behind
    write_reports(out, "log-dirs", "local", log_dirs)
    assert (out / "dir-usage.png").is_file()
    nothing = build_reports(FleetRequest("log-dirs", from_dir=str(fx.write(tmp_path / "n", {"x.json": fx.WEST}))))
    nothing = [r if r.name != "cluster_usage" else type(r)(r.spec, ()) for r in nothing]
    write_reports(out, "log-dirs", "local", nothing)
    assert not (out / "dir-usage.png").exists() and not (out / "reassignment_status.json").exists()
