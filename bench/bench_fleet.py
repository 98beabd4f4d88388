"""Fleet report figures: a synthetic fleet of `log-dirs describe --output json` files
(clusters x 50 brokers x 4 directories x 500 replicas), the log-dirs reports on Spark
local[2], at 2 million and 20 million replica rows; plain Python at 2 million for comparison.

Spark runs twice per round: "cold" (no columnar copies: every JSON file parsed, and the copies
written) and "warm" (the copies the cold run left in DIR/.kadmin-cache). Rounds interleave the
engines; each figure is the median over ``--repeat`` rounds, with the load average (1 min)
seen at the start of each run. Targets (issue 16): >= 500,000 rows/s at 20 M rows on
local[2]; Spark no slower than plain Python from 2 M rows up.

Each measurement runs in its own process with a time limit (default 10 minutes); one that
does not finish is reported as such, not guessed.

Run: python bench/bench_fleet.py [--sizes 2,20] [--repeat 1] [--limit 600] [--dir /tmp/kadmin-bench-fleet]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
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
    if engine.startswith("spark"):
        from kadmin.fleet.arrow import CACHE_DIR
        from kadmin.fleet.spark import spark_session

        if engine == "spark-cold":
            shutil.rmtree(Path(directory) / CACHE_DIR, ignore_errors=True)

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
    out["rows"] = sum((r["replicas"] or 0) + (r["future_replicas"] or 0) for r in usage.records())
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


ENGINES = {"local": "plain Python", "spark-cold": "Spark local[2], cold", "spark-warm": "Spark local[2], warm"}
RATE_TARGET = 500_000


def figures(sizes: tuple[int, ...] = (2, 20), limit: float = 600.0,
            base: Path = Path("/tmp/kadmin-bench-fleet"), repeat: int = 1) -> list[Figure]:
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
        engines = (["local"] if millions <= 2 else []) + ["spark-cold", "spark-warm"]
        runs: dict[str, list[dict]] = {e: [] for e in engines}
        timed_out = set()
        for _ in range(repeat):
            for engine in engines:
                if engine in timed_out:
                    continue
                load = os.getloadavg()[0]
                result = run_child(engine, directory, limit)
                if result is None:
                    timed_out.add(engine)
                    continue
                assert result["rows"] == rows, (result["rows"], rows)
                runs[engine].append(dict(result, load=load))
                print(f"{label}: {engine} {result['report']:.1f} s (load {load:.1f})", file=sys.stderr, flush=True)
        medians = {e: statistics.median(r["report"] for r in rs) for e, rs in runs.items() if rs}
        for engine in engines:
            name = ENGINES[engine]
            if engine in timed_out:
                out.append(Figure(name, f"{label}: did not finish within {limit:.0f} s", limit, "s", "", False))
            if not runs[engine]:
                continue
            loads = ", ".join(f"{r['load']:.1f}" for r in runs[engine])
            n = len(runs[engine])
            what = f"{label}: report time ({f'median of {n}, ' if n > 1 else ''}load {loads})"
            starts = [r["start"] for r in runs[engine] if "start" in r]
            if starts:
                out.append(Figure(name, f"{label}: session start", statistics.median(starts), "s"))
            if engine.startswith("spark") and "local" in medians:
                out.append(Figure(name, what, medians[engine], "s", f"<= plain Python ({medians['local']:.1f} s)",
                                  medians[engine] <= medians["local"]))
            else:
                out.append(Figure(name, what, medians[engine], "s"))
            rate = rows / medians[engine]
            if engine.startswith("spark") and millions >= 20:
                out.append(Figure(name, f"{label}: rows per second", rate, "rows/s", f">= {RATE_TARGET:,}",
                                  rate >= RATE_TARGET))
            else:
                out.append(Figure(name, f"{label}: rows per second", rate, "rows/s"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="2,20", help="millions of replica rows, comma-separated")
    parser.add_argument("--limit", type=float, default=600.0, help="seconds allowed per measurement")
    parser.add_argument("--repeat", type=int, default=1, help="interleaved rounds; figures are medians")
    parser.add_argument("--dir", default="/tmp/kadmin-bench-fleet")
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(*args.child)))
        return
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    sizes = [int(s) for s in args.sizes.split(",")]
    print_figures("Fleet reports (log-dirs) on a synthetic fleet", figures(sizes, args.limit, Path(args.dir), args.repeat))


if __name__ == "__main__":
    main()
