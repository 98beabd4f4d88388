"""Client helpers shared by the sandbox tests: real confluent-kafka and kafka-python admins."""

from __future__ import annotations

import contextlib


def confluent(sb):
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": sb.bootstrap})


@contextlib.contextmanager
def kafka_python(sb):
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=sb.bootstrap, request_timeout_ms=10000)
    try:
        yield admin
    finally:
        admin.close()


def describe_log_dirs(sb, brokers=None, topics=None) -> dict[int, dict[str, dict]]:
    """broker -> path -> DescribeLogDirs result dict (kafka-python)."""
    with kafka_python(sb) as admin:
        raw = admin.describe_log_dirs(topic_partitions=topics, brokers=brokers)
    return {entry["broker"]: {d["log_dir"]: d for d in entry["log_dirs"]} for entry in raw}


def partitions_of(result_dir: dict) -> dict[tuple[str, int, bool], dict]:
    out = {}
    for t in result_dir["topics"]:
        for p in t["partitions"]:
            out[(t["name"], p["partition_index"], p["is_future_key"])] = p
    return out


def raw(sb, broker_id: int, request, version: int, response_version: int | None = None):
    """Send one request on a fresh connection to a broker; the decoded response (or None if the
    broker closed the connection). For what neither client library can send. ``response_version``:
    decode the answer at this version (ApiVersions answers an unknown version with v0)."""
    from kadmin.sandbox import protocol

    request.with_header(correlation_id=11, client_id="test")
    data = raw_frame(sb, broker_id, bytes(request.encode(version=version, header=True)))
    if data is None:
        return None
    api = protocol.registry()[request.API_KEY]
    return api.response.decode(data, version=version if response_version is None else response_version, header=True)


def raw_frame(sb, broker_id: int, frame: bytes) -> bytes | None:
    """Send one request frame (header and body, unsized) on a fresh connection; the response
    frame, or None if the broker closed the connection."""
    import socket
    import struct

    with socket.create_connection(("127.0.0.1", sb.ports[broker_id]), timeout=10) as s:
        s.sendall(struct.pack(">i", len(frame)) + frame)
        head = s.recv(4, socket.MSG_WAITALL)
        if len(head) < 4:
            return None
        (n,) = struct.unpack(">i", head)
        return s.recv(n, socket.MSG_WAITALL)
