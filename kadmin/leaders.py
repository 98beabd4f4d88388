"""Leadership, the pure part: who leads what against who should (the preferred replica, the
first of the replica list), which partitions an election would change, batches that never give
one broker more than N new leaders at once, and each partition's outcome in Kafka's words.

No I/O: cluster state (``kadmin.model.ClusterState``) in, values out. ``kadmin.execute.elect``
sends the batches; ``commands/leaders_*`` render.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kadmin.backends.base import ElectionType
from kadmin.errors import NotFoundError
from kadmin.model import ClusterState, PartitionState, TopicPartition

if TYPE_CHECKING:
    from kadmin.execute.elect import ElectionStopped

NOT_NEEDED = "ELECTION_NOT_NEEDED"
PREFERRED_NOT_AVAILABLE = "PREFERRED_LEADER_NOT_AVAILABLE"
ELIGIBLE_NOT_AVAILABLE = "ELIGIBLE_LEADERS_NOT_AVAILABLE"


def named_partitions(cluster: ClusterState, topic: str, partition: int | None = None) -> list[TopicPartition]:
    """``--topic T [--partition P]``: the partitions named, as the cluster has them. A topic or
    a partition it does not have is bad input: NotFoundError (exit 2), before any election."""
    found = cluster.partitions_of(topic)
    if not found:
        raise NotFoundError(f"topic {topic!r} does not exist")
    if partition is None:
        return [p.tp for p in found]
    tp = TopicPartition(topic, partition)
    if tp not in cluster.partitions:
        ids = [p.tp.partition for p in found]
        has = f"0..{ids[-1]}" if ids == list(range(len(ids))) else ", ".join(map(str, ids))
        raise NotFoundError(f"partition {tp} does not exist: topic {topic!r} has partitions {has}")
    return [tp]


def leader_or_none(broker: int | None) -> int | None:
    """A leader for JSON: None (null) for Kafka's -1, "no leader", as for an unknown partition."""
    return None if broker is None or broker < 0 else broker


def preferred_of(p: PartitionState) -> int | None:
    """The preferred replica: the first of the replica list (None for an empty list)."""
    return p.replicas[0] if p.replicas else None


@dataclass(frozen=True, order=True)
class Blocker:
    """Why a preferred election cannot hand a partition to its preferred replica now. Kafka
    elects the preferred replica only when its broker is alive and it is in the ISR (ZooKeeper
    mode: PartitionLeaderElectionAlgorithms.preferredReplicaPartitionLeaderElection; KRaft:
    PartitionChangeBuilder's PREFERRED election); else PREFERRED_LEADER_NOT_AVAILABLE."""

    out_of_isr: bool  # False: its broker is down (sorts first)
    broker: int

    @property
    def advice(self) -> str:
        if not self.out_of_isr:
            return f"preferred broker {self.broker} is down: start it first"
        return f"preferred replica {self.broker} is not in the ISR: elect once it has caught up and rejoined it"


def preferred_blocker(p: PartitionState, live: Iterable[int]) -> Blocker | None:
    """What keeps the preferred replica from leading (None: nothing, or no replicas at all)."""
    preferred = preferred_of(p)
    if preferred is None:
        return None
    if preferred not in set(live):
        return Blocker(False, preferred)
    if preferred not in p.isr:
        return Blocker(True, preferred)
    return None


# --- leaders show ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PartitionLeadership:
    tp: TopicPartition
    leader: int
    preferred: int | None
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    adding: tuple[int, ...] = ()  # replicas a running reassignment adds
    blocker: Blocker | None = None  # why its preferred replica cannot lead now

    @property
    def leaderless(self) -> bool:
        return self.leader == -1

    @property
    def not_preferred(self) -> bool:
        return not self.leaderless and self.preferred is not None and self.leader != self.preferred

    @property
    def under_replicated(self) -> bool:
        """Fewer in-sync replicas than the replication factor, which leaves out the replicas a
        reassignment is adding (Kafka's TopicCommand: replicas - adding > ISR)."""
        return len(set(self.isr)) < len(self.replicas) - len(self.adding)


@dataclass(frozen=True)
class BrokerLeadership:
    broker: int
    leaders: int  # partitions it leads now
    preferred: int  # partitions whose preferred replica it is (what it leads when balanced)
    live: bool = True

    @property
    def imbalance(self) -> int:
        """Leaders above (positive) or below (negative) its preferred share."""
        return self.leaders - self.preferred


