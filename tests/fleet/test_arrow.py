"""The pyarrow reader the Spark engine uses gives the rows the plain-Python reader gives,
also for documents that leave out the derived fields (used bytes, counts, status)."""

from __future__ import annotations

import json

import pytest

from kadmin.fleet import tables as t
from kadmin.fleet.files import ResultFile, read_rows
from tests.fleet import fixtures as fx

pytest.importorskip("pyarrow")


def arrow_rows(path, stem):
    from kadmin.fleet.arrow import read_log_dirs_file

    table = read_log_dirs_file(str(path), stem, path.name).to_pylist()
    out = {}
    for tag, name in (("c", "clusters"), ("e", "errors"), ("d", "log_dirs"), ("r", "replicas")):
        cols = t.column_names(t.ROW_TABLES[name])
        rows = [r for r in table if r["tag"] == tag]
        if name == "clusters":
            out[name] = [(r["cluster"], r["status"], r["source"]) for r in rows]
        else:
            out[name] = [tuple(r[c] for c in cols) for r in rows]
    return out


def python_rows(path, stem):
    rows = read_rows(ResultFile(str(path), "log-dirs", stem))
    return {k: rows[k] for k in ("clusters", "errors", "log_dirs", "replicas")}


def strip(doc):
    """The document without its derived fields, and pretty-printed over many lines."""
    for b in doc["brokers"]:
        for d in b["log_dirs"]:
            for key in ("used_bytes", "replica_count", "future_replica_count", "status", "used_fraction"):
                d.pop(key)
            for r in d["replicas"]:
                r.pop("offset_lag")
    return doc


@pytest.mark.parametrize("name, doc", [
    ("east.json", fx.EAST), ("west.json", fx.WEST), ("stripped.json", strip(json.loads(json.dumps(fx.EAST)))),
    ("named.json", dict(fx.WEST, cluster="real-name")), ("broken.json", "{not json"), ("other.json", {"x": 1}),
])
def test_same_rows_as_plain_python(tmp_path, name, doc):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc, indent=2))
    stem = name[:-5]
    assert arrow_rows(path, stem) == python_rows(path, stem)
