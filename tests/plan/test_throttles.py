"""Throttle maths: Kafka's lists, merging with what is set, removing only kadmin's, staleness."""

from kadmin.model import (
    FOLLOWER_RATE,
    FOLLOWER_REPLICAS,
    LEADER_RATE,
    LEADER_REPLICAS,
    LOG_DIR_RATE,
    AlterOp,
    Assignment,
    Broker,
    ClusterState,
    ConfigChange,
    ConfigEntry,
    ConfigResource,
    ConfigResourceType,
    ConfigSource,
    PartitionReassignment,
    PartitionState,
    ReassignmentPlan,
    Throttle,
    TopicPartition,
)
from kadmin.throttling.maths import ThrottleRates, clear_changes, merge_replica_lists, prune_records, reconcile_records, remove_from_replica_list, removal_changes, stale_throttles, throttle_changes
from kadmin.throttling.needs import DEFAULT_BROKER_ID, ThrottleNeeds, brokers_needing_rates, current_throttles, kafka_throttle_lists, left_behind, log_dir_rate_brokers, throttle_items
from kadmin.throttling.record import RateClaim, ThrottleRecord

TP = TopicPartition


def cluster(assignment, adding=None):
    adding = adding or {}
    parts = {}
    for (t, p), reps in assignment.items():
        add = tuple(adding.get((t, p), ()))
        parts[TP(t, p)] = PartitionState(t, p, reps[0], tuple(reps), tuple(b for b in reps if b not in add), adding=add)
    return ClusterState("c", 1, {b: Broker(b, "127.0.0.1", 9000 + b) for b in range(1, 10)}, parts)


def plan(*entries):
    """Entries (topic, partition, replicas[, log_dirs])."""
    return ReassignmentPlan(tuple(
        Assignment(e[0], e[1], tuple(e[2]), tuple(e[3]) if len(e) > 3 else None) for e in entries))


def broker(b):
    return ConfigResource(ConfigResourceType.BROKER, str(b))


def topic(t):
    return ConfigResource(ConfigResourceType.TOPIC, t)


# --- Kafka's lists ---------------------------------------------------------------------------
def test_lists_follow_kafkas_tool():
    current = cluster({("foo", 0): [1, 2, 3], ("foo", 1): [4, 5, 6], ("bar", 0): [2, 3, 4], ("baz", 0): [1, 2, 3]})
    p = plan(("foo", 0, [1, 2, 5]), ("foo", 1, [7, 8, 4]), ("bar", 0, [1, 2, 3]), ("baz", 0, [3, 2, 1]))
    lists = kafka_throttle_lists(p, current)
    # leader: every current replica of a moving partition; follower: each new destination
    assert lists["foo"] == {"leader": {"0:1", "0:2", "0:3", "1:4", "1:5", "1:6"}, "follower": {"0:5", "1:7", "1:8"}}
    assert lists["bar"] == {"leader": {"0:2", "0:3", "0:4"}, "follower": {"0:1"}}
    # a reordering moves no data: no throttle
    assert "baz" not in lists
    assert brokers_needing_rates(p, current) == {1, 2, 3, 4, 5, 6, 7, 8}


def test_partition_already_reassigning_keeps_its_sources():
    # foo-0 is moving 1,2 -> 3,4: replicas 3,4,1,2 with 3,4 adding. Resubmitting towards 5,6
    # must not treat the half-copied 3,4 as sources.
    current = cluster({("foo", 0): [3, 4, 1, 2]}, adding={("foo", 0): [3, 4]})
    lists = kafka_throttle_lists(plan(("foo", 0, [5, 6])), current)
    assert lists["foo"] == {"leader": {"0:1", "0:2"}, "follower": {"0:5", "0:6"}}


def test_log_dir_rate_only_on_brokers_with_explicit_targets():
    p = plan(("foo", 0, [1, 2], ["/d1", "any"]), ("foo", 1, [3, 2], ["any", "any"]), ("foo", 2, [4]))
    assert log_dir_rate_brokers(p) == {1}


