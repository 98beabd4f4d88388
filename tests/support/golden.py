"""Golden-file checks shared by the planner tests.

A golden file is compared, never created by the test that reads it: a missing golden fails (a
test that writes its own expectation passes whatever the code does). After a deliberate change,
regenerate with ``KADMIN_UPDATE_GOLDEN=1`` and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

UPDATE_ENV = "KADMIN_UPDATE_GOLDEN"


def check_golden(path: Path, doc) -> None:
    """``doc`` equals the JSON in ``path``; with KADMIN_UPDATE_GOLDEN=1, ``path`` is (re)written first."""
    if os.environ.get(UPDATE_ENV) == "1":
        path.write_text(json.dumps(doc, indent=1) + "\n")
    if not path.exists():
        pytest.fail(f"golden file {path} is missing; create it with {UPDATE_ENV}=1 and review it", pytrace=False)
    assert json.loads(path.read_text()) == doc
