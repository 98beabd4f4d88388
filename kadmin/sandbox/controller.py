"""The controller's decisions: replica placement, topic creation and deletion, leader election,
reassignment (KIP-455: RS = TRS ++ ORS, adding = RS - ORS, removing = RS - TRS), and reactions to
brokers and log directories going away and coming back.

Pure functions over a ``Cluster`` (no I/O, no clock), shared by the KRaft-like AdminClient path
and the ZooKeeper-mode controller.
"""

from __future__ import annotations

import random
import uuid

from kadmin.model import TopicPartition
from kadmin.sandbox import protocol as P
from kadmin.sandbox.cluster import KRAFT, ZOOKEEPER, Cluster, PartitionState, ReplicaLog, TopicState


class ControllerError(Exception):
    def __init__(self, code: int, message: str = ""):
        super().__init__(message or P.ERROR_NAMES.get(code, str(code)))
        self.code = code
        self.message = message


# --- placement ---


def place_replicas(
    cluster: Cluster,
    partitions: int,
    replication_factor: int,
    rng: random.Random | None = None,
    live: list[int] | None = None,
) -> dict[int, list[int]]:
    """Round-robin placement over registered brokers, alternating racks when racks are set
    (the shape of Kafka's rack-aware assignment), with a random start like Kafka's."""
    rng = rng or random.Random(len(cluster.topics))
    brokers = sorted(live if live is not None else cluster.brokers)
    if replication_factor > len(brokers) or replication_factor <= 0:
        raise ControllerError(
            P.INVALID_REPLICATION_FACTOR,
            f"Replication factor: {replication_factor} larger than available brokers: {len(brokers)}.",
        )
    if partitions <= 0:
        raise ControllerError(P.INVALID_PARTITIONS, "Number of partitions was set to an invalid non-positive value.")
    racks = {b: cluster.brokers[b].rack for b in brokers}
    if all(racks.values()):
        brokers = _rack_alternating(brokers, racks)
    n = len(brokers)
    start = rng.randrange(n)
    shift = rng.randrange(n)
    out = {}
    for p in range(partitions):
        if p > 0 and (p + start) % n == 0:
            shift += 1
        first = (p + start) % n
        offset = 1 + (shift % (n - 1)) if n > 1 else 0
        others = [brokers[(first + offset + j) % n] for j in range(n)]
        others = [b for b in dict.fromkeys(others) if b != brokers[first]]
        replicas = [brokers[first]]
        used = {racks[brokers[first]]}
        # Prefer brokers on racks not used yet (Kafka's rack-aware rule), then any.
        for b in others:
            if len(replicas) == replication_factor:
                break
            if racks[b] not in used or len(used) == len(set(racks.values())):
                replicas.append(b)
                used.add(racks[b])
        for b in others:
            if len(replicas) == replication_factor:
                break
            if b not in replicas:
                replicas.append(b)
        out[p] = replicas
    return out


def _rack_alternating(brokers: list[int], racks: dict[int, str | None]) -> list[int]:
    by_rack: dict[str, list[int]] = {}
    for b in brokers:
        by_rack.setdefault(racks[b] or "", []).append(b)
    ordered, lists = [], [by_rack[r] for r in sorted(by_rack)]
    while any(lists):
        for lst in lists:
            if lst:
                ordered.append(lst.pop(0))
    return ordered


def validate_assignment(cluster: Cluster, replicas: list[int], *, require_live: bool) -> None:
    """INVALID_REPLICA_ASSIGNMENT rules of the AdminClient path."""
    if not replicas:
        raise ControllerError(
            P.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment includes an empty replica list."
        )
    seen = set()
    for b in replicas:
        if b < 0:
            raise ControllerError(
                P.INVALID_REPLICA_ASSIGNMENT, f"The manual partition assignment includes an invalid broker id {b}."
            )
        if b in seen:
            raise ControllerError(
                P.INVALID_REPLICA_ASSIGNMENT, f"The manual partition assignment includes the broker {b} more than once."
            )
        seen.add(b)
        broker = cluster.brokers.get(b)
        if broker is None or (require_live and not broker.alive):
            what = "no such broker is live" if require_live else "no such broker is registered"
            raise ControllerError(
                P.INVALID_REPLICA_ASSIGNMENT, f"The manual partition assignment includes broker {b}, but {what}."
            )


