"""kadmin's small read client (kadmin/backends/wire_client.py) gives the AdminClient backend the
same answers as the library clients, against every emulated Kafka version, and read commands
no longer load the library clients."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kadmin.backends.admin import DEFAULT_BROKER, AdminBackend
from kadmin.backends.admin_records import RecordTopic
from kadmin.config import ConnectionSettings
from kadmin.model import (
    FOLLOWER_RATE,
    LEADER_RATE,
    LEADER_REPLICAS,
    THROTTLE_CONFIGS,
    AlterOp,
    Assignment,
    ConfigChange,
    ConfigResource,
    ConfigResourceType,
    TopicPartition,
)
from kadmin.sandbox import Sandbox

MiB = 2**20
RECORDS = "__kadmin_throttle_records"


def _backend(sb, *, small_client: bool, read_only: bool = True) -> AdminBackend:
    b = AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=10.0), read_only=read_only)
    if not small_client:
        b._wire_off = True  # the library clients only, as before the small client
    return b


def _reads(b: AdminBackend) -> dict:
    brokers = [ConfigResource(ConfigResourceType.BROKER, str(i)) for i in sorted(b.describe_brokers())]
    topic = ConfigResource(ConfigResourceType.TOPIC, "t")
    return {
        "cluster_id": b.cluster_id,
        "brokers": b.describe_brokers(),
        "cluster": b.describe_cluster(),
        "log_dirs": b.describe_log_dirs(),
        "log_dirs_t": b.describe_log_dirs(brokers=[0, 2], topics=["t"]),
        "reassignments": b.list_partition_reassignments(),
        "reassignment_t0": b.list_partition_reassignments([TopicPartition("t", 0), TopicPartition("t", 2)]),
        "configs": b.describe_configs([DEFAULT_BROKER, topic, *brokers]),
        "throttle_configs": b.describe_configs([DEFAULT_BROKER, topic, *brokers], keys=THROTTLE_CONFIGS),
        "end_offsets": b.list_end_offsets([TopicPartition("t", p) for p in range(3)]),
        "records": RecordTopic(b, RECORDS).read_all(),
    }


# Requests encoded and answers decoded by walking the schema (small ones) or by kafka-python's
# compiled codecs (large ones): both must read the same.
CODECS = {"schema walk": (10**9, 10**9), "compiled": (0, -1)}  # (COMPILE_ABOVE, COMPILE_ENCODE_ABOVE)


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("version", ["3.3", "4.3"])
def test_every_read_answers_as_the_library_clients_do(version, codec, monkeypatch):
    from kadmin.backends import wire_client

    monkeypatch.setattr(wire_client, "COMPILE_ABOVE", CODECS[codec][0])
    monkeypatch.setattr(wire_client, "COMPILE_ENCODE_ABOVE", CODECS[codec][1])
    with Sandbox(brokers=4, log_dirs=2, racks=2, manual_clock=True, kafka_version=version) as sb:
        sb.create_topic("t", assignment={0: [0, 1], 1: [1, 2], 2: [2, 3]}, size_bytes=10 * MiB)
        with _backend(sb, small_client=False, read_only=False) as w:
            w.incremental_alter_configs(
                [ConfigChange(ConfigResource(ConfigResourceType.BROKER, "1"), LEADER_RATE, AlterOp.SET, "1000"),
                 ConfigChange(DEFAULT_BROKER, FOLLOWER_RATE, AlterOp.SET, "2000"),
                 ConfigChange(ConfigResource(ConfigResourceType.TOPIC, "t"), LEADER_REPLICAS, AlterOp.SET, "0:0")])
            w.reassign_partitions([Assignment("t", 0, (2, 3))])  # stays ongoing: the clock is manual
            records = RecordTopic(w, RECORDS)
            records.write("plan-a", b'{"a": 1}')
            records.write("plan-b", b'{"b": 2}')
            records.write("plan-a", None)  # a tombstone: read back as None, as the consumer does
        with _backend(sb, small_client=False) as slow, _backend(sb, small_client=True) as fast:
            expected, got = _reads(slow), _reads(fast)
            assert not fast._wire_off, "the small client gave up and the library clients answered"
        assert got == expected
        assert got["reassignments"] and got["records"] == {"plan-a": None, "plan-b": b'{"b": 2}'}
        # Only the configs asked for, as Kafka filters them: the set throttles are among them.
        assert got["throttle_configs"] == {
            r: {n: e for n, e in entries.items() if n in THROTTLE_CONFIGS} for r, entries in got["configs"].items()
        }
        topic = ConfigResource(ConfigResourceType.TOPIC, "t")
        assert got["throttle_configs"][topic][LEADER_REPLICAS].value == "0:0"
        assert got["throttle_configs"][DEFAULT_BROKER][FOLLOWER_RATE].value == "2000"


def test_no_record_topic_reads_as_no_records():
    with Sandbox(brokers=3, log_dirs=1) as sb, _backend(sb, small_client=True) as b:
        assert RecordTopic(b, RECORDS).read_all() == {}
        assert not b._wire_off


def test_a_stopped_broker_is_reported_as_before():
    """The small client cannot reach the broker: the library clients answer, per broker."""
    with Sandbox(brokers=3, log_dirs=1) as sb:
        sb.create_topic("t", partitions=3, replication_factor=2)
        with _backend(sb, small_client=True) as b:
            ids = sorted(b.describe_brokers())
        sb.faults.broker_stop(2)
        sb.settle()
        with _backend(sb, small_client=False) as slow, _backend(sb, small_client=True) as fast:
            got = fast.describe_log_dirs(brokers=ids)
            assert got == slow.describe_log_dirs(brokers=ids)
        assert got[2].error and not got[0].error


@pytest.mark.parametrize("command", [["log-dirs", "describe", "-o", "json"], ["throttle", "show"],
                                     ["reassign", "list"], ["leaders", "show"]])
def test_read_commands_do_not_load_the_library_clients(command):
    with Sandbox(brokers=3, log_dirs=2) as sb:
        sb.populate_demo()
        if command[0] == "throttle":  # a record to read (kafka-python's producer writes it)
            subprocess.run([sys.executable, "-m", "kadmin", "throttle", "set", "--rate", "10MB/s", "--brokers", "0",
                            "--bootstrap-server", sb.bootstrap], check=True, capture_output=True, timeout=60)
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "kadmin", *command, "--bootstrap-server", sb.bootstrap],
            check=False, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    loaded = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert not {"kafka.admin.client", "kafka.net.manager", "kafka.consumer.group", "confluent_kafka"} & loaded
    assert "encodings.idna" not in loaded  # the host name is passed as bytes: no codec to import (~2 ms)
    assert "rich._emoji_codes" not in loaded  # tables without :emoji: codes (~2.5 ms)
    assert "logging" not in loaded  # nothing to log on the small client's path (~5 ms)
    # throttle show reads (throttling.state, .needs); what sets and removes throttles is not loaded
    assert not {"kadmin.throttling.maths", "kadmin.throttling.operations"} & loaded
    # the records are read by kadmin's batch reader: no compression codecs to import (~4 ms)
    assert "kafka.codec" not in loaded and "kafka.record.default_records" not in loaded
    if command[0] == "throttle":
        assert "kadmin.backends.record_batches" in loaded and "kadmin record manual" in proc.stderr


def test_kafka_python_still_loads_whole_after_the_protocol_classes():
    """The lazy ``kafka`` package runs its __init__ on first use: the library clients work."""
    code = (
        "from kadmin.backends.wire_client import protocol\n"
        "protocol('protocol.admin.cluster')\n"
        "import sys; assert 'kafka.admin.client' not in sys.modules\n"
        "from kafka import KafkaConsumer, TopicPartition\n"
        "import kafka.admin\n"
        "assert kafka.admin.KafkaAdminClient and KafkaConsumer and TopicPartition('t', 0).partition == 0\n"
        "from kafka.protocol.admin import DescribeLogDirsRequest\n"
        "print('ok')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "ok", proc.stderr[-2000:]


# A fresh interpreter: Metadata's module is imported (in one thread) while a message class is
# built alone (in another), as reads in flight together do. Each waits at its first JSON schema.
RACE = """
import threading
from kadmin.backends import wire_client as w
api_data = w.protocol("protocol.api_data")
w.protocol("protocol.api_message")
reg = w.protocol("protocol.api_header").ResponseClassRegistry._response_class_registry
real = api_data.load_json
gates = {name: (threading.Event(), threading.Event()) for name in ("importer", "builder")}
def gated(*args, **kwargs):
    gate = gates.get(threading.current_thread().name)
    if gate is not None and not gate[0].is_set():
        gate[0].set()
        gate[1].wait(10)
    return real(*args, **kwargs)
