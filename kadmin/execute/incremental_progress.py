"""Progress of ``reassign execute --incremental``: steps, batches, bytes copied and the time left.

A step's bytes are its partition's size (the largest replica: the leader's, normally) times the
replicas the step adds. Bytes done are those of the finished steps plus what the replicas being
added hold already (DescribeLogDirs on their brokers, read at most every ``interval`` seconds);
the rate counts only what this invocation copied, so a resumed run's ETA is not flattered by the
steps an earlier one finished. Every figure is best effort: a read that fails is a note, and the
run goes on counting steps.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from kadmin.backends.base import Backend, Capability
from kadmin.execute.state_file import IncrementalState
from kadmin.model import ReassignmentPlan, TopicPartition
from kadmin.plan.steps import Step


@dataclass(frozen=True)
class Progress:
    """Where the run is: steps, batches, bytes and the estimated time left."""

    steps_done: int
    steps_total: int
    batches: int
    in_flight: tuple[Step, ...]
    bytes_done: int
    bytes_total: int
    elapsed: float
    eta_seconds: float | None

    @property
    def step_label(self) -> str:
        """ "step x of y": the latest step started, counted over every partition."""
        return f"step {min(self.steps_done + len(self.in_flight), self.steps_total)} of {self.steps_total}"


class ByteCount:
    """The bytes of one run's steps, done and left (``note``: tells the operator a read failed)."""

    def __init__(self, backend: Backend, note: Callable[[str], None], interval: float):
        self.backend = backend
        self.note = note
        self.interval = interval
        self.sizes: dict[TopicPartition, int] = {}
        self.partial: dict[Step, int] = {}  # bytes copied so far, per step in flight
        self.last_sizes_at: float | None = None
        self.total = 0
        self.at_start = 0  # done when this invocation began

    def read_sizes(self, plan: ReassignmentPlan, live: Collection[int]) -> dict[TopicPartition, int]:
        """Bytes of each partition: its largest replica (the leader's, normally)."""
        if Capability.LOG_DIRS not in getattr(self.backend, "capabilities", frozenset()):
            return {}
        try:
            answers = self.backend.describe_log_dirs(brokers=sorted(live), topics=plan.topics)
        except Exception as e:  # sizes only feed progress figures; the run goes on
            self.note(f"could not read partition sizes; progress will count steps only ({type(e).__name__}: {e})")
            return {}
        wanted = {a.tp for a in plan.partitions}
        sizes: dict[TopicPartition, int] = {}
        for bld in answers.values():
            for d in bld.log_dirs:
                for r in d.replicas:
                    if r.tp in wanted and not r.is_future:
                        sizes[r.tp] = max(sizes.get(r.tp, 0), r.size)
        return sizes

    def step_bytes(self, s: Step) -> int:
        return self.sizes.get(s.tp, 0) * len(s.adding)

    def of_steps(self, state: IncrementalState) -> int:
        """The bytes of every step of the run."""
        return sum(self.step_bytes(s) for p in state.partitions.values() for s in p.steps)

    def done(self, state: IncrementalState, in_flight: Mapping[TopicPartition, Step]) -> int:
        done = sum(self.step_bytes(s) for p in state.partitions.values() for s in p.steps[: p.completed])
        running = set(in_flight.values())
        return done + sum(n for s, n in self.partial.items() if s in running)

    def copied_in_flight(self, in_flight: Mapping[TopicPartition, Step], live: Collection[int]) -> dict[Step, int]:
        """Bytes the replicas being added already hold (DescribeLogDirs on their brokers)."""
        if not in_flight or not self.sizes:
            return {}
        brokers = sorted({b for s in in_flight.values() for b in s.adding} & set(live))
        topics = sorted({tp.topic for tp in in_flight})
        if not brokers:
            return self.partial
        try:
            answers = self.backend.describe_log_dirs(brokers=brokers, topics=topics)
        except Exception as e:  # progress figures are best effort; the run goes on
            self.note(f"could not read replica sizes for progress ({type(e).__name__}: {e})")
            return self.partial
        copied = {}
        for s in in_flight.values():
            n = 0
            for b in s.adding:
                bld = answers.get(b)
                held = max(
                    (r.size for d in (bld.log_dirs if bld else ()) for r in d.replicas if r.tp == s.tp),
                    default=0,
                )
                n += min(held, self.sizes.get(s.tp, 0))
            copied[s] = max(n, self.partial.get(s, 0))
        return copied

    def progress(
        self,
        state: IncrementalState,
        in_flight: Mapping[TopicPartition, Step],
        live: Collection[int],
        now: float,
        elapsed: float,
    ) -> Progress:
        """Where the run is at ``now``, ``elapsed`` seconds after this invocation began."""
        if self.last_sizes_at is None or now - self.last_sizes_at >= self.interval:
            self.partial = self.copied_in_flight(in_flight, live)
            self.last_sizes_at = now
        done = min(self.done(state, in_flight), self.total)
        rate = (done - self.at_start) / elapsed if elapsed > 0 else 0.0
        eta = (self.total - done) / rate if rate > 0 else None
        return Progress(
            state.steps_completed,
            state.steps_total,
            state.batches,
            tuple(in_flight.values()),
            done,
            self.total,
            elapsed,
            eta,
        )
