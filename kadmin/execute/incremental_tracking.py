"""Where each partition of ``reassign execute --incremental`` is along its KIP-435 steps.

On every poll, and when a run resumes, the cluster is the source of truth: a partition's
ongoing reassignment is matched to a step by its target, or its replicas to a point between
steps (``locate``), so no step is repeated or skipped. A partition that matches no step is
looked at once more (two reads can straddle the start or end of a step) before the run stops:
someone else changed it.

A step is followed from the moment it is sent:

- ZooKeeper: the controller reads a new ``/admin/reassign_partitions`` node when it gets to it,
  so a step sent is *pending* until it is seen running or done; one not taken up after
  ``grace`` is sent again.
- AdminClient: ListPartitionReassignments lists an accepted step at once (or it is done
  already), so it counts as *started* when the cluster accepts it.

A step seen running (or accepted) that is then neither running nor done for ``grace`` was
cancelled outside the run (``reassign cancel``): the run stops rather than undo the cancel,
and the same command, run again, sends it again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from kadmin.errors import ClusterError
from kadmin.execute.state_file import PartitionProgress
from kadmin.model import PartitionReassignment, PartitionState, TopicPartition
from kadmin.plan.steps import Step, resume_point


@dataclass(frozen=True)
class Look:
    """What one look at the cluster changed (``StepTracker.look``)."""

    counts: dict[TopicPartition, tuple[int, int]]  # partitions whose completed steps changed: (completed, submitted)
    freed: bool  # a step finished or left pending: a new batch may have room
    in_flight_changed: bool  # the partitions with a step running are not the same as before


class StepTracker:
    """The steps out in the cluster, per partition: sent and not yet seen (``pending``),
    running (``in_flight``), last seen running (``started``) and since when such a step has been
    neither running nor done (``stopped``). ``note`` tells the operator; ``state_path`` is named
    in the errors (run the same command again)."""

    def __init__(self, grace: float, note: Callable[[str], None], state_path: Path):
        self.grace = grace
        self.note = note
        self.state_path = state_path
        self.pending: dict[TopicPartition, tuple[Step, float]] = {}  # sent, not yet seen
        self.in_flight: dict[TopicPartition, Step] = {}
        self.started: dict[TopicPartition, Step] = {}  # the step last seen running, until it completes
        self.stopped: dict[TopicPartition, float] = {}  # started, then neither running nor done: since when
        self.suspect: set[TopicPartition] = set()  # matched no step at the last look
        self.unseen: set[TopicPartition] = set()  # accepted (AdminClient), not seen running or done yet
        self.unwatched: set[TopicPartition] = set()  # sent by an earlier part, found neither running nor done

    @property
    def quiet(self) -> bool:
        """No step running or waiting to be taken up."""
        return not self.in_flight and not self.pending

    def busy(self) -> dict[TopicPartition, Step]:
        """The partitions with a step out (running, pending, or stopped and not yet given up on)."""
        return {
            **{tp: self.started[tp] for tp in self.stopped},
            **{tp: s for tp, (s, _) in self.pending.items()},
            **self.in_flight,
        }

    def sent(self, step: Step, now: float, *, listed_at_once: bool) -> None:
        """``step`` was accepted by the cluster at ``now``. ``listed_at_once`` (AdminClient): an
        accepted step is listed by ListPartitionReassignments at once, or already done; it is
        watched as a step seen running: if the next looks find it neither running nor done, it
        was cancelled, and is not sent again behind their back. Otherwise (ZooKeeper) it is
        listed once the controller reads the node."""
        if listed_at_once:
            self.started[step.tp] = step
            self.unseen.add(step.tp)
        else:
            self.pending[step.tp] = (step, now)

    def look(
        self,
        progress: Mapping[TopicPartition, PartitionProgress],
        partitions: Mapping[TopicPartition, PartitionState],
        ongoing: Mapping[TopicPartition, PartitionReassignment],
        now: float,
        *,
        startup: bool,
        step_done: Callable[[Step], None],
    ) -> Look:
        """Match every unfinished partition of ``progress`` (the state) to its steps, from the
        cluster as read (``partitions``, ``ongoing``). ``step_done`` is called for each step
        seen finished since the last look (not at ``startup``: the first look of a run, when
        steps an earlier run sent may still be pending)."""
        in_flight: dict[TopicPartition, Step] = {}
        counts: dict[TopicPartition, tuple[int, int]] = {}
        freed = False
        for tp, p in progress.items():
            if p.done and tp not in ongoing:
                continue
            completed, running = locate(p.steps, partitions.get(tp), ongoing.get(tp), p.completed)
            if completed is None and tp not in self.suspect:
                # Maybe a moment between two reads; hold the partition back, look again next poll.
                self.suspect.add(tp)
                in_flight[tp] = self.in_flight.get(tp) or p.steps[min(p.completed, len(p.steps) - 1)]
                continue
            self.suspect.discard(tp)
            if completed is None:
                raise ClusterError(
                    f"{tp} is no longer on the path of this plan: "
                    + _describe_position(partitions.get(tp), ongoing.get(tp)),
                    hint=f"it was changed outside this run; restore it, or remove {self.state_path} to plan again from the current assignment",
                )
            sent = self.pending.get(tp)
            if startup and sent is None and p.submitted > completed and running is None and tp not in self.started:
                # Sent by an earlier part of the run (the cluster accepted it, or it was written
                # in /admin/reassign_partitions, which lists it until the controller is done with
                # it) and now neither running nor done: cancelled while no run watched, or
                # dropped by the controller. Watched as a step seen stopped: it is not sent again
                # behind the back of whoever cancelled it; unless it shows up, the run stops.
                self.started[tp] = p.steps[p.submitted - 1]
                self.unwatched.add(tp)
            if sent is not None:
                step, at = sent
                if completed >= step.number or running is not None:
                    del self.pending[tp]
                    freed = True
                elif now - at > self.grace:
                    del self.pending[tp]
                    freed = True
                    self.note(f"{tp}: step {step.number} was not taken up by the controller; sending it again")
            if running is not None:
                in_flight[tp] = running
            self._watch_started(tp, completed, running, now)
            if not startup:
                for s in p.steps[p.completed : completed]:
                    step_done(s)
            if completed != p.completed:
                freed = True
                counts[tp] = (completed, max(p.submitted, completed))
        changed = self.in_flight.keys() != in_flight.keys()
        self.in_flight = in_flight
        return Look(counts, freed, changed)

    def _watch_started(self, tp: TopicPartition, completed: int, running: Step | None, now: float) -> None:
        """Track the step each partition was last seen running, and since when one that was
        seen has been neither running nor completed (cancelled, or a broker's Metadata lagging
        behind its end for a moment)."""
        if running is not None:
            self.started[tp] = running
            self.stopped.pop(tp, None)
            self.unseen.discard(tp)
            self.unwatched.discard(tp)
            return
        seen = self.started.get(tp)
        if seen is None:
            return
        if completed >= seen.number:
            del self.started[tp]
            self.stopped.pop(tp, None)
            self.unseen.discard(tp)
            self.unwatched.discard(tp)
        elif tp not in self.stopped:
            self.stopped[tp] = now
            if tp in self.unwatched:
                self.note(
                    f"{tp}: step {seen.number} was sent by an earlier part of this run and is neither running nor "
                    "done: cancelled while no run watched, or dropped by the controller (which of the two cannot be "
                    f"told from here); not sent again; looking again for {self.grace:g}s before stopping"
                )
                return
            state = "was accepted but is neither running nor" if tp in self.unseen else "is no longer running and not"
            self.note(
                f"{tp}: step {seen.number} {state} done (cancelled?); looking again for {self.grace:g}s before stopping"
            )

    def cancelled(self, now: float) -> list[TopicPartition]:
        """The partitions whose step seen running (or accepted, over AdminClient) stayed stopped,
        not done, for ``grace``: someone cancelled it."""
        return sorted(tp for tp, since in self.stopped.items() if now - since > self.grace)

    def cancelled_error(self, gone: Sequence[TopicPartition]) -> ClusterError:
        """The run stops for ``gone`` (sending their steps again would undo the cancel)."""
        from kadmin.units import counted

        shown = [f"{tp} step {self.started[tp].number} of {self.started[tp].of}" for tp in gone]
        unwatched = any(tp in self.unwatched for tp in gone)
        how = (
            "while no run watched (cancelled outside this run, or dropped by the controller)"
            if unwatched
            else "cancelled outside this run"
        )
        return ClusterError(
            f"{counted(len(gone), 'step')} stopped before completing, {how}: "
            + ", ".join(shown[:5])
            + (f" (+{len(gone) - 5} more)" if len(gone) > 5 else "")
            + ("; nothing was sent again" if unwatched else ""),
            hint=f"run the same command again to send them again and carry on (state file {self.state_path}); "
            "the throttles stay until then",
        )


def locate(
    steps: Sequence[Step],
    state: PartitionState | None,
    ongoing: PartitionReassignment | None,
    counted: int = 0,
) -> tuple[int | None, Step | None]:
    """How many ``steps`` a partition has finished, and the step it is running (if any).

    A running reassignment is matched by its target; otherwise the current replicas are: a
    point between steps, or the full replica set of a step in flight (old and new replicas
    together, as Metadata shows them while it runs: the cluster and the list of ongoing
    reassignments are two reads, and a step may start being listed, or stop, between them).
    (None, None) when nothing matches this plan's steps: someone else changed the partition.

    A step not yet ``counted`` done is done only once its target is in place: the replicas are
    its target (as a set), no reassignment is listed, and every replica it adds is in the ISR
    (Kafka ends a reassignment only then). That matters for a step that only adds replicas,
    whose full set in flight *is* its target (Metadata shows it while the ISR lacks the new
    replica, KAFKA-FACTS): right after a cancel the list is empty while brokers' Metadata
    still shows that full set for a moment. Such a step counts as in flight; the next looks
    see the replicas it started from (a cancel: ``StepTracker`` stops the run) or its end. A
    step counted done stays done (a replica falling out of the ISR later does not undo it).
    """
    if ongoing is not None:
        target = ongoing.target
        for s in steps:
            if s.after == target:
                return s.number - 1, s
        wanted = set(target)
        for s in steps:
            if set(s.after) == wanted:
                return s.number - 1, s
        return None, None
    if state is None:
        return None, None
    done = resume_point(steps, state.replicas)
    if done is not None:
        last = steps[done - 1] if done > counted else None
        if last is not None and not set(last.adding) <= set(state.isr):
            return done - 1, last
        return done, None
    full = set(state.replicas)
    for s in steps:
        if full == set(s.before) | set(s.after):
            return s.number - 1, s
    return None, None


def _describe_position(state: PartitionState | None, ongoing: PartitionReassignment | None) -> str:
    if ongoing is not None:
        return f"it is being reassigned to {list(ongoing.target)}"
    if state is None:
        return "it no longer exists"
    return f"its replicas are {list(state.replicas)}"
