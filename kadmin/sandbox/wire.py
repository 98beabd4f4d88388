"""One broker's listener: Kafka's framing (4-byte size, request header, body) on 127.0.0.1.

Requests on a connection are answered in order, like a Kafka broker's. Requests are served at the
versions the emulated Kafka version accepts (protocol.served) and answered at the version asked
for. Otherwise Kafka's answer: ApiVersions at a version the broker does not know gets a v0 body
with UNSUPPORTED_VERSION and the supported ranges (RequestContext); any other request at a version
it does not accept, and an unknown API key, close the connection (SocketServer's
parseRequestHeader); other APIs kafka-python knows but the sandbox does not serve get their error
response.

With listener security (kadmin.sandbox.security) the listener speaks TLS, each connection has a
Session that runs the SASL exchange before anything else is served, and the authorizer may refuse
a request before its handler runs.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import ssl
import struct
from collections.abc import Awaitable

from kadmin.sandbox import protocol as P
from kadmin.sandbox.apis import HANDLERS

log = logging.getLogger("kadmin.sandbox")
UNKNOWN_SERVER_ERROR = -1
MAX_FRAME = 100 * 2**20
AUTH_FAILURE_CLOSE_DELAY = 0.1  # seconds; Kafka's connection.failed.authentication.delay.ms default


async def _deliver(
    writer: asyncio.StreamWriter, response: bytes, delay: float, previous: asyncio.Future | None
) -> None:
    """Write ``response`` ``delay`` seconds from now, after the answer before it (``previous``)."""
    due = asyncio.get_running_loop().time() + delay
    if previous is not None:
        await previous
    await asyncio.sleep(max(0.0, due - asyncio.get_running_loop().time()))
    if not writer.is_closing():
        writer.write(response)


class BrokerServer:
    def __init__(self, engine, broker_id: int):
        self.engine = engine
        self.broker_id = broker_id
        self.server: asyncio.base_events.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()
        self.held: set[asyncio.Future] = set()  # requests waiting to be answered (delayed Fetch)
        self.security = getattr(engine, "security", None)  # security.ListenerSecurity: TLS, SASL, authorizer

    async def start(self, port: int) -> int:
        tls = self.security.tls if self.security is not None else None
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", port, reuse_address=True, ssl=tls)
        return self.server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None
        self.drop_connections()
        for held in list(self.held):  # a stopped broker answers nothing more
            held.cancel()
        await asyncio.gather(*self.held, return_exceptions=True)

    def drop_connections(self) -> None:
        for w in list(self.writers):
            w.close()
        self.writers.clear()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writers.add(writer)
        session = self.security.session() if self.security is not None else None
        in_transit: asyncio.Future | None = None  # the last answer on its way (the latency fault)
        try:
            while True:
                (size,) = struct.unpack(">i", await reader.readexactly(4))
                if size < 8 or size > MAX_FRAME:
                    break
                frame = await reader.readexactly(size)
                response = self.handle(frame, session)
                if inspect.isawaitable(response):  # a request that waits (Fetch's max_wait_ms)
                    held = asyncio.ensure_future(response)
                    self.held.add(held)
                    try:
                        response = await held
                    except asyncio.CancelledError:
                        break
                    finally:
                        self.held.discard(held)
                if response is None:
                    break
                broker = self.engine.cluster.brokers[self.broker_id]
                if broker.slow_ms:
                    await asyncio.sleep(broker.slow_ms / 1000)
                if broker.latency_ms or (in_transit is not None and not in_transit.done()):
                    in_transit = asyncio.ensure_future(_deliver(writer, response, broker.latency_ms / 1000, in_transit))
                    if session is None or not session.close_after:
                        continue  # on to the next request while this answer travels
                    await in_transit
                elif writer.is_closing():
                    break
                else:
                    writer.write(response)
                    await writer.drain()
                if session is not None and session.close_after:  # a failed SASL authentication:
                    await asyncio.sleep(AUTH_FAILURE_CLOSE_DELAY)  # let the client read why first
                    break
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        except Exception:  # a bug: log it and drop this connection only
            log.exception("broker %d: connection failed", self.broker_id)
        finally:
            if in_transit is not None:
                in_transit.cancel()
            self.writers.discard(writer)
            writer.close()

    def handle(self, frame: bytes, session=None) -> bytes | Awaitable[bytes] | None:
        """The encoded response to one request frame (awaitable for a request that waits), or None
        to close the connection.
        ``session``: the connection's security.Session (SASL exchange, principal), if any."""
        if session is not None:
            from kadmin.sandbox.security import PASS

            answer = session.intercept(self.engine, self.broker_id, frame)
            if answer is not PASS:
                return answer
        key, version, correlation_id = P.peek_header(frame)
        kafka_version = self.engine.cluster.version
        served = P.served(kafka_version)
        api = served.get(key)
        if key == P.API_VERSIONS and api is not None and not (0 <= version <= api.max_version):
            from kadmin.sandbox.api_cluster import api_versions_body

            self.engine.record(self.broker_id, api.name, version)
            return P.encode_response(api_versions_body(P.UNSUPPORTED_VERSION, 0, kafka_version), 0, correlation_id)
        if api is None:
            other = P.registry().get(key)
            if other is None or key in P.SERVED or not 0 <= version <= other.max_version:
                log.warning("broker %d: closing connection on unknown API key %d v%d", self.broker_id, key, version)
                return None
            self.engine.record(self.broker_id, other.name, version)
            return P.encode_response(P.error_response(other, version, P.UNSUPPORTED_VERSION), version, correlation_id)
        if not api.min_version <= version <= api.max_version:
            log.warning(
                "broker %d: closing connection on %s v%d (unsupported version)", self.broker_id, api.name, version
            )
            return None
        request = P.decode_request(api, version, frame)
        self.engine.record(self.broker_id, api.name, version)
        try:
            response = (
                session.authorize(self.engine, self.broker_id, api, version, request, HANDLERS[key])
                if session is not None
                else None
            )
            if response is None:
                response = HANDLERS[key](self.engine, self.broker_id, version, request)
        except Exception:  # a bug: answer like a broker would, and say so in the log
            log.exception("broker %d: %s v%d failed", self.broker_id, api.name, version)
            response = P.error_response(api, version, UNKNOWN_SERVER_ERROR)
        if response is P.NO_RESPONSE:
            return b""  # nothing to send; the connection stays open
        if inspect.isawaitable(response):
            return self._finish(response, api, version, correlation_id)
        return P.encode_response(response, version, correlation_id)

    async def _finish(self, pending, api, version: int, correlation_id: int) -> bytes:
        """Encode the response of a handler that waited (a delayed Fetch)."""
        try:
            response = await pending
        except Exception:  # a bug: answer like a broker would, and say so in the log
            log.exception("broker %d: %s v%d failed", self.broker_id, api.name, version)
            response = P.error_response(api, version, UNKNOWN_SERVER_ERROR)
        return P.encode_response(response, version, correlation_id)