def validate_zookeeper_reassignment(cluster: Cluster, replicas: list[int], origin: list[int]) -> None:
    """INVALID_REPLICA_ASSIGNMENT rules of ZooKeeper mode's AlterPartitionReassignments
    (KafkaController.validateReplicas): an empty list, duplicates, negative ids; of the brokers,
    only those the move adds (target - original replicas) must be live, so a reorder or a shrink
    onto replicas that include a down broker is accepted."""
    if not replicas:
        raise ControllerError(P.INVALID_REPLICA_ASSIGNMENT, "Empty replica list specified in partition reassignment.")
    if len(set(replicas)) != len(replicas):
        raise ControllerError(
            P.INVALID_REPLICA_ASSIGNMENT, f"Duplicate replica ids in partition reassignment replica list: {replicas}"
        )
    if any(b < 0 for b in replicas):
        raise ControllerError(P.INVALID_REPLICA_ASSIGNMENT, f"Invalid broker id in replica list: {replicas}")
    adding = [b for b in replicas if b not in origin]
    live = cluster.live_brokers()
    if any(b not in live for b in adding):
        raise ControllerError(
            P.INVALID_REPLICA_ASSIGNMENT,
            f"Replica assignment has brokers that are not alive. Replica list: {adding}, live broker list: {live}",
        )


# --- topics and logs ---


def create_topic(
    cluster: Cluster,
    name: str,
    assignment: dict[int, list[int]],
    configs: dict[str, str] | None = None,
    size_bytes: float = 0,
    produce_rate: float = 0,
    log_dirs: dict[tuple[int, int], str] | None = None,
    topic_id: uuid.UUID | None = None,
) -> TopicState:
    """A new topic; ``topic_id`` is kept when given (a topic already in ZooKeeper), else new."""
    topic = TopicState(name, topic_id or uuid.uuid4(), {}, dict(configs or {}))
    cluster.topics[name] = topic
    for index, replicas in sorted(assignment.items()):
        tp = TopicPartition(name, index)
        live = [b for b in replicas if b in cluster.brokers and cluster.brokers[b].alive]
        p = PartitionState(
            name,
            index,
            list(replicas),
            isr=live or list(replicas[:1]),
            leader=live[0] if live else -1,
            produce_rate=float(produce_rate),
            created_at=cluster.now,
            initial_size=float(size_bytes),
        )
        topic.partitions[index] = p
        for b in replicas:
            broker = cluster.brokers.get(b)
            if broker is None:
                continue
            wanted_dir = (log_dirs or {}).get((index, b))
            if wanted_dir:
                broker.preferred_dirs[tp] = wanted_dir
            if broker.alive:
                create_log(cluster, b, tp, size_bytes)
        if produce_rate:
            cluster.producing.add(tp)
        cluster.changed(tp, topic=True)
    return topic


def create_log(cluster: Cluster, broker_id: int, tp: TopicPartition, size: float = 0) -> bool:
    """Create a replica's log on a broker: in the directory AlterReplicaLogDirs asked for, else
    the online, uncordoned directory holding the fewest logs (Kafka's LogManager choice)."""
    broker = cluster.brokers[broker_id]
    if broker.dir_of(tp) is not None:
        return True
    for d in broker.dirs.values():
        stray = d.strays.pop(tp, None)
        if stray is None:
            continue
        if cluster.stray_deadlines.pop((broker_id, d.path, tp), None) is None and d.online:
            # The half-copied log of a cancelled move: the broker picks it up where it stopped.
            p = cluster.partition(tp)
            d.logs[tp] = ReplicaLog(stray.size, p.records if p is not None else stray.records)
            broker.preferred_dirs.pop(tp, None)
            return True
    preferred = broker.preferred_dirs.pop(tp, None)
    target = broker.dirs.get(preferred) if preferred else None
    if target is None or not target.online:
        candidates = [d for d in broker.dirs.values() if d.online and not d.cordoned]
        if not candidates:
            return False
        target = min(candidates, key=lambda d: (len(d.logs) + len(d.futures), list(broker.dirs).index(d.path)))
    p = cluster.partition(tp)
    target.logs[tp] = ReplicaLog(float(size), p.records if p is not None else None)
    return True


