"""Replication throttle changes: what to set for a plan (merged with what is set), and what to
remove once nothing needs it.

kadmin sets the lists and rates Kafka's tool would (``needs``), but merges them with what is
already set (Kafka's tool overwrites) and removes only what it set itself, once nothing that
needs it still moves (Kafka's tool deletes everything on ``--verify``).

Everything here is pure: current throttles, needs and records in; config changes and records out.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace

from kadmin.model import (
    FOLLOWER_RATE,
    LEADER_RATE,
    LOG_DIR_RATE,
    AlterOp,
    ConfigChange,
    ConfigResource,
    ConfigResourceType,
    Throttle,
    format_replica_list,
    parse_replica_list,
)
from kadmin.throttling.needs import (
    FOLLOWER,
    LEADER,
    LIST_CONFIG,
    WILDCARD,
    ReplicaLists,
    ThrottleNeeds,
    broker_resource,
)
from kadmin.throttling.record import RateClaim, ThrottleRecord, freeze_replicas


# --- list values ------------------------------------------------------------------------------
def merge_replica_lists(existing: str | None, add: Iterable[str]) -> str:
    """``existing`` plus ``add``, sorted and distinct; "*" already throttles everything."""
    have = parse_replica_list(existing)
    if WILDCARD in have:
        return WILDCARD
    return format_replica_list([*have, *add])


def remove_from_replica_list(existing: str | None, remove: Iterable[str]) -> str | None:
    """``existing`` without ``remove``; None when nothing is left (delete the config).
    A "*" was not set entry by entry: removing entries leaves it, only removing "*" removes it."""
    have = parse_replica_list(existing)
    remove = set(remove)
    if WILDCARD in have and WILDCARD not in remove:
        return WILDCARD
    left = set(have) - remove
    return format_replica_list(sorted(left)) if left else None


# --- setting throttles -----------------------------------------------------------------------
@dataclass(frozen=True)
class ThrottleRates:
    """Requested rates in bytes/s; None leaves that rate alone."""

    leader: int | None = None
    follower: int | None = None
    log_dir: int | None = None

    @classmethod
    def both(cls, rate: int | None, log_dir: int | None = None) -> ThrottleRates:
        return cls(rate, rate, log_dir)


@dataclass(frozen=True)
class ThrottleSet:
    """What setting throttles changes (apply ``changes``), and what to record as kadmin's."""

    changes: tuple[ConfigChange, ...]
    rates: tuple[RateClaim, ...]
    replicas: dict[str, dict[str, tuple[str, ...]]]

    @property
    def claims_anything(self) -> bool:
        """Something to change, or a rate to share with another kadmin record."""
        return bool(self.changes or self.rates or self.replicas)

    def record(self, plan_id: str, **who) -> ThrottleRecord:
        return ThrottleRecord(plan_id=plan_id, rates=self.rates, replicas=self.replicas, **who)


def recorded(ts: ThrottleSet, plan_id: str, records: Mapping[str, ThrottleRecord], **who) -> ThrottleRecord | None:
    """The record to write for ``ts``: this plan's earlier record plus what ``ts`` claims; None
    when ``ts`` claims nothing."""
    if not ts.claims_anything:
        return None
    record = ts.record(plan_id, **who)
    earlier = records.get(plan_id)
    return earlier.merged(record) if earlier is not None else record


