"""Replication throttle maths: which lists and rates a plan needs, what to change, what to remove.

Kafka's tool (ReassignPartitionsCommand) computes, per moving partition, the *sources* (the
current replicas; for a partition already reassigning, its replicas minus those being added)
and the *destinations* (target replicas that are not sources). The leader list gets
``partition:source`` for every source, the follower list ``partition:destination`` for every
destination; both rates go on every source and destination broker; the log-dir rate goes on
brokers with an explicit ``log_dirs`` target. kadmin computes the same lists, but merges them
with what is already set (Kafka's tool overwrites) and removes only what it set itself, once
nothing that needs it still moves (Kafka's tool deletes everything on ``--verify``).

Everything here is pure: cluster state, configs and records in; config changes and records out.

Cluster-wide default rates (the broker resource with an empty name, ``kafka-configs
--entity-default``) are rates of the pseudo-broker ``DEFAULT_BROKER_ID``: shown, needed while any
move runs, and removed like per-broker rates.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace

from kadmin.model import (
    FOLLOWER_RATE,
    FOLLOWER_REPLICAS,
    LEADER_RATE,
    LEADER_REPLICAS,
    LOG_DIR_RATE,
    AlterOp,
    ClusterState,
    ConfigChange,
    ConfigEntry,
    ConfigResource,
    ConfigResourceType,
    ConfigSource,
    PartitionReassignment,
    ReassignmentPlan,
    Throttle,
    TopicPartition,
    format_replica_list,
    parse_replica_list,
)
from kadmin.throttling.record import RateClaim, ThrottleRecord, freeze_replicas

LEADER = "leader"
FOLLOWER = "follower"
LIST_CONFIG = {LEADER: LEADER_REPLICAS, FOLLOWER: FOLLOWER_REPLICAS}
INTER_BROKER_RATES = (LEADER_RATE, FOLLOWER_RATE)
WILDCARD = "*"
DEFAULT_BROKER_ID = -1  # the cluster-wide default broker resource (name "")


def broker_resource(broker: int) -> ConfigResource:
    """The config resource of a broker id; ``DEFAULT_BROKER_ID`` is the default resource ("")."""
    return ConfigResource(ConfigResourceType.BROKER, "" if broker == DEFAULT_BROKER_ID else str(broker))


def broker_label(broker: int | str) -> str:
    """ "3", or "<default>" for the cluster-wide default (as ``throttle show`` names it)."""
    return "<default>" if broker in (DEFAULT_BROKER_ID, "", str(DEFAULT_BROKER_ID)) else str(broker)


ReplicaLists = dict[str, dict[str, set[str]]]  # topic -> "leader"/"follower" -> {"p:b"}


@dataclass(frozen=True)
class PartitionMove:
    """Kafka's PartitionMove: the replicas data is copied from, and the ones it is copied to."""

    sources: frozenset[int]
    destinations: frozenset[int]


# --- what a plan needs ------------------------------------------------------------------------
def move_map(
    plan: ReassignmentPlan,
    current: ClusterState,
    ongoing: Mapping[TopicPartition, PartitionReassignment] | None = None,
) -> dict[TopicPartition, PartitionMove]:
    """Sources and destinations of every partition of the plan (Kafka's calculateProposedMoveMap).

    A partition already reassigning keeps its sources (replicas minus adding), so resubmitting a
    plan does not mistake half-copied replicas for sources. ``ongoing`` defaults to the adding
    replicas ``current`` carries. Partitions unknown to ``current`` are left out (validation
    reports them).
    """
    moves: dict[TopicPartition, PartitionMove] = {}
    for a in plan.partitions:
        tp = a.tp
        running = (ongoing or {}).get(tp)
        state = current.partitions.get(tp)
        if running is not None:
            sources = frozenset(running.replicas) - frozenset(running.adding)
        elif state is not None:
            sources = frozenset(state.replicas) - frozenset(state.adding)
        else:
            continue
        moves[tp] = PartitionMove(sources, frozenset(a.replicas) - sources)
    return moves