def delete_log(cluster: Cluster, broker_id: int, tp: TopicPartition) -> None:
    broker = cluster.brokers.get(broker_id)
    if broker is None:  # ZooKeeper mode accepts unknown broker ids unchecked
        return
    for d in broker.dirs.values():
        d.logs.pop(tp, None)
        d.futures.pop(tp, None)
    broker.preferred_dirs.pop(tp, None)
    if tp in broker.move_queue:
        broker.move_queue.remove(tp)


def make_stray(cluster: Cluster, broker_id: int, tp: TopicPartition, expires_at: float | None = None) -> None:
    """The broker stops a replica but its log stays on disk, still listed by DescribeLogDirs:
    until the broker restarts (``expires_at`` None) or until ``expires_at`` (simulated time)."""
    broker = cluster.brokers.get(broker_id)
    if broker is None:
        return
    for d in broker.dirs.values():
        log = d.logs.pop(tp, None)
        if log is not None:
            d.strays[tp] = log
            if expires_at is not None:
                cluster.stray_deadlines[(broker_id, d.path, tp)] = expires_at
        elif expires_at is not None and tp in d.strays:
            cluster.stray_deadlines[(broker_id, d.path, tp)] = expires_at
        d.futures.pop(tp, None)
    broker.preferred_dirs.pop(tp, None)
    if tp in broker.move_queue:
        broker.move_queue.remove(tp)


def forget_strays(cluster: Cluster, broker_id: int) -> None:
    """A broker restart: it finds its stray logs and deletes them."""
    for d in cluster.brokers[broker_id].dirs.values():
        for tp in d.strays:
            cluster.stray_deadlines.pop((broker_id, d.path, tp), None)
        d.strays.clear()


def expire_metadata_lags(cluster: Cluster) -> None:
    """Brokers received their UpdateMetadata: Metadata shows the controller's state again."""
    for tp in list(cluster.metadata_lags):
        p = cluster.partition(tp)
        if p is None or cluster.now + 1e-9 >= p.served_until:
            cluster.metadata_lags.discard(tp)
            if p is not None:
                p.served = None
            cluster.bump()


def expire_strays(cluster: Cluster) -> None:
    """Deleted topics' logs whose deletion delay has passed disappear."""
    if not cluster.stray_deadlines:
        return
    for key, deadline in list(cluster.stray_deadlines.items()):
        if deadline <= cluster.now + 1e-9:
            broker_id, path, tp = key
            del cluster.stray_deadlines[key]
            cluster.brokers[broker_id].dirs[path].strays.pop(tp, None)


def delete_topic(cluster: Cluster, name: str) -> None:
    """The topic goes; its replicas' logs stay listed by DescribeLogDirs until the version's
    deletion delay passes (``KafkaVersion.deleted_topic_logs_listed_seconds``)."""
    topic = cluster.topics.pop(name)
    cluster.bump()
    linger = cluster.version.deleted_topic_logs_listed_seconds
    for p in topic.partitions.values():
        for b in cluster.brokers:
            if linger > 0:
                make_stray(cluster, b, p.tp, expires_at=cluster.now + linger)
            else:
                delete_log(cluster, b, p.tp)
        cluster.attention.discard(p.tp)
        cluster.producing.discard(p.tp)
    for listener in cluster.listeners:
        listener.topic_deleted(name)


# --- leadership ---