def test_merge_and_remove_list_values():
    assert merge_replica_lists("0:1,1:2", {"0:3", "0:1"}) == "0:1,0:3,1:2"
    assert merge_replica_lists(None, {"10:1", "2:1"}) == "2:1,10:1"
    assert merge_replica_lists("*", {"0:1"}) == "*"
    assert remove_from_replica_list("0:1,0:3,1:2", {"0:3"}) == "0:1,1:2"
    assert remove_from_replica_list("0:1", {"0:1"}) is None
    assert remove_from_replica_list("*", {"0:1"}) == "*"
    assert remove_from_replica_list("*", {"*"}) is None


# --- setting -------------------------------------------------------------------------------
def test_changes_merge_with_what_is_set_and_claim_only_what_they_add():
    current = Throttle(
        broker_rates={1: {LEADER_RATE: 5_000_000}, 2: {LEADER_RATE: 10_000_000, FOLLOWER_RATE: 10_000_000}},
        topic_replicas={"foo": {LEADER_REPLICAS: ("0:1", "7:9")}, "bar": {FOLLOWER_REPLICAS: ("*",)}},
    )
    lists = {"foo": {"leader": {"0:1", "0:2"}, "follower": {"0:5"}}, "bar": {"leader": {"0:2"}, "follower": {"0:1"}}}
    result = throttle_changes(current, lists=lists, rate_brokers={1, 2, 5}, rates=ThrottleRates.both(10_000_000))
    changes = set(result.changes)
    assert ConfigChange(topic("foo"), LEADER_REPLICAS, AlterOp.SET, "0:1,0:2,7:9") in changes
    assert ConfigChange(topic("foo"), FOLLOWER_REPLICAS, AlterOp.SET, "0:5") in changes
    assert ConfigChange(topic("bar"), LEADER_REPLICAS, AlterOp.SET, "0:2") in changes
    assert not any(c.resource == topic("bar") and c.name == FOLLOWER_REPLICAS for c in changes)  # "*" covers it
    # broker 2 already has exactly these rates: nothing to do, nothing claimed
    assert not any(c.resource == broker(2) for c in changes)
    assert set(result.rates) == {
        RateClaim(1, LEADER_RATE, 10_000_000, previous=5_000_000),
        RateClaim(1, FOLLOWER_RATE, 10_000_000),
        RateClaim(5, LEADER_RATE, 10_000_000),
        RateClaim(5, FOLLOWER_RATE, 10_000_000),
    }
    assert result.replicas == {"bar": {LEADER_REPLICAS: ("0:2",)},
                               "foo": {FOLLOWER_REPLICAS: ("0:5",), LEADER_REPLICAS: ("0:2",)}}


def test_replacing_another_plans_rate_inherits_its_previous():
    other = ThrottleRecord("planA", rates=(RateClaim(1, LEADER_RATE, 10, previous=3),))
    current = Throttle(broker_rates={1: {LEADER_RATE: 10}})
    result = throttle_changes(current, rate_brokers={1}, rates=ThrottleRates(leader=20), records=[other])
    assert result.rates == (RateClaim(1, LEADER_RATE, 20, previous=3, replaced=10),)


