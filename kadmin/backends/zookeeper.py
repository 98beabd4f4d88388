"""The ZooKeeper backend (``--zookeeper``, deprecated): kazoo reading and writing the znodes
exactly as Kafka's ZooKeeper-mode tools did (formats in ``zk_paths``, checks in ``zk_reassign``).

What needs a broker RPC (log dirs, end offsets) goes to an AdminClient-protocol backend
bootstrapped from the endpoints the brokers registered under /brokers/ids; without one, or for
what ZooKeeper mode never had (cancelling a reassignment), the error names --bootstrap-server.

Kept apart from the rest so it can be retired cleanly with ZooKeeper itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from kadmin.backends import zk_paths as zp
from kadmin.backends.base import Backend, BrokerLogDirs, Capability, ReadOnlyViolation, ReassignmentBlocked
from kadmin.backends.zk_auth import AUTH_DIGEST, ZkSecurity, acls_for, auth_data, tls_options, zk_security
from kadmin.backends.zk_reassign import STUCK_HINT, check_assignments, ongoing_reassignments, stuck_reason
from kadmin.errors import (
    AuthenticationError,
    AuthorizationError,
    ClusterError,
    ConnectionFailed,
    InputError,
    KadminError,
    NotFoundError,
    ReassignmentInProgress,
    UnsupportedOperation,
)
from kadmin.model import (
    AlterOp,
    Assignment,
    Broker,
    ClusterState,
    ConfigChange,
    ConfigEntry,
    ConfigResource,
    ConfigResourceType,
    ConfigSource,
    PartitionReassignment,
    PartitionState,
    ReplicaLogDir,
    TopicPartition,
    TopicPartitionReplica,
)

BrokerBackendFactory = Callable[[str], Backend]


class ZooKeeperBackend:
    """KIP-179's interface over a ZooKeeper ensemble (connect string with optional chroot)."""

    name = "zookeeper"

    def __init__(
        self,
        zookeeper: str,
        *,
        timeout: float = 30.0,
        read_only: bool = False,
        broker_backend_factory: BrokerBackendFactory | None = None,
        security_protocol: str = "PLAINTEXT",
        clock: Callable[[], float] = time.time,
        security: ZkSecurity | None = None,
        target_where: str = "--zookeeper",
        properties_where: str = "--command-config",
    ):
        """``target_where``, ``properties_where``: where the address and the properties were
        given, named in messages (``ConnectionSettings``: a flag, a variable, a profile's key)."""
        self.zookeeper = zookeeper
        self.properties_where = properties_where
        self.timeout = timeout
        self.read_only = read_only
        self.security_protocol = security_protocol.upper()
        self._factory = broker_backend_factory
        self._broker_backend: Backend | None = None
        self._clock = clock
        self.security = security or ZkSecurity()
        caps = {
            Capability.REASSIGN,
            Capability.LIST_REASSIGNMENTS,
            Capability.INCREMENTAL_ALTER_CONFIGS,
            Capability.ELECT_LEADERS,
            Capability.THROTTLE_RECORDS,
            Capability.CONFIGS_OF_DOWN_BROKERS,
        }
        if broker_backend_factory is not None:
            caps |= {Capability.LOG_DIRS, Capability.END_OFFSETS}
        self.capabilities = frozenset(caps)
        self._zk = _connect(zookeeper, timeout, self.security, target_where)

    @classmethod
    def from_settings(
        cls, settings, *, read_only: bool = False, broker_backend_factory: BrokerBackendFactory | None = None
    ) -> ZooKeeperBackend:
        """From ``kadmin.config.ConnectionSettings``: its security.protocol picks the listener used
        to reach brokers; its ``zookeeper.*`` properties the ZooKeeper credentials and ACLs."""
        return cls(
            settings.zookeeper,
            timeout=settings.timeout,
            read_only=read_only,
            broker_backend_factory=broker_backend_factory,
            security_protocol=settings.security_protocol,
            security=zk_security(settings.properties),
            target_where=settings.target_where,
            properties_where=settings.properties_where,
        )

    # --- plumbing ------------------------------------------------------------------------

    def throttle_record_store(self):
        """KIP-179's throttle removal znodes (kadmin.throttling.stores), written through this
        connection: bounded by its timeout, with its error mapping."""
        from kadmin.throttling.stores import ZooKeeperRecordStore

        return ZooKeeperRecordStore(_Znodes(self), read_only=self.read_only)

    @property
    def zk_client(self):
        """The started kazoo client."""
        if self._zk is None:
            raise ConnectionFailed("the ZooKeeper connection is closed")
        return self._zk

    @contextmanager
    def _mapped_errors(self):
        """kazoo's connection and ACL failures as kadmin's errors; znode outcomes (NoNodeError,
        NodeExistsError, BadVersionError) pass through for the caller."""
        from kazoo.exceptions import ConnectionLoss, NoAuthError, OperationTimeoutError, SessionExpiredError
        from kazoo.handlers.threading import KazooTimeoutError

        try:
            yield
        except (ConnectionLoss, SessionExpiredError, OperationTimeoutError, KazooTimeoutError) as e:
            raise ConnectionFailed(
                f"lost the connection to ZooKeeper at {self.zookeeper} ({type(e).__name__}); "
                f"no answer within {self.timeout:g}s"
            ) from None
        except NoAuthError:
            who = f"user {self.security.user!r}" if self.security.digest else "an unauthenticated session"
            raise AuthorizationError(
                f"ZooKeeper at {self.zookeeper} refused access to {who} (znode ACLs)",
                hint=None if self.security.digest else f"set {AUTH_DIGEST}=user:password in {self.properties_where}",
            ) from None

    def _op(self, name: str, *args, **kwargs) -> Any:
        """Run kazoo's ``<name>_async`` and wait at most the timeout: kazoo's blocking calls wait
        forever while it reconnects."""
        with self._mapped_errors():
            return getattr(self.zk_client, f"{name}_async")(*args, **kwargs).get(timeout=self.timeout)

    def _get(self, path: str) -> bytes | None:
        from kazoo.exceptions import NoNodeError

        try:
            return self._op("get", path)[0]
        except NoNodeError:
            return None

    def _children(self, path: str) -> list[str]:
        from kazoo.exceptions import NoNodeError

        try:
            return self._op("get_children", path)
        except NoNodeError:
            return []

    def _get_many(self, paths: Sequence[str]) -> dict[str, tuple[bytes, Any] | None]:
        """Pipelined reads: all requests go out before the first answer is awaited."""
        from kazoo.exceptions import NoNodeError

        pending = [(p, self.zk_client.get_async(p)) for p in paths]
        out: dict[str, tuple[bytes, Any] | None] = {}
        deadline = time.monotonic() + self.timeout
        with self._mapped_errors():
            for path, result in pending:
                try:
                    out[path] = result.get(timeout=max(0.0, deadline - time.monotonic()))
                except NoNodeError:
                    out[path] = None
        return out

    def _check_writable(self, method: str) -> None:
        if self.read_only:
            raise ReadOnlyViolation(f"{method} called on a read-only ZooKeeper backend")

    def close(self) -> None:
        if self._broker_backend is not None:
            self._broker_backend.close()
            self._broker_backend = None
        if self._zk is not None:
            try:
                self._zk.stop()
            finally:
                self._zk.close()
                self._zk = None

    def __enter__(self) -> ZooKeeperBackend:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- reads ---------------------------------------------------------------------------

    def broker_registrations(self) -> dict[int, zp.BrokerRegistration]:
        """Every live broker's registration (all its listeners)."""
        from kazoo.exceptions import NoNodeError

        try:
            ids = self._op("get_children", zp.BROKER_IDS)
        except NoNodeError:
            raise ClusterError(
                f"no Kafka cluster is registered in ZooKeeper at {self.zookeeper} (no {zp.BROKER_IDS} znode)",
                hint="check the chroot: Kafka's zookeeper.connect often ends with one, e.g. host:2181/kafka",
            ) from None
        numeric = sorted(int(i) for i in ids if i.isdigit())
        data = self._get_many([zp.broker_path(i) for i in numeric])
        out = {}
        for i in numeric:
            got = data[zp.broker_path(i)]
            if got is not None:  # a broker that went away between the two reads
                out[i] = self._decode(zp.decode_broker, i, got[0])
        return out

    @property
    def cluster_id(self) -> str | None:
        data = self._get(zp.CLUSTER_ID)
        return zp.decode_cluster_id(data) if data else None

    def describe_brokers(self) -> Mapping[int, Broker]:
        return {i: r.to_broker(self.security_protocol) for i, r in self.broker_registrations().items()}

    def topic_assignments(self, topics: Iterable[str] | None = None) -> dict[str, zp.TopicAssignment]:
        names = sorted(self._children(zp.TOPICS)) if topics is None else sorted(set(topics))
        data = self._get_many([zp.topic_path(t) for t in names])
        return {t: self._decode(zp.decode_topic, t, got[0]) for t in names if (got := data[zp.topic_path(t)])}

    def replica_brokers(self) -> set[int]:
        return {
            b
            for t in self.topic_assignments().values()
            for by_partition in (t.partitions, t.adding, t.removing)
            for replicas in by_partition.values()
            for b in replicas
        }

    def describe_cluster(self) -> ClusterState:
        regs = self.broker_registrations()
        topics = self.topic_assignments()
        states_paths = {
            TopicPartition(t.topic, p): zp.partition_state_path(t.topic, p)
            for t in topics.values()
            for p in t.partitions
        }
        states = self._get_many(list(states_paths.values()))
        partitions = {}
        for tp, path in sorted(states_paths.items()):
            t = topics[tp.topic]
            replicas = t.partitions[tp.partition]
            got = states[path]
            state = self._decode(zp.decode_partition_state, got[0], path) if got else None
            partitions[tp] = PartitionState(
                tp.topic,
                tp.partition,
                leader=state.leader if state else -1,
                replicas=replicas,
                isr=state.isr if state else (),
                offline_replicas=tuple(b for b in replicas if b not in regs),
                adding=t.adding.get(tp.partition, ()),
                removing=t.removing.get(tp.partition, ()),
            )
        controller = self._get(zp.CONTROLLER)
        return ClusterState(
            cluster_id=self.cluster_id,
            controller_id=zp.decode_controller(controller) if controller else None,
            brokers={i: r.to_broker(self.security_protocol) for i, r in regs.items()},
            partitions=partitions,
        )

    def reassign_node(self) -> tuple[dict[TopicPartition, tuple[int, ...]] | None, str | None, float | None]:
        """``/admin/reassign_partitions``: (targets, parse error, age in seconds); (None, None, None)
        when the node does not exist."""
        from kazoo.exceptions import NoNodeError

        try:
            data, stat = self._op("get", zp.REASSIGN_PARTITIONS)
        except NoNodeError:
            return None, None, None
        age = max(0.0, self._clock() - stat.ctime / 1000.0)
        try:
            return zp.decode_reassignment(data), None, age
        except (ValueError, KeyError, TypeError) as e:
            return None, str(e), age

    def reassignment_blocked(self) -> ReassignmentBlocked | None:
        """None when ``/admin/reassign_partitions`` does not exist; else why no reassignment can
        be started now (``kadmin.backends.base.reassignment_blocked``): the controller reads the
        node only when it is created, so nothing can be added to it, and a stuck one (``stuck``)
        stays until someone removes it."""
        node, node_error, age = self.reassign_node()
        if age is None:
            return None
        reason = stuck_reason(node, node_error, self.topic_assignments({tp.topic for tp in node or {}}), age)
        if reason:
            return ReassignmentBlocked(f"{zp.REASSIGN_PARTITIONS} exists but looks stuck: {reason}", STUCK_HINT, True)
        return ReassignmentBlocked(
            f"there is an existing assignment running ({zp.REASSIGN_PARTITIONS} exists): the controller is "
            "still carrying out a reassignment and ZooKeeper mode cannot add to it",
            "wait for it to finish (kadmin reassign list), or use --bootstrap-server where the brokers "
            "support AlterPartitionReassignments (Kafka 2.4+)",
        )

    def reassign_node_problem(self) -> str | None:
        """Why an existing ``/admin/reassign_partitions`` is not being carried out (with what to
        do), or None when there is no node or it may still be in progress."""
        blocked = self.reassignment_blocked()
        return f"{blocked.reason}. {blocked.hint}" if blocked is not None and blocked.stuck else None

    def list_partition_reassignments(
        self, partitions: Iterable[TopicPartition] | None = None
    ) -> Mapping[TopicPartition, PartitionReassignment]:
        wanted = None if partitions is None else set(partitions)
        node, _, _ = self.reassign_node()
        topics = self.topic_assignments(None if wanted is None else {tp.topic for tp in wanted})
        found = ongoing_reassignments(topics, node)
        return found if wanted is None else {tp: r for tp, r in found.items() if tp in wanted}

    def describe_configs(
        self, resources: Iterable[ConfigResource], keys: Collection[str] | None = None
    ) -> Mapping[ConfigResource, Mapping[str, ConfigEntry]]:
        """The dynamic configs ZooKeeper holds (only ``keys``, when given): topic overrides,
        per-broker and cluster-wide broker defaults. Static (server.properties) and built-in
        defaults live only in brokers."""
        resources = list(resources)
        needed = {zp.config_path(*_entity(r)) for r in resources}
        if any(r.type == ConfigResourceType.BROKER for r in resources):
            needed.add(zp.config_path(zp.BROKER_CONFIG_TYPE, zp.DEFAULT_BROKER))
        data = self._get_many(sorted(needed))

        def config(path: str) -> dict[str, str]:
            got = data.get(path)
            values = self._decode(zp.decode_config, got[0], path) if got else {}
            return values if keys is None else {k: v for k, v in values.items() if k in keys}

        default = config(zp.config_path(zp.BROKER_CONFIG_TYPE, zp.DEFAULT_BROKER))
        out: dict[ConfigResource, dict[str, ConfigEntry]] = {}
        for r in resources:
            own = config(zp.config_path(*_entity(r)))
            if r.type == ConfigResourceType.TOPIC:
                out[r] = {k: _entry(k, v, ConfigSource.TOPIC) for k, v in sorted(own.items())}
            elif r.name == "":
                out[r] = {k: _entry(k, v, ConfigSource.DYNAMIC_DEFAULT_BROKER) for k, v in sorted(default.items())}
            else:
                entries = {k: _entry(k, v, ConfigSource.DYNAMIC_DEFAULT_BROKER) for k, v in default.items()}
                entries.update({k: _entry(k, v, ConfigSource.DYNAMIC_BROKER) for k, v in own.items()})
                out[r] = dict(sorted(entries.items()))
        return out

    # --- broker RPCs, through the brokers found in ZooKeeper -----------------------------

    def bootstrap_servers(self) -> str:
        """host:port of every live broker's listener for our security protocol."""
        regs = self.broker_registrations()
        eps = [ep for r in regs.values() if (ep := r.endpoint(self.security_protocol))]
        if not eps:
            offered = sorted({ep.security_protocol for r in regs.values() for ep in r.endpoints})
            raise ConnectionFailed(
                f"no live broker registered in ZooKeeper has a {self.security_protocol} listener"
                + (f" (they offer {', '.join(offered)})" if offered else " (no broker is registered)"),
                hint=f"set security.protocol in {self.properties_where} to match, or use --bootstrap-server",
            )
        return ",".join(ep.address for ep in eps)

    def _brokers(self, operation: str) -> Backend:
        if self._factory is None:
            raise UnsupportedOperation(
                f"{operation} needs the brokers' admin RPCs, which this ZooKeeper connection cannot reach",
                hint="use --bootstrap-server",
            )
        if self._broker_backend is None:
            self._broker_backend = self._factory(self.bootstrap_servers())
        return self._broker_backend

    def describe_log_dirs(
        self, brokers: Iterable[int] | None = None, topics: Iterable[str] | None = None
    ) -> Mapping[int, BrokerLogDirs]:
        return self._brokers("describe_log_dirs").describe_log_dirs(brokers, topics)

    def describe_replica_log_dirs(
        self, replicas: Iterable[TopicPartitionReplica]
    ) -> Mapping[TopicPartitionReplica, ReplicaLogDir]:
        return self._brokers("describe_replica_log_dirs").describe_replica_log_dirs(replicas)

    def list_end_offsets(self, partitions: Iterable[TopicPartition]) -> Mapping[TopicPartition, int]:
        return self._brokers("list_end_offsets").list_end_offsets(partitions)

    def alter_replica_log_dirs(
        self, moves: Mapping[TopicPartitionReplica, str]
    ) -> Mapping[TopicPartitionReplica, str | None]:
        self._check_writable("alter_replica_log_dirs")
        return self._brokers("alter_replica_log_dirs").alter_replica_log_dirs(moves)

    # --- changes -------------------------------------------------------------------------

    def reassign_partitions(
        self, assignments: Sequence[Assignment], validate_only: bool = False
    ) -> Mapping[TopicPartition, str | None]:
        """Write ``/admin/reassign_partitions`` (topic, partition, replicas only; log dirs are
        moved separately with alter_replica_log_dirs) for the acceptable partitions. Refuses
        while the node exists: the controller only notices its creation."""
        if not validate_only:
            self._check_writable("reassign_partitions")
        blocked = self.reassignment_blocked()  # execute refuses this before any change; here for any other caller
        if blocked is not None:
            raise ReassignmentInProgress(f"{blocked.reason}; nothing was changed", hint=blocked.hint)
        topics = self.topic_assignments({a.topic for a in assignments})
        deleting = set(self._children(zp.DELETE_TOPICS)) & set(topics)
        live = self.broker_registrations()
        result = check_assignments(assignments, topics, live, deleting)
        accepted = [a for a in assignments if result.get(a.tp) is None]
        if accepted and not validate_only:
            self._create_reassignment(accepted)
        return result

    def _create_reassignment(self, assignments: Sequence[Assignment]) -> None:
        from kazoo.exceptions import NodeExistsException

        try:
            self._op("create", zp.REASSIGN_PARTITIONS, zp.encode_reassignment(assignments), makepath=True)
        except NodeExistsException:  # someone else won the race
            raise ReassignmentInProgress(
                f"{zp.REASSIGN_PARTITIONS} was created by someone else meanwhile; nothing was changed"
            ) from None

    def cancel_partition_reassignments(
        self, partitions: Iterable[TopicPartition]
    ) -> Mapping[TopicPartition, str | None]:
        self._check_writable("cancel_partition_reassignments")
        raise UnsupportedOperation(
            "cancelling a reassignment is not possible over ZooKeeper (Kafka's tool required "
            "--bootstrap-server for --cancel too)",
            hint="use --bootstrap-server (Kafka 2.4+)",
        )

    def incremental_alter_configs(self, changes: Sequence[ConfigChange]) -> None:
        """Per resource: read-modify-write its ``/config/...`` znode (compare-and-set), then a
        ``/config/changes/config_change_`` notification, which is what brokers act on. A failure
        names the znode; after a resource was written it is ConfigChangesPartlyMade, carrying
        the changes made."""
        from kadmin.backends.config_outcomes import ConfigChangesPartlyMade

        self._check_writable("incremental_alter_configs")
        by_resource: dict[ConfigResource, list[ConfigChange]] = {}
        for c in changes:
            by_resource.setdefault(c.resource, []).append(c)
        for resource in sorted(by_resource, key=lambda r: (r.type.value, r.name)):  # check all, then write
            _entity(resource)
            if resource.type == ConfigResourceType.TOPIC and self._get(zp.topic_path(resource.name)) is None:
                raise NotFoundError(f"topic {resource.name!r} does not exist; its config was not changed")
        made: list[ConfigChange] = []  # each znode is written in turn: those before a failure stay changed
        for resource in sorted(by_resource, key=lambda r: (r.type.value, r.name)):
            entity_type, entity_name = _entity(resource)
            try:
                self._alter_entity(entity_type, entity_name, by_resource[resource])
            except KadminError as e:
                e.message = f"writing {zp.config_path(entity_type, entity_name)}: {e.message}"
                if made:
                    raise ConfigChangesPartlyMade(e, made) from e
                raise
            made += by_resource[resource]

    def elect_leaders(self, election_type, partitions) -> Mapping[TopicPartition, str | None]:
        """Preferred election through /admin/preferred_replica_election (kadmin.backends.zk_elect);
        unclean election is refused, naming --bootstrap-server."""
        from kadmin.backends.zk_elect import elect_leaders

        self._check_writable("elect_leaders")
        return elect_leaders(self, election_type, partitions)

    def _alter_entity(self, entity_type: str, entity_name: str, changes: Sequence[ConfigChange]) -> None:
        from kazoo.exceptions import BadVersionError, NodeExistsException, NoNodeError

        path = zp.config_path(entity_type, entity_name)
        for _ in range(10):  # compare-and-set: retry only when someone wrote in between
            try:
                data, stat = self._op("get", path)
            except NoNodeError:
                data, stat = None, None
            config = zp.decode_config(data, path)
            for c in changes:
                if c.op == AlterOp.SET:
                    config[c.name] = str(c.value)
                else:
                    config.pop(c.name, None)
            try:
                if stat is None:  # /config/brokers is sensitive: no world-read ACL there
                    self._op("create", path, zp.encode_config(config), acl=acls_for(self.security, path), makepath=True)
                else:
                    self._op("set", path, zp.encode_config(config), version=stat.version)
                break
            except (BadVersionError, NodeExistsException, NoNodeError):
                continue
        else:
            raise ClusterError(f"{path} kept changing under concurrent writers; gave up after 10 attempts")
        self._op("ensure_path", zp.CONFIG_CHANGES)
        self._op(
            "create",
            zp.CONFIG_CHANGE_PREFIX,
            zp.encode_config_change(zp.entity_path(entity_type, entity_name)),
            sequence=True,
        )

    def _decode(self, fn, *args):
        try:
            return fn(*args)
        except (ValueError, KeyError, TypeError) as e:
            raise ClusterError(f"unreadable znode in ZooKeeper at {self.zookeeper}: {e}") from None


