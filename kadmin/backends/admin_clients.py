"""The AdminClient-protocol backend's clients: created on first use, closed together, and each
call retried on a transient connection failure and bounded by ``--timeout``.

``--timeout`` bounds the backend's waiting for the cluster as a whole, not each client's: a
deadline is taken when the backend opens and moves on each time the cluster answers a call
(a command that polls for minutes is not cut short). kadmin's small client waits at most half of
what is left, once per server; the library clients it falls back to get the rest
(``AdminClients.left``, never less than ``FLOOR``, so a cluster that answers at once still can).
Once a wait ran out with no answer (a silent broker), answers from the other brokers no longer
move the deadline on (``missed``): the library clients asked that broker again, a second read
asking it again, get what is left, so the command ends about --timeout after the broker was
first asked. Every broker asked answering DescribeLogDirs (a poll) moves it on again.

confluent-kafka (librdkafka) serves metadata, configs and end offsets; kafka-python the RPCs
librdkafka lacks. ``AdminClients`` holds both; ``admin.AdminBackend`` adds the operations.
"""

from __future__ import annotations

import contextlib
import threading
import time

from kadmin.backends.admin_errors import (
    TRANSIENT,
    cluster_error,
    confluent_error,
    login_error,
)
from kadmin.backends.base import ReadOnlyViolation
from kadmin.config import address, bootstrap_addresses
from kadmin.errors import ClusterError, ConnectionFailed


def debug(message: str, *args, exc_info: bool = False) -> None:
    """A DEBUG record of kadmin.backends.admin (``--debug`` shows it). ``logging`` is imported
    here, when there is something to say, not when a read command starts."""
    import logging

    logging.getLogger("kadmin.backends.admin").debug(message, *args, exc_info=exc_info)


BACKOFF = 0.1  # seconds; grows per attempt
FLOOR = 1.0  # seconds a wait has at least once --timeout is spent (half of --timeout when that is shorter)
# Every request retried is idempotent: the same targets, directories or reads again. A request
# that timed out is not retried: --timeout bounds each call, as the user asked.
TRANSIENT_ATTEMPTS = 4
SOCKET_TIMEOUT_MS = (10, 300_000)  # the range librdkafka accepts for socket.timeout.ms


class _PutOff(Exception):
    """A read inside ``read_together`` that needs the library clients: it runs after the others."""


