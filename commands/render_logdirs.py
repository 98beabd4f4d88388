"""The human view of log directories: one row per directory, with a usage bar."""

from __future__ import annotations

from kadmin.units import format_size

BAR_WIDTH = 20


def usage_bar(fraction: float | None, width: int = BAR_WIDTH):
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


_STATUS_STYLE = {"online": "green", "offline": "bold red", "cordoned": "yellow", "unreachable": "bold red"}


def log_dirs_table(rows):
    from rich.table import Table
    from rich.text import Text

    table = Table(title="Log directories", header_style="bold", expand=False)
    for name, kw in [
        ("Broker", {"justify": "right"}), ("Rack", {}), ("Log dir", {}), ("Status", {}),
        ("Disk used", {"no_wrap": True}), ("Kafka data", {"justify": "right"}), ("Usable", {"justify": "right"}),
        ("Total", {"justify": "right"}), ("Replicas", {"justify": "right"}), ("Moving in (lag)", {}),
        ("Largest partitions", {}),
    ]:
        table.add_column(name, **kw)
    last_broker = None
    for r in rows:
        if last_broker is not None and r.broker != last_broker:
            table.add_section()
        last_broker = r.broker
        status = Text(r.status, style=_STATUS_STYLE.get(r.status, ""))
        if r.error and r.status == "unreachable":
            status.append(f" {r.error}", style="dim")
        futures = ", ".join(f"{f.topic}-{f.partition} ({f.offset_lag:,})" for f in r.futures) or "-"
        largest = ", ".join(f"{x.topic}-{x.partition} {format_size(x.size)}" for x in r.largest) or "-"
        table.add_row(
            str(r.broker), r.rack or "-", r.path, status,
            usage_bar(r.used_fraction) if r.status != "unreachable" else Text("-"),
            format_size(r.kafka_bytes), format_size(r.usable_bytes), format_size(r.total_bytes),
            str(r.replicas), futures, largest,
        )
    return table
