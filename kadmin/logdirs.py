"""Log directories as reports: pure functions over DescribeLogDirs results.

Shapes: kadmin's own JSON (schemas/log-dirs-describe.json) and exactly the JSON of Kafka's
``kafka-log-dirs.sh`` (LogDirsCommand), so scripts written for Kafka's tool keep working.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kadmin.backends.base import BrokerLogDirs
from kadmin.errors import NotFoundError
from kadmin.model import DOWN_ERROR, DOWN_REASON, Broker, LogDir, ReplicaInfo, is_down_error


def check_brokers(requested: Iterable[int] | None, existing: Iterable[int], down: Iterable[int] = ()) -> list[int]:
    """The live brokers to query: all when none requested. A requested broker that is ``down``
    exists: it is not queried (``with_down`` reports it). Unknown ones are an error naming both
    the missing and the existing brokers (as Kafka's tool does, but before any query)."""
    existing = sorted(set(existing))
    if requested is None:
        return existing
    requested = sorted(set(requested))
    down = set(down) - set(existing)
    missing = [b for b in requested if b not in existing and b not in down]
    if missing:
        known = ",".join(f"{b} (down)" if b in down else str(b) for b in sorted({*existing, *down}))
        raise NotFoundError(
            f"the given brokers do not exist: {','.join(map(str, missing))}; existing brokers: {known or 'none'}"
        )
    return [b for b in requested if b in existing]


def with_down(
    result: Mapping[int, BrokerLogDirs], down: Iterable[int], requested: Iterable[int] | None = None
) -> dict[int, BrokerLogDirs]:
    """``result`` with an answer for each down broker (of ``requested``, when given): none, and
    why (``DOWN_ERROR``), so every report names what it lacks as it names a broker that did not answer."""
    wanted = set(down) if requested is None else set(down) & set(requested)
    out = dict(result)
    for b in wanted - out.keys():
        out[b] = BrokerLogDirs(broker=b, error=DOWN_ERROR)
    return dict(sorted(out.items()))


def filter_log_dirs(result: Mapping[int, BrokerLogDirs], paths: Sequence[str] | None) -> dict[int, BrokerLogDirs]:
    """Keep only the directories whose path is in ``paths`` (all when None). A path no broker
    has is an error naming the ones they have (a typo would show an empty report), unless a
    broker did not answer: it may be one of its directories."""
    if not paths:
        return dict(result)
    wanted = set(paths)
    existing = {d.path for bl in result.values() for d in bl.log_dirs}
    unknown = sorted(wanted - existing)
    if unknown and not any(bl.error for bl in result.values()):
        raise NotFoundError(
            f"--log-dirs: no broker has the log directory {', '.join(unknown)}; "
            f"their directories: {', '.join(sorted(existing)) or 'none'}"
        )
    return {
        b: BrokerLogDirs(broker=b, log_dirs=tuple(d for d in bl.log_dirs if d.path in wanted), error=bl.error)
        for b, bl in result.items()
    }


def used_fraction(d: LogDir) -> float | None:
    """How full the volume is: (total - usable) / total; None when the broker does not say."""
    if d.total_bytes is None or d.usable_bytes is None or d.total_bytes <= 0:
        return None
    return (d.total_bytes - d.usable_bytes) / d.total_bytes


def largest(replicas: Iterable[ReplicaInfo], n: int) -> list[ReplicaInfo]:
    """The n largest replicas, biggest first, ties by name (deterministic)."""
    return sorted(replicas, key=lambda r: (-r.size, r.topic, r.partition, r.is_future))[:n]


def future_replicas(d: LogDir) -> list[ReplicaInfo]:
    return [r for r in d.replicas if r.is_future]


def offset_lag(r: ReplicaInfo) -> int | None:
    """A replica's OffsetLag, None when Kafka does not know it: it answers -1
    (INVALID_OFFSET_LAG, ReplicaManager.getLogEndOffsetLag) for a partition not online on the
    broker, as a future replica is once its move's source directory failed."""
    return None if r.offset_lag < 0 else r.offset_lag


def paused_futures(bl: BrokerLogDirs) -> frozenset[tuple[str, int]]:
    """(topic, partition) of the broker's future replicas whose move is paused because its
    source directory is offline: lag unknown, no online directory holds the current replica, and
    a directory is offline. Nothing copies them until the broker restarts with that directory
    back; then they resume."""
    dirs = bl.log_dirs
    if not any(d.error is not None for d in dirs):
        return frozenset()
    current = {(r.topic, r.partition) for d in dirs for r in d.replicas if not r.is_future}
    return frozenset(
        (r.topic, r.partition)
        for d in dirs
        for r in d.replicas
        if r.is_future and offset_lag(r) is None and (r.topic, r.partition) not in current
    )


def contents_known(d: LogDir) -> bool:
    """Whether DescribeLogDirs said what the directory holds. For a directory with an error (an
    offline one: KAFKA_STORAGE_ERROR) Kafka answers with no topics and -1 totals
    (ReplicaManager.describeLogDirs' catch branches): its bytes and replicas are unknown, not 0."""
    return d.error is None


def to_kadmin_json(cluster_id: str | None, brokers: Mapping[int, Broker], result: Mapping[int, BrokerLogDirs]) -> dict:
    """kadmin's JSON shape (schemas/log-dirs-describe.json)."""
    out = []
    for b in sorted(result):
        bl = result[b]
        info = brokers.get(b)
        out.append(
            {
                "broker": b,
                "host": info.host if info else None,
                "port": info.port if info else None,
                "rack": info.rack if info else None,
                "error": bl.error,
                "log_dirs": [_dir_json(d) for d in bl.log_dirs],
            }
        )
    return {"version": 1, "cluster_id": cluster_id, "brokers": out}


def _dir_json(d: LogDir) -> dict:
    frac = used_fraction(d)
    known = contents_known(d)
    return {
        "path": d.path,
        "status": d.status.value,
        "error": d.error,
        "used_bytes": d.used_bytes if known else None,
        "total_bytes": d.total_bytes,
        "usable_bytes": d.usable_bytes,
        "used_fraction": None if frac is None else round(frac, 6),
        "replica_count": sum(1 for r in d.replicas if not r.is_future) if known else None,
        "future_replica_count": sum(1 for r in d.replicas if r.is_future) if known else None,
        "replicas": [
            {
                "topic": r.topic,
                "partition": r.partition,
                "size": r.size,
                "offset_lag": offset_lag(r),
                "is_future": r.is_future,
            }
            for r in d.replicas
        ],
    }


def to_kafka_json(result: Mapping[int, BrokerLogDirs]) -> dict:
    """Exactly kafka-log-dirs.sh's JSON: version, brokers[broker, logDirs[logDir, error,
    partitions[partition "topic-N", size, offsetLag, isFuture]]]. A broker that did not
    answer is left out, as Kafka's tool cannot print it either."""
    return {
        "version": 1,
        "brokers": [
            {
                "broker": b,
                "logDirs": [
                    {
                        "logDir": d.path,
                        "error": d.error,
                        "partitions": [
                            {
                                "partition": f"{r.topic}-{r.partition}",
                                "size": r.size,
                                "offsetLag": r.offset_lag,
                                "isFuture": r.is_future,
                            }
                            for r in d.replicas
                        ],
                    }
                    for d in result[b].log_dirs
                ],
            }
            for b in sorted(result)
            if result[b].error is None
        ],
    }


@dataclass(frozen=True)
class DirRow:
    """One row of the human table (and the CSV). None is unknown: a broker whose directories were
    not seen (down, or it did not answer), or a directory whose contents were not (offline)."""

    broker: int
    rack: str | None
    path: str
    status: str
    used_fraction: float | None
    kafka_bytes: int | None
    total_bytes: int | None
    usable_bytes: int | None
    replicas: int | None
    futures: tuple[ReplicaInfo, ...] | None
    largest: tuple[ReplicaInfo, ...] | None
    error: str | None
    paused: frozenset[tuple[str, int]] = frozenset()  # the broker's ``paused_futures``


def rows(brokers: Mapping[int, Broker], result: Mapping[int, BrokerLogDirs], top: int = 3) -> list[DirRow]:
    out = []
    for b in sorted(result):
        bl = result[b]
        rack = brokers[b].rack if b in brokers else None
        if bl.error is not None:
            # Its directories, bytes and replicas (future ones too) are unknown (None), not 0.
            status = "down" if is_down_error(bl.error) else "unreachable"
            out.append(DirRow(b, rack, "-", status, None, None, None, None, None, None, None, bl.error))
            continue
        paused = paused_futures(bl)
        for d in bl.log_dirs:
            known = contents_known(d)
            current = [r for r in d.replicas if not r.is_future]
            out.append(
                DirRow(
                    broker=b,
                    rack=rack,
                    path=d.path,
                    status=d.status.value,
                    used_fraction=used_fraction(d),
                    kafka_bytes=d.used_bytes if known else None,
                    total_bytes=d.total_bytes,
                    usable_bytes=d.usable_bytes,
                    replicas=len(current) if known else None,
                    futures=tuple(future_replicas(d)) if known else None,
                    largest=tuple(largest(current, top)) if known else None,
                    error=d.error,
                    paused=paused,
                )
            )
    return out


@dataclass(frozen=True)
class BalanceInput:
    """What ``log-dirs balance`` and ``reassign balance`` plan from: the cluster (with the adding
    and removing replicas of reassignments under way), the directories of every broker that
    answered, the brokers left out because they did not (with why), and the partitions
    ListPartitionReassignments lists."""

    cluster: object  # kadmin.model.ClusterState
    dirs: dict[int, tuple[LogDir, ...]]
    left_out: dict[int, str]
    reassigning: tuple = ()  # kadmin.model.TopicPartition


def read_for_balance(
    backend, requested: Iterable[int] | None, evacuate: Iterable[tuple[int, str]] = ()
) -> BalanceInput:
    """DescribeLogDirs of the brokers to balance. A broker that does not answer, or is down
    (``DOWN_ERROR``), is left out, unless it was asked for by name (``requested`` or an evacuation):
    then ClusterError."""
    from kadmin.backends.base import read_together
    from kadmin.errors import ClusterError

    cluster = backend.describe_cluster()
    down = cluster.down_brokers()
    ids = check_brokers(requested, cluster.brokers, down)
    for b, path in evacuate:  # named there without being listed in --broker-list: it must exist too
        try:
            check_brokers([b], cluster.brokers, down)
        except NotFoundError as e:
            raise NotFoundError(f"--evacuate {b}:{path}: {e}") from None
    answers, ongoing = read_together(
        backend, lambda: backend.describe_log_dirs(brokers=ids), backend.list_partition_reassignments
    )
    answers = with_down(answers, down, requested)
    cluster = cluster.with_reassignments(ongoing)  # partitions being reassigned stay where they are
    failed = {b: a.error for b, a in answers.items() if a.error}
    needed = set(requested or ()) | {b for b, _ in evacuate}
    if failed.keys() & needed:
        raise ClusterError("; ".join(unseen_broker(b, failed[b]) for b in sorted(failed.keys() & needed)))
    dirs = {b: a.log_dirs for b, a in answers.items() if not a.error}
    return BalanceInput(cluster, dirs, dict(sorted(failed.items())), tuple(sorted(ongoing)))


def unseen_broker(broker: int, error: str) -> str:
    """Why a broker's log directories are missing, in words: "broker 2 is down (not in the
    cluster's broker list)" (it was not asked), or "broker 3 did not answer DescribeLogDirs:
    REQUEST_TIMED_OUT"."""
    if is_down_error(error):
        return f"broker {broker} is down ({DOWN_REASON})"
    return f"broker {broker} did not answer DescribeLogDirs: {error}"
