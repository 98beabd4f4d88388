"""Kafka's ZooKeeper layout: znode paths and their JSON formats, encoded and decoded exactly as
Kafka 2.x-3.9 does (core/src/main/scala/kafka/zk/ZkData.scala). Pure: bytes in, values out.

Kafka writes compact JSON (Jackson): no spaces, keys in the order below. Readers accept every
version Kafka ever wrote (missing keys mean empty).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kadmin.config import address
from kadmin.model import Assignment, Broker, TopicPartition

BROKER_IDS = "/brokers/ids"
TOPICS = "/brokers/topics"
CONTROLLER = "/controller"
CONTROLLER_EPOCH = "/controller_epoch"
CLUSTER_ID = "/cluster/id"
REASSIGN_PARTITIONS = "/admin/reassign_partitions"
DELETE_TOPICS = "/admin/delete_topics"
CONFIG = "/config"
CONFIG_CHANGES = "/config/changes"
CONFIG_CHANGE_PREFIX = "/config/changes/config_change_"
TOPIC_CONFIG_TYPE = "topics"
BROKER_CONFIG_TYPE = "brokers"
DEFAULT_BROKER = "<default>"  # ConfigEntityName.Default


def broker_path(broker_id: int) -> str:
    return f"{BROKER_IDS}/{broker_id}"


def topic_path(topic: str) -> str:
    return f"{TOPICS}/{topic}"


def partition_state_path(topic: str, partition: int) -> str:
    return f"{TOPICS}/{topic}/partitions/{partition}/state"


def config_path(entity_type: str, entity_name: str) -> str:
    return f"{CONFIG}/{entity_type}/{entity_name}"


def entity_path(entity_type: str, entity_name: str) -> str:
    """The ``entity_path`` of a config change notification: "topics/foo", "brokers/1",
    "brokers/<default>"."""
    return f"{entity_type}/{entity_name}"


def encode(obj: object) -> bytes:
    """Compact JSON as Kafka's Json.encodeAsBytes writes it."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _load(data: bytes | None, what: str) -> dict:
    if not data:
        raise ValueError(f"{what}: empty znode")
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{what}: invalid JSON ({e})") from None
    if not isinstance(obj, dict):
        raise ValueError(f"{what}: expected a JSON object")
    return obj


# --- /brokers/ids/<id> ---------------------------------------------------------------------


@dataclass(frozen=True)
class EndPoint:
    listener: str  # listener name, e.g. "PLAINTEXT", "INTERNAL"
    security_protocol: str  # PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL
    host: str
    port: int

    @property
    def address(self) -> str:
        return address(self.host, self.port)


@dataclass(frozen=True)
class BrokerRegistration:
    """A broker's ephemeral registration znode (BrokerIdZNode, versions 1 to 5)."""

    id: int
    endpoints: tuple[EndPoint, ...]
    rack: str | None = None
    version: int = 5

    def endpoint(self, security_protocol: str) -> EndPoint | None:
        for ep in self.endpoints:
            if ep.security_protocol == security_protocol.upper():
                return ep
        return None

    def to_broker(self, security_protocol: str = "PLAINTEXT") -> Broker:
        ep = self.endpoint(security_protocol) or (self.endpoints[0] if self.endpoints else None)
        return Broker(self.id, ep.host if ep else "", ep.port if ep else -1, self.rack)


def decode_broker(broker_id: int, data: bytes) -> BrokerRegistration:
    obj = _load(data, f"{broker_path(broker_id)}")
    version = int(obj.get("version", 1))
    endpoints: list[EndPoint] = []
    if version <= 1 or not obj.get("endpoints"):
        if obj.get("host") is not None and int(obj.get("port", -1)) >= 0:
            endpoints.append(EndPoint("PLAINTEXT", "PLAINTEXT", obj["host"], int(obj["port"])))
    else:
        protocol_map = obj.get("listener_security_protocol_map") or {}
        for text in obj["endpoints"]:
            listener, _, address = text.partition("://")
            host, _, port = address.rpartition(":")
            host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
            protocol = protocol_map.get(listener, listener)  # default: the name is the protocol
            endpoints.append(EndPoint(listener, protocol.upper(), host, int(port)))
    rack = obj.get("rack") if version >= 3 else None
    return BrokerRegistration(broker_id, tuple(endpoints), rack, version)


def encode_broker(reg: BrokerRegistration, timestamp_ms: int, jmx_port: int = -1) -> bytes:
    """A version 5 registration as a Kafka 3.x broker writes it (used by tests and the sandbox)."""
    first = reg.endpoints[0]
    obj: dict = {
        "features": {},
        "listener_security_protocol_map": {ep.listener: ep.security_protocol for ep in reg.endpoints},
        "endpoints": [f"{ep.listener}://{ep.address}" for ep in reg.endpoints],
        "jmx_port": jmx_port,
        "port": first.port,
        "host": first.host,
        "version": 5,
        "timestamp": str(timestamp_ms),
    }
    if reg.rack is not None:
        obj["rack"] = reg.rack
    return encode(obj)


