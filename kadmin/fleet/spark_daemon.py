"""The Python daemon of the fleet's Spark executors (``spark.python.daemon.module``):
pyspark's own daemon, started after moving pyspark's zip files behind an installed copy of the
same version on ``sys.path``.

Spark puts ``pyspark.zip`` and py4j's zip first on its Python workers' path. Python compiles
modules imported from a zip every time (no cached bytecode): a fresh executor spent ~0.8 s of
CPU importing pyspark that way before its first task (docs/fleet.md, "Where the time goes").
When the same version is installed (``pip install 'kadmin[spark]'``), importing it from there
is the same code. Otherwise the path is left as Spark set it.

Run by Spark as ``python -m kadmin.fleet.spark_daemon``; it imports nothing else of kadmin.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
import zipfile

# zip file name prefix -> the module file that holds the package's version
ZIPS = {"pyspark": "pyspark/version.py", "py4j": "py4j/version.py"}


def _version_text(directory: str, relative: str) -> bytes | None:
    if directory.endswith(".zip"):
        try:
            with zipfile.ZipFile(directory) as z:
                return z.read(relative)
        except (OSError, KeyError, zipfile.BadZipFile):
            return None
    try:
        with open(os.path.join(directory, relative), "rb") as f:
            return f.read()
    except OSError:
        return None


def installed_first(path: list[str]) -> list[str]:
    """``path`` with each pyspark or py4j zip moved last when the rest of the path holds the same
    version of that package; unchanged otherwise."""
    path = list(path)
    for prefix, version_file in ZIPS.items():
        zips = [p for p in path if p.endswith(".zip") and os.path.basename(p).startswith(prefix)]
        if len(zips) != 1:
            continue
        rest = [p for p in path if p != zips[0]]
        spec = importlib.machinery.PathFinder.find_spec(prefix, rest)
        if spec is None or not spec.submodule_search_locations:
            continue
        installed = os.path.dirname(next(iter(spec.submodule_search_locations)))
        zipped = _version_text(zips[0], version_file)
        if zipped is not None and zipped == _version_text(installed, version_file):
            path = [*rest, zips[0]]
    return path


def main() -> None:
    sys.path[:] = installed_first(sys.path)
    from pyspark.daemon import manager

    manager()


if __name__ == "__main__":
    main()
