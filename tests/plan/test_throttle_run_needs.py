"""What an incremental run's record says its steps still to come need (``needs.run_needs``):
`throttle show` flags none of it stale and `clear --stale` removes none of it, between its
batches too; clearing or verifying that very plan still removes it (the run sets it again)."""

from dataclasses import replace

from kadmin.model import (
    FOLLOWER_RATE,
    FOLLOWER_REPLICAS,
    LEADER_RATE,
    LEADER_REPLICAS,
    LOG_DIR_RATE,
    AlterOp,
    Broker,
    ClusterState,
    ConfigChange,
    ConfigResource,
    ConfigResourceType,
    PartitionReassignment,
    PartitionState,
    Throttle,
    TopicPartition,
)
from kadmin.throttling.maths import stale_throttles
from kadmin.throttling.needs import ThrottleNeeds, throttle_items
from kadmin.throttling.operations import plan_throttle_clear
from kadmin.throttling.record import INCREMENTAL_COMMAND, RateClaim, ThrottleRecord
from kadmin.throttling.state import ThrottleState

TP = TopicPartition
RATES = {b: {LEADER_RATE: 100, FOLLOWER_RATE: 100} for b in (0, 1, 2, 3)}


def cluster(replicas, adding=None):
    adding = adding or {}
    parts = {
        TP("payments", p): PartitionState("payments", p, r[0], tuple(r), tuple(r), adding=tuple(adding.get(p, ())))
        for p, r in replicas.items()
    }
    return ClusterState("c", 0, {b: Broker(b, "127.0.0.1", 9000 + b) for b in range(4)}, parts)


def run_record(plan_id="run", command=INCREMENTAL_COMMAND, log_dir_on=()):
    """payments-0 [1,0,2] -> [1,0,3] and payments-3 [0,1,2] -> [0,1,3], one step each."""
    rates = tuple(RateClaim(b, n, 100) for b in (0, 1, 2, 3) for n in (LEADER_RATE, FOLLOWER_RATE))
    rates += tuple(RateClaim(b, LOG_DIR_RATE, 50) for b in log_dir_on)
    return ThrottleRecord(
        plan_id,
        rates=rates,
        replicas={
            "payments": {LEADER_REPLICAS: ("0:0", "0:1", "0:2", "3:0", "3:1", "3:2"), FOLLOWER_REPLICAS: ("0:3", "3:3")}
        },
        command=command,
    )


def set_throttles(log_dir_on=()):
    rates = {b: dict(by) for b, by in RATES.items()}
    for b in log_dir_on:
        rates[b][LOG_DIR_RATE] = 50
    return Throttle(
        broker_rates=rates,
        topic_replicas={
            "payments": {LEADER_REPLICAS: ("0:0", "0:1", "0:2", "3:0", "3:1", "3:2"), FOLLOWER_REPLICAS: ("0:3", "3:3")}
        },
    )


BETWEEN = cluster({0: [1, 0, 3], 3: [0, 1, 2]})  # payments-0 done, payments-3 not sent: nothing listed


def test_between_batches_the_steps_to_come_need_their_entries_and_rates():
    needs = ThrottleNeeds.of({}).with_runs([run_record()], BETWEEN, {})
    items = {(i.resource, i.config): i for i in throttle_items(set_throttles(), needs, [run_record()])}
    assert items[("payments", FOLLOWER_REPLICAS)].unneeded_entries == ("0:3",)
    assert items[("payments", LEADER_REPLICAS)].unneeded_entries == ("0:0", "0:1", "0:2")
    assert items[("payments", FOLLOWER_REPLICAS)].runs == ("run",)
    assert all(
        not items[(str(b), n)].stale and items[(str(b), n)].runs == ("run",)
        for b in (0, 1, 2, 3)
        for n in (LEADER_RATE, FOLLOWER_RATE)
    )
    assert set(stale_throttles(set_throttles(), needs).changes) == {
        ConfigChange(ConfigResource(ConfigResourceType.TOPIC, "payments"), FOLLOWER_REPLICAS, AlterOp.SET, "3:3"),
        ConfigChange(ConfigResource(ConfigResourceType.TOPIC, "payments"), LEADER_REPLICAS, AlterOp.SET, "3:0,3:1,3:2"),
    }


def test_a_destination_still_being_added_or_not_yet_there_keeps_the_partition_needed():
    adding = cluster({0: [1, 0, 3, 2], 3: [0, 1, 2]}, adding={0: (3,)})
    ongoing = {TP("payments", 0): PartitionReassignment("payments", 0, (1, 0, 3, 2), (3,), (2,))}
    needs = ThrottleNeeds().with_runs([run_record()], adding, ongoing)
    assert needs.runs["run"].lists["payments"][FOLLOWER_REPLICAS] == {"0:3", "3:3"}
    # a replica in the set but listed as adding (Metadata lists it first) is not there yet
    needs = ThrottleNeeds().with_runs([run_record()], adding, {})
    assert needs.needs_entry("payments", LEADER_REPLICAS, "0:2")


