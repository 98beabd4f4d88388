"""The sandbox speaks the protocol of the Kafka version it emulates: ApiVersions advertises what
that version's brokers advertise, responses are encoded at the version the client asked for, and
versions the broker does not accept get Kafka's answer. Through kafka-python, confluent-kafka and
kcat, which negotiate different versions against 2.8, 3.3 and 4.3."""

from __future__ import annotations

import shutil
import struct
import subprocess

import pytest

from tests.sandbox.clients import confluent, describe_log_dirs, kafka_python, raw, raw_frame

MiB = 2**20

# What each version's ApiVersions says (key: (min, max)), within what the sandbox can decode:
# kafka-python has no classes for Produce < 3, Fetch < 4, ListOffsets 0, CreateTopics < 2, ...;
# Produce and Fetch stop at 12 (v13 names topics by id). 4.3 advertises Produce from 0 as Kafka 4
# does (KAFKA-18659) though it accepts only v3 and later.
ADVERTISED = {
    "2.8": {0: (3, 9), 1: (4, 12), 2: (1, 6), 3: (0, 11), 17: (0, 1), 18: (0, 3), 19: (2, 7), 20: (1, 6), 32: (1, 4),
            33: (0, 2), 34: (1, 2), 35: (1, 2), 36: (0, 2), 43: (0, 2), 44: (0, 1), 45: (0, 0), 46: (0, 0), 60: (0, 0)},
    "3.3": {0: (3, 9), 1: (4, 12), 2: (1, 7), 3: (0, 12), 17: (0, 1), 18: (0, 3), 19: (2, 7), 20: (1, 6), 32: (1, 4),
            33: (0, 2), 34: (1, 2), 35: (1, 4), 36: (0, 2), 43: (0, 2), 44: (0, 1), 45: (0, 0), 46: (0, 0), 60: (0, 0)},
    "3.9": {0: (3, 11), 1: (4, 12), 2: (1, 9), 3: (0, 12), 17: (0, 1), 18: (0, 4), 19: (2, 7), 20: (1, 6), 32: (1, 4),
            33: (0, 2), 34: (1, 2), 35: (1, 4), 36: (0, 2), 43: (0, 2), 44: (0, 1), 45: (0, 0), 46: (0, 0), 60: (0, 1)},
    "4.3": {0: (0, 12), 1: (4, 12), 2: (1, 11), 3: (0, 13), 17: (0, 1), 18: (0, 4), 19: (2, 7), 20: (1, 6), 32: (1, 4),
            33: (0, 2), 34: (1, 2), 35: (1, 5), 36: (0, 2), 43: (0, 2), 44: (0, 1), 45: (0, 1), 46: (0, 0), 60: (0, 2)},
}


@pytest.mark.parametrize(("kafka_version", "listing"), [("3.3", "kafka-3.3.1-zk.txt"), ("4.3", "kafka-4.3.1-kraft.txt")])
def test_the_table_holds_what_real_brokers_advertised(kafka_version, listing):
    """api_ranges.TABLE against kafka-broker-api-versions.sh's output on real 3.3.1 and 4.3.1
    brokers (tests/sandbox/data/)."""
    import re
    from pathlib import Path

    from kadmin.sandbox.api_ranges import broker_ranges

    text = (Path(__file__).parent / "data" / listing).read_text()
    real = {}
    for name, key, lo, hi in re.findall(r"\t(\w+)\((\d+)\): (\d+)(?: to (\d+))? \[", text):
        real[int(key)] = (int(lo), int(hi or lo))
    table = broker_ranges()[kafka_version]
    assert {k: (adv, hi) for k, (adv, _, hi) in table.items()} == {k: real[k] for k in table}


def _api_versions(version=3):
    from kafka.protocol.metadata import ApiVersionsRequest

    return ApiVersionsRequest(version=version, client_software_name="test", client_software_version="1")


def _ranges(answer) -> dict[int, tuple[int, int]]:
    return {k.api_key: (k.min_version, k.max_version) for k in answer.api_keys}


@pytest.mark.parametrize("kafka_version", sorted(ADVERTISED))
def test_api_versions_advertises_the_emulated_versions_ranges(sandbox_factory, kafka_version, request):
    # 2.8 ran with ZooKeeper only (its KRaft mode was an early-access preview)
    zk = request.getfixturevalue("zk_connect") if kafka_version == "2.8" else None
    sb = sandbox_factory(brokers=1, manual_clock=True, kafka_version=kafka_version, zookeeper=zk)
    answer = raw(sb, 0, _api_versions(), 3)
    assert answer.error_code == 0
    assert _ranges(answer) == ADVERTISED[kafka_version]


def test_api_versions_above_the_brokers_gets_a_v0_answer_with_unsupported_version_and_the_list(sandbox_factory):
    sb = sandbox_factory(brokers=1, manual_clock=True, kafka_version="3.3")  # ApiVersions 0-3
    answer = raw(sb, 0, _api_versions(4), 4, response_version=0)
    assert answer.error_code == 35  # UNSUPPORTED_VERSION
    assert _ranges(answer) == ADVERTISED["3.3"]


def _frame(api_key: int, version: int, body: bytes = b"\x00" * 16) -> bytes:
    """A request frame with a v1 header: what a client of another library would send."""
    return struct.pack(">hhih", api_key, version, 7, 4) + b"test" + body


