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
    ("offline.json", fx.SANDBOX_DIR_OFFLINE), ("older.json", fx.as_older_kadmin_wrote_it(fx.SANDBOX_DIR_OFFLINE)),
])
def test_same_rows_as_plain_python(tmp_path, name, doc):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc, indent=2))
    stem = name[:-5]
    assert arrow_rows(path, stem) == python_rows(path, stem)


@pytest.mark.parametrize("doc", [
    fx.SANDBOX_DIR_OFFLINE, fx.as_older_kadmin_wrote_it(fx.SANDBOX_DIR_OFFLINE),
    strip(fx.as_older_kadmin_wrote_it(fx.SANDBOX_DIR_OFFLINE)),
], ids=["saved", "older", "stripped"])
def test_a_directory_with_an_error_has_unknown_contents(tmp_path, doc):
    """Its used bytes, replica and future replica counts are null (unknown) in the rows of
    either reader, whether the file says null, says 0 (kadmin before it said null) or leaves
    them out; the other directories keep theirs."""
    path = tmp_path / "demo.json"
    path.write_text(json.dumps(doc))
    for rows in (arrow_rows(path, "demo"), python_rows(path, "demo")):
        figures = {(d[1], d[3]): (d[6], d[9], d[10]) for d in rows["log_dirs"]}
        assert figures.pop(fx.OFFLINE_DIR) == (None, None, None)
        assert len(figures) == 5 and all(None not in f for f in figures.values())


def tables_of(tagged: list[dict]) -> dict:
    out = {}
    for tag, name in (("c", "clusters"), ("e", "errors"), ("d", "log_dirs"), ("r", "replicas")):
        cols = t.column_names(t.ROW_TABLES[name])
        rows = [r for r in tagged if r["tag"] == tag]
        if name == "clusters":
            out[name] = [(r["cluster"], r["status"], r["source"]) for r in rows]
        else:
            out[name] = [tuple(r[c] for c in cols) for r in rows]
    return out


def test_narrowed_replicas_give_the_same_log_dirs_reports(tmp_path):
    """The Spark tasks keep only the replica rows the log-dirs reports use: the same reports."""
    from kadmin.fleet import local
    from kadmin.fleet.arrow import for_log_dirs_reports, read_log_dirs_file
    from kadmin.fleet.rows import merge_rows
    from tests.fleet.synthetic import write_fleet

    write_fleet(tmp_path, clusters=4, brokers=3, dirs=3, replicas=200)
    files = sorted(tmp_path.glob("*.json"))
    full = merge_rows(python_rows(p, p.name[:-5]) | {"reassignments": [], "throttles": []} for p in files)
    narrowed = merge_rows(
        tables_of(for_log_dirs_reports(read_log_dirs_file(str(p), p.name[:-5], p.name), 5).to_pylist())
        | {"reassignments": [], "throttles": []} for p in files
    )
    assert len(narrowed["replicas"]) < len(full["replicas"]) / 5
    expected = local.log_dirs_reports(full, top=5)
    assert [r.rows for r in local.log_dirs_reports(narrowed, top=5)] == [r.rows for r in expected]
    assert {r.name: r for r in expected}["moves_in_flight"].rows  # the moves survived the narrowing


def test_the_columnar_copy_is_read_instead_of_the_json_until_the_file_changes(tmp_path, monkeypatch):
    import os

    import pyarrow.json as pj

    from kadmin.fleet import arrow

    path = tmp_path / "east.json"
    path.write_text(json.dumps(fx.EAST))
    first = arrow.load_log_dirs_file(str(path), "east", "east.json")
    copies = list((tmp_path / arrow.CACHE_DIR).glob("*.parquet"))
    assert [c.name.split("@")[0] for c in copies] == ["east.json"]

    def no_parsing(*a, **kw):
        raise AssertionError("the JSON was parsed again")

    with monkeypatch.context() as m:
        m.setattr(pj, "read_json", no_parsing)
        assert arrow.load_log_dirs_file(str(path), "east", "east.json").equals(first)

    # a changed file (same size, newer mtime) is parsed again; its old copy goes
    west = json.dumps(dict(fx.EAST, cluster="renamed"))
    path.write_text(west)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    again = arrow.load_log_dirs_file(str(path), "east", "east.json")
    assert set(again.column("cluster").to_pylist()) == {"renamed"}
    assert len(list((tmp_path / arrow.CACHE_DIR).glob("*.parquet"))) == 1
    assert arrow.load_log_dirs_file(str(path), "east", "east.json", cache=True).equals(again)


