"""Simulated data movement: produce traffic, followers catching up under replication quotas,
and log-dir moves through future replicas; size-based retention (``retention.bytes``) keeps a
log from growing further, and a directory that fills fails. ``step`` advances the cluster by
simulated seconds.

Quotas as Kafka applies them (ReplicationQuotaManager): a broker's leader quota is shared by the
throttled replicas it serves, its follower quota by the throttled replicas it fetches; a replica is
throttled only while outside the ISR and only if its ``partition:broker`` entry (or ``*``) is in
the topic's list for that side. Unthrottled copies share the brokers' ``bandwidth``. Shares are
max-min fair, which is what token-bucket quotas converge to.
"""

from __future__ import annotations

import time

from kadmin.model import FOLLOWER_RATE, FOLLOWER_REPLICAS, LEADER_RATE, LEADER_REPLICAS, LOG_DIR_RATE, TopicPartition
from kadmin.sandbox import configs, controller
from kadmin.sandbox.cluster import BrokerState, Cluster, LogDirState, ReplicaLog

MAX_SUBSTEP = 0.25  # simulated seconds; bounds the error when a copy finishes mid-step


def step(cluster: Cluster, seconds: float, budget: float | None = None) -> None:
    """Advance by ``seconds``. With ``budget`` (real seconds), stop once that much time went on
    it, after at least one substep, and drop the rest: a speed the CPU cannot keep up with then
    slows the simulation down instead of starving the event loop (a longer tick would owe more
    simulated time, and the next one longer still)."""
    deadline = None if budget is None else time.monotonic() + budget
    while seconds > 1e-9:
        dt = min(seconds, MAX_SUBSTEP)
        _substep(cluster, dt)
        seconds -= dt
        if deadline is not None and time.monotonic() >= deadline:
            return


def _substep(cluster: Cluster, dt: float) -> None:
    cluster.now += dt
    _produce(cluster, dt)
    _ensure_logs(cluster)
    _catch_up(cluster, dt)
    _move_log_dirs(cluster, dt)
    _fail_full_dirs(cluster)
    _prune_attention(cluster)
    controller.expire_strays(cluster)
    controller.expire_isr(cluster)
    controller.expire_metadata_lags(cluster)


def _produce(cluster: Cluster, dt: float) -> None:
    for tp in list(cluster.producing):
        p = cluster.partition(tp)
        if p is None:
            cluster.producing.discard(tp)
            continue
        leader = cluster.leader_log(p)
        if leader is None:
            continue
        leader.size += p.produce_rate * dt
        limit = configs.retention_bytes(cluster, tp.topic)
        if limit is not None and leader.size > limit:  # the oldest data is deleted
            leader.size = float(limit)
        for b in p.isr:
            if b != p.leader and cluster.replica_online(tp, b):
                follower = cluster.brokers[b].log(tp)
                assert follower is not None  # online: the broker has a directory holding tp
                follower.size = leader.size


def _ensure_logs(cluster: Cluster) -> None:
    """A broker creates the log of a replica assigned to it once it is up (reassignment targets
    that were down when the reassignment started)."""
    for tp in list(cluster.attention):
        p = cluster.partition(tp)
        if p is None:
            continue
        for b in p.replicas:
            broker = cluster.brokers.get(b)
            if broker is not None and broker.alive and broker.dir_of(tp) is None:
                controller.create_log(cluster, b, tp)


def allocate(flows: list[tuple], capacity: dict) -> list[float]:
    """Max-min fair rates for flows, each a tuple of the constraint keys it uses (progressive
    filling: the tightest constraint fixes the rate of all its unfixed flows, repeat)."""
    rates = [0.0] * len(flows)
    remaining = dict(capacity)
    users: dict = {}
    for i, keys in enumerate(flows):
        for k in keys:
            users.setdefault(k, []).append(i)
    count = {k: len(us) for k, us in users.items()}
    fixed = [False] * len(flows)
    while True:
        best_key, best_share = None, None
        for k, n in count.items():
            if n:
                share = max(remaining[k], 0.0) / n
                if best_share is None or share < best_share:
                    best_key, best_share = k, share
        if best_key is None or best_share is None:  # both None or both set
            return rates
        for i in users[best_key]:
            if fixed[i]:
                continue
            fixed[i] = True
            rates[i] = best_share
            for k in flows[i]:
                remaining[k] -= best_share
                count[k] -= 1