class _Znodes:
    """kazoo's znode calls (get, set, create, ...) through the backend's ``_op``: each waits at
    most the timeout, and connection or ACL failures become kadmin's errors."""

    def __init__(self, backend: ZooKeeperBackend):
        self._backend = backend

    def __getattr__(self, name: str):
        return lambda *args, **kwargs: self._backend._op(name, *args, **kwargs)


def _entity(resource: ConfigResource) -> tuple[str, str]:
    if resource.type == ConfigResourceType.TOPIC:
        return zp.TOPIC_CONFIG_TYPE, resource.name
    if resource.name and not resource.name.isdigit():
        raise InputError(f"broker config resource {resource.name!r}: expected a broker id or the cluster default")
    return zp.BROKER_CONFIG_TYPE, resource.name or zp.DEFAULT_BROKER


def _entry(name: str, value: str, source: ConfigSource) -> ConfigEntry:
    """Like DescribeConfigs: a sensitive value (passwords, JAAS) is never returned."""
    from kadmin.config import is_sensitive

    if is_sensitive(name):
        return ConfigEntry(name, None, source, sensitive=True)
    return ConfigEntry(name, value, source)


class KafkaNotZooKeeper(Exception):
    """The --zookeeper address is a Kafka broker's."""


PROBE_AFTER = 1.0  # seconds without a ZooKeeper session before the servers are asked if they are Kafka


