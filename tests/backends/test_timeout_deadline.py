"""``--timeout`` bounds the AdminClient backend's waiting for the cluster as a whole: kadmin's
small client waits half of it, once per server, and the library clients it falls back to get
what is left (never less than a floor), not the whole of it again.

The arithmetic runs on a fake clock (the waits are faked: nothing depends on how loaded the
machine is); the small client's "once per server" against a real socket that accepts and never
answers, counted by its connections; one in-process run against that socket bounds the wall
time with a margin of a second either way."""

from __future__ import annotations

import socket
import threading
import time
from typing import ClassVar

import pytest

from kadmin.backends import admin_clients
from kadmin.backends import wire_client as wire_module
from kadmin.backends.admin import AdminBackend
from kadmin.backends.wire_client import NoAnswer, WireClient, WireUnavailable
from kadmin.config import ConnectionSettings
from kadmin.errors import ConnectionFailed


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def wait(self, seconds: float) -> None:
        self.now += seconds


def _backend(timeout: float, bootstrap: str = "127.0.0.1:9") -> tuple[AdminBackend, FakeClock]:
    clock = FakeClock()
    b = AdminBackend(ConnectionSettings(bootstrap_servers=bootstrap, timeout=timeout))
    b._clock = clock
    b._deadline = clock() + timeout  # as taken when it opened, on the fake clock
    return b, clock


@pytest.fixture
def waits(monkeypatch):
    """The small client and both library clients faked: each waits (on the fake clock) as long as
    it was given, then finds no answer. Returns what each was given, in order."""
    given: list[tuple[str, float]] = []
    state: dict = {}

    class Wire:
        def __init__(self, bootstrap, timeout, client_id="kadmin"):
            self.timeout = timeout
            self.silent: dict = {}
            self.bootstrap_failures: list = []
            given.append(("small client", timeout))

        def brokers(self, max_age=1.0):
            state["clock"].wait(self.timeout)
            raise NoAnswer("ApiVersions: timed out")

        metadata = brokers

        def brokers_seen(self):
            return set()

        def close(self):
            pass

    from kafka.errors import KafkaTimeoutError

    class KafkaPython:
        def __init__(self, **kwargs):
            given.append(("kafka-python request", kwargs["request_timeout_ms"] / 1000))
            given.append(("kafka-python bootstrap", kwargs["bootstrap_timeout_ms"] / 1000))
            state["clock"].wait(kwargs["bootstrap_timeout_ms"] / 1000)
            raise KafkaTimeoutError("Unable to bootstrap")

    from confluent_kafka import KafkaError, KafkaException

    class Confluent:
        def __init__(self, conf):
            given.append(("confluent socket", conf["socket.timeout.ms"] / 1000))

        def list_topics(self, timeout):
            given.append(("confluent metadata", timeout))
            state["clock"].wait(timeout)
            raise KafkaException(KafkaError(KafkaError._TRANSPORT))

        def poll(self, timeout):
            return 0

    monkeypatch.setattr(wire_module, "WireClient", Wire)
    monkeypatch.setattr("kafka.admin.KafkaAdminClient", KafkaPython)
    monkeypatch.setattr("confluent_kafka.admin.AdminClient", Confluent)
    state["given"] = given
    return state


def test_the_library_clients_get_what_the_small_client_left(waits):
    b, clock = _backend(8.0)
    waits["clock"] = clock
    started = clock()
    with pytest.raises(ConnectionFailed, match=r"no broker answered at 127\.0\.0\.1:9 within 8s"):
        b.describe_brokers()  # the small client, then kafka-python
    assert waits["given"] == [
        ("small client", 4.0),
        ("kafka-python request", 8.0),  # configured with --timeout; each call gets what is left
        ("kafka-python bootstrap", 4.0),  # bootstrapping is now: what the small client left
    ]
    assert clock() - started == pytest.approx(8.0)  # was 4 + 8: the library clients had all of it again


def test_once_the_deadline_passed_a_wait_has_the_floor(waits):
    b, clock = _backend(8.0)
    waits["clock"] = clock
    with pytest.raises(ConnectionFailed):
        b.describe_brokers()
    del waits["given"][:]
    with pytest.raises(ConnectionFailed, match=r"no broker answered at 127\.0\.0\.1:9 within 8s"):
        b.describe_cluster()  # confluent-kafka: --timeout is spent, it has the floor
    assert waits["given"] == [("confluent socket", 8.0), ("confluent metadata", 1.0)]  # the call has the floor


class _Answering:
    """kafka-python's admin client, faked: it bootstraps at once and answers each call; what it
    was configured with and what each call was given are kept."""

    made: ClassVar[list[dict]] = []

    def __init__(self, **kwargs):
        self.config = kwargs
        self._manager = type("Manager", (), {"config": {"socket_connection_setup_timeout_ms": 10_000}})()
        self.calls: list[int] = []
        _Answering.made.append(self.__dict__)

    def list_partition_reassignments(self, tps, timeout_ms=None):
        self.calls.append(timeout_ms)
        return {}

    def close(self):
        pass


