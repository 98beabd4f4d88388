"""Which replication throttles moves need, and which are set.

Kafka's tool (ReassignPartitionsCommand) computes, per moving partition, the *sources* (the
current replicas; for a partition already reassigning, its replicas minus those being added)
and the *destinations* (target replicas that are not sources). The leader list gets
``partition:source`` for every source, the follower list ``partition:destination`` for every
destination; both rates go on every source and destination broker; the log-dir rate goes on
brokers with an explicit ``log_dirs`` target. The same maps of the reassignments already
running say which throttles are still needed; DescribeConfigs says which are set
(``current_throttles``); ``throttle_items`` puts the two side by side, as ``throttle show`` lists
them. What to change and what to remove is ``maths``.

Cluster-wide default rates (the broker resource with an empty name, ``kafka-configs
--entity-default``) are rates of the pseudo-broker ``DEFAULT_BROKER_ID``: shown, needed while any
move runs, and removed like per-broker rates.

Everything here is pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from kadmin.model import (
    FOLLOWER_RATE,
    FOLLOWER_REPLICAS,
    LEADER_RATE,
    LEADER_REPLICAS,
    LOG_DIR_RATE,
    ClusterState,
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
    replica_in_place,
)
from kadmin.throttling.record import ThrottleRecord

if TYPE_CHECKING:
    from kadmin.backends.base import BrokerLogDirs

LEADER = "leader"
FOLLOWER = "follower"
LIST_CONFIG = {LEADER: LEADER_REPLICAS, FOLLOWER: FOLLOWER_REPLICAS}
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


def rate_targets(
    wanted: Iterable[int], cluster: ClusterState, *, down_configurable: bool, known: Iterable[int] = ()
) -> tuple[set[int], set[int]]:
    """The brokers of ``wanted`` whose rates can be set, and the down ones left out. Over the
    AdminClient protocol a broker answers for its own configs, so a broker that is not alive
    cannot be given a rate (a down broker sends nothing anyway; it needs its rate only if it
    comes back before the move ends). ZooKeeper holds ``/config/brokers/<id>`` whether or not
    the broker runs (``down_configurable``): the down brokers stay. Down: not alive, and named
    by a replica (``ClusterState.down_brokers``) or ``known`` to be a broker of the cluster (the brokers of
    a plan validated when its incremental run began). A broker neither alive nor known stays
    in the first set, for ``operations.check_targets`` to refuse."""
    wanted = set(wanted)
    if down_configurable:
        return wanted, set()
    down = wanted & (cluster.down_brokers() | (set(known) - set(cluster.brokers)))
    return wanted - down, down


def settable_brokers(cluster: ClusterState, *, down_configurable: bool) -> set[int]:
    """Brokers whose configs can be changed: the running ones, and (``down_configurable``:
    ZooKeeper) the down ones the cluster's partitions name."""
    return set(cluster.brokers) | (cluster.down_brokers() if down_configurable else set())


def log_dir_rate_brokers(plan: ReassignmentPlan) -> set[int]:
    """Brokers with an explicit (not "any") ``log_dirs`` target (Kafka's calculateMovingBrokers)."""
    return {b for a in plan.partitions for b in a.log_dir_targets()}


def log_dir_move_brokers(
    plan: ReassignmentPlan, log_dirs: Mapping[int, BrokerLogDirs] | None, cluster: ClusterState | None
) -> set[int]:
    """The brokers of ``log_dir_rate_brokers`` where a target is a move: the replica is not in
    place there (``kadmin.model.replica_in_place``: a new replica, one in another directory, one
    moving there now, or a stray log a cancelled reassignment left on a broker outside the
    replica set), from DescribeLogDirs (``log_dirs``; None: unknown, every explicit target
    counts) and the replica sets of ``cluster`` (None: unknown, what DescribeLogDirs lists counts)."""
    if log_dirs is None:
        return log_dir_rate_brokers(plan)
    listed: dict[tuple[str, int, int], list[str | None]] = {}
    for broker, bld in log_dirs.items():
        for d in bld.log_dirs:
            for r in d.replicas:
                listed.setdefault((r.topic, r.partition, broker), [None, None])[1 if r.is_future else 0] = d.path
    out = set()
    for a in plan.partitions:
        state = cluster.partitions.get(TopicPartition(a.topic, a.partition)) if cluster is not None else None
        for b, path in a.log_dir_targets().items():
            replicas = (b,) if cluster is None else (state.replicas if state is not None else ())
            current, future = listed.get((a.topic, a.partition, b), (None, None))
            if not replica_in_place(replicas, b, current, future, path):
                out.add(b)
    return out


# --- reading what is set ----------------------------------------------------------------------
MAX_RATE = 2**63 - 1  # Kafka's throttle rates are LONG configs, at least 0 (DynamicConfig.Broker)
_WHOLE = re.compile(r"[+-]?[0-9]+")


