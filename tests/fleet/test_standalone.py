"""A fleet report on a standalone Spark master and worker (loopback), unchanged: the same
reports as plain Python, so a fleet too big for one machine runs on a Spark cluster."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.fleet.synthetic import write_fleet

pytestmark = pytest.mark.spark


def test_report_on_a_standalone_cluster(tmp_path):
    """The real command, `--spark-master spark://...`: the reports of plain Python, and on stderr
    kadmin's lines alone, as without --spark. The test's Spark settings (JVM options of
    tests/fleet/standalone.py) come from a spark-defaults.conf, as an operator's would."""
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("java not installed")
    from tests.fleet.process import kadmin_lines, kadmin_process
    from tests.fleet.standalone import JVM_OPTS, StandaloneSpark

    fleet = tmp_path / "fleet"
    write_fleet(fleet, clusters=5, brokers=3, dirs=2, replicas=25)  # the 5th: a broker did not answer
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "spark-defaults.conf").write_text(
        "".join(f"{key} {value}\n" for key, value in (
            ("spark.cores.max", "2"), ("spark.sql.shuffle.partitions", "2"),
            ("spark.executor.extraJavaOptions", " ".join(JVM_OPTS)),
            ("spark.driver.extraJavaOptions", " ".join(JVM_OPTS)),
        ))
    )
    report = ("log-dirs", "describe", "--from", str(fleet), "-o", "json")
    code, plain_out, plain_err = kadmin_process(*report)
    assert code == 1 and plain_err, plain_err  # the synthetic fleet has a broker that did not answer
    with StandaloneSpark(tmp_path / "spark") as cluster:
        code, out, err = kadmin_process(*report, "--spark", "--spark-master", cluster.url,
                                        env={"SPARK_CONF_DIR": str(conf)})
        work = list((tmp_path / "spark" / "work").glob("app-*"))
    assert code == 1, err
    assert work, "the worker ran no application: the report did not use the cluster"
    assert json.loads(out)["reports"] == json.loads(plain_out)["reports"]
    assert kadmin_lines(err) == plain_err.splitlines()
