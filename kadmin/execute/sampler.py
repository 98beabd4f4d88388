"""One progress refresh: the reads it takes (cluster, ongoing reassignments, log dirs, end
offsets), then ``kadmin.execute.progress``'s pure arithmetic. ``reassign progress`` and
``execute --wait`` sample through this one callable. While new reassignments are blocked by
something stuck (ZooKeeper: a /admin/reassign_partitions the controller is not acting on), the
requests it holds that no broker carries out are no moves (``requests_not_taken``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import NamedTuple

from kadmin.backends.base import (
    Backend,
    Capability,
    ReassignmentBlocked,
    read_together,
    reassignment_blocked,
    requests_not_taken,
)
from kadmin.errors import ConnectionFailed
from kadmin.execute.progress import ProgressSnapshot, snapshot
from kadmin.model import ReassignmentPlan, TopicPartition


class EndOffsets(NamedTuple):
    """The end offsets read, those asked for but not read, and why (when the backend said)."""

    read: Mapping[TopicPartition, int]
    unread: frozenset[TopicPartition] = frozenset()
    error: str | None = None


class Sampler:
    """``sample(previous) -> ProgressSnapshot``; ``previous`` gives the rate baseline."""

    def __init__(self, backend: Backend, plan: ReassignmentPlan | None, clock: Callable[[], float] | None = None):
        self.backend = backend
        self.plan = plan
        self.clock = clock or time.monotonic
        self.blocked: ReassignmentBlocked | None = None  # what blocked new reassignments at the last sample

    def __call__(self, previous: ProgressSnapshot | None) -> ProgressSnapshot:
        b = self.backend
        cluster = b.describe_cluster()
        topics = None
        if self.plan is not None:
            topics = sorted({a.topic for a in self.plan.partitions} & set(cluster.topics)) or None
        reads = [
            b.list_partition_reassignments,
            lambda: b.describe_log_dirs(topics=topics) if Capability.LOG_DIRS in b.capabilities else {},
        ]
        # A plan's partitions are known now: their end offsets are read with the rest (without a
        # plan, the partitions moving are the ongoing reassignments, read first).
        moving = set() if self.plan is None else {a.tp for a in self.plan.partitions} & set(cluster.partitions)
        if moving:
            reads.append(lambda: self._end_offsets(moving))
        ongoing, log_dirs, *read = read_together(b, *reads)
        # Only a backend that can be blocked (ZooKeeper) reads more, and only while something is listed.
        self.blocked = reassignment_blocked(b) if ongoing else None
        not_taken = requests_not_taken(self.blocked, ongoing, cluster)
        moves = set(ongoing) - set(not_taken)
        offsets = read[0] if read else self._end_offsets(moves if self.plan is None else set())
        return snapshot(
            self.clock(),
            cluster,
            ongoing,
            log_dirs,
            plan=self.plan,
            end_offsets=offsets.read,
            previous=previous,
            unread_end_offsets=offsets.unread,
            end_offsets_error=offsets.error,
            not_taken=set(not_taken),
        )

    def _end_offsets(self, moving: set[TopicPartition]) -> EndOffsets:
        """The end offsets of ``moving``. They only feed the estimate of messages behind: a
        partition whose leader does not answer (none of them, when the backend raises) is left
        unestimated, and the snapshot says so, rather than failing the refresh."""
        if not moving or Capability.END_OFFSETS not in self.backend.capabilities:
            return EndOffsets({})
        try:
            read = self.backend.list_end_offsets(sorted(moving))
        except ConnectionFailed as e:
            return EndOffsets({}, frozenset(moving), str(e))
        return EndOffsets(read, frozenset(moving - set(read)))
