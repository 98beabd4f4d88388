"""Batching KIP-435 steps of many partitions under concurrency limits.

Each partition advances one step at a time; a batch is the set of steps started together.
Limits (all counted over the steps in flight, the new batch included):

- ``max_parallel_replicas``: replicas added at once to one partition. Enforced when the steps
  are computed (``kadmin.plan.steps``); recorded here so the whole run has one set of limits.
- ``max_parallel_partitions``: partitions being reassigned at once.
- ``max_leader_movements``: steps in flight that change a partition's leader or preferred
  leader. As in KIP-435, leader movements fill the batch first and the rest comes from other
  steps.
- ``max_moves_per_broker``: replicas moving into or out of one broker at once.

Every step touches a broker at most once, so any single step fits when nothing else is in
flight: batching always makes progress. All functions are pure and deterministic.
"""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Iterable, Mapping, Sequence

from kadmin.errors import UsageError
from kadmin.model import TopicPartition
from kadmin.plan.steps import Step


@dataclass(frozen=True)
class Limits:
    """Concurrency limits of an incremental reassignment; None means no limit.

    Defaults: one replica per partition at a time (KIP-435's "bring one replica online, bring
    it in sync, then remove one"), and at most 5 moves per broker (Cruise Control's default for
    concurrent partition movements per broker).
    """

    max_parallel_replicas: int = 1
    max_parallel_partitions: int | None = None
    max_leader_movements: int | None = None
    max_moves_per_broker: int | None = 5

    def validate(self) -> None:
        bad = [
            f"--{name.replace('_', '-')} must be at least 1, not {value}"
            for name, value in asdict(self).items()
            if value is not None and (not isinstance(value, int) or value < 1)
        ]
        if self.max_parallel_replicas is None:
            bad.append("--max-parallel-replicas is required")
        if bad:
            raise UsageError("; ".join(bad))

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping) -> Limits:
        return cls(**{k: data.get(k) for k in asdict(cls()) if k in data})


@dataclass(frozen=True)
class Load:
    """How much is moving at once: what the limits are checked against."""

    partitions: int
    leader_movements: int
    per_broker: Mapping[int, int]
    max_replicas_per_partition: int

    @property
    def busiest_broker(self) -> int:
        return max(self.per_broker.values(), default=0)


def load_of(steps: Iterable[Step]) -> Load:
    partitions = leaders = widest = 0
    per_broker: Counter[int] = Counter()
    for s in steps:
        partitions += 1
        leaders += s.moves_leader
        per_broker.update(s.brokers_moving)
        widest = max(widest, len(s.adding))
    return Load(partitions, leaders, dict(per_broker), widest)


def exceeded(load: Load, limits: Limits) -> list[str]:
    """The limits ``load`` exceeds (batching never produces one; tests and the executor check).

    ``max_parallel_replicas`` is left out: steps may exceed it once by design (KIP-435's
    min.insync.replicas exception); tests check it on the steps themselves.
    """
    out = []
    if limits.max_parallel_partitions is not None and load.partitions > limits.max_parallel_partitions:
        out.append(f"{load.partitions} partitions moving > {limits.max_parallel_partitions}")
    if limits.max_leader_movements is not None and load.leader_movements > limits.max_leader_movements:
        out.append(f"{load.leader_movements} leader movements > {limits.max_leader_movements}")
    if limits.max_moves_per_broker is not None and load.busiest_broker > limits.max_moves_per_broker:
        out.append(f"{load.busiest_broker} moves on one broker > {limits.max_moves_per_broker}")
    return out


