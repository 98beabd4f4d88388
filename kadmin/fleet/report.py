"""A computed report: its spec and its rows, in the report's own total order.

Both engines hand their rows to ``Report.of``, which orders them, so the same input gives the
same sequence of rows whichever engine computed them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kadmin.fleet.tables import ReportSpec, column_names


@dataclass(frozen=True)
class Report:
    spec: ReportSpec
    rows: tuple[tuple, ...]

    @classmethod
    def of(cls, spec: ReportSpec, rows: Iterable[Iterable[Any]]) -> Report:
        return cls(spec, tuple(sort_rows(spec, [tuple(r) for r in rows])))

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def columns(self) -> tuple[str, ...]:
        return column_names(self.spec.columns)

    def records(self) -> list[dict[str, Any]]:
        names = self.columns
        return [dict(zip(names, row)) for row in self.rows]


def unread_line(unreachable_rows: Iterable[tuple]) -> str | None:
    """The one error line of a report that lacks what could not be read (rows of the
    ``unreachable`` report: cluster, broker, source, error), counting the clusters (or their
    files) and the brokers; None when everything was read. A fleet report is whole or says it
    is not: the command prints the report, then fails with this line (exit 1)."""
    clusters: set[str] = set()
    brokers: set[tuple[str, int]] = set()
    for row in unreachable_rows:
        if row[1] is None:
            clusters.add(row[0])
        else:
            brokers.add((row[0], row[1]))
    if not clusters and not brokers:
        return None
    parts = [
        f"{n} {word}{'' if n == 1 else 's'}" for n, word in ((len(clusters), "cluster"), (len(brokers), "broker")) if n
    ]
    return (
        f"the report is incomplete: {' and '.join(parts)} could not be read (named above, and in the unreachable "
        "report)"
    )


def waiting_lines(waiting_rows: Iterable[tuple]) -> list[str]:
    """One warning per cluster whose /admin/reassign_partitions holds requests no broker carries
    out (rows of the ``reassignment_waiting`` report: cluster, topic, partition, replicas,
    target), as ``reassign list --zookeeper`` warns of them: they are no running reassignment."""
    by_cluster: dict[str, list[tuple]] = {}
    for row in waiting_rows:
        by_cluster.setdefault(row[0], []).append(row)
    out = []
    for cluster, rows in sorted(by_cluster.items()):
        many = len(rows) > 1
        names = ", ".join(
            f"{topic}-{partition} (replicas {','.join(map(str, replicas or []))}, requested {','.join(map(str, target or []))})"
            for _c, topic, partition, replicas, target in rows
        )
        out.append(
            f"cluster {cluster}: /admin/reassign_partitions looks stuck: {names} {'are' if many else 'is'} requested "
            f"there, but no broker is moving {'them' if many else 'it'} (listed as waiting, not as ongoing): the way "
            "out is to delete the node and force a controller election"
        )
    return out


class _Descending:
    """Wraps a sort key to invert its order (values of mixed types never meet: one column)."""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key

    def __lt__(self, other: _Descending) -> bool:
        return other.key < self.key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Descending) and self.key == other.key


def sort_rows(spec: ReportSpec, rows: list[tuple]) -> list[tuple]:
    """Order by ``spec.order``; nulls last; ``ranked`` values in their given order; every
    column breaks remaining ties, so the order is total."""
    names = column_names(spec.columns)
    index = {n: i for i, n in enumerate(names)}
    keys = list(spec.order) + [n for n in names if n not in spec.order]
    ranked_column, ranked_values = spec.ranked if spec.ranked else (None, ())
    ranks = {v: i for i, v in enumerate(ranked_values)}
    plan = [(index[name], name in spec.descending, name == ranked_column) for name in keys]

    def key(row: tuple) -> tuple:
        out: list[tuple[bool, Any]] = []
        for i, descending, ranked in plan:
            value = row[i]
            if ranked:
                value = ranks.get(value, len(ranks))
            elif isinstance(value, list):
                value = tuple(value)
            if value is None:
                out.append((True, 0))
            elif descending:
                # numbers (and booleans) negated: the same order as _Descending, without a
                # Python-level comparison per pair
                out.append((False, -value if isinstance(value, (int, float)) else _Descending(value)))
            else:
                out.append((False, value))
        return tuple(out)

    return sorted(rows, key=key)