def throttle_changes(
    current: Throttle,
    *,
    lists: ReplicaLists | None = None,
    rate_brokers: Iterable[int] = (),
    log_dir_brokers: Iterable[int] = (),
    rates: ThrottleRates = ThrottleRates(),
    records: Iterable[ThrottleRecord] = (),
) -> ThrottleSet:
    """Config changes that add ``lists`` to the topics' lists (merging) and set ``rates`` on the
    brokers, plus what kadmin now owns. Rates equal to what is set already change nothing; they
    are claimed only when another kadmin record claims them (both plans then own the rate, so
    whichever finishes last can remove it: a rate a person set stays theirs). A claim's
    ``previous`` is the value a person set before kadmin: when the value being replaced was
    itself set by another kadmin record, its ``previous`` is inherited and the value is kept as
    ``replaced``: removal gives it back while that record still claims it, and the person's
    value once none does (``restored_value``)."""
    rates_now = current.broker_rates
    # The claims on the value each rate has now (a claim on a value since changed is not the
    # rate's: the value being replaced is then a person's)
    claimed = {
        (c.broker, c.name): c for r in records for c in r.rates if rates_now.get(c.broker, {}).get(c.name) == c.value
    }
    changes: list[ConfigChange] = []
    claims: list[RateClaim] = []

    def set_rate(broker: int, name: str, value: int | None) -> None:
        if value is None:
            return
        now = rates_now.get(broker, {}).get(name)
        other = claimed.get((broker, name))
        if now == value:
            if other is not None:
                claims.append(RateClaim(broker, name, value, other.previous, other.replaced))
            return
        changes.append(
            ConfigChange(ConfigResource(ConfigResourceType.BROKER, str(broker)), name, AlterOp.SET, str(value))
        )
        if other is None:
            claims.append(RateClaim(broker, name, value, now))
        else:
            claims.append(RateClaim(broker, name, value, other.previous, now))

    for b in sorted(set(rate_brokers)):
        set_rate(b, LEADER_RATE, rates.leader)
        set_rate(b, FOLLOWER_RATE, rates.follower)
    for b in sorted(set(log_dir_brokers)):
        set_rate(b, LOG_DIR_RATE, rates.log_dir)

    added: dict[str, dict[str, tuple[str, ...]]] = {}
    for topic in sorted(lists or {}):
        for kind in (LEADER, FOLLOWER):
            name = LIST_CONFIG[kind]
            have = current.topic_replicas.get(topic, {}).get(name, ())
            if WILDCARD in have:
                continue
            new = set((lists or {})[topic].get(kind, ())) - set(have)
            if not new:
                continue
            value = merge_replica_lists(format_replica_list(have), new)
            changes.append(ConfigChange(ConfigResource(ConfigResourceType.TOPIC, topic), name, AlterOp.SET, value))
            added.setdefault(topic, {})[name] = parse_replica_list(format_replica_list(sorted(new)))
    return ThrottleSet(tuple(changes), tuple(claims), added)


# --- removing what kadmin set -----------------------------------------------------------------
@dataclass(frozen=True)
class SharedRate:
    """A rate a removal left set because other records claim the same value (``plan_ids``):
    it is theirs too, so only the record's claim goes; the last of them removes the rate."""

    claim: RateClaim
    plan_ids: tuple[str, ...]

    def line(self) -> str:
        """ "broker 2 replica.alter.log.dirs.io.max.bytes.per.second 1000000: still claimed by plan X"."""
        from kadmin.units import plural

        plans = ", ".join(self.plan_ids)
        return (
            f"broker {self.claim.broker} {self.claim.name} {self.claim.value}: still claimed by "
            f"{plural('plan', len(self.plan_ids))} {plans}"
        )


@dataclass(frozen=True)
class Removal:
    """Changes that remove (part of) a record's throttles, what they remove, and what is left."""

    changes: tuple[ConfigChange, ...]
    removed_rates: tuple[RateClaim, ...]
    removed_entries: dict[str, dict[str, tuple[str, ...]]]
    kept: ThrottleRecord  # what the record still owns (empty when everything went)
    shared: tuple[SharedRate, ...] = ()  # left set for other records claiming the same value


def restored_value(claim: RateClaim, others: Iterable[ThrottleRecord]) -> int | None:
    """What removing ``claim`` puts back (None: delete the rate). A claim set over another kadmin
    record's value (``replaced``) gives back a value a live record still claims, so that record
    does not claim a rate that is gone: the one it replaced while its record claims it, else the
    latest other record's (a record may have dropped the one replaced); once none is claimed, the
    value a person set before kadmin (``previous``). Claims of the same value share the rate and
    are not a value to give back."""
    if claim.replaced is None:
        return claim.previous
    live = [
        (r.created_at, r.plan_id, c.value)
        for r in others
        for c in r.rates
        if (c.broker, c.name) == (claim.broker, claim.name) and c.value != claim.value
    ]
    if any(value == claim.replaced for *_, value in live):
        return claim.replaced
    return max(live)[2] if live else claim.previous


