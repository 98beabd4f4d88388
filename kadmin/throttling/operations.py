"""The throttle operations every caller uses: read the state, apply, remove. Each rule once:

- **read**: every throttle config in scope, kadmin's records, and what running moves need; a
  broker whose log-dir moves cannot be seen counts as moving (unknown is not unneeded);
- **apply**: the record first, then the configs (a crash leaves a record, never an orphan);
- **remove**: only what nobody needs (``maths.removal_changes``), then every record brought in
  line with what was removed, so two plans sharing a rate never leave it behind.

``execute``, the incremental steps, ``verify``, ``cancel`` and the ``throttle`` commands call these;
the decisions (which brokers, what to merge, what to keep) are the pure functions of ``maths``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from kadmin.errors import KadminError, NotFoundError, UnsupportedOperation
from kadmin.model import (
    THROTTLE_CONFIGS,
    ClusterState,
    ConfigChange,
    ConfigResource,
    ConfigResourceType,
    PartitionReassignment,
    ReassignmentPlan,
    Throttle,
    TopicPartition,
)
from kadmin.throttling.maths import (
    DEFAULT_BROKER_ID,
    Removal,
    ThrottleNeeds,
    ThrottleRates,
    ThrottleSet,
    broker_label,
    broker_resource,
    brokers_needing_rates,
    clear_changes,
    current_throttles,
    kafka_throttle_lists,
    log_dir_rate_brokers,
    prune_records,
    reconcile_records,
    recorded,
    removal_changes,
    stale_throttles,
    throttle_changes,
)
from kadmin.throttling.record import ThrottleRecord
from kadmin.throttling.stores import RecordStore

MANUAL_PLAN_ID = "manual"  # the record of `throttle set` without a plan


# --- read ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ThrottleState:
    """The cluster's throttles, kadmin's records of them, and what running moves need."""

    cluster: ClusterState
    current: Throttle
    needs: ThrottleNeeds
    records: dict[str, ThrottleRecord]
    ongoing: Mapping[TopicPartition, PartitionReassignment]
    log_dirs_known: bool  # False: log-dir moves could not be seen, so every log-dir rate counts as needed
    records_error: str | None = None  # why kadmin's records could not be read (show goes on without them)

    @property
    def unreadable_brokers(self) -> set[int]:
        """Brokers a record names that are not alive: their configs could not be read."""
        named = {b for r in self.records.values() for b in r.brokers}
        return {b for b in named if b != DEFAULT_BROKER_ID and b not in self.cluster.brokers}

    def require_records(self) -> None:
        """Changing throttles without knowing what kadmin set is not safe: refuse."""
        if self.records_error is not None:
            raise UnsupportedOperation(f"{self.records_error}; nothing was changed")


def log_dir_moving_brokers(backend, brokers: Collection[int]) -> tuple[set[int], bool]:
    """Brokers with a log-dir move in flight, and whether every broker could be seen. A broker
    that did not answer DescribeLogDirs, or a backend without it, counts as moving."""
    from kadmin.backends.base import Capability

    if Capability.LOG_DIRS not in backend.capabilities:
        return set(brokers), False
    answers = backend.describe_log_dirs(brokers=sorted(brokers))
    moving = {
        b
        for b, bld in answers.items()
        if bld.error is not None or any(r.is_future for d in bld.log_dirs for r in d.replicas)
    }
    unseen = {b for b, bld in answers.items() if bld.error is not None} | (set(brokers) - set(answers))
    return moving | unseen, not unseen


def read_throttle_state(
    backend,
    store: RecordStore | None,
    *,
    brokers: Iterable[int] | None = None,
    topics: Iterable[str] | None = None,
) -> ThrottleState:
    """Read the throttle configs (of ``brokers`` and ``topics``; None: every broker and topic and
    the cluster-wide defaults), the ongoing reassignments and log-dir moves, and kadmin's records
    (a store that cannot be read is noted in ``records_error``)."""
    cluster = backend.describe_cluster()
    if brokers is None:
        resources = [ConfigResource(ConfigResourceType.BROKER, "")]
        resources += [broker_resource(b) for b in sorted(cluster.brokers)]
    else:
        resources = [broker_resource(b) for b in sorted(set(brokers)) if b in cluster.brokers]
    known_topics = set(cluster.topics)
    resources += [
        ConfigResource(ConfigResourceType.TOPIC, t)
        for t in (cluster.topics if topics is None else sorted(set(topics)))
        if t in known_topics
    ]
    current = current_throttles(backend.describe_configs(resources, keys=THROTTLE_CONFIGS))
    ongoing = dict(backend.list_partition_reassignments())
    moving, known = log_dir_moving_brokers(backend, cluster.brokers)
    records, error = {}, None
    if store is not None:
        try:
            records = store.load_all()
        except KadminError as e:
            error = f"kadmin's throttle records could not be read: {e}"
    return ThrottleState(cluster, current, ThrottleNeeds.of(ongoing, moving), records, ongoing, known, error)


# --- apply -----------------------------------------------------------------------------------
def apply_throttles(
    backend, store: RecordStore | None, changes: Iterable[ConfigChange], record: ThrottleRecord | None
) -> None:
    """The record first (KIP-179's order: a crash leaves a record, not an unrecorded throttle),
    then the configs. A record that cannot be written changes nothing."""
    changes = list(changes)
    if record is not None and store is not None:
        try:
            store.put(record)
        except KadminError as e:
            e.message = f"{e.message}; nothing was changed"
            raise
    if changes:
        backend.incremental_alter_configs(changes)


# --- remove ----------------------------------------------------------------------------------
def remove_throttles(
    backend,
    store: RecordStore | None,
    removal: Removal,
    records: Mapping[str, ThrottleRecord],
    updated: Iterable[ThrottleRecord],
) -> None:
    """Apply ``removal``, then write every record ``updated`` changed (an emptied one is deleted)."""
    if removal.changes:
        backend.incremental_alter_configs(removal.changes)
    if store is not None:
        for r in updated:
            if r != records.get(r.plan_id):
                store.put(r)


def remove_plan_throttles(backend, store: RecordStore, plan_id: str, *, force: bool = False) -> Removal | None:
    """Remove what ``plan_id``'s record set that no running move needs (verify, the end of an
    incremental run, ``throttle clear --plan``); None when there is no record. Rates on a broker
    that is down stay recorded for a later run. Other records sharing a removed rate (two plans
    that set the same rate) drop it too: it is gone."""
    records = store.load_all()
    record = records.get(plan_id)
    if record is None or record.empty:
        return None
    state = read_throttle_state(backend, None, brokers=record.brokers, topics=record.topics)
    removal = removal_changes(
        record,
        state.current,
        state.needs,
        force=force,
        unreadable=set(record.brokers) - set(state.cluster.brokers) - {DEFAULT_BROKER_ID},
    )
    others = (
        prune_records([r for pid, r in records.items() if pid != plan_id], removal) if removal.removed_rates else []
    )
    remove_throttles(backend, store, removal, records, [removal.kept, *others])
    return removal


# --- what the throttle commands decide --------------------------------------------------------
def plan_throttle_set(
    state: ThrottleState,
    *,
    rates: ThrottleRates,
    plan: ReassignmentPlan | None,
    plan_id: str,
    brokers: Collection[int] | None = None,
    **who,
) -> tuple[ThrottleSet, ThrottleRecord]:
    """``throttle set``: rates on ``brokers`` (default: the plan's source and destination brokers;
    for the log-dir rate its brokers with explicit log_dirs; without a plan every broker), the
    plan's lists merged into what is set, and the record to write. Unknown brokers or topics:
    NotFoundError before anything changes."""
    known = set(state.cluster.brokers)
    if brokers is not None:
        unknown = sorted(set(brokers) - known)
        if unknown:
            raise NotFoundError(
                f"unknown broker(s) {','.join(map(str, unknown))}; the cluster has {','.join(map(str, sorted(known)))}"
            )
    lists = kafka_throttle_lists(plan, state.cluster, state.ongoing) if plan is not None else None
    if brokers is not None:
        rate_brokers = log_dir_brokers = set(brokers)
    elif plan is not None:
        rate_brokers = brokers_needing_rates(plan, state.cluster, state.ongoing)
        log_dir_brokers = log_dir_rate_brokers(plan) or {b for a in plan.partitions for b in a.replicas}
    else:
        rate_brokers = log_dir_brokers = known
    ts = throttle_changes(
        state.current,
        lists=lists,
        rate_brokers=rate_brokers,
        log_dir_brokers=log_dir_brokers,
        rates=rates,
        records=state.records.values(),
    )
    _check_targets(ts.changes, state.cluster)
    record = recorded(ts, plan_id, state.records, **who) or state.records.get(plan_id) or ts.record(plan_id, **who)
    return ts, record


def _check_targets(changes, cluster: ClusterState) -> None:
    """Every broker and topic about to be changed exists (a plan may name others): NotFoundError
    before the first change, instead of a partial change and a wait for a broker that is not there."""
    brokers = sorted(
        {
            int(c.resource.name)
            for c in changes
            if c.resource.type is ConfigResourceType.BROKER and c.resource.name.isdigit()
        }
        - set(cluster.brokers)
    )
    topics = sorted(
        {c.resource.name for c in changes if c.resource.type is ConfigResourceType.TOPIC} - set(cluster.topics)
    )
    if brokers or topics:
        named = ([f"broker(s) {','.join(map(str, brokers))}"] if brokers else []) + (
            [f"topic(s) {', '.join(topics)}"] if topics else []
        )
        raise NotFoundError(
            f"the plan names {' and '.join(named)} not in the cluster; nothing was changed",
            hint=f"the cluster has brokers {','.join(map(str, sorted(cluster.brokers)))}",
        )


@dataclass(frozen=True)
class ClearPlan:
    """What ``throttle clear`` removes, the records afterwards, and what stays because a running
    move needs it (for the message)."""

    removal: Removal
    updated: tuple[ThrottleRecord, ...]
    kept_needed: tuple[str, ...]


def plan_throttle_clear(
    state: ThrottleState, *, plan_id: str | None = None, stale: bool = False, force: bool = False
) -> ClearPlan | None:
    """``--plan`` (``plan_id``: what that record set), ``--stale`` (whatever no move needs) or
    ``--all`` (everything, except what a move needs unless ``force``). Records are reconciled
    with what is actually set: a claim on a rate or entry someone else removed is dropped.
    None: ``--plan`` with no record of that plan."""
    records = state.records
    unreadable = state.unreadable_brokers
    if plan_id is not None:
        record = records.get(plan_id)
        if record is None:
            return None
        removal = removal_changes(
            record,
            state.current,
            state.needs,
            force=force,
            unreadable=set(record.brokers) - set(state.cluster.brokers) - {DEFAULT_BROKER_ID},
        )
        others = prune_records([r for p, r in records.items() if p != plan_id], removal)
        return ClearPlan(removal, (removal.kept, *others), _kept_of_record(removal.kept))
    if stale:
        removal = stale_throttles(state.current, state.needs, records.values())
    else:
        removal = clear_changes(state.current, state.needs, force=force)
    updated = reconcile_records(prune_records(records.values(), removal), state.current, unreadable=unreadable)
    kept = () if stale else _kept_needed(state, removal, force)  # --stale never touches what a move needs
    return ClearPlan(removal, tuple(updated), kept)


def _kept_needed(state: ThrottleState, removal: Removal, force: bool) -> tuple[str, ...]:
    if force:
        return ()
    out = []
    removed = {(c.resource.name, c.name) for c in removal.changes}
    for b, by_name in sorted(state.current.broker_rates.items()):
        for name in sorted(by_name):
            if state.needs.needs_rate(b, name) and (broker_resource(b).name, name) not in removed:
                out.append(f"broker {broker_label(b)} {name}")
    for t, kinds in sorted(state.current.topic_replicas.items()):
        for name, entries in sorted(kinds.items()):
            needed = [e for e in entries if state.needs.needs_entry(t, name, e)]
            if needed:
                out.append(f"topic {t} {name} {','.join(needed)}")
    return tuple(out)


def _kept_of_record(record: ThrottleRecord) -> tuple[str, ...]:
    out = [f"broker {broker_label(c.broker)} {c.name}" for c in record.rates]
    out += [
        f"topic {t} {name} {','.join(entries)}"
        for t, kinds in sorted(record.replicas.items())
        for name, entries in sorted(kinds.items())
    ]
    return tuple(out)
