"""docs/fleet.md documents every row table and report with exactly the columns and types the
code declares (kadmin/fleet/tables.py)."""

from __future__ import annotations

import re
from pathlib import Path

from kadmin.fleet import tables as t

DOC = Path(__file__).resolve().parents[2] / "docs" / "fleet.md"


def documented() -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    current = None
    for line in DOC.read_text("utf-8").splitlines():
        heading = re.match(r"^### `([a-z_]+)`", line)
        if heading:
            current = out.setdefault(heading.group(1), [])
            continue
        if line.startswith("## "):
            current = None
        row = re.match(r"^\| `([a-z_]+)` \| ([a-z<>]+) \|", line)
        if row and current is not None:
            current.append((row.group(1), row.group(2)))
    return out


def test_every_table_and_report_is_documented_as_declared():
    docs = documented()
    declared = dict(t.ROW_TABLES)
    for specs in t.REPORTS.values():
        declared.update({s.name: s.columns for s in specs})
    assert set(docs) == set(declared)
    for name, columns in declared.items():
        assert docs[name] == list(columns), name
