"""The sandbox's ElectLeaders against Kafka's semantics (KRaft ReplicationControlManager.electLeader,
ZooKeeper-mode KafkaController): v0 has no election type (always preferred); an all-partitions
request (null) leaves out only the partitions needing no election, failures stay; an unclean
election takes a live in-sync replica first and an out-of-ISR one only when none is live."""

from __future__ import annotations

from tests.sandbox.clients import raw


def _request(election_type, partitions):
    from kafka.protocol.admin.topics import ElectLeadersRequest as EL

    tps = None if partitions is None else [EL.TopicPartitions(topic=t, partitions=ps) for t, ps in partitions.items()]
    return EL(election_type=election_type, topic_partitions=tps, timeout_ms=5000)


def _answers(resp):
    return {(r.topic, p.partition_id): p.error_code for r in resp.replica_election_results for p in r.partition_result}


def _moved_leaders(sb):
    """t-0 [0,1] and t-1 [0,1] led by 1 (0 restarted); t-2 [1,0] led by its preferred 1."""
    sb.create_topic("t", assignment={0: [0, 1], 1: [0, 1], 2: [1, 0]})
    sb.faults.broker_stop(0)
    sb.faults.broker_start(0)


def test_v0_is_a_preferred_election(sandbox_factory):
    sb = sandbox_factory(brokers=2, manual_clock=True)
    _moved_leaders(sb)
    sb.clock.advance(1)
    resp = raw(sb, 1, _request(1, {"t": [0, 2]}), version=0)  # the type is not on the wire in v0
    assert _answers(resp) == {("t", 0): 0, ("t", 2): 84}
    assert sb.snapshot().partition("t", 0).leader == 0


def test_all_partitions_leaves_out_only_those_not_needing_election(sandbox_factory):
    sb = sandbox_factory(brokers=2, manual_clock=True)
    _moved_leaders(sb)  # broker 0 is back but outside the ISR: the preferred election fails
    resp = raw(sb, 1, _request(0, None), version=2)
    assert _answers(resp) == {("t", 0): 80, ("t", 1): 80}


def test_unclean_takes_a_live_isr_replica_first(sandbox_factory):
    sb = sandbox_factory(brokers=3, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1, 2]})
    sb.faults.broker_stop(0)  # ISR [1,2], leader 1
    sb.faults.broker_start(0)  # live again, catching up outside the ISR
    resp = raw(sb, 1, _request(1, {"t": [0]}), version=2)
    assert _answers(resp) == {("t", 0): 84}  # a live leader: nothing to do

    engine = sb.engine
    engine.call(lambda: setattr(engine.cluster.partition_by("t", 0), "leader", -1))  # leaderless, ISR live
    resp = raw(sb, 1, _request(1, {"t": [0]}), version=2)
    assert _answers(resp) == {("t", 0): 0}
    p = sb.snapshot().partition("t", 0)
    # Not broker 0 (first live replica, out of sync): the in-sync 1, and the ISR is kept.
    assert p.leader == 1 and set(p.isr) == {1, 2}