def removal_changes(
    record: ThrottleRecord,
    current: Throttle,
    needs: ThrottleNeeds,
    *,
    force: bool = False,
    unreadable: Collection[int] = (),
    others: Iterable[ThrottleRecord] = (),
) -> Removal:
    """Remove what ``record`` set, except what a running move still needs (unless ``force``).

    A rate someone changed since kadmin set it is no longer kadmin's: it is left as it is and
    dropped from the record. An entry already gone is dropped from the record too. A rate on a
    broker in ``unreadable`` (down: its configs could not be read) is kept in the record, so a
    later run removes it, rather than taken for changed and forgotten. A rate another of
    ``others`` claims at the same value (two plans that set the same rate) is theirs too: it
    stays set, even with ``force`` (which overrides what moves need, not who owns it), and this
    record's claim goes (``Removal.shared``), also while a move needs the rate (the others hold
    it; a claim kept here would make them leave it to this record in turn): the last record
    claiming it removes it. A rate
    removed is given back the value ``restored_value`` finds among ``others`` or deleted.
    """
    others = list(others)
    changes: list[ConfigChange] = []
    removed_rates: list[RateClaim] = []
    kept_rates: list[RateClaim] = []
    shared: list[SharedRate] = []
    for c in sorted(record.rates, key=RateClaim.key):
        if c.broker in unreadable:
            kept_rates.append(c)
            continue
        now = current.broker_rates.get(c.broker, {}).get(c.name)
        sharing = sorted(
            {r.plan_id for r in others for o in r.rates if (o.broker, o.name, o.value) == (c.broker, c.name, c.value)}
        )
        if sharing and now == c.value:  # theirs too: it stays, needed or not, and they hold it
            shared.append(SharedRate(c, tuple(sharing)))
            continue
        if not force and needs.needs_rate(c.broker, c.name):
            kept_rates.append(c)
            continue
        if now != c.value:
            continue
        res = broker_resource(c.broker)
        back = restored_value(c, others)
        if back is None:
            changes.append(ConfigChange(res, c.name, AlterOp.DELETE))
        else:
            changes.append(ConfigChange(res, c.name, AlterOp.SET, str(back)))
        removed_rates.append(c)

    kept_lists: dict[str, dict[str, set[str]]] = {}
    removed_entries: dict[str, dict[str, tuple[str, ...]]] = {}
    for topic, kinds in sorted(record.replicas.items()):
        for name, entries in sorted(kinds.items()):
            have = current.topic_replicas.get(topic, {}).get(name, ())
            keep = {e for e in entries if not force and needs.needs_entry(topic, name, e)}
            drop = {e for e in entries if e not in keep and e in have}
            if keep:
                kept_lists.setdefault(topic, {})[name] = keep
            if not drop:
                continue
            value = remove_from_replica_list(format_replica_list(have), drop)
            res = ConfigResource(ConfigResourceType.TOPIC, topic)
            if value is None:
                changes.append(ConfigChange(res, name, AlterOp.DELETE))
            else:
                changes.append(ConfigChange(res, name, AlterOp.SET, value))
            removed_entries.setdefault(topic, {})[name] = parse_replica_list(format_replica_list(sorted(drop)))
    kept = replace(record, rates=tuple(kept_rates), replicas=freeze_replicas(kept_lists))
    return Removal(tuple(changes), tuple(removed_rates), removed_entries, kept, tuple(shared))