def _bump(cluster: Cluster, p: PartitionState, leader_changed: bool) -> None:
    if leader_changed:
        p.leader_epoch += 1
    p.partition_epoch += 1
    cluster.changed(p.tp)


def elect(cluster: Cluster, p: PartitionState, candidates: list[int] | None = None) -> int:
    """First live, in-ISR replica in ``candidates`` order (default: the replica list)."""
    for b in candidates if candidates is not None else p.replicas:
        if b in p.isr and cluster.replica_online(p.tp, b):
            return b
    return -1


def replica_offline(cluster: Cluster, p: PartitionState, broker_id: int) -> None:
    """A replica's broker stopped or its directory failed: it leaves the ISR (unless it is the
    last member, which Kafka keeps) and leadership moves to another in-sync replica."""
    changed = False
    if broker_id in p.isr and len(p.isr) > 1:
        p.isr.remove(broker_id)
        changed = True
    leader_changed = False
    if p.leader == broker_id:
        p.leader = elect(cluster, p)
        leader_changed = changed = True
    if changed:
        _bump(cluster, p, leader_changed)
    cluster.attention.add(p.tp)


def replica_online(cluster: Cluster, p: PartitionState, broker_id: int) -> None:
    """A replica is reachable again: if the partition had no leader and this replica is the
    ISR's survivor it leads again; otherwise it catches up outside the ISR. One whose broker is
    stopped, or whose directory is still offline, is not reachable yet: nothing changes."""
    if p.leader == -1 and broker_id in p.isr and cluster.replica_online(p.tp, broker_id):
        p.leader = broker_id
        _bump(cluster, p, True)
    cluster.attention.add(p.tp)


def join_isr(cluster: Cluster, p: PartitionState, broker_id: int) -> None:
    if broker_id not in p.isr:
        p.isr.append(broker_id)
        _bump(cluster, p, False)
        maybe_complete_reassignment(cluster, p)


def elect_preferred(cluster: Cluster, p: PartitionState) -> int:
    """ElectLeaders type 0: the first replica, if alive and in sync."""
    preferred = p.replicas[0]
    if p.leader == preferred:
        return P.ELECTION_NOT_NEEDED
    if preferred not in p.isr or not cluster.replica_online(p.tp, preferred):
        return P.PREFERRED_LEADER_NOT_AVAILABLE
    p.leader = preferred
    _bump(cluster, p, True)
    return P.NONE


def elect_unclean(cluster: Cluster, p: PartitionState) -> int:
    """ElectLeaders type 1: only when there is no (live) leader. A live in-sync replica is
    taken first, keeping the ISR (a clean election); only when none is live does any live
    replica lead, alone in the ISR (KRaft's PartitionChangeBuilder, ZooKeeper mode's
    OfflinePartitionLeaderElectionStrategy with unclean allowed)."""
    if p.leader != -1 and cluster.replica_online(p.tp, p.leader):
        return P.ELECTION_NOT_NEEDED
    clean = elect(cluster, p)
    if clean != -1:
        p.leader = clean
        p.isr = [b for b in p.isr if cluster.replica_online(p.tp, b)]
        _bump(cluster, p, True)
        return P.NONE
    for b in p.replicas:
        if cluster.replica_online(p.tp, b):
            p.leader, p.isr = b, [b]
            _bump(cluster, p, True)
            return P.NONE
    return P.ELIGIBLE_LEADERS_NOT_AVAILABLE


# --- reassignment ---


