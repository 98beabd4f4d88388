"""Reassignments and log-dir moves as Kafka carries them out, timed with the manual clock."""

from __future__ import annotations

from tests.sandbox.clients import describe_log_dirs, kafka_python, partitions_of, raw

MiB = 2**20
D0, D1 = "/var/lib/kafka/data0", "/var/lib/kafka/data1"


def _set_configs(sb, broker_configs: dict[str, dict[str, str]] = {}, topic_configs: dict[str, dict[str, str]] = {}):
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource

    from tests.sandbox.clients import confluent

    admin = confluent(sb)
    resources = [ConfigResource("broker", b, incremental_configs=[
        ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET) for k, v in cfg.items()])
        for b, cfg in broker_configs.items()]
    resources += [ConfigResource("topic", t, incremental_configs=[
        ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET) for k, v in cfg.items()])
        for t, cfg in topic_configs.items()]
    for resource in resources:  # librdkafka allows one BROKER resource per call
        for f in admin.incremental_alter_configs([resource]).values():
            f.result(timeout=10)


def _reassign(sb, moves):
    from kafka import TopicPartition

    with kafka_python(sb) as admin:
        result = admin.alter_partition_reassignments({TopicPartition(t, p): r for (t, p), r in moves.items()})
    assert all(e is None for e in result.values()), result


def _throttle_all(sb, rate: int):
    _set_configs(sb, {str(b): {"leader.replication.throttled.rate": str(rate),
                               "follower.replication.throttled.rate": str(rate)} for b in (0, 1, 2)})


def test_throttled_reassignment_adds_and_removes_replicas_at_the_throttled_rate(sandbox_factory):
    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=10 * MiB)
    _throttle_all(sb, MiB)
    _set_configs(sb, topic_configs={"t": {"leader.replication.throttled.replicas": "0:0,0:1",
                                          "follower.replication.throttled.replicas": "0:2"}})
    _reassign(sb, {("t", 0): [1, 2]})

    p = sb.snapshot().partition("t", 0)
    assert (p.replicas, p.adding, p.removing, p.leader) == ((1, 2, 0), (2,), (0,), 0)
    sb.clock.advance(5)
    snap = sb.snapshot()
    assert 2 not in snap.partition("t", 0).isr
    assert abs(snap.replica("t", 0, 2).size - 5 * MiB) <= MiB // 4  # 1 MiB/s
    # The new replica shows as a normal (not future) replica with offset lag 0 and a growing size.
    on_2 = {k: v for d in describe_log_dirs(sb, brokers=[2])[2].values() for k, v in partitions_of(d).items()}
    assert on_2[("t", 0, False)]["offset_lag"] == 0
    sb.clock.advance(4.5)
    assert sb.snapshot().partition("t", 0).reassigning  # 9.5 s: still copying
    sb.clock.advance(0.75)
    snap = sb.snapshot()
    p = snap.partition("t", 0)
    assert (p.replicas, p.isr, p.adding, p.removing) == ((1, 2), (1, 2), (), ())
    assert p.leader == 1  # the old leader was removed: first live in-sync replica of the target
    assert snap.replica("t", 0, 0) is None  # removed replica deleted
    assert snap.replica("t", 0, 2).size == 10 * MiB
    with kafka_python(sb) as admin:
        assert admin.list_partition_reassignments() == {}


def test_unthrottled_copy_runs_at_broker_bandwidth_and_throttle_applies_only_to_listed_replicas(sandbox_factory):
    sb = sandbox_factory(manual_clock=True, bandwidth=10 * MiB)
    sb.create_topic("t", assignment={0: [0], 1: [1]}, size_bytes=10 * MiB)
    _throttle_all(sb, MiB)
    # Only partition 1's follower on broker 2 is listed.
    _set_configs(sb, topic_configs={"t": {"follower.replication.throttled.replicas": "1:2"}})
    _reassign(sb, {("t", 0): [0, 2], ("t", 1): [1, 2]})
    sb.clock.advance(1.25)
    snap = sb.snapshot()
    # Broker 2's inbound bandwidth is shared: the throttled follower takes 1 MiB/s, the other 9.
    assert not snap.partition("t", 0).reassigning
    assert snap.partition("t", 1).reassigning
    assert abs(snap.replica("t", 1, 2).size - 1.25 * MiB) <= MiB // 4