def ongoing_move_map(ongoing: Mapping[TopicPartition, PartitionReassignment]) -> dict[TopicPartition, PartitionMove]:
    """Sources and destinations of reassignments already running (Kafka's calculateCurrentMoveMap)."""
    return {
        tp: PartitionMove(frozenset(r.replicas) - frozenset(r.adding), frozenset(r.adding)) for tp, r in ongoing.items()
    }


def lists_for_moves(moves: Mapping[TopicPartition, PartitionMove]) -> ReplicaLists:
    """Leader and follower throttled-replica entries for moves; partitions that gain no replica
    need no throttle and are left out."""
    out: ReplicaLists = {}
    for tp, m in sorted(moves.items()):
        if not m.destinations:
            continue
        kinds = out.setdefault(tp.topic, {LEADER: set(), FOLLOWER: set()})
        kinds[LEADER].update(f"{tp.partition}:{b}" for b in m.sources)
        kinds[FOLLOWER].update(f"{tp.partition}:{b}" for b in m.destinations - m.sources)
    return out


def kafka_throttle_lists(
    plan: ReassignmentPlan,
    current: ClusterState,
    ongoing: Mapping[TopicPartition, PartitionReassignment] | None = None,
) -> ReplicaLists:
    """``{topic: {"leader": {"p:b"}, "follower": {"p:b"}}}`` for the plan's moving partitions."""
    return lists_for_moves(move_map(plan, current, ongoing))


def brokers_for_moves(moves: Mapping[TopicPartition, PartitionMove]) -> set[int]:
    return {b for m in moves.values() if m.destinations for b in m.sources | m.destinations}


def brokers_needing_rates(
    plan: ReassignmentPlan,
    current: ClusterState,
    ongoing: Mapping[TopicPartition, PartitionReassignment] | None = None,
) -> set[int]:
    """Every source and destination broker of a moving partition (Kafka's calculateReassigningBrokers)."""
    return brokers_for_moves(move_map(plan, current, ongoing))


def log_dir_rate_brokers(plan: ReassignmentPlan) -> set[int]:
    """Brokers with an explicit (not "any") ``log_dirs`` target (Kafka's calculateMovingBrokers)."""
    return {b for a in plan.partitions for b in a.log_dir_targets()}


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