def _catch_up(cluster: Cluster, dt: float) -> None:
    flows, meta, capacity = [], [], {}
    rate_cache: dict = {}

    def rate(broker_id, name):
        key = (broker_id, name)
        if key not in rate_cache:
            rate_cache[key] = configs.broker_rate(cluster, broker_id, name)
        return rate_cache[key]

    joins = []
    for tp in list(cluster.attention):
        p = cluster.partition(tp)
        if p is None:
            continue
        leader_log = cluster.leader_log(p)
        if leader_log is None:
            continue
        for b in p.replicas:
            if b == p.leader or b in p.isr or not cluster.replica_online(tp, b):
                continue
            follower_log = cluster.brokers[b].log(tp)
            assert follower_log is not None  # online: the broker has a directory holding tp
            if follower_log.size >= leader_log.size:
                joins.append((p, b))
                continue
            keys = [("out", p.leader), ("in", b)]
            capacity[("out", p.leader)] = cluster.bandwidth
            capacity[("in", b)] = cluster.bandwidth
            lr = rate(p.leader, LEADER_RATE)
            if lr is not None and configs.is_throttled(cluster, tp.topic, LEADER_REPLICAS, tp.partition, p.leader):
                keys.append(("leader-quota", p.leader))
                capacity[("leader-quota", p.leader)] = lr
            fr = rate(b, FOLLOWER_RATE)
            if fr is not None and configs.is_throttled(cluster, tp.topic, FOLLOWER_REPLICAS, tp.partition, b):
                keys.append(("follower-quota", b))
                capacity[("follower-quota", b)] = fr
            flows.append(tuple(keys))
            meta.append((p, b, leader_log, follower_log))
    for (p, b, leader_log, follower_log), r in zip(meta, allocate(flows, capacity)):
        follower_log.size = min(leader_log.size, follower_log.size + r * dt)
        if follower_log.size >= leader_log.size:
            joins.append((p, b))
    for p, b in joins:
        controller.join_isr(cluster, p, b)


def _move_log_dirs(cluster: Cluster, dt: float) -> None:
    """ReplicaAlterLogDirsThread: one future replica at a time per broker, at the log-dir rate;
    promoted when it has caught up with the current replica. A move whose source or destination
    failed is left out (ReplicaManager.handleLogDirFailure takes it off the thread) until the
    broker restarts with the directory back; the moves behind it go on."""
    for broker in cluster.brokers.values():
        move = _next_move(broker) if broker.alive else None
        if move is None:
            continue
        tp, src, dst = move
        r = configs.broker_rate(cluster, broker.id, LOG_DIR_RATE)
        r = cluster.bandwidth if r is None else r
        current, future = src.logs[tp], dst.futures[tp]
        future.size = min(current.size, future.size + r * dt)
        if future.size >= current.size:
            dst.logs[tp] = ReplicaLog(current.size, current.records)
            del dst.futures[tp]
            del src.logs[tp]
            broker.move_queue.remove(tp)
            cluster.log_dir_moved(broker.id, tp, src.path, dst.path, current.size)


def _next_move(broker: BrokerState) -> tuple[TopicPartition, LogDirState, LogDirState] | None:
    """The first move in the broker's queue whose directories are both online; moves whose
    current or future replica is gone are dropped from the queue."""
    for tp in list(broker.move_queue):
        src, dst = broker.dir_of(tp), broker.future_dir_of(tp)
        if src is None or dst is None:
            broker.move_queue.remove(tp)
        elif src.online and dst.online:
            return tp, src, dst
    return None


def _fail_full_dirs(cluster: Cluster) -> None:
    """A write that finds its directory full fails, and Kafka takes the directory offline
    (LogDirFailureChannel): its replicas go offline and leadership moves, as when a disk fails.
    Directories sharing one filesystem (``shared_fs``) fill, and fail, together."""
    for broker in cluster.brokers.values():
        if not broker.alive:
            continue
        online = [d for d in broker.dirs.values() if d.online]
        if cluster.shared_fs:
            capacity = max(d.capacity for d in broker.dirs.values())  # what DescribeLogDirs reports
            full = online if sum(d.used() for d in broker.dirs.values()) > capacity else []
        else:
            full = [d for d in online if d.used() > d.capacity]
        for d in full:
            controller.dir_offline(cluster, broker.id, d.path)
            if broker.alive:  # the last one halts the broker before it tells anyone
                cluster.log_dir_failed(broker.id, d.path)


def _prune_attention(cluster: Cluster) -> None:
    for tp in list(cluster.attention):
        p = cluster.partition(tp)
        if p is None:
            cluster.attention.discard(tp)
            continue
        if p.reassigning or len(p.isr) != len(p.replicas):
            continue
        if all(b in cluster.brokers and cluster.brokers[b].dir_of(tp) is not None for b in p.replicas):
            cluster.attention.discard(tp)