def alter_reassignment(
    cluster: Cluster,
    tp: TopicPartition,
    target: list[int] | None,
    *,
    validate: bool = True,
    allow_rf_change: bool = True,
) -> None:
    """Start, replace or cancel (``target`` None) a partition's reassignment.

    Raises ControllerError with Kafka's code. ``validate`` False is the ZooKeeper-node path,
    where Kafka's controller checks nothing beyond the partition existing.

    ZooKeeper mode moves the leader epoch on as Kafka's onPartitionReassignment does: each
    replica a re-target drops leaves the ISR with a new epoch (removeReplicasFromIsr), and a
    reassignment that cannot complete at once gets one (step A1, updateLeaderEpochAndSendRequest);
    one that can completes at once (maybe_complete_reassignment).
    """
    p = cluster.partition(tp)
    if p is None:
        raise ControllerError(
            P.UNKNOWN_TOPIC_OR_PARTITION, "The partition does not exist." if tp.topic in cluster.topics else ""
        )
    if target is None:
        if not p.reassigning:
            raise ControllerError(P.NO_REASSIGNMENT_IN_PROGRESS)
        _revert(cluster, p)
        return
    target = list(target)
    zookeeper = cluster.mode == ZOOKEEPER
    if validate:
        if zookeeper:
            validate_zookeeper_reassignment(cluster, target, p.origin)
        else:
            validate_assignment(cluster, target, require_live=False)
        if not allow_rf_change and len(target) != len(p.origin):
            raise ControllerError(
                P.INVALID_REPLICATION_FACTOR, f"The replication factor is changed from {len(p.origin)} to {len(target)}"
            )
    before = list(p.replicas)
    lag = cluster.version.zookeeper_metadata_lag_seconds if cluster.mode == ZOOKEEPER else 0.0
    if lag > 0 and p.served is None:
        # The controller writes the znodes now; brokers learn of it with UpdateMetadata later.
        p.served = (list(p.replicas), list(p.isr), p.leader, p.leader_epoch)
        p.served_until = cluster.now + lag
        cluster.metadata_lags.add(tp)
    if cluster.mode == KRAFT and cluster.version.kraft_retarget_keeps_adding:
        _retarget_kraft(p, target)
    else:
        origin = p.origin
        if p.reassigning and target == origin:
            _revert(cluster, p)
            return
        full = list(dict.fromkeys(target + origin))
        p.replicas = full
        p.adding = [b for b in full if b not in origin]
        p.removing = [b for b in full if b not in target]
    for b in before:
        if b not in p.replicas:  # an adding replica the re-target dropped: its copy stays on disk
            make_stray(cluster, b, tp)
            if zookeeper and b in p.isr:
                p.isr.remove(b)
                _bump(cluster, p, True)
    for b in p.adding:
        if b in cluster.brokers and cluster.brokers[b].alive:
            create_log(cluster, b, tp)
    _bump(cluster, p, False)
    cluster.changed(tp, topic=True)
    if not maybe_complete_reassignment(cluster, p, just_started=True) and zookeeper:
        _bump(cluster, p, True)


def _retarget_kraft(p: PartitionState, target: list[int]) -> None:
    """KRaft's rule (PartitionReassignmentReplicas): removing = current full set - target and
    adding = target - current full set (each sorted), replicas = target ++ removing; adding and
    removing are only replaced when the new ones are non-empty. Re-targeting [0,1]->[0,2] in
    flight (replicas [0,2,1], adding [2], removing [1]) to [0,1,2] therefore keeps adding [2] and
    removing [1], and the partition ends as [0,2], not the new target."""
    current = list(p.replicas)
    removing = sorted(set(current) - set(target))
    adding = sorted(set(target) - set(current))
    p.replicas = list(target) + removing
    if removing:
        p.removing = removing
    if adding:
        p.adding = adding


def maybe_complete_reassignment(cluster: Cluster, p: PartitionState, just_started: bool = False) -> bool:
    """When the ISR holds every target replica: leader moves into the target if needed,
    removed replicas leave and are deleted, replicas = target in target order.
    ``just_started``: a reassignment that changes nothing (or only the order) completes at once.

    ZooKeeper mode: the leader epoch moves on whether the leader moves or stays (step B3,
    moveReassignedPartitionLeaderIfRequired), then once for each removed replica that leaves the
    ISR (B4, removeReplicasFromIsr). KRaft moves it only with the leader."""
    if not just_started and not p.reassigning:
        return False
    target = p.target
    if not all(b in p.isr for b in target):
        return False
    zookeeper = cluster.mode == ZOOKEEPER
    removed = [b for b in p.replicas if b not in target]
    leaving_isr = [b for b in removed if b in p.isr] if zookeeper else []
    leader_changed = False
    if p.leader not in target or not cluster.replica_online(p.tp, p.leader):
        p.leader = elect(cluster, p, target)
        leader_changed = True
    p.isr = [b for b in p.isr if b in target]
    p.replicas, p.adding, p.removing = target, [], []
    for b in removed:
        delete_log(cluster, b, p.tp)
    _bump(cluster, p, leader_changed or zookeeper)
    for _ in leaving_isr:
        _bump(cluster, p, True)
    cluster.changed(p.tp, topic=True)
    for listener in cluster.listeners:
        listener.reassignment_completed(p.tp)
    return True


