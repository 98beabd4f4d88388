"""The rollback file: the current assignment of every partition a plan touches, with each
replica's current log directory, in Kafka's reassignment format. Executing it puts the replicas
back where they were. It is written before the first change, so it exists even if the run dies.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path

from kadmin.backends.base import BrokerLogDirs
from kadmin.model import ANY_LOG_DIR, Assignment, ClusterState, PartitionReassignment, ReassignmentPlan, TopicPartition

# (topic, partition, broker) -> (current dir, future dir)
ReplicaDirs = Mapping[tuple[str, int, int], tuple[str | None, str | None]]


def replica_dirs(log_dirs: Mapping[int, BrokerLogDirs] | None) -> ReplicaDirs:
    """(topic, partition, broker) -> (current dir, future dir), from DescribeLogDirs."""
    out: dict[tuple[str, int, int], tuple[str | None, str | None]] = {}
    for broker, bld in (log_dirs or {}).items():
        for d in bld.log_dirs:
            for r in d.replicas:
                key = (r.topic, r.partition, broker)
                cur, fut = out.get(key, (None, None))
                out[key] = (cur, d.path) if r.is_future else (d.path, fut)
    return out


def original_replicas(
    tp: TopicPartition, cluster: ClusterState, ongoing: Mapping[TopicPartition, PartitionReassignment]
) -> tuple[int, ...]:
    """The replicas a partition had before any running reassignment (its full set minus the
    replicas being added): what rolling back should return to."""
    state = cluster.partitions[tp]
    running = ongoing.get(tp)
    adding = set(running.adding if running is not None else state.adding)
    return tuple(b for b in state.replicas if b not in adding)


def rollback_plan(
    plan: ReassignmentPlan,
    cluster: ClusterState,
    ongoing: Mapping[TopicPartition, PartitionReassignment],
    replica_dirs: ReplicaDirs,
) -> ReassignmentPlan:
    """The current assignment of the plan's partitions, with current log dirs ("any" where a
    replica's directory is unknown, e.g. its broker is down). Partitions unknown to the cluster
    are left out (validation refuses such plans anyway)."""
    entries = []
    parts = cluster.partitions
    for a in plan.partitions:
        tp = a.tp
        if tp not in parts:
            continue
        replicas = original_replicas(tp, cluster, ongoing) if (ongoing or parts[tp].adding) else parts[tp].replicas
        dirs = []
        for b in replicas:
            found = replica_dirs.get((a.topic, a.partition, b))
            dirs.append(found[0] or ANY_LOG_DIR if found else ANY_LOG_DIR)
        entries.append(Assignment(a.topic, a.partition, tuple(replicas), tuple(dirs)))
    return ReassignmentPlan(tuple(entries))


def default_rollback_path(plan_file: str | None, now: datetime, cwd: str | None = None) -> Path:
    """``<plan>.rollback-<UTC time>.json`` next to the plan when its directory is writable,
    else in the current directory; ``-2``, ``-3``... before ``.json`` when a run in the same
    second already wrote one (a rollback file is never overwritten)."""
    stamp = now.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    folder = Path(cwd or os.getcwd())
    stem = "reassignment"
    if plan_file and plan_file != "-":
        p = Path(plan_file)
        stem = p.stem
        beside = p.parent if str(p.parent) else Path(".")
        if os.access(beside, os.W_OK):
            folder = beside
    path = folder / f"{stem}.rollback-{stamp}.json"
    n = 1
    while path.exists():
        n += 1
        path = folder / f"{stem}.rollback-{stamp}-{n}.json"
    return path


def utc_now() -> datetime:
    return datetime.now(timezone.utc)