def clear_changes(current: Throttle, needs: ThrottleNeeds, *, force: bool = False) -> Removal:
    """Remove every throttle (``throttle clear --all``), whoever set it, except what a running
    move needs unless ``force``. Rates are deleted, not restored."""
    everything = ThrottleRecord(
        plan_id="*",
        rates=tuple(
            RateClaim(b, name, v) for b, by_name in current.broker_rates.items() for name, v in by_name.items()
        ),
        replicas={t: dict(kinds) for t, kinds in current.topic_replicas.items()},
    )
    return _with_invalid_deleted(removal_changes(everything, current, needs, force=force), current)


def _with_invalid_deleted(removal: Removal, current: Throttle) -> Removal:
    """``removal`` that also deletes every rate config Kafka cannot read ("abc"): not kadmin's,
    and no move needs it (Kafka cannot apply it), so ``clear --stale`` and ``--all`` remove it."""
    invalid = current.invalid_rates
    deletions = tuple(
        ConfigChange(broker_resource(b), name, AlterOp.DELETE) for b in sorted(invalid) for name in sorted(invalid[b])
    )
    return replace(removal, changes=deletions + removal.changes) if deletions else removal


# --- stale throttles and records -------------------------------------------------------------
def stale_throttles(current: Throttle, needs: ThrottleNeeds) -> Removal:
    """Changes removing every throttle no running move needs (``throttle clear --stale``):
    rates no move uses and list entries of partitions not moving, whoever set them. A rate
    kadmin set over a person's is deleted too, not given back the person's value: that value
    would be stale as well (no move needs it), and a second run would delete it: one run leaves
    what two would."""
    everything = ThrottleRecord(
        plan_id="stale",
        rates=tuple(
            RateClaim(b, name, v) for b, by_name in current.broker_rates.items() for name, v in by_name.items()
        ),
        replicas={t: dict(kinds) for t, kinds in current.topic_replicas.items()},
    )
    return _with_invalid_deleted(removal_changes(everything, current, needs), current)


def prune_records(records: Iterable[ThrottleRecord], removal: Removal) -> list[ThrottleRecord]:
    """Records without what ``removal`` took away (after clear --stale / --all): a rate removed
    is gone from every record, except where it was given back a value a record claims
    (``restored_value``): that record keeps its claims of other values than the one removed."""
    records = list(records)
    given_back = {
        (c.resource.name, c.name): c.value
        for c in removal.changes
        if c.resource.type is ConfigResourceType.BROKER and c.op is AlterOp.SET
    }
    claimed_back = {
        (b, name)
        for r in records
        for b, name, value in ((c.broker, c.name, c.value) for c in r.rates)
        if given_back.get((broker_resource(b).name, name)) == str(value)
    }
    removed = {(c.broker, c.name): c.value for c in removal.removed_rates}

    def gone(c: RateClaim) -> bool:
        key = (c.broker, c.name)
        return key in removed and (key not in claimed_back or c.value == removed[key])

    out = []
    for r in records:
        replicas = {
            t: {n: set(v) - set(removal.removed_entries.get(t, {}).get(n, ())) for n, v in kinds.items()}
            for t, kinds in r.replicas.items()
        }
        out.append(
            replace(
                r,
                rates=tuple(c for c in r.rates if not gone(c)),
                replicas=freeze_replicas(replicas),
            )
        )
    return out


def reconcile_records(
    records: Iterable[ThrottleRecord], current: Throttle, *, unreadable: Collection[int] = ()
) -> list[ThrottleRecord]:
    """Records without what is no longer set as they claim it: a rate someone deleted or
    changed, an entry someone removed (records and live configs must not drift). ``current``
    must cover every broker and topic the records name; claims on ``unreadable`` brokers (down)
    are kept for a later run."""
    out = []
    for r in records:
        rates = tuple(
            c
            for c in r.rates
            if c.broker in unreadable or current.broker_rates.get(c.broker, {}).get(c.name) == c.value
        )
        replicas = {
            t: {n: set(v) & set(current.topic_replicas.get(t, {}).get(n, ())) for n, v in kinds.items()}
            for t, kinds in r.replicas.items()
        }
        out.append(replace(r, rates=rates, replicas=freeze_replicas(replicas)))
    return out
