"""`kadmin sandbox start --zookeeper` in a chroot a running cluster uses: refused before it
writes anything there (it wrote partition state into the other cluster, then failed with an
unexpected NodeExistsError)."""

from __future__ import annotations

import json

import pytest

from tests.sandbox.test_cli import run
from tests.sandbox.test_zookeeper_mode import zk  # noqa: F401  (fixture)

pytestmark = pytest.mark.zookeeper


def _tree(client, path="/"):
    """Every znode under ``path``: its data and modification zxid."""
    data, stat = client.get(path)
    out = {path: (data, stat.mzxid, stat.cversion)}
    for child in client.get_children(path):
        out.update(_tree(client, path.rstrip("/") + "/" + child))
    return out


def test_a_chroot_with_a_running_clusters_brokers_is_refused_before_anything_is_written(
    sandbox_factory,
    zk_connect,
    zk,  # noqa: F811
    tmp_path,
):
    sb = sandbox_factory(brokers=3, zookeeper=zk_connect, manual_clock=True, kafka_version="3.3")
    sb.create_topic("t", assignment={0: [0, 1], 1: [1, 2]})
    sb.settle()
    controller = json.loads(zk.get("/controller")[0])["brokerid"]
    before = _tree(zk)
    result = run(
        "sandbox",
        "start",
        "--detach",
        "--kafka-version",
        "3.3",
        "--zookeeper",
        zk_connect,
        "--state-dir",
        str(tmp_path / "state"),
    )
    assert result.returncode == 2, result.stderr
    host, chroot = zk_connect.split("/", 1)
    assert result.stderr == (
        f"kadmin: error: ZooKeeper {zk_connect} belongs to a running Kafka cluster (brokers 0, 1, 2 registered in "
        f"/brokers/ids; controller: broker {controller}): a Kafka broker with id 0 would fail to start there too "
        "(Error while creating ephemeral at /brokers/ids/0, node already exists); give the sandbox a chroot of its "
        f"own, e.g. --zookeeper {host}/{chroot}-2\n"
    )
    assert _tree(zk) == before
    assert (tmp_path / "state" / "sandbox.log").read_text().count("\n") <= 1  # no tracebacks
    assert not (tmp_path / "state" / "sandbox.json").exists()


def test_live_brokers_with_other_ids_are_refused_too(zk_connect, zk, tmp_path):  # noqa: F811
    """A Kafka broker with a free id would join that cluster; the sandbox does not."""
    zk.create("/brokers/ids/7", b"{}", ephemeral=True, makepath=True)
    before = _tree(zk)
    result = run(
        "sandbox",
        "start",
        "--kafka-version",
        "3.3",
        "--zookeeper",
        zk_connect,
        "--no-demo",
        "--state-dir",
        str(tmp_path / "state"),
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(
        f"kadmin: error: ZooKeeper {zk_connect} belongs to a running Kafka cluster (brokers 7 registered in "
        "/brokers/ids): the sandbox does not join another cluster; give the sandbox a chroot of its own"
    )
    assert _tree(zk) == before