def test_a_rate_set_over_another_records_value_gives_that_value_back_while_it_is_claimed():
    """`throttle set` (the "manual" record) 10, then plans A at 20 and B at 30: B's removal gives
    back A's 20, A's then the manual 10, the manual's then the person's 3. Each record keeps
    what it claims; none is left claiming a rate that is gone. Removal used to delete the rate
    (every claim inherited the person's "nothing before")."""
    manual = ThrottleRecord("manual", rates=(RateClaim(1, LEADER_RATE, 10, previous=3),), created_at="2026-01-01T00:00:00Z")
    rates = {1: {LEADER_RATE: 10}}
    a_claims = throttle_changes(Throttle(broker_rates=rates), rate_brokers={1}, rates=ThrottleRates(leader=20), records=[manual])
    a = ThrottleRecord("a", rates=a_claims.rates, created_at="2026-01-02T00:00:00Z")
    b_claims = throttle_changes(Throttle(broker_rates={1: {LEADER_RATE: 20}}), rate_brokers={1}, rates=ThrottleRates(leader=30), records=[manual, a])
    b = ThrottleRecord("b", rates=b_claims.rates, created_at="2026-01-03T00:00:00Z")
    assert b.rates == (RateClaim(1, LEADER_RATE, 30, previous=3, replaced=20),)

    removed_b = removal_changes(b, Throttle(broker_rates={1: {LEADER_RATE: 30}}), ThrottleNeeds(), others=[manual, a])
    assert removed_b.changes == (ConfigChange(broker(1), LEADER_RATE, AlterOp.SET, "20"),)
    assert prune_records([manual, a], removed_b) == [manual, a]  # both still claim what they set
    removed_a = removal_changes(a, Throttle(broker_rates={1: {LEADER_RATE: 20}}), ThrottleNeeds(), others=[manual])
    assert removed_a.changes == (ConfigChange(broker(1), LEADER_RATE, AlterOp.SET, "10"),)
    removed_manual = removal_changes(manual, Throttle(broker_rates={1: {LEADER_RATE: 10}}), ThrottleNeeds())
    assert removed_manual.changes == (ConfigChange(broker(1), LEADER_RATE, AlterOp.SET, "3"),)

    # A verified first (B's rate is set: A's claim is dropped): B then gives back the manual 10.
    removed_b = removal_changes(b, Throttle(broker_rates={1: {LEADER_RATE: 30}}), ThrottleNeeds(), others=[manual])
    assert removed_b.changes == (ConfigChange(broker(1), LEADER_RATE, AlterOp.SET, "10"),)
    # The manual record gone too: the person's value.
    removed_b = removal_changes(b, Throttle(broker_rates={1: {LEADER_RATE: 30}}), ThrottleNeeds())
    assert removed_b.changes == (ConfigChange(broker(1), LEADER_RATE, AlterOp.SET, "3"),)


def test_a_rate_a_person_changed_after_kadmin_is_theirs_to_get_back():
    """The manual record claims 10, a person (another tool) set 15 since: a plan setting 20 over
    it replaced a person's value; removal gives back 15, and the manual record's claim of a value
    no longer set goes (as before)."""
    manual = ThrottleRecord("manual", rates=(RateClaim(1, LEADER_RATE, 10),))
    ts = throttle_changes(Throttle(broker_rates={1: {LEADER_RATE: 15}}), rate_brokers={1}, rates=ThrottleRates(leader=20), records=[manual])
    assert ts.rates == (RateClaim(1, LEADER_RATE, 20, previous=15),)
    plan_record = ThrottleRecord("p", rates=ts.rates)
    removal = removal_changes(plan_record, Throttle(broker_rates={1: {LEADER_RATE: 20}}), ThrottleNeeds(), others=[manual])
    assert removal.changes == (ConfigChange(broker(1), LEADER_RATE, AlterOp.SET, "15"),)
    assert prune_records([manual], removal)[0].rates == ()


def test_a_record_with_a_replaced_value_reads_back_and_older_records_read_as_before():
    r = ThrottleRecord("p", rates=(RateClaim(1, LEADER_RATE, 20, previous=3, replaced=10), RateClaim(2, LEADER_RATE, 5)))
    doc = r.to_json()
    assert doc["rates"][1] == {"broker": 2, "config": LEADER_RATE, "value": 5, "previous": None}
    assert doc["rates"][0]["replaced"] == 10
    assert ThrottleRecord.loads(r.dumps()) == r


# --- removing ------------------------------------------------------------------------------
def record():
    return ThrottleRecord(
        "plan1",
        rates=(RateClaim(1, LEADER_RATE, 100), RateClaim(1, FOLLOWER_RATE, 100),
               RateClaim(4, LEADER_RATE, 100, previous=50), RateClaim(4, FOLLOWER_RATE, 100),
               RateClaim(4, LOG_DIR_RATE, 70)),
        replicas={"foo": {LEADER_REPLICAS: ("0:1", "1:1"), FOLLOWER_REPLICAS: ("0:4", "1:4")}},
    )


