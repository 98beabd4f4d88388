"""``reassign generate`` as a pure function: cluster state and request in, two plans out.

``generate`` returns the current assignment (the rollback) and the proposed one for every
partition of the requested topics, both sorted. Two strategies:

- ``minimal`` (default): balanced replica and preferred-leader counts over the listed brokers,
  rack aware, moving as few replicas as possible (``minimal_assign``);
- ``kafka``: Kafka's own round-robin (``kafka_assign``), for parity with
  ``kafka-reassign-partitions.sh --generate``. Kafka draws a random start index and shift per
  topic; here they come from ``random.Random(seed)`` (``seed`` defaults to 0), drawn topic by
  topic in name order, so the same input always gives the same plan.

Brokers left out of ``broker_ids`` end up holding nothing of these topics: decommissioning a
broker is just a broker list without it. A partition being reassigned is planned from its
target replica set (its replicas minus those being removed).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kadmin.errors import InputError, NotFoundError
from kadmin.model import Assignment, ClusterState, ReassignmentPlan, TopicPartition
from kadmin.plan import duplicate_brokers
from kadmin.plan.gc_pause import gc_paused
from kadmin.plan.kafka_assign import assign_replicas_to_brokers
from kadmin.plan.minimal_assign import minimal_assignment

STRATEGIES = ("minimal", "kafka")
DEFAULT_SEED = 0

Replicas = Mapping[TopicPartition, Sequence[int]]


def generate(
    cluster: ClusterState,
    topics: Iterable[str],
    broker_ids: Iterable[int],
    strategy: str = "minimal",
    rack_aware: bool = True,
    seed: int = DEFAULT_SEED,
    topics_file: str | None = None,
) -> tuple[ReassignmentPlan, ReassignmentPlan]:
    """(current, proposed) plans for every partition of ``topics`` placed on ``broker_ids``.

    Raises InputError (NotFoundError for unknown topics or brokers) before planning anything,
    naming every problem of the topics and brokers at once; one about the topics names
    ``topics_file``, the file they were read from, when given. A broker of the list that is
    down (a partition names it, but it is not live) is refused as such.
    """
    if strategy not in STRATEGIES:
        raise InputError(f"unknown strategy {strategy!r}: choose one of {', '.join(STRATEGIES)}")
    topic_list, broker_list = list(topics), list(broker_ids)
    refuse(
        request_problems(topic_list, broker_list, topics_file)
        + _cluster_problems(cluster, topic_list, broker_list, topics_file)
    )
    topic_list, brokers = sorted(topic_list), sorted(broker_list)
    racks = broker_racks(cluster, brokers, rack_aware)
    current = current_assignment(cluster, topic_list)
    _check_replication_factors(current, brokers)
    with gc_paused():
        if strategy == "minimal":
            proposed = minimal_assignment(current, brokers, racks)
        else:
            proposed = kafka_assignment(current, brokers, racks, seed)
    return to_plan(current), to_plan(proposed)


def current_assignment(cluster: ClusterState, topics: Iterable[str]) -> dict[TopicPartition, tuple[int, ...]]:
    """Partition -> replicas for the topics; a reassigning partition counts by the replicas it
    had before the move (those not being added): a KIP-435 step's target holds one more replica
    than the plan's, for a while, and must not read as the replication factor."""
    wanted = set(topics)
    return {
        tp: tuple(b for b in p.replicas if b not in p.adding)
        for tp, p in sorted(cluster.partitions.items())
        if tp.topic in wanted
    }


def without_live_replica(cluster: ClusterState, current: ReassignmentPlan) -> list[TopicPartition]:
    """The partitions every replica of which is on a broker that is down: a move of theirs has
    no live source to copy from, and Kafka completes a reassignment only once every target
    replica is in the ISR, so it cannot finish while those brokers stay down."""
    live = set(cluster.brokers)
    return [a.tp for a in current.partitions if a.replicas and not live & set(a.replicas)]


