"""--timeout with every broker far away (each answer 300 ms late) and with a silent controller.

confluent-kafka's client is faked on a fake clock the way librdkafka behaves: a new client's
first request carries its set-up (four round trips) inside the request's timeout, and set-up done
stays done even when that request timed out. kafka-python's admin client is faked to time out
listing reassignments, as when the controller does not answer."""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaError, KafkaException

from kadmin.backends.admin import AdminBackend
from kadmin.config import ConnectionSettings
from kadmin.errors import ConnectionFailed
from kadmin.model import AlterOp, ConfigChange, ConfigResource, ConfigResourceType

RTT = 0.3  # every broker 300 ms away
SET_UP = 3 * RTT  # ApiVersions, librdkafka's own Metadata, ApiVersions of the broker asked


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Future:
    def __init__(self, clock: FakeClock, needs: float, timeout: float, value=None):
        self.clock, self.needs, self.timeout, self.value = clock, needs, timeout, value

    def result(self, timeout=None):
        if self.needs > self.timeout:
            self.clock.now += self.timeout
            raise KafkaException(KafkaError(KafkaError._TIMED_OUT))
        self.clock.now += self.needs
        return self.value


class FarAway:
    """librdkafka's AdminClient with every broker RTT away."""

    clock: FakeClock

    def __init__(self, conf):
        self.set_up = False

    def _request(self, timeout: float, value=None) -> Future:
        needs = RTT + (0 if self.set_up else SET_UP)
        self.set_up = True  # librdkafka keeps connecting past a request's timeout
        return Future(self.clock, needs, timeout, value)

    def describe_cluster(self, request_timeout):
        node = type("Node", (), {"id": 1})()
        return self._request(request_timeout, type("Desc", (), {"nodes": [node]})())

    def incremental_alter_configs(self, resources, request_timeout):
        return {r: self._request(request_timeout) for r in resources}

    def poll(self, timeout):
        return 0


def _backend(timeout: float) -> tuple[AdminBackend, FakeClock]:
    clock = FakeClock()
    b = AdminBackend(ConnectionSettings(bootstrap_servers="127.0.0.1:9", timeout=timeout), read_only=False)
    b._clock = clock
    b._deadline = clock() + timeout
    b._wire_off = True
    return b, clock


def test_a_write_to_brokers_far_away_fits_in_the_timeout(monkeypatch):
    """`reassign execute --throttle --timeout 1s` and `throttle set --timeout 2s` with every broker
    300 ms away failed with 'no answer from <every broker>' and changed nothing: the call had
    what was left of --timeout after kadmin's own work (its throttle record), and librdkafka's
    set-up did not fit in it."""
    monkeypatch.setattr("confluent_kafka.admin.AdminClient", FarAway)
    b, clock = _backend(1.0)
    FarAway.clock = clock
    # kadmin's small client read the cluster (its reads answered), then stood aside for the write
    b._wire = type("Wire", (), {"brokers_seen": lambda self: {1}, "silent": {}, "close": lambda self: None})()
    clock.now += 0.9  # kadmin's own work since the last answer (writing its throttle record)
    broker = ConfigResource(ConfigResourceType.BROKER, "1")
    b.incremental_alter_configs([ConfigChange(broker, "leader.replication.throttled.rate", AlterOp.SET, "1000")])


class _ControllerSilent:
    """kafka-python's admin client: bootstraps, knows the controller, and times out listing
    reassignments (the controller does not answer)."""

    def __init__(self, **kwargs):
        controller = type("B", (), {"node_id": 2, "host": "127.0.0.1", "port": 9094})()
        cluster = type("Cluster", (), {"controller": controller})()
        self._manager = type("Manager", (), {"config": {}, "cluster": cluster})()

    def list_partition_reassignments(self, tps, timeout_ms=None):
        from kafka.errors import RequestTimedOutError

        raise RequestTimedOutError(f"Request timed out after {timeout_ms} ms")

    def close(self):
        pass


def test_a_silent_controller_is_named(monkeypatch):
    """`reassign list`, `progress`, `verify`, `throttle show` and `leaders show` failed with
    'listing reassignments: REQUEST_TIMED_OUT (...) (a broker did not answer ...)', no broker named."""
    monkeypatch.setattr("kafka.admin.KafkaAdminClient", _ControllerSilent)
    b, _ = _backend(4.0)
    with pytest.raises(ConnectionFailed) as caught:
        b.list_partition_reassignments()
    assert "no answer from the controller, broker 2 at 127.0.0.1:9094, within 4s" in str(caught.value)


def test_a_silent_controller_is_named_from_the_small_clients_metadata(monkeypatch):
    monkeypatch.setattr("kafka.admin.KafkaAdminClient", _ControllerSilent)
    b, _ = _backend(4.0)
    b._wire = type("Wire", (), {"controller_seen": lambda self: (0, "127.0.0.1:9092"), "silent": {}})()
    with pytest.raises(ConnectionFailed, match=r"no answer from the controller, broker 0 at 127\.0\.0\.1:9092"):
        b.list_partition_reassignments()
