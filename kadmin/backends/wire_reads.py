"""The read requests of the AdminClient backend sent on kadmin's small client (``wire_client``):
the read paths on a PLAINTEXT cluster, each one request per broker, all brokers at once.

Each raises WireUnavailable on anything but a clean answer; the backend then asks through the
library clients, whose retries and error messages are the ones users see. WireUnavailable is
imported where it is raised: the small client's module (~14 ms with what it loads) is for
PLAINTEXT clusters only, and this module is loaded with the backend.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from kadmin.model import (
    Broker,
    ClusterState,
    ConfigEntry,
    ConfigResource,
    ConfigResourceType,
    ConfigSource,
    PartitionReassignment,
    PartitionState,
    TopicPartition,
)


def log_dirs(wire, ids: Sequence[int]) -> dict:
    return wire.to_each(ids, "DescribeLogDirs", lambda b: {"topics": None})


def cluster(wire) -> ClusterState:
    """describe_cluster from one Metadata request (confluent-kafka sends Metadata and
    DescribeCluster); replicas on brokers not live are offline, as there."""
    from kadmin.backends.wire_client import WireUnavailable

    md = wire.metadata()
    if md.controller_id is None or md.controller_id < 0:
        raise WireUnavailable("no controller in the metadata")
    brokers = {
        b.node_id: Broker(id=b.node_id, host=b.host, port=b.port, rack=b.rack or None)
        for b in sorted(md.brokers, key=lambda b: b.node_id)
    }
    live = set(brokers)
    partitions: dict[TopicPartition, PartitionState] = {}
    for t in md.topics:
        if t.error_code and not t.partitions:
            continue
        for p in t.partitions:
            replicas = tuple(p.replica_nodes)
            partitions[TopicPartition(t.name, p.partition_index)] = PartitionState(
                topic=t.name,
                partition=p.partition_index,
                leader=p.leader_id,
                replicas=replicas,
                isr=tuple(p.isr_nodes),
                # Metadata v5+ lists replicas in offline log directories of live brokers too.
                offline_replicas=tuple(b for b in replicas if b not in live or b in p.offline_replicas),
            )
    return ClusterState(
        cluster_id=md.cluster_id, controller_id=md.controller_id, brokers=brokers, partitions=partitions
    )


def reassignments(wire, tps, timeout: float) -> dict:
    from kadmin.backends.wire_client import WireUnavailable

    topics = None
    if tps is not None:
        grouped: dict[str, list[int]] = defaultdict(list)
        for tp in tps:
            grouped[tp.topic].append(tp.partition)
        topics = [{"name": t, "partition_indexes": sorted(ps)} for t, ps in sorted(grouped.items())]
    md = wire.brokers()
    resp = wire.to_each(
        [md.controller_id],
        "ListPartitionReassignments",
        lambda _: {"timeout_ms": int(timeout * 1000), "topics": topics},
    )[md.controller_id]
    if resp.error_code:
        raise WireUnavailable(f"ListPartitionReassignments error {resp.error_code}")
    out = {}
    for t in resp.topics:
        for p in t.partitions:
            out[TopicPartition(t.name, p.partition_index)] = PartitionReassignment(
                topic=t.name,
                partition=p.partition_index,
                replicas=tuple(p.replicas),
                adding=tuple(p.adding_replicas),
                removing=tuple(p.removing_replicas),
            )
    return dict(sorted(out.items()))


CONFIG_SOURCES = {
    1: ConfigSource.TOPIC,
    2: ConfigSource.DYNAMIC_BROKER,
    3: ConfigSource.DYNAMIC_DEFAULT_BROKER,
    4: ConfigSource.STATIC_BROKER,
    5: ConfigSource.DEFAULT,
}


def configs(wire, resources: Sequence[ConfigResource], keys: list[str] | None) -> dict:
    """DescribeConfigs: a broker's resource to that broker, topics and the default to any broker,
    all at once; the broker filters by ``keys`` (None: every config). Any resource error:
    WireUnavailable (the library path reports it)."""
    from kadmin.backends.wire_client import WireUnavailable

    by_node: dict[int, list[ConfigResource]] = defaultdict(list)
    any_node = None
    for r in resources:
        if r.type is ConfigResourceType.BROKER and r.name != "":
            if not r.name.isdigit():
                raise WireUnavailable(f"broker resource {r.name!r}")
            by_node[int(r.name)].append(r)
        else:
            if any_node is None:
                any_node = min(b.node_id for b in wire.brokers().brokers)
            by_node[any_node].append(r)

    def request(node):
        return {
            "resources": [
                {
                    "resource_type": 2 if r.type is ConfigResourceType.TOPIC else 4,
                    "resource_name": r.name,
                    "configuration_keys": keys,
                }
                for r in by_node[node]
            ],
            "include_synonyms": False,
            "include_documentation": False,
        }

    answers = wire.to_each(sorted(by_node), "DescribeConfigs", request)
    out: dict[ConfigResource, dict[str, ConfigEntry]] = {}
    for node, resp in answers.items():
        if len(resp.results) != len(by_node[node]):
            raise WireUnavailable("DescribeConfigs answered a different number of resources")
        for r, result in zip(by_node[node], resp.results):
            if result.error_code or result.resource_name != r.name:
                raise WireUnavailable(f"DescribeConfigs error {result.error_code}")
            out[r] = {
                c.name: ConfigEntry(
                    c.name,
                    c.value,
                    CONFIG_SOURCES.get(getattr(c, "config_source", 0), ConfigSource.UNKNOWN),
                    bool(c.is_sensitive),
                )
                for c in sorted(result.configs, key=lambda c: c.name)
            }
    return out


def end_offsets(wire, pending: Sequence[TopicPartition]) -> dict:
    """Latest offsets from each partition's leader, all leaders at once."""
    from kadmin.backends.wire_client import WireUnavailable

    leaders = {}
    for t in wire.topics_metadata(sorted({tp.topic for tp in pending})):  # the command's last answer serves
        for p in t.partitions:
            leaders[TopicPartition(t.name, p.partition_index)] = p.leader_id
    by_leader: dict[int, list[TopicPartition]] = defaultdict(list)
    for tp in pending:
        leader = leaders.get(tp, -1)
        if leader is None or leader < 0:
            raise WireUnavailable(f"no leader for {tp}")
        by_leader[leader].append(tp)

    def request(node):
        grouped: dict[str, list[int]] = defaultdict(list)
        for tp in by_leader[node]:
            grouped[tp.topic].append(tp.partition)
        return {
            "replica_id": -1,
            "isolation_level": 0,
            "timeout_ms": int(wire.timeout * 1000),
            "topics": [
                {
                    "name": t,
                    "partitions": [
                        {"partition_index": p, "current_leader_epoch": -1, "timestamp": -1} for p in sorted(ps)
                    ],
                }
                for t, ps in sorted(grouped.items())
            ],
        }

    out: dict[TopicPartition, int] = {}
    for resp in wire.to_each(sorted(by_leader), "ListOffsets", request).values():
        for t in resp.topics:
            for p in t.partitions:
                if p.error_code:
                    raise WireUnavailable(f"ListOffsets error {p.error_code}")
                out[TopicPartition(t.name, p.partition_index)] = p.offset
    if set(out) != set(pending):
        raise WireUnavailable("ListOffsets left partitions out")
    return dict(sorted(out.items()))
