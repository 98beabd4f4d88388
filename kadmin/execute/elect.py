"""Leader elections against a cluster: read it, work out the candidates and batches
(``kadmin.leaders``, pure), send one ElectLeaders per batch, one batch after the other, and
turn the answers into outcomes. ``leaders elect`` and ``reassign ... --elect-preferred`` both
come here; ``--dry-run`` stops after ``prepare``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from kadmin.backends.base import Backend, ElectionType
from kadmin.errors import ClusterError, KadminError
from kadmin.leaders import (
    NOT_NEEDED,
    PREFERRED_NOT_AVAILABLE,
    Candidate,
    ElectionReport,
    batches,
    outcomes,
    plan_election,
)
from kadmin.model import ClusterState, TopicPartition


class ElectReporter:
    """Hooks ``run_election`` calls; no-ops here."""

    def batch(self, number: int, total: int, candidates: Sequence[Candidate]) -> None:
        """Batch ``number`` of ``total`` is about to be sent."""


@dataclass(frozen=True)
class ElectionPlan:
    election_type: ElectionType
    cluster: ClusterState
    candidates: tuple[Candidate, ...]
    batches: tuple[tuple[Candidate, ...], ...]
    max_per_broker: int | None = None
    batch_size: int | None = None

    @property
    def changes(self) -> tuple[Candidate, ...]:
        return tuple(c for c in self.candidates if c.changes)

    @property
    def data_loss(self) -> tuple[Candidate, ...]:
        return tuple(c for c in self.candidates if c.data_loss)

    @property
    def would_fail(self) -> tuple[Candidate, ...]:
        """Partitions the election would answer with an error (not ELECTION_NOT_NEEDED): the
        real run exits 1 for them, so a dry run does too."""
        return tuple(c for c in self.candidates if c.expected not in (None, NOT_NEEDED))


class ElectionStopped(ClusterError):
    """A batch failed after earlier batches were sent: ``report`` holds what those did (their
    elections stand); the failure's own exit code and hint are kept."""

    def __init__(self, report: ElectionReport, batch: int, total: int, cause: KadminError, unsent):
        from kadmin.units import counted

        before = "batch 1" if batch == 2 else f"batches 1-{batch - 1}"
        super().__init__(
            f"batch {batch} of {total}: {cause.message}; {before} elected {counted(len(report.elected), 'partition')}",
            hint=cause.hint,
        )
        self.exit_code = cause.exit_code
        self.report = report
        self.batch = batch
        self.total = total
        self.cause = cause
        self.unsent: tuple[TopicPartition, ...] = tuple(unsent)  # the failed batch's and later ones


class ElectionInterrupted(KeyboardInterrupt):
    """Ctrl-C while batch ``batch`` of ``total`` was sent: ``report`` holds what the batches
    before did (their elections stand); ``unanswered`` are that batch's partitions (sent, no
    answer: they may have been elected), ``unsent`` those of the batches after."""

    def __init__(self, report: ElectionReport, batch: int, total: int, unanswered, unsent):
        super().__init__()
        self.report = report
        self.batch = batch
        self.total = total
        self.unanswered: tuple[TopicPartition, ...] = tuple(unanswered)
        self.unsent: tuple[TopicPartition, ...] = tuple(unsent)


def prepare(
    backend: Backend,
    election_type: ElectionType,
    partitions: Iterable[TopicPartition] | None,
    *,
    max_per_broker: int | None = None,
    batch_size: int | None = None,
    only_needed: bool = False,
    cluster: ClusterState | None = None,
) -> ElectionPlan:
    """Read the cluster (unless the caller just did: ``cluster``) and work out what the election
    would do, in batches. ``partitions`` None: every partition (those needing no election are
    left out, as Kafka does); ``only_needed``: leave them out of an explicit list too."""
    if cluster is None:
        cluster = backend.describe_cluster()
    cands = plan_election(cluster, election_type, partitions)
    if only_needed:
        cands = tuple(c for c in cands if c.expected != NOT_NEEDED)
    groups = batches(cands, max_per_broker, batch_size)
    return ElectionPlan(election_type, cluster, cands, tuple(tuple(g) for g in groups), max_per_broker, batch_size)


def run_election(backend: Backend, plan: ElectionPlan, reporter: ElectReporter | None = None) -> ElectionReport:
    """Send the plan's batches, one ElectLeaders after the other (each returns once its
    elections are done), and report every partition's outcome. A batch that fails after earlier
    ones were answered raises ``ElectionStopped`` with their outcomes (the first one's failure
    is raised as it is: nothing was answered before it)."""
    reporter = reporter or ElectReporter()
    answers: dict[TopicPartition, str | None] = {}
    limits = {"max_per_broker": plan.max_per_broker, "batch_size": plan.batch_size}
    for i, group in enumerate(plan.batches, 1):
        reporter.batch(i, len(plan.batches), group)
        try:
            answers.update(backend.elect_leaders(plan.election_type, [c.tp for c in group]))
        except KeyboardInterrupt as e:  # the batches before stand; this one may have been made
            done = ElectionReport(plan.election_type, outcomes(answers, plan.candidates), i - 1, limits)
            unsent = [c.tp for g in plan.batches[i:] for c in g]
            raise ElectionInterrupted(done, i, len(plan.batches), [c.tp for c in group], unsent) from e
        except KadminError as e:
            if i == 1:
                raise
            done = ElectionReport(plan.election_type, outcomes(answers, plan.candidates), i - 1, limits)
            unsent = [c.tp for g in plan.batches[i - 1 :] for c in g]
            raise ElectionStopped(done, i, len(plan.batches), e, unsent) from e
    after = None
    if any(a and a.startswith(PREFERRED_NOT_AVAILABLE) for a in answers.values()):
        after = backend.describe_cluster()  # tell why from the state the election met
    return ElectionReport(plan.election_type, outcomes(answers, plan.candidates, after), len(plan.batches), limits)


def elect_preferred(
    backend: Backend,
    partitions: Iterable[TopicPartition],
    *,
    batch_size: int | None = None,
    max_per_broker: int | None = None,
    reporter: ElectReporter | None = None,
) -> ElectionReport:
    """``reassign ... --elect-preferred``: elect the preferred leader of those ``partitions``
    whose leader differs (``batch_size``: --max-leader-movements of an incremental run)."""
    plan = prepare(
        backend,
        ElectionType.PREFERRED,
        list(partitions),
        max_per_broker=max_per_broker,
        batch_size=batch_size,
        only_needed=True,
    )
    return run_election(backend, plan, reporter)


def elect_after_plan(
    backend: Backend, plan, complete: bool, *, batch_size: int | None = None, reporter: ElectReporter | None = None
) -> ElectionReport | None:
    """``--elect-preferred`` of ``reassign execute --wait | --incremental`` and ``reassign
    verify``: once ``plan`` (a ReassignmentPlan) is complete, elect the preferred leader of its
    partitions whose leader differs. None when the plan is not complete (nothing is done). A
    batch failing after others were answered is not raised: the report of those has ``stopped``
    set, for the caller to print before raising it (``render_leaders.raise_if_failed``)."""
    if not complete:
        return None
    try:
        return elect_preferred(backend, [a.tp for a in plan.partitions], batch_size=batch_size, reporter=reporter)
    except ElectionStopped as stopped:  # what the batches before elected stands: the caller prints it
        return replace(stopped.report, stopped=stopped)  # then raises (render_leaders.raise_if_failed)
