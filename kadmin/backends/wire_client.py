"""A small Kafka client for the read commands: one plain socket per broker, requests to brokers
in parallel, pipelined, encoded and decoded by kadmin's codec (``wire_codec``) from Kafka's own
message specs.

kafka-python's admin client imports its whole network stack, and even its message classes alone
cost a read command ~25 ms (its protocol package, then every version of each message built at
once): most of a read command's time. The codec reads a message's spec when first used and
prepares only the version spoken.

Requests are pipelined: ``to_each`` sends to every broker before it reads an answer, and
threads (``AdminBackend.read_together``) share a connection, each request's answer matched to it.

This client serves the happy path on a PLAINTEXT cluster only. Anything else (security
configured, a broker not answering, an error code, a version it cannot speak) raises
``WireUnavailable`` and the backend answers through the library clients as before, so error
messages, exit codes, TLS and SASL are theirs. Versions are negotiated: ApiVersions first on
every connection, then the highest version both sides speak.

One answer is final: bootstrap servers that turn the client away in a way no wait would change
(``TurnedAway``: no Kafka listener there, or a SASL listener asking for a login) are reported at
once; the library clients would retry them until --timeout. With security configured, the
library clients are used instead, and ``listener_probe`` tries the bootstrap servers once first,
as the settings ask (TLS or not), to say at once a listener that speaks another protocol.
"""

from __future__ import annotations

import collections
import contextlib
import socket
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

from kadmin.backends.wire_codec import Api, CodecError, api
from kadmin.config import address, bootstrap_addresses

# Fetch names topics by id from v13 on; kadmin asks by name, so it speaks v12 at most.
_VERSION_CAPS = {1: 12}
METADATA_TTL = 1.0  # seconds a Metadata answer serves broker look-ups; describe_cluster always asks
CONFIRM_PAUSE = 0.3  # seconds before bootstrap servers that turned the client away are tried again


class WireUnavailable(Exception):
    """The small client cannot answer this; the caller falls back to the library clients."""


class NoAnswer(WireUnavailable):
    """A broker did not answer in time (or refused the connection): the backend names it, and
    the library clients are not sent to it first."""


class TurnedAway(WireUnavailable):
    """The bootstrap servers turned the client away in a way waiting would not change, so the
    backend says so at once instead of letting the library clients retry until --timeout.

    ``kind`` "not Kafka": each closed the connection at Kafka's first request (ApiVersions, which
    a broker answers on every listener it speaks plainly) or answered it with bytes that are not
    Kafka's, twice (``CONFIRM_PAUSE`` apart): a ZooKeeper port, a TLS listener, another service
    (or a broker at its max.connections.per.ip, which closes new connections at once). ``kind``
    "login": it answered ApiVersions, then closed the connection at the next request, as Kafka's
    SASL listeners do before a login. ``kind`` "tls": one or more (named in the message) took
    a TLS handshake and answered ApiVersions over it: a TLS listener.

    ``maybe_tls``: spoken to in plaintext, the server closed the connection at once or answered
    with what starts like a TLS record, as a TLS listener does; worth a TLS handshake to tell."""

    def __init__(self, message: str, kind: str, maybe_tls: bool = False):
        super().__init__(message)
        self.kind = kind
        self.maybe_tls = maybe_tls


# The first byte of a TLS record: an alert (21), a handshake (22). Read as a Kafka answer's size,
# it announces hundreds of MB (a TLS listener's answer to a plaintext request).
_TLS_RECORD_TYPES = (0x15, 0x16)

# getaddrinfo's answers that mean the name does not exist (not "try again later")
_NO_SUCH_HOST = {getattr(socket, n) for n in ("EAI_NONAME", "EAI_NODATA") if hasattr(socket, n)}


def _turned_away(failures: dict[str, WireUnavailable]) -> bool:
    """Whether the bootstrap servers' failures are final: one or more turned the client away
    (``TurnedAway``) and the others did not answer at all (``NoAnswer``: refused, silent), so
    they tell nothing; a dead server in the list does not hide a ZooKeeper or TLS port."""
    kinds = [type(e) for e in failures.values()]
    return TurnedAway in kinds and all(k in (TurnedAway, NoAnswer) for k in kinds)


