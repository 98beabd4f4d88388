"""The throttle commands (throttle set/clear, reassign execute/verify) against an in-memory fake:
its configs as DescribeConfigs gives them, kadmin's records in memory. For tests of what the
commands print and record when a config change goes wrong part way."""

from __future__ import annotations

import contextlib

from kadmin.model import ConfigEntry, ConfigResourceType, ConfigSource
from tests.execute.fakes import FakeBackend, cluster_state

LEADER, FOLLOWER = "leader.replication.throttled.rate", "follower.replication.throttled.rate"
CONN = ("--bootstrap-server", "127.0.0.1:1")
MOVE = [{"topic": "foo", "partition": 0, "replicas": [3, 2]}]


class ConfigsFake(FakeBackend):
    """A FakeBackend whose describe_configs gives the configs set on it, each with its source."""

    def describe_configs(self, resources, keys=None):
        def source(r):
            return ConfigSource.DYNAMIC_BROKER if r.type == ConfigResourceType.BROKER else ConfigSource.TOPIC

        return {
            r: {k: ConfigEntry(k, v, source(r)) for k, v in self.configs.get(r, {}).items() if keys is None or k in keys}
            for r in resources
        }


def serve(monkeypatch, fake_class):
    """A ``fake_class`` (a ConfigsFake) of foo-0 [1,2], foo-1 [2,3] on brokers 1-4, which every
    throttle command opens, with kadmin's records in memory (``fake.store``)."""
    from kadmin.commands import options, reassign_execute, reassign_verify, throttle_clear, throttle_set
    from kadmin.throttling.stores import MemoryRecordStore

    be = fake_class(cluster_state({"foo": {0: [1, 2], 1: [2, 3]}}, brokers=(1, 2, 3, 4)), {b: ["/d/a"] for b in (1, 2, 3, 4)})
    store = MemoryRecordStore()

    @contextlib.contextmanager
    def open_cluster(cluster, read_only=True):
        be.read_only = read_only
        try:
            yield be
        finally:
            be.read_only = False

    for mod in (reassign_execute, reassign_verify, throttle_set, throttle_clear):
        monkeypatch.setattr(mod, "open_cluster", open_cluster)
    monkeypatch.setattr(options, "open_records", lambda backend: store)
    monkeypatch.setattr("kadmin.throttling.stores.open_record_store", lambda b: store)
    be.store = store
    return be


def rates_set(fake) -> set[tuple[str, str]]:
    """(broker, config) of every broker rate set on the fake."""
    return {(r.name, k) for r, cfg in fake.configs.items() if r.type is ConfigResourceType.BROKER for k in cfg}


def claimed(fake) -> set[tuple[str, str]]:
    """(broker, config) of every rate kadmin's records claim."""
    return {(str(c.broker), c.name) for r in fake.store.records.values() for c in r.rates}
