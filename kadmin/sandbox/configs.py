"""Topic and broker configs as a Kafka broker stores, validates and describes them.

Sources follow DescribeConfigs' ConfigSource: 1 topic, 2 dynamic broker, 3 dynamic default broker,
4 static broker (server.properties), 5 default. Throttle rates are dynamic-only quota configs: they
have no default and are listed only when set.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection
from dataclasses import dataclass

from kadmin.model import (
    FOLLOWER_RATE,
    FOLLOWER_REPLICAS,
    LEADER_RATE,
    LEADER_REPLICAS,
    LOG_DIR_RATE,
    parse_replica_list,
)
from kadmin.sandbox import protocol as P
from kadmin.sandbox.cluster import Cluster

TOPIC_SOURCE = 1
DYNAMIC_BROKER = 2
DYNAMIC_DEFAULT_BROKER = 3
STATIC_BROKER = 4
DEFAULT = 5

RESOURCE_TOPIC = 2
RESOURCE_BROKER = 4

# DescribeConfigs ConfigType
BOOLEAN, STRING, INT, SHORT, LONG, DOUBLE, LIST = 1, 2, 3, 4, 5, 6, 7

TOPIC_DEFAULTS: dict[str, tuple[str, int]] = {
    "cleanup.policy": ("delete", LIST),
    "compression.type": ("producer", STRING),
    "delete.retention.ms": ("86400000", LONG),
    "file.delete.delay.ms": ("60000", LONG),
    "flush.messages": ("9223372036854775807", LONG),
    "flush.ms": ("9223372036854775807", LONG),
    FOLLOWER_REPLICAS: ("", LIST),
    "index.interval.bytes": ("4096", INT),
    LEADER_REPLICAS: ("", LIST),
    "max.compaction.lag.ms": ("9223372036854775807", LONG),
    "max.message.bytes": ("1048588", INT),
    "message.timestamp.type": ("CreateTime", STRING),
    "min.cleanable.dirty.ratio": ("0.5", DOUBLE),
    "min.compaction.lag.ms": ("0", LONG),
    "min.insync.replicas": ("1", INT),
    "preallocate": ("false", BOOLEAN),
    "retention.bytes": ("-1", LONG),
    "retention.ms": ("604800000", LONG),
    "segment.bytes": ("1073741824", INT),
    "segment.index.bytes": ("10485760", INT),
    "segment.jitter.ms": ("0", LONG),
    "segment.ms": ("604800000", LONG),
    "unclean.leader.election.enable": ("false", BOOLEAN),
}

BROKER_DEFAULTS: dict[str, tuple[str, int]] = {
    "auto.leader.rebalance.enable": ("true", BOOLEAN),
    "background.threads": ("10", INT),
    "log.cleaner.threads": ("1", INT),
    "log.retention.hours": ("168", INT),
    "log.segment.bytes": ("1073741824", INT),
    "message.max.bytes": ("1048588", INT),
    "min.insync.replicas": ("1", INT),
    "num.io.threads": ("8", INT),
    "num.network.threads": ("3", INT),
    "num.replica.alter.log.dirs.threads": ("", INT),
    "num.replica.fetchers": ("1", INT),
    "replica.lag.time.max.ms": ("30000", LONG),
    "unclean.leader.election.enable": ("false", BOOLEAN),
}

# Dynamic-only quota configs (DynamicConfig.Broker): no default, listed only when set.
BROKER_RATES = (LEADER_RATE, FOLLOWER_RATE, LOG_DIR_RATE)
READ_ONLY = frozenset(
    {
        "broker.id",
        "node.id",
        "log.dirs",
        "metadata.log.dir",
        "process.roles",
        "zookeeper.connect",
        "broker.rack",
        "listeners",
        "advertised.listeners",
        "controller.quorum.voters",
    }
)
_REPLICA_ENTRY = re.compile(r"^\s*\d+\s*:\s*\d+\s*$")


@dataclass(frozen=True)
class Entry:
    name: str
    value: str | None
    source: int
    read_only: bool
    config_type: int
    synonyms: tuple[tuple[str, str | None, int], ...] = ()


def static_broker_configs(
    cluster: Cluster, broker_id: int, log_dirs: list[str], protocol: str = "PLAINTEXT"
) -> dict[str, str]:
    """What server.properties would say for this broker (its one listener named after its
    security protocol, as Kafka names listeners by default)."""
    b = cluster.brokers[broker_id]
    static = {
        "log.dirs": ",".join(log_dirs),
        "listeners": f"{protocol}://{b.host}:{b.port}",
        "advertised.listeners": f"{protocol}://{b.host}:{b.port}",
        "num.partitions": "1",
        "default.replication.factor": str(min(3, len(cluster.brokers))),
    }
    if cluster.mode == "zookeeper":
        static["broker.id"] = str(broker_id)
    else:
        static["node.id"] = str(broker_id)
        static["process.roles"] = "broker"
        # The metadata log in a directory of its own, beside the log dirs: unset, it would be the
        # first log dir (KafkaConfig.metadataLogDir), whose failure halts a 3.7+ KRaft broker
        # (ReplicaManager.handleLogDirFailure: "the metadata log dir ... has failed").
        static["metadata.log.dir"] = posixpath.join(posixpath.dirname(log_dirs[0]), "metadata")
    if b.rack:
        static["broker.rack"] = b.rack
    return static


def validate_topic_config(name: str, value: str | None) -> str | None:
    """Why a topic config cannot be set, or None."""
    if name not in TOPIC_DEFAULTS:
        return f"Unknown topic config name: {name}"
    if value is None:
        return None
    if name in (LEADER_REPLICAS, FOLLOWER_REPLICAS):
        if value.strip() in ("", "*"):
            return None
        if not all(_REPLICA_ENTRY.match(e) for e in value.split(",")):
            return (
                f"Invalid value {value} for configuration {name}: must be the literal '*' or a "
                "list of replicas in the following format: "
                "[partitionId]:[brokerId],[partitionId]:[brokerId],..."
            )
    elif TOPIC_DEFAULTS[name][1] in (INT, LONG):
        try:
            int(value)
        except ValueError:
            return f"Invalid value {value} for configuration {name}: Not a number of type {'INT' if TOPIC_DEFAULTS[name][1] == INT else 'LONG'}"
    return None


def validate_broker_config(name: str, value: str | None) -> tuple[int, str] | None:
    """(error code, message) when a dynamic broker config cannot be set, or None."""
    if name in READ_ONLY or name in ("num.partitions", "default.replication.factor"):
        return P.INVALID_REQUEST, f"Cannot update these configs dynamically: Set({name})"
    if value is not None and name in BROKER_RATES:
        # Seen on 3.3.1 and 4.3.1 alike: the broker's config parsing rejects these as a bad
        # request (INVALID_REQUEST), not INVALID_CONFIG as a topic config's bad value is.
        try:
            rate = int(value)
        except ValueError:
            return P.INVALID_REQUEST, f"Invalid value {value} for configuration {name}: Not a number of type LONG"
        if rate < 0:
            return P.INVALID_REQUEST, f"Invalid value {value} for configuration {name}: Value must be at least 0"
    return None


def is_list_config(name: str) -> bool:
    return TOPIC_DEFAULTS.get(name, ("", STRING))[1] == LIST


def describe_topic(cluster: Cluster, topic: str, keys: Collection[str] | None = None) -> list[Entry]:
    """The topic's configs (only ``keys``, when given: a request naming keys gets only those)."""
    dynamic = cluster.topics[topic].configs
    out = []
    names = _SORTED_TOPIC_CONFIGS if keys is None else sorted(k for k in set(keys) if k in TOPIC_DEFAULTS)
    for name in names:
        default, ctype = TOPIC_DEFAULTS[name]
        syn = []
        if name in dynamic:
            syn.append((name, dynamic[name], TOPIC_SOURCE))
        syn.append((name, default, DEFAULT))
        value, source = (dynamic[name], TOPIC_SOURCE) if name in dynamic else (default, DEFAULT)
        out.append(Entry(name, value, source, False, ctype, tuple(syn)))
    return out


