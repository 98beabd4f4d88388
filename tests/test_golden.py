"""Golden files never write themselves: a missing golden fails; only KADMIN_UPDATE_GOLDEN=1 writes."""

import json

import pytest

from tests.support.golden import check_golden


def test_a_missing_golden_fails_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv("KADMIN_UPDATE_GOLDEN", raising=False)
    path = tmp_path / "plan.json"
    with pytest.raises(pytest.fail.Exception, match="is missing"):
        check_golden(path, {"a": 1})
    assert not path.exists()


def test_a_golden_that_differs_fails(tmp_path, monkeypatch):
    monkeypatch.delenv("KADMIN_UPDATE_GOLDEN", raising=False)
    path = tmp_path / "plan.json"
    path.write_text('{"a": 2}')
    with pytest.raises(AssertionError):
        check_golden(path, {"a": 1})
    assert json.loads(path.read_text()) == {"a": 2}


def test_the_flag_regenerates(tmp_path, monkeypatch):
    monkeypatch.setenv("KADMIN_UPDATE_GOLDEN", "1")
    path = tmp_path / "plan.json"
    check_golden(path, {"a": 1})
    assert json.loads(path.read_text()) == {"a": 1}


def test_every_golden_file_is_read_by_a_test():
    """A golden nobody compares against is stale: each file under tests/plan/golden is named by
    a test (the planner tests build the names as <kind>_<name>.json)."""
    from pathlib import Path

    root = Path(__file__).parent / "plan"
    sources = "".join(p.read_text() for p in root.glob("test_*.py"))
    for golden in (root / "golden").glob("*.json"):
        parts = golden.stem.split("_")  # <kind>_<name>, either of which may hold underscores
        splits = [("_".join(parts[:i]), "_".join(parts[i:])) for i in range(1, len(parts))]
        assert any(f'"{name}"' in sources and f"{kind}_" in sources for kind, name in splits), golden