@dataclass(frozen=True)
class LeadershipSummary:
    partitions: tuple[PartitionLeadership, ...]
    brokers: tuple[BrokerLeadership, ...]
    topic_filter: tuple[str, ...] | None = None  # leaders show's --topic-list (None: all topics)
    broker_filter: tuple[int, ...] | None = None  # its --broker-list (None: all brokers)

    @property
    def not_preferred(self) -> tuple[PartitionLeadership, ...]:
        return tuple(p for p in self.partitions if p.not_preferred)

    @property
    def leaderless(self) -> tuple[PartitionLeadership, ...]:
        return tuple(p for p in self.partitions if p.leaderless)

    @property
    def under_replicated(self) -> tuple[PartitionLeadership, ...]:
        return tuple(p for p in self.partitions if p.under_replicated)

    @property
    def electable(self) -> tuple[PartitionLeadership, ...]:
        """Not led by their preferred replica, which can lead now: a preferred election moves them."""
        return tuple(p for p in self.not_preferred if p.blocker is None)

    @property
    def blocked(self) -> tuple[PartitionLeadership, ...]:
        """Not led by their preferred replica, which cannot lead now (a preferred election fails)."""
        return tuple(p for p in self.not_preferred if p.blocker is not None)

    @property
    def balanced(self) -> bool:
        return not self.not_preferred and not self.leaderless


def summarize(
    cluster: ClusterState, topics: Iterable[str] | None = None, brokers: Iterable[int] | None = None
) -> LeadershipSummary:
    """Leadership of the partitions of ``topics`` (None: all) that have a replica on one of
    ``brokers`` (None: any); per-broker counts over those partitions, for ``brokers`` (None:
    every broker that is live or holds a replica)."""
    topic_set = None if topics is None else set(topics)
    broker_set = None if brokers is None else set(brokers)
    live = set(cluster.brokers)
    rows = []
    for tp, p in sorted(cluster.partitions.items()):
        if topic_set is not None and tp.topic not in topic_set:
            continue
        if broker_set is not None and not broker_set & set(p.replicas):
            continue
        blocker = preferred_blocker(p, live)
        rows.append(
            PartitionLeadership(tp, p.leader, preferred_of(p), tuple(p.replicas), tuple(p.isr), p.adding, blocker)
        )
    leaders = Counter(r.leader for r in rows if not r.leaderless)
    preferred = Counter(r.preferred for r in rows if r.preferred is not None)
    ids = live | {b for r in rows for b in r.replicas}
    if broker_set is not None:
        ids = broker_set
    per_broker = tuple(
        BrokerLeadership(b, leaders.get(b, 0), preferred.get(b, 0), b in cluster.brokers) for b in sorted(ids)
    )
    return LeadershipSummary(
        tuple(rows),
        per_broker,
        None if topics is None else tuple(dict.fromkeys(topics)),
        None if brokers is None else tuple(dict.fromkeys(brokers)),
    )


# leaders show when ListPartitionReassignments is refused (no DESCRIBE on CLUSTER): the leaders
# come from Metadata, so the report stands, short of what the reassignments tell.
WITHOUT_REASSIGNMENTS = (
    "the leaders are shown without them: a partition a reassignment is adding a replica to may be "
    "listed as under-replicated"
)

ELECT_ALL = "kadmin leaders elect --preferred --all-topic-partitions"
NAMED = 5  # partitions named per line of the hint
ELECTION_FILE = "election.json"


def election_command(summary: LeadershipSummary) -> str:
    """The preferred election of exactly the partitions ``summary`` shows that need one:
    --all-topic-partitions when it shows every partition; --topic T for one topic's, all of
    them; else an election file, which ``leaders show -o json`` is (elect reads its
    topic/partition pairs and ignores the other keys; those led by their preferred replica
    already need no election)."""
    if summary.topic_filter is None and summary.broker_filter is None:
        return ELECT_ALL
    topics = summary.topic_filter
    if summary.broker_filter is None and topics is not None and len(topics) == 1:
        return f"kadmin leaders elect --preferred --topic {topics[0]}"
    flags = []
    if topics is not None:
        flags.append(f"--topic-list {','.join(topics)}")
    if summary.broker_filter is not None:
        flags.append(f"--broker-list {','.join(map(str, summary.broker_filter))}")
    return (
        f"kadmin leaders show {' '.join(flags)} -o json > {ELECTION_FILE} && "
        f"kadmin leaders elect --preferred --path-to-json-file {ELECTION_FILE}"
    )


def single_election(tp: TopicPartition) -> str:
    return f"kadmin leaders elect --preferred --topic {tp.topic} --partition {tp.partition}"


