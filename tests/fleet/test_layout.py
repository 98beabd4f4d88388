"""``--from DIR`` on the layout docs/fleet.md shows: one ``results/`` folder with
``<cluster>.json`` holding ``log-dirs describe -o json`` and ``<cluster>.throttle-show.json`` and
``<cluster>.reassign-list.json`` beside it, read by every reporting command.

A bare ``<cluster>.json`` was taken for the running command's result by its name alone, so
``throttle show --from results/`` refused (exit 2): "east.json and east.throttle-show.json both
hold the throttle result of cluster 'east'" (east.json holds a log-dirs result). Now a bare file
holding another command's result is read as that result: the log-dirs result of east.json adds
replica sizes to the reassignment report and future replicas to the throttle report, as
``east.log-dirs.json`` would.
"""

from __future__ import annotations

import json

import pytest

from kadmin.errors import InputError
from kadmin.fleet.files import discover
from kadmin.fleet.run import FleetRequest, build_reports
from tests.fleet import fixtures as fx
from tests.fleet.conftest import MASTER
from tests.support.cli import kadmin


def results(directory):
    return fx.write(
        directory,
        {
            "east.json": fx.EAST_MORE,
            "east.throttle-show.json": fx.THROTTLE_EAST,
            "east.reassign-list.json": fx.REASSIGN_EAST,
        },
    )


def as_named(directory):
    """The same results, each command's own file named for the command being run."""
    return {
        "log-dirs": fx.write(directory / "l", {"east.json": fx.EAST_MORE}),
        "reassign": fx.write(directory / "r", {"east.json": fx.REASSIGN_EAST, "east.log-dirs.json": fx.EAST_MORE}),
        "throttle": fx.write(
            directory / "t",
            {
                "east.json": fx.THROTTLE_EAST,
                "east.log-dirs.json": fx.EAST_MORE,
                "east.reassign-list.json": fx.REASSIGN_EAST,
            },
        ),
    }


def records(reports) -> dict:
    return {r.name: r.records() for r in reports}


def test_a_bare_file_is_classified_by_what_it_holds(tmp_path):
    d = results(tmp_path)
    for kind in ("reassign", "throttle"):
        assert sorted((f.name, f.kind) for f in discover(d, kind)) == [
            ("east.json", "log-dirs"),
            ("east.reassign-list.json", "reassign"),
            ("east.throttle-show.json", "throttle"),
        ]


@pytest.mark.parametrize("kind", ["log-dirs", "reassign", "throttle"])
def test_every_command_reads_the_documented_results_folder(tmp_path, kind):
    reports = records(build_reports(FleetRequest(kind, from_dir=str(results(tmp_path / "results")))))
    expected = records(build_reports(FleetRequest(kind, from_dir=str(as_named(tmp_path)[kind]))))
    # the same reports, EAST_MORE's broker 9 (it did not answer) named with the file it is in
    assert [dict(r, source="") for r in reports.pop("unreachable")] == [
        dict(r, source="") for r in expected.pop("unreachable")
    ]
    assert reports == expected


def test_the_command_reads_it_too(tmp_path, capsys):
    d = str(results(tmp_path / "results"))
    for command in (["throttle", "show"], ["reassign", "list"]):
        code, out, err = kadmin(capsys, *command, "--from", d, "-o", "json")
        assert "both hold" not in err
        assert json.loads(out)["kind"] in ("throttle", "reassign")
        # EAST_MORE names broker 9 as not answering: the report says so, exit 1; nothing is refused
        assert code in (0, 1), err


def test_a_folder_without_this_command_s_result_names_what_its_files_hold(tmp_path):
    d = fx.write(tmp_path, {"east.json": fx.EAST_MORE})
    with pytest.raises(InputError) as e:
        discover(d, "throttle")
    assert str(e.value) == (f"--from {d}: no result files of this command; east.json holds a log-dirs describe result")
    assert "throttle show --output json" in e.value.hint


def test_two_results_of_one_command_for_one_cluster_are_still_refused(tmp_path):
    d = fx.write(tmp_path, {"east.json": fx.THROTTLE_EAST, "east.throttle-show.json": fx.THROTTLE_EAST})
    with pytest.raises(InputError, match="both hold the throttle result"):
        discover(d, "throttle")


@pytest.mark.spark
@pytest.mark.parametrize("kind", ["reassign", "throttle"])
def test_spark_reads_the_folder_alike(spark, tmp_path, kind):
    d = str(results(tmp_path / "results"))
    plain = records(build_reports(FleetRequest(kind, from_dir=d)))
    on_spark = records(build_reports(FleetRequest(kind, from_dir=d, spark=True, spark_master=MASTER)))
    assert on_spark == plain
