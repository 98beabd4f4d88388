"""Every report prints in its total order: descending columns fullest first, nulls last, ties
broken by the other columns, whichever order the rows came in."""

from __future__ import annotations

import random

from kadmin.fleet import tables as t
from kadmin.fleet.report import Report


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
    summary = [("a", 3, 0, 1, 1), ("b", 3, 2, 1, 1), ("c", 1, 2, 0, 0)]
    assert [r[0] for r in Report.of(t.REASSIGNMENT_SUMMARY, summary).rows] == ["b", "c", "a"]
