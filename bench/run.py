"""`make bench`: every benchmark in bench/, one table each.

A module exposing ``figures() -> list[Figure]`` is imported and its figures printed in one
table; any other ``bench_*.py`` is run as a script and prints its own table.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")

from bench.table import print_figures  # noqa: E402


def main(argv: list[str]) -> int:
    only = set(argv)
    failed = []
    for path in sorted((ROOT / "bench").glob("bench_*.py")):
        name = path.stem
        if only and name not in only and name.removeprefix("bench_") not in only:
            continue
        mod = importlib.import_module(f"bench.{name}")
        try:
            if hasattr(mod, "figures"):
                print_figures(name.removeprefix("bench_"), mod.figures())
            else:
                subprocess.run([sys.executable, str(path)], check=True, cwd=ROOT)
        except Exception as e:  # noqa: BLE001 - report and go on with the other benchmarks
            failed.append(f"{name}: {type(e).__name__}: {e}")
    for f in failed:
        print(f"benchmark failed: {f}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