def _revert(cluster: Cluster, p: PartitionState) -> None:
    """Cancel: back to the original replicas, computed as Kafka does (both modes): the current
    full set minus the adding replicas, in the full set's order. So the original *set* comes back
    but not always its order: [0,1] cancelled from [2,1] (full set [2,1,0]) is [1,0]. The leader
    stays where it is; adding replicas are stopped and their logs left on disk as stray logs.
    ZooKeeper mode (a re-target to the original replicas): each adding replica in the ISR leaves
    it with a new leader epoch, and the completion (step B3) adds one more."""
    origin, adding = p.origin, list(p.adding)
    zookeeper = cluster.mode == ZOOKEEPER
    leaving_isr = [b for b in adding if b in p.isr] if zookeeper else []
    p.replicas, p.adding, p.removing = origin, [], []
    p.isr = [b for b in p.isr if b in origin] or p.isr
    leader_changed = False
    if p.leader not in origin:
        p.leader = elect(cluster, p)
        leader_changed = True
    for b in adding:  # stopped; the half-copied log stays on the broker's disk (a stray log)
        make_stray(cluster, b, p.tp)
    for _ in leaving_isr:
        _bump(cluster, p, True)
    _bump(cluster, p, leader_changed or zookeeper)
    cluster.changed(p.tp, topic=True)
    for listener in cluster.listeners:
        listener.reassignment_completed(p.tp)


def resume_partition(
    cluster: Cluster,
    p: PartitionState,
    *,
    leader: int,
    isr: list[int],
    leader_epoch: int,
    adding: list[int],
    removing: list[int],
) -> None:
    """ZooKeeper mode: a controller taking over reads a partition's state from its znodes
    (KafkaController.initializeControllerContext: the replicas with their adding and removing
    ones, leader, ISR and leader epoch) and carries on from there. A leader that is not back
    is replaced by an election, a new epoch (OfflinePartition -> OnlinePartition); a
    reassignment in flight is resumed (initializePartitionReassignments, onPartitionReassignment):
    completed if the ISR already holds its target, else the epoch moves on (step A1)."""
    p.leader_epoch = max(p.leader_epoch, leader_epoch)
    p.adding = [b for b in adding if b in p.replicas]
    p.removing = [b for b in removing if b in p.replicas]
    p.isr = [b for b in isr if b in p.replicas] or p.isr
    if leader in p.isr and cluster.replica_online(p.tp, leader):
        p.leader = leader
    else:
        p.leader = elect(cluster, p)
        _bump(cluster, p, True)
    if p.reassigning and not maybe_complete_reassignment(cluster, p):
        _bump(cluster, p, True)


# --- brokers and directories ---


def broker_stopped(cluster: Cluster, broker_id: int) -> None:
    broker = cluster.brokers[broker_id]
    broker.alive = False
    cluster.bump()
    broker.preferred_dirs.clear()  # in memory only
    for p in cluster.all_partitions():
        if broker_id in p.replicas:
            replica_offline(cluster, p, broker_id)