def rate_value(text: str) -> int | None:
    """A rate config's value as Kafka reads it (``Long.parseLong`` of the trimmed text, at least
    0); None when Kafka would refuse it ("abc", "1.5", "-1", past Long.MAX_VALUE)."""
    text = text.strip()
    if not _WHOLE.fullmatch(text):
        return None
    value = int(text)
    return value if 0 <= value <= MAX_RATE else None


def current_throttles(configs: Mapping[ConfigResource, Mapping[str, ConfigEntry]]) -> Throttle:
    """The throttles set on brokers (per-broker dynamic values, and the cluster-wide dynamic
    default under ``DEFAULT_BROKER_ID``) and topics, from DescribeConfigs. A value whose source
    is DEFAULT is not set: a real broker may still show a just-deleted dynamic value that way for
    a moment. A rate value that is not a rate (``rate_value``) goes to ``invalid_rates``, as set."""
    rates: dict[int, dict[str, int]] = {}
    invalid: dict[int, dict[str, str]] = {}
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
                    value = rate_value(e.value)
                    if value is None:
                        invalid.setdefault(broker, {})[name] = e.value
                    else:
                        rates.setdefault(broker, {})[name] = value
        elif res.type == ConfigResourceType.TOPIC:
            for name in (LEADER_REPLICAS, FOLLOWER_REPLICAS):
                e = entries.get(name)
                if e is not None and e.value and e.source in (ConfigSource.TOPIC, ConfigSource.UNKNOWN):
                    lists.setdefault(res.name, {})[name] = parse_replica_list(e.value)
    return Throttle(broker_rates=rates, topic_replicas=lists, invalid_rates=invalid)


# --- what ongoing moves need ------------------------------------------------------------------
@dataclass(frozen=True)
class ThrottleNeeds:
    """What the moves still running need: list entries per topic, and brokers whose rates they
    use. Built from ListPartitionReassignments and the future replicas DescribeLogDirs shows;
    ``runs``: per plan id, what an incremental run's steps still to come need (``run_needs``),
    which no reassignment lists between its batches."""

    lists: Mapping[str, Mapping[str, frozenset[str]]] = field(default_factory=dict)
    reassigning_topics: frozenset[str] = frozenset()
    rate_brokers: frozenset[int] = frozenset()
    log_dir_brokers: frozenset[int] = frozenset()
    runs: Mapping[str, ThrottleNeeds] = field(default_factory=dict)

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

    def with_runs(
        self,
        records: Iterable[ThrottleRecord],
        cluster: ClusterState,
        ongoing: Mapping[TopicPartition, PartitionReassignment],
    ) -> ThrottleNeeds:
        """These needs plus what the incremental runs of ``records`` still need (``run_needs``)."""
        runs = {r.plan_id: run_needs(r, cluster, ongoing) for r in records if r.from_incremental_run}
        runs = {pid: n for pid, n in runs.items() if n.reassigning_topics}
        return replace(self, runs={**self.runs, **runs}) if runs else self

    def without_run(self, plan_id: str) -> ThrottleNeeds:
        """These needs but what ``plan_id``'s own incremental run still needs: clearing or
        verifying that very plan removes what its later steps need (the run sets it again before
        each batch); what its running steps need stays."""
        if plan_id not in self.runs:
            return self
        return replace(self, runs={p: n for p, n in self.runs.items() if p != plan_id})

    def needs_entry(self, topic: str, name: str, entry: str) -> bool:
        if entry == WILDCARD:
            needed = topic in self.reassigning_topics
        else:
            needed = entry in self.lists.get(topic, {}).get(name, frozenset())
        return needed or any(r.needs_entry(topic, name, entry) for r in self.runs.values())

    def needs_rate(self, broker: int, name: str) -> bool:
        """A cluster-wide default rate is needed while any broker moves (it throttles them all)."""
        brokers = self.log_dir_brokers if name == LOG_DIR_RATE else self.rate_brokers
        needed = bool(brokers) if broker == DEFAULT_BROKER_ID else broker in brokers
        return needed or any(r.needs_rate(broker, name) for r in self.runs.values())

    def runs_needing_entry(self, topic: str, name: str, entry: str) -> tuple[str, ...]:
        """The incremental runs (plan ids) whose steps to come need this entry."""
        return tuple(sorted(p for p, r in self.runs.items() if r.needs_entry(topic, name, entry)))

    def runs_needing_rate(self, broker: int, name: str) -> tuple[str, ...]:
        return tuple(sorted(p for p, r in self.runs.items() if r.needs_rate(broker, name)))


