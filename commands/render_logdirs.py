"""The human view of log directories: one row per directory, with a usage bar.

On a narrow terminal the table drops the capacity and largest-partition columns rather than
wrapping every cell; piped output is never narrow (see render.stdout).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kadmin.units import format_size

if TYPE_CHECKING:
    from rich.console import RenderableType

WIDE = 150  # columns from which every column fits


def usage_bar(fraction: float | None, width: int = 20):
    """A bar coloured by how full the disk is (green < 70 %, yellow < 85 %, red above)."""
    from rich.text import Text

    if fraction is None:
        return Text("unknown", style="dim")
    fraction = min(max(fraction, 0.0), 1.0)
    filled = round(fraction * width)
    style = "green" if fraction < 0.70 else "yellow" if fraction < 0.85 else "bold red"
    bar = Text("█" * filled, style=style)
    bar.append("░" * (width - filled), style="dim")
    bar.append(f" {fraction * 100:5.1f}%")
    return bar


_STATUS_STYLE = {
    "online": "green",
    "offline": "bold red",
    "cordoned": "yellow",
    "unreachable": "bold red",
    "down": "bold red",
}


def log_dirs_table(rows, width: int = WIDE):
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    wide = width >= WIDE
    table = Table(title="Log directories", header_style="bold", expand=False)
    table.add_column("Broker", justify="right", no_wrap=True)
    table.add_column("Log dir", no_wrap=True)
    table.add_column("Status", no_wrap=True)
    table.add_column("Disk used", no_wrap=True)
    table.add_column("Kafka data", justify="right", no_wrap=True)
    table.add_column("Free", justify="right", no_wrap=True)
    if wide:
        table.add_column("Total", justify="right", no_wrap=True)
    table.add_column("Replicas", justify="right", no_wrap=True)
    table.add_column("Moving in (lag)")
    if wide:
        table.add_column("Largest partitions")
    last_broker = None
    for r in rows:
        if last_broker is not None and r.broker != last_broker:
            table.add_section()
        first = r.broker != last_broker
        last_broker = r.broker
        status = Text(r.status, style=_STATUS_STYLE.get(r.status, ""))
        broker = f"{r.broker}" + (f" {escape(r.rack)}" if r.rack else "") if first else ""
        if r.status in ("unreachable", "down"):
            # No directories to show: why it did not answer (a down broker's status says why).
            why = usage_bar(None) if r.status == "down" else Text(r.error or "", style="dim")
            cells: list[RenderableType] = [broker, "-", status, why, "", ""]
            cells += [""] if wide else []
            cells += ["", ""] + ([""] if wide else [])
            table.add_row(*cells)
            continue
        if r.replicas is None:
            # A directory with an error (offline): Kafka says nothing of what it holds (nor, by
            # -1, of its volume): unknown, not 0.
            unknown = Text("unknown", style="dim")
            free, total = (unknown if n is None else format_size(n) for n in (r.usable_bytes, r.total_bytes))
            cells = [broker, escape(r.path), status, usage_bar(r.used_fraction, 20 if wide else 10), unknown, free]
            cells += [total] if wide else []
            cells += [unknown, unknown] + ([unknown] if wide else [])
            table.add_row(*cells)
            continue
        futures = ", ".join(_future(f, r.paused) for f in r.futures or ()) or "-"
        cells = [
            broker,
            escape(r.path),  # free text: a directory named "[x]" is not markup
            status,
            usage_bar(r.used_fraction, 20 if wide else 10),
            format_size(r.kafka_bytes),
            format_size(r.usable_bytes),
        ]
        if wide:
            cells.append(format_size(r.total_bytes))
        cells += [str(r.replicas), futures]
        if wide:
            cells.append(", ".join(f"{x.topic}-{x.partition} {format_size(x.size)}" for x in r.largest or ()) or "-")
        table.add_row(*cells)
    return table


def _future(f, paused) -> str:
    """A future replica and its lag: messages behind, or why Kafka does not know it (-1)."""
    if (f.topic, f.partition) in paused:
        return f"{f.topic}-{f.partition} (paused: its source directory is offline)"
    return f"{f.topic}-{f.partition} ({'lag unknown' if f.offset_lag < 0 else format(f.offset_lag, ',')})"