def set_throttles(**extra):
    rates = {1: {LEADER_RATE: 100, FOLLOWER_RATE: 100}, 4: {LEADER_RATE: 100, FOLLOWER_RATE: 100, LOG_DIR_RATE: 70}}
    rates.update(extra.get("rates", {}))
    return Throttle(
        broker_rates=rates,
        topic_replicas={"foo": {LEADER_REPLICAS: ("0:1", "1:1", "5:2"), FOLLOWER_REPLICAS: ("0:4", "1:4")}},
    )


def test_removal_takes_only_what_the_record_set_and_restores_previous_rates():
    r = removal_changes(record(), set_throttles(), ThrottleNeeds())
    changes = set(r.changes)
    assert ConfigChange(broker(1), LEADER_RATE, AlterOp.DELETE) in changes
    assert ConfigChange(broker(4), LEADER_RATE, AlterOp.SET, "50") in changes  # a person's value comes back
    assert ConfigChange(broker(4), LOG_DIR_RATE, AlterOp.DELETE) in changes
    assert ConfigChange(topic("foo"), LEADER_REPLICAS, AlterOp.SET, "5:2") in changes  # someone else's entry stays
    assert ConfigChange(topic("foo"), FOLLOWER_REPLICAS, AlterOp.DELETE) in changes
    assert r.kept.empty


def test_removal_keeps_what_a_running_move_needs():
    # foo-1 still moves from 1 to 4; broker 4 still has a future replica.
    needs = ThrottleNeeds.of({TP("foo", 1): PartitionReassignment("foo", 1, (4, 1), (4,), (1,))},
                             log_dir_moving_brokers={4})
    r = removal_changes(record(), set_throttles(), needs)
    changes = set(r.changes)
    assert not any(c.resource.type == ConfigResourceType.BROKER for c in changes)
    assert ConfigChange(topic("foo"), LEADER_REPLICAS, AlterOp.SET, "1:1,5:2") in changes
    assert ConfigChange(topic("foo"), FOLLOWER_REPLICAS, AlterOp.SET, "1:4") in changes
    assert r.kept.replicas == {"foo": {FOLLOWER_REPLICAS: ("1:4",), LEADER_REPLICAS: ("1:1",)}}
    assert {(c.broker, c.name) for c in r.kept.rates} == {
        (1, LEADER_RATE), (1, FOLLOWER_RATE), (4, LEADER_RATE), (4, FOLLOWER_RATE), (4, LOG_DIR_RATE)}
    forced = removal_changes(record(), set_throttles(), needs, force=True)
    assert forced.kept.empty
    assert ConfigChange(broker(1), LEADER_RATE, AlterOp.DELETE) in forced.changes


def test_a_rate_changed_by_someone_else_is_left_alone():
    current = set_throttles(rates={1: {LEADER_RATE: 999, FOLLOWER_RATE: 100}})
    r = removal_changes(record(), current, ThrottleNeeds())
    assert not any(c.resource == broker(1) and c.name == LEADER_RATE for c in r.changes)
    assert ConfigChange(broker(1), FOLLOWER_RATE, AlterOp.DELETE) in r.changes
    assert r.kept.empty


# --- show / stale / clear ------------------------------------------------------------------
def test_stale_flags_and_clear_stale_leaves_needed_throttles():
    current = Throttle(
        broker_rates={1: {LEADER_RATE: 100}, 2: {FOLLOWER_RATE: 100}, 3: {LEADER_RATE: 7}},
        topic_replicas={"foo": {LEADER_REPLICAS: ("0:1", "3:3")}, "bar": {FOLLOWER_REPLICAS: ("*",)}},
    )
    needs = ThrottleNeeds.of({TP("foo", 0): PartitionReassignment("foo", 0, (2, 1), (2,), (1,))})
    items = {(i.resource, i.config): i for i in throttle_items(current, needs, [ThrottleRecord(
        "planX", rates=(RateClaim(1, LEADER_RATE, 100),), replicas={"foo": {LEADER_REPLICAS: ("0:1",)}})])}
    assert items[("1", LEADER_RATE)].plan_ids == ("planX",) and not items[("1", LEADER_RATE)].stale
    assert items[("3", LEADER_RATE)].stale and items[("3", LEADER_RATE)].plan_ids == ()
    assert items[("foo", LEADER_REPLICAS)].unneeded_entries == ("3:3",)
    assert items[("bar", FOLLOWER_REPLICAS)].stale

    r = stale_throttles(current, needs)
    assert set(r.changes) == {
        ConfigChange(broker(3), LEADER_RATE, AlterOp.DELETE),
        ConfigChange(topic("foo"), LEADER_REPLICAS, AlterOp.SET, "0:1"),
        ConfigChange(topic("bar"), FOLLOWER_REPLICAS, AlterOp.DELETE),
    }