def test_an_unwritable_directory_means_no_copy_not_an_error(tmp_path):
    from kadmin.fleet import arrow

    path = tmp_path / "east.json"
    path.write_text(json.dumps(fx.EAST))
    (tmp_path / arrow.CACHE_DIR).write_text("not a directory")
    table = arrow.load_log_dirs_file(str(path), "east", "east.json")
    assert table.equals(arrow.read_log_dirs_file(str(path), "east", "east.json"))


def test_a_file_listing_something_twice_is_read_by_the_reference_reader_with_x_rows(tmp_path):
    """The fast reader hands such a file to the plain-Python reader, whose table names what is
    repeated ("x" rows): the Spark engine refuses the run with the same problems."""
    from kadmin.fleet.arrow import REPEATED_COLUMNS, read_log_dirs_file, repeated_key
    from kadmin.fleet.files import duplicate_problems
    from tests.fleet.test_inputs import REPEATED_PROBLEMS, _repeated_docs

    fx.write(tmp_path, _repeated_docs())
    found = []
    for stem in "abcd":
        path = tmp_path / f"{stem}.json"
        table = read_log_dirs_file(str(path), stem, path.name).to_pylist()
        assert tables_of(table) == python_rows(path, stem)
        found += [(r["source"], repeated_key(tuple(r[c] for c in REPEATED_COLUMNS))) for r in table if r["tag"] == "x"]
    assert duplicate_problems(found) == REPEATED_PROBLEMS


def test_a_columnar_copy_written_before_unknown_contents_is_not_read(tmp_path, monkeypatch):
    """A copy an earlier kadmin kept (format 4) holds 0 for a directory with an error: it is
    parsed again, not read, so the Spark engine says unknown there as plain Python does."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from kadmin.fleet import arrow

    path = tmp_path / "demo.json"
    path.write_text(json.dumps(fx.SANDBOX_DIR_OFFLINE))
    table = arrow.read_log_dirs_file(str(path), "demo", "demo.json")
    dirs = pc.equal(table.column("tag"), "d")
    older = table  # what format 4 kept: 0, not null, in the directory's counts
    for name in ("used_bytes", "replica_count", "future_replica_count"):
        column = table.column(name)
        older = older.set_column(
            table.schema.get_field_index(name), name, pc.if_else(dirs, pc.fill_null(column, 0), column)
        )
    with monkeypatch.context() as m:
        m.setattr(arrow, "CACHE_FORMAT", 4)
        (tmp_path / arrow.CACHE_DIR).mkdir()
        pq.write_table(older, arrow.copy_path(str(path)))
    loaded = arrow.load_log_dirs_file(str(path), "demo", "demo.json").to_pylist()
    [offline] = [r for r in loaded if r["tag"] == "d" and (r["broker"], r["path"]) == fx.OFFLINE_DIR]
    assert (offline["used_bytes"], offline["replica_count"], offline["future_replica_count"]) == (None, None, None)


def test_an_unknown_offset_lag_is_null_not_caught_up(tmp_path):
    """Kafka's -1 (a future replica whose partition is offline on its broker), null (kadmin writes
    it so) and a lag left out are unknown in the rows of either reader, not 0 ("caught up")."""
    doc = json.loads(json.dumps(fx.EAST))
    replicas = [r for b in doc["brokers"] for d in b["log_dirs"] for r in d["replicas"]]
    replicas[0]["offset_lag"], replicas[1]["offset_lag"] = -1, None
    del replicas[2]["offset_lag"]
    replicas[3]["offset_lag"] = 7
    path = tmp_path / "east.json"
    path.write_text(json.dumps(doc))
    for rows in (arrow_rows(path, "east"), python_rows(path, "east")):
        lags = [r[6] for r in rows["replicas"]]
        assert lags[:4] == [None, None, None, 7], lags
