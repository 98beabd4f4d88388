"""``reassign execute --wait``: follow a started plan to its end, then verify it and remove the
throttles it set (KIP-179's automatic removal).

The loop only waits. Sampling (the reads of one refresh, then ``kadmin.execute.progress``'s
arithmetic) is passed in as ``sample``, the same callable ``reassign progress`` uses; the end is
judged and the throttles removed by ``kadmin.execute.verification.run_verify``, the function
``reassign verify`` calls, so --wait removes exactly what verify would. Clock and sleep come
from ``kadmin.execute.incremental``'s Clock protocol; what happens is told to a reporter whose
hooks do nothing by default, so the loop never prints and tests inject both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kadmin.backends.base import Backend
from kadmin.execute.clock import Clock, SystemClock
from kadmin.execute.progress import ProgressSnapshot
from kadmin.model import ReassignmentPlan

if TYPE_CHECKING:  # verification (and the throttling it imports) only when a plan is waited for
    from kadmin.execute.verification import VerifyOutcome
    from kadmin.throttling.stores import RecordStore

Sample = Callable[[ProgressSnapshot | None], ProgressSnapshot]


class FollowReporter:
    """Hooks ``wait_for_plan`` calls; all no-ops here. Commands subclass it to render."""

    def snapshot(self, snap: ProgressSnapshot) -> None:
        """A progress snapshot was taken (one per interval, the first right away)."""

    def still_running(self, outcome: VerifyOutcome) -> None:
        """Nothing seemed to move, but verify still sees work running: following on."""


UNSEEN_SAMPLES = 3  # snapshots in a row that see nothing moving but miss a broker: following ends


def follow(
    sample: Sample, clock: Clock, interval: float, reporter: FollowReporter, first: ProgressSnapshot | None = None
) -> ProgressSnapshot:
    """Sample every ``interval`` seconds until a snapshot shows nothing of the plan moving;
    report each snapshot. ``first`` continues from an earlier snapshot (its rate baseline).
    A broker that does not answer keeps a snapshot from saying done; when it is all that is
    left (UNSEEN_SAMPLES snapshots in a row see nothing moving), following ends with that
    snapshot instead of waiting forever, and the caller says what is unknown."""
    snap = first if first is not None else sample(None)
    reporter.snapshot(snap)
    unseen = 0
    while not snap.done:
        unseen = unseen + 1 if snap.unseen_only else 0
        if unseen >= UNSEEN_SAMPLES:
            break
        clock.sleep(interval)
        snap = sample(snap)
        reporter.snapshot(snap)
    return snap


ONE_SHOT_GAP = 1.0  # seconds between the two samples of a one-shot progress answer


def sample_once(sample: Sample, clock: Clock, gap: float = ONE_SHOT_GAP) -> ProgressSnapshot:
    """A one-shot answer: a snapshot and, when anything moves, a second one ``gap`` seconds
    later with the first as its baseline, so the answer already has rates and ETAs (a single
    snapshot has none). ``gap`` 0: the single snapshot."""
    snap = sample(None)
    if gap > 0 and not snap.done:
        clock.sleep(gap)
        snap = sample(snap)
    return snap


def run_verify(backend, plan, **kwargs):
    """``kadmin.execute.verification.run_verify``, imported on first use: `reassign progress`
    follows moves without verifying a plan."""
    from kadmin.execute.verification import run_verify as verify

    return verify(backend, plan, **kwargs)


def wait_for_plan(
    backend: Backend,
    plan: ReassignmentPlan,
    sample: Sample,
    *,
    plan_id: str,
    records: RecordStore | None,
    clock: Clock | None = None,
    reporter: FollowReporter | None = None,
    interval: float = 2.0,
) -> VerifyOutcome:
    """Follow ``plan`` until it has finished, then verify it, removing the throttles its record
    holds that no running move needs (``records`` None: none removed).

    The snapshots see only the plan's target replicas; verify also sees log-dir replicas that
    do not exist yet and the controller's own list. So when the snapshots say "done" but verify
    still sees work running, following goes on; throttles are only touched once it has ended.
    A KeyboardInterrupt propagates: the reassignment keeps running, the throttles stay.
    """
    from kadmin.plan.verify import State

    clock = clock or SystemClock()
    reporter = reporter or FollowReporter()
    snap = None
    while True:
        snap = follow(sample, clock, interval, reporter, snap)
        check = run_verify(backend, plan, plan_id=plan_id, records=None, clock=clock)
        if check.result.state is not State.IN_PROGRESS:
            break
        reporter.still_running(check)
        clock.sleep(interval)
        snap = sample(snap)
    if records is None:
        return check
    return run_verify(backend, plan, plan_id=plan_id, records=records, clock=clock)
