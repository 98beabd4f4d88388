"""The option bundle and entry point the reporting commands share, driven through Click."""

from __future__ import annotations

import importlib.util
import json

import click
import pytest
from click.testing import CliRunner

from kadmin.commands.fleet import fleet_options, run_fleet_report
from kadmin.errors import UsageError
from tests.fleet import fixtures as fx


@click.command()
@fleet_options
@click.option("--output", "-o", default="table")
def describe(fleet, output):
    """Stands for a reporting command: one decorator, one call."""
    if fleet.requested:
        return run_fleet_report("log-dirs", fleet, output=output)
    click.echo("single cluster")


def invoke(*args):
    return CliRunner().invoke(describe, list(args), catch_exceptions=True)


def test_without_fleet_flags_the_command_runs_as_before():
    assert invoke().output == "single cluster\n"


def test_missing_pyspark_says_how_to_install(tmp_path, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyspark" else real(name, *a))
    result = invoke("--spark", "--from", str(fx.log_dirs_fleet(tmp_path)))
    assert isinstance(result.exception, UsageError)
    assert "pyspark" in str(result.exception) and "pip install 'kadmin[spark]'" in result.exception.hint


def test_local_json_output_follows_the_schema(tmp_path):
    import jsonschema

    from kadmin.schemas import load

    result = invoke("--from", str(fx.log_dirs_fleet(tmp_path)), "-o", "json")
    assert result.exit_code == 1, result.output  # broken.json and west's broker 7: reported, then exit 1
    doc = json.loads(result.stdout)
    jsonschema.validate(doc, load("fleet-report"))
    assert doc["engine"] == "local" and [r["name"] for r in doc["reports"]][0] == "cluster_usage"


@pytest.mark.spark
def test_spark_report_dir_writes_parquet_json_and_chart(spark, tmp_path):
    import jsonschema
    import pyarrow.parquet as pq

    from kadmin.schemas import load

    out = tmp_path / "out"
    result = invoke("--spark", "--spark-master", "local[2]", "--from", str(fx.log_dirs_fleet(tmp_path / "in")),
                    "--report-dir", str(out))
    assert result.exit_code == 1, result.output  # broken.json and west's broker 7: reported, then exit 1
    assert "Disk usage and skew per cluster" in result.stdout
    assert "cluster west broker 7 could not be read" in result.stderr
    assert "1 cluster and 1 broker could not be read" in str(result.exception)
    doc = json.loads((out / "fleet-report.json").read_text())
    jsonschema.validate(doc, load("fleet-report"))
    assert doc["engine"] == "spark"
    for report in doc["reports"]:
        table = pq.read_table(out / f"{report['name']}.parquet")
        assert table.column_names == [c["name"] for c in report["columns"]]
        assert table.to_pylist() == report["rows"] == json.loads((out / f"{report['name']}.json").read_text())
    assert (out / "dir-usage.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_fleet_flags_without_a_source_are_a_usage_error(tmp_path):
    result = invoke("--report-dir", str(tmp_path / "out"))
    assert isinstance(result.exception, UsageError) and "--fleet INVENTORY.toml or --from DIR" in str(result.exception)
    assert not (tmp_path / "out").exists()


def test_machine_formats_other_than_json_are_refused(tmp_path):
    result = invoke("--from", str(fx.log_dirs_fleet(tmp_path)), "-o", "kafka-json")
    assert isinstance(result.exception, UsageError) and "table or json" in str(result.exception)


def test_loading_the_option_bundle_imports_no_heavy_library():
    import subprocess
    import sys

    code = ("import sys, kadmin.commands.fleet, kadmin.fleet.run, kadmin.fleet.tables; "
            "print(sorted(m for m in ('pyspark', 'pyarrow', 'matplotlib', 'jsonschema', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_report_dir_is_named_as_given(tmp_path):
    """The line saying where the files went prints the directory as given: brackets in a path
    are not console markup."""
    out = tmp_path / "[bold]" / "out"
    result = invoke("--from", str(fx.log_dirs_fleet(tmp_path / "in")), "--report-dir", str(out), "-o", "json")
    assert result.exit_code == 1, result.output  # the fleet has unreadable parts
    assert f"files to {out}" in result.stderr
    assert (out / "fleet-report.json").exists()


def test_table_shows_cluster_names_and_paths_as_written(tmp_path):
    """Cluster names (from file names) and directory paths are data: brackets in them are not
    console markup."""
    src = fx.write(tmp_path / "in", {"[bold]eu.json": fx.log_dirs_doc(
        fx.broker(1, [fx.log_dir("/data/[red]x", [fx.replica("orders", 0, 5 * fx.GB)], total=10 * fx.GB,
                                 usable=4 * fx.GB)]))})
    result = CliRunner(env={"COLUMNS": "250"}).invoke(describe, ["--from", str(src)])
    assert result.exit_code == 0, result.output
    assert "[bold]eu" in result.stdout and "/data/[red]x" in result.stdout


def _no_engine(monkeypatch):
    """Any attempt to compute fails the test: the checks must come first."""
    import kadmin.fleet.local
    import kadmin.fleet.spark

    def refuse(*a, **kw):
        raise AssertionError("computed before the report directory was checked")

    monkeypatch.setattr(kadmin.fleet.spark, "spark_session", refuse)
    monkeypatch.setattr(kadmin.fleet.local, "reports", refuse)


@pytest.mark.parametrize("engine", [(), ("--spark",)])
def test_report_dir_under_a_file_is_refused_before_any_work(tmp_path, monkeypatch, engine):
    _no_engine(monkeypatch)
    (tmp_path / "afile").write_text("x")
    result = invoke(
        *engine, "--from", str(fx.log_dirs_fleet(tmp_path / "in")), "--report-dir", str(tmp_path / "afile" / "out")
    )
    assert isinstance(result.exception, UsageError), result.exception
    assert "afile is not a directory" in str(result.exception)


@pytest.mark.parametrize("engine", [(), ("--spark",)])
def test_report_file_name_taken_by_a_directory_is_refused_before_any_work(tmp_path, monkeypatch, engine):
    _no_engine(monkeypatch)
    out = tmp_path / "out"
    (out / "cluster_usage.json").mkdir(parents=True)
    result = invoke(*engine, "--from", str(fx.log_dirs_fleet(tmp_path / "in")), "--report-dir", str(out))
    assert isinstance(result.exception, UsageError), result.exception
    assert "cluster_usage.json is in the way" in str(result.exception)


def test_report_dir_that_cannot_be_written_at_the_end_is_one_line(tmp_path, monkeypatch):
    """A failure while writing (a disk full, a permission changed meanwhile) is an error (exit 1)
    naming the directory, not an unexpected OSError."""
    from kadmin.errors import KadminError
    from kadmin.fleet import output

    def full(*a, **kw):
        raise OSError(28, "No space left on device", str(tmp_path / "out" / "x.parquet"))

    monkeypatch.setattr(output, "write_parquet", full)
    result = invoke("--from", str(fx.log_dirs_fleet(tmp_path / "in")), "--report-dir", str(tmp_path / "out"))
    assert isinstance(result.exception, KadminError) and result.exception.exit_code == 1
    assert "No space left on device" in str(result.exception) and "x.parquet" in str(result.exception)


@pytest.mark.parametrize("master", ["foo", "local[0]", "local[abc]", "yarn", "spark://host", "spark://h:0", "local[*"])
def test_a_spark_master_kadmin_cannot_use_is_a_usage_error(tmp_path, monkeypatch, master):
    _no_engine(monkeypatch)
    result = invoke("--spark", "--spark-master", master, "--from", str(fx.log_dirs_fleet(tmp_path)))
    assert isinstance(result.exception, UsageError), result.exception
    assert "local, local[N], local[*] or spark://HOST:PORT" in str(result.exception)


@pytest.mark.parametrize(
    "master", ["local", "local[2]", "local[*]", "spark://10.0.0.5:7077", "spark://a:7077,b:7077", "spark://[::1]:7077"]
)
def test_the_spark_master_forms_kadmin_accepts(master):
    from kadmin.fleet.run import FleetRequest

    FleetRequest("log-dirs", spark=True, from_dir="x", spark_master=master).validate()


def test_a_spark_master_that_does_not_listen_fails_at_once(tmp_path):
    """No minute of Spark's retries: the master's port is tried first (exit 1, one line)."""
    import socket
    import time

    from kadmin.errors import KadminError

    pytest.importorskip("pyspark")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    started = time.monotonic()
    result = invoke(
        "--spark", "--spark-master", f"spark://127.0.0.1:{port}", "--from", str(fx.log_dirs_fleet(tmp_path))
    )
    assert isinstance(result.exception, KadminError) and result.exception.exit_code == 1, result.exception
    assert f"spark://127.0.0.1:{port}: the Spark master could not be reached" in str(result.exception)
    assert time.monotonic() - started < 10


def test_a_java_error_is_told_in_one_line():
    from kadmin.fleet.spark import spark_error_line

    text = (
        "An error occurred while calling None.org.apache.spark.api.java.JavaSparkContext.\n"
        ": org.apache.spark.SparkException: Asked to run locally with 0 threads\n"
        "\tat org.apache.spark.SparkContext$.createTaskScheduler(SparkContext.scala:3333)\n"
    )
    assert spark_error_line(RuntimeError(text)) == "Asked to run locally with 0 threads"
    assert spark_error_line(RuntimeError("[JAVA_GATEWAY_EXITED] Java gateway process exited.")) == (
        "[JAVA_GATEWAY_EXITED] Java gateway process exited."
    )


def test_unreachable_clusters_are_warned_about_with_json_output_too(tmp_path):
    """-o json: the document alone on stdout, the warnings on stderr as in table mode."""
    result = invoke("--from", str(fx.log_dirs_fleet(tmp_path)), "-o", "json")
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert [r["rows"] for r in doc["reports"] if r["name"] == "unreachable"][0]
    assert "cluster west broker 7 could not be read (west.json): broker 7 unreachable: timed out" in result.stderr
    assert "cluster broken could not be read (broken.json)" in result.stderr


def _report_command(kind):
    @click.command()
    @fleet_options
    @click.option("--output", "-o", default="table")
    def command(fleet, output):
        return run_fleet_report(kind, fleet, output=output, opener=_report_command.opener)

    return command


_report_command.opener = None


def _incomplete(result):
    from kadmin.errors import ClusterError

    assert isinstance(result.exception, ClusterError) and result.exit_code == 1, (result.exception, result.output)
    return str(result.exception)


@pytest.mark.parametrize("kind, main", [("log-dirs", fx.EAST), ("reassign", fx.REASSIGN_EAST),
                                        ("throttle", fx.THROTTLE_EAST)])
def test_a_fleet_none_of_which_could_be_read_is_exit_1(tmp_path, kind, main):
    """Only an unparseable file: the (empty) report is printed, the file warned about, then exit
    1 with one line counting it; a readable fleet is exit 0."""
    command = _report_command(kind)
    good = CliRunner().invoke(command, ["--from", str(fx.write(tmp_path / "good", {"east.json": main})), "-o", "json"])
    assert good.exit_code == 0, good.output
    src = fx.write(tmp_path / "bad", {"down.json": "{not json"})
    result = CliRunner().invoke(command, ["--from", str(src), "-o", "json", "--report-dir", str(tmp_path / "out")])
    assert _incomplete(result) == (
        "the report is incomplete: 1 cluster could not be read (named above, and in the unreachable report)"
    )
    assert json.loads(result.stdout)["kind"] == kind  # the report, then the error
    assert (tmp_path / "out" / "fleet-report.json").exists()
    assert "cluster down could not be read (down.json)" in result.stderr


def test_one_missing_broker_of_one_cluster_is_exit_1(tmp_path):
    src = fx.write(tmp_path, {"east.json": fx.EAST, "west.json": fx.WEST})
    result = CliRunner().invoke(describe, ["--from", str(src)])
    assert "1 broker could not be read" in _incomplete(result)
    assert "Disk usage and skew per cluster" in result.stdout  # the tables come first
    assert "cluster west broker 7 could not be read (west.json): broker 7 unreachable: timed out" in result.stderr


@pytest.mark.parametrize("kind", ["log-dirs", "reassign", "throttle"])
def test_a_live_fleet_whose_cluster_is_down_is_exit_1(tmp_path, kind, monkeypatch):
    """No cluster of the inventory answers: the report says so on stderr, then exit 1."""
    from tests.fleet.fakes import FakeOpener

    inventory = tmp_path / "fleet.toml"
    inventory.write_text('[[clusters]]\nname = "down"\nbootstrap_server = "127.0.0.1:1"\ntimeout = "1s"\n')
    monkeypatch.setattr(_report_command, "opener", FakeOpener({}, dead=("down",)))
    result = CliRunner().invoke(_report_command(kind), ["--fleet", str(inventory), "-o", "json"])
    assert "1 cluster could not be read" in _incomplete(result)
    assert json.loads(result.stdout)["kind"] == kind
    assert "cluster down could not be read (live)" in result.stderr


def test_the_line_counts_clusters_and_brokers():
    from kadmin.fleet.report import unread_line

    assert unread_line([]) is None
    rows = [("a", None, "a.json", "x"), ("a", None, "a.log-dirs.json", "y"), ("b", 1, "live", "z"),
            ("b", 2, "live", "z"), ("c", 1, "live", "z")]
    assert unread_line(rows) == (
        "the report is incomplete: 1 cluster and 3 brokers could not be read (named above, and in the unreachable "
        "report)"
    )


@pytest.mark.parametrize("engine", [(), ("--spark",)])
@pytest.mark.parametrize("where, says", [("in", "is the --from directory"), ("in/", "is the --from directory"),
                                         ("link", "is the --from directory"), ("in/out", "is inside the --from"),
                                         ("link/a/b", "is inside the --from")])
def test_a_report_dir_in_the_from_directory_is_refused_before_any_work(tmp_path, monkeypatch, engine, where, says):
    """Its report files would sit among the cluster results: the next run over DIR would read
    them as clusters (8 'could not be read'). Refused up front, exit 2; nothing is written."""
    _no_engine(monkeypatch)
    src = fx.log_dirs_fleet(tmp_path / "in")
    (tmp_path / "link").symlink_to(src)
    before = sorted(p.name for p in src.iterdir())
    result = invoke(*engine, "--from", str(src), "--report-dir", str(tmp_path / where))
    assert isinstance(result.exception, UsageError) and result.exception.exit_code == 2, result.exception
    assert says in str(result.exception) and "(nothing was done)" in str(result.exception)
    assert sorted(p.name for p in src.iterdir()) == before


def test_a_report_dir_beside_the_from_directory_is_fine(tmp_path):
    src = fx.log_dirs_fleet(tmp_path / "in")
    result = invoke("--from", str(src), "--report-dir", str(tmp_path / "in-reports"), "-o", "json")
    assert result.exit_code == 1 and (tmp_path / "in-reports" / "fleet-report.json").exists()  # 1: broken.json


def test_top_help_gives_both_meanings_and_defaults():
    """--top is per directory (default 3) for one cluster, per cluster (default 10) in fleet
    reports (docs/fleet.md): the help said only the first."""
    from kadmin.commands.root import cli

    result = CliRunner().invoke(cli, ["log-dirs", "describe", "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    line = " ".join(next(part for part in result.output.split("\n  --") if part.startswith("top ")).split())
    assert "per directory [default: 3]" in line and "fleet reports, per cluster [default: 10]" in line, line


# A partial or broken install (py4j gone, a binary module that fails to load), as the real process
# meets it: a sitecustomize blocks the module before kadmin runs.
BROKEN_INSTALLS = {
    'sys.modules["py4j"] = None': "--spark needs py4j, which is not installed",
    'sys.modules["py4j.java_collections"] = None': "--spark needs py4j, which is installed but cannot be imported",
    'sys.modules["pyarrow.lib"] = None': "--spark needs pyarrow, which is installed but cannot be imported",
    'sys.modules["pandas"] = None': "--spark needs pandas, which is not installed",
}


@pytest.mark.parametrize("block, says", BROKEN_INSTALLS.items())
def test_a_broken_spark_install_is_bad_usage_naming_what_to_install(block, says, tmp_path):
    import os
    import subprocess
    import sys

    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(f"import sys\n{block}\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
    fleet = fx.log_dirs_fleet(tmp_path / "in")
    out = subprocess.run([sys.executable, "-m", "kadmin", "log-dirs", "describe", "--spark", "--from", str(fleet)],
                         capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 2, out.stderr
    [line] = out.stderr.splitlines()  # one line: no traceback, not "a bug in kadmin"
    assert line.startswith(f"kadmin: error: {says}") and "pip install" in line and "'kadmin[spark]'" in line, line
    assert out.stdout == ""