def election_hint(summary: LeadershipSummary) -> list[str]:
    """What to do about the partitions not led by their preferred replica: the election for
    those it can move (their preferred replica alive and in the ISR), and, for the others,
    grouped by cause, what must happen first. [] when there are none."""
    n, electable, blocked = len(summary.not_preferred), summary.electable, summary.blocked
    if not n:
        return []
    from kadmin.units import counted

    command = election_command(summary)
    not_led = f"{counted(n, 'partition')} not led by {'its' if n == 1 else 'their'} preferred replica"
    if not blocked:
        if len(electable) == 1:
            command = single_election(electable[0].tp)
        return [f"{not_led}: `{command}` moves {'it' if n == 1 else 'them'} back."]
    if not electable:
        first = (
            f"{not_led}, and a preferred election {'cannot move it' if n == 1 else 'can move none of them'} "
            "now (it needs the preferred replica alive and in the ISR):"
        )
    elif len(electable) == 1:
        tp = electable[0].tp
        first = f"{not_led}; {tp} can move back now: `{single_election(tp)}`. The others cannot yet:"
    else:
        first = (
            f"{not_led}; {len(electable)} can move back now: "
            f"`{command}` (it fails for the other {len(blocked)}, exit 1, until their preferred replica can lead):"
        )
    groups: dict[Blocker, list[TopicPartition]] = {}
    for p in blocked:
        if p.blocker is not None:  # always, for a blocked partition
            groups.setdefault(p.blocker, []).append(p.tp)
    lines = [first]
    for blocker, tps in sorted(groups.items()):
        names = ", ".join(map(str, tps[:NAMED])) + (f" and {len(tps) - NAMED} more" if len(tps) > NAMED else "")
        lines.append(f"  {names}: {blocker.advice}")
    return lines


# --- leaders elect: what would change --------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """One partition of an election request, as the cluster was read before it."""

    tp: TopicPartition
    leader: int | None  # None: the partition is unknown
    new_leader: int | None  # who would lead after the election; None when nobody would change
    expected: str | None  # None: would be elected; else the error name Kafka would answer
    reason: str | None = None  # why, for a partition that cannot be elected
    data_loss: str | None = None  # unclean: what may be lost

    @property
    def changes(self) -> bool:
        return self.new_leader is not None and self.expected is None


def unavailable_reason(p: PartitionState, live: Iterable[int]) -> str | None:
    """Why the preferred replica cannot lead (None when it can): its broker is down, or it is not
    in the ISR."""
    if preferred_of(p) is None:
        return "the partition has no replicas"
    blocker = preferred_blocker(p, live)
    if blocker is None:
        return None
    if not blocker.out_of_isr:
        return f"the preferred replica's broker {blocker.broker} is down"
    return f"the preferred replica {blocker.broker} is not in the ISR [{','.join(map(str, p.isr))}]"


def candidate(p: PartitionState | None, tp: TopicPartition, election_type: ElectionType, live: set[int]) -> Candidate:
    """What ElectLeaders would do to one partition, judged from the state read before."""
    if p is None:
        return Candidate(tp, None, None, "UNKNOWN_TOPIC_OR_PARTITION", "the partition does not exist")
    if election_type is ElectionType.PREFERRED:
        preferred = preferred_of(p)
        if p.leader == preferred:
            return Candidate(tp, p.leader, None, NOT_NEEDED)
        reason = unavailable_reason(p, live)
        if reason:
            return Candidate(tp, p.leader, None, PREFERRED_NOT_AVAILABLE, reason)
        return Candidate(tp, p.leader, preferred, None)
    # UNCLEAN: only a partition without a live leader; a live ISR member first, else any live replica.
    if p.leader != -1 and p.leader in live:
        return Candidate(tp, p.leader, None, NOT_NEEDED)
    clean = next((b for b in p.replicas if b in p.isr and b in live), None)
    if clean is not None:
        return Candidate(tp, -1, clean, None)
    dirty = next((b for b in p.replicas if b in live), None)
    if dirty is None:
        return Candidate(tp, -1, None, ELIGIBLE_NOT_AVAILABLE, "no replica of it is on a live broker")
    isr = ",".join(map(str, p.isr)) or "none"
    loss = (
        f"broker {dirty} is not in the ISR [{isr}]: messages it had not copied from the last in-sync "
        "replicas are lost, and consumers may see offsets go back"
    )
    return Candidate(tp, -1, dirty, None, data_loss=loss)


def plan_election(
    cluster: ClusterState, election_type: ElectionType, partitions: Iterable[TopicPartition] | None
) -> tuple[Candidate, ...]:
    """Candidates of an election over ``partitions`` (None: every partition, as
    --all-topic-partitions; then, as Kafka answers, the ones needing no election are left
    out)."""
    live = set(cluster.brokers)
    if partitions is None:
        out = [candidate(p, tp, election_type, live) for tp, p in sorted(cluster.partitions.items())]
        return tuple(c for c in out if c.expected != NOT_NEEDED)
    return tuple(candidate(cluster.partitions.get(tp), tp, election_type, live) for tp in sorted(set(partitions)))