def broker_racks(cluster: ClusterState, brokers: Sequence[int], rack_aware: bool) -> dict[int, str] | None:
    """Broker -> rack when placement is rack aware, None when it is not (disabled, or no rack
    known). A mix of racked and rackless brokers is refused, as Kafka's tool does."""
    if not rack_aware:
        return None
    racks = {b: cluster.brokers[b].rack for b in brokers}
    if all(r is None for r in racks.values()):
        return None
    missing = sorted(b for b, r in racks.items() if r is None)
    if missing:
        from kadmin.units import plural

        raise InputError(
            f"Not all brokers have rack information: no rack on {plural('broker', len(missing))} "
            + ", ".join(map(str, missing)),
            hint="add --disable-rack-aware to place replicas without rack information",
        )
    return {b: r for b, r in racks.items() if r is not None}


def kafka_assignment(
    current: Replicas, brokers: Sequence[int], racks: Mapping[int, str] | None, seed: int = DEFAULT_SEED
) -> dict[TopicPartition, tuple[int, ...]]:
    """Kafka's ``calculateAssignment``: each topic rebuilt round-robin with the replication factor
    of its partitions (all partitions of a topic must share it: Kafka would silently use the
    first one's), partition ids taken in order."""
    rng = random.Random(seed)
    by_topic: dict[str, list[TopicPartition]] = {}
    for tp in sorted(current):
        by_topic.setdefault(tp.topic, []).append(tp)
    meta = {b: (racks or {}).get(b) for b in brokers}
    proposed: dict[TopicPartition, tuple[int, ...]] = {}
    for topic, tps in by_topic.items():
        factors = sorted({len(current[tp]) for tp in tps})
        if len(factors) > 1:
            raise InputError(
                f"topic {topic!r} has partitions with different replication factors "
                f"({', '.join(map(str, factors))}); the kafka strategy needs one",
                hint="use --strategy minimal, which keeps each partition's replication factor",
            )
        start, shift = rng.randrange(len(brokers)), rng.randrange(len(brokers))
        placed = assign_replicas_to_brokers(meta, len(tps), factors[0], start, shift)
        for i, tp in enumerate(tps):
            proposed[tp] = tuple(placed[i])
    return proposed


def to_plan(assignment: Replicas) -> ReassignmentPlan:
    return ReassignmentPlan(tuple(Assignment(tp.topic, tp.partition, tuple(r)) for tp, r in sorted(assignment.items())))


def replicas_moved(current: ReassignmentPlan, proposed: ReassignmentPlan) -> int:
    """How many replicas a plan creates on brokers that do not hold them yet (data copied)."""
    before = current.by_partition()
    return sum(len(set(a.replicas) - set(before[a.tp].replicas if a.tp in before else ())) for a in proposed.partitions)


def leaders_moved(current: ReassignmentPlan, proposed: ReassignmentPlan) -> int:
    """How many partitions get a different preferred leader (first replica)."""
    before = current.by_partition()
    return sum(1 for a in proposed.partitions if a.tp in before and before[a.tp].replicas[:1] != a.replicas[:1])


def moves_lower_bound(current: Replicas, brokers: Sequence[int], racks: Mapping[int, str] | None = None) -> int:
    """A lower bound on the replica moves any balanced, rack-spread placement needs.

    The largest of: replicas that must leave (on unlisted brokers, plus each listed broker's
    surplus over ``ceil(replicas/brokers)``); replicas that must arrive (each broker's shortfall
    under ``floor``); per partition, its replicas on unlisted brokers or its missing racks.
    """
    listed = set(brokers)
    count = Counter(dict.fromkeys(brokers, 0))
    outside = 0
    rack_needed = 0
    n_racks = len(set(racks.values())) if racks else 1
    for replicas in current.values():
        off = sum(1 for b in replicas if b not in listed)
        outside += off
        count.update(b for b in replicas if b in listed)
        missing = 0
        if racks:
            seen = {racks[b] for b in replicas if b in listed}
            missing = max(0, min(len(replicas), n_racks) - len(seen))
        rack_needed += max(off, missing)
    total = sum(len(r) for r in current.values())
    low, rem = divmod(total, len(brokers))
    high = low + (1 if rem else 0)
    leave = outside + sum(max(0, c - high) for c in count.values())
    arrive = sum(max(0, low - c) for c in count.values())
    return max(leave, arrive, rack_needed)