api_data.load_json = gated
importer = threading.Thread(target=w.protocol, args=("protocol.metadata.metadata",), name="importer")
builder = threading.Thread(target=w.message, args=("ListPartitionReassignmentsResponse",), name="builder")
importer.start()
assert gates["importer"][0].wait(10)  # importing Metadata's classes, MetadataResponse not registered yet
builder.start()
gates["builder"][0].wait(2)  # building its class; or, the import holding the lock, waiting for it
gates["importer"][1].set()
importer.join(10)
gates["builder"][1].set()
builder.join(10)
print(3 in reg, 46 in reg)
"""


def test_a_message_class_built_while_another_thread_imports_keeps_kafka_pythons_registry_whole():
    """kafka-python decodes answers with the response classes registered by API key; a class built
    alone is taken out again, and nothing else. (Lost, MetadataResponse left kafka-python's own
    admin client waiting for ever for the answer to its bootstrap: `make demo`'s verify, at times.)"""
    proc = subprocess.run([sys.executable, "-c", RACE], check=False, capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["True", "False"], proc.stderr[-2000:]


@pytest.mark.parametrize("protocol", ["SSL", "SASL_PLAINTEXT", "SASL_SSL"])
def test_security_configured_leaves_every_read_to_the_library_clients(protocol):
    """TLS and SASL are the library clients' (tests/security): the small client is never tried."""
    settings = ConnectionSettings(bootstrap_servers="127.0.0.1:1", properties={"security.protocol": protocol})
    with AdminBackend(settings) as b:
        assert b._fast(lambda wire: pytest.fail("the small client was used")) is NotImplemented


def test_the_records_are_read_with_the_metadata_the_command_already_has(monkeypatch):
    """throttle show reads every topic first: the record topic's leader comes from that answer;
    a topic the answer lacks is asked for by name. End offsets (progress) likewise."""
    from kadmin.backends.wire_client import WireClient

    with Sandbox(brokers=3, log_dirs=1) as sb:
        with _backend(sb, small_client=False, read_only=False) as w:
            RecordTopic(w, RECORDS).write("plan-a", b'{"a": 1}')
        asked = []
        original = WireClient.metadata
        monkeypatch.setattr(WireClient, "metadata", lambda self, topics=None: asked.append(topics) or original(self, topics))
        with _backend(sb, small_client=True) as b:
            b.describe_cluster()
            assert RecordTopic(b, RECORDS).read_all() == {"plan-a": b'{"a": 1}'}
            assert asked == [None]
            assert RecordTopic(b, "__other_records").read_all() == {}
            assert asked == [None, ["__other_records"]]
            b.describe_cluster()
            assert b.list_end_offsets([TopicPartition(RECORDS, 0)]) == {TopicPartition(RECORDS, 0): 1}
            assert asked == [None, ["__other_records"], None]  # the leaders came from describe_cluster's answer
            assert not b._wire_off


def test_a_large_request_is_encoded_as_kafka_python_encodes_it():
    """Thousands of topics' configs, the offsets of every moving partition: compiled, same bytes."""
    from kadmin.backends.wire_client import COMPILE_ENCODE_ABOVE, _elements, encode_request, message, protocol

    Req = message("DescribeConfigsRequest")
    topics = Req(
        resources=[Req.DescribeConfigsResource(resource_type=2, resource_name=f"t{i}", configuration_keys=list(THROTTLE_CONFIGS))
                   for i in range(2000)],
        include_synonyms=False, include_documentation=False)
    L = protocol("protocol.consumer.offsets").ListOffsetsRequest
    partitions = L(replica_id=-1, isolation_level=0, timeout_ms=1000, topics=[L.ListOffsetsTopic(
        name="t", partitions=[L.ListOffsetsTopic.ListOffsetsPartition(partition_index=i, current_leader_epoch=-1, timestamp=-1)
                              for i in range(5000)])])
    for request, version in ((topics, 4), (partitions, 7)):
        assert _elements(request, 2) > COMPILE_ENCODE_ABOVE
        request.API_VERSION = version
        request.with_header(correlation_id=7, client_id="kadmin")
        framed = encode_request(request, version)
        assert framed[4:] == request.encode(version=version, header=True)
        assert int.from_bytes(framed[:4], "big") == len(framed) - 4