_SORTED_TOPIC_CONFIGS = sorted(TOPIC_DEFAULTS)


def describe_broker(cluster: Cluster, resource_name: str, static: dict[str, str]) -> list[Entry]:
    """Broker "<id>": every config with its effective source; "" (the default resource): only the
    cluster-wide dynamic defaults, as Kafka lists them."""
    default_dyn = cluster.broker_configs.get("", {})
    if resource_name == "":
        return [
            Entry(k, v, DYNAMIC_DEFAULT_BROKER, False, _broker_type(k), ((k, v, DYNAMIC_DEFAULT_BROKER),))
            for k, v in sorted(default_dyn.items())
        ]
    own = cluster.broker_configs.get(resource_name, {})
    names = set(BROKER_DEFAULTS) | set(static) | set(default_dyn) | set(own)
    out = []
    for name in sorted(names):
        syn: list[tuple[str, str | None, int]] = []
        if name in own:
            syn.append((name, own[name], DYNAMIC_BROKER))
        if name in default_dyn:
            syn.append((name, default_dyn[name], DYNAMIC_DEFAULT_BROKER))
        if name in static:
            syn.append((name, static[name], STATIC_BROKER))
        if name in BROKER_DEFAULTS:
            syn.append((name, BROKER_DEFAULTS[name][0] or None, DEFAULT))
        _, value, source = syn[0]
        out.append(Entry(name, value, source, name in READ_ONLY, _broker_type(name), tuple(syn)))
    return out


def _broker_type(name: str) -> int:
    if name in BROKER_RATES:
        return LONG
    return BROKER_DEFAULTS.get(name, ("", STRING))[1]


# --- throttles, read as ReplicationQuotaManager and the config handlers apply them ---


def broker_rate(cluster: Cluster, broker_id: int, name: str) -> float | None:
    """The effective rate (bytes/s) of a broker quota config, or None when unlimited."""
    for key in (str(broker_id), ""):
        value = cluster.broker_configs.get(key, {}).get(name)
        if value is not None:
            try:
                return float(int(value))
            except ValueError:
                return None
    return None


def retention_bytes(cluster: Cluster, topic: str) -> int | None:
    """A topic's size-based retention per partition (``retention.bytes``), None when unlimited.
    Kafka deletes whole segments, so a log stays up to a segment above it; modelled exactly."""
    t = cluster.topics.get(topic)
    value = t.configs.get("retention.bytes") if t is not None else None
    try:
        limit = int(value) if value is not None else -1
    except ValueError:
        return None
    return limit if limit >= 0 else None


def is_throttled(cluster: Cluster, topic: str, list_name: str, partition: int, broker_id: int) -> bool:
    """Whether ``partition:broker_id`` (or ``*``) is in the topic's throttled-replicas list."""
    t = cluster.topics.get(topic)
    if t is None:
        return False
    entries = parse_replica_list(t.configs.get(list_name))
    if "*" in entries:
        return True
    return any(_matches(e, partition, broker_id) for e in entries)


def _matches(entry: str, partition: int, broker_id: int) -> bool:
    p, _, b = entry.partition(":")
    try:
        return int(p) == partition and int(b) == broker_id
    except ValueError:
        return False
