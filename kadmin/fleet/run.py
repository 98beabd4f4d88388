"""One fleet report run: the request (flags as values), its validation, and the engine choice.

``--spark`` runs on Spark (``spark.py``); without it, the same reports come from plain Python
(``local.py``) over the same rows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kadmin.errors import UsageError
from kadmin.fleet.report import Report
from kadmin.fleet.tables import KINDS

if TYPE_CHECKING:
    from kadmin.fleet.files import ResultFile

MASTER_FORMS = "local, local[N], local[*] or spark://HOST:PORT"
_LOCAL_MASTER = re.compile(r"local(\[(\*|[1-9][0-9]*)\])?")
_HOST_PORT = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):([0-9]{1,5})")


def master_addresses(master: str) -> list[tuple[str, int]] | None:
    """The (host, port) pairs of a ``spark://`` master URL (several for standby masters:
    ``spark://a:7077,b:7077``); [] for a local master; None when the URL is none of the forms
    kadmin accepts (``MASTER_FORMS``)."""
    if _LOCAL_MASTER.fullmatch(master):
        return []
    if not master.startswith("spark://"):
        return None
    out = []
    for part in master[len("spark://") :].split(","):
        m = _HOST_PORT.fullmatch(part)
        if m is None or not 0 < int(m.group(2)) < 65536:
            return None
        out.append((m.group(1).strip("[]"), int(m.group(2))))
    return out


@dataclass(frozen=True)
class FleetRequest:
    kind: str  # "log-dirs" | "reassign" | "throttle"
    spark: bool = False
    fleet: str | None = None  # inventory file
    from_dir: str | None = None
    spark_master: str | None = None
    report_dir: str | None = None
    top: int = 10
    spark_conf: Mapping[str, str] = field(default_factory=dict)
    cache: bool = True  # Spark: columnar copies of --from log-dirs files in DIR/.kadmin-cache
    spark_logs: bool = False  # Spark's own log lines on stderr (--debug); off otherwise

    @property
    def engine(self) -> str:
        return "spark" if self.spark else "local"

    def validate(self) -> None:
        """Cross-flag rules; UsageError names the flags. A ``--report-dir`` that is the ``--from``
        directory or lies inside it is refused: its report files (``<report>.json``,
        ``fleet-report.json``) would be read as cluster results by the next run over DIR."""
        if self.kind not in KINDS:
            raise UsageError(f"fleet reports exist for {', '.join(KINDS)}, not {self.kind!r}")
        if self.fleet and self.from_dir:
            raise UsageError("--fleet and --from are mutually exclusive: give one (nothing was done)")
        if not self.fleet and not self.from_dir:
            raise UsageError(
                "a fleet report needs --fleet INVENTORY.toml or --from DIR",
                hint="--from DIR reads earlier `--output json` results, one <cluster>.json per cluster",
            )
        if self.spark_master and not self.spark:
            raise UsageError("--spark-master needs --spark")
        if self.spark_master is not None and master_addresses(self.spark_master) is None:
            raise UsageError(
                f"--spark-master {self.spark_master!r}: not a Spark master kadmin can use: give {MASTER_FORMS}"
            )
        if self.top < 1:
            raise UsageError(f"--top must be at least 1, got {self.top}")
        if self.report_dir is not None and self.from_dir is not None:
            inputs, reports = (Path(d).expanduser().resolve() for d in (self.from_dir, self.report_dir))
            if reports == inputs:
                raise UsageError(
                    f"--report-dir {self.report_dir} is the --from directory: the next run over it would read "
                    "kadmin's report files as cluster results: give another directory (nothing was done)"
                )
            if inputs in reports.parents:
                raise UsageError(
                    f"--report-dir {self.report_dir} is inside the --from directory {self.from_dir}: keep the reports "
                    "out of the cluster results: give a directory outside it (nothing was done)"
                )


def build_reports(request: FleetRequest, opener: Any = None) -> list[Report]:
    """Load or collect the rows and compute the reports with the requested engine."""
    request.validate()
    if request.report_dir is not None:
        from kadmin.fleet.output import check_report_dir

        check_report_dir(request.report_dir, request.kind)  # before any work: a run must be able to write
    entries: list[dict[str, Any]] | None = None
    files: list[ResultFile] = []
    if request.fleet:
        from kadmin.fleet.inventory import load_inventory

        entries = load_inventory(request.fleet)
    else:
        from kadmin.fleet.files import discover

        assert request.from_dir is not None  # validate(): --fleet or --from
        files = discover(request.from_dir, request.kind)

    if not request.spark:
        from kadmin.fleet import local

        if entries is not None:
            from kadmin.fleet.collect import collect_local

            rows = collect_local(entries, request.kind, opener)
        else:
            from kadmin.fleet.files import check_duplicates, check_overlaps, claims, duplicates, read_rows
            from kadmin.fleet.rows import merge_rows

            parts = [(f, read_rows(f)) for f in files]
            check_duplicates(request.from_dir or "", ((f.name, d) for f, part in parts for d in duplicates(part)))
            check_overlaps(request.from_dir or "", (c for f, part in parts for c in claims(f, part)))
            rows = merge_rows(part for _, part in parts)
        return local.reports(request.kind, rows, request.top)

    from kadmin.fleet import spark as engine

    engine.require_pyspark()
    master = request.spark_master or engine.DEFAULT_MASTER
    with engine.spark_session(master, request.spark_conf, spark_logs=request.spark_logs) as session:
        if entries is not None:
            frames = engine.frames_from_fleet(session, entries, request.kind, opener)
        else:
            if request.kind == "log-dirs":
                per_file = engine.log_dirs_reports_from_files(session, files, request.top, request.cache)
                if per_file is not None:
                    return per_file  # else a cluster spans files: the general path below
            frames = engine.frames_from_files(session, files, request.cache, request.from_dir)
        return engine.reports(request.kind, frames, request.top)