class AdminClients:
    """kafka-python's KafkaAdminClient and confluent-kafka's AdminClient for one connection."""

    def __init__(self, settings, read_only: bool = True):
        """``settings``: a ``kadmin.config.ConnectionSettings`` with ``bootstrap_servers``."""
        self.settings = settings
        self.read_only = read_only
        self.timeout = float(getattr(settings, "timeout", None) or 30.0)
        self._clock = time.monotonic
        self._deadline = self._clock() + self.timeout  # moved on by answered()
        self._missed = False  # a wait ran out with no answer: answers no longer move the deadline
        self._kp = None  # kafka-python KafkaAdminClient
        self._ck = None  # confluent-kafka AdminClient
        self._ck_brokers: set[int] = set()  # the brokers its last Metadata (list_topics) named
        self._wire = None  # kadmin's small read client (wire_client), PLAINTEXT only
        self._wire_off = self.settings.security_protocol != "PLAINTEXT"
        self._probed = not self._wire_off  # with security configured: probe_security, once
        self._probe_unanswered: dict[tuple[str, int], str] = {}  # server -> why, found by probe_security
        if self.settings.security_protocol.endswith("SSL"):
            from kadmin.client_config import check_ssl_files

            check_ssl_files(settings)  # a missing or broken PEM file is said now, not after --timeout
        self._lock = threading.Lock()
        self._together = threading.local()  # .active: this thread runs a read of read_together

    @property
    def bootstrap(self) -> str:
        return self.settings.bootstrap_servers

    # --- the deadline ----------------------------------------------------------------------
    def left(self) -> float:
        """Seconds the next wait for the cluster may take: what is left until the deadline, but
        at least ``FLOOR`` (half of --timeout when that is shorter), so a cluster that answers at
        once still can."""
        return max(min(FLOOR, self.timeout / 2), self._deadline - self._clock())

    def left_ms(self) -> int:
        return int(self.left() * 1000)

    def timeout_ms(self) -> int:
        """The whole --timeout, what the library clients are configured with (each call is
        bounded by ``left`` when it is made)."""
        return int(self.timeout * 1000)

    def socket_timeout_ms(self) -> int:
        """librdkafka's socket.timeout.ms: the whole --timeout, within the 10..300000 ms librdkafka
        accepts (it refuses to create the client otherwise: a --timeout over 5 minutes or under
        10 ms was an unexpected KafkaException). It is the default of requests sent without a
        timeout of their own; kadmin's admin calls each pass what is left of --timeout
        (``request_timeout``, up to ``config.MAX_TIMEOUT``)."""
        return min(max(self.timeout_ms(), SOCKET_TIMEOUT_MS[0]), SOCKET_TIMEOUT_MS[1])

    def answered(self, every_broker: bool = False) -> None:
        """The cluster answered a call: the next wait may take --timeout again. Not after a wait
        ran out (``missed``): the brokers that answer would otherwise give the one that does not
        --timeout again at each call (one silent broker held `throttle show --timeout 10s` for
        20 s). ``every_broker``: every broker asked answered (a poll's DescribeLogDirs): the
        silent one is back, and the deadline moves on again."""
        if every_broker:
            self._missed = False
        if not self._missed:
            self._deadline = self._clock() + self.timeout

    def missed(self) -> None:
        """A wait ran out with no answer: the deadline stays where it is (see ``answered``)."""
        self._missed = True

    def _asking(self) -> None:
        """kadmin is about to ask the cluster (a call starts): the time since the last answer was
        kadmin's own (writing a rollback file, its throttle record), not a wait for the cluster,
        so the deadline moves on, unless a wait ran out (then this is the same wait, asked
        again: it has what is left). With every broker 300 ms away, a write after kadmin's
        throttle record had only the floor left, and its client's set-up (connections,
        ApiVersions, Metadata) did not fit: 'no answer from <every broker>', nothing changed."""
        self.answered()

    def _library_bootstrap(self) -> str:
        """The bootstrap servers for the library clients: those the small client (or, with
        security configured, the probe) did not find silent (it waited for them once;
        kafka-python would bootstrap from a random one and could spend --timeout on it, or hang
        in its TLS handshake), or all of them when it found every one silent or was not used."""
        silent: set[tuple[str, int]] = set(self._wire.silent) if self._wire is not None else set()
        silent |= set(self._probe_unanswered)
        try:
            servers = bootstrap_addresses(self.bootstrap)
        except ValueError:
            return self.bootstrap
        answering = [s for s in servers if s not in silent]
        if not answering or len(answering) == len(servers):
            return self.bootstrap
        return ",".join(address(h, p) for h, p in answering)

    def library_bootstrap_servers(self) -> list[str]:
        """The bootstrap servers for another kafka-python client of this command (kadmin's
        throttle-record consumer and producer): after the security probe, without the servers
        found silent (``_library_bootstrap``; kafka-python's TLS handshake waits for a silent
        one with no deadline)."""
        with self._lock:
            self._probe_security()
            return self._library_servers()

    def _library_servers(self) -> list[str]:
        return [s.strip() for s in self._library_bootstrap().split(",") if s.strip()]

    # --- clients ---------------------------------------------------------------------------
    def _probe_security(self) -> None:
        """With security configured, before the library clients first connect: a bootstrap
        server that speaks another security protocol, or whose certificate the trust store
        refuses, is said now, with what to set (they would retry it until --timeout, then say no
        broker answered). Every bootstrap server is probed at once, each attempt waiting at most
        a quarter of what is left of --timeout (``listener_probe.probe_listener``); the library
        clients go on when one does what the settings expect or tells nothing.

        A server that does not answer is skipped: the others decide, and the library clients are
        not sent to it (``_library_bootstrap``: kafka-python's TLS handshake waits for a silent
        server with no deadline). When none answered and one was silent, they are asked once more
        with what is left of --timeout, then named (``no broker answered``)."""
        if self._probed:
            return
        self._probed = True
        from kadmin.backends.listener_probe import Mismatch, Unanswered

        try:
            servers = bootstrap_addresses(self.bootstrap)
        except ValueError:
            return
        seen = self._probe_all(servers, self.left() / 4)
        if all(isinstance(r, Unanswered) for r in seen.values()) and any(r.silent for r in seen.values()):
            seen = self._probe_all(servers, max(self._deadline - self._clock(), 0.1))
        self._probe_unanswered = {s: r.why for s, r in seen.items() if isinstance(r, Unanswered)}
        if any(r is None for r in seen.values()):
            return
        found: dict[tuple[str, str, str], list[str]] = {}  # (seen, verdict, fix) -> the servers
        for (host, port), r in seen.items():
            if isinstance(r, Mismatch):
                found.setdefault((r.seen, r.verdict, r.fix), []).append(address(host, port))
        if found:
            said = "; ".join(Mismatch(*key).said(",".join(where)) for key, where in found.items())
            raise ConnectionFailed(said, hint=next(iter(found))[2])
        if any(r.silent for r in seen.values()):  # the library clients would wait for it with no deadline
            self.missed()
            raise self._no_broker_answered()

    def _probe_all(self, servers: list[tuple[str, int]], wait: float) -> dict:
        """``listener_probe.probe_listener`` at each server, all at once, each waiting at most
        ``wait``: (host, port) -> its answer."""
        from kadmin.backends.listener_probe import probe_listener
        from kadmin.client_config import tls_context

        protocol = self.settings.security_protocol
        context = tls_context(self.settings)
        mechanism = self.settings.properties.get("sasl.mechanism", "GSSAPI").strip()  # Kafka's default
        seen: dict = dict.fromkeys(servers)

        def probe(host: str, port: int) -> None:
            seen[(host, port)] = probe_listener(
                host, port, protocol, context, wait, mechanism, self.settings.properties_where
            )

        threads = [threading.Thread(target=probe, args=server, daemon=True) for server in servers[1:]]
        for t in threads:
            t.start()
        probe(*servers[0])
        for t in threads:
            t.join()
        return seen

    def _kafka_python(self):
        self._library_allowed()
        self._asking()
        with self._lock:
            if self._kp is None:
                self._probe_security()
                from kadmin.backends.kafka_python_logs import AuthFailureWatch, quiet_kafka_loggers

                quiet_kafka_loggers()
                from kafka.admin import KafkaAdminClient
                from kafka.errors import KafkaConnectionError, KafkaError, KafkaTimeoutError

                from kadmin.config import to_kafka_python

                kwargs = to_kafka_python(self.settings)
                kwargs["bootstrap_servers"] = self._library_servers()
                # Configured with the whole --timeout: the client outlives this deadline (a --wait
                # polls for minutes, and an answer gives the next call --timeout again), so each
                # call is bounded by what is left when it is made (its timeout_ms). Bootstrapping
                # happens now: it gets what the small client left.
                full, ms = self.timeout_ms(), self.left_ms()
                kwargs["request_timeout_ms"] = min(kwargs.get("request_timeout_ms") or full, full)
                kwargs["bootstrap_timeout_ms"] = min(kwargs.get("bootstrap_timeout_ms") or ms, ms)
                kwargs.setdefault("client_id", "kadmin")
                try:
                    with AuthFailureWatch() as watch:
                        self._kp = KafkaAdminClient(**kwargs)
                except (KafkaTimeoutError, KafkaConnectionError):
                    self.missed()
                    if watch.error is not None:  # bootstrap retried a refused login until the timeout
                        raise login_error(watch.error, "connecting to " + self.bootstrap) from None
                    raise self._no_broker_answered() from None
                except KafkaError as e:
                    raise cluster_error(e, "connecting to " + self.bootstrap) from None
                self.answered()  # it bootstrapped: a broker answered
            self._bound_connection_setup(self.left_ms())
            return self._kp

    def _bound_connection_setup(self, ms: int) -> None:
        """kafka-python gives each new broker connection 10 s (up to 30 s on retries) to connect,
        and the whole configured ``request_timeout_ms`` to answer ApiVersions, whatever the call
        asks, and its admin client takes no setting for it: a silent broker held
        `log-dirs describe --timeout 10s` for 10 s after the small client's 5. Its connection
        manager's settings, which each new connection copies, are set to what is left of
        ``--timeout`` before each call (left alone if the library's internals differ)."""
        config = getattr(getattr(self._kp, "_manager", None), "config", None)
        if not isinstance(config, dict):
            return
        for key in (
            "request_timeout_ms",
            "socket_connection_setup_timeout_ms",
            "socket_connection_setup_timeout_max_ms",
        ):
            if isinstance(config.get(key), int):
                config[key] = min(ms, self.timeout_ms())

    def _library_allowed(self) -> None:
        """The library clients are not shared between threads: a read of ``read_together``
        that reaches them is put off, to run alone."""
        if getattr(self._together, "active", False):
            raise _PutOff

    def _no_broker_answered(self) -> ConnectionFailed:
        """The bootstrap servers could not be reached or did not answer: one message for both
        clients, with what the small client saw when it tried them (plaintext only), or else at
        the servers it waited for in vain (the library clients were not sent to those)."""
        why = self._bootstrap_failures() or self.silent_brokers()
        return ConnectionFailed(
            f"no broker answered at {self.bootstrap} within {self.timeout:g}s" + (f": {why}" if why else ""),
            hint=f"check {self.settings.target_where}, the network and the security settings",
        )

    def silent_brokers(self) -> str:
        """The servers kadmin's small client, or the probe of ``_probe_security``, waited for in
        vain ("host:port (why)", ...), or ""."""
        seen: dict[tuple[str, int], str] = dict(self._wire.silent) if self._wire is not None else {}
        seen.update(self._probe_unanswered)
        return ", ".join(f"{address(*s)} ({why})" for s, why in seen.items())

    def _bootstrap_failures(self) -> str:
        """What the small client met at the bootstrap servers ("connection refused"; with several,
        "host:port: why" for each), or "" (it found one, or was not used)."""
        seen: list[tuple[str, str]] = self._wire.bootstrap_failures if self._wire is not None else []
        return seen[0][1] if len(seen) == 1 else "; ".join(f"{address}: {why}" for address, why in seen)

    def _fast(self, call):
        """``call(wire_client)`` through kadmin's small client (``wire_client``): its answer, or
        ``NotImplemented`` when it cannot give one (security configured, a broker not answering,
        an error code...): the caller then asks through the library clients, whose errors and
        retries are the ones users see. After one such failure the small client is not used again.
        Bootstrap servers that turn it away for good (``TurnedAway``) end the command at once."""
        from kadmin.backends.wire_client import NoAnswer, TurnedAway, WireClient, WireUnavailable

        self._asking()
        with self._lock:
            if self._wire_off:
                return self._not_fast()
            if self._wire is None:
                try:
                    # Half of what is left of --timeout: a broker that slow is asked again
                    # through the library clients, which have the rest of it.
                    self._wire = WireClient(self.bootstrap, self.left() / 2)
                except WireUnavailable:
                    self._wire_off = True
                    return self._not_fast()
            wire = self._wire
        try:
            result = call(wire)
        except TurnedAway as e:  # the library clients would retry it until --timeout, in vain
            if e.kind == "login":
                raise ConnectionFailed(
                    f"{self.bootstrap} asks for a login: {self._bootstrap_failures()}, as Kafka's SASL listeners do",
                    hint="set security.protocol=SASL_PLAINTEXT (or SASL_SSL), sasl.mechanism and sasl.jaas.config "
                    f"in {self.settings.properties_where}",
                ) from None
            if e.kind == "tls":
                raise ConnectionFailed(
                    f"{e} speaks TLS: did not take Kafka's first request (ApiVersions) in plaintext and answered it "
                    "over TLS",
                    hint="set security.protocol=SSL (or SASL_SSL), ssl.truststore.type=PEM and ssl.truststore.location "
                    f"in {self.settings.properties_where}",
                ) from None
            raise ConnectionFailed(
                f"no Kafka broker at {self.bootstrap}: {self._bootstrap_failures()}",
                hint="a ZooKeeper address goes to --zookeeper; a TLS listener needs security.protocol in "
                f"{self.settings.properties_where}; "
                "a broker at its max.connections.per.ip closes new connections too",
            ) from None
        except Exception as e:  # WireUnavailable, or an answer it cannot read
            if isinstance(e, NoAnswer):
                self.missed()  # the library clients ask it again within what is left
            if not isinstance(e, WireUnavailable):
                debug("small client failed", exc_info=True)
            debug("small client: %s; asking through the library clients", e)
            with self._lock:
                self._wire_off = True
            return self._not_fast()
        self.answered()
        return result

    def _not_fast(self):
        """NotImplemented: the caller asks through the library clients (inside ``read_together``,
        the read is put off instead)."""
        self._library_allowed()
        return NotImplemented

    def read_together(self, *reads):
        """The results of ``reads`` (callables reading through this backend) with their requests
        in flight at once: each runs in a thread of its own, and the small client pipelines their
        requests on its connections, so the reads take about as long as the slowest one (one round
        trip instead of one each). A read the small client cannot serve runs afterwards, alone,
        through the library clients (their clients are not shared between threads). The first
        error, in the order of ``reads``, is raised."""
        if len(reads) < 2 or self._wire_off:
            return [read() for read in reads]
        outcomes: list = [None] * len(reads)

        def run(i: int) -> None:
            outer = getattr(self._together, "active", False)  # read_together within a read
            self._together.active = True
            try:
                outcomes[i] = (True, reads[i]())
            except _PutOff:
                outcomes[i] = None
            except Exception as e:  # handed to the caller's thread (Ctrl-C is not held up)
                outcomes[i] = (False, e)
            finally:
                self._together.active = outer

        threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(1, len(reads))]
        for t in threads:
            t.start()
        run(0)
        for t in threads:
            t.join()
        results = []
        for read, outcome in zip(reads, outcomes):
            if outcome is None:
                outcome = (True, read())
            if not outcome[0]:
                raise outcome[1]
            results.append(outcome[1])
        return results

    def _kp_call(self, what: str, call):
        """``call(kafka_python_client)``, retried on a transient connection failure; any other
        kafka-python error, or one that persists, becomes a typed ClusterError."""
        from kafka.errors import KafkaError

        kp = self._kafka_python()
        for attempt in range(1, TRANSIENT_ATTEMPTS + 1):
            try:
                result = call(kp)
            except KafkaError as e:
                # after a wait ran out, not retried past the deadline: the silent broker again
                spent = self._missed and self._clock() >= self._deadline
                if type(e).__name__ not in TRANSIENT or attempt == TRANSIENT_ATTEMPTS or spent:
                    if "TimedOut" in type(e).__name__ or "Timeout" in type(e).__name__:
                        self.missed()
                    raise cluster_error(e, what) from None
                debug("%s: %s (attempt %d); retrying", what, type(e).__name__, attempt)
                if hasattr(kp, "_controller_id"):
                    kp._controller_id = None  # it may be the node that went away: ask again
                time.sleep(BACKOFF * attempt)
                self._refresh_metadata(kp)
            else:
                self.answered()
                return result
        raise AssertionError("unreachable")

    @staticmethod
    def _refresh_metadata(kp) -> None:
        """Read the brokers again now (a broker back from a restart is otherwise unknown to
        kafka-python until its next periodic refresh); best effort."""
        try:
            kp._manager.run(kp._manager.cluster.refresh_metadata)
        except Exception as e:
            debug("metadata refresh failed: %s", e)

    def _confluent(self):
        self._library_allowed()
        self._asking()
        with self._lock:
            if self._ck is None:
                self._probe_security()
                from confluent_kafka.admin import AdminClient

                from kadmin.config import to_confluent

                conf = to_confluent(self.settings)
                conf["bootstrap.servers"] = self._library_bootstrap()
                conf.setdefault("client.id", "kadmin")
                conf.setdefault("socket.timeout.ms", self.socket_timeout_ms())
                conf.setdefault("logger", _librdkafka_logger())
                conf.setdefault("error_cb", self._note_ck_error)
                self._ck = AdminClient(conf)
                # What its first Metadata will name, as far as this command saw just now (see
                # AdminBackend._ck_knows_brokers_of): the small client's last brokers, if any.
                self._ck_brokers = self._wire.brokers_seen() if self._wire is not None else set()
                if not self._missed and self._ck_brokers:  # the small client just had answers
                    self._ck_connect()
            return self._ck

    def _ck_connect(self) -> None:
        """Let the new confluent-kafka client connect and read the brokers (a Metadata for no
        topic, librdkafka's DescribeCluster) before it is asked anything, so the call has
        --timeout for itself: librdkafka's set-up is four round trips (ApiVersions, its own
        Metadata, ...), and with every broker 300 ms away set-up and call together took longer
        than a 1 s --timeout (`reassign execute --throttle` failed with 'no answer from <every
        broker>', nothing changed). Only when kadmin's small client has just had answers (the
        cluster answers; with security configured the client is not warmed up), and asked twice,
        the second time with what is left (librdkafka keeps connecting past a request's timeout:
        the second finds the set-up done); best effort: a failure is the call's to report."""
        ck = self._ck
        assert ck is not None  # just made
        for attempt in (1, 2):
            try:
                desc = ck.describe_cluster(request_timeout=self.left()).result(timeout=self.left())
            except Exception as e:  # KafkaException, TimeoutError; said by the call that follows
                debug("confluent-kafka's first Metadata (attempt %d): %s", attempt, e)
                continue
            self._ck_brokers = {n.id for n in desc.nodes}
            self.answered()
            return

    def _note_ck_error(self, err) -> None:
        """librdkafka reports a refused login or TLS handshake only here; requests just time out
        (_TRANSPORT). Kept so that failure is reported as what it was."""
        name = err.name() if hasattr(err, "name") else ""
        if "AUTHENTICATION" in name or "_SSL" in name:
            self._cklogin_error = err

    def _ck_login_seen(self) -> bool:
        if self._ck is not None:
            self._ck.poll(0)  # serves error_cb
        return getattr(self, "_cklogin_error", None) is not None

    def _ck_error(self, err, what: str) -> ClusterError:
        self._ck_login_seen()
        login = getattr(self, "_cklogin_error", None)
        if login is not None and (err is None or err.name() in ("_TRANSPORT", "_TIMED_OUT", "_ALL_BROKERS_DOWN")):
            err = login
        return confluent_error(err, what)

    def _ck_result(self, future, what: str):
        """The result of a confluent-kafka future, within what is left of --timeout."""
        from confluent_kafka import KafkaException

        try:
            result = future.result(timeout=self.left())
        except KafkaException as e:
            err = e.args[0] if e.args else None
            if err is not None and err.name() == "_TIMED_OUT":
                self.missed()
            raise self._ck_error(err, what) from None
        except Exception as e:  # TimeoutError; concurrent.futures.TimeoutError on 3.10
            if type(e).__name__ == "TimeoutError":
                self.missed()
                if self._ck_login_seen():
                    raise self._ck_error(None, what) from None
                raise self._no_answer(what) from None
            raise
        self.answered()
        return result

    def _no_answer(self, what: str) -> ConnectionFailed:
        """``what`` timed out (the broker that had to answer is not known here): the bootstrap
        servers, and the servers kadmin's small client waited for in vain, as the likely one."""
        silent = self.silent_brokers()
        return ConnectionFailed(
            f"{what}: no answer from {self.bootstrap} within {self.timeout:g}s",
            hint=f"kadmin's small client had no answer from {silent} either" if silent else None,
        )

    def _check_writable(self, what: str) -> None:
        if self.read_only:
            raise ReadOnlyViolation(f"{what} called on a read-only backend")

    def _raw(self, request, what: str):
        """A request neither library offers, sent through kafka-python's connection manager."""
        return self._kp_call(what, lambda kp: kp._manager.run(self._send_raw, kp, request, self.left_ms()))

    @staticmethod
    async def _send_raw(kp, request, timeout_ms: int):
        return await kp._manager.send(request, request_timeout_ms=timeout_ms)

    def close(self) -> None:
        with self._lock:
            if self._wire is not None:
                self._wire.close()
                self._wire = None
            if self._kp is not None:
                with contextlib.suppress(Exception):
                    self._kp.close()
                self._kp = None
            self._ck = None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _librdkafka_logger():
    """librdkafka's logs go to Python logging (shown with --debug), never straight to stderr."""
    import logging

    logger = logging.getLogger("kadmin.librdkafka")
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())
    return logger