def test_once_every_partition_has_its_replicas_nothing_is_needed():
    done = cluster({0: [1, 0, 3], 3: [0, 1, 3]})
    needs = ThrottleNeeds().with_runs([run_record(log_dir_on=(3,))], done, {})
    assert needs.runs == {}
    assert len(stale_throttles(set_throttles((3,)), needs).changes) == 2 + 4 * 2 + 1


def test_the_run_s_log_dir_rate_is_needed_while_it_has_steps_to_come():
    needs = ThrottleNeeds().with_runs([run_record(log_dir_on=(3,))], BETWEEN, {})
    assert needs.needs_rate(3, LOG_DIR_RATE) and not needs.needs_rate(2, LOG_DIR_RATE)


def test_only_incremental_records_and_only_partitions_that_exist():
    plain = run_record(command="reassign execute")  # its moves are listed while they run
    assert ThrottleNeeds().with_runs([plain], BETWEEN, {}).runs == {}
    gone = cluster({0: [1, 0, 3]})  # payments-3 deleted
    assert ThrottleNeeds().with_runs([run_record()], gone, {}).runs == {}


def state_between(*records):
    needs = ThrottleNeeds.of({}).with_runs(records, BETWEEN, {})
    return ThrottleState(BETWEEN, set_throttles(), needs, {r.plan_id: r for r in records}, {}, True)


def test_clear_stale_keeps_them_and_clear_plan_of_the_run_itself_removes_them():
    run = run_record()
    stale = plan_throttle_clear(state_between(run), stale=True)
    assert not stale.removal.removed_rates
    assert stale.removal.removed_entries == {
        "payments": {FOLLOWER_REPLICAS: ("0:3",), LEADER_REPLICAS: ("0:0", "0:1", "0:2")}
    }
    own = plan_throttle_clear(state_between(run), plan_id="run")
    assert own.removal.removed_entries["payments"][FOLLOWER_REPLICAS] == ("0:3", "3:3")
    assert len(own.removal.removed_rates) == 8


def test_clearing_another_plan_keeps_what_the_run_needs():
    run = run_record()
    other = ThrottleRecord(
        "other",
        rates=(RateClaim(3, FOLLOWER_RATE, 100),),
        replicas={"payments": {FOLLOWER_REPLICAS: ("3:3",)}},
        command="throttle set",
    )
    cleared = plan_throttle_clear(state_between(run, other), plan_id="other")
    assert cleared.removal.changes == ()
    assert cleared.kept_needed == ("topic payments follower.replication.throttled.replicas 3:3",)
    # The rate is the run's too (the same value): it stays, held by the run's record, and
    # "other" lets go of its claim rather than keep it for a later clear to leave to the run.
    assert cleared.kept_shared_lines() == ("broker 3 follower.replication.throttled.rate 100: still claimed by plan run",)
    assert cleared.updated[0].rates == ()


class Configs:
    """A backend holding BETWEEN's cluster and throttle configs, nothing reassigning."""

    capabilities = frozenset()

    def __init__(self, throttles: Throttle):
        from kadmin.model import ConfigEntry, ConfigSource

        self.configs = {}
        for b, by_name in throttles.broker_rates.items():
            res = ConfigResource(ConfigResourceType.BROKER, str(b))
            self.configs[res] = {n: ConfigEntry(n, str(v), ConfigSource.DYNAMIC_BROKER) for n, v in by_name.items()}
        for t, by_name in throttles.topic_replicas.items():
            res = ConfigResource(ConfigResourceType.TOPIC, t)
            self.configs[res] = {n: ConfigEntry(n, ",".join(v), ConfigSource.TOPIC) for n, v in by_name.items()}

    def describe_cluster(self):
        return BETWEEN

    def list_partition_reassignments(self, partitions=None):
        return {}

    def describe_configs(self, resources, keys=None):
        return {r: self.configs.get(r, {}) for r in resources}

    def incremental_alter_configs(self, changes):
        for c in changes:
            entries = self.configs[c.resource]
            if c.op is AlterOp.DELETE:
                del entries[c.name]
            else:
                entries[c.name] = replace(entries[c.name], value=c.value)


def test_verifying_another_plan_keeps_what_the_run_needs_and_the_run_s_own_end_removes_it():
    from kadmin.throttling.operations import remove_plan_throttles
    from kadmin.throttling.stores import MemoryRecordStore

    other = ThrottleRecord(
        "other", replicas={"payments": {FOLLOWER_REPLICAS: ("0:3", "3:3")}}, command="reassign execute"
    )
    store = MemoryRecordStore()
    for r in (run_record(), other):
        store.put(r)
    backend = Configs(set_throttles())
    removal = remove_plan_throttles(backend, store, "other")  # `reassign verify` of the other plan
    assert removal.removed_entries == {"payments": {FOLLOWER_REPLICAS: ("0:3",)}}  # payments-0 is done
    assert removal.kept.replicas == {"payments": {FOLLOWER_REPLICAS: ("3:3",)}}
    removal = remove_plan_throttles(backend, store, "run")  # its own: the run sets it again
    assert removal.removed_entries["payments"][FOLLOWER_REPLICAS] == ("3:3",)