def test_left_behind_is_what_no_record_owns_and_no_move_needs_on_any_broker_and_the_plans_topics():
    current = Throttle(
        broker_rates={1: {LEADER_RATE: 100}, 2: {FOLLOWER_RATE: 100}, 3: {LEADER_RATE: 7}, DEFAULT_BROKER_ID: {LEADER_RATE: 9}},
        topic_replicas={"foo": {LEADER_REPLICAS: ("0:1", "3:3")}, "bar": {FOLLOWER_REPLICAS: ("0:4",)},
                        "baz": {LEADER_REPLICAS: ("0:5",)}},
    )
    needs = ThrottleNeeds.of({TP("foo", 0): PartitionReassignment("foo", 0, (2, 1), (2,), (1,))})  # needs 1 and 2
    other_plan = ThrottleRecord("planY", replicas={"baz": {LEADER_REPLICAS: ("0:5",)}})
    left = left_behind(throttle_items(current, needs, [other_plan]), ["foo", "bar", "baz"])
    assert {(i.resource, i.config) for i in left} == {
        ("3", LEADER_RATE),  # stale and unrecorded: any broker counts (1 and 2 are needed)
        ("foo", LEADER_REPLICAS),  # partly unneeded (3:3), unrecorded
        ("bar", FOLLOWER_REPLICAS),
    }  # the cluster-wide default is needed while anything moves
    # baz is another kadmin plan's (its own verify removes it); a topic outside the plan is not named
    assert left_behind(throttle_items(current, needs, [other_plan]), ["foo"]) == [
        i for i in left if i.resource != "bar"]
    idle = left_behind(throttle_items(current, ThrottleNeeds(), []), [])  # nothing moves: every rate
    assert {i.resource for i in idle} == {"1", "2", "3", "<default>"} and {i.kind for i in idle} == {"broker_rate"}


def test_clear_all_respects_needs_unless_forced():
    current = Throttle(broker_rates={2: {FOLLOWER_RATE: 100}}, topic_replicas={"foo": {FOLLOWER_REPLICAS: ("0:2",)}})
    needs = ThrottleNeeds.of({TP("foo", 0): PartitionReassignment("foo", 0, (2, 1), (2,), (1,))})
    assert clear_changes(current, needs).changes == ()
    assert len(clear_changes(current, needs, force=True).changes) == 2


def test_current_throttles_reads_only_dynamic_values():
    configs = {
        broker(1): {LEADER_RATE: ConfigEntry(LEADER_RATE, "100", ConfigSource.DYNAMIC_BROKER),
                    FOLLOWER_RATE: ConfigEntry(FOLLOWER_RATE, "100", ConfigSource.DEFAULT)},
        topic("foo"): {LEADER_REPLICAS: ConfigEntry(LEADER_REPLICAS, "1:1,0:1", ConfigSource.TOPIC),
                       FOLLOWER_REPLICAS: ConfigEntry(FOLLOWER_REPLICAS, "", ConfigSource.DEFAULT)},
    }
    t = current_throttles(configs)
    assert t.broker_rates == {1: {LEADER_RATE: 100}}
    assert t.topic_replicas == {"foo": {LEADER_REPLICAS: ("0:1", "1:1")}}