@dataclass(frozen=True)
class Refusal:
    """One reason a request is refused: its words, the file it is about (``source``: the topics
    file, when given), a hint, the places it lists (``problems``), and whether it names
    something the cluster lacks (``not_found``: NotFoundError)."""

    message: str
    source: str | None = None
    hint: str | None = None
    problems: tuple[str, ...] = ()
    not_found: bool = False

    def line(self) -> str:
        """The whole refusal on one line, for a list of several."""
        text = f"{self.source}: {self.message}" if self.source else self.message
        if self.problems:
            text += " (" + "; ".join(self.problems) + ")"
        return text + (f" ({self.hint})" if self.hint else "")


def request_problems(topics: Sequence[str], broker_ids: Sequence[int], topics_file: str | None = None) -> list[Refusal]:
    """What is wrong with the request on its own, without a cluster: no topics, a topic twice,
    no brokers, a broker twice. ``generate`` reports these together with the cluster's."""
    from kadmin.plan.topics_file import duplicate_problems

    out = []
    if not topics:
        out.append(Refusal("no topics to move: the topics file lists none", topics_file))
    dupes = sorted(t for t, n in Counter(topics).items() if n > 1)
    if dupes:
        out.append(
            Refusal(
                "List of topics to reassign contains duplicate entries",  # the places name them
                topics_file,
                problems=tuple(duplicate_problems(topics)),
            )
        )
    if not broker_ids:
        out.append(Refusal("the broker list is empty"))
    problem = duplicate_brokers(broker_ids)
    if problem:
        out.append(Refusal(problem))
    return out


def refuse(refusals: Sequence[Refusal]) -> None:
    """Raise every refusal at once (nothing returned when there is none): one as its own error,
    as before; several as one InputError listing each on a line."""
    if not refusals:
        return
    if len(refusals) == 1:
        r = refusals[0]
        error = NotFoundError if r.not_found else InputError
        raise error(r.message, list(r.problems), hint=r.hint, source=r.source)
    raise InputError(f"the request has {len(refusals)} problems; nothing was planned", [r.line() for r in refusals])


def _cluster_problems(
    cluster: ClusterState, topics: Sequence[str], broker_ids: Sequence[int], source: str | None
) -> list[Refusal]:
    out = []
    known = set(cluster.topics)
    unknown = sorted({t for t in topics if t not in known})
    if unknown:
        from kadmin.units import plural

        out.append(Refusal(f"unknown {plural('topic', len(unknown))}: {', '.join(unknown)}", source, not_found=True))
    missing = sorted({b for b in broker_ids if b not in cluster.brokers})
    live = ", ".join(map(str, sorted(cluster.brokers))) or "none"
    down = [b for b in missing if b in cluster.down_brokers()]
    if down:
        one = len(down) == 1
        out.append(
            Refusal(
                f"broker{'' if one else 's'} {', '.join(map(str, down))} in the broker list "
                f"{'is' if one else 'are'} down (partitions name {'it' if one else 'them'} as a replica, but the "
                f"live brokers are {live}): no replica can be placed on a broker that is not live "
                "(Kafka's tool silently leaves such brokers out of its proposal)",
                hint=f"start {'it' if one else 'them'} again, or leave {'it' if one else 'them'} out of "
                "--broker-list to move the replicas there of these topics to the listed brokers",
                not_found=True,
            )
        )
    gone = [b for b in missing if b not in down]
    if gone:
        from kadmin.units import plural

        out.append(
            Refusal(
                f"unknown {plural('broker', len(gone))} in the broker list: {', '.join(map(str, gone))} "
                f"(live brokers: {live})",
                not_found=True,
            )
        )
    return out


def _check_replication_factors(current: Replicas, brokers: Sequence[int]) -> None:
    too_big: dict[str, int] = {}
    for tp, replicas in current.items():
        if len(replicas) > len(brokers):
            too_big[tp.topic] = max(too_big.get(tp.topic, 0), len(replicas))
    if too_big:
        from kadmin.units import counted

        raise InputError(
            f"replication factor larger than the {counted(len(brokers), 'broker')} listed",
            [f"topic {t!r}: replication factor {rf}" for t, rf in sorted(too_big.items())],
        )
