"""Properties of `log-dirs balance` plans that hold for any brokers and directories (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmin.errors import InputError
from kadmin.model import (
    ANY_LOG_DIR,
    Broker,
    ClusterState,
    LogDir,
    LogDirStatus,
    PartitionState,
    ReplicaInfo,
    TopicPartition,
)
from kadmin.plan.balance import balance_log_dirs, usage_spread


@st.composite
def brokers_with_dirs(draw):
    """1-3 brokers with 1-4 directories each (some offline or cordoned, some moves in flight),
    capacities from tight to roomy, and a cluster whose partitions match the replicas."""
    holders: dict[TopicPartition, list[int]] = {}
    log_dirs: dict[int, list[LogDir]] = {}
    n_parts = draw(st.integers(1, 30))
    for b in range(1, draw(st.integers(1, 3)) + 1):
        paths = [f"/d{i}" for i in range(draw(st.integers(1, 4)))]
        status = {p: draw(st.sampled_from(["online"] * 4 + ["offline", "cordoned"])) for p in paths}
        placed: dict[str, list[ReplicaInfo]] = {p: [] for p in paths}
        readable = [p for p in paths if status[p] != "offline"]
        for i in sorted(draw(st.sets(st.integers(0, n_parts - 1), max_size=n_parts))):
            if not readable:
                break
            tp = TopicPartition(f"t{i % 3}", i)
            size = draw(st.integers(0, 50))
            path = draw(st.sampled_from(readable))
            placed[path].append(ReplicaInfo(tp.topic, tp.partition, size, 0, False))
            holders.setdefault(tp, []).append(b)
            others = [p for p in readable if p != path]
            if others and draw(st.integers(0, 9)) == 0:  # a move in flight
                placed[draw(st.sampled_from(others))].append(
                    ReplicaInfo(tp.topic, tp.partition, draw(st.integers(0, size)), 0, True))
        total = draw(st.integers(100, 400))
        dirs = []
        for p in paths:
            if status[p] == "offline":
                dirs.append(LogDir(b, p, "KafkaStorageException"))
                continue
            used = sum(r.size for r in placed[p]) + draw(st.integers(0, 20))
            dirs.append(LogDir(b, p, None, max(total, used), max(total, used) - used,
                               status[p] == "cordoned", tuple(placed[p])))
        log_dirs[b] = dirs
    parts = {}
    for tp, bs in holders.items():
        adding = removing = ()
        if len(bs) > 1 and draw(st.integers(0, 3)) == 0:  # a reassignment in flight (the leader stays)
            adding, removing = draw(st.sampled_from([((bs[1],), ()), ((), (bs[1],)), ((bs[-1],), (bs[1],))]))
            if adding == removing:
                adding = ()
        parts[tp] = PartitionState(tp.topic, tp.partition, bs[0], tuple(bs), tuple(bs), adding=adding, removing=removing)
    brokers = {b: Broker(b, "127.0.0.1", 9092 + b) for b in log_dirs}
    evacuate = []
    if draw(st.booleans()):
        b = draw(st.sampled_from(sorted(log_dirs)))
        candidates = [d.path for d in log_dirs[b] if d.status is not LogDirStatus.OFFLINE]
        if candidates:
            evacuate = [(b, draw(st.sampled_from(candidates)))]
    max_moves = draw(st.none() | st.integers(0, 10))
    return ClusterState("c", 1, brokers, parts), log_dirs, evacuate, max_moves


def _plan(data):
    cluster, log_dirs, evacuate, max_moves = data
    try:
        return balance_log_dirs(cluster, log_dirs, max_moves=max_moves, evacuate=evacuate)
    except InputError as e:
        assert evacuate or max_moves is not None, e  # only an evacuation may be refused
        return None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(brokers_with_dirs())
def test_every_plan_is_valid(data):
    cluster, log_dirs, evacuate, max_moves = data
    result = _plan(data)
    if result is None:
        return
    dirs = {(d.broker, d.path): d for ds in log_dirs.values() for d in ds}
    for entry in result.plan.partitions:
        assert entry.replicas == cluster.partitions[entry.tp].replicas, "replica set unchanged"
        assert len(entry.log_dirs) == len(entry.replicas)
    moves = [m for m in result.moves if m.source != m.destination]  # the others cancel a move in flight
    if max_moves is not None:
        assert len(moves) <= max_moves
    for m in moves:
        target = dirs[m.broker, m.destination]
        assert target.status is LogDirStatus.ONLINE, "never an offline or cordoned target"
        assert all(d.status is not LogDirStatus.OFFLINE for d in log_dirs[m.broker]), (
            "no move on a broker with an offline directory: Kafka would refuse to create the future replica"
        )
        assert (m.broker, m.destination) not in evacuate
    for (b, path), d in dirs.items():  # whatever order moves finish in, nothing overflows
        incoming = [m.size for m in moves if (m.broker, m.destination) == (b, path)]
        if not incoming or d.usable_bytes is None:
            continue
        current = {r.tp: r.size for x in log_dirs[b] for r in x.replicas if not r.is_future}
        in_flight = sum(
            max(_final_size(cluster, log_dirs, b, r.tp, current.get(r.tp, r.size)) - r.size, 0)
            for r in d.replicas
            if r.is_future and b not in cluster.partitions[r.tp].removing
        )
        futures = {r.tp for x in log_dirs[b] for r in x.replicas if r.is_future}
        in_flight += sum(  # replicas being added, still copying from their leader
            max(_final_size(cluster, log_dirs, b, r.tp, r.size) - r.size, 0)
            for r in d.replicas
            if not r.is_future and r.tp not in futures and b in cluster.partitions[r.tp].adding
        )
        assert sum(incoming) + in_flight <= d.usable_bytes, f"capacity exceeded: {d}"
    for b, path in evacuate:
        after = next(u for u in result.after if (u.broker, u.path) == (b, path))
        assert (after.replicas, after.replica_bytes) == (0, 0), "evacuated (moves in flight count as done)"
    for entry in result.plan.partitions:
        for b, d in zip(entry.replicas, entry.log_dirs):
            assert d == ANY_LOG_DIR or (b, d) in dirs


def _final_size(cluster, log_dirs, broker, tp, size):
    """What a replica of ``broker`` holds once everything in flight is done: nothing when a
    reassignment removes it, its leader's size when one adds it, ``size`` otherwise."""
    state = cluster.partitions[tp]
    if broker in state.removing:
        return 0
    if broker in state.adding:
        leader = {r.tp: r.size for d in log_dirs[state.leader] for r in d.replicas if not r.is_future}
        return max(leader[tp], size)
    return size


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(brokers_with_dirs())
def test_after_counts_everything_in_flight_as_done(data):
    """Per broker (all directories online), the bytes after are what stays once every move in
    flight, the reassignments and the plan are done: a replica a reassignment removes is gone,
    one it adds holds its leader's size, one moving between directories its current copy's."""
    cluster, log_dirs, _, _ = data
    result = _plan(data)
    if result is None:
        return
    after = {}
    for u in result.after:
        if u.replica_bytes is not None:
            after[u.broker] = after.get(u.broker, 0) + u.replica_bytes
    for b, dirs in log_dirs.items():
        if any(d.status is LogDirStatus.OFFLINE for d in dirs):
            continue
        current = {r.tp: r.size for d in dirs for r in d.replicas if not r.is_future}
        future = {r.tp: r.size for d in dirs for r in d.replicas if r.is_future}
        adding = {tp for tp in future if b in cluster.partitions[tp].adding}  # the future copy is the one kept
        kept = {tp: future[tp] if tp in adding else current.get(tp, future.get(tp)) for tp in current.keys() | future.keys()}
        expected = sum(_final_size(cluster, log_dirs, b, tp, size) for tp, size in kept.items())
        assert after[b] == expected
    for entry in result.plan.partitions:
        state = cluster.partitions[entry.tp]
        assert not state.adding and not state.removing, "a partition being reassigned is left alone"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(brokers_with_dirs())
def test_balancing_never_widens_a_brokers_spread(data):
    cluster, log_dirs, _, _ = data
    result = balance_log_dirs(cluster, log_dirs)
    baseline = usage_spread(balance_log_dirs(cluster, log_dirs, max_moves=0).after)
    for b, spread in usage_spread(result.after).items():
        assert spread <= baseline[b] + 1e-9


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(brokers_with_dirs())
def test_plans_are_deterministic_whatever_the_input_order(data):
    cluster, log_dirs, evacuate, max_moves = data
    first = _plan(data)
    shuffled = {b: list(reversed(ds)) for b, ds in reversed(list(log_dirs.items()))}
    shuffled = {b: [LogDir(d.broker, d.path, d.error, d.total_bytes, d.usable_bytes, d.cordoned,
                           tuple(reversed(d.replicas))) for d in ds] for b, ds in shuffled.items()}
    again = _plan((cluster, shuffled, evacuate, max_moves))
    assert (first is None) == (again is None)
    if first is not None:
        assert first.plan == again.plan and first.moves == again.moves
        assert sorted(first.after, key=lambda u: (u.broker, u.path)) == sorted(again.after, key=lambda u: (u.broker, u.path))
