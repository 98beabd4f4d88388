"""``reassign verify`` against a cluster: read, judge (``kadmin.plan.verify``), then remove the
throttles this plan set that no running move still needs.

Kafka's tool deletes every throttle of the plan's topics and brokers on ``--verify``, whoever
set them and whatever still moves. kadmin removes only what its record for this plan holds, and
keeps each entry or rate a running move (this plan's or anyone's) still uses; the next verify
removes the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

from kadmin.backends.base import Backend
from kadmin.errors import ConnectionFailed
from kadmin.model import ReassignmentPlan
from kadmin.plan.verify import VerifyResult, log_dir_targets, verify_plan
from kadmin.throttling.maths import Removal
from kadmin.throttling.operations import remove_plan_throttles
from kadmin.throttling.stores import RecordStore


@dataclass(frozen=True)
class VerifyOutcome:
    result: VerifyResult
    removal: Removal | None  # None: no record for this plan, or --preserve-throttles
    kept_reason: str | None = None


def run_verify(
    backend: Backend,
    plan: ReassignmentPlan,
    *,
    plan_id: str,
    records: RecordStore | None,
    preserve_throttles: bool = False,
) -> VerifyOutcome:
    cluster = backend.describe_cluster()
    ongoing = backend.list_partition_reassignments()
    targets = log_dir_targets(plan)
    live_targets = [r for r in targets if r.broker in cluster.brokers]
    replica_dirs = backend.describe_replica_log_dirs(live_targets) if live_targets else {}
    unanswered = sorted({r.broker for r in targets if r not in replica_dirs})
    if unanswered:  # a stopped or unreachable broker: unknown is not "differs", so no verdict
        raise ConnectionFailed(
            f"broker{'s' if len(unanswered) > 1 else ''} {', '.join(map(str, unanswered))} did not describe "
            "its log directories (not alive, or not answering), so where this plan's replicas are cannot be told",
            hint="check that the broker is up and run verify again",
        )
    result = verify_plan(plan, cluster, ongoing, replica_dirs)

    if preserve_throttles or records is None:
        return VerifyOutcome(result, None, "--preserve-throttles" if preserve_throttles else None)
    # What every running move in the cluster needs, not only this plan's, is kept.
    return VerifyOutcome(result, remove_plan_throttles(backend, records, plan_id))
