"""``reassign execute --incremental``: run a plan in KIP-435 steps, batch after batch, resumably.

The steps and batches are computed purely (``kadmin.plan.steps``, ``kadmin.plan.batches``); this
module is the loop, the only part that waits: it sends a batch, polls ``describe_cluster`` and
``list_partition_reassignments`` until steps finish, sends the next, and saves the state file at
every change, so that the same command, run again after Ctrl-C, a crash or a broker restart,
carries on where the cluster is. Each part of the run has its own module in ``kadmin.execute``:

- ``incremental_resume``: fresh, resumed or started over (the state file read once, before any
  change), and the state a run starts or resumes with.
- ``incremental_batches``: the steps that go next under the ``--max-*`` limits, and sending them
  (AdminClient: as soon as a step finishes; ZooKeeper: one node per batch, after the previous).
- ``incremental_tracking``: where each partition is along its steps, on resume and on every poll;
  a step cancelled outside the run (``reassign cancel``) stops it.
- ``step_throttles``: throttles set for every step before the first batch, set again per batch
  where another command removed them, removed after the last step.
- ``incremental_log_dirs``: replicas sent to the log directories the plan names, before the
  first batch and after the last step.
- ``incremental_progress``: steps, bytes copied and the time left, for the reporter.
- ``state_file``: the file itself (format, atomic writes, the lock).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from kadmin.backends.base import Backend, Capability
from kadmin.errors import ClusterError
from kadmin.execute import state_file
from kadmin.execute.changes import describe
from kadmin.execute.clock import Clock, SystemClock  # also re-exported for callers
from kadmin.execute.incremental_batches import next_steps, refused_error, send_batch
from kadmin.execute.incremental_log_dirs import finish_after_last_step, not_in_place, send_before_first_batch
from kadmin.execute.incremental_progress import ByteCount, Progress
from kadmin.execute.incremental_resume import (
    FreshStart,
    Preflight,
    first_steps,
    fresh_state,
    preflight,
    refuse_partitions_moving,
    resumed_state,
)
from kadmin.execute.incremental_throttles import throttles_before
from kadmin.execute.incremental_tracking import StepTracker
from kadmin.execute.state_file import IncrementalState, PartitionProgress
from kadmin.execute.step_throttles import ThrottleControl, left_with
from kadmin.model import (
    ConfigChange,
    PartitionReassignment,
    PartitionState,
    ReassignmentPlan,
    ReplicaLogDir,
    Throttle,
    TopicPartition,
    TopicPartitionReplica,
)
from kadmin.plan.batches import Backlog, Limits
from kadmin.plan.steps import Step
from kadmin.plan.verify import log_dir_targets


class IncrementalReporter:
    """Hooks the executor calls; all no-ops here. Commands subclass it to render progress."""

    def planned(self, state: IncrementalState, resumed: bool) -> None:
        """Steps are known (computed now, or read back from the state file) and matched against
        the cluster: ``state`` counts the steps finished while no run watched."""

    def throttles(self, action: str, changes: int) -> None:
        """``action`` "set" or "removed", with the number of config changes made (each is then
        passed to ``config_change``)."""

    def config_change(self, change: ConfigChange, before: Throttle | None = None) -> None:
        """One throttle config change made: set before the first batch, or removed at the end.
        ``before``: the throttles set just before the run's changes (None: not known), for
        saying the value each one replaces."""

    def batch(self, number: int, steps: Sequence[Step]) -> None:
        """A batch was sent to the cluster."""

    def step_done(self, step: Step) -> None: ...

    def progress(self, progress: Progress) -> None: ...

    def note(self, message: str) -> None:
        """Something worth telling the operator (a read that failed and is retried...)."""

    def brokers(self, down: Sequence[int], back: Sequence[int]) -> None:
        """Brokers a step left has a replica on: ``down`` seen down (not among the live brokers)
        for the first time, ``back`` live again after that. A step finishes only once every
        replica of its target is in the ISR, so the run waits for a down one, as Kafka does."""

    def finished(self, progress: Progress) -> None: ...


@dataclass(frozen=True)
class IncrementalResult:
    state_path: Path
    resumed: bool
    steps_total: int
    steps_run: int  # steps this invocation saw finish
    batches: int  # batches this invocation sent
    bytes_total: int  # of every step and every move between directories seen
    elapsed: float
    rollback_file: str | None = None  # the state's: the assignment from before the plan's first step
    # Throttles of the run left set, recorded through another connection ("admin", "zookeeper"),
    # or "unknown" (no record here, and the state names no other connection).
    throttles_left_with: tuple[str, ...] = ()


def run_incremental(
    backend: Backend,
    plan: ReassignmentPlan,
    limits: Limits,
    state_path: str | Path,
    reporter: IncrementalReporter | None = None,
    clock: Clock | None = None,
    *,
    plan_file: str | None = None,
    throttle: ThrottleControl | None = None,
    rollback_file: str | None = None,
    poll_interval: float = 1.0,
    progress_interval: float = 5.0,
    pickup_grace: float = 30.0,
    read_retries: int = 30,
    checked: Preflight | None = None,
    fresh: FreshStart | None = None,
) -> IncrementalResult:
    """Run ``plan`` in steps under ``limits`` until every partition is at its target.

    Replicas the plan puts in named directories are sent there around the steps
    (``kadmin.execute.incremental_log_dirs``), and the run ends once they are in place.
    ``rollback_file`` (written by the caller before this call) is recorded in the state, so a
    resumed run names it. ``checked``: the caller's ``preflight`` of this plan and state file,
    with a fresh run's ``refuse_partitions_moving`` made against the cluster it read (None:
    both are done here). Raises UsageError for a state file of another plan, ClusterError when the cluster refuses
    a step or a directory, or a partition was changed by someone else (the state file is saved
    first, so fixing the cause and running again resumes). ``fresh``: a fresh run's steps as the
    caller planned them (``fresh_start``) against the partitions it read, so a run is planned
    once (None: planned here, unless resumed).
    """
    run = _Run(
        backend,
        plan,
        limits,
        Path(state_path),
        reporter or IncrementalReporter(),
        clock or SystemClock(),
        plan_file,
        throttle,
        poll_interval,
        progress_interval,
        pickup_grace,
        read_retries,
        rollback_file,
        checked,
        fresh,
    )
    try:
        return run.run()
    except KeyboardInterrupt as e:
        if isinstance(e, RunInterrupted) or not hasattr(run, "state"):
            raise
        raise RunInterrupted(run.result()) from e


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run, once its state was opened: ``result`` says how far this invocation
    got (steps seen finish, batches sent), so that ``--output json`` prints a document then too."""

    def __init__(self, result: IncrementalResult):
        super().__init__()
        self.result = result


