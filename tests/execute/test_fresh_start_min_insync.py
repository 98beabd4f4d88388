"""A fresh `reassign execute --incremental` reads its topics' configs once: min.insync.replicas
is asked for by name with the throttle configs (executor.read_cluster) and the steps are
planned from that answer (incremental_resume.fresh_start). It sent two topic DescribeConfigs
before its first step: the throttle keys, then min.insync.replicas alone. Over both backends:
the AdminClient protocol (the sandbox) and ZooKeeper (a topic's overrides are its znode)."""

import pytest

from kadmin.model import ConfigResourceType
from tests.support.cli import kadmin, write_plan
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

MB = 1_000_000


def run_counting(monkeypatch, capsys, tmp_path, backend_class, *connect):
    """Run the plan; (the topic DescribeConfigs calls as (keys, answers), the min.insync.replicas
    the steps were planned with)."""
    from kadmin.execute import incremental_resume

    asked, planned = [], []
    describe = backend_class.describe_configs

    def counting(self, resources, keys=None):
        resources = list(resources)
        got = describe(self, resources, keys)
        if any(r.type == ConfigResourceType.TOPIC for r in resources):
            asked.append((tuple(keys or ()), {r.name: dict(e) for r, e in got.items() if r.type == ConfigResourceType.TOPIC}))
        return got

    monkeypatch.setattr(backend_class, "describe_configs", counting)
    plan_steps = incremental_resume.plan_steps
    monkeypatch.setattr(incremental_resume, "plan_steps", lambda *a: planned.append(a[3]) or plan_steps(*a))
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [1, 2, 3]},
                                 {"topic": "bar", "partition": 0, "replicas": [1, 2, 3]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--incremental",
                            *connect, "--state-file", str(tmp_path / "state.json"),
                            "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 0, out + err
    return asked, planned


def make(sandbox_factory, **kwargs):  # noqa: F811
    sb = sandbox_factory(brokers=4, log_dirs=1, speed=40.0, **kwargs)
    sb.create_topic("foo", assignment={0: [0, 1, 2]}, size_bytes=MB, configs={"min.insync.replicas": "2"})
    sb.create_topic("bar", assignment={0: [0, 1, 2]}, size_bytes=MB)
    return sb


def test_one_topic_describe_configs_over_the_admin_protocol(sandbox_factory, monkeypatch, capsys, tmp_path):  # noqa: F811
    from kadmin.backends.admin import AdminBackend

    sb = make(sandbox_factory)
    asked, planned = run_counting(monkeypatch, capsys, tmp_path, AdminBackend, "--bootstrap-server", sb.bootstrap)
    [(keys, answers)] = asked
    assert "min.insync.replicas" in keys and "leader.replication.throttled.replicas" in keys
    assert answers["foo"]["min.insync.replicas"].value == "2"
    assert answers["bar"]["min.insync.replicas"].value == "1"  # the broker's default, asked for by name
    assert planned == [{"foo": 2, "bar": 1}]


@pytest.mark.zookeeper
def test_one_topic_describe_configs_over_zookeeper(sandbox_factory, zk_connect, monkeypatch, capsys, tmp_path):  # noqa: F811
    from kadmin.backends.zookeeper import ZooKeeperBackend

    make(sandbox_factory, zookeeper=zk_connect, kafka_version="3.3")
    asked, planned = run_counting(monkeypatch, capsys, tmp_path, ZooKeeperBackend, "--zookeeper", zk_connect)
    [(keys, answers)] = asked
    assert "min.insync.replicas" in keys
    assert answers["foo"]["min.insync.replicas"].value == "2"
    # ZooKeeper holds a topic's overrides only: without one the steps take Kafka's default (1), as before
    assert "min.insync.replicas" not in answers["bar"]
    assert planned == [{"foo": 2}]