def batches(
    candidates: Sequence[Candidate], max_per_broker: int | None = None, batch_size: int | None = None
) -> list[list[Candidate]]:
    """Split an election into batches sent one after the other: no batch gives one broker more
    than ``max_per_broker`` new leaders, nor holds more than ``batch_size`` partitions (None:
    no limit). First fit, in the given order; deterministic. Partitions that change no leader
    count only towards ``batch_size``."""
    if (max_per_broker is not None and max_per_broker < 1) or (batch_size is not None and batch_size < 1):
        raise ValueError("limits must be at least 1")
    out: list[list[Candidate]] = []
    per_broker: list[Counter] = []
    first_open = 0  # batches before this one are full
    next_for: dict[int, int] = {}  # broker -> first batch that may still have room for it
    for c in candidates:
        b = c.new_leader if c.changes else None
        i = max(first_open, next_for.get(b, 0)) if b is not None else first_open
        while True:
            if i == len(out):
                out.append([])
                per_broker.append(Counter())
            size_ok = batch_size is None or len(out[i]) < batch_size
            broker_ok = b is None or max_per_broker is None or per_broker[i][b] < max_per_broker
            if size_ok and broker_ok:
                break
            i += 1
        out[i].append(c)
        if b is not None:
            per_broker[i][b] += 1
            next_for[b] = i
        while first_open < len(out) and batch_size is not None and len(out[first_open]) >= batch_size:
            first_open += 1
    return out


# --- outcomes --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    tp: TopicPartition
    error: str | None  # None: elected; else Kafka's error name
    message: str | None = None  # the cluster's message
    reason: str | None = None  # kadmin's explanation (e.g. why the preferred replica cannot lead)

    @property
    def elected(self) -> bool:
        return self.error is None

    @property
    def not_needed(self) -> bool:
        return self.error == NOT_NEEDED

    @property
    def failed(self) -> bool:
        return not self.elected and not self.not_needed


def outcomes(
    answers: Mapping[TopicPartition, str | None],
    candidates: Sequence[Candidate] = (),
    after: ClusterState | None = None,
) -> tuple[Outcome, ...]:
    """The backend's answers ("NAME: message" or None) as outcomes, each failure with its reason
    (from the state read ``after`` when given, else from the candidate judged before)."""
    by_tp = {c.tp: c for c in candidates}
    live = set(after.brokers) if after is not None else set()
    out = []
    message: str | None
    for tp, answer in sorted(answers.items()):
        if answer is None:
            out.append(Outcome(tp, None))
            continue
        name, _, message = answer.partition(":")
        name, message = name.strip(), message.strip() or None
        reason = None
        if name == PREFERRED_NOT_AVAILABLE:
            p = after.partitions.get(tp) if after is not None else None
            reason = unavailable_reason(p, live) if p is not None else None
            if reason is None and tp in by_tp:
                reason = by_tp[tp].reason
        elif name not in (NOT_NEEDED,) and tp in by_tp:
            reason = by_tp[tp].reason
        out.append(Outcome(tp, name, message, reason))
    return tuple(out)


@dataclass(frozen=True)
class ElectionReport:
    election_type: ElectionType
    outcomes: tuple[Outcome, ...]
    batches: int = 0
    limits: Mapping[str, int | None] = field(default_factory=dict)
    # A batch that failed after these (kadmin.execute.elect.ElectionStopped): the outcomes are
    # those of the batches before it. Set by ``elect_after_plan``, whose callers print them.
    stopped: ElectionStopped | None = None

    @property
    def elected(self) -> list[TopicPartition]:
        return [o.tp for o in self.outcomes if o.elected]

    @property
    def not_needed(self) -> list[TopicPartition]:
        return [o.tp for o in self.outcomes if o.not_needed]

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.failed]


def kafka_lines(report: ElectionReport) -> list[str]:
    """The outcome in kafka-leader-election.sh's words (one line per kind, as it prints)."""
    kind = report.election_type.value
    lines = []
    if report.elected:
        lines.append(
            f"Successfully completed leader election ({kind}) for partitions " + ", ".join(map(str, report.elected))
        )
    if report.not_needed:
        lines.append("Valid replica already elected for partitions " + ", ".join(map(str, report.not_needed)))
    for o in report.failed:
        text = f"{o.error}: {o.message}" if o.message else str(o.error)
        if o.reason and o.reason.lower().rstrip(".") not in text.lower():  # not the broker's words again
            text += f" ({o.reason})"
        lines.append(f"Error completing leader election ({kind}) for partition: {o.tp}: {text}")
    return lines
