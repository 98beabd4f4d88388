"""A --bootstrap-server kadmin cannot speak to as given (not a Kafka listener, or one asking for a
login) is said at once, and why; one where nothing listens yet is waited for until --timeout, as
before, and the error then says what was met.

Real sockets throughout: a real ZooKeeper server, the sandbox's TLS and SASL listeners, small
servers that answer like an HTTP server or not at all, and ports where nothing listens."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from types import SimpleNamespace

import pytest

from kadmin.backends.wire_client import TurnedAway, WireClient, WireUnavailable
from tests.support.zookeeper import free_port

# A generous --timeout: a command that waited for it would take this long, one that did not
# takes a process start-up.
LONG = 60


class Listener:
    """A TCP server on loopback. ``serve(listener, conn, n)`` handles its n-th connection (from 1)
    in the accepting thread; every socket is closed when the server stops."""

    def __init__(self, serve):
        self.serve = serve
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.sock.getsockname()[1]}"
        self.accepted = 0
        self.socks: list[socket.socket] = [self.sock]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            self.socks.append(conn)
            self.serve(self, conn, self.accepted)

    def close(self):
        for s in self.socks:
            s.close()


def answering(reply: bytes | None):
    """Each connection gets ``reply`` once its first bytes arrive (None: nothing, ever)."""

    def serve(listener, conn, n):
        if conn.recv(1024) and reply is not None:
            conn.sendall(reply)

    return serve


def closing_the_first_then_relaying_to(target: str):
    """The first connection is closed once its first bytes arrive (as a broker shutting down or
    throttling new connections does); later ones are relayed to ``target``."""
    host, port = target.split(":")

    def pipe(src, dst):
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass

    def serve(listener, conn, n):
        if n == 1:
            conn.recv(1024)
            conn.close()
            return
        upstream = socket.create_connection((host, int(port)))
        listener.socks.append(upstream)
        for a, b in ((conn, upstream), (upstream, conn)):
            threading.Thread(target=pipe, args=(a, b), daemon=True).start()

    return serve


@pytest.fixture
def http_like():
    server = Listener(answering(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))
    yield server.address
    server.close()


@pytest.fixture
def silent():
    server = Listener(answering(None))
    yield server.address
    server.close()


def _zookeeper_address(zookeeper: str) -> str:
    return zookeeper.split("/")[0]


def kadmin(*args: str, timeout: float = LONG) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "kadmin", *args], capture_output=True, text=True, timeout=timeout)
    return out, time.monotonic() - started


def _one_line(out: subprocess.CompletedProcess) -> str:
    assert out.returncode == 1, out
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kadmin: error: ") and "Traceback" not in out.stderr, out.stderr
    return lines[0]


# --- the small client --------------------------------------------------------------------------
def test_a_zookeeper_port_is_not_kafka(zookeeper):
    with pytest.raises(TurnedAway, match="closed the connection at Kafka's first request") as caught:
        WireClient(_zookeeper_address(zookeeper), LONG).any_connection()
    assert caught.value.kind == "not Kafka"


def test_a_sasl_listener_asks_for_a_login(sandbox_factory):
    """Kafka's SASL listeners answer ApiVersions, then close the connection at any other
    request before a login (the sandbox does as they do)."""
    sb = sandbox_factory(brokers=1, sasl_users={"admin": "adm1n-Pw-0000"})
    wire = WireClient(sb.bootstrap, LONG)
    with pytest.raises(TurnedAway, match="answered ApiVersions, then closed the connection") as caught:
        wire.brokers()
    assert caught.value.kind == "login"


def test_an_http_like_answer_is_not_kafka_and_is_not_waited_for(http_like):
    """ "HTTP" read as a size is 1.2 GB: refused at once, not awaited until the timeout."""
    started = time.monotonic()
    with pytest.raises(TurnedAway, match="answered Kafka's first request \\(ApiVersions\\) with bytes that are not Kafka's"):
        WireClient(http_like, LONG).any_connection()
    assert time.monotonic() - started < LONG / 2


def test_a_connection_closed_once_is_tried_again(sandbox):
    """Only a bootstrap server that turns the client away twice is final."""
    relay = Listener(closing_the_first_then_relaying_to(sandbox.bootstrap.split(",")[0]))
    try:
        wire = WireClient(relay.address, LONG)
        assert {b.node_id for b in wire.brokers().brokers} == set(sandbox.snapshot().brokers)
        assert relay.accepted == 2 and wire.bootstrap_failures == []
    finally:
        relay.close()


def test_nothing_listening_is_not_final_and_is_named():
    port = free_port()
    wire = WireClient(f"127.0.0.1:{port}", LONG)
    with pytest.raises(WireUnavailable) as caught:
        wire.any_connection()
    assert not isinstance(caught.value, TurnedAway)  # a broker may still come up: the backend waits
    assert wire.bootstrap_failures == [(f"127.0.0.1:{port}", "connection refused")]


def test_a_bootstrap_server_not_kafka_among_dead_ones_is_final(zookeeper):
    """A server that refuses the connection tells nothing: the one that answered decides (seen
    by hand: `-b 127.0.0.1:1,<ZooKeeper>` waited 5 s and said 'no broker answered', where the
    ZooKeeper address alone is said at once)."""
    wire = WireClient(f"127.0.0.1:{free_port()},{_zookeeper_address(zookeeper)}", LONG)
    with pytest.raises(WireUnavailable) as caught:
        wire.any_connection()
    assert isinstance(caught.value, TurnedAway) and caught.value.kind == "not Kafka"
    assert [why for _, why in wire.bootstrap_failures] == [
        "connection refused",
        "closed the connection at Kafka's first request (ApiVersions)",
    ]


def test_a_broker_found_in_the_metadata_is_never_final(zookeeper):
    """Only the bootstrap servers' answer is final; a broker the metadata names that turns the
    small client away is left to the library clients."""
    host, port = _zookeeper_address(zookeeper).split(":")
    wire = WireClient("127.0.0.1:1", LONG)
    wire.brokers = lambda *a, **k: SimpleNamespace(brokers=[SimpleNamespace(node_id=7, host=host, port=int(port))])
    with pytest.raises(WireUnavailable, match="broker 7 at") as caught:
        wire.broker(7)
    assert not isinstance(caught.value, TurnedAway)


def test_a_working_bootstrap_server_after_a_dead_one_is_used(sandbox):
    wire = WireClient(f"127.0.0.1:{free_port()},{sandbox.bootstrap}", LONG)
    assert {b.node_id for b in wire.brokers().brokers} == set(sandbox.snapshot().brokers)
    assert wire.bootstrap_failures == []


# --- the command line ----------------------------------------------------------------------------
@pytest.mark.parametrize("command", [["log-dirs", "describe"], ["throttle", "show"], ["reassign", "list"]])
def test_a_zookeeper_address_to_bootstrap_server_fails_at_once_and_says_where_it_goes(zookeeper, command):
    out, elapsed = kadmin(*command, "-b", _zookeeper_address(zookeeper), "--timeout", f"{LONG}s")
    line = _one_line(out)
    assert "no Kafka broker at" in line and "closed the connection at Kafka's first request" in line
    assert "--zookeeper" in line and "--command-config" in line
    assert elapsed < LONG / 2  # before this, the whole --timeout


def test_a_tls_listener_without_security_settings_fails_at_once(sandbox_factory, tmp_path):
    from tests.support.tls import make_tls_files

    try:
        tls = make_tls_files(tmp_path)
    except (RuntimeError, OSError) as e:
        pytest.skip(f"cannot make test certificates: {e}")
    sb = sandbox_factory(brokers=1, tls=(str(tls.cert), str(tls.key)))
    for command in (["log-dirs", "describe"], ["throttle", "show"], ["reassign", "list"]):
        out, elapsed = kadmin(*command, "-b", sb.bootstrap, "--timeout", "8s")
        assert _one_line(out) == (
            f"kadmin: error: {sb.bootstrap} speaks TLS: did not take Kafka's first request (ApiVersions) in "
            "plaintext and answered it over TLS (set security.protocol=SSL (or SASL_SSL), ssl.truststore.type=PEM "
            "and ssl.truststore.location in --command-config)"
        )
        assert elapsed < 4, (command, elapsed)  # well under --timeout 8s


def alerting_plaintext_relaying_tls_to(target: str):
    """A TLS listener as Java's SSLEngine is one: a plaintext request gets a TLS alert record
    (fatal, unexpected_message) before the connection closes; a TLS handshake is relayed to
    ``target`` (None: answered with the alert too)."""
    relay = closing_the_first_then_relaying_to(target) if target else None

    def serve(listener, conn, n):
        first = conn.recv(1, socket.MSG_PEEK)
        if first == b"\x16" and relay is not None:  # a ClientHello
            relay(listener, conn, 2)
            return
        conn.recv(1024)
        conn.sendall(bytes([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x0A]))
        conn.close()

    return serve


def test_a_tls_alert_to_plaintext_then_a_handshake_is_a_tls_listener(sandbox_factory, tmp_path):
    from tests.support.tls import make_tls_files

    try:
        tls = make_tls_files(tmp_path)
    except (RuntimeError, OSError) as e:
        pytest.skip(f"cannot make test certificates: {e}")
    sb = sandbox_factory(brokers=1, tls=(str(tls.cert), str(tls.key)))
    server = Listener(alerting_plaintext_relaying_tls_to(sb.bootstrap))
    try:
        with pytest.raises(TurnedAway, match=f"^{server.address}$") as caught:
            WireClient(server.address, LONG).any_connection()
        assert caught.value.kind == "tls"
    finally:
        server.close()


def test_a_tls_alert_without_a_handshake_is_not_kafka():
    """Bytes that start like a TLS alert are worth one handshake, not a verdict."""
    server = Listener(alerting_plaintext_relaying_tls_to(None))
    try:
        with pytest.raises(TurnedAway, match="with bytes that are not Kafka's") as caught:
            WireClient(server.address, LONG).any_connection()
        assert caught.value.kind == "not Kafka"
        assert server.accepted == 3  # two plaintext attempts, then the one handshake
    finally:
        server.close()


def test_a_sasl_listener_without_security_settings_fails_at_once(sandbox_factory):
    sb = sandbox_factory(brokers=1, sasl_users={"admin": "adm1n-Pw-0000"})
    out, elapsed = kadmin("throttle", "show", "-b", sb.bootstrap, "--timeout", f"{LONG}s")
    line = _one_line(out)
    assert f"{sb.bootstrap} asks for a login: answered ApiVersions, then closed the connection" in line
    assert "security.protocol=SASL_PLAINTEXT" in line and "adm1n" not in out.stderr
    assert elapsed < LONG / 2


def test_nothing_listening_waits_for_the_timeout_and_names_the_refusal():
    port = free_port()
    out, elapsed = kadmin("reassign", "list", "-b", f"127.0.0.1:{port}", "--timeout", "2s")
    line = _one_line(out)
    assert f"no broker answered at 127.0.0.1:{port} within 2s: connection refused" in line
    assert elapsed >= 2  # a broker starting up is waited for, as --timeout says


def test_a_listener_that_never_answers_is_waited_for(silent):
    out, elapsed = kadmin("log-dirs", "describe", "-b", silent, "--timeout", "2s")
    line = _one_line(out)
    assert f"no broker answered at {silent} within 2s" in line
    assert elapsed >= 2