def test_a_client_made_once_the_deadline_was_spent_is_not_pinned_to_the_floor(monkeypatch):
    """The small client spent --timeout before kafka-python was needed: kafka-python used to be
    configured with the floor (request timeout, connection setup) for the rest of the command,
    a long --wait included, after answers had given the calls --timeout again."""
    _Answering.made.clear()
    monkeypatch.setattr("kafka.admin.KafkaAdminClient", _Answering)
    b, clock = _backend(8.0)
    b._wire_off = True  # the small client gave up, having spent --timeout
    clock.wait(20)
    assert b.list_partition_reassignments() == {}
    (made,) = _Answering.made
    assert made["config"]["request_timeout_ms"] == 8000
    # nothing was waited for in vain: its set-up is a wait that starts now, with --timeout
    assert made["config"]["bootstrap_timeout_ms"] == 8000
    assert made["_manager"].config["socket_connection_setup_timeout_ms"] == 8000
    clock.wait(7.5)  # kadmin's own work, not a wait for the cluster
    b.list_partition_reassignments()
    b.missed()  # a wait ran out: each call has what is left when it is made
    clock.wait(7.5)
    b.list_partition_reassignments()
    assert made["calls"] == [8000, 8000, 1000]
    assert made["_manager"].config["socket_connection_setup_timeout_ms"] == 1000  # new connections too


def test_a_library_client_made_after_answers_has_the_whole_timeout_for_its_set_up(monkeypatch):
    """Every broker 300 ms away: the small client's reads answered, then time passed outside the
    backend; the library client for a write used to get the floor, and its set-up (ApiVersions,
    Metadata, then the broker's ApiVersions) did not fit: 'no answer from <all brokers>'."""
    _Answering.made.clear()
    monkeypatch.setattr("kafka.admin.KafkaAdminClient", _Answering)
    b, clock = _backend(2.0)
    b._wire_off = True
    b.answered()
    clock.wait(1.9)  # e.g. writing kadmin's throttle record
    b.list_partition_reassignments()
    (made,) = _Answering.made
    assert made["config"]["bootstrap_timeout_ms"] == 2000
    assert made["calls"] == [2000]


def test_answers_from_other_brokers_do_not_put_off_a_silent_ones_deadline():
    """One silent broker: the small client waited for it, then the library clients asked again
    and the others answered. Each answer gave the next wait --timeout again: `throttle show
    --timeout 10s` took 20 s, `reassign progress` 26 s."""
    b, clock = _backend(10.0)
    clock.wait(5)
    b.missed()  # the small client's wait for it ran out
    b.answered()  # another broker answers
    assert b.left() == 5.0  # the silent broker's wait ends when it was due to
    clock.wait(5)
    b.answered()
    assert b.left() == admin_clients.FLOOR  # a second read asking it again: the floor
    b.answered(every_broker=True)  # every broker asked answered (a poll): it is back
    assert b.left() == 10.0
    b.answered()
    assert b.left() == 10.0


def test_the_deadline_arithmetic():
    b, clock = _backend(8.0)
    assert b.left() == 8.0
    clock.wait(5.5)
    assert b.left() == 2.5 and b.left_ms() == 2500
    clock.wait(10)
    assert b.left() == admin_clients.FLOOR  # spent: the floor, so a cluster answering at once can
    b.answered()  # the cluster answered: the next wait may take --timeout again (a --wait polling for minutes)
    assert b.left() == 8.0
    short, clock = _backend(1.0)
    clock.wait(5)
    assert short.left() == 0.5  # the floor is never more than half of a short --timeout


class Silent:
    """A listener that accepts connections and never answers; counts them."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.sock.getsockname()[1]}"
        self.accepted = 0
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)
            self.accepted += 1

    def close(self) -> None:
        for s in [self.sock, *self.held]:
            s.close()


@pytest.fixture
def silent():
    server = Silent()
    yield server
    server.close()


def test_the_small_client_waits_once_for_a_dead_bootstrap(silent):
    """Two reads at once (``read_together``, as ``leaders show`` does) and one after: one
    connection, one wait; before, the second thread opened its own and waited again."""
    wire = WireClient(silent.address, 0.3)
    errors: list[Exception] = []

    def read():
        try:
            wire.brokers()
        except WireUnavailable as e:
            errors.append(e)

    threads = [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with pytest.raises(NoAnswer):
        wire.metadata()
    assert len(errors) == 2 and all(isinstance(e, NoAnswer) for e in errors)
    assert silent.accepted == 1
    assert wire.silent == {("127.0.0.1", int(silent.address.split(":")[1])): "ApiVersions: timed out"}


def test_a_command_against_a_dead_bootstrap_ends_at_its_timeout(silent):
    """In process, real sockets: two reads at once as ``leaders show`` makes them. Before, 4 s
    took 2 + 2 (the small client, twice) + 4 (the library client) = 8 s; now 4."""
    import kafka.admin  # noqa: F401  imported before the clock starts: not the cluster's time

    with AdminBackend(ConnectionSettings(bootstrap_servers=silent.address, timeout=4.0)) as b:
        started = time.monotonic()
        with pytest.raises(ConnectionFailed, match="no broker answered"):
            b.read_together(b.describe_brokers, b.list_partition_reassignments)
        elapsed = time.monotonic() - started
    assert 3.5 < elapsed < 5.5