def broker_started(cluster: Cluster, broker_id: int) -> None:
    """The broker is back. Replicas in a directory still offline stay offline: Kafka starts with
    such a directory marked offline (LogManager.createAndValidateLogDirs) as long as another one
    is usable (``start_refusal``)."""
    cluster.brokers[broker_id].alive = True
    cluster.brokers[broker_id].halted = None
    cluster.bump()
    forget_strays(cluster, broker_id)
    for p in cluster.all_partitions():
        if broker_id in p.replicas:
            replica_online(cluster, p, broker_id)


def start_refusal(cluster: Cluster, broker_id: int) -> str | None:
    """Why Kafka would not start this broker, or None: it halts at start-up when none of its
    log directories is usable (LogManager.createAndValidateLogDirs, every version)."""
    broker = cluster.brokers[broker_id]
    if any(d.online for d in broker.dirs.values()):
        return None
    return f"none of the specified log dirs from {', '.join(broker.dirs)} can be created or validated"


def dir_offline(cluster: Cluster, broker_id: int, path: str) -> None:
    """A directory fails. Its replicas go offline; who learns of it depends on the mode and
    version (``KafkaVersion.kraft_log_dir_failure_reaches_controller``): the controller, which
    moves leadership off it, or, on KRaft before JBOD, the broker alone.

    A running broker's last online directory failing halts it, in every mode and version
    (LogManager.handleLogDirFailure: "Shutdown broker because all log dirs in ... have failed",
    Exit.halt), before it tells any controller: the controller sees a broker go, as when it is
    stopped. ``BrokerState.halted`` says why until it starts again."""
    broker = cluster.brokers[broker_id]
    d = broker.dirs[path]
    if broker.alive and d.online and not any(o.online for o in broker.dirs.values() if o is not d):
        d.online = False
        broker_stopped(cluster, broker_id)
        broker.halted = f"all log dirs in {', '.join(broker.dirs)} have failed"
        return
    if cluster.mode == KRAFT and not cluster.version.kraft_log_dir_failure_reaches_controller:
        d = cluster.brokers[broker_id].dirs[path]
        if d.online:
            d.online = False
            cluster.bump()
            cluster.isr_expiries[(broker_id, path)] = cluster.now + cluster.version.replica_lag_time_max_seconds
        return
    _set_dir_online(cluster, broker_id, path, False)


def dir_online(cluster: Cluster, broker_id: int, path: str) -> None:
    cluster.isr_expiries.pop((broker_id, path), None)
    _set_dir_online(cluster, broker_id, path, True)


def expire_isr(cluster: Cluster) -> None:
    """KRaft before JBOD: the controller never hears of a failed directory, but the leaders of
    its partitions stop seeing fetches from the broker's replicas there and, after
    replica.lag.time.max.ms, drop them from the ISR (ReplicaManager.maybeShrinkIsr, an
    AlterPartition: the partition epoch moves, the leader epoch does not). A replica that leads
    stays leader and in the ISR: its broker serves the partition no more (KAFKA_STORAGE_ERROR),
    and nothing moves leadership off it."""
    if not cluster.isr_expiries:
        return
    for key, deadline in list(cluster.isr_expiries.items()):
        if deadline > cluster.now + 1e-9:
            continue
        del cluster.isr_expiries[key]
        broker_id, path = key
        broker = cluster.brokers[broker_id]
        if not broker.alive:
            continue
        for tp in list(broker.dirs[path].logs):
            p = cluster.partition(tp)
            if p is None or broker_id not in p.isr or p.leader == broker_id or len(p.isr) < 2:
                continue
            if not cluster.replica_online(tp, p.leader):  # a leader that cannot serve shrinks nothing
                continue
            p.isr.remove(broker_id)
            _bump(cluster, p, False)


def _set_dir_online(cluster: Cluster, broker_id: int, path: str, online: bool) -> None:
    """A directory goes offline or comes back: so do the replicas it holds (leadership follows)."""
    d = cluster.brokers[broker_id].dirs[path]
    d.online = online
    cluster.bump()
    change = replica_online if online else replica_offline
    for tp in list(d.logs):
        p = cluster.partition(tp)
        if p is not None:
            change(cluster, p, broker_id)