def test_followers_on_one_broker_share_its_follower_quota(sandbox_factory):
    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", assignment={0: [0], 1: [1]}, size_bytes=10 * MiB)
    _throttle_all(sb, 2 * MiB)
    _set_configs(sb, topic_configs={"t": {"follower.replication.throttled.replicas": "*"}})
    _reassign(sb, {("t", 0): [0, 2], ("t", 1): [1, 2]})
    sb.clock.advance(9.5)  # 2 MiB/s shared by two replicas: 1 MiB/s each, 10 s
    assert all(sb.snapshot().partition("t", p).reassigning for p in (0, 1))
    sb.clock.advance(0.75)
    assert not any(sb.snapshot().partition("t", p).reassigning for p in (0, 1))


def test_follower_catches_up_with_a_growing_log(sandbox_factory):
    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", assignment={0: [0]}, size_bytes=4 * MiB, produce_rate=MiB)
    _throttle_all(sb, 2 * MiB)
    _set_configs(sb, topic_configs={"t": {"follower.replication.throttled.replicas": "0:1"}})
    _reassign(sb, {("t", 0): [0, 1]})
    sb.clock.advance(3.5)  # gap closes at 1 MiB/s net: 4 s
    assert sb.snapshot().partition("t", 0).reassigning
    sb.clock.advance(0.75)
    snap = sb.snapshot()
    assert not snap.partition("t", 0).reassigning
    assert snap.replica("t", 0, 1).end_offset == snap.replica("t", 0, 0).end_offset


def test_an_in_sync_follower_is_not_throttled(sandbox_factory):
    """Throttles apply only to replicas outside the ISR: a follower in sync keeps up with a
    producer far faster than the rates, though `*` lists it on both sides."""
    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=MiB, produce_rate=4 * MiB)
    _throttle_all(sb, 1000)
    _set_configs(sb, topic_configs={"t": {"leader.replication.throttled.replicas": "*",
                                          "follower.replication.throttled.replicas": "*"}})
    sb.clock.advance(5)
    snap = sb.snapshot()
    assert snap.partition("t", 0).isr == (0, 1)
    assert snap.replica("t", 0, 1).size == snap.replica("t", 0, 0).size == 21 * MiB
    assert snap.replica("t", 0, 1).end_offset == snap.replica("t", 0, 0).end_offset


def test_cancel_midway_reverts_to_the_original_replicas(sandbox_factory):
    from kafka import TopicPartition

    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=10 * MiB)
    _throttle_all(sb, MiB)
    _set_configs(sb, topic_configs={"t": {"follower.replication.throttled.replicas": "*"}})
    _reassign(sb, {("t", 0): [2, 1]})
    sb.clock.advance(3)
    assert sb.snapshot().replica("t", 0, 2) is not None
    with kafka_python(sb) as admin:
        assert admin.alter_partition_reassignments({TopicPartition("t", 0): None}) == {TopicPartition("t", 0): None}
        assert admin.list_partition_reassignments() == {}
    snap = sb.snapshot()
    p = snap.partition("t", 0)
    # Kafka reverts to RS minus adding, in RS order (PartitionReassignmentRevert): [2,1,0] -> [1,0].
    assert (p.replicas, p.leader, p.adding, p.removing) == ((1, 0), 0, (), ())
    assert snap.replica("t", 0, 2) is None  # the adding replica was deleted


def test_target_broker_down_makes_the_partition_wait(sandbox_factory):
    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=MiB)
    sb.faults.broker_stop(2)
    _reassign(sb, {("t", 0): [1, 2]})  # KRaft: a registered (if stopped) broker is accepted
    sb.clock.advance(30)
    assert sb.snapshot().partition("t", 0).reassigning
    sb.faults.broker_start(2)
    sb.clock.advance(1)
    p = sb.snapshot().partition("t", 0)
    assert (p.replicas, p.leader, p.reassigning) == ((1, 2), 1, False)


