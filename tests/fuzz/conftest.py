"""Hypothesis profiles of the fuzz suite, its shared sandbox, and the count of inputs fuzzed.

Profiles (``KADMIN_FUZZ_PROFILE``, default ``fuzz-ci``):
  fuzz-ci    derandomized (the same examples every run, no example database), few examples:
             the whole directory stays well under a minute
  fuzz-dev   random, more examples, for a developer hunting crashes
  fuzz-long  many examples, for a soak before a release

The profiles are registered here and applied per test (``tests.fuzz.support.FUZZ``), so loading
this directory never changes the settings of the suite's other property tests.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, print_blob=True,
               suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                      HealthCheck.data_too_large, HealthCheck.filter_too_much])
settings.register_profile("fuzz-ci", derandomize=True, database=None, max_examples=80, **_COMMON)
settings.register_profile("fuzz-dev", max_examples=300, **_COMMON)
settings.register_profile("fuzz-long", max_examples=3000, **_COMMON)

MiB = 2**20


@pytest.fixture(scope="session")
def fuzz_sandbox():
    """One emulated cluster for the whole fuzz run: 3 brokers x 2 directories, 3 racks, its
    clock stopped so nothing moves between examples. Tests assert it saw no change."""
    from kadmin.sandbox import Sandbox

    sb = Sandbox(brokers=3, log_dirs=2, racks=3, manual_clock=True)
    sb.start()
    sb.create_topic("orders", assignment={0: [0, 1, 2], 1: [1, 2, 0], 2: [2, 0, 1]}, size_bytes=20 * MiB)
    sb.create_topic("payments", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=5 * MiB)
    sb.clear_requests()
    yield sb
    sb.stop()


@pytest.fixture(autouse=True)
def _forget_masked_secrets():
    """Secrets read during a test are masked in the logs of the whole process from then on; the
    suite's other tests should not see their logs masked by these tests' (often short) values."""
    from kadmin import java_properties

    before = set(java_properties._MASKED)
    yield
    java_properties._MASKED.intersection_update(before)


def pytest_terminal_summary(terminalreporter):
    from tests.fuzz.support import EXAMPLES

    if EXAMPLES:
        total = sum(EXAMPLES.values())
        parts = ", ".join(f"{k}: {v}" for k, v in sorted(EXAMPLES.items()))
        terminalreporter.write_line(f"fuzzed inputs: {total} ({parts})")
