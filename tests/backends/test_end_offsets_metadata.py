"""list_end_offsets through confluent-kafka (the small client off) finds the leaders with one
Metadata request naming the topics it reads, again after a retry: it asked for every topic in the
cluster each time (list_topics), which on a cluster of thousands of topics is most of the work."""

from __future__ import annotations

import pytest

from kadmin.backends.admin import AdminBackend
from kadmin.config import ConnectionSettings
from kadmin.model import TopicPartition
from kadmin.sandbox import Sandbox, apis
from kadmin.sandbox import protocol as P


@pytest.fixture
def cluster(monkeypatch):
    with Sandbox(brokers=3, manual_clock=True) as sb:
        sb.create_topic("t", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=1 << 20)
        for name in ("other", "more"):
            sb.create_topic(name, assignment={0: [2, 0]}, size_bytes=1 << 10)
        asked: list = []  # the topics each Metadata request named (None: all of them)
        metadata = apis.HANDLERS[P.METADATA]

        def spy(engine, broker_id, version, req):
            asked.append(None if req.topics is None else sorted(t.name for t in req.topics))
            return metadata(engine, broker_id, version, req)

        monkeypatch.setitem(apis.HANDLERS, P.METADATA, spy)
        sb.asked = asked
        yield sb


def _offsets(sb, partitions):
    with AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=5.0)) as b:
        b._wire_off = True  # as after the small client gave up: the library clients answer
        return b.list_end_offsets(partitions)


def _named(asked) -> set:
    assert None not in asked, asked  # no request for every topic
    return {t for topics in asked for t in topics}


def test_the_leaders_of_the_topics_read_only(cluster):
    offsets = _offsets(cluster, [TopicPartition("t", 0), TopicPartition("t", 1)])
    assert set(offsets) == {TopicPartition("t", 0), TopicPartition("t", 1)}
    assert _named(cluster.asked) == {"t"}


def test_after_a_retry_too(cluster, monkeypatch):
    """The first ListOffsets answer says NOT_LEADER_OR_FOLLOWER (leadership moving): the leaders
    are read again, for the partition still pending only."""
    list_offsets = apis.HANDLERS[P.LIST_OFFSETS]
    refused: list = []

    def not_leader_once(engine, broker_id, version, req):
        resp = list_offsets(engine, broker_id, version, req)
        for t in resp.topics:
            for p in t.partitions:
                if (t.name, p.partition_index) == ("t", 1) and not refused:
                    refused.append(broker_id)
                    p.error_code, p.offset = P.NOT_LEADER_OR_FOLLOWER, -1
        return resp

    monkeypatch.setitem(apis.HANDLERS, P.LIST_OFFSETS, not_leader_once)
    offsets = _offsets(cluster, [TopicPartition("t", 0), TopicPartition("t", 1)])
    assert refused and set(offsets) == {TopicPartition("t", 0), TopicPartition("t", 1)}
    assert _named(cluster.asked) == {"t"}
    assert len([a for a in cluster.asked if a == ["t"]]) >= 2  # read again after the retry
