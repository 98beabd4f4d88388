"""Handlers: ApiVersions, Metadata, DescribeCluster, ListOffsets, and SaslHandshake and
SaslAuthenticate where no login is under way.

Each handler takes (engine, broker_id, version, request) and returns a kafka-python response
object; the wire server encodes it at the request's version.
"""

from __future__ import annotations

from kadmin.sandbox import protocol as P
from kadmin.sandbox.cluster import MESSAGE_SIZE
from kadmin.sandbox.lag import partition_view

LEADER_NOT_AVAILABLE = 5
MISMATCHED_ENDPOINT_TYPE = 114


def api_versions_body(error_code: int = P.NONE, version: int = 0, kafka_version=None):
    """The ranges a broker of ``kafka_version`` advertises (None: the default version)."""
    from kafka.protocol.metadata.api_versions import ApiVersionsResponse

    keys = [
        ApiVersionsResponse.ApiVersion(api_key=a.key, min_version=a.advertised[0], max_version=a.max_version)
        for a in sorted(P.served(kafka_version).values(), key=lambda a: a.key)
    ]
    return ApiVersionsResponse(version=version, error_code=error_code, api_keys=keys, throttle_time_ms=0)


def api_versions(engine, broker_id, version, req):
    return api_versions_body(P.NONE, version, engine.cluster.version)


ILLEGAL_SASL_STATE = 34


def sasl_handshake(engine, broker_id, version, req):
    """On a listener without SASL (or after a login): Kafka's KafkaApis.handleSaslHandshakeRequest
    answers ILLEGAL_SASL_STATE and no mechanisms. A SASL listener's login is security.Session's."""
    return P.served(engine.cluster.version)[P.SASL_HANDSHAKE].response(
        version=version, error_code=ILLEGAL_SASL_STATE, mechanisms=[]
    )


def sasl_authenticate(engine, broker_id, version, req):
    """KafkaApis.handleSaslAuthenticateRequest's answer, with its message."""
    fields = {
        "error_code": ILLEGAL_SASL_STATE,
        "error_message": "SaslAuthenticate request received after successful authentication",
        "auth_bytes": b"",
    }
    if version >= 1:
        fields["session_lifetime_ms"] = 0
    return P.served(engine.cluster.version)[P.SASL_AUTHENTICATE].response(version=version, **fields)


def metadata(engine, broker_id, version, req):
    """Answers for all topics are cached until the cluster changes: clients that poll Metadata
    on a 20,000-partition sandbox would otherwise rebuild it every time. A broker whose view of
    a just-finished reassignment lags (``kadmin.sandbox.lag``) answers from that view, uncached."""
    cluster = engine.cluster
    all_topics = req.topics is None or (version == 0 and not req.topics)
    stale = engine.lag.stale_metadata(broker_id) if getattr(engine, "lag", None) is not None else {}
    key = (version, cluster.generation, engine.controller_id())
    if all_topics and not stale:
        cached = engine.metadata_cache.get(key)
        if cached is not None:
            return cached
    response = _metadata(engine, version, req, all_topics, stale)
    if all_topics and not stale:
        engine.metadata_cache = {k: v for k, v in engine.metadata_cache.items() if k[1] == cluster.generation}
        engine.metadata_cache[key] = response
    return response


def _metadata(engine, version, req, all_topics, stale=None):
    from kafka.protocol.metadata.metadata import MetadataResponse as R

    cluster = engine.cluster
    brokers = [
        R.MetadataResponseBroker(node_id=b.id, host=b.host, port=b.port, rack=b.rack)
        for b in sorted(cluster.brokers.values(), key=lambda b: b.id)
        if b.alive
    ]
    if all_topics:
        names = sorted(cluster.topics)
    else:
        names = [t.name for t in req.topics if t.name is not None]
    # Brokers that are up with every directory online hold no offline replica: skip the lookups.
    # KRaft before JBOD: the controller knows nothing of failed directories, so only a stopped
    # (fenced) broker's replicas are offline (KafkaVersion.kraft_log_dir_failure_reaches_controller).
    dirs_unreported = not engine.zookeeper_mode and not cluster.version.kraft_log_dir_failure_reaches_controller
    healthy = {b.id for b in cluster.brokers.values() if b.alive and (dirs_unreported or not b.has_offline_dir())}
    topics = []
    for name in names:
        topic = cluster.topics.get(name)
        if topic is None:
            topics.append(
                R.MetadataResponseTopic(
                    error_code=P.UNKNOWN_TOPIC_OR_PARTITION, name=name, is_internal=False, partitions=[]
                )
            )
            continue
        parts = []
        for p in sorted(topic.partitions.values(), key=lambda p: p.index):
            # a finished move lags per broker (kadmin.sandbox.lag); a started one in ZooKeeper mode
            replicas, isr, leader, epoch = (
                partition_view(p, stale) if stale and p.tp in stale else p.metadata_view(cluster.now)
            )
            offline = [b for b in replicas if b not in healthy and not cluster.replica_online(p.tp, b)]
            parts.append(
                R.MetadataResponseTopic.MetadataResponsePartition(
                    error_code=LEADER_NOT_AVAILABLE if leader == -1 else P.NONE,
                    partition_index=p.index,
                    leader_id=leader,
                    leader_epoch=epoch,
                    replica_nodes=list(replicas),
                    isr_nodes=list(isr),
                    offline_replicas=offline,
                )
            )
        topics.append(
            R.MetadataResponseTopic(
                error_code=P.NONE, name=name, topic_id=topic.topic_id, is_internal=False, partitions=parts
            )
        )
    return R(
        version=version,
        throttle_time_ms=0,
        brokers=brokers,
        cluster_id=cluster.cluster_id,
        controller_id=engine.controller_id(),
        topics=topics,
        error_code=P.NONE,
    )


