"""Fresh, resumed or started over: what ``reassign execute --incremental`` does with its state file.

Decided once, before anything changes (``preflight``): an unfinished run of the same plan (its
fingerprint matches) is carried on, with the steps it computed at the start; a finished run, of
this plan or another, is history and the run plans again from the cluster as it is now; an
unfinished run of another plan is refused. A fresh run is refused while a partition of the plan
is being reassigned already (``refuse_partitions_moving``): its replica list is a mix of old and
new, no sound first step from it. The rollback file of a run lives as long as its state file:
a resumed run names the one its state records, or writes one from the state's replicas from
before the first step. The state file itself (format, atomic writes, the lock) is
``kadmin.execute.state_file``; where each partition is along its steps, on resume and on every
poll, is ``kadmin.execute.incremental_tracking``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path

from kadmin.errors import KadminError, ReassignmentInProgress, UsageError
from kadmin.execute import state_file
from kadmin.execute.plan_of_changes import MIN_INSYNC, ClusterView, ExecutionPlan
from kadmin.execute.preamble import ChangeWatch, RollbackFile, check_rollback_path
from kadmin.execute.state_file import IncrementalState, PartitionProgress
from kadmin.model import (
    Assignment,
    ConfigResource,
    ConfigResourceType,
    PartitionState,
    ReassignmentPlan,
    TopicPartition,
)
from kadmin.plan.batches import Limits
from kadmin.plan.steps import Step, plan_steps


@dataclass(frozen=True)
class Preflight:
    """What a run of a plan does with its state file, decided once before anything changes
    (``preflight``): resume it, or start afresh (no state, a finished run of this plan, or a
    finished run of another plan, which is history: ``started_over``)."""

    fingerprint: str  # the plan's (``plan_fingerprint``)
    saved: IncrementalState | None  # the state file as read (None: none)

    @property
    def resume(self) -> bool:
        """An unfinished run of this plan: carry it on."""
        return self.saved is not None and not self.saved.finished and self.saved.plan_digest == self.fingerprint

    @property
    def inherits_throttles(self) -> bool:
        """A resumed run whose earlier part set throttles: it removes them at the end, with
        --throttle or without."""
        return self.resume and self.saved is not None and self.saved.throttles_set

    @property
    def started_over(self) -> bool:
        """The state file holds another plan's finished run (a plan regenerated under the same
        name): the run starts over, and says so."""
        return self.saved is not None and self.saved.finished and self.saved.plan_digest != self.fingerprint


def preflight(path: str | Path, plan: ReassignmentPlan) -> Preflight:
    """Read the state file and decide fresh, resume or start over (pure but for the read).
    UsageError when it holds another plan's unfinished run: checked before the first change by
    the run and by ``--dry-run`` alike. A finished run, of any plan, is history."""
    saved = state_file.load(path)
    fingerprint = plan_fingerprint(plan)
    if saved is not None and not saved.finished and saved.plan_digest != fingerprint:
        raise UsageError(
            f"the state file {path} belongs to another plan",
            hint="pass another --state-file, or remove that file to start over",
        )
    return Preflight(fingerprint, saved)


def refuse_partitions_moving(plan: ReassignmentPlan, ongoing: Mapping[TopicPartition, object]) -> None:
    """ReassignmentInProgress when a partition of the plan is being reassigned already (a fresh
    run only: its replica list is a mix of old and new, no sound first step from it). Checked
    before the first change by the run and by ``--dry-run`` alike."""
    wanted = plan.by_partition()
    busy = sorted(str(tp) for tp in ongoing if tp in wanted)
    if busy:
        from kadmin.units import counted

        are = "is" if len(busy) == 1 else "are"
        raise ReassignmentInProgress(
            f"{counted(len(busy), 'partition')} of the plan {are} being reassigned already: {', '.join(busy[:5])}; "
            "nothing was changed",
            hint="wait for that reassignment to finish (kadmin reassign list) or cancel it, then run again",
        )


def plan_fingerprint(plan: ReassignmentPlan) -> str:
    """SHA-256 of the plan's partitions, for when the caller has no file content to hash."""
    canon = [[a.topic, a.partition, list(a.replicas), list(a.log_dirs or ())] for a in plan.partitions]
    return state_file.plan_digest(json.dumps(sorted(canon), separators=(",", ":")))


