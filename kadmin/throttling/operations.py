"""The throttle operations every caller uses: read the state (``state``), apply, remove. Each
rule once:

- **apply**: the record first, then the configs (a crash leaves a record, never an orphan);
- **remove**: only what nobody needs (``maths.removal_changes``), then every record brought in
  line with what was removed, so two plans sharing a rate never leave it behind.

``execute``, the incremental steps, ``verify``, ``cancel`` and the ``throttle`` commands call these;
the decisions (which brokers, what to merge, what to keep) are the pure functions of ``maths``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from kadmin.errors import ClusterError, KadminError, NotFoundError
from kadmin.model import (
    LOG_DIR_RATE,
    ClusterState,
    ConfigChange,
    ConfigResourceType,
    ReassignmentPlan,
)
from kadmin.throttling.maths import (
    Removal,
    ThrottleRates,
    ThrottleSet,
    clear_changes,
    prune_records,
    reconcile_records,
    recorded,
    removal_changes,
    stale_throttles,
    throttle_changes,
)
from kadmin.throttling.needs import (
    ThrottleNeeds,
    broker_label,
    broker_resource,
    brokers_needing_rates,
    kafka_throttle_lists,
    log_dir_move_brokers,
    rate_targets,
    settable_brokers,
)
from kadmin.throttling.record import ThrottleRecord, freeze_replicas
from kadmin.throttling.state import ThrottleState, read_throttle_state
from kadmin.throttling.stores import RecordStore

if TYPE_CHECKING:
    from kadmin.backends.base import BrokerLogDirs

MANUAL_PLAN_ID = "manual"  # the record of `throttle set` without a plan


# --- apply ---------------------------------------------------------------------------------
def apply_throttles(
    backend,
    store: RecordStore | None,
    changes: Iterable[ConfigChange],
    record: ThrottleRecord | None,
    *,
    earlier: ThrottleRecord | None = None,
    written: bool = False,
    co_claims: Collection[tuple[int, str]] = (),
) -> None:
    """The record first (KIP-179's order: a crash leaves a record, not an unrecorded throttle),
    then the configs. A record that cannot be written changes nothing. ``written``: the record
    was written by an earlier call (execute writes it alone first).

    A config change that fails after others were made raises ConfigChangesPartlyMade: its
    ``made`` are the changes the cluster accepted (to be reported); on any failure the record is written again to
    claim only those (``earlier``: this plan's record before, what it goes back to for a change
    not made), so ``throttle clear --plan`` removes exactly what was set. ``co_claims``: the
    rates ``record`` claims with no change (``co_claimed``): a run that fails did not make
    them either, so they go back too (a refused run records nothing; a later run that is not
    refused claims them again).

    A backend that sends in turn (``config_outcomes.InTurn``, ``throttle set``) raises
    ConfigChangesInterrupted on Ctrl-C, saying what was made and what was in flight: the record
    is then written again to claim those two, not what was never sent, and it is raised on."""
    changes = list(changes)
    if record is not None and store is not None and not written:
        try:
            store.put(record)
        except KadminError as e:
            e.message = f"{e.message}; nothing was changed"
            raise
    if changes:
        _alter(backend, store, changes, record, earlier, co_claims)


def _alter(backend, store, changes: list[ConfigChange], record, earlier, co_claims) -> None:
    from kadmin.backends.config_outcomes import ConfigChangesInterrupted, ConfigChangesPartlyMade, made_before

    try:
        backend.incremental_alter_configs(changes)
    except ConfigChangesInterrupted as e:  # the record claims what was made or may have been, no more
        if record is not None and store is not None:
            sent = {*e.made, *e.unanswered}
            with contextlib.suppress(KadminError):  # else it still claims what was not sent: clear reconciles it
                store.put(claims_made(record, earlier, [c for c in changes if c not in sent], co_claims))
        raise
    except KadminError as e:
        made = made_before(e)
        cause = e.cause if isinstance(e, ConfigChangesPartlyMade) else e
        if record is not None and store is not None:
            kept = claims_made(record, earlier, [c for c in changes if c not in made], co_claims)
            try:
                store.put(kept)
            except KadminError as w:  # the record still claims what was not set: clear reconciles it
                cause.message = f"{cause.message}; kadmin's record could not be brought in line ({w.message})"
        if not made:
            raise
        raise ConfigChangesPartlyMade(cause, made) from e


def claims_made(
    record: ThrottleRecord,
    earlier: ThrottleRecord | None,
    not_made: Iterable[ConfigChange],
    co_claims: Collection[tuple[int, str]] = (),
) -> ThrottleRecord:
    """``record`` claiming only what was set: each rate and topic list a change ``not_made``
    would have set, and each rate of ``co_claims`` (claimed with no change: ``co_claimed``),
    goes back to what ``earlier`` claimed of it (nothing, without it)."""
    rates_not_made = {
        (int(c.resource.name), c.name)
        for c in not_made
        if c.resource.type is ConfigResourceType.BROKER and c.resource.name.isdigit()
    } | set(co_claims)
    lists_not_made = {(c.resource.name, c.name) for c in not_made if c.resource.type is ConfigResourceType.TOPIC}
    before = {(c.broker, c.name): c for c in earlier.rates} if earlier is not None else {}
    rates = (before.get((c.broker, c.name)) if (c.broker, c.name) in rates_not_made else c for c in record.rates)
    before_lists = earlier.replicas if earlier is not None else {}
    replicas = {
        t: {
            n: before_lists.get(t, {}).get(n, ()) if (t, n) in lists_not_made else entries
            for n, entries in kinds.items()
        }
        for t, kinds in record.replicas.items()
    }
    return replace(record, rates=tuple(c for c in rates if c is not None), replicas=freeze_replicas(replicas))


def co_claimed(ts: ThrottleSet) -> frozenset[tuple[int, str]]:
    """(broker, config) of the rates ``ts`` claims with no change: already at the value another
    kadmin record claims, so both records own it (``maths.throttle_changes``). A run whose
    changes fail did not make them: ``claims_made`` gives them back to the earlier record."""
    changed = {
        (int(c.resource.name), c.name)
        for c in ts.changes
        if c.resource.type is ConfigResourceType.BROKER and c.resource.name.isdigit()
    }
    return frozenset((c.broker, c.name) for c in ts.rates if (c.broker, c.name) not in changed)


# --- remove ----------------------------------------------------------------------------------
def remove_throttles(
    backend,
    store: RecordStore | None,
    removal: Removal,
    records: Mapping[str, ThrottleRecord],
    updated: Iterable[ThrottleRecord],
) -> None:
    """Apply ``removal``, then write every record ``updated`` changed (an emptied one is deleted).
    A removal that fails after removing something raises ConfigChangesPartlyMade (``made``: what was removed, to
    be reported) and leaves the records as they were: they still claim what is left, and the
    same removal run again removes it (a claim on a value no longer set is dropped then)."""
    if removal.changes:  # ConfigChangesPartlyMade or ConfigChangesInterrupted (InTurn) passes through: the records stay
        backend.incremental_alter_configs(removal.changes)
    _write_records(store, records, updated)


def _write_records(
    store: RecordStore | None, records: Mapping[str, ThrottleRecord], updated: Iterable[ThrottleRecord]
) -> None:
    if store is not None:
        for r in updated:
            if r != records.get(r.plan_id):
                store.put(r)


class ThrottleRemovalFailed(ClusterError):
    """Removing a plan's throttles failed (``cause``: its error, naming the resource): ``removed``
    is what was removed before it (a Removal of those changes; the records were left as they
    were, so they still name the rest), ``not_removed`` the changes that were not made."""

    def __init__(self, cause: KadminError, made: Collection[ConfigChange], removal: Removal, record: ThrottleRecord):
        super().__init__(cause.message, hint=cause.hint)
        self.cause = cause
        self.exit_code = cause.exit_code
        self.removed = removed_only(removal, made, record)
        self.not_removed = tuple(c for c in removal.changes if c not in made)


class ThrottleRemovalInterrupted(KeyboardInterrupt):
    """Ctrl-C while a plan's throttles were being removed: ``removed`` what was removed (a Removal
    of those changes), ``unanswered`` the changes sent without an answer (they may have been
    made), ``not_removed`` the rest, not sent. The records were left as they were: they still
    name the rest, and the same removal run again removes it (a claim on a value no longer set
    is dropped then)."""

    def __init__(self, interrupted, removal: Removal, record: ThrottleRecord):
        super().__init__()
        self.removal = removal
        self.removed = removed_only(removal, interrupted.made, record)
        self.unanswered = tuple(interrupted.unanswered)
        sent = {*interrupted.made, *interrupted.unanswered}
        self.not_removed = tuple(c for c in removal.changes if c not in sent)


def removed_only(removal: Removal, made: Collection[ConfigChange], record: ThrottleRecord) -> Removal:
    """``removal`` cut down to the changes ``made``; ``record`` keeps every claim (``kept``: it
    was not rewritten)."""
    rates = {(c.resource.name, c.name) for c in made if c.resource.type is ConfigResourceType.BROKER}
    lists = {(c.resource.name, c.name) for c in made if c.resource.type is ConfigResourceType.TOPIC}
    return Removal(
        changes=tuple(c for c in removal.changes if c in made),
        removed_rates=tuple(c for c in removal.removed_rates if (broker_resource(c.broker).name, c.name) in rates),
        removed_entries={
            t: {n: entries for n, entries in kinds.items() if (t, n) in lists}
            for t, kinds in removal.removed_entries.items()
            if any((t, n) in lists for n in kinds)
        },
        kept=record,
    )


def remove_plan_throttles(
    backend, store: RecordStore, plan_id: str, *, force: bool = False, records: dict[str, ThrottleRecord] | None = None
) -> Removal | None:
    """Remove what ``plan_id``'s record set that no running move needs (verify, the end of an
    incremental run, ``throttle clear --plan``); None when there is no record. Rates on a broker
    whose configs cannot be read (down, over the AdminClient protocol) stay recorded for a later
    run; over ZooKeeper a down broker's are read and removed. Other records sharing a removed rate (two plans
    that set the same rate) drop it too: it is gone. ``records``: the store's records, when the
    caller has just read them. A config change refused raises ThrottleRemovalFailed, saying
    what was removed before it; the records are then left as they were."""
    records = store.load_all() if records is None else records
    record = records.get(plan_id)
    if record is None or record.empty:
        return None
    state = read_throttle_state(backend, None, brokers=record.brokers, topics=record.topics)
    # What other incremental runs still need stays; this plan's own later steps do not hold it.
    others_runs = (r for pid, r in records.items() if pid != plan_id)
    needs = state.needs.with_runs(others_runs, state.cluster, state.moves)
    other_records = [r for pid, r in records.items() if pid != plan_id]
    removal = removal_changes(
        record, state.current, needs, force=force, unreadable=state.unreadable_brokers, others=other_records
    )
    others = prune_records(other_records, removal) if removal.removed_rates else []
    if removal.changes:
        from kadmin.backends.config_outcomes import ConfigChangesInterrupted, ConfigChangesPartlyMade, made_before

        try:  # a backend that sends in turn (config_outcomes.InTurn) says what a Ctrl-C left
            backend.incremental_alter_configs(removal.changes)
        except ConfigChangesInterrupted as e:  # what was removed is said; the records stay, naming the rest
            raise ThrottleRemovalInterrupted(e, removal, record) from e
        except KadminError as e:  # what was removed is said; the records stay, naming the rest
            cause = e.cause if isinstance(e, ConfigChangesPartlyMade) else e
            raise ThrottleRemovalFailed(cause, made_before(e), removal, record) from e
    _write_records(store, records, [removal.kept, *others])
    return removal


# --- what the throttle commands decide --------------------------------------------------------
@dataclass(frozen=True)
class SetPlan:
    """What ``throttle set`` changes, the record to write, and the down brokers whose rates are
    not set (``skipped_down``: over the AdminClient protocol a down broker's configs cannot change)."""

    throttles: ThrottleSet
    record: ThrottleRecord
    skipped_down: frozenset[int] = frozenset()
    skipped_rates: ThrottleRates | None = None  # the rates they were not given

    @property
    def warning(self) -> str | None:
        """The one line naming the down brokers left without a rate, or None."""
        if not self.skipped_down or self.skipped_rates is None:
            return None
        return down_brokers_warning(self.skipped_down, self.skipped_rates)


def plan_throttle_set(
    state: ThrottleState,
    *,
    rates: ThrottleRates,
    plan: ReassignmentPlan | None,
    plan_id: str,
    brokers: Collection[int] | None = None,
    log_dirs: Mapping[int, BrokerLogDirs] | None = None,
    **who,
) -> SetPlan:
    """``throttle set``: rates on ``brokers`` (default: the plan's source and destination brokers;
    for the log-dir rate its brokers with explicit log_dirs targets that move a replica, as
    ``log_dir_move_brokers`` reads ``log_dirs``, none when the plan has none; without a plan every
    broker), the
    plan's lists merged into what is set, and the record to write. By default, brokers that are
    down are left out where their configs cannot change (``needs.rate_targets``; named in
    ``skipped_down``, for a warning); named in ``brokers`` they are refused. Unknown brokers or
    topics: NotFoundError before anything changes. The plan's own problems against the cluster
    (unknown partitions, for one: they are left out of the lists here) are the caller's to report
    first, with ``kadmin.plan.validate.check_reassignment`` as ``throttle set`` does."""
    cluster = state.cluster
    settable = settable_brokers(cluster, down_configurable=state.down_configurable)
    if brokers is not None:
        _check_brokers(set(brokers) - settable, cluster)
    lists = kafka_throttle_lists(plan, cluster, state.ongoing) if plan is not None else None
    skipped: set[int] = set()
    skipped_rates = None
    if brokers is not None:
        rate_brokers = log_dir_brokers = set(brokers)
    else:
        if plan is not None:
            rate_brokers = brokers_needing_rates(plan, cluster, state.ongoing)
            log_dir_brokers = log_dir_move_brokers(plan, log_dirs, cluster)
        else:
            rate_brokers = log_dir_brokers = set(cluster.brokers) | cluster.down_brokers()
        rate_brokers, down = rate_targets(rate_brokers, cluster, down_configurable=state.down_configurable)
        log_dir_brokers, down_log_dir = rate_targets(
            log_dir_brokers, cluster, down_configurable=state.down_configurable
        )
        skipped_rates = rates_not_given(rates, down, down_log_dir)
        skipped = (down if skipped_rates.leader is not None or skipped_rates.follower is not None else set()) | (
            down_log_dir if skipped_rates.log_dir is not None else set()
        )
    ts = throttle_changes(
        state.current,
        lists=lists,
        rate_brokers=rate_brokers,
        log_dir_brokers=log_dir_brokers,
        rates=rates,
        records=state.records.values(),
    )
    check_targets(ts.changes, cluster, settable)
    record = recorded(ts, plan_id, state.records, **who) or state.records.get(plan_id) or ts.record(plan_id, **who)
    return SetPlan(ts, record, frozenset(skipped), skipped_rates)


def _check_brokers(missing: Collection[int], cluster: ClusterState) -> None:
    """``--brokers`` naming brokers whose configs cannot change: NotFoundError (exit 2)."""
    if not missing:
        return
    from kadmin.units import plural

    down = cluster.down_brokers()
    not_alive = sorted(b for b in missing if b in down)
    unknown = sorted(b for b in missing if b not in down)
    why = ([f"unknown {plural('broker', len(unknown))} {_ids(unknown)}"] if unknown else []) + (
        [
            f"{plural('broker', len(not_alive))} {_ids(not_alive)} not alive (down, or not a broker of this "
            "cluster): a broker's configs change only while it runs"
        ]
        if not_alive
        else []
    )
    raise NotFoundError(f"{'; '.join(why)}; the cluster has {_ids(sorted(cluster.brokers))}; nothing was changed")


def _ids(brokers: Iterable[int]) -> str:
    return ",".join(map(str, brokers))


def rates_not_given(rates: ThrottleRates, down: Collection[int], down_log_dir: Collection[int]) -> ThrottleRates:
    """The ``rates`` that brokers left out (``down``: the replication rates; ``down_log_dir``: the
    log-dir rate) were not given: what the warning's command sets."""
    return ThrottleRates(
        rates.leader if down else None, rates.follower if down else None, rates.log_dir if down_log_dir else None
    )


def down_brokers_warning(skipped: Collection[int], rates: ThrottleRates) -> str:
    """One line for the rates not set on down brokers (``SetPlan.skipped_down``, or execute's)."""
    flags = []
    if rates.leader is not None and rates.leader == rates.follower:
        flags.append(f"--rate {rates.leader}")
    else:
        flags += [f"--leader-rate {rates.leader}"] if rates.leader is not None else []
        flags += [f"--follower-rate {rates.follower}"] if rates.follower is not None else []
    flags += [f"--log-dir-rate {rates.log_dir}"] if rates.log_dir is not None else []
    ids = _ids(sorted(skipped))
    one = len(skipped) == 1
    return (
        f"broker{'' if one else 's'} {ids} {'is' if one else 'are'} down: no rate is set there (a broker's configs "
        f"change only while it runs; it sends nothing while down); if {'it comes' if one else 'they come'} back "
        f"before the move ends, set {'its' if one else 'their'} rate: `kadmin throttle set {' '.join(flags)} "
        f"--brokers {ids}`"
    )


def check_targets(changes, cluster: ClusterState, settable: Collection[int] | None = None) -> None:
    """Every broker and topic about to be changed exists and can be changed (``settable``: the
    brokers whose configs can change, default the running ones; a plan may name others):
    NotFoundError before the first change, instead of a partial change and a wait for a broker
    that is not there."""
    settable = set(cluster.brokers) if settable is None else set(settable)
    brokers = sorted(
        {
            int(c.resource.name)
            for c in changes
            if c.resource.type is ConfigResourceType.BROKER and c.resource.name.isdigit()
        }
        - settable
    )
    topics = sorted(
        {c.resource.name for c in changes if c.resource.type is ConfigResourceType.TOPIC} - set(cluster.topics)
    )
    if brokers or topics:
        from kadmin.units import plural

        named = ([f"{plural('broker', len(brokers))} {_ids(brokers)}"] if brokers else []) + (
            [f"{plural('topic', len(topics))} {', '.join(topics)}"] if topics else []
        )
        not_alive = set(brokers) & cluster.down_brokers()
        down = (
            f" ({plural('broker', len(not_alive))} not alive: down, or not a broker of this cluster)"
            if not_alive
            else ""
        )
        raise NotFoundError(
            f"the plan names {' and '.join(named)} not in the cluster{down}; nothing was changed",
            hint=f"the cluster has brokers {_ids(sorted(cluster.brokers))}",
        )


@dataclass(frozen=True)
class ClearPlan:
    """What ``throttle clear`` removes, the records afterwards, what stays because a running
    move needs it (for the message; a rate kadmin recorded on a broker that is down and a move
    needs is among them, with why), and what kadmin recorded on brokers that are down and is
    not removed though no move needs it (``left_down``: broker -> "config value" of each rate;
    the run then fails: a later run, once the broker is back, removes it).
    ``--plan``: ``removal.shared`` are its rates left set for other plans claiming the same value."""

    removal: Removal
    updated: tuple[ThrottleRecord, ...]
    kept_needed: tuple[str, ...]
    left_down: Mapping[int, tuple[str, ...]] = field(default_factory=dict)

    def kept_shared_lines(self) -> tuple[str, ...]:
        """ "broker 2 <config> 1000000: still claimed by plan X", one per rate left to other plans."""
        return tuple(s.line() for s in self.removal.shared)

    def left_down_lines(self) -> tuple[str, ...]:
        """ "broker 3 leader.replication.throttled.rate 5000000", one per rate left on a down broker."""
        return tuple(f"broker {b} {claim}" for b, claims in sorted(self.left_down.items()) for claim in claims)


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
        needs = state.needs.without_run(plan_id)  # its own steps to come: the run sets them again
        other_records = [r for p, r in records.items() if p != plan_id]
        removal = removal_changes(
            record, state.current, needs, force=force, unreadable=unreadable, others=other_records
        )
        others = prune_records(other_records, removal)
        kept_down, left = _claims_on(unreadable, [removal.kept], needs, force=force)
        kept_record = replace(removal.kept, rates=tuple(c for c in removal.kept.rates if c.broker not in unreadable))
        return ClearPlan(removal, (removal.kept, *others), _kept_of_record(kept_record) + kept_down, left)
    if stale:
        removal = stale_throttles(state.current, state.needs)
    else:
        removal = clear_changes(state.current, state.needs, force=force)
    updated = reconcile_records(prune_records(records.values(), removal), state.current, unreadable=unreadable)
    # --stale never touches what a move needs: it names only what it keeps on brokers that are
    # down (it could not read them, and would not remove them if it could).
    kept_down, left = _claims_on(unreadable, records.values(), state.needs, force=force and not stale)
    kept = kept_down if stale else _kept_needed(state, removal, force) + kept_down
    return ClearPlan(removal, tuple(updated), kept, left)


def _claims_on(
    brokers: Collection[int], records: Iterable[ThrottleRecord], needs: ThrottleNeeds, *, force: bool
) -> tuple[tuple[str, ...], dict[int, tuple[str, ...]]]:
    """The rates ``records`` claim on ``brokers`` (down: their configs cannot be changed): those
    a move needs (unless ``force``), as kept lines saying why, and the others, left on them
    (broker -> "config value"): not removed, though no move needs them."""
    claims = sorted({(c.broker, c.name, c.value) for r in records for c in r.rates if c.broker in brokers})
    kept: list[str] = []
    left: dict[int, list[str]] = {}
    for b, name, value in claims:
        if force or not needs.needs_rate(b, name):
            left.setdefault(b, []).append(f"{name} {value}")
        elif name == LOG_DIR_RATE:
            kept.append(
                f"broker {b} {name} {value} (broker {b} is down: a move between its log directories cannot be "
                "seen, and resumes when it is back)"
            )
        else:
            kept.append(f"broker {b} {name} {value} (broker {b} is down; a running move needs it)")
    return tuple(kept), {b: tuple(v) for b, v in left.items()}


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
