"""Reassignment over ZooKeeper, the pure part: checking a request the way the AdminClient path
would (the ZooKeeper-mode controller checks nothing), listing what is moving from the topic
znodes and ``/admin/reassign_partitions``, and telling a stuck node from a busy one.

Per-partition results use Kafka's error names ("INVALID_REPLICA_ASSIGNMENT: ...") so callers
treat both backends alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from kadmin.backends.zk_paths import REASSIGN_PARTITIONS, TopicAssignment
from kadmin.model import Assignment, PartitionReassignment, TopicPartition

# A node younger than this may simply not have been read by the controller yet.
STUCK_AFTER_SECONDS = 10.0


def check_assignments(
    assignments: Sequence[Assignment],
    topics: Mapping[str, TopicAssignment],
    live_brokers: Iterable[int],
    deleting: Iterable[str] = (),
) -> dict[TopicPartition, str | None]:
    """Per partition None (acceptable) or why not, as a broker answering
    AlterPartitionReassignments in ZooKeeper mode would (its checks plus duplicates in the
    request, which ZooKeeper's JSON would silently collapse)."""
    live = set(live_brokers)
    deleting = set(deleting)
    seen: set[TopicPartition] = set()
    out: dict[TopicPartition, str | None] = {}
    for a in assignments:
        tp = a.tp
        if tp in seen:
            out[tp] = "INVALID_REQUEST: the partition appears more than once"
            continue
        seen.add(tp)
        topic = topics.get(a.topic)
        if topic is None or a.partition not in topic.partitions:
            out[tp] = "UNKNOWN_TOPIC_OR_PARTITION: no such partition"
        elif a.topic in deleting:
            out[tp] = "UNKNOWN_TOPIC_OR_PARTITION: the topic is being deleted"
        elif not a.replicas:
            out[tp] = "INVALID_REPLICA_ASSIGNMENT: the replica list is empty"
        elif len(set(a.replicas)) != len(a.replicas):
            out[tp] = "INVALID_REPLICA_ASSIGNMENT: a broker appears more than once"
        elif any(b < 0 for b in a.replicas):
            out[tp] = "INVALID_REPLICA_ASSIGNMENT: negative broker id"
        else:
            new = [b for b in a.replicas if b not in topic.partitions[a.partition] and b not in live]
            out[tp] = _not_alive(new) if new else None
    return out


def _not_alive(brokers: Sequence[int]) -> str:
    from kadmin.units import plural

    return f"INVALID_REPLICA_ASSIGNMENT: {plural('broker', len(brokers))} {', '.join(map(str, brokers))} not alive"


def reassignment_of(current: Sequence[int], target: Sequence[int], topic: str, partition: int) -> PartitionReassignment:
    """What the controller writes when it starts a reassignment: RS = TRS ++ ORS (distinct,
    target first), adding = TRS - ORS, removing = ORS - TRS (KIP-435)."""
    full = tuple(dict.fromkeys([*target, *current]))
    return PartitionReassignment(
        topic,
        partition,
        full,
        adding=tuple(b for b in target if b not in current),
        removing=tuple(b for b in current if b not in target),
    )


def ongoing_reassignments(
    topics: Mapping[str, TopicAssignment],
    node: Mapping[TopicPartition, Sequence[int]] | None,
) -> dict[TopicPartition, PartitionReassignment]:
    """Reassignments in flight (the topic znodes' adding/removing, written by a Kafka 2.4+
    controller for both APIs) plus those requested in ``/admin/reassign_partitions`` that the
    controller has not started yet (computed as it would start them). No-op entries and
    unknown partitions are left out: the controller drops them at once."""
    out: dict[TopicPartition, PartitionReassignment] = {}
    for t in topics.values():
        for p in sorted(set(t.adding) | set(t.removing)):
            if p in t.partitions:
                out[TopicPartition(t.topic, p)] = PartitionReassignment(
                    t.topic, p, t.partitions[p], t.adding.get(p, ()), t.removing.get(p, ())
                )
    for tp, target in (node or {}).items():
        topic = topics.get(tp.topic)
        if tp in out or topic is None or tp.partition not in topic.partitions:
            continue
        current = topic.partitions[tp.partition]
        if tuple(target) != tuple(current):
            out[tp] = reassignment_of(current, target, tp.topic, tp.partition)
    return dict(sorted(out.items()))


def stuck_reason(
    node: Mapping[TopicPartition, Sequence[int]] | None,
    node_error: str | None,
    topics: Mapping[str, TopicAssignment],
    age_seconds: float,
) -> str | None:
    """Why an existing ``/admin/reassign_partitions`` is not being carried out, or None when it
    may still be. The controller removes each partition from the node as it finishes and starts
    every partition at once (writing adding/removing into the topic znode), so a node older than
    a few seconds in which no partition is moving is not being processed."""
    if node_error is not None:
        return f"its content is invalid for Kafka's controller ({node_error}), which ignores it"
    if age_seconds < STUCK_AFTER_SECONDS:
        return None
    moving = [
        tp
        for tp in node or {}
        if tp.topic in topics and (tp.partition in topics[tp.topic].adding or tp.partition in topics[tp.topic].removing)
    ]
    if moving:
        return None
    from kadmin.units import counted

    n = len(node or {})
    still = "its partition is not moving" if n == 1 else f"none of its {counted(n, 'partition')} is moving"
    return f"it was created {age_seconds:.0f}s ago and {still}: the controller is not acting on it"


STUCK_HINT = (
    f"Kafka's controller watches {REASSIGN_PARTITIONS} for its creation only: a node created while "
    "the watch was unarmed (for example after someone deleted the node by hand) or with content the "
    "controller rejects stays until the controller next looks at the node (a reassignment completing, or "
    "one sent through the AdminClient) or moves: with nothing else running, for good. Check its content, "
    f"then delete {REASSIGN_PARTITIONS} and force a controller election (delete /controller) so the new controller re-arms the watch; "
    "or use --bootstrap-server (Kafka 2.4+), which does not need the node."
)