# --- reading what is set ----------------------------------------------------------------------
def current_throttles(configs: Mapping[ConfigResource, Mapping[str, ConfigEntry]]) -> Throttle:
    """The throttles set on brokers (per-broker dynamic values, and the cluster-wide dynamic
    default under ``DEFAULT_BROKER_ID``) and topics, from DescribeConfigs. A value whose source
    is DEFAULT is not set: a real broker may still show a just-deleted dynamic value that way for
    a moment."""
    rates: dict[int, dict[str, int]] = {}
    lists: dict[str, dict[str, tuple[str, ...]]] = {}
    for res, entries in configs.items():
        if res.type == ConfigResourceType.BROKER and (res.name == "" or res.name.lstrip("-").isdigit()):
            broker, own = (
                (DEFAULT_BROKER_ID, ConfigSource.DYNAMIC_DEFAULT_BROKER)
                if res.name == ""
                else (int(res.name), ConfigSource.DYNAMIC_BROKER)
            )
            for name in (LEADER_RATE, FOLLOWER_RATE, LOG_DIR_RATE):
                e = entries.get(name)
                if e is not None and e.value not in (None, "") and e.source in (own, ConfigSource.UNKNOWN):
                    rates.setdefault(broker, {})[name] = int(e.value)
        elif res.type == ConfigResourceType.TOPIC:
            for name in (LEADER_REPLICAS, FOLLOWER_REPLICAS):
                e = entries.get(name)
                if e is not None and e.value and e.source in (ConfigSource.TOPIC, ConfigSource.UNKNOWN):
                    lists.setdefault(res.name, {})[name] = parse_replica_list(e.value)
    return Throttle(broker_rates=rates, topic_replicas=lists)


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
    itself set by another kadmin record, its ``previous`` is inherited, so removal never restores
    a kadmin value."""
    claimed = {(c.broker, c.name): c for r in records for c in r.rates}
    changes: list[ConfigChange] = []
    claims: list[RateClaim] = []

    def set_rate(broker: int, name: str, value: int | None) -> None:
        if value is None:
            return
        now = current.broker_rates.get(broker, {}).get(name)
        other = claimed.get((broker, name))
        previous = other.previous if other is not None and other.value == now else now
        if now == value:
            if other is not None and other.value == now:
                claims.append(RateClaim(broker, name, value, previous))
            return
        changes.append(
            ConfigChange(ConfigResource(ConfigResourceType.BROKER, str(broker)), name, AlterOp.SET, str(value))
        )
        claims.append(RateClaim(broker, name, value, previous))

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


# --- what ongoing moves need ------------------------------------------------------------------
@dataclass(frozen=True)
class ThrottleNeeds:
    """What the moves still running need: list entries per topic, and brokers whose rates they
    use. Built from ListPartitionReassignments and the future replicas DescribeLogDirs shows."""

    lists: Mapping[str, Mapping[str, frozenset[str]]] = field(default_factory=dict)
    reassigning_topics: frozenset[str] = frozenset()
    rate_brokers: frozenset[int] = frozenset()
    log_dir_brokers: frozenset[int] = frozenset()

    @classmethod
    def of(
        cls,
        ongoing: Mapping[TopicPartition, PartitionReassignment],
        log_dir_moving_brokers: Iterable[int] = (),
    ) -> ThrottleNeeds:
        moves = ongoing_move_map(ongoing)
        lists = {
            t: {LIST_CONFIG[k]: frozenset(v) for k, v in kinds.items()} for t, kinds in lists_for_moves(moves).items()
        }
        return cls(
            lists=lists,
            reassigning_topics=frozenset(tp.topic for tp in ongoing),
            rate_brokers=frozenset(brokers_for_moves(moves)),
            log_dir_brokers=frozenset(log_dir_moving_brokers),
        )

    def needs_entry(self, topic: str, name: str, entry: str) -> bool:
        if entry == WILDCARD:
            return topic in self.reassigning_topics
        return entry in self.lists.get(topic, {}).get(name, frozenset())

    def needs_rate(self, broker: int, name: str) -> bool:
        """A cluster-wide default rate is needed while any broker moves (it throttles them all)."""
        brokers = self.log_dir_brokers if name == LOG_DIR_RATE else self.rate_brokers
        return bool(brokers) if broker == DEFAULT_BROKER_ID else broker in brokers


# --- removing what kadmin set -----------------------------------------------------------------
@dataclass(frozen=True)
class Removal:
    """Changes that remove (part of) a record's throttles, what they remove, and what is left."""

    changes: tuple[ConfigChange, ...]
    removed_rates: tuple[RateClaim, ...]
    removed_entries: dict[str, dict[str, tuple[str, ...]]]
    kept: ThrottleRecord  # what the record still owns (empty when everything went)


def removal_changes(
    record: ThrottleRecord,
    current: Throttle,
    needs: ThrottleNeeds,
    *,
    force: bool = False,
    unreadable: Collection[int] = (),
) -> Removal:
    """Remove what ``record`` set, except what a running move still needs (unless ``force``).

    A rate someone changed since kadmin set it is no longer kadmin's: it is left as it is and
    dropped from the record. An entry already gone is dropped from the record too. A rate on a
    broker in ``unreadable`` (down: its configs could not be read) is kept in the record, so a
    later run removes it, rather than taken for changed and forgotten.
    """
    changes: list[ConfigChange] = []
    removed_rates: list[RateClaim] = []
    kept_rates: list[RateClaim] = []
    for c in sorted(record.rates):
        if c.broker in unreadable or (not force and needs.needs_rate(c.broker, c.name)):
            kept_rates.append(c)
            continue
        now = current.broker_rates.get(c.broker, {}).get(c.name)
        if now != c.value:
            continue
        res = broker_resource(c.broker)
        if c.previous is None:
            changes.append(ConfigChange(res, c.name, AlterOp.DELETE))
        else:
            changes.append(ConfigChange(res, c.name, AlterOp.SET, str(c.previous)))
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
    return Removal(tuple(changes), tuple(removed_rates), removed_entries, kept)


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
    return removal_changes(everything, current, needs, force=force)