def next_batch(candidates: Sequence[Step], in_flight: Iterable[Step], limits: Limits) -> tuple[Step, ...]:
    """The steps to start now, taken greedily in ``candidates`` order while every limit holds.

    ``candidates``: the next step of each partition that has no step in flight (at most one
    per partition), in priority order. Leader movements are taken first (KIP-435), then the
    other steps.
    """
    current = load_of(in_flight)
    partitions = current.partitions
    leaders = current.leader_movements
    per_broker = Counter(current.per_broker)
    max_p = limits.max_parallel_partitions
    max_l = limits.max_leader_movements
    max_b = limits.max_moves_per_broker
    chosen: list[Step] = []
    for want_leader in (True, False):
        for s in candidates:
            if max_p is not None and partitions >= max_p:
                return tuple(chosen)
            moves_leader = s.moves_leader
            if moves_leader is not want_leader:
                continue
            if moves_leader and max_l is not None and leaders >= max_l:
                continue
            brokers = s.brokers_moving
            if max_b is not None and any(per_broker[b] >= max_b for b in brokers):
                continue
            chosen.append(s)
            partitions += 1
            leaders += moves_leader
            per_broker.update(brokers)
    return tuple(chosen)


def prioritize(
    candidates: Iterable[Step],
    remaining: Mapping[TopicPartition, Sequence[Step]],
    sizes: Mapping[TopicPartition, int] | None = None,
    in_flight: Iterable[Step] = (),
) -> list[Step]:
    """Order candidates so that no broker with bytes still to receive sits idle.

    The run cannot end before the broker with the most bytes to receive has received them, and
    a broker's follower throttle is shared by everything arriving on it. So brokers take turns,
    the one with the most bytes left per step already arriving first, and each broker's own
    steps go biggest partition first. Steps that add nothing (drop or reorder only) come before
    everything: they finish at once and unblock the next step.
    ``remaining``: the steps each partition still has to run (its candidate included).
    ``sizes``: bytes per partition; without them every partition weighs the same.
    """
    weight = (lambda tp: 1) if sizes is None else (lambda tp: max(sizes.get(tp, 0), 1))
    inbound: Counter[int] = Counter()
    left: dict[TopicPartition, int] = {}
    for tp, chain in remaining.items():
        w = weight(tp)
        n = 0
        for st in chain:
            for b in st.adding:
                inbound[b] += w
                n += w
        left[tp] = n
    arriving: Counter[int] = Counter(b for st in in_flight for b in st.adding)
    free: list[Step] = []
    queues: dict[int, list[Step]] = {}
    for st in candidates:
        if not st.adding:
            free.append(st)
        for b in st.adding:
            queues.setdefault(b, []).append(st)
    for q in queues.values():
        q.sort(key=lambda st: (-left.get(st.tp, 0), st.tp), reverse=True)  # pop() takes the best

    def key(b: int) -> float:
        return -inbound[b] / (1 + arriving[b])

    heap = [(key(b), b) for b in queues]
    heapq.heapify(heap)
    out = sorted(free, key=lambda st: st.tp)
    taken: set[TopicPartition] = {st.tp for st in free}
    while heap:
        k, b = heapq.heappop(heap)
        if k != key(b):  # stale: b got more arriving since; its turn comes later
            heapq.heappush(heap, (key(b), b))
            continue
        q = queues[b]
        while q and q[-1].tp in taken:
            q.pop()
        if not q:
            continue
        st = q.pop()
        out.append(st)
        taken.add(st.tp)
        for x in st.adding:
            arriving[x] += 1
        heapq.heappush(heap, (key(b), b))
    return out


def plan_batches(
    steps: Mapping[TopicPartition, Sequence[Step]],
    limits: Limits,
    sizes: Mapping[TopicPartition, int] | None = None,
) -> tuple[tuple[Step, ...], ...]:
    """All batches when each batch waits for the previous one to finish (ZooKeeper mode, and
    the preview of a run). Every partition ends at its target; no batch exceeds a limit."""
    position = {tp: 0 for tp, chain in steps.items() if chain}
    batches: list[tuple[Step, ...]] = []
    while position:
        remaining = {tp: steps[tp][i:] for tp, i in position.items()}
        candidates = prioritize((chain[0] for chain in remaining.values()), remaining, sizes)
        batch = next_batch(candidates, (), limits)
        if not batch:  # cannot happen: any single step fits an empty cluster
            raise AssertionError("no step fits the limits")
        batches.append(batch)
        for s in batch:
            position[s.tp] += 1
            if position[s.tp] == len(steps[s.tp]):
                del position[s.tp]
    return tuple(batches)
