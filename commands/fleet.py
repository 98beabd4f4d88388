"""Fleet-wide reports: the option bundle the reporting commands share, and the one function
they call to run a report over many clusters.

A reporting command adds one decorator and one call::

    @fleet_options
    def describe(..., fleet, output, ...):
        if fleet.requested:
            return run_fleet_report("log-dirs", fleet, output=output)

``fleet`` is a ``FleetOptions`` value. Nothing heavy is imported here: pyspark, pyarrow and
matplotlib load only when a report runs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import click

FLEET_HELP = "Fleet reports (many clusters at once; see docs/fleet.md)"
TABLE_ROWS = 20  # rows per report printed as a table; --report-dir holds them all


@dataclass(frozen=True)
class FleetOptions:
    spark: bool
    fleet: str | None
    from_dir: str | None
    spark_master: str | None
    report_dir: str | None

    @property
    def requested(self) -> bool:
        """Any fleet flag was given: a fleet report was asked for (with or without Spark), and
        a flag without its companions is a usage error rather than silently ignored."""
        return bool(self.spark or self.fleet or self.from_dir or self.spark_master or self.report_dir)


def fleet_options(f: Callable) -> Callable:
    """--spark, --fleet FILE, --from DIR, --spark-master URL, --report-dir DIR -> ``fleet``."""

    @click.option("--spark", is_flag=True, help=f"{FLEET_HELP}: run on Spark (pip install 'kadmin[spark]').")
    @click.option(
        "--fleet",
        "fleet_file",
        metavar="INVENTORY.toml",
        type=click.Path(dir_okay=False),
        help=f"{FLEET_HELP}: the clusters to read live (schemas/fleet-inventory.json).",
    )
    @click.option(
        "--from",
        "from_dir",
        metavar="DIR",
        type=click.Path(file_okay=False),
        help=f"{FLEET_HELP}: earlier `--output json` results, one <cluster>.json per cluster.",
    )
    @click.option(
        "--spark-master",
        metavar="URL",
        help="Spark master for --spark (default local[*]; e.g. spark://127.0.0.1:7077).",
    )
    @click.option(
        "--report-dir",
        metavar="DIR",
        type=click.Path(file_okay=False),
        help=f"{FLEET_HELP}: write every report as Parquet and JSON, plus charts (PNG).",
    )
    @functools.wraps(f)
    def wrapper(*args, spark, fleet_file, from_dir, spark_master, report_dir, **kwargs):
        kwargs["fleet"] = FleetOptions(spark, fleet_file, from_dir, spark_master, report_dir)
        return f(*args, **kwargs)

    return wrapper


def run_fleet_report(
    kind: str, fleet: FleetOptions, output: str = "table", top: int | None = None, opener=None, cluster=None
) -> None:
    """Run the ``kind`` reports ("log-dirs", "reassign", "throttle") over the fleet and render
    them: tables (or the JSON document with ``--output json``) on stdout, files with
    ``--report-dir``. Raises kadmin errors (usage, input) like any command; when clusters or
    brokers could not be read, after the report: each is warned about, then ClusterError
    (exit 1) counts them. ``cluster``: the
    command's own connection flags, refused here (the fleet names its clusters itself)."""
    from kadmin.errors import UsageError
    from kadmin.fleet.run import FleetRequest, build_reports

    given = [
        flag
        for flag, value in (
            ("--bootstrap-server", getattr(cluster, "bootstrap_server", None)),
            ("--zookeeper", getattr(cluster, "zookeeper", None)),
            ("--command-config", getattr(cluster, "command_config", None)),
            ("--cluster", getattr(cluster, "cluster", None)),
            ("--timeout", getattr(cluster, "timeout", None)),
        )
        if value
    ]
    if given:
        raise UsageError(
            f"{', '.join(given)} cannot be combined with fleet reports: --fleet names each "
            "cluster's connection (or profile) and timeout, --from reads saved results"
        )
    explicit = _explicit_flags()
    if "top" in explicit and top is None:
        top = explicit.pop("top")[1]  # the fleet's largest replicas per cluster
    if explicit:
        names = ", ".join(flag for flag, _ in explicit.values())
        raise UsageError(
            f"{names} cannot be combined with fleet reports: they report on every broker, directory and topic "
            "(nothing was done)"
        )
    if output not in ("table", "json"):
        raise UsageError(f"fleet reports print as table or json, not {output!r}")
    request = FleetRequest(
        kind=kind,
        spark=fleet.spark,
        fleet=fleet.fleet,
        from_dir=fleet.from_dir,
        spark_master=fleet.spark_master,
        report_dir=fleet.report_dir,
        top=10 if top is None else top,
        spark_logs=_debug(),
    )
    reports = build_reports(request, opener=opener)

    from kadmin.commands import render
    from kadmin.fleet.output import document, write_reports

    if fleet.report_dir:
        written = write_reports(fleet.report_dir, kind, request.engine, reports)
        click.echo(f"wrote {len(written)} files to {fleet.report_dir}", err=True)  # a path, not markup
    if output == "json":
        render.print_json(document(kind, request.engine, reports))
    else:
        console = render.stdout()
        for report in reports:
            if report.rows or report.name not in ("unreachable", "reassignment_waiting"):  # those only when any
                console.print(report_table(report))
    from kadmin.fleet.report import unread_line, waiting_lines

    for line in waiting_lines(next((r.rows for r in reports if r.name == "reassignment_waiting"), ())):
        render.warn(line)  # stderr, in both modes
    unreachable = next((r.rows for r in reports if r.name == "unreachable"), ())
    for row in unreachable:  # stderr, in both modes
        where = f"cluster {row[0]}" + (f" broker {row[1]}" if row[1] is not None else "")
        render.warn(f"{where} could not be read ({row[2]}): {row[3]}")

    incomplete = unread_line(unreachable)
    if incomplete:
        # Printed (and written) without them; exit 1, as a single-cluster report lacking a
        # broker does, so a script never takes a partial report for the whole fleet.
        from kadmin.errors import ClusterError

        raise ClusterError(incomplete)


