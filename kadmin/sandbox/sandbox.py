"""``Sandbox``: the Python API of the emulated cluster. Builds the model, runs the engine, and
marshals every call onto the engine's loop thread."""

from __future__ import annotations

import math
import os
import random
import time
import uuid
from collections.abc import Callable

from kadmin.errors import InputError, NotFoundError, UsageError
from kadmin.sandbox import configs, controller, protocol, snapshot
from kadmin.sandbox.cluster import KRAFT, ZOOKEEPER, BrokerState, Cluster, LogDirState
from kadmin.sandbox.controller import ControllerError
from kadmin.sandbox.engine import Engine
from kadmin.sandbox.faults import Faults
from kadmin.sandbox.snapshot import Snapshot
from kadmin.sandbox.versions import kafka_version as kafka_version_of
from kadmin.units import MAX_BYTES

DATA_ROOT = "/var/lib/kafka"


class Clock:
    """Simulated time. With ``manual_clock=True`` it only moves when a test advances it."""

    def __init__(self, sandbox: Sandbox):
        self._sb = sandbox

    @property
    def now(self) -> float:
        return self._sb._engine().cluster.now

    def advance(self, seconds: float) -> None:
        if not self._sb.manual_clock:
            raise UsageError("clock.advance needs a sandbox started with manual_clock=True")
        if not math.isfinite(seconds):
            raise UsageError(f"cannot advance the clock by {seconds!r} seconds")
        if seconds < 0:
            raise UsageError("time only moves forward")
        # In ZooKeeper mode the controller reacts to watches on its own threads: what happened
        # before the call is acted on before time moves, and what the step caused is written
        # before the call returns, so tests see no race.
        self._sb.settle()
        self._sb._engine().advance(seconds)
        self._sb.settle()