def test_move_between_directories_through_a_future_replica(sandbox_factory):
    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=10 * MiB, log_dirs={(0, 0): D0})
    _set_configs(sb, {"0": {"replica.alter.log.dirs.io.max.bytes.per.second": str(MiB)}})
    with kafka_python(sb) as admin:
        assert all(e.errno == 0 for e in admin.alter_replica_log_dirs({("t", 0, 0): D1}).values())
    sb.clock.advance(4)
    dirs = describe_log_dirs(sb, brokers=[0])[0]
    current = partitions_of(dirs[D0])[("t", 0, False)]
    future = partitions_of(dirs[D1])[("t", 0, True)]
    assert current["partition_size"] == 10 * MiB
    assert abs(future["partition_size"] - 4 * MiB) <= MiB // 4
    assert future["offset_lag"] == current["partition_size"] // 1024 - future["partition_size"] // 1024
    sb.clock.advance(6.25)
    snap = sb.snapshot()
    assert snap.replica_dir("t", 0, 0) == D1
    assert snap.future_replica("t", 0, 0) is None
    assert snap.replica("t", 0, 0).size == 10 * MiB


def test_log_dir_moves_run_one_at_a_time_per_broker(sandbox_factory):
    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", assignment={0: [0], 1: [0]}, size_bytes=2 * MiB, log_dirs={(0, 0): D0, (1, 0): D0})
    _set_configs(sb, {"0": {"replica.alter.log.dirs.io.max.bytes.per.second": str(MiB)}})
    with kafka_python(sb) as admin:
        admin.alter_replica_log_dirs({("t", 0, 0): D1, ("t", 1, 0): D1})
    sb.clock.advance(1)
    snap = sb.snapshot()
    sizes = sorted(f.size for f in snap.brokers[0].dirs[D1].futures.values())
    assert sizes == [0, MiB]
    sb.clock.advance(3.25)
    snap = sb.snapshot()
    assert snap.replica_dir("t", 0, 0) == D1 and snap.replica_dir("t", 1, 0) == D1


def test_alter_replica_log_dirs_before_the_replica_exists_is_remembered(sandbox_factory):
    from kafka.errors import ReplicaNotAvailableError

    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=MiB)
    with kafka_python(sb) as admin:
        assert list(admin.alter_replica_log_dirs({("t", 0, 2): D1}).values()) == [ReplicaNotAvailableError]
    _reassign(sb, {("t", 0): [0, 1, 2]})
    sb.clock.advance(1)
    snap = sb.snapshot()
    assert snap.replica_dir("t", 0, 2) == D1  # the least-loaded rule alone would pick data0
    assert not snap.partition("t", 0).reassigning


def test_directory_offline_moves_leadership_and_reports_offline_replicas(sandbox_factory):
    from kafka.protocol.metadata.metadata import MetadataRequest

    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1, 2]}, size_bytes=MiB, log_dirs={(0, 0): D0})
    sb.faults.dir_offline(0, D0)
    md = raw(sb, 1, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="t")],
                                    allow_auto_topic_creation=False), 12)
    part = md.topics[0].partitions[0]
    assert part.leader_id == 1
    assert list(part.offline_replicas) == [0]
    assert 0 not in part.isr_nodes
    assert sb.snapshot().brokers[0].dirs[D0].online is False
    sb.faults.dir_online(0, D0)
    sb.clock.advance(1)
    assert 0 in sb.snapshot().partition("t", 0).isr


def test_stopped_broker_leaves_metadata_and_its_connections_drop(sandbox_factory):
    from tests.sandbox.clients import confluent

    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", assignment={0: [2, 0]})
    sb.faults.broker_stop(2)
    md = confluent(sb).list_topics(timeout=10)
    assert sorted(md.brokers) == [0, 1]
    assert md.topics["t"].partitions[0].leader == 0
    assert md.topics["t"].partitions[0].isrs == [0]
    import socket

    import pytest

    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", sb.ports[2]), timeout=2).close()


