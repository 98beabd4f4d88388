"""Faults for tests and demos: stop and start brokers, take directories offline or cordon them,
slow a broker's responses or put it far away, drop its client connections."""

from __future__ import annotations

from kadmin.errors import ClusterError, NotFoundError, UsageError
from kadmin.sandbox import controller
from kadmin.sandbox.versions import CORDONED_LOG_DIRS_SINCE


class Faults:
    def __init__(self, sandbox):
        self._sb = sandbox

    def _broker(self, broker_id: int):
        cluster = self._sb.engine.cluster
        if broker_id not in cluster.brokers:
            raise NotFoundError(
                f"no broker {broker_id} in the sandbox (brokers: {', '.join(map(str, sorted(cluster.brokers)))})"
            )
        return cluster.brokers[broker_id]

    def _dir(self, broker_id: int, path: str):
        broker = self._broker(broker_id)
        if path not in broker.dirs:
            raise NotFoundError(f"broker {broker_id} has no log directory {path} (it has: {', '.join(broker.dirs)})")
        return broker.dirs[path]

    def broker_stop(self, broker_id: int) -> None:
        """The broker's listener closes and its replicas go offline; leadership moves."""
        engine = self._sb.engine
        if not self._broker(broker_id).alive:
            return
        engine.run(engine.stop_broker(broker_id))
        engine.call(controller.broker_stopped, engine.cluster, broker_id)
        if engine.zk is not None:
            engine.zk.broker_stopped(broker_id)

    def broker_start(self, broker_id: int) -> None:
        """The broker starts again; a directory still offline stays offline (its replicas with
        it). Refused, as Kafka halts at start-up, when none of its directories is usable."""
        engine = self._sb.engine
        if self._broker(broker_id).alive:
            return
        why = engine.call(_clear_halt, engine.cluster, broker_id)
        if why is not None:
            raise ClusterError(
                f"broker {broker_id} cannot start: {why}, so Kafka halts at start-up; bring one back "
                f"first (kadmin sandbox fault dir-online {broker_id} PATH)"
            )
        engine.run(engine.start_broker(broker_id))
        engine.call(controller.broker_started, engine.cluster, broker_id)
        if engine.zk is not None:
            engine.zk.broker_started(broker_id)

    def dir_offline(self, broker_id: int, path: str) -> None:
        self._dir(broker_id, path)
        engine = self._sb.engine
        if engine.call(_dir_offline, engine.cluster, broker_id, path):
            engine.stop_halted()  # the broker's last directory: it halted, telling no controller
        elif engine.zk is not None:
            engine.zk.log_dir_failed(broker_id)

    def dir_online(self, broker_id: int, path: str) -> None:
        """The disk is back. Kafka takes a failed directory back only at start-up (nothing
        brings one online in a running broker), so a running broker restarts: ``broker_stop``
        then ``broker_start`` with the directory online. Leadership moves off it and its
        replicas rejoin the ISR once caught up; it forgets the AlterReplicaLogDirs destinations
        of replicas it did not have, deletes its stray logs, and resumes the log-dir moves
        whose future logs it finds on disk (LogManager.loadLog,
        ReplicaManager.maybeAddLogDirFetchers), at the log-dir rate set by then. A stopped or
        halted broker only gets the disk back; ``broker_start`` starts it. An online directory:
        nothing happens."""
        if self._dir(broker_id, path).online:
            return
        engine = self._sb.engine
        running = self._broker(broker_id).alive
        if running:
            self.broker_stop(broker_id)
        engine.call(controller.dir_online, engine.cluster, broker_id, path)
        if running:
            self.broker_start(broker_id)

    def dir_cordon(self, broker_id: int, path: str, cordoned: bool = True) -> None:
        """Cordon the directory (KIP-1066): no new replicas are placed there; ``cordoned=False``
        uncordons it. Refused (UsageError), cordoning and uncordoning alike, where the emulated
        Kafka has no cordoned directories: nothing there could cordon one or show it."""
        version = self._sb.engine.cluster.version
        if not version.has_cordoned_log_dirs:
            since = ".".join(map(str, CORDONED_LOG_DIRS_SINCE))
            raise UsageError(
                f"Kafka has cordoned log directories only from {since} (KIP-1066); this sandbox emulates Kafka {version}"
            )
        d = self._dir(broker_id, path)
        self._sb.engine.call(setattr, d, "cordoned", bool(cordoned))

    def slow(self, broker_id: int, millis: int) -> None:
        """Delay every response of this broker by ``millis`` (0 restores normal speed)."""
        b = self._broker(broker_id)
        self._sb.engine.call(setattr, b, "slow_ms", max(int(millis), 0))

    def latency(self, broker_id: int, millis: int) -> None:
        """Put this broker ``millis`` away (0 restores it): each answer arrives that much later,
        while the broker goes on with the requests sent behind it, as over a long network path
        (``slow``, a busy broker, holds them up)."""
        b = self._broker(broker_id)
        self._sb.engine.call(setattr, b, "latency_ms", max(int(millis), 0))

    def drop_connections(self, broker_id: int) -> None:
        self._broker(broker_id)
        engine = self._sb.engine
        server = engine.servers.get(broker_id)
        if server is not None:
            engine.call(server.drop_connections)


def _dir_offline(cluster, broker_id: int, path: str) -> bool:
    """The directory fails; whether that halted its broker."""
    controller.dir_offline(cluster, broker_id, path)
    return cluster.brokers[broker_id].halted is not None


def _clear_halt(cluster, broker_id: int) -> str | None:
    """Why the broker cannot start, or None after forgetting why it halted (so the engine does
    not close the listener it is about to open)."""
    why = controller.start_refusal(cluster, broker_id)
    if why is None:
        cluster.brokers[broker_id].halted = None
    return why
