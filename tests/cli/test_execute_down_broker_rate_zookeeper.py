"""ZooKeeper mode: a rate someone set on a broker that is down is read before a plan's change
(ZooKeeper holds `/config/brokers/<id>` whether or not the broker runs; kadmin sets and removes
rates there), so execute says the value it replaces and verify gives it back. It used to read
the configs of running brokers only: the rate showed as `(not set)`, was recorded as having had
no value before, and verify deleted it. Against the sandbox on a real ZooKeeper."""

import json

import pytest

from kadmin.model import FOLLOWER_RATE, LEADER_RATE, AlterOp, ConfigChange, ConfigResource, ConfigResourceType
from tests.support.cli import await_broker_gone, kadmin, write_plan
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

MB = 1_000_000


@pytest.mark.zookeeper
def test_a_down_brokers_rate_is_read_said_and_given_back(sandbox_factory, zk_connect, tmp_path, capsys):  # noqa: F811
    from kadmin.backends.zookeeper import ZooKeeperBackend
    from tests.support.zookeeper import znode_json

    sb = sandbox_factory(brokers=4, log_dirs=1, manual_clock=True, zookeeper=zk_connect, kafka_version="3.3")
    sb.create_topic("orders", assignment={0: [0, 1, 2]}, size_bytes=10 * MB)
    with ZooKeeperBackend(zk_connect, timeout=10, read_only=False) as zk:  # another tool's rates, no record
        zk.incremental_alter_configs([
            ConfigChange(ConfigResource(ConfigResourceType.BROKER, "2"), name, AlterOp.SET, "5000000")
            for name in (LEADER_RATE, FOLLOWER_RATE)])
    sb.faults.broker_stop(2)
    await_broker_gone(lambda: ZooKeeperBackend(zk_connect, timeout=10), 2)

    plan = write_plan(tmp_path, [{"topic": "orders", "partition": 0, "replicas": [0, 1, 3]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--throttle", "20MB/s",
                            "--zookeeper", zk_connect, "--rollback-file", tmp_path / "rb.json", "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    before = {(c["resource"], c["name"]): c["before"] for c in doc["changes"] if c["kind"] == "config"}
    assert before[("2", LEADER_RATE)] == before[("2", FOLLOWER_RATE)] == "5000000", before
    assert znode_json(zk_connect, "/config/brokers/2")["config"][LEADER_RATE] == "20000000"

    sb.clock.advance(10)
    sb.wait_for(lambda s: s.partition("orders", 0).replicas == (0, 1, 3))
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "--zookeeper", zk_connect)
    assert code == 0, out + err
    assert f"broker 2 {LEADER_RATE}: 20000000 -> 5000000 (5.0 MB/s)" in out, out
    config = znode_json(zk_connect, "/config/brokers/2")["config"]
    assert (config.get(LEADER_RATE), config.get(FOLLOWER_RATE)) == ("5000000", "5000000")