class Sandbox:
    def __init__(
        self,
        brokers: int = 3,
        log_dirs: int = 2,
        racks: int = 0,
        base_port: int = 0,
        speed: float = 1.0,
        zookeeper: str | None = None,
        manual_clock: bool = False,
        dir_capacity: int = 100 * 2**30,
        bandwidth: int = 100 * 2**20,
        seed: int = 0,
        tls: tuple[str, str | None] | None = None,
        sasl_users: dict[str, str] | None = None,
        sasl_mechanisms: tuple[str, ...] | None = None,
        super_users: set[str] | None = None,
        cluster_acls: dict[str, set[str]] | None = None,
        kafka_version: str | None = None,
        shared_fs: bool = False,
        format_defaults: bool = False,
        lag: bool | None = None,
    ):
        """``shared_fs=True``: each broker's log directories share one filesystem of
        ``dir_capacity`` bytes, so every directory reports the same total and usable bytes.
        ``format_defaults=True``: the dynamic configs the version's storage format writes are
        there from the start (4.3 KRaft: ``min.insync.replicas=1`` as a cluster-wide default),
        as on a freshly formatted real cluster; off by default so tests see only what they set.
        ``lag``: brokers' Metadata and DescribeLogDirs catch up with a finished move a moment
        later, per broker (kadmin.sandbox.lag); default on, off under a manual clock.
        Security (kadmin.sandbox.security): ``tls=(certfile, keyfile)`` serves TLS;
        ``sasl_users={"alice": "secret"}`` turns on SASL with ``sasl_mechanisms`` (default PLAIN,
        SCRAM-SHA-256, SCRAM-SHA-512); ``super_users`` and ``cluster_acls`` ({user: {"DESCRIBE",
        "ALTER", ...}}) turn on the authorizer for CLUSTER operations."""
        if brokers < 1:
            raise UsageError("a sandbox needs at least one broker")
        if log_dirs < 1:
            raise UsageError("each broker needs at least one log directory")
        if racks < 0 or racks > brokers:
            raise UsageError(f"--racks must be between 0 and the number of brokers ({brokers})")
        if not (math.isfinite(speed) and speed > 0):
            raise UsageError(f"--speed must be a positive finite number (not {speed!r})")
        if base_port and not (base_port >= 1 and base_port + brokers - 1 <= 65535):
            raise UsageError(f"ports {base_port}..{base_port + brokers - 1} are not valid TCP ports")
        # Kafka's fields are int64s: DescribeLogDirs' TotalBytes/UsableBytes, the bytes/s rates
        if not 1 <= dir_capacity <= MAX_BYTES:
            raise UsageError(
                f"--dir-capacity must be between 1 and {MAX_BYTES} bytes (Kafka's int64), not {dir_capacity}"
            )
        if not 1 <= bandwidth <= MAX_BYTES:
            raise UsageError(f"--bandwidth must be between 1 and {MAX_BYTES} bytes/s (Kafka's int64), not {bandwidth}")
        if zookeeper is not None:  # as kadmin's own --zookeeper reads it: what status prints works there
            from kadmin.config import zookeeper_flag

            zookeeper = zookeeper_flag(zookeeper)
        self.version = kafka_version_of(kafka_version, zookeeper=bool(zookeeper))
        self.broker_count = brokers
        self.log_dirs = log_dirs
        self.racks = racks
        self.base_port = base_port
        self.speed = speed
        self.zookeeper = zookeeper
        self.manual_clock = manual_clock
        self.lag = (not manual_clock) if lag is None else lag
        self.dir_capacity = dir_capacity
        self.shared_fs = bool(shared_fs)
        self.format_defaults = bool(format_defaults)
        self.bandwidth = bandwidth
        self._rng = random.Random(seed)  # replica placement only: reproducible for a given seed
        self.security = _security(tls, sasl_users, sasl_mechanisms, super_users, cluster_acls)
        self.engine: Engine | None = None
        self.demo_kept: list[str] = []  # demo topics populate_demo found already there
        self.faults = Faults(self)
        self.clock = Clock(self)

    # --- lifecycle ---

    def _build_cluster(self) -> Cluster:
        # Every sandbox is a freshly formatted cluster: its cluster id and directory ids are its
        # own, as `kafka-storage format` draws them (a fleet of sandboxes has distinct ids). A
        # ZooKeeper-mode sandbox then adopts the id its chroot's /cluster/id already holds.
        brokers = {}
        for i in range(self.broker_count):
            dirs = {}
            for j in range(self.log_dirs):
                path = f"{DATA_ROOT}/data{j}"
                dirs[path] = LogDirState(path, _random_uuid(), self.dir_capacity)
            rack = f"rack-{i % self.racks}" if self.racks else None
            brokers[i] = BrokerState(i, "127.0.0.1", 0, rack, dirs)
        cluster_id = _base64_uuid(_random_uuid())
        cluster = Cluster(
            cluster_id,
            ZOOKEEPER if self.zookeeper else KRAFT,
            brokers,
            bandwidth=float(self.bandwidth),
            version=self.version,
            shared_fs=self.shared_fs,
        )
        if self.format_defaults and not self.zookeeper and self.version.formats_min_insync_replicas_default:
            # Written by the storage format of a 4.x KRaft cluster: a dynamic default nobody set.
            cluster.broker_configs[""] = {"min.insync.replicas": "1"}
        return cluster

    def start(self) -> Sandbox:
        """Returns when every broker accepts connections (and, in ZooKeeper mode, is registered)."""
        if self.engine is not None:
            return self
        engine = Engine(self._build_cluster(), speed=self.speed, manual_clock=self.manual_clock)
        engine.security = self.security
        if self.lag:
            from kadmin.sandbox import lag

            engine.lag = lag.install(engine.cluster)
        protocol.registry()  # kafka-python imported by this thread, before the brokers' thread runs
        engine.start_loop()
        ports = {i: (self.base_port + i if self.base_port else 0) for i in range(self.broker_count)}
        try:
            engine.run(engine.start_brokers(ports))
        except OSError as e:
            engine.stop_loop()
            busy = next((p for p in ports.values() if p and not _port_free(p)), None)
            where = f"127.0.0.1:{busy}" if busy else "127.0.0.1"
            reason = os.strerror(e.errno) if e.errno else str(e)
            raise UsageError(f"cannot listen on {where}: {reason} (is another sandbox or broker running?)") from e
        self.engine = engine
        if self.zookeeper:
            from kadmin.sandbox.zookeeper import ZooKeeperMode

            try:
                engine.zk = ZooKeeperMode(engine, self.zookeeper)
                engine.zk.start()
            except Exception:
                self.stop()
                raise
        return self

    def stop(self) -> None:
        engine, self.engine = self.engine, None
        if engine is None:
            return
        try:
            if engine.zk is not None:
                engine.zk.stop()
            engine.run(engine.shutdown())
        finally:
            engine.stop_loop()

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _engine(self) -> Engine:
        if self.engine is None:
            raise UsageError("the sandbox is not running (call start() first)")
        return self.engine

    # --- addresses ---

    @property
    def bootstrap(self) -> str:
        engine = self._engine()
        return ",".join(f"127.0.0.1:{engine.ports[i]}" for i in sorted(engine.ports))

    @property
    def ports(self) -> dict[int, int]:
        return dict(self._engine().ports)

    @property
    def security_protocol(self) -> str:
        """What clients set as security.protocol for this sandbox's listeners."""
        return self.security.protocol if self.security is not None else "PLAINTEXT"

    @property
    def mode(self) -> str:
        return ZOOKEEPER if self.zookeeper else KRAFT

    def log_dir_paths(self, broker_id: int) -> list[str]:
        cluster = self._engine().cluster
        if broker_id not in cluster.brokers:
            raise NotFoundError(f"no broker {broker_id} in the sandbox")
        return list(cluster.brokers[broker_id].dirs)

    # --- topics ---

    def create_topic(
        self,
        name: str,
        partitions: int | None = None,
        replication_factor: int | None = None,
        assignment: dict[int, list[int]] | None = None,
        size_bytes: int = 0,
        produce_rate: float = 0,
        configs: dict[str, str] | None = None,
        log_dirs: dict[tuple[int, int], str] | None = None,
    ) -> None:
        """Create a topic directly in the model (no request is logged). Sizes and produce rate are
        per partition; ``log_dirs`` pins replicas: {(partition, broker): path}."""
        engine = self._engine()
        engine.call(
            self._create_topic,
            engine,
            name,
            partitions,
            replication_factor,
            assignment,
            size_bytes,
            produce_rate,
            configs,
            log_dirs,
        )

    def _create_topic(
        self,
        engine,
        name,
        partitions,
        replication_factor,
        assignment,
        size_bytes,
        produce_rate,
        topic_configs,
        log_dirs,
    ):
        cluster = engine.cluster
        if name in cluster.topics:
            raise InputError(f"topic {name} already exists")
        for k, v in (topic_configs or {}).items():
            why = configs.validate_topic_config(k, v)
            if why:
                raise InputError(why)
        try:
            if assignment is not None:
                assignment = {int(p): list(r) for p, r in assignment.items()}
                if sorted(assignment) != list(range(len(assignment))):
                    raise InputError("assignment partitions must be 0..N-1")
                for replicas in assignment.values():
                    controller.validate_assignment(cluster, replicas, require_live=False)
            else:
                rf = replication_factor or min(3, len(cluster.brokers))
                assignment = controller.place_replicas(
                    cluster, partitions or 1, rf, self._rng, live=cluster.live_brokers()
                )
        except ControllerError as e:
            raise InputError(f"cannot create topic {name}: {e}") from e
        for (p, b), path in (log_dirs or {}).items():
            if b not in assignment.get(p, []):
                raise InputError(f"log_dirs names {name}-{p} on broker {b}, which holds no replica of it")
            if path not in cluster.brokers[b].dirs:
                raise InputError(f"broker {b} has no log directory {path}")
        controller.create_topic(cluster, name, assignment, topic_configs, size_bytes, produce_rate, log_dirs)

    def delete_topic(self, name: str) -> None:
        engine = self._engine()

        def run():
            if name not in engine.cluster.topics:
                raise NotFoundError(f"no topic {name}")
            controller.delete_topic(engine.cluster, name)

        engine.call(run)

    def populate_demo(self) -> list[str]:
        """Create the demo topics; return those already there (kept as they are: a ZooKeeper
        chroot a stopped sandbox used holds them, as a restarted cluster keeps its topics)."""
        from kadmin.sandbox.demo import populate

        self.demo_kept = populate(self)
        return self.demo_kept

    # --- observation ---

    def snapshot(self) -> Snapshot:
        engine = self._engine()
        return engine.call(lambda: snapshot.take(engine.cluster, engine.controller_id()))

    @property
    def requests(self) -> list[tuple[int, str, int]]:
        """(broker_id, api_name, api_version) of every request received, in order."""
        return list(self._engine().requests)

    def mutating_requests(self) -> list[tuple[int, str, int]]:
        return [r for r in self.requests if r[1] in protocol.MUTATING]

    def clear_requests(self) -> None:
        engine = self._engine()
        engine.call(engine.requests.clear)

    def wait_for(
        self, predicate: Callable[[Snapshot], bool], timeout: float = 10.0, interval: float = 0.02
    ) -> Snapshot:
        """Poll ``predicate(snapshot)`` until true; TimeoutError with the last state otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            snap = self.snapshot()
            if predicate(snap):
                return snap
            if time.monotonic() >= deadline:
                raise TimeoutError(f"sandbox condition not met within {timeout}s (simulated time {snap.now:.1f}s)")
            time.sleep(interval)

    def settle(self, timeout: float = 30.0) -> None:
        """Return once the sandbox has acted on everything that happened before the call: in
        ZooKeeper mode every watch already triggered (a reassign node written, a config change
        announced, /controller deleted) and the controller's queued work, including its writes
        back to ZooKeeper. The deterministic way for a test to say "nothing more will happen"
        (with the manual clock; a running clock keeps making new work)."""
        engine = self._engine()
        if engine.zk is not None:
            engine.zk.settle(timeout)
        else:
            engine.call(lambda: None, timeout=timeout)

    def status(self) -> dict:
        engine = self._engine()

        def run():
            c = engine.cluster
            return {
                "kafka_version": str(c.version),
                "mode": c.mode,
                "bootstrap": self.bootstrap,
                "cluster_id": c.cluster_id,
                "controller": engine.controller_id(),
                "topics": len(c.topics),
                "partitions": sum(len(t.partitions) for t in c.topics.values()),
                "simulated_seconds": round(c.now, 3),
                "speed": self.speed,
                "zookeeper": self.zookeeper,
                "brokers": [
                    {
                        "id": b.id,
                        "port": b.port,
                        "rack": b.rack,
                        "alive": b.alive,
                        "halted": b.halted,
                        "log_dirs": [
                            {"path": d.path, "online": d.online, "cordoned": d.cordoned} for d in b.dirs.values()
                        ],
                    }
                    for b in sorted(c.brokers.values(), key=lambda b: b.id)
                ],
            }

        return engine.call(run)


def _security(tls, sasl_users, sasl_mechanisms, super_users, cluster_acls):
    if not (tls or sasl_users or sasl_mechanisms or super_users is not None or cluster_acls):
        return None
    import ssl

    from kadmin.sandbox.security import CLUSTER_OPERATIONS, MECHANISMS, ListenerSecurity, tls_context

    context = None
    if tls:
        certfile, keyfile = tls if isinstance(tls, (tuple, list)) else (tls, None)
        try:
            context = tls_context(certfile, keyfile)
        except (OSError, ssl.SSLError) as e:
            raise InputError(f"cannot load the TLS certificate {certfile}: {getattr(e, 'strerror', None) or e}") from e
    mechanisms = tuple(m.upper() for m in (sasl_mechanisms or (MECHANISMS if sasl_users else ())))
    if mechanisms and not sasl_users:
        raise UsageError("SASL needs at least one user (sasl_users / --sasl-user NAME:PASSWORD)")
    for m in mechanisms:
        if m not in MECHANISMS:
            raise UsageError(f"SASL mechanism {m} is not supported (use {', '.join(MECHANISMS)})")
    acls = {}
    for user, ops in (cluster_acls or {}).items():
        ops = frozenset(o.upper() for o in ops)
        bad = sorted(ops - set(CLUSTER_OPERATIONS) - {"ALL"})
        if bad:
            raise UsageError(f"unknown cluster operation {bad[0]} (use {', '.join(CLUSTER_OPERATIONS)}, ALL)")
        acls[user] = ops
    return ListenerSecurity(
        tls=context,
        mechanisms=mechanisms,
        users=dict(sasl_users or {}),
        super_users=frozenset(super_users) if super_users is not None else None,
        cluster_acls=acls,
    )


def _random_uuid() -> uuid.UUID:
    """A fresh random id, as Kafka's ``Uuid.randomUuid()`` draws one: never one whose base64 form
    starts with "-" (it would read as a flag on a command line)."""
    while True:
        u = uuid.uuid4()
        if not _base64_uuid(u).startswith("-"):
            return u


def _base64_uuid(u: uuid.UUID) -> str:
    import base64

    return base64.urlsafe_b64encode(u.bytes).decode().rstrip("=")


def _port_free(port: int) -> bool:
    import socket

    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False
