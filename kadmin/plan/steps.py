"""KIP-435 reassignment steps for one partition, computed on the client.

Moving every replica of a partition at once multiplies the load on its leader and leaves the
partition with many catching-up replicas. KIP-435 ("Calculating a Reassignment Step") moves a
few replicas at a time instead: each step goes from the current replica set (CR) towards the
final target (FTR) and is itself an ordinary reassignment, which Kafka completes only when every
replica of the step is in sync. kadmin computes the whole sequence up front, purely, so it can be
shown, saved in a state file and resumed.

Rules, in the KIP's order (the worked example (0,1,2,3,4) -> (5,6,7,8,9) pins the details):

1. The new preferred leader (FTR[0]) is brought in first, in a step of its own that drops
   nothing. From then on it is first in the list: the preferred leader, which Kafka makes the
   leader at its next preferred-leader election, or at the latest when a step drops the old
   leader, so the later copies are served by it rather than by the old leader.
2. Otherwise drop n = max(R, size(CR) - size(FTR)) of the excess replicas (CR not in FTR, in CR
   order; replicas out of the ISR first, since they would hold the step back), and add the
   replicas missing from FTR, in FTR order, at most R of them and no more than brings the set
   back to size(FTR).
3. In the first step, if fewer than min.insync.replicas replicas are in sync, add enough new
   replicas for min.insync.replicas at once, even beyond R (the KIP's one exception), so
   producers with acks=all can continue.
4. Each intermediate set lists the replicas of FTR in FTR's order, then the old replicas still
   kept: the last step is always FTR itself, in FTR's order, and the preferred leader is first
   as soon as it is present.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from kadmin.errors import InputError
from kadmin.model import PartitionState, ReassignmentPlan, TopicPartition
from kadmin.plan.gc_pause import gc_paused

Replicas = tuple[int, ...]


class Step(NamedTuple):
    """One step of one partition: an ordinary reassignment from ``before`` to ``after``.

    A NamedTuple rather than a frozen dataclass: just as immutable, and four times cheaper to
    build, which matters when planning hundreds of thousands of partitions.

    ``leader_before``/``leader_after`` are the leader Kafka will have: it keeps the leader
    while the leader stays in the set, and elects the first in-sync replica of the new set when
    it leaves (all of ``after`` is in sync when a step completes).
    """

    tp: TopicPartition
    number: int  # 1-based position among this partition's steps
    of: int  # how many steps this partition takes
    before: Replicas
    after: Replicas
    leader_before: int
    leader_after: int

    @property
    def adding(self) -> Replicas:
        """Replicas this step creates (they copy the partition from the leader)."""
        before = self.before
        return tuple(b for b in self.after if b not in before)

    @property
    def removing(self) -> Replicas:
        """Replicas this step deletes once the new ones are in sync."""
        after = self.after
        return tuple(b for b in self.before if b not in after)

    @property
    def brokers_moving(self) -> frozenset[int]:
        """Brokers a replica moves into or out of during this step."""
        return frozenset(self.before).symmetric_difference(self.after)

    @property
    def moves_leader(self) -> bool:
        """Whether the step changes the leader or the preferred leader (counted conservatively
        against --max-leader-movements)."""
        return self.leader_after != self.leader_before or self.after[0] != self.before[0]

    @property
    def is_last(self) -> bool:
        return self.number == self.of


def replica_steps(
    current: Sequence[int],
    target: Sequence[int],
    max_replicas: int,
    *,
    min_insync: int = 1,
    isr: Sequence[int] | None = None,
) -> tuple[Replicas, ...]:
    """Every intermediate replica set from ``current`` to ``target``; the last equals ``target``.

    ``isr`` defaults to ``current`` (all in sync). Empty when nothing has to change.

    Replicas are always added in FTR order and dropped in one fixed order (out-of-sync first,
    then CR order), so a step is fully described by how many of each have been added and
    dropped so far: the loop only does arithmetic on those two counts.
    """
    r = max_replicas
    if r < 1:
        raise InputError(f"max parallel replicas must be at least 1, not {r}")
    cr = tuple(current)
    ftr = tuple(target)
    if not ftr:
        raise InputError("the target replica list is empty")
    cr_set = set(cr)
    ftr_set = set(ftr)
    if cr_set == ftr_set:
        return () if cr == ftr else (ftr,)
    in_sync = cr_set if isr is None else set(isr)
    missing = [b for b in ftr if b not in cr_set]
    excess = [b for b in cr if b not in ftr_set]
    # Rank of each target replica: present once `added` >= rank (0: already there).
    rank = {b: i for i, b in enumerate(missing, 1)}
    add_rank = [(b, rank.get(b, 0)) for b in ftr]
    # Rank of each excess replica, kept in CR order: gone once `dropped` >= rank. When all are
    # in sync they go in CR order, and what is kept is simply excess[dropped:].
    in_order = in_sync.issuperset(excess)
    if not in_order:
        order = sorted(excess, key=lambda b: b in in_sync)  # stable: out-of-sync first
        drop_rank = [(b, order.index(b) + 1) for b in excess]
    n_add, n_drop = len(missing), len(excess)
    shortfall = min_insync - len(in_sync.intersection(cr))
    added = dropped = 0
    sets: list[Replicas] = []
    if n_add and missing[0] == ftr[0]:  # the new preferred leader, alone (and min.insync)
        added = n_add if shortfall > n_add else (shortfall if shortfall > 1 else 1)
        sets.append(tuple([b for b, k in add_rank if k <= added] + excess))
        shortfall = 0
    while added < n_add or dropped < n_drop:
        over = (n_drop - dropped) - (n_add - added)  # replicas beyond the target's count
        drop = r if r > over else over
        if drop > n_drop - dropped:
            drop = n_drop - dropped
        room = drop - over
        add = r if r < room else (room if room > 0 else 0)
        if add > n_add - added:
            add = n_add - added
        if shortfall > add:  # first step only
            add = n_add if shortfall > n_add else shortfall
        shortfall = 0
        added += add
        dropped += drop
        present = ftr if added == n_add else tuple([b for b, k in add_rank if k <= added])
        kept = excess[dropped:] if in_order else [b for b, k in drop_rank if k > dropped]
        sets.append(present + tuple(kept) if kept else present)
    return tuple(sets)


def partition_steps(
    tp: TopicPartition,
    current: Sequence[int],
    target: Sequence[int],
    max_replicas: int,
    *,
    leader: int | None = None,
    min_insync: int = 1,
    isr: Sequence[int] | None = None,
) -> tuple[Step, ...]:
    """The steps of one partition, with the leader Kafka will have before and after each."""
    sets = replica_steps(current, target, max_replicas, min_insync=min_insync, isr=isr)
    return steps_from_sets(tp, current, sets, leader)


def steps_from_sets(
    tp: TopicPartition, current: Sequence[int], sets: Sequence[Sequence[int]], leader: int | None = None
) -> tuple[Step, ...]:
    """Steps from a list of replica sets (as computed once and kept in a state file)."""
    before = tuple(current)
    lead = before[0] if leader is None or leader < 0 else leader
    out: list[Step] = []
    n = len(sets)
    new = tuple.__new__  # what Step(...) does, minus a Python-level call: planning 100,000s
    for number, step_after in enumerate(sets, 1):
        after = tuple(step_after)
        lead_after = lead if lead in after else after[0]
        out.append(new(Step, (tp, number, n, before, after, lead, lead_after)))
        before, lead = after, lead_after
    return tuple(out)


def plan_steps(
    plan: ReassignmentPlan,
    partitions: Mapping[TopicPartition, PartitionState],
    max_replicas: int,
    min_insync: Mapping[str, int] | int = 1,
) -> dict[TopicPartition, tuple[Step, ...]]:
    """Steps for every partition of a plan, from the partitions as the cluster shows them.

    ``min_insync``: min.insync.replicas per topic (or one value for all). Partitions already
    at their target get no steps. Unknown partitions, and brokers listed twice, are an
    InputError naming them all.
    """
    with gc_paused():  # hundreds of thousands of small, long-lived tuples: nothing to collect
        entries = [(a.tp, a) for a in plan.partitions]
        states = [partitions.get(tp) for tp, _ in entries]
        unknown = [str(tp) for (tp, _), state in zip(entries, states) if state is None]
        if unknown:
            from kadmin.units import counted

            verb = "does" if len(unknown) == 1 else "do"
            raise InputError(
                f"{counted(len(unknown), 'partition')} of the plan {verb} not exist in the cluster", problems=unknown
            )
        doubled = [f"{tp}: {list(a.replicas)}" for tp, a in entries if len(set(a.replicas)) != len(a.replicas)]
        if doubled:
            from kadmin.units import counted

            verb = "lists" if len(doubled) == 1 else "list"
            raise InputError(f"{counted(len(doubled), 'partition')} {verb} a broker twice", problems=doubled)
        out: dict[TopicPartition, tuple[Step, ...]] = {}
        for (tp, a), state in zip(entries, states):
            assert state is not None  # unknown partitions were refused above
            m = min_insync if isinstance(min_insync, int) else min_insync.get(tp.topic, 1)
            sets = replica_steps(state.replicas, a.replicas, max_replicas, min_insync=m, isr=state.isr)
            out[tp] = steps_from_sets(tp, state.replicas, sets, state.leader) if sets else ()
    return out


def throttled_replicas(
    steps: Mapping[TopicPartition, Sequence[Step]],
) -> tuple[dict[TopicPartition, tuple[int, ...]], dict[TopicPartition, tuple[int, ...]]]:
    """Replicas to throttle for a whole incremental run: (leader side, follower side).

    Throttles stay in place across steps, so the lists cover every step: a replica added by
    one step (the new preferred leader, say) may be the source of the next one. Leader side:
    every replica present before any step; follower side: every replica any step adds.
    """
    leader: dict[TopicPartition, tuple[int, ...]] = {}
    follower: dict[TopicPartition, tuple[int, ...]] = {}
    for tp, chain in steps.items():
        if not chain:
            continue
        sources: set[int] = set()
        destinations: set[int] = set()
        for s in chain:
            sources.update(s.before)
            destinations.update(s.adding)
        if destinations:
            leader[tp] = tuple(sorted(sources))
            follower[tp] = tuple(sorted(destinations))
    return leader, follower


def resume_point(steps: Sequence[Step], replicas: Sequence[int]) -> int | None:
    """How many of ``steps`` a partition whose replicas are ``replicas`` has completed.

    Kafka leaves a completed reassignment in the target's order, so an exact match decides; a
    match as a set is accepted too (a backend may report another order). The latest match wins,
    so a reorder-only last step is not mistaken for done. None when the replicas match no
    point of the sequence (the partition was changed outside this plan).
    """
    if not steps:
        return 0
    current = tuple(replicas)
    points = [steps[0].before] + [s.after for s in steps]
    for i in range(len(points) - 1, -1, -1):
        if points[i] == current:
            return i
    wanted = set(current)
    for i in range(len(points) - 1, -1, -1):
        if set(points[i]) == wanted:
            return i
    return None
