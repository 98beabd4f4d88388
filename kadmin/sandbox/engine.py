"""The sandbox's runtime: one asyncio event loop in a background thread serves every broker's
listener and runs the simulation ticks, so the cluster model is only ever touched from that
thread and needs no locks. Callers on other threads go through ``call``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kadmin.sandbox import configs, replication
from kadmin.sandbox.cluster import ZOOKEEPER, Cluster
from kadmin.sandbox.wire import BrokerServer

if TYPE_CHECKING:
    from kadmin.sandbox.lag import Lag
    from kadmin.sandbox.security import ListenerSecurity
    from kadmin.sandbox.zookeeper import ZooKeeperMode

TICK = 0.05  # real seconds between simulation steps; also the most one step may take
log = logging.getLogger("kadmin.sandbox")


class Engine:
    def __init__(self, cluster: Cluster, *, speed: float = 1.0, manual_clock: bool = False):
        self.cluster = cluster
        self.speed = speed
        self.manual_clock = manual_clock
        self.start_wall_ms = int(time.time() * 1000)
        self.requests: list[tuple[int, str, int]] = []
        self.servers: dict[int, BrokerServer] = {}
        self.ports: dict[int, int] = {}
        self.zk: ZooKeeperMode | None = None  # when running against ZooKeeper
        self.lag: Lag | None = None  # brokers' views that catch up late after a move ends
        self.security: ListenerSecurity | None = None  # TLS, SASL, authorizer (the Sandbox sets it)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ticker: asyncio.Task | None = None
        self._static: dict[int, dict[str, str]] = {}
        self.metadata_cache: dict = {}  # api_cluster.metadata's answers for all topics

    # --- thread plumbing ---

    def start_loop(self) -> None:
        ready = threading.Event()

        def run():
            self.loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self.loop)
            self.loop.call_soon(ready.set)
            self.loop.run_forever()
            self.loop.close()

        self._thread = threading.Thread(target=run, name="kadmin-sandbox", daemon=True)
        self._thread.start()
        ready.wait()

    def in_loop(self) -> bool:
        return self._thread is threading.current_thread()

    def call(self, fn: Callable[..., Any], *args, timeout: float = 60.0, **kwargs) -> Any:
        """Run ``fn`` on the loop thread and return its result (re-raising its exception)."""
        if self.in_loop():
            return fn(*args, **kwargs)

        async def run():
            return fn(*args, **kwargs)

        assert self.loop is not None, "the engine is not started"
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout)

    def run(self, coro, timeout: float = 60.0) -> Any:
        assert self.loop is not None, "the engine is not started"
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    # --- brokers ---

    async def start_brokers(self, ports: dict[int, int]) -> dict[int, int]:
        """Bind every listener; on failure, close the ones already bound and re-raise."""
        try:
            for broker_id, port in ports.items():
                await self.start_broker(broker_id, port)
        except OSError:
            for s in self.servers.values():
                await s.stop()
            raise
        if not self.manual_clock:
            self._ticker = asyncio.ensure_future(self._tick())
        return dict(self.ports)

    async def start_broker(self, broker_id: int, port: int | None = None) -> None:
        server = self.servers.get(broker_id) or BrokerServer(self, broker_id)
        self.servers[broker_id] = server
        bound = await server.start(self.ports.get(broker_id, port or 0))
        self.ports[broker_id] = bound
        b = self.cluster.brokers[broker_id]
        b.port = bound

    async def stop_broker(self, broker_id: int) -> None:
        await self.servers[broker_id].stop()

    def stop_halted(self) -> None:
        """Close the listener, and in ZooKeeper mode the session, of each broker the model halted
        (its last log directory failed: ``BrokerState.halted``), saying why as Kafka logs it.
        Not on the loop thread: closing a ZooKeeper session blocks."""
        assert not self.in_loop(), "stop_halted blocks: call it off the loop thread"

        async def close_listeners() -> list[tuple[int, str]]:
            closed = []
            for b in self.cluster.brokers.values():
                server = self.servers.get(b.id)
                if b.halted is not None and server is not None and server.server is not None:
                    await server.stop()
                    closed.append((b.id, b.halted))
            return closed

        for broker_id, why in self.run(close_listeners()):
            log.error("broker %d: Shutdown broker because %s", broker_id, why)
        if self.zk is not None:
            for broker_id in self.call(lambda: [b.id for b in self.cluster.brokers.values() if b.halted]):
                self.zk.broker_stopped(broker_id)

    def _halted_still_serving(self) -> bool:
        return any(
            b.halted is not None and self.servers.get(b.id) is not None and self.servers[b.id].server is not None
            for b in self.cluster.brokers.values()
        )

    async def shutdown(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
        for s in self.servers.values():
            await s.stop()

    def stop_loop(self) -> None:
        if self.loop is not None and self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    # --- time ---

    async def _tick(self) -> None:
        last = time.monotonic()
        halting = None
        while True:
            await asyncio.sleep(TICK)
            now = time.monotonic()
            try:
                replication.step(self.cluster, (now - last) * self.speed, budget=TICK)
            except Exception:  # a bug: keep serving, say so once per tick
                log.exception("simulation step failed")
            last = now
            if (halting is None or halting.done()) and self._halted_still_serving():  # a directory filled
                halting = asyncio.get_running_loop().run_in_executor(None, self.stop_halted)

    def advance(self, seconds: float) -> None:
        self.call(replication.step, self.cluster, seconds)
        self.stop_halted()

    def wall_ms(self, sim_seconds: float) -> int:
        return self.start_wall_ms + int(sim_seconds * 1000)

    # --- what handlers ask ---

    @property
    def zookeeper_mode(self) -> bool:
        return self.cluster.mode == ZOOKEEPER

    def record(self, broker_id: int, api_name: str, version: int) -> None:
        self.requests.append((broker_id, api_name, version))

    def controller_id(self) -> int:
        c = self.cluster
        if c.controller_id in c.brokers and c.brokers[c.controller_id].alive:
            return c.controller_id
        live = c.live_brokers()
        return live[0] if live else -1

    def static_configs(self, broker_id: int) -> dict[str, str]:
        if broker_id not in self._static:
            paths = list(self.cluster.brokers[broker_id].dirs)
            protocol = self.security.protocol if self.security is not None else "PLAINTEXT"
            static = configs.static_broker_configs(self.cluster, broker_id, paths, protocol)
            if self.zk is not None:
                static["zookeeper.connect"] = self.zk.connect
            self._static[broker_id] = static
        return self._static[broker_id]

    def configs_changed(self, entity_type: str, name: str) -> None:
        """A config changed through the AdminClient path; ZooKeeper mode persists it."""
        if self.zk is not None:
            self.zk.config_written(entity_type, name)
