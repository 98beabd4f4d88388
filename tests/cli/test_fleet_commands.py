"""--spark / --from / --fleet through the real reporting commands."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kadmin.commands.root import cli


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def saved_fleet(tmp_path, sandbox_factory):
    """Two clusters' earlier `--output json` results, one file per cluster, as an operator saves them."""
    out = tmp_path / "fleet"
    out.mkdir()
    for name, brokers in (("east", 2), ("west", 3)):
        sb = sandbox_factory(brokers=brokers, log_dirs=2, manual_clock=True)
        sb.create_topic("t", partitions=4, replication_factor=2, size_bytes=2**20)
        result = run("log-dirs", "describe", "-b", sb.bootstrap, "-o", "json")
        assert result.exit_code == 0, result.output
        (out / f"{name}.json").write_text(result.stdout)
    return out


def _report(doc, name):
    return next(r for r in doc["reports"] if r["name"] == name)


def test_log_dirs_describe_from_saved_results(saved_fleet):
    from jsonschema import validate

    from kadmin.schemas import load

    result = run("log-dirs", "describe", "--from", str(saved_fleet), "-o", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    validate(doc, load("fleet-report"))
    usage = {row["cluster"]: row for row in _report(doc, "cluster_usage")["rows"]}
    assert set(usage) == {"east", "west"}
    assert (usage["east"]["brokers"], usage["west"]["brokers"]) == (2, 3)
    assert usage["east"]["replicas"] == usage["west"]["replicas"] == 8  # 4 partitions x RF 2 each

    table = run("log-dirs", "describe", "--from", str(saved_fleet))
    assert table.exit_code == 0 and "east" in table.stdout and "west" in table.stdout


def test_fleet_and_single_cluster_flags_do_not_mix(saved_fleet):
    result = run("log-dirs", "describe", "--from", str(saved_fleet), "--bootstrap-server", "127.0.0.1:9")
    assert result.exit_code == 2 and "--bootstrap-server cannot be combined" in result.stderr
    result = run("reassign", "list", "--spark")
    assert result.exit_code == 2  # --spark alone names no fleet


@pytest.mark.spark
def test_the_same_numbers_on_spark(saved_fleet):
    pytest.importorskip("pyspark")
    plain = json.loads(run("log-dirs", "describe", "--from", str(saved_fleet), "-o", "json").stdout)
    spark = run("log-dirs", "describe", "--from", str(saved_fleet), "--spark", "--spark-master", "local[2]",
                "-o", "json")
    assert spark.exit_code == 0, spark.output
    spark = json.loads(spark.stdout)
    assert spark["engine"] != plain["engine"]
    for name in ("cluster_usage", "broker_usage", "dir_usage"):
        assert _report(spark, name)["rows"] == _report(plain, name)["rows"]


@pytest.mark.parametrize(
    "args",
    [
        ("--spark", "--spark-master", "local[0]"),
        ("--report-dir", "{tmp}/afile/out"),
        ("--report-dir", "{tmp}/taken"),
    ],
)
def test_unusable_fleet_settings_are_usage_errors_not_bugs(tmp_path, args):
    """Exit 2 with one line naming the flag; never "unexpected ... (a bug in kadmin)"."""
    from tests.fleet import fixtures as fx

    (tmp_path / "afile").write_text("x")
    (tmp_path / "taken" / "cluster_usage.json").mkdir(parents=True)
    src = fx.log_dirs_fleet(tmp_path / "in")
    result = run("log-dirs", "describe", "--from", str(src), *(a.format(tmp=tmp_path) for a in args))
    assert result.exit_code == 2, result.output
    assert "unexpected" not in result.stderr and result.stderr.count("\n") == 1, result.stderr


@pytest.mark.parametrize("flags, named", [
    (("--broker-list", "0"), "--broker-list"),
    (("--topic-list", "orders"), "--topic-list"),
    (("--log-dirs", "/d1"), "--log-dirs"),
    (("--top", "2", "--broker-list", "0", "--log-dirs", "/d1"), "--broker-list, --log-dirs"),
    (("--timeout", "5s"), "--timeout"),
    (("--top", "0"), "'--top': 0 is not in the range x>=1"),  # the option's range, as single-cluster
])
def test_single_cluster_flags_are_refused_in_fleet_reports_not_ignored(tmp_path, flags, named):
    from tests.fleet import fixtures as fx

    result = run("log-dirs", "describe", "--from", str(fx.log_dirs_fleet(tmp_path)), *flags, "-o", "json")
    assert result.exit_code == 2, result.output
    assert named in result.stderr and not result.stdout


def test_top_is_the_number_of_largest_replicas_per_cluster(tmp_path):
    from tests.fleet import fixtures as fx

    src = str(fx.log_dirs_fleet(tmp_path))
    for args, per_cluster in (((), {"east": 6, "west": 1}), (("--top", "2"), {"east": 2, "west": 1})):
        result = run("log-dirs", "describe", "--from", src, *args, "-o", "json")
        assert result.exit_code == 1, result.output  # broken.json and west's broker 7: reported, then exit 1
        rows = _report(json.loads(result.stdout), "largest_partitions")["rows"]
        assert {c: sum(r["cluster"] == c for r in rows) for c in per_cluster} == per_cluster


@pytest.mark.spark
def test_a_spark_run_leaves_stderr_to_kadmin(tmp_path):
    """`--spark` prints on stderr what the same report prints without it, and nothing of Spark's
    (its log4j profile and default level, NativeCodeLoader's warning, ...)."""
    pytest.importorskip("pyspark")
    from tests.fleet import fixtures as fx
    from tests.fleet.process import kadmin_lines, kadmin_process

    report = ("log-dirs", "describe", "--from", str(fx.log_dirs_fleet(tmp_path)), "-o", "json")
    code, plain_out, plain_err = kadmin_process(*report)
    assert code == 1 and len(plain_err.splitlines()) == 3, plain_err  # broken.json and west's broker 7, then the error
    code, out, err = kadmin_process(*report, "--spark", "--spark-master", "local[2]")
    assert code == 1, err
    assert kadmin_lines(err) == plain_err.splitlines()
    assert json.loads(out)["reports"] == json.loads(plain_out)["reports"]


@pytest.mark.spark
def test_debug_shows_sparks_own_log_lines(tmp_path):
    pytest.importorskip("pyspark")
    from tests.fleet import fixtures as fx
    from tests.fleet.process import kadmin_process

    code, _, err = kadmin_process("log-dirs", "describe", "--from", str(fx.log_dirs_fleet(tmp_path)), "-o", "json",
                                  "--spark", "--spark-master", "local[2]", debug=True)
    assert code == 1 and 'Setting default log level to "WARN".' in err.splitlines(), err[-2000:]


def test_a_saved_throttle_result_that_could_not_read_a_down_broker_is_incomplete(tmp_path):
    """A throttle show result saved while broker 1 was down (over --bootstrap-server its rates
    could not be read): the fleet report names the broker and fails, as live collection does."""
    from kadmin.model import DOWN_ERROR
    from tests.fleet import fixtures as fx

    src = fx.write(tmp_path / "fleet", {"south.json": dict(fx.THROTTLE_SOUTH, down_brokers=[1], unreadable_brokers=[1])})
    result = CliRunner().invoke(cli, ["throttle", "show", "--from", str(src), "-o", "json"])
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines() == [
        f"kadmin: warning: cluster south broker 1 could not be read (south.json): {DOWN_ERROR}",
        "kadmin: error: the report is incomplete: 1 broker could not be read (named above, and in the unreachable "
        "report)",
    ]
    unreachable = _report(json.loads(result.stdout), "unreachable")["rows"]
    assert unreachable == [{"cluster": "south", "broker": 1, "source": "south.json", "error": DOWN_ERROR}]
