"""The executors' Python daemon imports pyspark from the installed package when it is the
same version as Spark's zip (no recompiling of pyspark in every fresh executor), and leaves
the path alone otherwise."""

from __future__ import annotations

import zipfile

import pytest

from kadmin.fleet.spark_daemon import installed_first


def package(root, name, version):
    (root / name).mkdir(parents=True)
    (root / name / "__init__.py").write_text("")
    (root / name / "version.py").write_text(f"__version__ = {version!r}\n")
    return str(root)


def zipped(path, name, version):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"{name}/__init__.py", "")
        z.writestr(f"{name}/version.py", f"__version__ = {version!r}\n")
    return str(path)


def test_the_zips_go_behind_an_installed_copy_of_the_same_version(tmp_path):
    site = package(tmp_path / "site", "pyspark", "4.3.0")
    package(tmp_path / "site", "py4j", "0.10.9.9")
    spark_zip = zipped(tmp_path / "pyspark.zip", "pyspark", "4.3.0")
    py4j_zip = zipped(tmp_path / "py4j-0.10.9.9-src.zip", "py4j", "0.10.9.9")
    assert installed_first([spark_zip, py4j_zip, "/x", site]) == ["/x", site, spark_zip, py4j_zip]


def test_another_version_or_none_installed_leaves_the_path_as_spark_set_it(tmp_path):
    site = package(tmp_path / "site", "pyspark", "4.2.0")
    spark_zip = zipped(tmp_path / "pyspark.zip", "pyspark", "4.3.0")
    py4j_zip = zipped(tmp_path / "py4j-0.10.9.9-src.zip", "py4j", "0.10.9.9")
    assert installed_first([spark_zip, py4j_zip, site]) == [spark_zip, py4j_zip, site]


@pytest.mark.spark
def test_the_workers_import_the_installed_pyspark(spark):
    files = spark.sparkContext.parallelize(range(2), 2).map(lambda _: __import__("pyspark").__file__).collect()
    assert all(".zip" not in f for f in files), files
