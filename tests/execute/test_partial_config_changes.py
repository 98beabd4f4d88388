"""A config change that fails part way: what the cluster accepted is reported and recorded
(and only that), the failed resource is named with its cause, and the run says its throttles
stay. Over ZooKeeper each znode is written in turn; over the AdminClient protocol each resource
of a batch succeeds or fails on its own (the backends raise ConfigChangesPartlyMade)."""

import json
from types import SimpleNamespace

from kadmin.backends.config_outcomes import ConfigChangesPartlyMade
from kadmin.errors import AuthorizationError
from kadmin.execute.executor import ExecuteRequest, apply_execution, plan_execution, read_cluster
from kadmin.model import AlterOp, ConfigChange, ConfigResource, ConfigResourceType
from kadmin.plan.reassignment_file import parse_reassignment
from kadmin.throttling.operations import remove_throttles
from kadmin.throttling.stores import MemoryRecordStore
from tests.execute.fakes import FakeBackend, cluster_state

DIRS = {b: ["/d/a", "/d/b"] for b in (1, 2, 3, 4)}
REFUSED = ConfigResource(ConfigResourceType.BROKER, "3")
HINT = "set zookeeper.auth.digest=user:password in the --command-config properties"


class PartlyRefusing(FakeBackend):
    """Writes the resources in order, as the ZooKeeper backend does, until ``refused``."""

    refused = REFUSED

    def incremental_alter_configs(self, changes):
        made = []
        for c in sorted(changes, key=lambda c: (c.resource.type.value, c.resource.name)):
            if c.resource == self.refused:
                e = AuthorizationError(f"writing /config/brokers/{self.refused.name}: refused (znode ACLs)", hint=HINT)
                raise ConfigChangesPartlyMade(e, made) if made else e
            super().incremental_alter_configs([c])
            made.append(c)


def backend():
    return PartlyRefusing(cluster_state({"foo": {0: [1, 2]}}, brokers=(1, 2, 3, 4)), DIRS)


def execute(be, store, throttle=10_000_000, **kw):
    text = json.dumps({"version": 1, "partitions": [{"topic": "foo", "partition": 0, "replicas": [3, 2]}]})
    req = ExecuteRequest(parse_reassignment(text), "plan-1", "/tmp/rb.json", throttle=throttle, **kw)
    view = read_cluster(be, req.parsed, store)
    xplan = plan_execution(req, view, now=1_700_000_000)
    reported = []

    class Reporter:
        def change(self, change, error):
            reported.append((change, error))

        def waiting(self, replicas, seconds_left):
            pass

    result = apply_execution(be, xplan, req, write_rollback=lambda p, plan: None, records=store, reporter=Reporter(),
                             earlier_record=view.records.get("plan-1"))
    return xplan, result, reported


def test_the_throttles_set_before_a_refused_one_are_reported_and_only_they_are_recorded():
    be, store = backend(), MemoryRecordStore()
    xplan, result, reported = execute(be, store)
    set_in_cluster = {
        (r.name, k) for r, cfg in be.configs.items() for k in cfg if r.type is ConfigResourceType.BROKER and "rate" in k
    }
    assert set_in_cluster == {("1", "leader.replication.throttled.rate"), ("1", "follower.replication.throttled.rate"),
                              ("2", "leader.replication.throttled.rate"), ("2", "follower.replication.throttled.rate")}
    made = [c for c, e in reported if isinstance(c, ConfigChange) and e is None]
    assert {(c.resource.name, c.name) for c in made if c.resource.type is ConfigResourceType.BROKER} == set_in_cluster
    assert result.made() and all(c in xplan.throttles.changes for c in made)
    # the refused resource is named, with its cause and its own hint; nothing was moved
    assert result.aborted == "stopped: writing /config/brokers/3: refused (znode ACLs)"
    assert result.hint == HINT
    assert be.mutating_calls().count("reassign_partitions") == 0
    # the record claims exactly what was set: `throttle clear --plan` removes exactly that
    record = store.records["plan-1"]
    assert {(str(c.broker), c.name) for c in record.rates} == set_in_cluster
    # the topic lists come after broker 3 here: never sent, so neither set nor claimed
    assert not be.configs.get(ConfigResource(ConfigResourceType.TOPIC, "foo"))
    assert not any(record.replicas.values())


def test_a_removal_that_fails_part_way_says_what_it_removed_and_keeps_the_records():
    be, store = backend(), MemoryRecordStore()
    rate = "leader.replication.throttled.rate"
    changes = tuple(ConfigChange(ConfigResource(ConfigResourceType.BROKER, b), rate, AlterOp.DELETE) for b in "123")
    for c in changes:
        be.configs.setdefault(c.resource, {})[rate] = "1000"
    try:
        remove_throttles(be, store, SimpleNamespace(changes=changes), {}, [])
    except ConfigChangesPartlyMade as e:
        assert [c.resource.name for c in e.made] == ["1", "2"]
        assert e.hint == HINT and "/config/brokers/3" in e.message
    else:
        raise AssertionError("the refused removal must raise")
    assert be.configs[REFUSED] == {rate: "1000"}


def test_a_rate_refused_on_a_second_run_keeps_the_claim_of_the_first():
    """The record goes back to what this plan claimed before for a change the cluster refused:
    the first run's 10 MB/s is still set on broker 3, and still this plan's to remove."""
    be, store = backend(), MemoryRecordStore()
    be.refused = ConfigResource(ConfigResourceType.BROKER, "99")  # the first run is accepted whole
    execute(be, store)
    be.refused = REFUSED
    _, result, _ = execute(be, store, throttle=20_000_000, additional=True)
    assert result.aborted.startswith("stopped: writing /config/brokers/3")
    claims = {(c.broker, c.name): c.value for c in store.records["plan-1"].rates}
    assert be.configs[REFUSED]["leader.replication.throttled.rate"] == "10000000"
    assert claims[(3, "leader.replication.throttled.rate")] == 10_000_000
    assert claims[(1, "leader.replication.throttled.rate")] == 20_000_000
