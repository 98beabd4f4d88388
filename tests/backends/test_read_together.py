"""Reads in flight together (``AdminBackend.read_together``): what throttle show, verify and every
throttle operation read after the cluster's metadata goes out at once through the small client,
pipelined on its connections; a read it cannot serve runs afterwards, alone, through the library
clients."""

from __future__ import annotations

import threading

import pytest

from kadmin.backends.admin import AdminBackend
from kadmin.backends.admin_records import RecordTopic
from kadmin.backends.wire_client import Connection, WireUnavailable
from kadmin.backends.wire_codec import api
from kadmin.config import ConnectionSettings
from kadmin.errors import NotFoundError
from kadmin.model import (
    FOLLOWER_RATE,
    AlterOp,
    Assignment,
    ConfigChange,
    ConfigResource,
    ConfigResourceType,
    ReassignmentPlan,
)
from kadmin.sandbox import Sandbox
from kadmin.throttling.state import read_throttle_state
from kadmin.throttling.stores import open_record_store

RECORDS = "__kadmin_throttle_records"
DESCRIBE_CONFIGS, DESCRIBE_LOG_DIRS, LIST_REASSIGNMENTS, FETCH, LIST_OFFSETS = 32, 35, 46, 1, 2


def _backend(sb, *, small_client: bool = True, read_only: bool = True) -> AdminBackend:
    b = AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=10.0), read_only=read_only)
    if not small_client:
        b._wire_off = True
    return b


@pytest.fixture(scope="module")
def cluster():
    """3 brokers, a reassignment running (the clock is manual), a throttle set and its record."""
    with Sandbox(brokers=3, log_dirs=2, manual_clock=True) as sb:
        sb.create_topic("t", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=2**20)
        with _backend(sb, read_only=False) as w:
            w.incremental_alter_configs(
                [ConfigChange(ConfigResource(ConfigResourceType.BROKER, "1"), FOLLOWER_RATE, AlterOp.SET, "1000")]
            )
            w.reassign_partitions([Assignment("t", 0, (2, 1))])
            RecordTopic(w, RECORDS).write("plan-a", b'{"version": 1, "plan_id": "plan-a", "rates": [], "replicas": {}}')
        yield sb


def _show(state) -> dict:
    from kadmin.commands.throttle_show import show_json

    return show_json(state)


def in_flight_together(monkeypatch, api_keys: set[int]) -> list:
    """From now on, the first answer to a request of ``api_keys`` is awaited only once a request of
    each of them has been sent; the list returned collects the keys still unsent when that wait
    gave up (10 s). Reads made one after another leave it non-empty: an answer waits in vain for
    a request its own read has to come first."""
    sent: set[int] = set()
    changed = threading.Condition()
    missed: list = []
    send, answer = Connection.send, Connection.answer

    def record_send(self, message, body, version):
        correlation = send(self, message, body, version)
        with changed:
            sent.add(message.key)
            changed.notify_all()
        return correlation

    def answer_once_all_are_sent(self, correlation, message, version):
        if message.key in api_keys:
            with changed:
                if not changed.wait_for(lambda: api_keys <= sent, timeout=10):
                    missed.append(api_keys - sent)
        return answer(self, correlation, message, version)

    monkeypatch.setattr(Connection, "send", record_send)
    monkeypatch.setattr(Connection, "answer", answer_once_all_are_sent)
    return missed


def test_every_read_is_in_flight_before_any_answer_is_read(cluster, monkeypatch):
    with _backend(cluster) as b:
        b.describe_cluster()
        missed = in_flight_together(monkeypatch, {DESCRIBE_CONFIGS, DESCRIBE_LOG_DIRS, LIST_REASSIGNMENTS, FETCH})
        state = read_throttle_state(b, open_record_store(b))
        assert not b._wire_off
    assert missed == []
    assert state.ongoing and set(state.records) == {"plan-a"} and state.log_dirs_known
    assert state.current.broker_rates[1][FOLLOWER_RATE] == 1000


def test_a_progress_refresh_reads_moves_log_dirs_and_end_offsets_together(cluster, monkeypatch):
    from kadmin.execute.sampler import Sampler

    plan = ReassignmentPlan(partitions=(Assignment("t", 0, (2, 1)), Assignment("t", 1, (1, 2))))
    with _backend(cluster) as b:
        missed = in_flight_together(monkeypatch, {LIST_REASSIGNMENTS, DESCRIBE_LOG_DIRS, LIST_OFFSETS})
        snap = Sampler(b, plan)(None)
        assert not b._wire_off
    assert missed == []
    assert not snap.done


def test_verify_reads_the_records_while_it_judges(cluster, monkeypatch):
    from kadmin.execute.verification import run_verify
    from kadmin.plan.verify import State

    plan = ReassignmentPlan(partitions=(Assignment("t", 0, (2, 1)),))
    with _backend(cluster) as b:
        missed = in_flight_together(monkeypatch, {LIST_REASSIGNMENTS, FETCH})
        outcome = run_verify(b, plan, plan_id="plan-b", records=open_record_store(b))
        assert not b._wire_off
    assert missed == []
    assert outcome.result.state is State.IN_PROGRESS and outcome.removal is None


