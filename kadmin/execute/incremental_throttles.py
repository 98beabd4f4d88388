"""What the throttle configs an incremental run changes held before it changed them, so that
each change is said with the value it replaces ("broker 0 leader.replication.throttled.rate:
(not set) -> 20000000 (20.0 MB/s)"), as plain ``reassign execute`` and ``throttle set`` say
theirs, in ``--dry-run`` too."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from kadmin.backends.base import Backend, Capability
from kadmin.model import (
    THROTTLE_CONFIGS,
    ConfigResource,
    ConfigResourceType,
    ReassignmentPlan,
    Throttle,
    TopicPartition,
)
from kadmin.plan.steps import Step
from kadmin.throttling.needs import current_throttles, log_dir_rate_brokers


def throttles_before(
    backend: Backend,
    plan: ReassignmentPlan,
    steps: Mapping[TopicPartition, Sequence[Step]],
    live: Collection[int],
) -> Throttle | None:
    """The throttles set now on every broker and topic ``steps`` (and the plan's log-dir moves)
    can throttle: read just before the run sets or removes them. Over the AdminClient protocol a
    down broker is not asked (it answers for its own configs; the run leaves it alone too).
    None when the read fails: the changes are then said without what they replace."""
    brokers = {b for ss in steps.values() for s in ss for b in (*s.before, *s.after)} | log_dir_rate_brokers(plan)
    if Capability.CONFIGS_OF_DOWN_BROKERS not in getattr(backend, "capabilities", frozenset()):
        brokers &= set(live)
    topics = {tp.topic for tp, ss in steps.items() if ss}
    resources = [ConfigResource(ConfigResourceType.TOPIC, t) for t in sorted(topics)] + [
        ConfigResource(ConfigResourceType.BROKER, str(b)) for b in sorted(brokers)
    ]
    if not resources:
        return Throttle()
    try:
        configs = backend.describe_configs(resources, keys=THROTTLE_CONFIGS)
    except Exception:  # only words of the lines depend on it; the run goes on
        return None
    return current_throttles(configs).as_set()
