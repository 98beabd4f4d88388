"""Fault tests: the in-memory throttle record store (the sandbox serves no Produce/Fetch, so
the AdminClient-mode record topic cannot be used), and the session's fault figures."""

from __future__ import annotations

import pytest

from tests.faults.support import CURRENT, FAULTS


@pytest.fixture
def records(monkeypatch):
    from kadmin.commands import options
    from kadmin.throttling import stores
    from kadmin.throttling.stores import MemoryRecordStore

    store = MemoryRecordStore()
    monkeypatch.setattr(options, "open_records", lambda backend: store)
    monkeypatch.setattr(stores, "open_record_store", lambda backend: store)
    return store


@pytest.fixture(autouse=True)
def _count_faults():
    CURRENT.clear()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.passed:
        FAULTS["survived"] += CURRENT["injected"]


def pytest_terminal_summary(terminalreporter):
    if FAULTS["injected"]:
        terminalreporter.write_line(
            f"faults injected: {FAULTS['injected']}, survived: {FAULTS['survived']}")
