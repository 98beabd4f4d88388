"""Handlers: CreateTopics, DeleteTopics, ElectLeaders, AlterPartitionReassignments,
ListPartitionReassignments. The controller's rules live in ``controller``; these translate."""

from __future__ import annotations

import re

from kadmin.model import TopicPartition
from kadmin.sandbox import configs, controller
from kadmin.sandbox import protocol as P
from kadmin.sandbox.controller import ControllerError

_LEGAL_TOPIC = re.compile(r"^[a-zA-Z0-9._-]+$")
UNKNOWN_TOPIC_ID = 100
NOT_CONTROLLER_MESSAGE = "This is not the correct controller for this cluster."  # Errors.NOT_CONTROLLER


def _not_the_controller(engine, broker_id: int) -> bool:
    """ZooKeeper mode: a broker hands ElectLeaders, AlterPartitionReassignments and
    ListPartitionReassignments to its own KafkaController, which answers NOT_CONTROLLER unless it
    is the active one (brokers forward to the controller only under KRaft, or a ZooKeeper
    migration). Clients send them to the controller Metadata names, which is the one compared."""
    return engine.zookeeper_mode and broker_id != engine.controller_id()


def _validate_new_topic(engine, t) -> dict[int, list[int]]:
    """The assignment for a CreateTopics entry, or ControllerError."""
    cluster = engine.cluster
    name = t.name
    if not name or len(name) > 249 or not _LEGAL_TOPIC.match(name) or name in (".", ".."):
        raise ControllerError(P.INVALID_TOPIC_EXCEPTION, f"Topic name is invalid: '{name}'")
    if name in cluster.topics:
        raise ControllerError(P.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
    for c in t.configs or []:
        why = configs.validate_topic_config(c.name, c.value)
        if why:
            raise ControllerError(P.INVALID_CONFIG, why)
    if t.assignments:
        if t.num_partitions != -1 or t.replication_factor != -1:
            raise ControllerError(
                P.INVALID_REQUEST,
                "Both numPartitions or replicationFactor and replicasAssignments "
                "were set. Both cannot be used at the same time.",
            )
        assignment = {a.partition_index: list(a.broker_ids) for a in t.assignments}
        if sorted(assignment) != list(range(len(assignment))):
            raise ControllerError(
                P.INVALID_REPLICA_ASSIGNMENT, "Partitions should be a consecutive 0-based integer sequence"
            )
        sizes = {len(r) for r in assignment.values()}
        if len(sizes) > 1:
            raise ControllerError(
                P.INVALID_REPLICA_ASSIGNMENT,
                "All partitions in the manual partition assignment must have the same number of replicas.",
            )
        for replicas in assignment.values():
            controller.validate_assignment(cluster, replicas, require_live=engine.zookeeper_mode)
        return assignment
    partitions = t.num_partitions if t.num_partitions != -1 else 1
    rf = t.replication_factor if t.replication_factor != -1 else min(3, len(cluster.brokers))
    live = cluster.live_brokers()
    if rf > len(live):
        raise ControllerError(
            P.INVALID_REPLICATION_FACTOR,
            f"Unable to replicate the partition {rf} time(s): The target replication factor of {rf} "
            f"cannot be reached because only {len(live)} broker(s) are registered.",
        )
    return controller.place_replicas(cluster, partitions, rf, live=live)


def create_topics(engine, broker_id, version, req):
    from kafka.protocol.admin.topics import CreateTopicsResponse as R

    results = []
    for t in req.topics:
        try:
            assignment = _validate_new_topic(engine, t)
        except ControllerError as e:
            results.append(
                R.CreatableTopicResult(
                    name=t.name,
                    error_code=e.code,
                    error_message=e.message or None,
                    num_partitions=-1,
                    replication_factor=-1,
                    configs=None,
                )
            )
            continue
        cfg = {c.name: c.value for c in t.configs or []}
        topic_id = None
        if not req.validate_only:
            topic = controller.create_topic(engine.cluster, t.name, assignment, cfg)
            topic_id = topic.topic_id
        described = []
        if not req.validate_only:
            described = [
                R.CreatableTopicResult.CreatableTopicConfigs(
                    name=e.name, value=e.value, read_only=e.read_only, config_source=e.source, is_sensitive=False
                )
                for e in configs.describe_topic(engine.cluster, t.name)
            ]
        results.append(
            R.CreatableTopicResult(
                name=t.name,
                topic_id=topic_id,
                error_code=P.NONE,
                error_message=None,
                num_partitions=len(assignment),
                replication_factor=len(assignment[0]),
                configs=described,
            )
        )
    return R(version=version, throttle_time_ms=0, topics=results)


def delete_topics(engine, broker_id, version, req):
    from kafka.protocol.admin.topics import DeleteTopicsResponse as R

    cluster = engine.cluster
    if version >= 6:
        wanted = [(t.name, t.topic_id) for t in req.topics]
    else:
        wanted = [(n, None) for n in req.topic_names]
    out = []
    for name, topic_id in wanted:
        if name is None and topic_id is not None:
            name = next((t.name for t in cluster.topics.values() if t.topic_id == topic_id), None)
            if name is None:
                out.append(
                    R.DeletableTopicResult(
                        name=None,
                        topic_id=topic_id,
                        error_code=UNKNOWN_TOPIC_ID,
                        error_message="This server does not host this topic ID.",
                    )
                )
                continue
        topic = cluster.topics.get(name)
        if topic is None:
            out.append(
                R.DeletableTopicResult(
                    name=name,
                    topic_id=topic_id,
                    error_code=P.UNKNOWN_TOPIC_OR_PARTITION,
                    error_message="This server does not host this topic-partition.",
                )
            )
            continue
        tid = topic.topic_id
        controller.delete_topic(cluster, name)
        out.append(R.DeletableTopicResult(name=name, topic_id=tid, error_code=P.NONE, error_message=None))
    return R(version=version, throttle_time_ms=0, responses=out)


def elect_leaders(engine, broker_id, version, req):
    from kafka.protocol.admin.topics import ElectLeadersResponse as R

    cluster = engine.cluster
    election_type = req.election_type if version >= 1 else 0
    explicit = req.topic_partitions is not None
    if explicit:
        wanted = [(t.topic, p) for t in req.topic_partitions for p in t.partitions]
    else:
        wanted = [(p.topic, p.index) for p in cluster.all_partitions()]
    not_controller = _not_the_controller(engine, broker_id)
    by_topic: dict[str, list] = {}
    for topic, index in wanted:
        p = cluster.partition_by(topic, index)
        if not_controller:  # every partition asked for (all of them for null), without a message
            code, msg = P.NOT_CONTROLLER, None
        elif p is None:
            code, msg = P.UNKNOWN_TOPIC_OR_PARTITION, "The partition does not exist."
        else:
            code = (controller.elect_preferred if election_type == 0 else controller.elect_unclean)(cluster, p)
            msg = {
                P.NONE: None,
                P.ELECTION_NOT_NEEDED: "Leader election not needed for topic partition.",
                P.PREFERRED_LEADER_NOT_AVAILABLE: f"Failed to elect leader for partition {topic}-{index} under strategy PREFERRED",
                P.ELIGIBLE_LEADERS_NOT_AVAILABLE: f"Failed to elect leader for partition {topic}-{index} under strategy UNCLEAN",
            }.get(code)
        # All partitions (null): Kafka leaves out only those needing no election; failures stay.
        if explicit or code != P.ELECTION_NOT_NEEDED:
            by_topic.setdefault(topic, []).append(
                R.ReplicaElectionResult.PartitionResult(partition_id=index, error_code=code, error_message=msg)
            )
    results = [R.ReplicaElectionResult(topic=t, partition_result=parts) for t, parts in by_topic.items()]
    return R(version=version, throttle_time_ms=0, error_code=P.NONE, replica_election_results=results)


def alter_partition_reassignments(engine, broker_id, version, req):
    from kafka.protocol.admin.topics import AlterPartitionReassignmentsResponse as R

    allow = req.allow_replication_factor_change if version >= 1 else True
    if _not_the_controller(engine, broker_id):
        return R(
            version=version,
            throttle_time_ms=0,
            allow_replication_factor_change=allow,
            error_code=P.NOT_CONTROLLER,
            error_message=NOT_CONTROLLER_MESSAGE,
            responses=[],
        )
    topics, started = [], []
    for t in req.topics:
        parts = []
        for rp in t.partitions:
            code, msg = P.NONE, None
            tp = TopicPartition(t.name, rp.partition_index)
            try:
                controller.alter_reassignment(
                    engine.cluster, tp, None if rp.replicas is None else list(rp.replicas), allow_rf_change=allow
                )
                started.append(tp)
            except ControllerError as e:
                code, msg = e.code, e.message or None
            parts.append(
                R.ReassignableTopicResponse.ReassignablePartitionResponse(
                    partition_index=rp.partition_index, error_code=code, error_message=msg
                )
            )
        topics.append(R.ReassignableTopicResponse(name=t.name, partitions=parts))
    if engine.zk is not None and started:
        engine.zk.reassignment_started(started)
    return R(
        version=version,
        throttle_time_ms=0,
        allow_replication_factor_change=allow,
        error_code=P.NONE,
        error_message=None,
        responses=topics,
    )


def list_partition_reassignments(engine, broker_id, version, req):
    from kafka.protocol.admin.topics import ListPartitionReassignmentsResponse as R

    if _not_the_controller(engine, broker_id):
        return R(
            version=version,
            throttle_time_ms=0,
            error_code=P.NOT_CONTROLLER,
            error_message=NOT_CONTROLLER_MESSAGE,
            topics=[],
        )
    cluster = engine.cluster
    if req.topics is None:
        wanted = [p for p in cluster.all_partitions() if p.reassigning]
    else:
        wanted = []
        for t in req.topics:
            for index in t.partition_indexes:
                p = cluster.partition_by(t.name, index)
                if p is not None and p.reassigning:
                    wanted.append(p)
    by_topic: dict[str, list] = {}
    for p in sorted(wanted, key=lambda p: (p.topic, p.index)):
        by_topic.setdefault(p.topic, []).append(
            R.OngoingTopicReassignment.OngoingPartitionReassignment(
                partition_index=p.index,
                replicas=list(p.replicas),
                adding_replicas=list(p.adding),
                removing_replicas=list(p.removing),
            )
        )
    topics = [R.OngoingTopicReassignment(name=t, partitions=ps) for t, ps in by_topic.items()]
    return R(version=version, throttle_time_ms=0, error_code=P.NONE, error_message=None, topics=topics)
