"""``--report-dir DIR``: each report as Parquet and JSON, the whole run as one JSON document
(schemas/fleet-report.json), and a PNG of directory usage per broker.

Reports are aggregates (at most one row per directory), small enough to write from the
driver with pyarrow, so each report is one Parquet file whichever engine computed it.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kadmin.errors import KadminError, UsageError
from kadmin.fleet.report import Report
from kadmin.fleet.tables import REPORTS

FORMAT_VERSION = 1
CHART = "dir-usage.png"
CHART_CLUSTERS = 8  # the most skewed clusters get a panel each
DOCUMENT = "fleet-report.json"


def report_files(kind: str) -> list[str]:
    """The names a ``kind`` run may write in ``--report-dir`` (the chart only when there is
    usage to draw)."""
    names = [f"{spec.name}{ext}" for spec in REPORTS[kind] for ext in (".parquet", ".json")]
    return names + [DOCUMENT] + ([CHART] if kind == "log-dirs" else [])


def check_report_dir(directory: str | Path, kind: str) -> None:
    """UsageError unless the run can write its reports in ``directory``: checked before any work
    (a Spark job is not run to find out). The directory need not exist yet: its nearest existing
    parent must then be a directory this process can create it in."""
    d = Path(directory)
    if d.exists() or d.is_symlink():
        if not d.is_dir():
            raise UsageError(f"--report-dir {directory}: not a directory (nothing was done)")
        if not os.access(d, os.W_OK | os.X_OK):
            raise UsageError(f"--report-dir {directory}: cannot write there: permission denied (nothing was done)")
        for name in report_files(kind):
            target = d / name
            if (target.exists() or target.is_symlink()) and not target.is_file():
                raise UsageError(
                    f"--report-dir {directory}: {name} is in the way: it is not a file, and the report is written "
                    "under that name (nothing was done)"
                )
        return
    parent = d.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise UsageError(f"--report-dir {directory}: {parent} is not a directory (nothing was done)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(
            f"--report-dir {directory}: cannot create it in {parent}: permission denied (nothing was done)"
        )


def document(kind: str, engine: str, reports: Sequence[Report]) -> dict[str, Any]:
    """The run as one JSON-ready document (schemas/fleet-report.json)."""
    return {
        "version": FORMAT_VERSION,
        "kind": kind,
        "engine": engine,
        "reports": [
            {
                "name": r.name,
                "title": r.spec.title,
                "columns": [{"name": n, "type": ty} for n, ty in r.spec.columns],
                "rows": [{k: _json_value(v) for k, v in rec.items()} for rec in r.records()],
            }
            for r in reports
        ],
    }


def _json_value(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _arrow_type(kind: str):
    import pyarrow as pa

    return {
        "string": pa.string(),
        "int": pa.int32(),
        "long": pa.int64(),
        "double": pa.float64(),
        "boolean": pa.bool_(),
        "array<int>": pa.list_(pa.int32()),
    }[kind]


def write_parquet(report: Report, path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([(n, _arrow_type(ty)) for n, ty in report.spec.columns])
    columns = list(zip(*report.rows)) if report.rows else [() for _ in report.spec.columns]
    table = pa.Table.from_arrays([pa.array(list(c), type=f.type) for c, f in zip(columns, schema)], schema=schema)
    pq.write_table(table, path)


def write_reports(directory: str | Path, kind: str, engine: str, reports: Sequence[Report]) -> list[Path]:
    """Write every file; returns the paths written. KadminError (one line) when the directory
    cannot take them after all (a disk full, a permission changed since ``check_report_dir``)."""
    try:
        return _write_reports(Path(directory), kind, engine, reports)
    except OSError as e:
        where = f" {e.filename}" if e.filename else ""
        raise KadminError(f"--report-dir {directory}: cannot write{where}: {e.strerror or e}") from None


def _write_reports(d: Path, kind: str, engine: str, reports: Sequence[Report]) -> list[Path]:
    d.mkdir(parents=True, exist_ok=True)
    written = []
    doc = document(kind, engine, reports)
    for r, part in zip(reports, doc["reports"]):
        write_parquet(r, d / f"{r.name}.parquet")
        (d / f"{r.name}.json").write_text(json.dumps(part["rows"], indent=1) + "\n", "utf-8")
        written += [d / f"{r.name}.parquet", d / f"{r.name}.json"]
    (d / DOCUMENT).write_text(json.dumps(doc, indent=1) + "\n", "utf-8")
    written.append(d / DOCUMENT)
    by_name = {r.name: r for r in reports}
    if (
        "dir_usage" in by_name
        and "cluster_usage" in by_name
        and write_chart(by_name["dir_usage"], by_name["cluster_usage"], d / CHART)
    ):
        written.append(d / CHART)
    remove_stale(d, {p.name for p in written})
    return written


def remove_stale(d: Path, written: set[str]) -> list[str]:
    """Remove the files an earlier run left in ``d`` under a name kadmin's reports write (of any
    command) that this run did not write: a stale chart, another command's reports. Only those
    names, and only regular files: nothing else in the directory is touched. Returns the names
    removed."""
    removed = []
    for name in sorted({n for kind in REPORTS for n in report_files(kind)} - written):
        target = d / name
        if target.is_file() and not target.is_symlink():
            target.unlink()
            removed.append(name)
    return removed


def write_chart(dir_usage: Report, cluster_usage: Report, path: Path) -> bool:
    """Directory usage per broker: one panel per cluster (the most skewed first), a dot per
    directory and a bar from its broker's emptiest to fullest directory. False if no data."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    clusters = [r["cluster"] for r in cluster_usage.records() if r["used_fraction"] is not None][:CHART_CLUSTERS]
    if not clusters:
        return False
    points: dict[str, dict[int, list[float]]] = {c: {} for c in clusters}
    for r in dir_usage.records():
        if r["cluster"] in points and r["used_fraction"] is not None:
            points[r["cluster"]].setdefault(r["broker"], []).append(r["used_fraction"] * 100)
    fig, axes = plt.subplots(len(clusters), 1, figsize=(10, 2.4 * len(clusters)), squeeze=False)
    for ax, cluster in zip(axes[:, 0], clusters):
        brokers = sorted(points[cluster])
        for x, b in enumerate(brokers):
            values = points[cluster][b]
            ax.vlines(x, min(values), max(values), color="tab:gray", linewidth=3, alpha=0.5)
            ax.scatter([x] * len(values), values, s=12, color="tab:blue", zorder=3)
        ax.set_xticks(range(len(brokers)))
        ax.set_xticklabels([str(b) for b in brokers], fontsize=6 if len(brokers) > 20 else 8)
        ax.set_ylim(0, 100)
        ax.set_ylabel("used %")
        ax.set_title(f"{cluster}: directory usage per broker", fontsize=9, loc="left")
        ax.grid(axis="y", alpha=0.3)
    axes[-1, 0].set_xlabel("broker")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True
