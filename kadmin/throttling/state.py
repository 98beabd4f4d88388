"""What ``throttle show`` and every throttle operation read first: the throttle configs in
scope, kadmin's records, and what running moves need. A broker whose log-dir moves cannot be
seen counts as moving (unknown is not unneeded). A request no broker carries out (ZooKeeper: an
entry of a stuck /admin/reassign_partitions, ``kadmin.backends.base.requests_not_taken``) is no
move: it needs no throttle."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kadmin.backends.base import (
    Capability,
    ReassignmentBlocked,
    read_together,
    reassignment_blocked,
    requests_not_taken,
)
from kadmin.errors import ConfigsNotAnswered, ConnectionFailed, KadminError, UnsupportedOperation
from kadmin.model import (
    THROTTLE_CONFIGS,
    ClusterState,
    ConfigResource,
    ConfigResourceType,
    PartitionReassignment,
    Throttle,
    TopicPartition,
)
from kadmin.throttling.needs import DEFAULT_BROKER_ID, ThrottleNeeds, broker_resource, current_throttles
from kadmin.throttling.record import ThrottleRecord

if TYPE_CHECKING:
    from kadmin.throttling.stores import RecordStore


@dataclass(frozen=True)
class ThrottleState:
    """The cluster's throttles, kadmin's records of them, and what running moves need (and
    the incremental runs of the records, between and beyond their running steps)."""

    cluster: ClusterState
    current: Throttle
    needs: ThrottleNeeds
    records: dict[str, ThrottleRecord]
    ongoing: Mapping[TopicPartition, PartitionReassignment]
    log_dirs_known: bool  # False: log-dir moves could not be seen, so every log-dir rate counts as needed
    records_error: str | None = None  # why kadmin's records could not be read (show goes on without them)
    # Brokers in scope (a record names them, or the caller asked for them) that are not alive.
    down_brokers: frozenset[int] = frozenset()
    down_read: frozenset[int] = frozenset()  # those whose configs were read all the same (ZooKeeper holds them)
    unreadable_records: tuple[str, ...] = ()  # keys of records that could not be read (the others were)
    records_hint: str | None = None  # how to remove them
    down_configurable: bool = False  # a down broker's configs can be changed (ZooKeeper holds them)
    # Of ``ongoing``, the requests no broker carries out (``requests_not_taken``), and what
    # holds them (ZooKeeper: the stuck /admin/reassign_partitions): no move, nothing needed.
    not_taken: Mapping[TopicPartition, PartitionReassignment] = field(default_factory=dict)
    blocked: ReassignmentBlocked | None = None
    # Running brokers that did not answer for their own configs (broker -> why: REQUEST_TIMED_OUT):
    # their rates are unknown, as a down broker's (only with ``read_throttle_state(partial=True)``).
    silent_brokers: Mapping[int, str] = field(default_factory=dict)
    # Running brokers whose log-dir moves could not be seen (broker -> why: did not answer
    # DescribeLogDirs): their log-dir rates count as needed.
    log_dirs_unseen: Mapping[int, str] = field(default_factory=dict)

    @property
    def moves(self) -> dict[TopicPartition, PartitionReassignment]:
        """The reassignments running: ``ongoing`` but the requests not taken."""
        return {tp: r for tp, r in self.ongoing.items() if tp not in self.not_taken}

    @property
    def unreadable_brokers(self) -> set[int]:
        """The ``down_brokers`` whose configs could not be read (over the AdminClient protocol a
        broker answers for its own configs; ZooKeeper holds them whether or not the broker
        runs), and the ``silent_brokers``: what kadmin set there can be neither seen nor removed."""
        return set(self.down_brokers - self.down_read) | set(self.silent_brokers)

    def require_records(self, *, unless_only_some_records: bool = False) -> None:
        """Changing throttles without knowing what kadmin set is not safe: refuse.
        ``unless_only_some_records``: go on when the store was read and only some records in it
        could not be (``throttle clear --all``, which removes every throttle whoever set it)."""
        if self.records_error is None or (unless_only_some_records and self.unreadable_records):
            return
        raise UnsupportedOperation(f"{self.records_error}; nothing was changed", hint=self.records_hint)


def log_dir_moving_brokers(backend, brokers: Collection[int]) -> tuple[set[int], bool, dict[int, str]]:
    """Brokers with a log-dir move in flight, whether every broker could be seen, and those that
    did not answer (broker -> why). A broker that did not answer DescribeLogDirs, or a backend
    without it, counts as moving.

    A move is in flight while its future replica exists, copying or not: one whose source
    directory failed stays listed, paused (OffsetLag -1), and one whose destination failed sits
    unseen in that directory; the restart that brings the directory back resumes either
    (LogManager.loadLog, ReplicaManager.maybeAddLogDirFetchers) at the log-dir rate set by then.
    So a broker listing a future replica, or with a directory offline (what it holds cannot be
    seen), counts as moving: its log-dir rate stays until the future replica is gone."""
    if Capability.LOG_DIRS not in backend.capabilities:
        return set(brokers), False, {}
    answers = backend.describe_log_dirs(brokers=sorted(brokers))
    moving = {
        b
        for b, bld in answers.items()
        if bld.error is not None
        or any(d.error is not None or any(r.is_future for r in d.replicas) for d in bld.log_dirs)
    }
    unseen = {b: bld.error for b, bld in answers.items() if bld.error is not None}
    unseen |= dict.fromkeys(set(brokers) - set(answers), "no answer to DescribeLogDirs")
    return moving | set(unseen), not unseen, unseen


def read_throttle_state(
    backend,
    store: RecordStore | None,
    *,
    brokers: Iterable[int] | None = None,
    topics: Iterable[str] | None = None,
    seen: tuple[ClusterState, Mapping[TopicPartition, PartitionReassignment], dict[str, ThrottleRecord]] | None = None,
    partial: bool = False,
) -> ThrottleState:
    """Read the throttle configs (of ``brokers`` and ``topics``; None: every broker and topic and
    the cluster-wide defaults), the ongoing reassignments and log-dir moves, and kadmin's records
    (a store that cannot be read is noted in ``records_error``). ``seen``: the cluster, its
    ongoing reassignments and the records, already read by the caller (not read again).

    A running broker that does not answer for its own configs (slow): with ``partial`` (a report,
    ``throttle show``) it is named in ``silent_brokers`` and the rest is read; without (a change
    would need its rates, unknown), the error names it and nothing is changed."""
    cluster = backend.describe_cluster() if seen is None else seen[0]
    if brokers is None:
        resources = [ConfigResource(ConfigResourceType.BROKER, "")]
        resources += [broker_resource(b) for b in sorted(cluster.brokers)]
    else:
        resources = [broker_resource(b) for b in sorted(set(brokers)) if b in cluster.brokers]
    known_topics = cluster.topics
    wanted = known_topics if topics is None else sorted(set(topics).intersection(known_topics))
    resources += [ConfigResource(ConfigResourceType.TOPIC, t) for t in wanted]

    def load_records() -> tuple[dict[str, ThrottleRecord], tuple[str | None, tuple[str, ...], str | None]]:
        from kadmin.throttling.stores import UnreadableRecords

        if store is None:
            return {}, (None, (), None)
        try:
            return store.load_all(), (None, (), None)
        except UnreadableRecords as e:  # the others were read
            return e.records, (e.message, e.keys, e.hint)
        except KadminError as e:
            return {}, (f"kadmin's throttle records could not be read: {e}", (), e.hint)

    def read_configs() -> tuple[Mapping[ConfigResource, Mapping], Mapping[int, str]]:
        try:
            return backend.describe_configs(resources, keys=THROTTLE_CONFIGS), {}
        except ConfigsNotAnswered as e:  # what the others answered, and who did not
            if not partial:
                raise ConnectionFailed(
                    f"{e}: {'their' if len(e.brokers) > 1 else 'its'} throttle rates are unknown; nothing was changed",
                    hint="check the broker and run it again",
                ) from None
            return e.configs, e.brokers

    reads: list = [
        read_configs,
        lambda: log_dir_moving_brokers(backend, cluster.brokers),
    ]
    if seen is None:
        reads += [backend.list_partition_reassignments, load_records]
    (configs, silent), (moving, known, unseen), *rest = read_together(backend, *reads)  # requests in flight together
    reassigning, (records, (error, bad, hint)) = rest if seen is None else (seen[1], (seen[2], (None, (), None)))
    # Brokers in scope: those asked for, or every broker (a down one too: a rate set on it by
    # hand is as much a throttle as kadmin's), and those kadmin's records name.
    in_scope = {b for r in records.values() for b in r.brokers} | set(
        cluster.down_brokers() if brokers is None else brokers
    )
    down = frozenset(in_scope - {DEFAULT_BROKER_ID} - set(cluster.brokers))
    down_read: frozenset[int] = frozenset()
    down_configurable = Capability.CONFIGS_OF_DOWN_BROKERS in backend.capabilities
    if down and down_configurable:
        # /config/brokers/<id> is in ZooKeeper whether or not the broker runs: the rates set on a
        # broker that is down (by kadmin or by hand) are read from there (one more read, only
        # when one is down).
        configs = {
            **configs,
            **backend.describe_configs([broker_resource(b) for b in sorted(down)], keys=THROTTLE_CONFIGS),
        }
        down_read = down
    if down:
        # A down broker's log-dir moves cannot be seen: one may be half done and resume,
        # unthrottled, when it restarts. It counts as moving (unknown is not unneeded).
        moving, known = set(moving) | down, False
    current = current_throttles(configs)
    ongoing = dict(reassigning)
    # Only a backend that can be blocked (ZooKeeper) reads more, and only while something is listed.
    blocked = reassignment_blocked(backend) if ongoing else None
    not_taken = requests_not_taken(blocked, ongoing, cluster)
    moves = {tp: r for tp, r in ongoing.items() if tp not in not_taken}
    needs = ThrottleNeeds.of(moves, moving).with_runs(records.values(), cluster, moves)
    return ThrottleState(
        cluster,
        current,
        needs,
        records,
        ongoing,
        known,
        error,
        down,
        down_read,
        bad,
        hint,
        down_configurable,
        not_taken,
        blocked if not_taken else None,
        silent,
        unseen,
    )