@pytest.mark.parametrize(("kafka_version", "api_key", "version"), [
    ("4.3", 0, 2),   # Produce: advertised from 0, but 4.x dropped v0-2
    ("4.3", 35, 0),  # DescribeLogDirs v0, dropped in 4.0
    ("4.3", 34, 0),  # AlterReplicaLogDirs v0
    ("4.3", 1, 3),   # Fetch v3
    ("3.3", 35, 5),  # DescribeLogDirs v5 came with 4.x
    ("3.3", 60, 1),  # DescribeCluster v1 came with 3.7
    ("3.3", 45, 1),  # AlterPartitionReassignments v1 came with 4.x
])
def test_a_version_the_broker_does_not_accept_closes_the_connection(sandbox_factory, kafka_version, api_key, version):
    sb = sandbox_factory(brokers=1, manual_clock=True, kafka_version=kafka_version)
    assert raw_frame(sb, 0, _frame(api_key, version)) is None  # SocketServer closes it, as Kafka does
    assert raw(sb, 0, _api_versions(), 3).error_code == 0  # the broker itself is fine


def test_kafka_python_negotiates_each_versions_shapes(sandbox_factory):
    """Against 3.3 kafka-python falls back from ApiVersions v4 to v3 and asks DescribeLogDirs v4,
    whose answer has no cordoned flag; against 4.3 it asks v5 and sees it."""
    found = {}
    for version in ("3.3", "4.3"):
        sb = sandbox_factory(brokers=2, manual_clock=True, kafka_version=version)
        sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=MiB)
        found[version] = (describe_log_dirs(sb), {(api, v) for _, api, v in sb.requests})
    dirs, requests = found["3.3"]
    assert all("is_cordoned" not in d for b in dirs.values() for d in b.values())
    assert ("DescribeLogDirs", 4) in requests and ("DescribeLogDirs", 5) not in requests
    assert {("ApiVersions", 4), ("ApiVersions", 3)} <= requests
    assert {d["total_bytes"] for b in dirs.values() for d in b.values()} == {100 * 2**30}
    dirs, requests = found["4.3"]
    assert all(d["is_cordoned"] is False for b in dirs.values() for d in b.values())
    assert ("DescribeLogDirs", 5) in requests and ("ApiVersions", 3) not in requests


@pytest.mark.zookeeper
def test_kafka_python_meets_kafka_28s_describelogdirs_without_capacity(sandbox_factory, zk_connect):
    """Kafka 2.8 serves DescribeLogDirs v0-2: no TotalBytes/UsableBytes (v4, Kafka 3.3)."""
    sb = sandbox_factory(brokers=2, manual_clock=True, kafka_version="2.8", zookeeper=zk_connect)
    sb.create_topic("t", assignment={0: [0, 1]}, size_bytes=MiB)
    dirs = describe_log_dirs(sb)
    requests = {(api, v) for _, api, v in sb.requests}
    assert ("DescribeLogDirs", 2) in requests and not {("DescribeLogDirs", 3), ("DescribeLogDirs", 4)} & requests
    assert all("total_bytes" not in d for b in dirs.values() for d in b.values())


def test_kafka_28_has_no_kraft_mode_to_emulate():
    from kadmin.errors import UsageError
    from kadmin.sandbox import Sandbox

    with pytest.raises(UsageError, match="ZooKeeper only"):
        Sandbox(kafka_version="2.8")


@pytest.mark.parametrize(("kafka_version", "metadata"), [("3.3", 12), ("4.3", 13)])
def test_confluent_kafka_describes_the_cluster_at_the_negotiated_version(sandbox_factory, kafka_version, metadata):
    """librdkafka describes the cluster with Metadata: v12 from 3.3 (no top-level error code),
    v13 from 4.3."""
    from confluent_kafka import TopicCollection

    sb = sandbox_factory(brokers=3, manual_clock=True, kafka_version=kafka_version)
    sb.create_topic("t", assignment={0: [2, 0]})
    sb.clear_requests()
    admin = confluent(sb)
    result = admin.describe_cluster(request_timeout=10).result()
    assert sorted(n.id for n in result.nodes) == [0, 1, 2]
    assert result.cluster_id == sb.snapshot().cluster_id
    topic = admin.describe_topics(TopicCollection(["t"]), request_timeout=10)["t"].result()
    assert [r.id for r in topic.partitions[0].replicas] == [2, 0]
    assert {v for _, api, v in sb.requests if api == "Metadata"} == {metadata}


@pytest.mark.skipif(shutil.which("kcat") is None, reason="kcat is not installed")
@pytest.mark.parametrize("kafka_version", ["3.3", "4.3"])
def test_kcat_lists_metadata_and_round_trips_records(sandbox_factory, kafka_version):
    sb = sandbox_factory(brokers=2, log_dirs=1, manual_clock=True, kafka_version=kafka_version)
    sb.create_topic("k", assignment={0: [1, 0]})
    listed = subprocess.run(["kcat", "-b", sb.bootstrap, "-L", "-t", "k"], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert "2 brokers:" in listed.stdout and 'topic "k" with 1 partitions' in listed.stdout
    produced = subprocess.run(["kcat", "-b", sb.bootstrap, "-P", "-t", "k", "-p", "0"], input="a\nb\n",
                              capture_output=True, text=True, timeout=60)
    assert produced.returncode == 0, produced.stderr
    consumed = subprocess.run(["kcat", "-b", sb.bootstrap, "-C", "-t", "k", "-p", "0", "-o", "beginning", "-e",
                               "-f", "%o %s\n"], capture_output=True, text=True, timeout=60)
    assert consumed.returncode == 0, consumed.stderr
    assert consumed.stdout.splitlines() == ["0 a", "1 b"]
    advertised = ADVERTISED[kafka_version]
    for _, api, version in sb.requests:  # every request within what that version accepts
        key = {"Produce": 0, "Fetch": 1, "ListOffsets": 2, "Metadata": 3, "ApiVersions": 18}.get(api)
        if key is not None and key != 0:
            assert advertised[key][0] <= version <= advertised[key][1], (api, version)