# --- issue 12: defaults, shared rates, records that drifted ---------------------------------------
def test_a_cluster_wide_default_rate_is_read_needed_while_anything_moves_and_removed_by_its_empty_name():
    default = ConfigResource(ConfigResourceType.BROKER, "")
    configs = {default: {LEADER_RATE: ConfigEntry(LEADER_RATE, "7000", ConfigSource.DYNAMIC_DEFAULT_BROKER)},
               broker(1): {LEADER_RATE: ConfigEntry(LEADER_RATE, "7000", ConfigSource.DYNAMIC_DEFAULT_BROKER)}}
    current = current_throttles(configs)
    assert current.broker_rates == {DEFAULT_BROKER_ID: {LEADER_RATE: 7000}}  # broker 1 only inherits it
    idle, moving = ThrottleNeeds(), ThrottleNeeds(rate_brokers=frozenset({3}))
    assert idle.needs_rate(DEFAULT_BROKER_ID, LEADER_RATE) is False
    assert moving.needs_rate(DEFAULT_BROKER_ID, LEADER_RATE) is True
    [item] = throttle_items(current, idle, [])
    assert (item.resource, item.stale) == ("<default>", True)
    assert stale_throttles(current, idle).changes == (ConfigChange(default, LEADER_RATE, AlterOp.DELETE),)
    assert stale_throttles(current, moving).changes == ()


def test_a_rate_another_kadmin_record_set_to_the_same_value_is_claimed_too_with_its_previous():
    current = Throttle(broker_rates={1: {LEADER_RATE: 1000}, 2: {LEADER_RATE: 1000}})
    a = ThrottleRecord("a", rates=(RateClaim(1, LEADER_RATE, 1000, previous=None),))
    ts = throttle_changes(current, rate_brokers=[1, 2], rates=ThrottleRates(1000, None), records=[a])
    assert ts.changes == ()
    assert ts.rates == (RateClaim(1, LEADER_RATE, 1000, None),)  # broker 2's is a person's: not claimed
    assert ts.claims_anything


def test_a_rate_two_plans_set_to_the_same_value_stays_until_the_last_of_them_is_removed():
    """mplan sets the log-dir rate; its rollback (--additional, same rate) finds it set and
    claims it too. Removing the rollback's claim, with nothing moving and even with --force,
    leaves the rate (it is mplan's too) and drops only the rollback's claim, naming mplan;
    removing mplan's then deletes it (or gives back the person's value). Removal used to delete
    the rate at the first removal: the rollback deleted a throttle mplan had set."""
    from kadmin.throttling.maths import SharedRate

    current = Throttle(broker_rates={2: {LOG_DIR_RATE: 1_000_000}, 4: {LOG_DIR_RATE: 1_000_000}})
    mplan = ThrottleRecord("mplan", rates=(RateClaim(2, LOG_DIR_RATE, 1_000_000), RateClaim(4, LOG_DIR_RATE, 1_000_000, previous=5)))
    ts = throttle_changes(current, log_dir_brokers={2, 4}, rates=ThrottleRates(log_dir=1_000_000), records=[mplan])
    assert ts.changes == ()
    rollback = ThrottleRecord("rollback", rates=ts.rates)
    assert rollback.rates == mplan.rates  # claimed, with mplan's previous

    for force in (False, True):
        removal = removal_changes(rollback, current, ThrottleNeeds(), force=force, others=[mplan])
        assert removal.changes == () and removal.removed_rates == ()
        assert removal.kept.empty  # the rollback's record drops its claims
        assert removal.shared == tuple(SharedRate(c, ("mplan",)) for c in rollback.rates)
        assert removal.shared[0].line() == f"broker 2 {LOG_DIR_RATE} 1000000: still claimed by plan mplan"
        assert prune_records([mplan], removal) == [mplan]  # mplan keeps its claims

    # While a move needs it too: the rollback's claim still goes (mplan holds the rate); were it
    # kept, mplan's removal would leave the rate to the rollback in turn, and nobody remove it.
    moving = ThrottleNeeds(log_dir_brokers=frozenset({2, 4}))
    assert removal_changes(rollback, current, moving, others=[mplan]) == removal

    last = removal_changes(mplan, current, ThrottleNeeds(), others=[removal.kept])
    assert last.changes == (ConfigChange(broker(2), LOG_DIR_RATE, AlterOp.DELETE), ConfigChange(broker(4), LOG_DIR_RATE, AlterOp.SET, "5"))
    assert last.shared == () and last.kept.empty
    # A record claiming another value is no share: the rate is removed and given back that value.
    other_value = ThrottleRecord("x", rates=(RateClaim(2, LOG_DIR_RATE, 2_000_000),))
    assert removal_changes(rollback, current, ThrottleNeeds(), others=[other_value]).shared == ()


