"""Progress of ``reassign execute --incremental``: steps, batches, bytes copied and the time left.

Bytes count both kinds of copy. A step's bytes are its partition's size (the largest replica:
the leader's, normally) times the replicas the step adds; done are those of the finished steps
plus what the replicas being added hold already (DescribeLogDirs on their brokers). A move
between the directories of one broker (a plan's ``log_dirs``) counts its replica's size once
the run sees it outside its directory, and done what its future replica holds (all of it once
in place); a replica a step creates in its directory is a step's bytes only. The moves an
earlier invocation finished are not known (in its directory, a replica looks as if it never
moved): a resumed run counts those left when it began. Reads happen at most every ``interval``
seconds. The rate counts only what this invocation copied, so a resumed run's ETA is not
flattered by what an earlier one did. Every figure is best effort: a read that fails is a
note, and the run goes on counting steps.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from kadmin.backends.base import Backend, BrokerLogDirs, Capability
from kadmin.execute.incremental_log_dirs import not_in_place
from kadmin.execute.state_file import IncrementalState
from kadmin.model import ReassignmentPlan, ReplicaLogDir, TopicPartition, TopicPartitionReplica
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
    eta_seconds: float | None  # None while a running step waits for a down broker
    waiting_for: tuple[int, ...] = ()  # down brokers a running step has a replica on
    # (broker, directory): offline directories a running step's new replica or a move between
    # directories is held in; nothing copies it until the broker restarts with it back
    paused: tuple[tuple[int, str], ...] = ()

    @property
    def step_label(self) -> str:
        """ "x of y steps done": the steps finished, counted over every partition; it never goes
        back (a step cancelled or sent again leaves it as it was). The running ones are said
        apart ("1 running")."""
        return f"{self.steps_done} of {self.steps_total} steps done"


def partition_sizes(
    answers: Mapping[int, BrokerLogDirs], wanted: Collection[TopicPartition]
) -> dict[TopicPartition, int]:
    """Bytes of each partition of ``wanted`` that DescribeLogDirs (``answers``) lists: its
    largest replica (the leader's, normally). The run orders its steps by them
    (``kadmin.plan.batches.Backlog``), and so does its ``--dry-run``."""
    sizes: dict[TopicPartition, int] = {}
    for bld in answers.values():
        for d in bld.log_dirs:
            for r in d.replicas:
                if r.tp in wanted and not r.is_future:
                    sizes[r.tp] = max(sizes.get(r.tp, 0), r.size)
    return sizes


class ByteCount:
    """The bytes of one run's steps, done and left (``note``: tells the operator a read failed)."""

    def __init__(self, backend: Backend, note: Callable[[str], None], interval: float):
        self.backend = backend
        self.note = note
        self.interval = interval
        self.sizes: dict[TopicPartition, int] = {}
        self.partial: dict[Step, int] = {}  # bytes copied so far, per step in flight
        self.last_sizes_at: float | None = None
        self.total = 0  # bytes of every step
        self.at_start = 0  # done when this invocation began
        self.targets: Mapping[TopicPartitionReplica, str] = {}  # the plan's named directories
        self.dir_moves: dict[TopicPartitionReplica, tuple[int, int]] = {}  # between directories: (size, copied)
        self.last_dirs_at: float | None = None
        # What each broker held of each partition when the sizes were read (``read_sizes``).
        self.held: dict[tuple[TopicPartition, int], int] = {}
        # Steps not sent yet whose new replicas start from a stray log (the half-copied log a
        # cancelled step left, picked up where it stopped): bytes copied before this run.
        self.head_start: dict[Step, int] = {}
        # Offline directories: what each broker's DescribeLogDirs said last (broker -> paths),
        # where a running step's new replica was last listed, and the moves between
        # directories whose source replica is not listed (its directory offline?): target.
        self.offline: dict[int, tuple[str, ...]] = {}
        self.listed_in: dict[tuple[TopicPartition, int], str] = {}
        self.online_held: dict[int, set[TopicPartition]] = {}  # listed in an online directory
        self.source_unseen: dict[TopicPartitionReplica, str] = {}
        self.not_placed: set[TopicPartitionReplica] = set()  # seen, not in their directory nor copying there
        self.last_offline_at: float | None = None

    def read_sizes(self, plan: ReassignmentPlan, live: Collection[int]) -> dict[TopicPartition, int]:
        """Bytes of each partition: its largest replica (the leader's, normally)."""
        if Capability.LOG_DIRS not in getattr(self.backend, "capabilities", frozenset()):
            return {}
        try:
            answers = self.backend.describe_log_dirs(brokers=sorted(live), topics=plan.topics)
        except Exception as e:  # sizes only feed progress figures; the run goes on
            self.note(f"could not read partition sizes; progress will count steps only ({type(e).__name__}: {e})")
            return {}
        sizes = partition_sizes(answers, {a.tp for a in plan.partitions})
        self._saw_offline(answers, plan.topics)
        for b, bld in answers.items():
            for d in bld.log_dirs:
                for r in d.replicas:
                    if r.tp in sizes and not r.is_future:
                        self.held[r.tp, b] = max(self.held.get((r.tp, b), 0), r.size)
        return sizes

    def step_bytes(self, s: Step) -> int:
        return self.sizes.get(s.tp, 0) * len(s.adding)

    def of_steps(self, state: IncrementalState) -> int:
        """The bytes of every step of the run."""
        return sum(self.step_bytes(s) for p in state.partitions.values() for s in p.steps)

    def done(self, state: IncrementalState, in_flight: Mapping[TopicPartition, Step]) -> int:
        """Bytes copied: the finished steps', the running steps' so far, and the moves between
        directories'."""
        done = sum(self.step_bytes(s) for p in state.partitions.values() for s in p.steps[: p.completed])
        running = set(in_flight.values())
        return (
            done + sum(n for s, n in self.partial.items() if s in running) + sum(c for _, c in self.dir_moves.values())
        )

    def begin(
        self,
        state: IncrementalState,
        in_flight: Mapping[TopicPartition, Step],
        live: Collection[int],
        now: float,
    ) -> None:
        """What was copied when this invocation began (``at_start``), read at ``now``: the
        replicas the running steps add (a resumed run's steps, sent by an earlier one) hold
        what that run copied, so it is read before it is counted as done; else it would count
        as copied by this run and flatter the first rate. So do the stray logs (the half-copied
        logs of a step cancelled outside a run, ``kadmin.model.replica_dirs_of``) on the brokers
        the steps still to send add: a broker picks its stray log up where it stopped, so those
        bytes count as done once the step runs, and as done before this run then
        (``head_start``)."""
        self.partial = self.copied_in_flight(in_flight, live)
        self.last_sizes_at = now
        self.at_start = self.done(state, in_flight)
        self.head_start = {}
        for tp, p in state.partitions.items():
            running = in_flight.get(tp)
            if not p.steps[p.completed :]:
                continue
            replicas = set(p.steps[p.completed].before)  # now: a log elsewhere is a stray one
            for s in p.steps[p.completed :]:
                if s == running:
                    continue  # read above: what it holds is done at start
                stray = sum(
                    min(self.held.get((tp, b), 0), self.sizes.get(tp, 0)) for b in s.adding if b not in replicas
                )
                if stray:
                    self.head_start[s] = stray

    def _started(self, state: IncrementalState, in_flight: Mapping[TopicPartition, Step]) -> None:
        """Steps with a head start that have started (running or finished): their stray bytes
        are counted as done (read while running, or finished), so they are done before this run
        (``at_start``), counted once."""
        started = [
            s
            for s in self.head_start
            if (in_flight.get(s.tp) == s and s in self.partial) or s.number <= state.partitions[s.tp].completed
        ]
        for s in started:
            self.at_start += self.head_start.pop(s)

    def all_bytes(self) -> int:
        """Bytes of every step and of every move between directories seen."""
        return self.total + sum(size for size, _ in self.dir_moves.values())

    def saw_dirs(self, left: Mapping[TopicPartitionReplica, ReplicaLogDir | None], now: float) -> None:
        """Where the replicas of ``targets`` not in their directory are (``not_in_place``'s
        answer, read at ``now``): one on its broker in another directory is a move of its size,
        copied as far as its future replica in the target directory; a move no longer in
        ``left`` is in place, all copied. Unknown (broker down) and not-yet-created replicas
        keep what was known."""
        for r, (size, _) in self.dir_moves.items():
            if r not in left:
                self.dir_moves[r] = (size, size)
        self.source_unseen = {
            r: w.future_dir for r, w in left.items() if w is not None and w.current_dir is None and w.future_dir
        }
        # seen, and not copying into their directory: a broker refuses that while it is offline
        self.not_placed = {r for r, w in left.items() if w is not None and w.future_dir != self.targets.get(r)}
        for r, w in left.items():
            if w is None or w.current_dir is None:
                continue
            size = max(w.current_size or 0, self.dir_moves.get(r, (0, 0))[0])
            copied = min(w.future_size or 0, size) if w.future_dir == self.targets.get(r) else 0
            self.dir_moves[r] = (size, copied)
        self.last_dirs_at = now

    def read_dirs(self, live: Collection[int], now: float) -> None:
        """Read the moves between directories again (best effort), unless all are in place."""
        if not self.dir_moves or all(c >= size for size, c in self.dir_moves.values()):
            return
        try:
            left = not_in_place(self.backend, self.targets, live)
        except Exception as e:  # progress figures are best effort; the run goes on
            self.note(f"could not read the log-dir moves for progress ({type(e).__name__}: {e})")
            return
        self.saw_dirs(left, now)

    def copied_in_flight(self, in_flight: Mapping[TopicPartition, Step], live: Collection[int]) -> dict[Step, int]:
        """Bytes the replicas being added already hold (DescribeLogDirs on their brokers)."""
        if not in_flight or not self.sizes:
            return {}
        # every broker of the targets: where their replicas are listed tells an offline one apart
        brokers = sorted({b for s in in_flight.values() for b in s.after} & set(live))
        topics = sorted({tp.topic for tp in in_flight})
        if not brokers:
            return self.partial
        try:
            answers = self.backend.describe_log_dirs(brokers=brokers, topics=topics)
        except Exception as e:  # progress figures are best effort; the run goes on
            self.note(f"could not read replica sizes for progress ({type(e).__name__}: {e})")
            return self.partial
        self._saw_offline(answers, topics)
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

    def _saw_offline(self, answers: Mapping[int, BrokerLogDirs], topics: Collection[str]) -> None:
        """Note each answering broker's offline directories, and where its replicas of
        ``topics`` (those asked about: what it holds of others is as last seen) are listed."""
        for b, bld in answers.items():
            if bld.error is not None:
                continue
            self.offline[b] = tuple(d.path for d in bld.log_dirs if d.error)
            self.online_held[b] = {tp for tp in self.online_held.get(b, ()) if tp.topic not in topics}
            for d in bld.log_dirs:
                for r in d.replicas if not d.error else ():
                    if not r.is_future:
                        self.listed_in[r.tp, b] = d.path
                        self.online_held[b].add(r.tp)

    def read_offline(self, brokers: Collection[int], topics: Collection[str], now: float) -> None:
        """The offline directories of ``brokers`` (best effort): those of the moves between
        directories whose source replica is not listed."""
        self.last_offline_at = now
        try:
            answers = self.backend.describe_log_dirs(brokers=sorted(brokers), topics=sorted(topics))
        except Exception as e:  # progress figures are best effort; the run goes on
            self.note(f"could not read the log directories for progress ({type(e).__name__}: {e})")
            return
        self._saw_offline(answers, topics)

    def paused_on(
        self,
        in_flight: Mapping[TopicPartition, Step],
        live: Collection[int],
        offline_replicas: Collection[tuple[TopicPartition, int]] = (),
    ) -> tuple[tuple[int, str], ...]:
        """The offline directories (broker, path) that hold the run: a replica of a running
        step's target is not listed in an online directory of its broker, and was listed in an
        offline one, or is to be created in one (the plan's ``log_dirs``), or is in one all the
        same: Metadata lists it among the partition's offline replicas (``offline_replicas``:
        (partition, broker)), or its broker held it before the step. An offline directory lists
        no replica, so one offline before the run (or before it resumed) is known so; the
        broker's offline directories are named then (one, normally). And a move between
        directories whose source replica is not listed, on a broker with an offline directory
        (not the move's target). Nothing copies them until the broker restarts with the
        directory back; then they resume."""
        out: set[tuple[int, str]] = set()
        for s in in_flight.values():
            for b in s.after:  # a step ends once every replica of its target is in the ISR
                offline = self.offline.get(b, ())
                if b not in live or not offline or s.tp in self.online_held.get(b, ()):
                    continue
                r = TopicPartitionReplica(s.tp.topic, s.tp.partition, b)
                named = {path for path in (self.listed_in.get((s.tp, b)), self.targets.get(r)) if path in offline}
                if not named and ((s.tp, b) in offline_replicas or b in s.before):
                    named = set(offline)
                out.update((b, path) for path in named)
        for r, future in self.source_unseen.items():
            if r.broker in live:
                out.update((r.broker, path) for path in self.offline.get(r.broker, ()) if path != future)
        for r in self.not_placed:  # its directory offline: its broker refuses it (KAFKA_STORAGE_ERROR)
            if r.broker in live and (target := self.targets.get(r)) in self.offline.get(r.broker, ()):
                out.add((r.broker, target))
        return tuple(sorted(out))

    def progress(
        self,
        state: IncrementalState,
        in_flight: Mapping[TopicPartition, Step],
        live: Collection[int],
        now: float,
        elapsed: float,
        offline_replicas: Collection[tuple[TopicPartition, int]] = (),
    ) -> Progress:
        """Where the run is at ``now``, ``elapsed`` seconds after this invocation began
        (``offline_replicas``: Metadata's, as ``paused_on`` takes them)."""
        if self.last_sizes_at is None or now - self.last_sizes_at >= self.interval:
            self.partial = self.copied_in_flight(in_flight, live)
            self.last_sizes_at = now
        if self.last_dirs_at is not None and now - self.last_dirs_at >= self.interval:
            self.read_dirs(live, now)
        # after the last step (no step reads them), the brokers of the moves left between directories
        unseen = set(self.source_unseen) | (self.not_placed if not in_flight else set())
        unseen_on = {r.broker for r in unseen} & set(live)
        if unseen_on and (self.last_offline_at is None or now - self.last_offline_at >= self.interval):
            self.read_offline(unseen_on, {r.topic for r in unseen}, now)
        paused = self.paused_on(in_flight, live, offline_replicas)
        total = self.all_bytes()
        done = min(self.done(state, in_flight), total)
        if self.head_start:
            self._started(state, in_flight)
        rate = (done - self.at_start) / elapsed if elapsed > 0 else 0.0
        # A step ends once every replica of its target is in the ISR: not while one's broker is down.
        waiting = tuple(sorted({b for s in in_flight.values() for b in s.after} - set(live)))
        eta = (total - done) / rate if rate > 0 and not waiting and not paused else None
        return Progress(
            state.steps_completed,
            state.steps_total,
            state.batches,
            tuple(in_flight.values()),
            done,
            total,
            elapsed,
            eta,
            waiting,
            paused,
        )