def test_a_read_the_small_client_cannot_serve_runs_after_through_the_library_clients(cluster, monkeypatch):
    from kadmin.backends import admin_clients, wire_reads

    with _backend(cluster, small_client=False) as slow:
        expected = _show(read_throttle_state(slow, open_record_store(slow)))

    def refuse(*args, **kwargs):
        raise WireUnavailable("not this one")

    library_threads = []
    kafka_python = admin_clients.AdminClients._kafka_python

    def note_thread(self):
        library_threads.append(threading.current_thread())
        return kafka_python(self)

    monkeypatch.setattr(wire_reads, "reassignments", refuse)
    monkeypatch.setattr(admin_clients.AdminClients, "_kafka_python", note_thread)
    with _backend(cluster) as b:
        got = _show(read_throttle_state(b, open_record_store(b)))
        assert b._wire_off  # it gave up; the others had already been read
    assert got == expected and got["reassigning_partitions"] == 1
    assert library_threads and set(library_threads) == {threading.main_thread()}


def test_the_first_error_in_order_is_raised_once_every_read_is_done():
    done = threading.Event()

    def missing():
        raise NotFoundError("no such thing")

    with AdminBackend(ConnectionSettings(bootstrap_servers="127.0.0.1:1")) as b:
        with pytest.raises(NotFoundError, match="no such thing"):
            b.read_together(lambda: 1, missing, lambda: done.wait(5) or ValueError("late"), lambda: 4)
        assert b.read_together(lambda: 1, lambda: done.set() or 2) == [1, 2]


def test_threads_share_a_connection_each_getting_its_own_answer():
    """Requests from many threads pipelined on one connection to a broker far away: every thread
    gets the answer to its own request."""
    with Sandbox(brokers=1, log_dirs=1, manual_clock=True) as sb:
        for i in range(8):
            sb.create_topic(f"topic-{i}", partitions=i + 1, replication_factor=1)
        sb.faults.latency(0, 200)
        conn = Connection("127.0.0.1", sb.ports[0], 10.0, "test")
        got: dict[int, tuple] = {}

        def ask(i):
            [t] = conn.request(api("Metadata"), {"topics": [{"name": f"topic-{i}"}]}).topics
            got[i] = (t.name, len(t.partitions))

        threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        conn.close()
    assert got == {i: (f"topic-{i}", i + 1) for i in range(8)}


def test_the_library_clients_stay_with_one_thread_after_a_read_together_within_a_read():
    library_threads = []

    with AdminBackend(ConnectionSettings(bootstrap_servers="127.0.0.1:1", timeout=1.0)) as b:

        def library_read():
            b._library_allowed()  # what reaching kafka-python's or confluent-kafka's client checks
            library_threads.append(threading.current_thread())
            return "library"

        def nested_then_library():
            assert b.read_together(lambda: 1, lambda: 2) == [1, 2]
            return library_read()

        assert b.read_together(lambda: 0, nested_then_library) == [0, "library"]
    assert library_threads == [threading.main_thread()]


def test_a_connection_dropped_with_reads_in_flight_leaves_them_to_the_library_clients(cluster, monkeypatch):
    """Every broker 300 ms away; once the brokers have the reads' requests, broker 0 drops its
    connections: the reads waiting on them give up together (none waits for ever) and the state
    read is the library clients', whole."""
    from kadmin.sandbox.wire import BrokerServer

    with _backend(cluster, small_client=False) as slow:
        expected = _show(read_throttle_state(slow, open_record_store(slow)))
    handled: set[int] = set()
    changed = threading.Condition()
    handle = BrokerServer.handle

    def noting(self, frame, session=None):
        with changed:
            handled.add(int.from_bytes(frame[:2], "big"))  # the request's API key
            changed.notify_all()
        return handle(self, frame, session)

    monkeypatch.setattr(BrokerServer, "handle", noting)
    for b in range(3):
        cluster.faults.latency(b, 300)
    try:
        with _backend(cluster) as b:
            b.describe_cluster()
            handled.clear()

            def drop_once_all_are_asked():
                with changed:
                    changed.wait_for(lambda: {DESCRIBE_CONFIGS, DESCRIBE_LOG_DIRS, LIST_REASSIGNMENTS} <= handled, 10)
                cluster.faults.drop_connections(0)

            dropper = threading.Thread(target=drop_once_all_are_asked)
            dropper.start()
            got = _show(read_throttle_state(b, open_record_store(b)))
            dropper.join(10)
            assert b._wire_off  # the small client gave up on the dropped connection
    finally:
        for b in range(3):
            cluster.faults.latency(b, 0)
    assert got == expected


@pytest.mark.parametrize("timeout", [0.4, 360.0, 3600.0])
def test_the_records_are_written_and_read_through_the_library_clients_at_any_timeout_kadmin_accepts(timeout):
    """kafka-python's producer refused a delivery timeout under its request timeout (every record
    write with --timeout over 2 minutes failed), and its consumer a request timeout outside
    fetch_max_wait_ms..connections_max_idle_ms (500 ms .. 9 min)."""
    with Sandbox(brokers=1) as sb:
        settings = ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=timeout)
        with AdminBackend(settings, read_only=False) as b:
            b._wire_off = True  # the library clients, as with TLS or SASL
            records = RecordTopic(b, RECORDS)
            records.write("plan-a", b"{}")
            assert records.read_all() == {"plan-a": b"{}"}