def describe_cluster(engine, broker_id, version, req):
    from kafka.protocol.admin.cluster import DescribeClusterResponse as R

    cluster = engine.cluster
    if version >= 1 and req.endpoint_type not in (None, 1):
        return R(
            version=version,
            error_code=MISMATCHED_ENDPOINT_TYPE,
            error_message="The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER",
            endpoint_type=1,
            cluster_id=cluster.cluster_id,
            controller_id=-1,
            brokers=[],
        )
    brokers = [
        R.DescribeClusterBroker(broker_id=b.id, host=b.host, port=b.port, rack=b.rack, is_fenced=False)
        for b in sorted(cluster.brokers.values(), key=lambda b: b.id)
        if b.alive
    ]
    return R(
        version=version,
        throttle_time_ms=0,
        error_code=P.NONE,
        error_message=None,
        endpoint_type=1,
        cluster_id=cluster.cluster_id,
        controller_id=engine.controller_id(),
        brokers=brokers,
    )


def list_offsets(engine, broker_id, version, req):
    from kafka.protocol.consumer.offsets import ListOffsetsResponse as R

    cluster = engine.cluster
    topics = []
    for t in req.topics:
        parts = []
        for rp in t.partitions:
            p = cluster.partition_by(t.name, rp.partition_index)
            code, offset, ts, epoch = P.NONE, -1, -1, -1
            broker = cluster.brokers.get(broker_id)
            d = broker.dir_of(p.tp) if p is not None and broker is not None else None
            if p is None:
                code = P.UNKNOWN_TOPIC_OR_PARTITION
            elif d is not None and not d.online:
                # Its replica here is in a failed directory (HostedPartition.Offline): Kafka's
                # ReplicaManager.fetchOffsetForTimestamp answers KAFKA_STORAGE_ERROR before asking
                # who leads, so a leader that stays on it (3.3 KRaft) serves no offsets.
                code = P.KAFKA_STORAGE_ERROR
            elif p.leader != broker_id:
                code = P.NOT_LEADER_OR_FOLLOWER
            else:
                log = cluster.leader_log(p)
                leo = log.end_offset if log else 0
                epoch = p.leader_epoch
                if rp.timestamp == -1:  # latest: the high watermark
                    offset = leo
                elif rp.timestamp in (-2, -4):  # earliest, earliest local
                    offset = 0
                elif rp.timestamp == -3:  # max timestamp
                    offset, ts = (leo - 1, engine.wall_ms(cluster.now)) if leo else (-1, -1)
                elif rp.timestamp >= 0:
                    offset, ts = _offset_for_time(engine, p, rp.timestamp, leo)
            parts.append(
                R.ListOffsetsTopicResponse.ListOffsetsPartitionResponse(
                    partition_index=rp.partition_index, error_code=code, timestamp=ts, offset=offset, leader_epoch=epoch
                )
            )
        topics.append(R.ListOffsetsTopicResponse(name=t.name, partitions=parts))
    return R(version=version, throttle_time_ms=0, topics=topics)


def _offset_for_time(engine, p, timestamp_ms: int, leo: int) -> tuple[int, int]:
    """Records arrive at a steady rate from creation, so the first offset at or after a
    timestamp follows from the rate; -1 when no record is that new."""
    t = (timestamp_ms - engine.start_wall_ms) / 1000.0
    if t <= p.created_at:
        return (0, engine.wall_ms(p.created_at)) if leo else (-1, -1)
    if not p.produce_rate:
        return -1, -1
    offset = int(p.initial_size + p.produce_rate * (t - p.created_at)) // MESSAGE_SIZE
    return (offset, timestamp_ms) if offset < leo else (-1, -1)
