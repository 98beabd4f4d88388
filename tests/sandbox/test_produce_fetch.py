"""Produce and Fetch: records go in through real clients (kafka-python, confluent-kafka, kcat),
come back byte for byte, and the partition's offsets and sizes agree everywhere; then kadmin's
throttle records, which live in a topic in AdminClient mode, work end to end."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time

import pytest

from tests.sandbox.clients import describe_log_dirs, partitions_of, raw

MiB = 2**20


def consume_all(sb, topic, partition=0, timeout=20.0):
    """kadmin's way of reading a partition: no group, assign, seek to beginning, read to the end."""
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(bootstrap_servers=sb.bootstrap, group_id=None, enable_auto_commit=False)
    try:
        tp = TopicPartition(topic, partition)
        consumer.assign([tp])
        end = consumer.end_offsets([tp])[tp]
        consumer.seek_to_beginning(tp)
        got, deadline = [], time.monotonic() + timeout
        while consumer.position(tp) < end:
            assert time.monotonic() < deadline, f"read {len(got)} of {end} records"
            for batch in consumer.poll(timeout_ms=200).values():
                got += [(m.offset, m.key, m.value) for m in batch]
        return end, got
    finally:
        consumer.close()


def produce_kafka_python(sb, topic, messages, partition=0, **kw):
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=sb.bootstrap, enable_idempotence=False, **kw)
    try:
        futures = [producer.send(topic, key=k, value=v, partition=partition) for k, v in messages]
        producer.flush(10)
        return [f.get(10).offset for f in futures] if kw.get("acks", 1) != 0 else None
    finally:
        producer.close(10)


def test_kafka_python_round_trip_and_consistent_offsets_and_sizes(sandbox_factory):
    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("t", assignment={0: [1, 0, 2]})
    messages = [(f"k{i}".encode(), f"value {i}".encode() * (i + 1)) for i in range(7)] + [(b"gone", None)]
    offsets = produce_kafka_python(sb, "t", messages[:4], acks=-1, linger_ms=50)
    offsets += produce_kafka_python(sb, "t", messages[4:], acks=1)
    assert offsets == list(range(8))
    end, got = consume_all(sb, "t")
    assert end == 8
    assert got == [(i, k, v) for i, (k, v) in enumerate(messages)]  # keys, values and tombstone intact
    # ListOffsets earliest/latest, the snapshot and DescribeLogDirs all see the same log.
    from kafka import KafkaConsumer, TopicPartition

    c = KafkaConsumer(bootstrap_servers=sb.bootstrap, group_id=None)
    try:
        tp = TopicPartition("t", 0)
        assert c.beginning_offsets([tp])[tp] == 0 and c.end_offsets([tp])[tp] == 8
    finally:
        c.close()
    snap = sb.snapshot()
    leader = snap.replica("t", 0, 1)
    assert leader.end_offset == 8 and leader.size > 0
    assert all(snap.replica("t", 0, b) == leader for b in (0, 2))  # the ISR holds it all
    sizes = {b: partitions_of(next(iter(d.values())))[("t", 0, False)]["partition_size"]
             for b, d in describe_log_dirs(sb).items()}
    assert sizes == {0: leader.size, 1: leader.size, 2: leader.size}


