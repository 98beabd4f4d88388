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
flight: batching always makes progress. The functions are pure and deterministic; ``Backlog``
is a running tally of the work left that the caller reduces as steps finish.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

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
        return cls(**{k: data[k] for k in asdict(cls()) if k in data})


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


def _weight(sizes: Mapping[TopicPartition, int] | None, tp: TopicPartition) -> int:
    return 1 if sizes is None else max(sizes.get(tp, 0), 1)


@dataclass
class Backlog:
    """Work still to do: bytes each broker has yet to receive, bytes each partition has yet to
    copy. Computed once, then reduced step by step (``done``), so ordering candidates does not
    recount every remaining step of a large plan on every poll."""

    inbound: Counter
    left: dict
    sizes: Mapping[TopicPartition, int] | None = None

    @classmethod
    def of(
        cls, remaining: Mapping[TopicPartition, Sequence[Step]], sizes: Mapping[TopicPartition, int] | None = None
    ) -> Backlog:
        inbound: Counter[int] = Counter()
        left: dict[TopicPartition, int] = {}
        for tp, chain in remaining.items():
            w = _weight(sizes, tp)
            n = 0
            for st in chain:
                for b in st.adding:
                    inbound[b] += w
                    n += w
            left[tp] = n
        return cls(inbound, left, sizes)

    def done(self, step: Step) -> None:
        w = _weight(self.sizes, step.tp)
        adding = step.adding
        for b in adding:
            self.inbound[b] -= w
        self.left[step.tp] = self.left.get(step.tp, 0) - w * len(adding)


def next_batch(
    candidates: Sequence[Step],
    in_flight: Iterable[Step],
    limits: Limits,
    backlog: Backlog | None = None,
) -> tuple[Step, ...]:
    """The steps to start now, chosen greedily while every limit holds.

    ``candidates``: the next step of each partition that has no step in flight (at most one per
    partition). ``backlog``: the work left (default: just the candidates).

    Order of choice: leader movements first, then the other steps (KIP-435). Within each,
    steps that add no replica (drop or reorder only: they finish at once and unblock the next
    step), then the brokers take turns: the run cannot end before the broker with the most bytes
    to receive has received them, and a broker's follower throttle is shared by everything
    arriving on it, so the broker with the most bytes left per step already arriving goes next,
    with its biggest partition. Counts only grow during one choice, so a step that does not fit
    when its turn comes is passed over for good, and a full broker leaves the rotation: the cost
    is linear in the candidates plus a logarithm per step chosen.
    """
    steps = list(candidates)
    if backlog is None:
        backlog = Backlog.of({st.tp: (st,) for st in steps})
    inbound, left = backlog.inbound, backlog.left
    current = load_of(in_flight)
    partitions = current.partitions
    leaders = current.leader_movements
    per_broker: Counter[int] = Counter(current.per_broker)
    arriving: Counter[int] = Counter(b for st in in_flight for b in st.adding)
    max_p = limits.max_parallel_partitions
    max_l = limits.max_leader_movements
    max_b = limits.max_moves_per_broker
    chosen: list[Step] = []

    def key(b: int) -> float:
        return -inbound[b] / (1 + arriving[b])

    for want_leader in (True, False):
        if want_leader and max_l is not None and leaders >= max_l:
            continue
        group = [i for i, st in enumerate(steps) if st.moves_leader is want_leader]
        adding = {i: steps[i].adding for i in group}
        order = [i for i in group if not adding[i]]  # drop/reorder-only: first, in given order
        queues: dict[int, list[tuple[int, int]]] = {}  # broker -> heap of (-bytes left, index)
        for i in group:
            for b in adding[i]:
                queues.setdefault(b, []).append((-left.get(steps[i].tp, 0), i))
        for q in queues.values():
            heapq.heapify(q)
        turns = [(key(b), b) for b in queues]
        heapq.heapify(turns)
        passed: set[int] = set()

        def next_in_turn(turns=turns, queues=queues, passed=passed):  # this round's heaps, bound now
            while turns:
                k, b = heapq.heappop(turns)
                if max_b is not None and per_broker[b] >= max_b:
                    continue  # full for this round
                if k != key(b):  # stale: more arriving on b since; its turn comes later
                    heapq.heappush(turns, (key(b), b))
                    continue
                q = queues[b]
                while q and q[0][1] in passed:
                    heapq.heappop(q)
                if not q:
                    continue
                i = heapq.heappop(q)[1]
                heapq.heappush(turns, (key(b), b))
                return i
            return None

        pending = iter(order)
        while True:
            if max_p is not None and partitions >= max_p:
                return tuple(chosen)
            if want_leader and max_l is not None and leaders >= max_l:
                break
            picked = next(pending, None)
            if picked is None:
                picked = next_in_turn()
                if picked is None:
                    break
            i = picked
            passed.add(i)
            st = steps[i]
            brokers = st.brokers_moving
            if max_b is not None and any(per_broker[b] >= max_b for b in brokers):
                continue
            chosen.append(st)
            partitions += 1
            leaders += want_leader
            per_broker.update(brokers)
            arriving.update(adding[i])
    return tuple(chosen)


def plan_batches(
    steps: Mapping[TopicPartition, Sequence[Step]],
    limits: Limits,
    sizes: Mapping[TopicPartition, int] | None = None,
) -> tuple[tuple[Step, ...], ...]:
    """All batches when each batch waits for the previous one to finish (ZooKeeper mode, and
    the preview of a run). Every partition ends at its target; no batch exceeds a limit."""
    position = {tp: 0 for tp, chain in steps.items() if chain}
    backlog = Backlog.of({tp: steps[tp] for tp in position}, sizes)
    batches: list[tuple[Step, ...]] = []
    while position:
        batch = next_batch([steps[tp][i] for tp, i in position.items()], (), limits, backlog)
        if not batch:  # cannot happen: any single step fits an empty cluster
            raise AssertionError("no step fits the limits")
        batches.append(batch)
        for s in batch:
            backlog.done(s)
            position[s.tp] += 1
            if position[s.tp] == len(steps[s.tp]):
                del position[s.tp]
    return tuple(batches)