def test_slow_broker_delays_responses(sandbox_factory):
    import time

    from tests.sandbox.clients import confluent

    sb = sandbox_factory(brokers=1, manual_clock=True)
    admin = confluent(sb)
    admin.list_topics(timeout=10)
    sb.faults.slow(0, 400)
    start = time.monotonic()
    admin.list_topics(timeout=10)
    assert time.monotonic() - start >= 0.4


def test_a_distant_broker_answers_late_and_in_order_while_it_goes_on_with_the_requests_behind(
    sandbox_factory, monkeypatch
):
    """The latency fault: answers arrive late, in order, and the broker handles the requests sent
    behind the first meanwhile (pipelined requests wait one latency, not one each). The slow
    fault, a busy broker, would hold the second request until the first answer was sent."""
    import select
    import socket
    import struct
    import time

    from kadmin.sandbox.wire import BrokerServer

    handled = []
    handle = BrokerServer.handle
    monkeypatch.setattr(BrokerServer, "handle", lambda self, frame, session=None: handled.append(
        struct.unpack_from(">i", frame, 4)[0]) or handle(self, frame, session))
    sb = sandbox_factory(brokers=1, manual_clock=True)
    sb.faults.latency(0, 2000)
    with socket.create_connection(("127.0.0.1", sb.ports[0]), timeout=10) as s:
        start = time.monotonic()
        for correlation in (1, 2):  # ApiVersions v0, sent back to back
            frame = struct.pack(">hhih", 18, 0, correlation, 1) + b"t"
            s.sendall(struct.pack(">i", len(frame)) + frame)
        while handled != [1, 2] and time.monotonic() - start < 10:
            time.sleep(0.01)
        assert handled == [1, 2]
        assert select.select([s], [], [], 0)[0] == []  # both handled, neither answer here yet
        answers = []
        for _ in (1, 2):
            (n,) = struct.unpack(">i", s.recv(4, socket.MSG_WAITALL))
            answers.append(struct.unpack(">i", s.recv(n, socket.MSG_WAITALL)[:4])[0])
        assert answers == [1, 2] and time.monotonic() - start >= 2.0


def test_drop_connections_closes_client_sockets(sandbox_factory):
    import socket
    import struct

    sb = sandbox_factory(brokers=1, manual_clock=True)
    s = socket.create_connection(("127.0.0.1", sb.ports[0]), timeout=5)
    frame = struct.pack(">hhih", 18, 0, 1, 1) + b"t"
    s.sendall(struct.pack(">i", len(frame)) + frame)
    assert len(s.recv(4, socket.MSG_WAITALL)) == 4  # connected and answered
    s.recv(65536)
    sb.faults.drop_connections(0)
    assert s.recv(1) == b""  # closed by the broker
    s.close()
    socket.create_connection(("127.0.0.1", sb.ports[0]), timeout=5).close()  # still listening


def test_real_time_fixture_completes_a_reassignment_and_wait_for_sees_it(sandbox):
    """The ``sandbox`` fixture runs on simulated real time (50x): no clock to drive by hand."""
    _reassign(sandbox, {("payments", 0): [2, 1]})
    snap = sandbox.wait_for(lambda s: not s.partition("payments", 0).reassigning, timeout=10)
    assert snap.partition("payments", 0).replicas == (2, 1)
    assert snap.replica("payments", 0, 0) is None
    grown = sandbox.wait_for(lambda s: s.replica("orders", 0, 0).size > 20 * MiB, timeout=10)
    assert grown.now > 0  # produce traffic grows the log as time passes


def test_wait_for_times_out_with_a_clear_error(sandbox_factory):
    import pytest

    sb = sandbox_factory(manual_clock=True)
    with pytest.raises(TimeoutError, match="not met within 0.2s"):
        sb.wait_for(lambda s: False, timeout=0.2)


