"""Pytest fixtures for the emulated cluster (import them from tests/conftest.py).

``sandbox``: 3 brokers x 2 log dirs, 3 racks, time sped up 50x, a few topics; one per test.
``sandbox_factory``: ``sandbox_factory(**Sandbox kwargs)`` starts a sandbox; all stop at teardown.
"""

from __future__ import annotations

import pytest

MiB = 2**20


@pytest.fixture
def sandbox_factory():
    from kadmin.sandbox import Sandbox

    started = []

    def make(**kwargs):
        sb = Sandbox(**kwargs)
        sb.start()
        started.append(sb)
        return sb

    yield make
    for sb in reversed(started):
        sb.stop()


@pytest.fixture
def sandbox(sandbox_factory):
    sb = sandbox_factory(brokers=3, log_dirs=2, racks=3, speed=50.0)
    sb.create_topic("orders", assignment={0: [0, 1, 2], 1: [1, 2, 0], 2: [2, 0, 1]}, size_bytes=20 * MiB,
                    produce_rate=64 * 1024)
    sb.create_topic("payments", assignment={0: [0, 1], 1: [1, 2], 2: [2, 0], 3: [0, 2]}, size_bytes=5 * MiB)
    sb.create_topic("empty", assignment={0: [1], 1: [2]})
    return sb
