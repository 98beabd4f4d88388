"""The ZooKeeper backend's connecting, without a server: the kazoo client it made is stopped and
closed whatever ends the start (an error, Ctrl-C, a bug), and the Kafka probe reads the connect
string as ZooKeeper's clients do."""

from __future__ import annotations

from typing import ClassVar

import pytest

from kadmin.backends import zookeeper as zk
from kadmin.backends.zk_auth import zk_security
from kadmin.errors import ConnectionFailed


class _Client:
    made: ClassVar[list[_Client]] = []

    def __init__(self, **kwargs):
        self.calls: list[str] = []
        _Client.made.append(self)

    def stop(self):
        self.calls.append("stop")

    def close(self):
        self.calls.append("close")


@pytest.fixture
def client(monkeypatch):
    _Client.made.clear()
    monkeypatch.setattr("kazoo.client.KazooClient", _Client)
    return _Client.made


def _ending(error):
    def start(client, hosts, timeout, *, probe):
        raise error

    return start


@pytest.mark.parametrize("error", [KeyboardInterrupt(), RuntimeError("a bug in the probe")])
def test_a_start_ended_by_anything_leaves_no_client_behind(client, monkeypatch, error):
    """Ctrl-C in _start's polling loop, or an unexpected error from the Kafka probe: the client
    used to be left started (its threads reconnecting until the process ended)."""
    monkeypatch.setattr(zk, "_start", _ending(error))
    with pytest.raises(type(error)):
        zk._connect("127.0.0.1:2181", 5.0, zk_security({}))
    assert client[0].calls == ["stop", "close"]


def test_a_mapped_error_stops_and_closes_it_too(client, monkeypatch):
    monkeypatch.setattr(zk, "_start", _ending(zk.KafkaNotZooKeeper("127.0.0.1:9092 answered")))
    with pytest.raises(ConnectionFailed, match=r"no ZooKeeper at 127\.0\.0\.1:9092"):
        zk._connect("127.0.0.1:9092", 5.0, zk_security({}))
    assert client[0].calls == ["stop", "close"]


@pytest.fixture
def probed(monkeypatch):
    """The addresses the Kafka probe connects to; every one answers as Kafka."""
    from kadmin.backends import wire_client

    seen: list[tuple[str, int]] = []

    class Kafka:
        def __init__(self, host, port, timeout, client_id):
            seen.append((host, port))

        def close(self):
            pass

    monkeypatch.setattr(wire_client, "Connection", Kafka)
    return seen


def test_the_probe_reads_a_host_without_a_port_as_2181(probed):
    """It used to skip the probe (and wait out the timeout) for an entry without a port."""
    assert zk._kafka_listeners("zk1,zk2:2182/kafka", 1.0) == ["zk1:2181", "zk2:2182"]
    assert probed == [("zk1", 2181), ("zk2", 2182)]


def test_the_probe_keeps_ipv6_brackets(probed):
    """An IPv6 address used to be named without its brackets ("::1:9092")."""
    assert zk._kafka_listeners("[::1]:9092", 1.0) == ["[::1]:9092"]
    assert probed == [("::1", 9092)]


def test_a_connect_string_no_client_reads_is_not_probed(probed):
    assert zk._kafka_listeners("bad zk string", 1.0) == []
    assert probed == []
