"""One shape for every benchmark figure, and one table to print them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    area: str
    what: str
    value: float
    unit: str
    target: str = ""
    ok: bool | None = None  # None: no target


def print_figures(title: str, figures: list[Figure]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, header_style="bold")
    for col, kw in [("Area", {}), ("Figure", {}), ("Value", {"justify": "right"}), ("Target", {}), ("", {})]:
        table.add_column(col, **kw)
    for f in figures:
        value = f"{f.value:,.0f}" if abs(f.value) >= 100 else f"{f.value:,.3g}"
        mark = "" if f.ok is None else ("[green]ok[/]" if f.ok else "[red]MISSED[/]")
        table.add_row(f.area, f.what, f"{value} {f.unit}", f.target, mark)
    Console().print(table)
