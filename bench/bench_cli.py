"""CLI figures: `kadmin --help` start-up, and `log-dirs describe` on a 3-broker and a 50-broker
sandbox (wall time and peak memory of the real process; concurrent vs one-by-one queries).

Run: python bench/bench_cli.py   (or `make bench` for every figure)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.table import Figure, print_figures  # noqa: E402


def _kadmin(*args: str) -> list[str]:
    return [sys.executable, "-m", "kadmin", *args]


def timed(cmd: list[str], runs: int) -> tuple[float, float]:
    """Median wall seconds and max peak RSS (MiB) of ``cmd`` over ``runs`` runs."""
    walls, rss = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        walls.append(time.perf_counter() - t0)
        rss.append(usage.ru_maxrss / 1024)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.read().decode()[-500:]}")
    return statistics.median(walls), max(rss)


def figures() -> list[Figure]:
    from kadmin.sandbox import Sandbox

    out: list[Figure] = []
    wall, _ = timed(_kadmin("--help"), 15)
    out.append(Figure("start-up", "kadmin --help (median of 15)", wall * 1000, "ms", "< 150 ms", wall < 0.150))

    with Sandbox(brokers=3, log_dirs=2) as sb:
        sb.populate_demo()
        cmd = _kadmin("log-dirs", "describe", "--bootstrap-server", sb.bootstrap, "-o", "json")
        wall, rss = timed(cmd, 7)
        out.append(Figure("log-dirs describe", "3 brokers: wall (median of 7)", wall, "s", "< 0.3 s", wall < 0.3))
        out.append(Figure("log-dirs describe", "3 brokers: peak RSS", rss, "MiB", "< 60 MiB", rss < 60))

    with Sandbox(brokers=50, log_dirs=4) as sb:
        sb.create_topic("bench", partitions=20_000, replication_factor=2, size_bytes=1_000_000)
        cmd = _kadmin("log-dirs", "describe", "--bootstrap-server", sb.bootstrap, "-o", "json")
        wall, rss = timed(cmd, 3)
        out.append(Figure("log-dirs describe", "50 brokers x 4 dirs, 40k replicas: wall", wall, "s", "< 2 s", wall < 2))
        out.append(Figure("log-dirs describe", "50 brokers: peak RSS", rss, "MiB", "", None))
        conc, seq = _fan_out_ratio(sb.bootstrap)
        out.append(Figure("log-dirs describe", "50 brokers: DescribeLogDirs concurrent", conc, "s", "", None))
        out.append(Figure("log-dirs describe", "50 brokers: one by one", seq, "s", "",  None))
        out.append(Figure("log-dirs describe", "one-by-one / concurrent", seq / conc, "x", "> 1", seq > conc))
    return out


def _fan_out_ratio(bootstrap: str) -> tuple[float, float]:
    """Time the backend's concurrent fan-out against querying the brokers one at a time."""
    from kadmin.backends.admin import AdminBackend
    from kadmin.config import ConnectionSettings

    with AdminBackend(ConnectionSettings(bootstrap_servers=bootstrap), read_only=True) as backend:
        ids = sorted(backend.describe_brokers())
        backend.describe_log_dirs()  # connect to every broker first: compare queries, not connects
        t0 = time.perf_counter()
        backend.describe_log_dirs()
        conc = time.perf_counter() - t0
        t0 = time.perf_counter()
        for b in ids:
            backend.describe_log_dirs(brokers=[b])
        seq = time.perf_counter() - t0
    return conc, seq


if __name__ == "__main__":
    print_figures("CLI", figures())