def min_insync_of(configs: Mapping[ConfigResource, Mapping]) -> dict[str, int]:
    """min.insync.replicas per topic from DescribeConfigs answers (topics without it: absent)."""
    out = {}
    for res, entries in configs.items():
        e = entries.get(MIN_INSYNC)
        if res.type == ConfigResourceType.TOPIC and e is not None and e.value and str(e.value).isdigit():
            out[res.name] = int(e.value)
    return out


LIMIT_FLAGS = {f.name: "--" + f.name.replace("_", "-") for f in fields(Limits)}


@dataclass(frozen=True)
class RunLimits:
    """The ``--max-*`` limits a part of the run goes on under (``limits_of_run``)."""

    limits: Limits
    kept: tuple[str, ...] = ()  # flags not given on resume: the state's value stands
    replaced: tuple[tuple[str, int | None, int | None], ...] = ()  # (flag, the state's, given now)


def limits_of_run(saved: IncrementalState | None, limits: Limits, given: frozenset[str] | set[str]) -> RunLimits:
    """A resumed run keeps the limits its state file holds, as it keeps the rates: a limit
    given on the resume command (``given``: the flags on the command line) replaces the saved
    one, one not given keeps it, so resuming without the flags never lifts a limit the run
    began with. --max-parallel-replicas always stays the state's (the steps were planned with
    it; ``resumed_state``). A fresh run (``saved`` None) uses ``limits`` as given."""
    if saved is None:
        return RunLimits(limits)
    values = {"max_parallel_replicas": saved.limits.max_parallel_replicas}  # said by the run when given
    kept, replaced = [], []
    for name, flag in LIMIT_FLAGS.items():
        if name in values:
            continue
        before, now = getattr(saved.limits, name), getattr(limits, name)
        if flag not in given:
            values[name] = before
            kept.append(flag)
        else:
            values[name] = now
            if now != before:
                replaced.append((flag, before, now))
    return RunLimits(Limits(**values), tuple(kept), tuple(replaced))


def resumed_state(saved: IncrementalState, limits: Limits, rollback_file: str | None) -> IncrementalState:
    """``saved`` run once more: the steps keep the --max-parallel-replicas they were planned
    with, the other ``limits`` are this run's; ``rollback_file``, when this run wrote one (the
    earlier one's is gone), replaces the one recorded."""
    limits = replace(limits, max_parallel_replicas=saved.limits.max_parallel_replicas)
    state = replace(saved, runs=saved.runs + 1, limits=limits, finished=False)
    if rollback_file is not None:
        state = replace(state, rollback_file=rollback_file)
    return state


def fresh_state(
    fingerprint: str,
    plan: ReassignmentPlan,
    partitions: Mapping[TopicPartition, PartitionState],
    steps: Mapping[TopicPartition, tuple[Step, ...]],
    limits: Limits,
    plan_file: str | None,
    rollback_file: str | None,
) -> IncrementalState:
    """The state of a run starting now: each partition's replicas and leader as they are, and
    its ``steps``."""
    parts = {}
    for a in plan.partitions:
        p = partitions[a.tp]
        parts[a.tp] = PartitionProgress(a.tp, tuple(p.replicas), p.leader, steps[a.tp])
    return IncrementalState(fingerprint, limits, parts, plan_file, rollback_file=rollback_file)


def first_steps(
    backend,
    plan: ReassignmentPlan,
    partitions: Mapping[TopicPartition, PartitionState],
    limits: Limits,
) -> dict[TopicPartition, tuple[Step, ...]]:
    """The KIP-435 steps of a fresh run, from the cluster as it is now (``partitions``), planned
    once per run: the steps ``--dry-run`` shows are the steps the run sends. Reads the
    min.insync.replicas of the plan's topics (one DescribeConfigs; the default where it fails)."""
    return plan_steps(plan, partitions, limits.max_parallel_replicas, min_insync_of(_min_insync_configs(backend, plan)))


