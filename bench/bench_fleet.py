"""Fleet report figures: a synthetic fleet of `log-dirs describe --output json` files
(clusters x 50 brokers x 4 directories x 500 replicas), the log-dirs reports on Spark
local[2], at 2 million and 20 million replica rows; plain Python at 2 million for comparison.

Each measurement runs in its own process with a time limit (default 10 minutes); one that
does not finish is reported as such, not guessed.

Run: python bench/bench_fleet.py [--sizes 2,20] [--limit 600] [--dir /tmp/kadmin-bench-fleet]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.table import Figure, print_figures  # noqa: E402

BROKERS, DIRS, REPLICAS = 50, 4, 500
ROWS_PER_CLUSTER = BROKERS * DIRS * REPLICAS  # 100,000
SPARK_CONF = {"spark.driver.memory": "2g", "spark.sql.shuffle.partitions": "4"}


def generate(directory: Path, clusters: int) -> tuple[int, float, int]:
    """Write the fleet (reusing a complete earlier one); (rows, seconds, bytes)."""
    from tests.fleet.synthetic import write_fleet

    marker = directory / ".complete"
    shape = [clusters, BROKERS, DIRS, REPLICAS]
    done = json.loads(marker.read_text()) if marker.exists() else {}
    if done.get("shape") == shape:
        rows, seconds = done["rows"], float("nan")
    else:
        shutil.rmtree(directory, ignore_errors=True)
        t0 = time.perf_counter()
        rows = write_fleet(directory, clusters, BROKERS, DIRS, REPLICAS)
        seconds = time.perf_counter() - t0
        marker.write_text(json.dumps({"shape": shape, "rows": rows}))
    size = sum(p.stat().st_size for p in directory.glob("*.json"))
    return rows, seconds, size


def measure(engine: str, directory: str) -> dict:
    """In this process: the log-dirs reports over ``directory``; timings as a dict."""
    from kadmin.fleet.run import FleetRequest, build_reports

    out = {}
    if engine == "spark":
        from kadmin.fleet.spark import spark_session

        t0 = time.perf_counter()
        with spark_session("local[2]", SPARK_CONF):
            out["start"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            reports = build_reports(FleetRequest("log-dirs", spark=True, spark_master="local[2]", from_dir=directory,
                                                 spark_conf=SPARK_CONF))
            out["report"] = time.perf_counter() - t0
    else:
        t0 = time.perf_counter()
        reports = build_reports(FleetRequest("log-dirs", from_dir=directory))
        out["report"] = time.perf_counter() - t0
    usage = next(r for r in reports if r.name == "cluster_usage")
    out["rows"] = sum(r[12] + r[13] for r in usage.rows)
    return out


def run_child(engine: str, directory: Path, limit: float) -> dict | None:
    """``measure`` in a fresh process; None when it does not finish within ``limit`` seconds."""
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1")
    cmd = [sys.executable, __file__, "--child", engine, str(directory)]
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return None
    if proc.returncode != 0:
        raise RuntimeError(f"{engine} run failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def figures(sizes: tuple[int, ...] = (2, 20), limit: float = 600.0,
            base: Path = Path("/tmp/kadmin-bench-fleet")) -> list[Figure]:
    """Called by bench/run.py (`make bench`) with the defaults."""
    out: list[Figure] = []
    for millions in sizes:
        clusters = millions * 1_000_000 // ROWS_PER_CLUSTER
        directory = base / f"{millions}m"
        rows, gen_s, size = generate(directory, clusters)
        label = f"{rows / 1e6:g} M rows ({clusters} clusters x {BROKERS} x {DIRS} x {REPLICAS})"
        if gen_s == gen_s:  # not NaN: generated now
            out.append(Figure("generate", f"{label}: write JSON", gen_s, "s"))
        out.append(Figure("generate", f"{label}: on disk", size / 1e6, "MB"))
        engines = ["spark"] + (["local"] if millions <= 2 else [])
        for engine in engines:
            result = run_child(engine, directory, limit)
            name = "Spark local[2]" if engine == "spark" else "plain Python"
            if result is None:
                out.append(Figure(name, f"{label}: did not finish within {limit:.0f} s", limit, "s", "", False))
                continue
            assert result["rows"] == rows, (result["rows"], rows)
            if "start" in result:
                out.append(Figure(name, f"{label}: session start", result["start"], "s"))
            out.append(Figure(name, f"{label}: report time", result["report"], "s"))
            out.append(Figure(name, f"{label}: rows per second", rows / result["report"], "rows/s"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="2,20", help="millions of replica rows, comma-separated")
    parser.add_argument("--limit", type=float, default=600.0, help="seconds allowed per measurement")
    parser.add_argument("--dir", default="/tmp/kadmin-bench-fleet")
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(*args.child)))
        return
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    sizes = [int(s) for s in args.sizes.split(",")]
    print_figures("Fleet reports (log-dirs) on a synthetic fleet", figures(sizes, args.limit, Path(args.dir)))


if __name__ == "__main__":
    main()
