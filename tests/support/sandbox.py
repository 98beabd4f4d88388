"""Pytest fixtures for the emulated cluster (import them from tests/conftest.py).

``sandbox``: 3 brokers x 2 log dirs, 3 racks, time sped up 50x, a few topics; one per test.
``sandbox_factory``: ``sandbox_factory(**Sandbox kwargs)`` starts a sandbox; all stop at teardown.
``kafka_version``: the Kafka version those sandboxes emulate. In the test files of MATRIX_FILES it
is parametrized over the matrix (tests/conftest.py's pytest_generate_tests), so their tests run
against every version: 3.3 and 4.3, in ZooKeeper mode 2.8, 3.3 and 3.9 (4.x has no ZooKeeper mode;
2.8 has no KRaft mode fit to run).
``KADMIN_TEST_KAFKA_VERSIONS=4.3`` (comma-separated) narrows the matrix. Elsewhere: the default
version of the mode. A ``kafka_version=`` given to ``sandbox_factory`` wins.
"""

from __future__ import annotations

import os

import pytest

MiB = 2**20

MATRIX = ("2.8", "3.3", "4.3")
MATRIX_ENV = "KADMIN_TEST_KAFKA_VERSIONS"
# The integration tests of execute, verify, progress, cancel, throttle, --incremental, log-dirs
# describe|balance and the backends: the places where a Kafka version changes what kadmin meets.
MATRIX_FILES = (
    "tests/backends/test_admin_backend.py",
    "tests/backends/test_zookeeper_sandbox.py",
    "tests/cli/test_execute_wait.py",
    "tests/cli/test_leaders_sandbox.py",
    "tests/cli/test_log_dirs_describe.py",
    "tests/cli/test_progress_sandbox.py",
    "tests/cli/test_reassign_balance.py",
    "tests/cli/test_reassign_elect_preferred.py",
    "tests/cli/test_reassign_sandbox.py",
    "tests/cli/test_reassign_zookeeper.py",
    "tests/cli/test_throttle_commands.py",
    "tests/cli/test_throttle_records.py",
    "tests/cli/test_throttle_sandbox.py",
    "tests/execute/test_incremental_cli.py",
    "tests/execute/test_incremental_sandbox.py",
    "tests/execute/test_incremental_zookeeper.py",
    "tests/plan/test_balance_cli.py",
)

def matrix_versions(*, zookeeper: bool) -> list[str]:
    """The versions a matrix test runs against: in ZooKeeper mode a 4.x is replaced by the newest
    version that has ZooKeeper mode; KRaft-mode tests leave out a 2.8."""
    from kadmin.sandbox.versions import emulated

    names = [v.strip() for v in os.environ.get(MATRIX_ENV, ",".join(MATRIX)).split(",") if v.strip()]
    out = []
    for name in names:
        if not zookeeper and not emulated(name).supports_kraft:
            continue  # 2.8: ZooKeeper mode only
        version = for_mode(name, zookeeper=zookeeper)
        if version not in out:
            out.append(version)
    return out


def for_mode(name: str, *, zookeeper: bool) -> str:
    """``name``, or the nearest version that has the mode: in ZooKeeper mode the newest with
    ZooKeeper mode for a 4.x, in KRaft mode the oldest with KRaft for a 2.8."""
    from kadmin.sandbox.versions import DEFAULT_ZOOKEEPER, VERSIONS, emulated

    version = emulated(name)
    if zookeeper and not version.supports_zookeeper:
        return DEFAULT_ZOOKEEPER
    if not zookeeper and not version.supports_kraft:
        return next(str(v) for v in VERSIONS.values() if v.supports_kraft)
    return str(version)


def in_matrix(path) -> bool:
    path = str(path).replace(os.sep, "/")
    return any(path.endswith(f) for f in MATRIX_FILES)


@pytest.fixture
def kafka_version(request) -> str | None:
    """The Kafka version sandbox_factory emulates (None: the default of the sandbox's mode)."""
    return getattr(request, "param", None)


@pytest.fixture
def sandbox_factory(kafka_version):
    from kadmin.sandbox import Sandbox

    started = []

    def make(**kwargs):
        if kafka_version is not None:
            kwargs.setdefault("kafka_version", for_mode(kafka_version, zookeeper=bool(kwargs.get("zookeeper"))))
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


class SandboxClock:
    """kadmin's Clock on a manual-clock sandbox's simulated time: kadmin sleeping is the cluster
    moving on, and re-reads (verify's, progress's) take no real time."""

    def __init__(self, sb):
        self.sb = sb

    def now(self) -> float:
        return self.sb.clock.now

    def sleep(self, seconds: float) -> None:
        self.sb.clock.advance(seconds)