def test_confluent_kafka_round_trip_without_a_group(sandbox_factory):
    from confluent_kafka import Consumer, Producer, TopicPartition

    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("c", assignment={0: [2, 0], 1: [0, 1]})
    producer = Producer({"bootstrap.servers": sb.bootstrap, "acks": "all", "linger.ms": 5})
    delivered = []
    for i in range(20):
        producer.produce("c", key=f"k{i}", value=f"v{i}", partition=i % 2,
                         on_delivery=lambda err, msg: delivered.append((err, msg.partition(), msg.offset())))
    assert producer.flush(15) == 0
    assert all(err is None for err, _, _ in delivered) and len(delivered) == 20
    assert sorted(o for _, p, o in delivered if p == 1) == list(range(10))

    # librdkafka insists on a group.id; with assign() and no commits the group is never joined.
    consumer = Consumer({"bootstrap.servers": sb.bootstrap, "group.id": "unused", "enable.auto.commit": False,
                         "enable.partition.eof": True})
    try:
        consumer.assign([TopicPartition("c", 0, 0), TopicPartition("c", 1, 0)])
        got, eof, deadline = {}, set(), time.monotonic() + 20
        while eof != {0, 1}:
            assert time.monotonic() < deadline, f"eof on {eof}, got {len(got)} records"
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error():
                assert msg.error().code() == -191, msg.error()  # _PARTITION_EOF
                eof.add(msg.partition())
                continue
            got[(msg.partition(), msg.offset())] = (msg.key(), msg.value())
        lo, hi = consumer.get_watermark_offsets(TopicPartition("c", 1), timeout=10)
    finally:
        consumer.close()
    assert (lo, hi) == (0, 10)
    assert got == {(i % 2, i // 2): (f"k{i}".encode(), f"v{i}".encode()) for i in range(20)}


@pytest.mark.skipif(shutil.which("kcat") is None, reason="kcat is not installed")
def test_kcat_produce_then_consume(sandbox_factory):
    sb = sandbox_factory(brokers=2, log_dirs=1, manual_clock=True)
    sb.create_topic("k", assignment={0: [1, 0]})
    lines = "".join(f"key{i}:line {i}\n" for i in range(5))
    p = subprocess.run(["kcat", "-b", sb.bootstrap, "-P", "-t", "k", "-p", "0", "-K", ":"], input=lines,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    c = subprocess.run(["kcat", "-b", sb.bootstrap, "-C", "-t", "k", "-p", "0", "-o", "beginning", "-e",
                        "-f", "%o %k %s\n"], capture_output=True, text=True, timeout=60)
    assert c.returncode == 0, c.stderr
    assert c.stdout.splitlines() == [f"{i} key{i} line {i}" for i in range(5)]


def _produce_request(topic, partition, records, acks=-1, version=9):
    from kafka.protocol.producer import ProduceRequest as Q

    return Q(version=version, transactional_id=None, acks=acks, timeout_ms=5000, topic_data=[
        Q.TopicProduceData(name=topic, partition_data=[Q.TopicProduceData.PartitionProduceData(
            index=partition, records=records)])])


def _fetch_request(topic, partition, offset, max_bytes=MiB, version=11, max_wait_ms=0):
    from kafka.protocol.consumer import FetchRequest as Q

    return Q(version=version, replica_id=-1, max_wait_ms=max_wait_ms, min_bytes=1, max_bytes=max_bytes, isolation_level=0,
             session_id=0, session_epoch=-1, forgotten_topics_data=[], rack_id="", topics=[
                 Q.FetchTopic(topic=topic, partitions=[Q.FetchTopic.FetchPartition(
                     partition=partition, current_leader_epoch=-1, fetch_offset=offset, last_fetched_epoch=-1,
                     log_start_offset=-1, partition_max_bytes=max_bytes)])])


def _batch(n, size=10):
    """A magic v2 batch of ``n`` records built by kafka-python's own builder."""
    from kafka.record.memory_records import MemoryRecordsBuilder

    b = MemoryRecordsBuilder(magic=2, compression_type=0, batch_size=2**20)
    for i in range(n):
        b.append(timestamp=None, key=b"k%d" % i, value=b"x" * size, headers=[])
    b.close()
    return bytes(b.buffer())


def _only(resp):
    (topic,) = resp.responses
    (part,) = topic.partition_responses if hasattr(topic, "partition_responses") else topic.partitions
    return part


def test_errors_in_kafkas_words(sandbox_factory):
    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("t", assignment={0: [1, 0]})
    sb.create_topic("sim", assignment={0: [0, 1]}, size_bytes=4 * 1024 * 10)
    batch = _batch(3)
    assert _only(raw(sb, 0, _produce_request("t", 0, batch), 9)).error_code == 6  # NOT_LEADER_OR_FOLLOWER
    assert _only(raw(sb, 1, _produce_request("nope", 0, batch), 9)).error_code == 3  # UNKNOWN_TOPIC_OR_PARTITION
    flipped = batch[:-3] + bytes([batch[-3] ^ 0xFF]) + batch[-2:]  # a value byte: the CRC no longer matches
    assert _only(raw(sb, 1, _produce_request("t", 0, flipped), 9)).error_code == 2  # CORRUPT_MESSAGE
    sim = _only(raw(sb, 0, _produce_request("sim", 0, batch), 9))
    assert sim.error_code == 42 and "simulated" in sim.error_message
    ok = _only(raw(sb, 1, _produce_request("t", 0, batch), 9))
    assert (ok.error_code, ok.base_offset) == (0, 0)
    assert _only(raw(sb, 1, _produce_request("t", 0, batch), 9)).base_offset == 3

    assert _only(raw(sb, 0, _fetch_request("t", 0, 0), 11)).error_code == 6
    assert _only(raw(sb, 1, _fetch_request("t", 0, 7), 11)).error_code == 1  # OFFSET_OUT_OF_RANGE
    at_end = _only(raw(sb, 1, _fetch_request("t", 0, 6), 11))
    assert (at_end.error_code, at_end.high_watermark, at_end.records) == (0, 6, b"")
    # KIP-74: a limit below one batch still returns the first batch, never more.
    small = _only(raw(sb, 1, _fetch_request("t", 0, 4, max_bytes=10), 11))
    assert small.error_code == 0 and small.records[8:12] and len(small.records) == len(batch)
    assert int.from_bytes(small.records[:8], "big") == 3  # the stored batch holding offset 4
    # A simulated partition: watermarks, no records, no error.
    s = _only(raw(sb, 0, _fetch_request("sim", 0, 0), 11))
    assert (s.error_code, s.high_watermark, s.last_stable_offset, s.log_start_offset, s.records) == (0, 40, 40, 0, b"")


def test_a_caught_up_fetch_waits_for_records_or_max_wait(sandbox_factory):
    """Kafka's DelayedFetch: no busy loop for consumers at the end of the log."""
    import threading

    sb = sandbox_factory(brokers=1, log_dirs=1, manual_clock=True)
    sb.create_topic("w", assignment={0: [0]})
    start = time.monotonic()
    empty = _only(raw(sb, 0, _fetch_request("w", 0, 0, max_wait_ms=300), 11))
    assert (empty.error_code, empty.records) == (0, b"") and time.monotonic() - start >= 0.3
    # An error is answered at once, whatever max_wait_ms says.
    start = time.monotonic()
    assert _only(raw(sb, 0, _fetch_request("w", 0, 5, max_wait_ms=60_000), 11)).error_code == 1
    assert time.monotonic() - start < 4
    answers = []
    waiting = threading.Thread(target=lambda: answers.append(raw(sb, 0, _fetch_request("w", 0, 0, max_wait_ms=60_000), 11)))
    waiting.start()
    sb.wait_for(lambda s: sum(1 for r in sb.requests if r[1] == "Fetch") == 3)  # it is held
    start = time.monotonic()
    produce_kafka_python(sb, "w", [(b"k", b"v")], acks=1)
    waiting.join(10)
    assert time.monotonic() - start < 4  # woken by the append, not by the (capped, 5 s) wait
    got = _only(answers[0])
    assert (got.error_code, got.high_watermark) == (0, 1) and got.records


def test_acks_zero_gets_no_response_and_the_connection_stays_usable(sandbox_factory):
    sb = sandbox_factory(brokers=1, log_dirs=1, manual_clock=True)
    sb.create_topic("z", assignment={0: [0]})
    produce_kafka_python(sb, "z", [(b"a", b"1"), (b"b", b"2")], acks=0)
    end, got = consume_all(sb, "z")
    assert (end, [v for _, _, v in got]) == (2, [b"1", b"2"])


def test_records_follow_a_reassignment_and_a_log_dir_move(sandbox_factory):
    """New replicas copy the stored log by size; once the leader has moved, the new leader serves
    the same records and offsets."""
    from kafka import KafkaAdminClient, TopicPartition

    sb = sandbox_factory(brokers=3, log_dirs=2, manual_clock=True)
    sb.create_topic("m", assignment={0: [0]})
    messages = [(b"k%d" % i, b"v%d" % i) for i in range(6)]
    produce_kafka_python(sb, "m", messages, acks=-1)
    admin = KafkaAdminClient(bootstrap_servers=sb.bootstrap)
    try:
        assert admin.alter_partition_reassignments({TopicPartition("m", 0): [2]}) == {TopicPartition("m", 0): None}
    finally:
        admin.close()
    sb.clock.advance(5)
    snap = sb.wait_for(lambda s: s.partition("m", 0).replicas == (2,) and s.partition("m", 0).leader == 2)
    assert snap.replica("m", 0, 2).end_offset == 6
    end, got = consume_all(sb, "m")
    assert (end, got) == (6, [(i, k, v) for i, (k, v) in enumerate(messages)])
    # A log-dir move on the new leader keeps the records too.
    other = next(p for p in sb.log_dir_paths(2) if p != snap.replica_dir("m", 0, 2))
    admin = KafkaAdminClient(bootstrap_servers=sb.bootstrap)
    try:
        assert [e.__name__ for e in admin.alter_replica_log_dirs({("m", 0, 2): other}).values()] == ["NoError"]
    finally:
        admin.close()
    sb.clock.advance(5)
    snap = sb.wait_for(lambda s: s.replica_dir("m", 0, 2) == other)
    assert snap.replica("m", 0, 2).end_offset == 6
    assert consume_all(sb, "m") == (end, got)


def kadmin(sb, *args):
    """kadmin as a separate process, as a second operator would run it."""
    return subprocess.run([sys.executable, "-m", "kadmin", *args, "--bootstrap-server", sb.bootstrap],
                          capture_output=True, text=True, timeout=120)


def test_kadmin_throttle_records_live_in_the_record_topic(sandbox_factory):
    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1]}, size_bytes=MiB)
    first = kadmin(sb, "throttle", "set", "--rate", "10MB/s", "--brokers", "0,1")
    assert first.returncode == 0, first.stderr
    assert sb.snapshot().topic_configs["__kadmin_throttle_records"] == {"cleanup.policy": "compact"}
    doc = json.loads(kadmin(sb, "throttle", "show", "-o", "json").stdout)
    rates = {(t["resource"], t["config"]): t for t in doc["throttles"]}
    assert set(rates) == {(b, f"{side}.replication.throttled.rate") for b in ("0", "1") for side in ("leader", "follower")}
    assert all(t["set_by_kadmin"] and t["value"] == "10000000" for t in rates.values())
    (record,) = doc["records"]
    assert record["command"] == "throttle set"
    assert sorted({r["broker"] for r in record["rates"]}) == [0, 1]
    # The record is one message in partition 0, readable like any other.
    end, got = consume_all(sb, "__kadmin_throttle_records")
    assert end == 1 and json.loads(got[0][2])["plan_id"] == got[0][1].decode() == record["plan_id"]


def test_kadmin_reassign_execute_with_throttle_then_verify_removes_it(sandbox_factory, tmp_path):
    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("orders", assignment={0: [0, 1]}, size_bytes=MiB)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": [2, 1]}]}))
    run = kadmin(sb, "reassign", "execute", "--reassignment-json-file", str(plan), "--throttle", "10MB/s")
    assert run.returncode == 0, run.stderr
    doc = json.loads(kadmin(sb, "throttle", "show", "-o", "json").stdout)
    assert [r["plan_file"] is not None for r in doc["records"]] == [True]
    assert any(t["set_by_kadmin"] and t["resource"] == "orders" for t in doc["throttles"])
    sb.clock.advance(2)  # 1 MiB at 10 MB/s
    sb.wait_for(lambda s: s.partition("orders", 0).replicas == (2, 1))
    verify = kadmin(sb, "reassign", "verify", "--reassignment-json-file", str(plan))
    assert verify.returncode == 0, verify.stdout + verify.stderr
    doc = json.loads(kadmin(sb, "throttle", "show", "-o", "json").stdout)
    assert doc["records"] == [] and doc["throttles"] == []