def run_needs(
    record: ThrottleRecord,
    cluster: ClusterState,
    ongoing: Mapping[TopicPartition, PartitionReassignment],
) -> ThrottleNeeds:
    """What an incremental run (its ``record``) still needs, running step or not.

    Its record lists, per partition, the leader-side entries of every replica a step copies
    from and the follower-side entries of every replica a step adds (``plan.steps.
    throttled_replicas``): each replica a step adds is in the final target and stays. So a
    partition has copying left while one of its follower-side brokers is not yet a full
    replica (not in its replica set, or still being added): between two of its steps, or
    before its first, no reassignment lists it, and yet the run needs its entries and the
    rates of their brokers; the run's log-dir rates too (it sends replicas to their
    directories after its last step). Once every such broker is a full replica, no step of the
    partition copies anything more: its entries are not needed (the run removes them at its
    end). A partition that no longer exists needs nothing."""
    by_partition: dict[TopicPartition, dict[str, dict[str, int]]] = {}  # name -> entry -> broker
    for topic, kinds in record.replicas.items():
        for name, entries in kinds.items():
            for entry in entries:
                partition, sep, broker = entry.partition(":")
                if sep and partition.isdigit() and broker.lstrip("-").isdigit():
                    tp = TopicPartition(topic, int(partition))
                    by_partition.setdefault(tp, {}).setdefault(name, {})[entry] = int(broker)
    lists: dict[str, dict[str, set[str]]] = {}
    brokers: set[int] = set()
    for tp, by_name in sorted(by_partition.items()):
        state = cluster.partitions.get(tp)
        if state is None:
            continue
        running = ongoing.get(tp)
        full = set(state.replicas) - set(running.adding if running is not None else state.adding)
        if set(by_name.get(FOLLOWER_REPLICAS, {}).values()) <= full:
            continue
        for name, entry_brokers in by_name.items():
            lists.setdefault(tp.topic, {}).setdefault(name, set()).update(entry_brokers)
            brokers.update(entry_brokers.values())
    if not lists:
        return ThrottleNeeds()
    return ThrottleNeeds(
        lists={t: {n: frozenset(v) for n, v in kinds.items()} for t, kinds in lists.items()},
        reassigning_topics=frozenset(lists),
        rate_brokers=frozenset(brokers),
        log_dir_brokers=frozenset(c.broker for c in record.rates if c.name == LOG_DIR_RATE),
    )


# --- what throttle show lists ----------------------------------------------------------------
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
    invalid: bool = False  # a rate Kafka cannot read ("abc"): no move needs it, kadmin never set it
    runs: tuple[str, ...] = ()  # incremental runs (plan ids) whose steps to come need it (or some entries)

    @property
    def stale(self) -> bool:
        return not self.needed if self.kind == "broker_rate" else bool(self.unneeded_entries)


def throttle_items(current: Throttle, needs: ThrottleNeeds, records: Iterable[ThrottleRecord]) -> list[ThrottleItem]:
    """Every throttle set, who (which kadmin plan) set it, and whether a running move needs it."""
    records = list(records)
    items: list[ThrottleItem] = []
    invalid = current.invalid_rates
    for b in sorted(set(current.broker_rates) | set(invalid)):
        valid = current.broker_rates.get(b, {})
        for name in sorted(set(valid) | set(invalid.get(b, {}))):
            if name not in valid:  # Kafka cannot apply it: nobody needs it, kadmin never sets one
                raw = invalid[b][name]
                items.append(ThrottleItem("broker_rate", broker_label(b), name, raw, (), False, invalid=True))
                continue
            value = valid[name]
            owners = tuple(
                sorted(
                    r.plan_id for r in records for c in r.rates if c.broker == b and c.name == name and c.value == value
                )
            )
            items.append(
                ThrottleItem(
                    "broker_rate",
                    broker_label(b),
                    name,
                    str(value),
                    owners,
                    needs.needs_rate(b, name),
                    runs=needs.runs_needing_rate(b, name),
                )
            )
    for t in sorted(current.topic_replicas):
        for name, entries in sorted(current.topic_replicas[t].items()):
            owners = tuple(
                sorted(r.plan_id for r in records if set(r.replicas.get(t, {}).get(name, ())) & set(entries))
            )
            unneeded = tuple(e for e in entries if not needs.needs_entry(t, name, e))
            runs = tuple(sorted({p for e in entries for p in needs.runs_needing_entry(t, name, e)}))
            items.append(
                ThrottleItem(
                    "topic_replicas",
                    t,
                    name,
                    format_replica_list(entries),
                    owners,
                    len(unneeded) < len(entries),
                    unneeded,
                    runs=runs,
                )
            )
    return items


def left_behind(items: Iterable[ThrottleItem], topics: Iterable[str]) -> list[ThrottleItem]:
    """Throttles no kadmin record owns and no running move needs: every such broker rate (the
    cluster-wide default too) and the lists of ``topics``. What a finished plan leaves when
    another tool ran it, or kadmin through the other connection mode (records live in ZooKeeper
    with --zookeeper, in a topic with --bootstrap-server): Kafka's own --verify would delete
    them; kadmin names them."""
    topics = set(topics)
    return [i for i in items if not i.plan_ids and i.stale and (i.kind == "broker_rate" or i.resource in topics)]
