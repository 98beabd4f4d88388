"""One slow broker (the sandbox's ``slow`` fault: it answers nothing within --timeout) does not
fail a read the other brokers can serve, and an error names the broker that did not answer,
not every bootstrap server.

kafka-python bootstraps from a bootstrap server drawn at random: the draw is made to fall on the
slow broker whenever it may, the run that used to fail one time in three."""

from __future__ import annotations

import random

import pytest

from kadmin.backends.admin import AdminBackend
from kadmin.config import ConnectionSettings
from kadmin.errors import ConnectionFailed
from kadmin.model import TopicPartition
from kadmin.sandbox import Sandbox

SLOW = 1  # the slow broker
TIMEOUT = 2.0


class _UnluckyDraw:
    """kafka-python's ``random`` module, drawing the slow broker's address whenever it can."""

    def __init__(self, port: int):
        self.port = port

    def choice(self, seq):
        return next((x for x in seq if getattr(x, "port", None) == self.port), seq[0])

    def __getattr__(self, name):
        return getattr(random, name)


@pytest.fixture
def cluster(monkeypatch):
    with Sandbox(brokers=3, manual_clock=True) as sb:
        sb.create_topic("t", assignment={0: [0, 1], 1: [1, 2], 2: [2, 0]}, size_bytes=1 << 20)
        import kafka.net.manager

        monkeypatch.setattr(kafka.net.manager, "random", _UnluckyDraw(sb.ports[SLOW]))
        sb.faults.slow(SLOW, 20_000)
        try:
            yield sb
        finally:
            sb.faults.slow(SLOW, 0)


def _backend(sb) -> AdminBackend:
    return AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=TIMEOUT))


def test_the_other_brokers_log_dirs_are_read(cluster):
    """The small client waits for the slow broker, then kafka-python is asked: it used to
    bootstrap from the slow broker and fail with "no broker answered at <all three>"."""
    with _backend(cluster) as b:
        dirs = b.describe_log_dirs()
    assert dirs[0].error is None and dirs[2].error is None and dirs[0].log_dirs and dirs[2].log_dirs
    assert dirs[SLOW].error is not None  # reported, not fatal, as a broker that is down


def test_end_offsets_the_answering_leaders_give_are_read(cluster):
    """t-0's leader answers, t-1's (the slow broker) does not: t-1 is left out (shown as unknown),
    not the whole read failed."""
    with _backend(cluster) as b:
        offsets = b.list_end_offsets([TopicPartition("t", 0), TopicPartition("t", 1), TopicPartition("t", 2)])
    assert set(offsets) == {TopicPartition("t", 0), TopicPartition("t", 2)}


@pytest.fixture
def waiting_past_librdkafkas_timeout(monkeypatch):
    """The backend's wait for the library's answers lasts past librdkafka's own request timeout
    (both are what is left of --timeout; which ends first was a coin toss)."""
    import concurrent.futures

    wait = concurrent.futures.wait
    monkeypatch.setattr(concurrent.futures, "wait", lambda fs, timeout=None, **kw: wait(fs, (timeout or 0) + 0.5, **kw))


def test_a_leader_that_did_not_answer_is_not_given_an_offset(cluster, waiting_past_librdkafkas_timeout):
    """librdkafka resolves the offset of a partition whose leader did not answer within its
    request timeout with offset -1001 and no error: that is no answer, not an end offset (it was,
    one run in three, when librdkafka's timeout ended before the backend's wait)."""
    with _backend(cluster) as b:
        offsets = b.list_end_offsets([TopicPartition("t", 0), TopicPartition("t", 1), TopicPartition("t", 2)])
    assert set(offsets) == {TopicPartition("t", 0), TopicPartition("t", 2)}
    assert all(offset >= 0 for offset in offsets.values()), offsets


def test_no_answer_from_the_only_leader_asked_is_an_error(cluster, waiting_past_librdkafkas_timeout):
    with _backend(cluster) as b, pytest.raises(ConnectionFailed, match=f"no answer from broker {SLOW} at"):
        b.list_end_offsets([TopicPartition("t", 1)])


def test_the_error_names_the_broker_that_did_not_answer(cluster):
    slow, others = cluster.ports[SLOW], [p for b, p in cluster.ports.items() if b != SLOW]
    with _backend(cluster) as b, pytest.raises(ConnectionFailed) as caught:
        b.list_end_offsets([TopicPartition("t", 1)])
    message = str(caught.value)
    assert f"no answer from broker {SLOW} at 127.0.0.1:{slow} within 2s" in message
    assert not any(str(p) in message for p in others), message
