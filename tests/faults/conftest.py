"""Fault tests: the in-memory throttle record store (the sandbox serves no Produce/Fetch, so
the AdminClient-mode record topic cannot be used), and the session's fault figures."""

from __future__ import annotations

import pytest

from tests.faults.support import FAULTS


@pytest.fixture
def records(monkeypatch):
    from kadmin import throttle_records
    from kadmin.commands import reassign_execute
    from kadmin.throttle_records import MemoryRecordStore

    store = MemoryRecordStore()
    monkeypatch.setattr(reassign_execute, "open_records", lambda backend: store)
    monkeypatch.setattr(throttle_records, "open_record_store", lambda backend: store)
    return store


def pytest_terminal_summary(terminalreporter):
    if FAULTS["injected"]:
        terminalreporter.write_line(
            f"faults injected: {FAULTS['injected']}, survived: {FAULTS['survived']}")