def _start(client, hosts: str, timeout: float, *, probe: bool) -> None:
    """``client.start(timeout)``, but when no session comes within PROBE_AFTER seconds, the
    servers are asked Kafka's first question (ApiVersions): if every one answers it, they are
    Kafka brokers, said at once (KafkaNotZooKeeper) instead of after the whole timeout (a Kafka
    listener closes the connection at ZooKeeper's ConnectRequest, and kazoo retries until then).
    A healthy ZooKeeper gives a session in milliseconds and is never asked."""
    from kazoo.handlers.threading import KazooTimeoutError

    started = time.monotonic()
    live = client.start_async()
    probed = not probe
    while not live.wait(0.1):
        waited = time.monotonic() - started
        if waited >= timeout:
            raise KazooTimeoutError("Connection time-out")
        if not probed and waited >= min(PROBE_AFTER, timeout / 2):
            probed = True
            kafka = _kafka_listeners(hosts, max(0.5, min(2.0, timeout - waited)))
            if kafka:
                raise KafkaNotZooKeeper(f"{', '.join(kafka)} answered Kafka's ApiVersions: a Kafka broker")


def _kafka_listeners(hosts: str, timeout: float) -> list[str]:
    """The addresses of ``hosts`` (a ZooKeeper connect string) when every one of them answers
    Kafka's ApiVersions, else []."""
    from kadmin.backends.wire_client import Connection, WireUnavailable
    from kadmin.config import address, zookeeper_hosts

    try:
        addresses, _ = zookeeper_hosts(hosts)  # a host without a port is at 2181, as ZooKeeper's clients read it
    except ValueError:
        return []
    for host, port in addresses:
        try:
            Connection(host, port, timeout, "kadmin").close()
        except (WireUnavailable, OSError):
            return []
    return [address(h, p) for h, p in addresses]