# --- /brokers/topics/<t> and partition state ---------------------------------------------


@dataclass(frozen=True)
class TopicAssignment:
    """The topic znode: replicas per partition plus, while reassigning (v2+), adding/removing."""

    topic: str
    partitions: Mapping[int, tuple[int, ...]]
    adding: Mapping[int, tuple[int, ...]]
    removing: Mapping[int, tuple[int, ...]]
    topic_id: str | None = None


def _replica_map(obj: object) -> dict[int, tuple[int, ...]]:
    if not isinstance(obj, dict):
        return {}
    return {int(p): tuple(int(b) for b in replicas) for p, replicas in obj.items()}


def decode_topic(topic: str, data: bytes) -> TopicAssignment:
    obj = _load(data, topic_path(topic))
    return TopicAssignment(
        topic,
        _replica_map(obj.get("partitions")),
        {p: r for p, r in _replica_map(obj.get("adding_replicas")).items() if r},
        {p: r for p, r in _replica_map(obj.get("removing_replicas")).items() if r},
        obj.get("topic_id"),
    )


def encode_topic(t: TopicAssignment) -> bytes:
    """Version 3, as TopicZNode.encode writes it (adding/removing list only non-empty entries)."""
    obj: dict = {
        "partitions": {str(p): list(r) for p, r in sorted(t.partitions.items())},
        "adding_replicas": {str(p): list(r) for p, r in sorted(t.adding.items()) if r},
        "removing_replicas": {str(p): list(r) for p, r in sorted(t.removing.items()) if r},
        "version": 3,
    }
    if t.topic_id:
        obj["topic_id"] = t.topic_id
    return encode(obj)


@dataclass(frozen=True)
class LeaderAndIsr:
    leader: int
    leader_epoch: int
    controller_epoch: int
    isr: tuple[int, ...]


def decode_partition_state(data: bytes, where: str = "partition state") -> LeaderAndIsr:
    obj = _load(data, where)
    return LeaderAndIsr(
        int(obj.get("leader", -1)),
        int(obj.get("leader_epoch", 0)),
        int(obj.get("controller_epoch", 0)),
        tuple(int(b) for b in obj.get("isr") or ()),
    )


def encode_partition_state(s: LeaderAndIsr) -> bytes:
    return encode(
        {
            "version": 1,
            "leader": s.leader,
            "leader_epoch": s.leader_epoch,
            "controller_epoch": s.controller_epoch,
            "isr": list(s.isr),
        }
    )


# --- /controller, /cluster/id ------------------------------------------------------------


def decode_controller(data: bytes) -> int:
    return int(_load(data, CONTROLLER)["brokerid"])


def encode_controller(broker_id: int, timestamp_ms: int) -> bytes:
    return encode({"version": 2, "brokerid": broker_id, "timestamp": str(timestamp_ms), "kraftControllerEpoch": -1})


def decode_cluster_id(data: bytes) -> str:
    return str(_load(data, CLUSTER_ID)["id"])


def encode_cluster_id(cluster_id: str) -> bytes:
    return encode({"version": "1", "id": cluster_id})


# --- /admin/reassign_partitions ----------------------------------------------------------


def encode_reassignment(assignments: Iterable[Assignment]) -> bytes:
    """Only topic, partition and replicas: a Kafka 3.x controller ignores a node whose entries
    carry anything else (``log_dirs``), leaving it stuck (KAFKA-FACTS.md)."""
    return encode(
        {
            "version": 1,
            "partitions": [
                {"topic": a.topic, "partition": a.partition, "replicas": list(a.replicas)} for a in assignments
            ],
        }
    )


def decode_reassignment(data: bytes) -> dict[TopicPartition, tuple[int, ...]]:
    """Target replicas per partition. ValueError when the controller would reject the node too:
    Kafka parses it strictly (LegacyPartitionAssignment), so unknown keys make it invalid."""
    obj = _load(data, REASSIGN_PARTITIONS)
    if set(obj) - {"version", "partitions"}:
        raise ValueError(f"{REASSIGN_PARTITIONS}: unexpected keys {sorted(set(obj) - {'version', 'partitions'})}")
    out: dict[TopicPartition, tuple[int, ...]] = {}
    for i, entry in enumerate(obj.get("partitions") or []):
        if not isinstance(entry, dict) or set(entry) != {"topic", "partition", "replicas"}:
            raise ValueError(f"{REASSIGN_PARTITIONS}: partitions[{i}] must have exactly topic, partition, replicas")
        out[TopicPartition(str(entry["topic"]), int(entry["partition"]))] = tuple(int(b) for b in entry["replicas"])
    return out


# --- /config -----------------------------------------------------------------------------


def decode_config(data: bytes | None, where: str = "config") -> dict[str, str]:
    if not data:
        return {}
    config = _load(data, where).get("config") or {}
    return {str(k): str(v) for k, v in config.items()}


def encode_config(config: Mapping[str, str]) -> bytes:
    return encode({"version": 1, "config": dict(config)})


def encode_config_change(entity: str) -> bytes:
    return encode({"version": 2, "entity_path": entity})