# Parameters a fleet report reads itself: its own, the connection (refused above by value) and --output.
_FLEET_PARAMS = {"spark", "fleet_file", "from_dir", "spark_master", "report_dir", "output"}
_CLUSTER_PARAMS = {"bootstrap_server", "zookeeper", "command_config", "cluster_name", "timeout"}


def _debug() -> bool:
    """``kadmin --debug``: Spark's own log lines show on stderr too."""
    ctx = click.get_current_context(silent=True)
    obj = ctx.find_root().obj if ctx is not None else None
    return bool(isinstance(obj, dict) and obj.get("debug"))


def _explicit_flags() -> dict[str, tuple[str, Any]]:
    """The other options of the running command given on the command line (not left at their
    default): parameter name -> (flag, value). A fleet report honours ``--top`` and refuses the
    rest rather than ignoring them."""
    from click.core import ParameterSource

    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return {}
    out: dict[str, tuple[str, Any]] = {}
    for param in ctx.command.params:
        name = param.name
        if not name or not param.expose_value or name in _FLEET_PARAMS or name in _CLUSTER_PARAMS:
            continue
        if ctx.get_parameter_source(name) in (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP, None):
            continue
        flags = [o for o in param.opts if o.startswith("--")] or list(param.opts) or [name]
        out[name] = (max(flags, key=len), ctx.params.get(name))
    return out


def report_table(report, limit: int = TABLE_ROWS):
    """One report as a rich table: the first ``limit`` rows, sizes and fractions readable."""
    from rich.markup import escape
    from rich.table import Table

    from kadmin.units import format_size

    shown = report.rows[:limit]
    caption = f"{len(shown)} of {len(report.rows)} rows; --report-dir writes all" if len(report.rows) > limit else None
    table = Table(title=report.spec.title, caption=caption, header_style="bold")
    for name, kind in report.spec.columns:
        table.add_column(name.replace("_", " "), justify="right" if kind in ("int", "long", "double") else "left")
    for row in shown:
        cells = []
        for (name, kind), value in zip(report.spec.columns, row):
            if value is None:
                cells.append("-")
            elif kind == "double":
                cells.append(f"{value * 100:.1f}%")
            elif kind == "long" and name.endswith(("bytes", "size")):
                cells.append(format_size(value))
            elif kind == "array<int>":
                cells.append(",".join(str(v) for v in value))
            else:
                cells.append(escape(str(value)))  # names and errors are data, not markup
        table.add_row(*cells)
    if not shown:
        table.add_row(*(["(none)"] + [""] * (len(report.spec.columns) - 1)))
    return table