def _connect(hosts: str, timeout: float, security: ZkSecurity, target_where: str = "--zookeeper"):
    """A started kazoo client, or ConnectionFailed within ``timeout`` seconds. Credentials go
    with the session; with zookeeper.set.acl, znodes created without an explicit ACL get Kafka's
    secure default (creator all, world read)."""
    import logging

    from kazoo.client import KazooClient
    from kazoo.exceptions import AuthFailedError
    from kazoo.handlers.threading import KazooTimeoutError

    # kazoo logs every failed connection attempt; kadmin reports the outcome once. Left alone
    # when logging was configured (--debug).
    if not logging.getLogger().handlers:
        logging.getLogger("kazoo.client").setLevel(logging.CRITICAL)
    try:
        client = KazooClient(
            hosts=hosts,
            timeout=min(timeout, 10.0),
            connection_retry={"max_tries": -1, "max_delay": 1},
            auth_data=auth_data(security) or None,
            default_acl=acls_for(security, "/"),
            **tls_options(security),
        )
    except ValueError as e:  # a malformed connect string (kadmin.config refuses the ones it knows first)
        raise InputError(f"invalid ZooKeeper connect string {hosts!r}: {e}") from None
    try:  # the client is stopped and closed whatever ends the start: an error, Ctrl-C, a bug
        try:
            _start(client, hosts, timeout, probe=not security.tls)
        except KafkaNotZooKeeper as e:
            raise ConnectionFailed(
                f"no ZooKeeper at {hosts}: {e}", hint="a Kafka broker's address goes to --bootstrap-server"
            ) from None
        except KazooTimeoutError:
            raise ConnectionFailed(
                f"could not connect to ZooKeeper at {hosts} within {timeout:g}s"
                + (" over TLS" if security.tls else ""),
                hint=f"check the {target_where} host:port (and that the server is up), or use --bootstrap-server"
                if not security.tls
                else "check that the port is the server's secureClientPort and the "
                "zookeeper.ssl.* trust store holds the CA that signed its certificate",
            ) from None
        except AuthFailedError:
            raise AuthenticationError(f"ZooKeeper at {hosts} refused the {AUTH_DIGEST} credentials") from None
        except ValueError as e:  # a malformed connect string
            raise InputError(f"invalid ZooKeeper connect string {hosts!r}: {e}") from None
    except BaseException:
        with suppress(Exception):  # the error that ended the start is the one reported
            client.stop()
        with suppress(Exception):
            client.close()
        raise
    return client