def test_a_directory_that_fills_goes_offline_and_leadership_moves(sandbox_factory):
    """Produce traffic fills broker 0's first directory (it also holds "pad"): the write that does
    not fit fails and Kafka takes the directory offline (LogDirFailureChannel), as if the disk had
    failed; leadership moves and the other directories keep serving."""
    sb = sandbox_factory(manual_clock=True, dir_capacity=100 * MiB)
    sb.create_topic("t", assignment={0: [0, 1, 2]}, size_bytes=60 * MiB, produce_rate=MiB,
                    log_dirs={(0, 0): D0, (0, 1): D0, (0, 2): D1})
    sb.create_topic("pad", assignment={0: [0]}, size_bytes=20 * MiB, log_dirs={(0, 0): D0})
    sb.clock.advance(10)  # broker 0's D0: 90 of 100 MiB
    assert all(d.online for b in sb.snapshot().brokers.values() for d in b.dirs.values())
    assert sb.snapshot().partition("t", 0).leader == 0
    sb.clock.advance(15)  # 105 MiB would not fit there; 85 MiB fits the others
    snap = sb.snapshot()
    offline = {(b, path) for b, broker in snap.brokers.items() for path, d in broker.dirs.items() if not d.online}
    assert offline == {(0, D0)}
    assert snap.partition("t", 0).leader == 1 and 0 not in snap.partition("t", 0).isr
    answers = describe_log_dirs(sb)
    assert answers[0][D0]["error_code"] == 56  # KAFKA_STORAGE_ERROR
    for b, dirs in answers.items():
        for path, d in dirs.items():
            if (b, path) != (0, D0):
                assert d["error_code"] == 0 and 0 < d["usable_bytes"] <= d["total_bytes"], (b, path, d)


def test_retention_bytes_keeps_a_growing_log_at_its_limit(sandbox_factory):
    """Size-based retention: Kafka deletes the oldest data once a partition passes retention.bytes
    (whole segments; the sandbox exactly at the limit), on the leader and its followers alike."""
    sb = sandbox_factory(manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=10 * MiB, produce_rate=MiB,
                    configs={"retention.bytes": str(12 * MiB)})
    sb.create_topic("u", assignment={0: [0, 1]}, size_bytes=10 * MiB, produce_rate=MiB)
    sb.clock.advance(1)
    assert sb.snapshot().replica("t", 0, 0).size == 11 * MiB
    sb.clock.advance(5)
    snap = sb.snapshot()
    assert [snap.replica("t", 0, b).size for b in (0, 1)] == [12 * MiB] * 2
    assert snap.replica("u", 0, 0).size == 16 * MiB  # no limit: it keeps growing


def test_a_broker_restart_keeps_epochs_a_reassignment_and_a_log_dir_move_in_flight(sandbox_factory):
    """Broker 1 stops and starts mid-move: its future replica is on disk and resumes where it
    stopped, the reassignment goes on, leader epochs only move forward (a guard: the fault path
    has kept them all along; the whole-sandbox restart is tests/sandbox/test_zookeeper_restart.py)."""
    from kafka.errors import NoError

    sb = sandbox_factory(brokers=4, manual_clock=True, bandwidth=MiB)
    sb.create_topic("t", assignment={0: [0, 1], 1: [1, 0]}, size_bytes=10 * MiB, log_dirs={(1, 1): D0})
    _reassign(sb, {("t", 0): [2, 3]})
    with kafka_python(sb) as admin:
        assert list(admin.alter_replica_log_dirs({("t", 1, 1): D1}).values()) == [NoError]
    sb.clock.advance(2)
    before = sb.snapshot()
    _, future = before.future_replica("t", 1, 1)
    assert 0 < future.size < 10 * MiB and before.partition("t", 0).reassigning
    sb.faults.broker_stop(1)
    sb.faults.broker_start(1)
    after = sb.snapshot()
    assert after.future_replica("t", 1, 1) == (D1, future)
    assert after.partition("t", 0).adding == (2, 3)
    assert after.partition("t", 1).leader_epoch > before.partition("t", 1).leader_epoch
    sb.clock.advance(20)
    done = sb.snapshot()
    assert done.replica_dir("t", 1, 1) == D1 and done.future_replica("t", 1, 1) is None
    assert done.partition("t", 0).replicas == (2, 3)
