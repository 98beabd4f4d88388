"""A fleet report on a standalone Spark master and worker (loopback), unchanged: the same
reports as plain Python, so a fleet too big for one machine runs on a Spark cluster."""

from __future__ import annotations

import shutil

import pytest

from kadmin.fleet.run import FleetRequest, build_reports
from tests.fleet.synthetic import write_fleet

pytestmark = pytest.mark.spark


def test_report_on_a_standalone_cluster(tmp_path):
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("java not installed")
    from tests.fleet.standalone import JVM_OPTS, StandaloneSpark

    fleet = tmp_path / "fleet"
    write_fleet(fleet, clusters=4, brokers=3, dirs=2, replicas=25)
    local = build_reports(FleetRequest("log-dirs", from_dir=str(fleet)))
    with StandaloneSpark(tmp_path / "spark") as cluster:
        request = FleetRequest(
            "log-dirs", spark=True, spark_master=cluster.url, from_dir=str(fleet),
            spark_conf={"spark.executor.memory": "512m", "spark.cores.max": "2", "spark.sql.shuffle.partitions": "2",
                        "spark.executor.extraJavaOptions": " ".join(JVM_OPTS),
                        "spark.driver.extraJavaOptions": " ".join(JVM_OPTS)},
        )
        on_cluster = build_reports(request)
        work = list((tmp_path / "spark" / "work").glob("app-*"))
    assert work, "the worker ran no application: the report did not use the cluster"
    assert [r.rows for r in on_cluster] == [r.rows for r in local]