def _min_insync_configs(backend, plan: ReassignmentPlan) -> Mapping[ConfigResource, Mapping]:
    """DescribeConfigs of the plan's topics, min.insync.replicas only (none when it fails)."""
    try:
        return backend.describe_configs(
            [ConfigResource(ConfigResourceType.TOPIC, t) for t in plan.topics], keys=(MIN_INSYNC,)
        )
    except KadminError:
        return {}


@dataclass(frozen=True)
class FreshStart:
    """A fresh run, checked and planned against the cluster as read before anything changes."""

    done: bool  # every partition already has its planned replicas and none is moving: nothing to run
    steps: dict[TopicPartition, tuple[Step, ...]]  # every partition's; all empty when done
    partitions: Mapping[TopicPartition, PartitionState]  # as read, what the steps start from


def fresh_start(
    backend, plan: ReassignmentPlan, view: ClusterView, xplan: ExecutionPlan, limits: Limits, rollback_path: str
) -> FreshStart:
    """What a fresh run refuses before its first step (a partition already moving, a rollback
    file that cannot be written), unless there is nothing to do, and its steps (``first_steps``:
    the run takes them from here, ``run_incremental(fresh=...)``). ``xplan``: the plan validated
    as a plain run validates it, against ``view``. The topics' min.insync.replicas come from
    ``view`` (read with their throttle configs); read here only for a view without topic configs."""
    partitions = view.cluster.partitions
    done = xplan.nothing_to_change and not any(a.tp in view.ongoing for a in plan.partitions)
    if done:
        return FreshStart(True, {a.tp: () for a in plan.partitions}, partitions)  # no configs read
    refuse_partitions_moving(plan, view.ongoing)
    check_rollback_path(rollback_path)
    if any(r.type == ConfigResourceType.TOPIC for r in view.configs):
        steps = plan_steps(plan, partitions, limits.max_parallel_replicas, min_insync_of(view.configs))
    else:
        steps = first_steps(backend, plan, partitions, limits)
    return FreshStart(False, steps, partitions)


def recorded_rollback(checked: Preflight) -> str | None:
    """The rollback file a resumed run's state records, when that file is still there: the run
    names it. None: the run writes one (a fresh run, or the file was removed)."""
    return rollback_of(checked.saved) if checked.resume else None


def rollback_of(state: IncrementalState | None) -> str | None:
    """The rollback file ``state`` records, when that file is still there (None: no state,
    none recorded, or it was removed): a resumed run names it, and so does a run that finds
    the plan done by an earlier one."""
    recorded = state.rollback_file if state is not None else None
    return recorded if recorded is not None and Path(recorded).is_file() else None


def assignment_before(state: IncrementalState) -> ReassignmentPlan:
    """The replicas the state's partitions had before the plan's first step (log directories
    not kept): the rollback file of a resumed run whose own is gone."""
    return ReassignmentPlan(
        tuple(Assignment(tp.topic, tp.partition, p.original) for tp, p in sorted(state.partitions.items()))
    )


def forget_unstarted_state(rollback: RollbackFile, backend: ChangeWatch, state_path: Path, *, fresh: bool) -> None:
    """A fresh run that sent no step and set no throttle leaves no state file behind either, so
    the same command starts afresh (and writes its rollback file) rather than resuming a run
    that never began. A rollback file this run wrote stays as long as the unfinished state
    that records it does (throttles were set, say): the resumed run will move replicas."""
    if not rollback.written or backend.moved:
        return
    saved = state_file.load(state_path)
    if fresh and saved is not None and not saved.throttles_set and not saved.finished:
        state_path.unlink(missing_ok=True)
    elif saved is not None and not saved.finished and saved.rollback_file == str(Path(rollback.path).absolute()):
        rollback.keep()