class _Run:
    def __init__(
        self,
        backend,
        plan,
        limits,
        path,
        reporter,
        clock,
        plan_file,
        throttle,
        poll_interval,
        progress_interval,
        pickup_grace,
        read_retries,
        rollback_file=None,
        checked=None,
        fresh=None,
    ):
        self.checked: Preflight | None = checked
        self.fresh: FreshStart | None = fresh
        self.rollback_file: str | None = rollback_file
        self.backend: Backend = backend
        self.plan: ReassignmentPlan = plan
        self.limits: Limits = limits
        self.path: Path = path
        self.reporter: IncrementalReporter = reporter
        self.clock: Clock = clock
        self.plan_file = plan_file
        self.throttle = throttle
        self.poll_interval = poll_interval
        self.progress_interval = progress_interval
        self.pickup_grace = pickup_grace
        self.read_retries = read_retries
        # ZooKeeper: a new /admin/reassign_partitions node only once the previous one is gone.
        self.overlap = Capability.CONCURRENT_REASSIGNMENTS in getattr(backend, "capabilities", frozenset())
        self.tps = [a.tp for a in plan.partitions]
        self.track = StepTracker(pickup_grace, reporter.note, path)
        self.bytes = ByteCount(backend, reporter.note, progress_interval)
        self.steps_run = 0
        self.batches = 0
        self.backlog: Backlog | None = None
        self.dirty = True  # something changed since the last try to start a batch
        self.log_dirs = log_dir_targets(plan)  # replicas the plan puts in a named directory
        self.down: set[int] = set()  # brokers named down (``_watch_brokers``), until seen back
        self.held: set[TopicPartition] = set()  # next step adds a replica on a down broker (``_sendable``)
        self.holds_for_down = not self.overlap  # ZooKeeper: the controller refuses a broker not live
        self.live: set[int] = set()
        # Brokers the run's rates left out because they were down (over the AdminClient protocol
        # a broker answers for its own configs): throttled once seen back (``_throttle_back``).
        self.unthrottled: set[int] = set()

    # --- the loop -------------------------------------------------------------------------
    def run(self) -> IncrementalResult:
        self.limits.validate()
        self.t0 = self.clock.now()
        cluster = self._look_at_cluster()
        self.state, resumed = self._open_state(cluster.partitions)
        self.resumed = resumed
        self.bytes.sizes = self.bytes.read_sizes(self.plan, self.live)
        self.bytes.total = self.bytes.of_steps(self.state)
        self._locate(cluster.partitions, self._ongoing(), startup=True)
        if self.track.suspect:  # settle it before sending anything: look once more
            self.clock.sleep(self.poll_interval)
            cluster = self._look_at_cluster()
            self._locate(cluster.partitions, self._ongoing(), startup=True)
        self.reporter.planned(self.state, resumed)  # counts the steps finished while nobody watched
        self._watch_brokers()
        dirs_left = self._read(lambda: not_in_place(self.backend, self.log_dirs, self.live))
        self.bytes.targets = self.log_dirs
        self.bytes.saw_dirs(dirs_left, self.clock.now())
        self.bytes.begin(self.state, self.track.in_flight, self.live, self.clock.now())
        self.backlog = Backlog.of(
            {tp: p.steps[p.completed :] for tp, p in self.state.partitions.items()}, self.bytes.sizes
        )

        if not self._all_done() or dirs_left:
            self._set_throttles()
        if dirs_left:  # before the first batch: replicas to come are created in their directory
            send_before_first_batch(self.backend, self.log_dirs, dirs_left, self.reporter.note)

        while not self._all_done():
            self._maybe_start_batch()
            self.reporter.progress(self._progress())
            self.clock.sleep(self.poll_interval)
            cluster = self._look_at_cluster()
            self._watch_brokers()
            self._throttle_back()
            self._locate(cluster.partitions, self._ongoing())
        if self.log_dirs:
            finish_after_last_step(
                self.backend,
                self.log_dirs,
                clock=self.clock,
                read=self._read,
                note=self.reporter.note,
                grace=self.pickup_grace,
                poll_interval=self.poll_interval,
                note_interval=self.progress_interval,
                state_path=self.path,
                live=self.live,  # as the last look read them: read again only when a broker is missed
                looked=self._dirs_looked,
                resending=self._throttle_resent,
            )

        left = self._remove_throttles()
        self._save(throttles_set=False, finished=True)
        progress = self._progress()
        self.reporter.finished(progress)
        return self.result(left=left)

    def result(self, left: tuple[str, ...] = ()) -> IncrementalResult:
        """What this invocation did, at its end or when interrupted."""
        return IncrementalResult(
            self.path,
            self.resumed,
            self.state.steps_total,
            self.steps_run,
            self.batches,
            self.bytes.all_bytes(),
            self.clock.now() - self.t0,
            self.state.rollback_file,
            left,
        )

    def _open_state(self, partitions: Mapping[TopicPartition, PartitionState]) -> tuple[IncrementalState, bool]:
        checked = self.checked if self.checked is not None else preflight(self.path, self.plan)
        # A finished run (of this plan or another) is history: plan again from the cluster as it is now.
        saved = checked.saved if checked.resume else None
        if saved is not None:
            if saved.limits.max_parallel_replicas != self.limits.max_parallel_replicas:
                self.reporter.note(
                    f"the steps were planned with --max-parallel-replicas {saved.limits.max_parallel_replicas} "
                    "when this run began and are kept; the other limits apply from now on"
                )
            self.state = resumed_state(saved, self.limits, self.rollback_file)
            self._save()
            return self.state, True
        if self.checked is None:  # else the caller refused it against the cluster it read
            refuse_partitions_moving(self.plan, self._ongoing())
        if self.fresh is not None:  # planned by the caller, against the cluster it read
            steps, partitions = self.fresh.steps, self.fresh.partitions
        else:
            steps = first_steps(self.backend, self.plan, partitions, self.limits)
        self.state = fresh_state(
            checked.fingerprint, self.plan, partitions, steps, self.limits, self.plan_file, self.rollback_file
        )
        self._save()
        return self.state, False

    def _maybe_start_batch(self) -> None:
        busy = self.track.busy()
        if (busy and not self.overlap) or not self.dirty:
            return  # ZooKeeper waits for the whole batch; else nothing freed room since last time
        self.dirty = False
        batch = next_steps(self._sendable(busy), busy, self.limits, self.backlog)
        if not batch:
            return
        self._throttle_batch(batch)
        sent = send_batch(self.backend, batch, whole_batches=not self.overlap, note=self.reporter.note)
        if sent is None:  # ZooKeeper: the previous batch's node is still there; try next poll
            self.dirty = True
            return
        now = self.clock.now()
        for s in sent.accepted:
            self.track.sent(s, now, listed_at_once=self.overlap)
        self.state = self.state.with_counts({s.tp: (None, s.number) for s in sent.accepted})
        refused = self._hold_refused_for_down_brokers(batch, sent.refused)
        if sent.accepted:
            self.batches += 1
            self._save(batches=self.state.batches + 1)
            self.reporter.batch(self.state.batches, sent.accepted)
        if refused:
            raise refused_error(refused, self.state.batches + (0 if sent.accepted else 1), self.path)

    def _sendable(self, busy: Collection[TopicPartition]) -> Mapping[TopicPartition, PartitionProgress]:
        """The partitions whose next step may be sent now. A step that adds a replica on a
        broker seen down is held (named once) and sent once the broker is back
        (``_watch_brokers`` frees it) where the cluster refuses it: in ZooKeeper mode the
        controller refuses a target adding a broker that is not live (INVALID_REPLICA_ASSIGNMENT,
        KAFKA-FACTS), which over ``--zookeeper`` is known from the start and over the AdminClient
        protocol from the first such refusal (``_hold_refused_for_down_brokers``). A KRaft
        controller accepts a registered broker that is down, and the step waits for it there, as
        Kafka does."""
        out = {}
        for tp, p in self.state.partitions.items():
            step = p.steps[p.completed] if p.completed < len(p.steps) and tp not in busy else None
            down = sorted(set(step.adding) - self.live) if step is not None and self.holds_for_down else []
            if down:
                assert step is not None
                if tp not in self.held:
                    self.held.add(tp)
                    self.reporter.note(
                        f"{_step_name(step)} adds a replica on {_brokers(down)}, down: held, waiting for "
                        f"{_brokers(down)} (sent once back)"
                    )
                continue
            if step is not None:
                self.held.discard(tp)
            out[tp] = p
        return out

    def _hold_refused_for_down_brokers(self, batch: Sequence[Step], refused: Mapping[TopicPartition, str]):
        """The refusals of steps that add a replica on a broker down by now (it went down
        between the last look and the send: ZooKeeper mode refuses a broker that is not live)
        are held as ``_sendable`` holds them; the other refusals are returned (they stop the run)."""
        if not refused:
            return refused
        self._look_at_cluster()
        steps = {s.tp: s for s in batch}
        rest = {}
        for tp, err in refused.items():
            down = sorted(set(steps[tp].adding) - self.live)
            if not down:
                rest[tp] = err
                continue
            self.held.add(tp)
            self.holds_for_down = True  # this cluster refuses them: hold such steps from now on
            self.dirty = True
            self.reporter.note(
                f"{_step_name(steps[tp])} was refused ({err}): it adds a replica on {_brokers(down)}, "
                f"down; held, waiting for {_brokers(down)} (sent once back)"
            )
        if len(rest) < len(refused):
            self._watch_brokers()
        return rest

    # --- throttles (kadmin.execute.step_throttles) -------------------------------------------
    def _set_throttles(self) -> None:
        """Before the first batch (of each part of the run: a resumed one sets again what was
        removed meanwhile): throttles covering every step, and the state says so, with the rates."""
        if self.throttle is None or not self.throttle.sets:
            return
        steps = {tp: p.steps for tp, p in self.state.partitions.items()}
        before = throttles_before(self.backend, self.plan, steps, self.live)
        changes = self.throttle.apply(steps, cluster=self.cluster)
        self.unthrottled |= self.throttle.left_out(steps, self.cluster)
        self._save(
            throttles_set=True,
            throttles_via=self._via_after(changes),
            throttle_rate=self.throttle.rate,  # kept: a part resumed without the flags sets them again
            log_dir_rate=self.throttle.log_dir_rate,
        )
        self.reporter.throttles("set", len(changes))
        for c in changes:
            self.reporter.config_change(c, before)

    def _throttle_batch(self, batch: Sequence[Step]) -> None:
        """Set again what ``batch`` needs that another command removed since the run set it
        (``reassign verify`` or ``throttle clear --plan`` of this plan; ``throttle clear
        --stale`` keeps what the steps to come need); each change is said, as execute says its
        changes."""
        if self.throttle is None or not self.state.throttles_set:
            return
        throttle, steps = self.throttle, {s.tp: (s,) for s in batch}
        # Safe to try again (merged; the record first): a broker restarting is waited for as reads are.
        changes = self._read(lambda: throttle.apply(steps, log_dirs=False, cluster=self.cluster))
        self.unthrottled |= throttle.left_out(steps, self.cluster, log_dirs=False)
        self._record_via(changes)
        for c in changes:
            self.reporter.note(f"batch {self.state.batches + 1} needs a throttle removed meanwhile: {describe(c)}")

    def _throttle_back(self) -> None:
        """A broker the run's rates left out because it was down, live again: the running
        steps' throttles on it (their rates, and the log-dir rate where the plan moves replicas
        between its directories), recorded as the run's (removed at the end) and each change
        said. Without them a step copying to or from it would run at full speed until the next
        batch. A broker no running step needs gets its rates from the batch that needs it. Tried
        once: a refusal is said with the command to set them by hand, and the run goes on."""
        back = self.unthrottled & self.live
        if not back or self.throttle is None or not self.state.throttles_set:
            return
        running = {tp: (s,) for tp, s in self.track.in_flight.items()}
        self.unthrottled -= back  # tried once: a broker that does not answer must not hold the run
        who = f"broker {sorted(back)[0]} is" if len(back) == 1 else f"brokers {', '.join(map(str, sorted(back)))} are"
        try:
            changes = self.throttle.apply(running, log_dirs=back, cluster=self.cluster)
        except ClusterError as e:
            self.reporter.note(
                f"{who} back but the throttles the running steps need could not be set there ({e}); "
                f"set them by hand: {self.throttle.by_hand(back)}"
            )
            return
        self._record_via(changes)
        for c in changes:
            self.reporter.note(f"{who} back, throttled as the running steps need: {describe(c)}")

    def _throttle_resent(self, brokers: Collection[int]) -> None:
        """After the last step, before replicas are sent to their directories again (a broker
        that restarted forgot them): the log-dir rate on ``brokers`` again, where another command
        removed it meanwhile (nothing moved there), so the moves run at the run's rate; it is
        recorded, and removed with the rest at the end."""
        if self.throttle is None or not self.state.throttles_set or self.throttle.log_dir_rate is None:
            return
        throttle = self.throttle
        # The brokers as they are now (one back from a restart is alive): read only when re-sending.
        cluster = self._look_at_cluster()
        changes = self._read(lambda: throttle.apply({}, log_dirs=brokers, cluster=cluster))
        self._record_via(changes)
        for c in changes:
            self.reporter.note(f"log-dir moves sent again need a throttle removed meanwhile: {describe(c)}")

    def _via_after(self, changes: Sequence[ConfigChange]) -> tuple[str, ...]:
        """The connections the state names as holding the run's throttles, once this part's
        control made ``changes``: its own only when it changed something (a part that found
        every throttle set by an earlier part through the other connection recorded nothing
        through its own, and a later part must not warn about throttles left there)."""
        assert self.throttle is not None
        mine = {self.throttle.via} if changes else set()
        return tuple(sorted({*self.state.throttles_via, *mine}))

    def _record_via(self, changes: Sequence[ConfigChange]) -> None:
        if changes and self.throttle is not None and self.throttle.via not in self.state.throttles_via:
            self._save(throttles_via=self._via_after(changes))

    def _remove_throttles(self) -> tuple[str, ...]:
        """After the last step: remove the run's throttles; the connections whose records still
        hold some (``IncrementalResult.throttles_left_with``)."""
        if not self.state.throttles_set:
            return ()
        if self.throttle is None:  # cannot happen from the command line (it passes a control)
            return self.state.throttles_via or ("unknown",)
        steps = {tp: p.steps for tp, p in self.state.partitions.items()}
        before = throttles_before(self.backend, self.plan, steps, self.live)
        removed = self.throttle.remove()
        self.reporter.throttles("removed", len(removed or ()))
        for c in removed or ():
            self.reporter.config_change(c, before)
        return left_with(self.state.throttles_via, self.throttle.via, removed)

    # --- where each partition is ----------------------------------------------------------
    def _locate(
        self,
        partitions: Mapping[TopicPartition, PartitionState],
        ongoing: Mapping[TopicPartition, PartitionReassignment],
        startup: bool = False,
    ) -> None:
        now = self.clock.now()
        look = self.track.look(
            self.state.partitions, partitions, ongoing, now, startup=startup, step_done=self._step_done
        )
        if look.freed:
            self.dirty = True
        self.state = self.state.with_counts(look.counts)
        if startup or look.in_flight_changed:
            self._save()
        self._stop_if_cancelled(now)

    def _watch_brokers(self) -> None:
        """Name a broker a step left has a replica on once when it is first seen down, and once
        when it is back (``IncrementalReporter.brokers``); the run waits for it meanwhile."""
        needed = {b for p in self.state.partitions.values() for s in p.steps[p.completed :] for b in s.after}
        down = sorted((needed - self.live) - self.down)
        back = sorted(self.down & self.live)
        if down or back:
            self.down = (self.down | set(down)) - set(back)
            self.reporter.brokers(down, back)
        if back and self.held:
            self.dirty = True  # a step held for a down broker may go now

    def _dirs_looked(self, left: Mapping[TopicPartitionReplica, ReplicaLogDir | None]) -> None:
        """After the last step, each look at the replicas not in their directory: progress."""
        self.bytes.saw_dirs(left, self.clock.now())
        self.reporter.progress(self._progress())

    def _step_done(self, step: Step) -> None:
        assert self.backlog is not None  # built in run() before the first look after startup
        self.steps_run += 1
        self.backlog.done(step)
        self.reporter.step_done(step)

    def _stop_if_cancelled(self, now: float) -> None:
        """Steps cancelled outside the run (``StepTracker.cancelled``): stop, saving the state so
        that the same command run again sends them again at once."""
        gone = self.track.cancelled(now)
        if not gone:
            return
        self.state = self.state.with_counts({tp: (None, self.state.partitions[tp].completed) for tp in gone})
        self._save()
        raise self.track.cancelled_error(gone)

    def _ongoing(self) -> Mapping[TopicPartition, PartitionReassignment]:
        return self._read(lambda: self.backend.list_partition_reassignments(self.tps))

    def _all_done(self) -> bool:
        return self.track.quiet and all(p.done for p in self.state.partitions.values())

    # --- reading the cluster, tolerating a broker restart -----------------------------------
    def _look_at_cluster(self):
        """Read the cluster; ``cluster`` and the live brokers (``live``) always from one read."""
        cluster = self.cluster = self._read(self.backend.describe_cluster)
        self.live = set(cluster.brokers)
        return cluster

    def _read(self, fn):
        failures = 0
        while True:
            try:
                return fn()
            except ClusterError as e:
                failures += 1
                if failures > self.read_retries:
                    raise
                self.reporter.note(f"reading the cluster failed ({e}); retrying")
                self.clock.sleep(self.poll_interval)

    def _progress(self) -> Progress:
        now = self.clock.now()
        running = self.track.in_flight
        offline = {  # Metadata's offline replicas of the running steps: in an offline directory, or down
            (tp, b) for tp in running if (st := self.cluster.partitions.get(tp)) for b in st.offline_replicas
        }
        return self.bytes.progress(self.state, running, self.live, now, now - self.t0, offline)

    def _save(self, **changes) -> None:
        if changes:
            self.state = replace(self.state, **changes)
        state_file.save(self.path, self.state)


def _step_name(step: Step) -> str:
    return f"{step.tp}: step {step.number}/{step.of} -> {','.join(map(str, step.after))}"


def _brokers(ids: Sequence[int]) -> str:
    return f"broker {ids[0]}" if len(ids) == 1 else f"brokers {', '.join(map(str, ids))}"