# --- stale throttles --------------------------------------------------------------------------
@dataclass(frozen=True)
class ThrottleItem:
    """One throttle as ``throttle show`` lists it: a broker rate or a topic's list entries."""

    kind: str  # "broker_rate" or "topic_replicas"
    resource: str  # broker id or topic name
    config: str
    value: str  # the rate, or the entries (comma-separated)
    plan_ids: tuple[str, ...]  # kadmin records owning (part of) it; empty = not set by kadmin
    needed: bool  # an ongoing move needs it (for a list: any of its entries)
    unneeded_entries: tuple[str, ...] = ()  # list entries no move needs

    @property
    def stale(self) -> bool:
        return not self.needed if self.kind == "broker_rate" else bool(self.unneeded_entries)


def throttle_items(current: Throttle, needs: ThrottleNeeds, records: Iterable[ThrottleRecord]) -> list[ThrottleItem]:
    """Every throttle set, who (which kadmin plan) set it, and whether a running move needs it."""
    records = list(records)
    items: list[ThrottleItem] = []
    for b in sorted(current.broker_rates):
        for name, value in sorted(current.broker_rates[b].items()):
            owners = tuple(
                sorted(
                    r.plan_id for r in records for c in r.rates if c.broker == b and c.name == name and c.value == value
                )
            )
            items.append(
                ThrottleItem("broker_rate", broker_label(b), name, str(value), owners, needs.needs_rate(b, name))
            )
    for t in sorted(current.topic_replicas):
        for name, entries in sorted(current.topic_replicas[t].items()):
            owners = tuple(
                sorted(r.plan_id for r in records if set(r.replicas.get(t, {}).get(name, ())) & set(entries))
            )
            unneeded = tuple(e for e in entries if not needs.needs_entry(t, name, e))
            items.append(
                ThrottleItem(
                    "topic_replicas",
                    t,
                    name,
                    format_replica_list(entries),
                    owners,
                    len(unneeded) < len(entries),
                    unneeded,
                )
            )
    return items


def stale_throttles(current: Throttle, needs: ThrottleNeeds, records: Iterable[ThrottleRecord] = ()) -> Removal:
    """Changes removing every throttle no running move needs (``throttle clear --stale``):
    rates no move uses and list entries of partitions not moving, whoever set them. Rates
    kadmin set are restored to what a person had set before; others are deleted."""
    claims = {(c.broker, c.name, c.value): c for r in records for c in r.rates}
    everything = ThrottleRecord(
        plan_id="stale",
        rates=tuple(
            claims.get((b, name, v), RateClaim(b, name, v))
            for b, by_name in current.broker_rates.items()
            for name, v in by_name.items()
        ),
        replicas={t: dict(kinds) for t, kinds in current.topic_replicas.items()},
    )
    return removal_changes(everything, current, needs)


def prune_records(records: Iterable[ThrottleRecord], removal: Removal) -> list[ThrottleRecord]:
    """Records without what ``removal`` took away (after clear --stale / --all)."""
    gone_rates = {(c.broker, c.name) for c in removal.removed_rates}
    out = []
    for r in records:
        replicas = {
            t: {n: set(v) - set(removal.removed_entries.get(t, {}).get(n, ())) for n, v in kinds.items()}
            for t, kinds in r.replicas.items()
        }
        out.append(
            replace(
                r,
                rates=tuple(c for c in r.rates if (c.broker, c.name) not in gone_rates),
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
