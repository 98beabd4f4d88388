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


# Every emulated Kafka version: each offers other versions of the messages, so the codec meets
# other shapes (flexible or not, fields present or not).
@pytest.mark.parametrize("version", ["2.8", "3.3", "3.9", "4.3"])
def test_every_read_answers_as_the_library_clients_do(version, request):
    zk = request.getfixturevalue("zk_connect") if version == "2.8" else None  # 2.8 ran with ZooKeeper
    with Sandbox(brokers=4, log_dirs=2, racks=2, manual_clock=True, kafka_version=version, zookeeper=zk) as sb:
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


def test_replicas_in_an_offline_directory_are_offline_replicas():
    """Metadata v5+ lists the replicas in a live broker's offline directories (OfflineReplicas):
    the small client keeps that list (librdkafka does not expose it; a stopped broker's replicas
    are offline in both)."""
    with Sandbox(brokers=3, log_dirs=2, manual_clock=True) as sb:
        sb.create_topic("t", assignment={0: [0, 1], 1: [1, 2]}, log_dirs={(0, 0): sb.log_dir_paths(0)[0]})
        sb.faults.dir_offline(0, sb.log_dir_paths(0)[0])
        sb.faults.broker_stop(2)
        sb.settle()
        with _backend(sb, small_client=True) as b:
            parts = b.describe_cluster().partitions
            assert not b._wire_off
        assert parts[TopicPartition("t", 0)].offline_replicas == (0,)
        assert parts[TopicPartition("t", 1)].offline_replicas == (2,)


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
    # requests and answers by kadmin's codec: nothing of kafka-python at all (~25 ms)
    assert not {m for m in loaded if m.split(".")[0] == "kafka"}
    if command[0] == "throttle":
        assert "kadmin.backends.record_batches" in loaded and "kadmin record manual" in proc.stderr


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
    """Thousands of topics' configs, the offsets of every moving partition: the same bytes."""
    from kafka.protocol.admin.configs import DescribeConfigsRequest as Req
    from kafka.protocol.consumer.offsets import ListOffsetsRequest as L

    from kadmin.backends.wire_codec import api

    names = [f"t{i}" for i in range(2000)]
    theirs = Req(resources=[Req.DescribeConfigsResource(resource_type=2, resource_name=n,
                                                        configuration_keys=list(THROTTLE_CONFIGS)) for n in names],
                 include_synonyms=False, include_documentation=False)
    ours = {"resources": [{"resource_type": 2, "resource_name": n, "configuration_keys": list(THROTTLE_CONFIGS)}
                          for n in names], "include_synonyms": False, "include_documentation": False}
    offsets = L(replica_id=-1, isolation_level=0, timeout_ms=1000, topics=[L.ListOffsetsTopic(
        name="t", partitions=[L.ListOffsetsTopic.ListOffsetsPartition(partition_index=i, current_leader_epoch=-1, timestamp=-1)
                              for i in range(5000)])])
    offsets_ours = {"replica_id": -1, "isolation_level": 0, "timeout_ms": 1000, "topics": [{"name": "t", "partitions": [
        {"partition_index": i, "current_leader_epoch": -1, "timestamp": -1} for i in range(5000)]}]}
    for name, request, body, version in (("DescribeConfigs", theirs, ours, 4), ("DescribeConfigs", theirs, ours, 1),
                                         ("ListOffsets", offsets, offsets_ours, 7)):
        request.API_VERSION = version
        request.with_header(correlation_id=7, client_id="kadmin")
        framed = api(name).encode_request(version, 7, "kadmin", body)
        assert framed[4:] == request.encode(version=version, header=True)
        assert int.from_bytes(framed[:4], "big") == len(framed) - 4
