"""Shared fixtures: a real ZooKeeper server, chroots for isolation, the sandbox."""

from __future__ import annotations

import os
import uuid

import pytest

from tests.support import zookeeper as zk

os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")


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
