"""Preferred leader election over ZooKeeper, as Kafka's ZooKeeper-mode tool
(``kafka-preferred-replica-election.sh --zookeeper``) did it: write
``/admin/preferred_replica_election`` (``{"version":1,"partitions":[{"topic","partition"}]}``),
which the controller carries out and then deletes; wait for the deletion (bounded by the
timeout), then read the partition states to tell each partition's outcome.

Unclean election cannot be requested per partition over ZooKeeper: Kafka's ZooKeeper-mode
tooling never could (only the topic config unclean.leader.election.enable); the AdminClient's
ElectLeaders (Kafka 2.4+) can.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping

from kadmin.backends import zk_paths as zp
from kadmin.backends.base import ElectionType
from kadmin.errors import ClusterError, UnsupportedOperation
from kadmin.model import TopicPartition

PREFERRED_REPLICA_ELECTION = "/admin/preferred_replica_election"
POLL_SECONDS = 0.05


def encode_election(partitions: Iterable[TopicPartition]) -> bytes:
    """The node's content, compact as Kafka writes it."""
    return zp.encode(
        {"version": 1, "partitions": [{"topic": tp.topic, "partition": tp.partition} for tp in sorted(set(partitions))]}
    )


def decode_election(data: bytes) -> list[TopicPartition]:
    obj = json.loads(data.decode("utf-8"))
    return [TopicPartition(e["topic"], int(e["partition"])) for e in obj.get("partitions") or ()]


def elect_leaders(
    backend,
    election_type: ElectionType,
    partitions: Iterable[TopicPartition],
    *,
    sleep: Callable[[float], None] = time.sleep,
    monotonic: Callable[[], float] = time.monotonic,
) -> Mapping[TopicPartition, str | None]:
    """``backend``: a ``ZooKeeperBackend``. Per partition None (the preferred replica leads
    now) or "ERROR_NAME: message", as ElectLeaders would answer."""
    from kazoo.exceptions import NodeExistsError

    if election_type is not ElectionType.PREFERRED:
        raise UnsupportedOperation(
            "unclean leader election of chosen partitions is not possible over ZooKeeper: Kafka's "
            "ZooKeeper-mode tooling could only allow it per topic (unclean.leader.election.enable)",
            hint="use --bootstrap-server (ElectLeaders, Kafka 2.4+)",
        )
    wanted = sorted(set(partitions))
    if not wanted:
        return {}
    before = partition_states(backend, wanted)
    out: dict[TopicPartition, str | None] = {}
    send = []
    for tp in wanted:
        state = before.get(tp)
        if state is None:
            out[tp] = "UNKNOWN_TOPIC_OR_PARTITION: The partition does not exist."
        elif state[1] == state[0][0]:
            out[tp] = "ELECTION_NOT_NEEDED: Leader election not needed for topic partition."
        else:
            send.append(tp)
    if not send:
        return dict(sorted(out.items()))
    try:
        backend._op("create", PREFERRED_REPLICA_ELECTION, encode_election(send), makepath=True)
    except NodeExistsError:
        raise ClusterError(
            f"a preferred replica election is already in progress ({PREFERRED_REPLICA_ELECTION} exists); "
            "kadmin did not write its request",  # earlier batches of the run may have elected some
            hint="wait for the controller to delete the node, then run again",
        ) from None
    deadline = monotonic() + backend.timeout
    while backend._get(PREFERRED_REPLICA_ELECTION) is not None:
        if monotonic() >= deadline:
            raise ClusterError(
                f"the controller did not carry out {PREFERRED_REPLICA_ELECTION} within {backend.timeout:g}s "
                "(the node is still there)",
                hint="check that a controller is elected (/controller); it acts on the node when it is created "
                "or when it takes over",
            )
        sleep(POLL_SECONDS)
    after = partition_states(backend, send)
    for tp in send:
        state = after.get(tp)
        if state is None:
            out[tp] = "UNKNOWN_TOPIC_OR_PARTITION: The partition does not exist."
        elif state[1] == state[0][0]:
            out[tp] = None
        else:
            out[tp] = (
                "PREFERRED_LEADER_NOT_AVAILABLE: Failed to elect leader for partition "
                f"{tp} under strategy PreferredReplicaPartitionLeaderElectionStrategy"
            )
    return dict(sorted(out.items()))


def partition_states(
    backend, partitions: Iterable[TopicPartition]
) -> dict[TopicPartition, tuple[tuple[int, ...], int, tuple[int, ...]]]:
    """(replicas, leader, isr) of each partition that exists, from its topic znode and its
    state znode."""
    wanted = sorted(set(partitions))
    topics = backend.topic_assignments({tp.topic for tp in wanted})
    known = [tp for tp in wanted if tp.topic in topics and tp.partition in topics[tp.topic].partitions]
    states = backend._get_many([zp.partition_state_path(tp.topic, tp.partition) for tp in known])
    out = {}
    for tp in known:
        path = zp.partition_state_path(tp.topic, tp.partition)
        got = states.get(path)
        isr: tuple[int, ...]
        leader, isr = -1, ()
        if got:
            s = backend._decode(zp.decode_partition_state, got[0], path)
            leader, isr = s.leader, tuple(s.isr)
        out[tp] = (tuple(topics[tp.topic].partitions[tp.partition]), leader, isr)
    return out
