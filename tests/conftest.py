"""Shared fixtures: a real ZooKeeper server, chroots for isolation, the sandbox."""

from __future__ import annotations

import os
import uuid

import pytest

from tests.support import zookeeper as zk

os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")


@pytest.fixture(autouse=True)
def own_state_home(tmp_path_factory, monkeypatch):
    """Each test's own $XDG_STATE_HOME: the state files kadmin keeps there (incremental runs,
    sandboxes started without --state-dir) never land in the user's ~/.local/state, and no
    test meets another's."""
    home = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home


@pytest.fixture(scope="session")
def zookeeper():
    """Connect string of a real ZooKeeper server, one for the whole session."""
    why_not = zk.available()
    if why_not:
        if os.environ.get("CI"):
            pytest.fail(f"ZooKeeper is required in CI: {why_not}")
        pytest.skip(why_not)
    with zk.ZooKeeperServer() as server:
        yield server.connect


@pytest.fixture
def zk_connect(zookeeper):
    """A connect string with a fresh chroot ("127.0.0.1:PORT/kadmin-test-<hex>"), created empty,
    so each test sees its own ZooKeeper namespace."""
    from kazoo.client import KazooClient

    chroot = f"/kadmin-test-{uuid.uuid4().hex[:12]}"
    client = KazooClient(hosts=zookeeper)
    client.start(timeout=15)
    client.ensure_path(chroot)
    client.stop()
    client.close()
    return zookeeper + chroot


from tests.support.sandbox import sandbox, sandbox_factory  # noqa: E402,F401  (fixtures for every test)
from tests.support.sandbox import kafka_version  # noqa: E402,F401


def pytest_generate_tests(metafunc):
    """The integration tests of tests/support/sandbox.py's MATRIX_FILES run against every Kafka
    version of the matrix (ZooKeeper-mode tests against the versions that have it)."""
    from tests.support.sandbox import in_matrix, matrix_versions

    if "kafka_version" not in metafunc.fixturenames or not in_matrix(metafunc.definition.path):
        return
    if any("kafka_version" in m.args[0] for m in metafunc.definition.iter_markers("parametrize")):
        return  # the test chooses its versions itself
    versions = matrix_versions(zookeeper="zk_connect" in metafunc.fixturenames)
    metafunc.parametrize("kafka_version", versions, indirect=True, ids=[f"kafka{v}" for v in versions])