def test_reconcile_drops_what_someone_else_removed_and_keeps_claims_on_brokers_that_are_down():
    current = Throttle(broker_rates={1: {LEADER_RATE: 1000}}, topic_replicas={"t": {LEADER_REPLICAS: ("0:1",)}})
    r = ThrottleRecord("m", rates=(RateClaim(1, LEADER_RATE, 1000), RateClaim(2, LEADER_RATE, 1000),
                                   RateClaim(3, LEADER_RATE, 1000)),
                       replicas={"t": {LEADER_REPLICAS: ("0:1", "1:1")}})
    [kept] = reconcile_records([r], current, unreadable={3})
    assert kept.rates == (RateClaim(1, LEADER_RATE, 1000), RateClaim(3, LEADER_RATE, 1000))
    assert kept.replicas == {"t": {LEADER_REPLICAS: ("0:1",)}}


# --- rates only where configs can change (a dead broker being evacuated) ----------------------
def _evacuation(down_configurable):
    import json

    from kadmin.execute.plan_of_changes import ClusterView, ExecuteRequest, plan_execution
    from kadmin.plan.reassignment_file import parse_reassignment

    parts = {TP("foo", 0): PartitionState("foo", 0, 0, (3, 0), (0,)), TP("foo", 1): PartitionState("foo", 1, 1, (1, 3), (1,))}
    alive = ClusterState("c", 0, {b: Broker(b, "127.0.0.1", 9000 + b) for b in (0, 1, 2)}, parts)  # broker 3 is down
    text = json.dumps({"version": 1, "partitions": [{"topic": "foo", "partition": 0, "replicas": [0, 2]},
                                                    {"topic": "foo", "partition": 1, "replicas": [1, 2]}]})
    req = ExecuteRequest(parse_reassignment(text), "pid", "rb.json", throttle=5_000_000)
    view = ClusterView(alive, {}, {}, {}, {}, None, down_configurable)
    return plan_execution(req, view)


def test_execute_plans_no_rate_on_a_down_broker_whose_configs_cannot_change():
    xplan = _evacuation(down_configurable=False)
    assert {c.resource.name for c in xplan.throttles.changes if c.resource.type is ConfigResourceType.BROKER} == {"0", "1", "2"}
    assert xplan.rates_skipped == {3}
    assert len(xplan.warnings) == 1 and "broker 3 is down" in xplan.warnings[0]
    assert "`kadmin throttle set --rate 5000000 --brokers 3`" in xplan.warnings[0]
    # the lists still name broker 3 as a source (a topic config: it applies once broker 3 is back)
    lists = {(c.resource.name, c.name): c.value for c in xplan.throttles.changes if c.resource.type is ConfigResourceType.TOPIC}
    assert lists[("foo", LEADER_REPLICAS)] == "0:0,0:3,1:1,1:3"


def test_execute_plans_the_rate_of_a_down_broker_zookeeper_holds():
    xplan = _evacuation(down_configurable=True)
    assert "3" in {c.resource.name for c in xplan.throttles.changes if c.resource.type is ConfigResourceType.BROKER}
    assert xplan.rates_skipped == frozenset() and xplan.warnings == ()


def test_check_targets_refuses_a_broker_whose_configs_cannot_change_before_any_change():
    import pytest

    from kadmin.errors import NotFoundError
    from kadmin.throttling.operations import check_targets

    parts = {TP("foo", 0): PartitionState("foo", 0, 0, (3, 0), (0,))}
    c = ClusterState("c", 0, {b: Broker(b, "127.0.0.1", 9000 + b) for b in (0, 1, 2)}, parts)
    change = ConfigChange(broker(3), LEADER_RATE, AlterOp.SET, "1")
    with pytest.raises(NotFoundError, match=r"broker 3 not in the cluster \(broker not alive"):
        check_targets([change], c)
    check_targets([change], c, {0, 1, 2, 3})  # ZooKeeper: it can be changed