class Connection:
    """One broker: a socket, ApiVersions negotiated, requests pipelined.

    Threads may share it: each sends its requests and waits for its answers. Kafka answers the
    requests of one connection in the order they were sent, so the answers are matched to the
    requests in send order (the correlation id is checked); whichever waiting thread reads the
    socket hands the others their answers."""

    def __init__(self, host: str, port: int, timeout: float, client_id: str, tls: Any = None):
        """``tls``: an ``ssl.SSLContext`` to speak TLS with (``listener_probe`` only)."""
        self.client_id = client_id
        self._correlation = 0
        self._send_lock = threading.Lock()  # one request written at a time
        self._state = threading.Condition()  # guards what follows
        self._in_flight: collections.deque[int] = collections.deque()  # correlation ids, in send order
        self._answers: dict[int, bytes] = {}  # frames read for a thread not yet woken
        self._reading = False  # a thread is reading the socket
        self._broken: WireUnavailable | None = None
        self.host, self.port = host, port
        self.address = address(host, port)
        self.answered = 0  # answers read
        self.closed_by_peer = False
        self.garbled = False  # the peer sent bytes that are not a Kafka answer
        self.tls_like = False  # ... and they start like a TLS record (an alert, a handshake)
        # ApiVersions' answer is a few hundred bytes: a peer announcing more is not Kafka (an HTTP
        # server's "HTTP" reads as 1.2 GB, which would be waited for until the timeout)
        self._largest_answer = 1 << 20
        try:
            # A short connect timeout: a broker that does not accept at once is left to the
            # library clients, which then have the whole --timeout.
            # An ASCII host name as bytes: a str one is encoded with the "idna" codec, whose
            # import (with stringprep and unicodedata) costs a read command ~2 ms.
            sockaddr = (host.encode("ascii") if host.isascii() else host, port)
            connect_timeout = min(timeout, max(0.25, min(2.0, timeout / 4)))
            self.sock = socket.create_connection(sockaddr, timeout=connect_timeout)  # type: ignore[arg-type]  # bytes hosts are accepted
        except OSError as e:
            raise NoAnswer(_trouble(e)) from None
        self.sock.settimeout(timeout)
        if tls is not None:
            self.sock = _tls_handshake(self.sock, tls, host)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.versions: dict[int, tuple[int, int]] = {}
        try:
            resp = self.request(api("ApiVersions"), {}, 0)  # v0: every broker answers it
        except WireUnavailable as e:
            self.close()
            if self.closed_by_peer:
                raise TurnedAway(
                    "closed the connection at Kafka's first request (ApiVersions)", "not Kafka", maybe_tls=tls is None
                ) from None
            if self.garbled:
                raise TurnedAway(
                    "answered Kafka's first request (ApiVersions) with bytes that are not Kafka's",
                    "not Kafka",
                    maybe_tls=tls is None and self.tls_like,
                ) from None
            raise (NoAnswer if isinstance(e, NoAnswer) else WireUnavailable)(f"ApiVersions: {e}") from None
        if resp.error_code:
            raise WireUnavailable(f"ApiVersions error {resp.error_code}")
        self.versions = {k.api_key: (k.min_version, k.max_version) for k in resp.api_keys}
        self._largest_answer = (1 << 31) - 1

    def version_for(self, message: Api) -> int:
        """The highest version of ``message`` both the broker and the codec speak."""
        key = message.key
        if key not in self.versions:
            raise WireUnavailable(f"the broker does not serve API key {key}")
        lo, hi = self.versions[key]
        version = min(hi, message.max_version, _VERSION_CAPS.get(key, hi))
        if version < max(lo, message.min_version):
            raise WireUnavailable(f"no common version of API key {key}")
        return version

    def request(self, message: Api, body: dict, version: int | None = None):
        """Send ``body`` as a ``message`` request (at the highest common version, or ``version``)
        and wait for its answer."""
        version = self.version_for(message) if version is None else version
        return self.answer(self.send(message, body, version), message, version)

    def send(self, message: Api, body: dict, version: int) -> int:
        """Send ``body`` as a ``message`` request at ``version``; its correlation id, for ``answer``."""
        with self._send_lock:
            self._correlation += 1
            correlation = self._correlation
            try:
                data = message.encode_request(version, correlation, self.client_id, body)
            except (CodecError, struct.error, TypeError, AttributeError, UnicodeEncodeError) as e:
                raise WireUnavailable(f"{message.name} v{version} request: {e}") from None
            with self._state:
                if self._broken is not None:
                    raise self._broken
                self._in_flight.append(correlation)
            try:
                self.sock.sendall(data)
            except OSError as e:
                raise self._break(WireUnavailable(f"{type(e).__name__}: {e}")) from None
        return correlation

    def answer(self, correlation: int, message: Api, version: int):
        """The decoded answer to the ``message`` request sent at ``version`` as ``correlation``."""
        frame = self._frame(correlation)
        try:
            return message.decode_response(version, frame)
        except CodecError as e:
            self.garbled = True
            raise WireUnavailable(str(e)) from None

    def _frame(self, correlation: int) -> bytes:
        """The frame answering ``correlation``: read by this thread, or by another waiting
        thread that read it first."""
        while True:
            with self._state:
                while correlation not in self._answers and self._reading and self._broken is None:
                    self._state.wait()
                if correlation in self._answers:
                    return self._answers.pop(correlation)
                if self._broken is not None:
                    raise self._broken
                self._reading = True
            self._read_next()

    def _read_next(self) -> None:
        """Read the next answer on the socket, whoever's it is, and hand it over."""
        try:
            size = struct.unpack(">i", self._read(4))[0]
            if not 4 <= size <= self._largest_answer:  # every answer starts with its correlation id
                self.garbled = True
                self.tls_like = (size >> 24) & 0xFF in _TLS_RECORD_TYPES
                self._break(WireUnavailable(f"an answer of {size} bytes"))
                return
            frame = self._read(size)
        except OSError as e:
            self.closed_by_peer = isinstance(e, (ConnectionResetError, ConnectionAbortedError, BrokenPipeError)) or (
                type(e).__name__ in ("SSLEOFError", "SSLZeroReturnError")  # over TLS (listener_probe)
            )
            self._break((NoAnswer if isinstance(e, TimeoutError) else WireUnavailable)(_trouble(e)))
            return
        with self._state:
            self._reading = False
            expected = self._in_flight.popleft() if self._in_flight else -1
            # every response header starts with the correlation id
            if len(frame) < 4 or struct.unpack_from(">i", frame, 0)[0] != expected:
                self.garbled = True
                self._broken = WireUnavailable("correlation id mismatch")
            else:
                self.answered += 1
                self._answers[expected] = frame
            self._state.notify_all()

    def _break(self, error: WireUnavailable) -> WireUnavailable:
        """The connection is unusable: every thread waiting on it gets ``error``."""
        with self._state:
            self._reading = False
            if self._broken is None:
                self._broken = error
            self._state.notify_all()
        return error

    def _read(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(min(n - len(buf), 1 << 20))
            if not chunk:
                raise ConnectionResetError("connection closed by the broker")
            buf += chunk
        return bytes(buf)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


class WireClient:
    """Connections by broker id, opened on first use; Metadata from the first broker that answers."""

    def __init__(self, bootstrap: str, timeout: float, client_id: str = "kadmin"):
        try:
            self.bootstrap = bootstrap_addresses(bootstrap)
        except ValueError as e:
            raise WireUnavailable(f"bootstrap servers: {e}") from None
        self.timeout = timeout
        self.client_id = client_id
        self._conns: dict[object, Connection] = {}
        self._opening: dict[object, threading.Lock] = {}
        self._lock = threading.Lock()
        self._metadata: tuple[float, Any, frozenset[str] | None] | None = None  # when, answer, topics asked
        self.bootstrap_failures: list[tuple[str, str]] = []  # (host:port, why) when none of them could be used
        # (host, port) -> why, for each server that did not answer in time (or at all)
        self.silent: dict[tuple[str, int], str] = {}
        self._failed: dict[object, WireUnavailable] = {}  # a connection that could not be opened, by key
        self._bootstrap_error: WireUnavailable | None = None

    # --- connections -----------------------------------------------------------------------
    def _connect(self, key, host: str, port: int) -> Connection:
        """The connection ``key`` names, opened now if need be (once: threads asking for it
        together wait for the one opening it)."""
        with self._lock:
            conn = self._conns.get(key)
            if conn is not None:
                return conn
            opening = self._opening.setdefault(key, threading.Lock())
        with opening:
            with self._lock:
                conn = self._conns.get(key)
                failed = self._failed.get(key)
            if failed is not None:  # another thread just waited for it: not twice
                raise failed
            if conn is None:
                try:
                    conn = Connection(host, port, self.timeout, self.client_id)
                except TurnedAway:  # tried again CONFIRM_PAUSE later (any_connection)
                    raise
                except WireUnavailable as e:
                    with self._lock:
                        self._failed[key] = e
                        if isinstance(e, NoAnswer):
                            self.silent[(host, port)] = str(e)
                    raise
                with self._lock:
                    self._conns[key] = conn
        return conn

    def any_connection(self) -> Connection:
        with self._lock:
            if self._conns:
                return next(iter(self._conns.values()))
            if self._bootstrap_error is not None:  # final: its servers are not waited for again
                raise self._bootstrap_error
        failures: dict[str, WireUnavailable] = {}
        for attempt in range(2):
            failures.clear()
            for host, port in self.bootstrap:
                try:
                    return self._connect(("bootstrap", host, port), host, port)
                except WireUnavailable as e:
                    failures[address(host, port)] = e
            if not _turned_away(failures):
                break
            if attempt == 0:
                # Once more before it is final: a broker closes connections while it shuts
                # down, or after a delay when connections come too fast (KIP-612); a ZooKeeper
                # port or a TLS listener turns every attempt away.
                time.sleep(CONFIRM_PAUSE)
        self.bootstrap_failures = [(where, str(e)) for where, e in failures.items()]
        why = "; ".join(f"{where}: {e}" for where, e in failures.items()) or "no bootstrap server"
        tls = self._tls_listeners(failures)
        if tls:
            error: WireUnavailable = TurnedAway(",".join(tls), "tls")
        elif _turned_away(failures):
            error = TurnedAway(why, "not Kafka")
        elif failures and all(isinstance(e, NoAnswer) for e in failures.values()):
            error = NoAnswer(why)
        else:
            error = WireUnavailable(why)
        with self._lock:
            self._bootstrap_error = error
        raise error

    def _tls_listeners(self, failures: dict[str, WireUnavailable]) -> list[str]:
        """The bootstrap servers that turned the small client away as a TLS listener does and
        take a TLS handshake (``listener_probe.speaks_tls``: the certificate not checked,
        nothing secret sent), when every server turned it away or did not answer; else none."""
        if not _turned_away(failures):
            return []
        from kadmin.backends.listener_probe import speaks_tls

        return [
            address(host, port)
            for host, port in self.bootstrap
            if getattr(failures.get(address(host, port)), "maybe_tls", False) and speaks_tls(host, port, self.timeout)
        ]

    def broker(self, node_id: int) -> Connection:
        with self._lock:
            conn = self._conns.get(node_id)
        if conn is not None:
            return conn
        b = {x.node_id: x for x in self.brokers().brokers}.get(node_id)
        if b is None:
            raise WireUnavailable(f"broker {node_id} is not in the metadata")
        with self._lock:  # the bootstrap connection may be this broker's: reuse it
            for key, c in list(self._conns.items()):
                if isinstance(key, tuple) and (key[1], key[2]) == (b.host, b.port):
                    self._conns[node_id] = c
                    return c
        try:
            return self._connect(node_id, b.host, b.port)
        except TurnedAway as e:  # only the bootstrap servers' answer is final; the library clients try this one
            raise WireUnavailable(f"broker {node_id} at {address(b.host, b.port)}: {e}") from None
        except NoAnswer as e:
            raise NoAnswer(f"broker {node_id} at {address(b.host, b.port)}: {e}") from None

    # --- requests --------------------------------------------------------------------------
    def metadata(self, topics: list[str] | None = None):
        """Metadata for every topic (None) or for ``topics`` (``[]``: the brokers only), asked now."""
        body = {
            "topics": None if topics is None else [{"name": t} for t in topics],
            "allow_auto_topic_creation": False,
            "include_cluster_authorized_operations": False,
            "include_topic_authorized_operations": False,
        }
        conn = self.any_connection()
        if topics == [] and conn.version_for(api("Metadata")) == 0:
            raise WireUnavailable("Metadata v0 cannot ask for no topics")  # v0: no topic is every topic
        try:
            resp = conn.request(api("Metadata"), body)
        except WireUnavailable:
            if conn.answered == 1 and conn.closed_by_peer:  # ApiVersions answered, this request refused
                self.bootstrap_failures = [
                    (conn.address, "answered ApiVersions, then closed the connection at the next request")
                ]
                raise TurnedAway(self.bootstrap_failures[0][1], "login") from None
            raise
        # its brokers, for brokers(); its topics, for topic_metadata()
        self._metadata = (time.monotonic(), resp, None if topics is None else frozenset(topics))
        return resp

    def brokers_seen(self) -> set[int]:
        """The brokers of the last Metadata answer, asking nothing (none yet: empty)."""
        return set() if self._metadata is None else {b.node_id for b in self._metadata[1].brokers}

    def controller_seen(self) -> tuple[int, str] | None:
        """The controller of the last Metadata answer, (id, "host:port"), asking nothing; None
        when no answer named one."""
        md = None if self._metadata is None else self._metadata[1]
        if md is None or md.controller_id is None or md.controller_id < 0:
            return None
        return next(((b.node_id, address(b.host, b.port)) for b in md.brokers if b.node_id == md.controller_id), None)

    def brokers(self, max_age: float = METADATA_TTL):
        """A Metadata answer at most ``max_age`` seconds old, for its brokers, controller and
        cluster id: the last one, or a new one asking for no topic (cheap on any cluster)."""
        if self._metadata is not None and time.monotonic() - self._metadata[0] <= max_age:
            return self._metadata[1]
        return self.metadata([])

    def topic_metadata(self, topic: str, max_age: float = METADATA_TTL):
        """``topic``'s entry of ``topics_metadata``."""
        [t] = self.topics_metadata([topic], max_age)
        return t

    def topics_metadata(self, topics: list[str], max_age: float = METADATA_TTL) -> list:
        """The entries of ``topics`` in a Metadata answer at most ``max_age`` seconds old that has
        them all (a command that just read every topic does not ask again), else in one asked
        now. A topic missing from an all-topics answer is asked for by name, so a topic the
        broker hides answers with its error rather than as absent."""
        if self._metadata is not None and time.monotonic() - self._metadata[0] <= max_age:
            _, resp, asked = self._metadata
            if asked is None or asked.issuperset(topics):
                known = {t.name: t for t in resp.topics}
                if all(t in known for t in topics):
                    return [known[t] for t in topics]
        return list(self.metadata(list(topics)).topics)

    def to_each(self, node_ids, name: str, make_body: Callable[[int], dict]) -> dict:
        """A ``name`` request (e.g. "DescribeLogDirs"), ``make_body(node_id)``, sent to every
        broker at once: {node_id: answer}. Every request is sent, then the answers are read
        (each broker's arrives while the others are awaited). Any failure raises WireUnavailable
        (the caller asks again through the library clients)."""
        message = api(name)
        ids = list(dict.fromkeys(node_ids))
        conns = self._connections(ids)
        sent = {}
        for b in ids:
            version = conns[b].version_for(message)
            sent[b] = (version, conns[b].send(message, make_body(b), version))
        out = {}
        for b, (version, correlation) in sent.items():
            try:
                out[b] = conns[b].answer(correlation, message, version)
            except NoAnswer as e:
                with self._lock:
                    self.silent[(conns[b].host, conns[b].port)] = str(e)
                raise NoAnswer(f"broker {b} at {conns[b].address}: {name}: {e}") from None
        return out

    def _connections(self, ids: list[int]) -> dict:
        """A connection to each broker of ``ids``; the missing ones opened at once (threads)."""
        with self._lock:
            out = {b: self._conns[b] for b in ids if b in self._conns}
        missing = [b for b in ids if b not in out]
        if len(missing) == 1:
            out[missing[0]] = self.broker(missing[0])
        elif missing:
            self.brokers()  # once, before the threads look brokers up
            errors: list[Exception] = []

            def open_one(b):
                try:
                    out[b] = self.broker(b)
                except Exception as e:
                    errors.append(e)

            threads = {b: threading.Thread(target=open_one, args=(b,), daemon=True) for b in missing}
            for t in threads.values():
                t.start()
            deadline = time.monotonic() + self.timeout
            for t in threads.values():
                t.join(max(0.0, deadline - time.monotonic()))
            late = [b for b, t in threads.items() if t.is_alive()]
            if late:
                known = {x.node_id: (x.host, x.port) for x in self.brokers(max_age=float("inf")).brokers}
                with self._lock:
                    for b in late:
                        if b in known:
                            self.silent[known[b]] = f"did not answer within {self.timeout:g}s"
                raise NoAnswer(
                    ", ".join(f"broker {b}" + (f" at {address(*known[b])}" if b in known else "") for b in late)
                    + f" did not answer within {self.timeout:g}s"
                )
            if errors:
                e = errors[0]
                raise e if isinstance(e, WireUnavailable) else WireUnavailable(f"{type(e).__name__}: {e}")
        return out

    def close(self) -> None:
        with self._lock:
            conns = set(map(id, self._conns.values()))
            seen = set()
            for c in self._conns.values():
                if id(c) in conns and id(c) not in seen:
                    seen.add(id(c))
                    c.close()
            self._conns.clear()


class TlsFailed(WireUnavailable):
    """The TLS handshake failed. ``spoke_tls``: the server answered in TLS (a certificate
    refused on either side, no common protocol version); else it closed the connection or
    answered bytes that are not TLS: it does not speak TLS. ``certificate``: why this side
    refused the server's certificate, as the ssl module says ("unable to get local issuer
    certificate", "Hostname mismatch, ..."), or None."""

    def __init__(self, message: str, spoke_tls: bool, certificate: str | None = None):
        super().__init__(message)
        self.spoke_tls = spoke_tls
        self.certificate = certificate


def _tls_handshake(sock: socket.socket, context: Any, host: str):
    import ssl

    try:
        return context.wrap_socket(sock, server_hostname=host)
    except TimeoutError:
        sock.close()
        raise NoAnswer("the TLS handshake timed out") from None
    except ssl.SSLCertVerificationError as e:
        sock.close()
        why = e.verify_message or e.reason or "refused"
        raise TlsFailed(f"TLS handshake: {why}", spoke_tls=True, certificate=why) from None
    except OSError as e:  # ssl.SSLError too
        sock.close()
        # A TLS server refuses with an alert ("TLSV1_ALERT_..."); a plaintext one closes the
        # connection at the ClientHello (Kafka: a 369 MB request) or answers something else.
        spoke = isinstance(e, ssl.SSLError) and "ALERT" in str(getattr(e, "reason", "") or "").upper()
        raise TlsFailed(f"TLS handshake: {getattr(e, 'reason', None) or _trouble(e)}", spoke_tls=spoke) from None


def _trouble(e: OSError) -> str:
    """A socket's failure in a few words: "connection refused", "unknown host", "timed out"."""
    if isinstance(e, ConnectionRefusedError):
        return "connection refused"
    if isinstance(e, socket.gaierror):
        return "unknown host" if e.errno in _NO_SUCH_HOST else f"cannot resolve the host ({e.strerror})"
    if isinstance(e, TimeoutError):
        return "timed out"
    return e.strerror or str(e) or type(e).__name__
