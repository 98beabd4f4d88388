"""One local[2] SparkSession for every Spark test of this directory (starting one costs
seconds); the fleet code reuses it because it asks for the same master."""

from __future__ import annotations

import pytest

MASTER = "local[2]"


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark")
    from pyspark import cloudpickle

    import tests.fleet.fakes

    cloudpickle.register_pickle_by_value(tests.fleet.fakes)  # executors need not import tests/
    from kadmin.fleet.spark import spark_session

    with spark_session(MASTER, {"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"}) as s:
        yield s
