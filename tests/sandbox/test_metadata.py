"""Metadata, ApiVersions and DescribeCluster as real clients see them."""

from __future__ import annotations

import subprocess
import shutil

import pytest


def confluent_admin(sb):
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": sb.bootstrap})


def test_confluent_list_topics_shows_brokers_topics_and_replicas(sandbox):
    md = confluent_admin(sandbox).list_topics(timeout=10)
    assert sorted(md.brokers) == [0, 1, 2]
    assert {b.port for b in md.brokers.values()} == set(sandbox.ports.values())
    orders = md.topics["orders"].partitions
    assert orders[1].replicas == [1, 2, 0]
    assert orders[1].leader == 1
    assert sorted(orders[1].isrs) == [0, 1, 2]
    assert set(md.topics) == {"orders", "payments", "empty"}
    assert md.cluster_id == sandbox.snapshot().cluster_id


def test_confluent_describe_cluster_reports_racks_and_controller(sandbox):
    admin = confluent_admin(sandbox)
    result = admin.describe_cluster().result(timeout=10)
    assert sorted(n.id for n in result.nodes) == [0, 1, 2]
    assert {n.id: n.rack for n in result.nodes} == {0: "rack-0", 1: "rack-1", 2: "rack-2"}
    assert result.controller.id in (0, 1, 2)


def test_metadata_for_unknown_topic_is_an_error_not_a_creation(sandbox):
    from confluent_kafka.admin import AdminClient

    md = confluent_admin(sandbox).list_topics(topic="nope", timeout=10)
    assert md.topics["nope"].error is not None
    assert md.topics["nope"].error.code() == 3  # UNKNOWN_TOPIC_OR_PARTITION
    assert "nope" not in sandbox.snapshot().topics


def test_api_versions_advertises_exactly_the_served_apis(sandbox):
    from kafka.protocol.metadata.api_versions import ApiVersionsRequest, ApiVersionsResponse

    req = ApiVersionsRequest(version=3, client_software_name="t", client_software_version="1")
    req.with_header(correlation_id=3, client_id="t")
    resp = ApiVersionsResponse.decode(_raw_request(sandbox.ports[1], bytes(req.encode(header=True))),
                                      version=3, header=True)
    versions = {k.api_key: (k.min_version, k.max_version) for k in resp.api_keys}
    assert resp.error_code == 0
    from kadmin.sandbox import protocol

    assert set(versions) == set(protocol.SERVED)
    assert {2, 3, 18, 19, 20, 32, 33, 34, 35, 43, 44, 45, 46, 60} <= set(versions)
    assert versions[18] == (0, 4)
    assert versions[35][1] >= 4  # DescribeLogDirs with total/usable bytes


def _raw_request(port: int, frame: bytes) -> bytes | None:
    import socket
    import struct

    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(struct.pack(">i", len(frame)) + frame)
        head = s.recv(4)
        if not head:
            return None
        (n,) = struct.unpack(">i", head)
        data = b""
        while len(data) < n:
            chunk = s.recv(n - len(data))
            if not chunk:
                break
            data += chunk
        return data


def test_api_versions_at_unknown_version_gets_v0_body_with_unsupported_version(sandbox):
    import struct

    # ApiVersions v99, correlation id 7, client id "t"
    frame = struct.pack(">hhih", 18, 99, 7, 1) + b"t"
    data = _raw_request(sandbox.ports[0], frame)
    corr, err, count = struct.unpack_from(">ihi", data, 0)
    assert (corr, err) == (7, 35)
    from kadmin.sandbox import protocol

    assert count == len(protocol.SERVED)


def test_unknown_api_key_closes_the_connection(sandbox):
    import struct

    frame = struct.pack(">hhih", 999, 0, 1, 1) + b"t"
    assert _raw_request(sandbox.ports[0], frame) is None


def test_unserved_api_gets_an_error_answer_not_a_dropped_connection(sandbox):
    """FindCoordinator (10) is not served: the client gets UNSUPPORTED_VERSION back."""
    from kafka.protocol.metadata.find_coordinator import FindCoordinatorRequest, FindCoordinatorResponse

    req = FindCoordinatorRequest(version=1, key="g", key_type=0)
    req.with_header(correlation_id=5, client_id="t")
    data = _raw_request(sandbox.ports[0], bytes(req.encode(header=True)))
    resp = FindCoordinatorResponse.decode(data, version=1, header=True)
    assert resp.error_code == 35


@pytest.mark.skipif(shutil.which("kcat") is None, reason="kcat not installed")
def test_kcat_lists_metadata(sandbox):
    out = subprocess.run(["kcat", "-L", "-b", sandbox.bootstrap, "-m", "10"], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stderr
    assert "3 brokers:" in out.stdout
    assert 'topic "orders" with 3 partitions' in out.stdout
    assert "leader 1, replicas: 1,2,0, isrs:" in out.stdout
