"""Batches of ``reassign execute --incremental``: which steps go next, and sending them.

A batch is one ``reassign_partitions`` call carrying the next step of some partitions, chosen
under the ``--max-*`` limits (``kadmin.plan.batches.next_batch``: the partitions with the most
bytes left first).

- AdminClient: AlterPartitionReassignments accepts more partitions while others move, so a new
  batch starts as soon as a step finishes and the limits leave room: the slowest partition of a
  batch does not hold the others back.
- ZooKeeper: the controller reads ``/admin/reassign_partitions`` only when the node is created
  and deletes it when every partition in it is done, so a batch starts only when the previous
  one has finished entirely: one node write per batch. A node the controller is not carrying
  out (stuck) stops the run; the state file keeps its place.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from kadmin.backends.base import Backend, BrokerLogDirs, reassignment_blocked
from kadmin.errors import ClusterError, ReassignmentInProgress
from kadmin.execute.state_file import PartitionProgress
from kadmin.model import Assignment, TopicPartition
from kadmin.plan.batches import Backlog, Limits, exceeded, load_of, next_batch, plan_batches
from kadmin.plan.steps import Step


def next_steps(
    progress: Mapping[TopicPartition, PartitionProgress],
    busy: Mapping[TopicPartition, Step],
    limits: Limits,
    backlog: Backlog | None,
) -> tuple[Step, ...]:
    """The steps to send now: the next step of partitions with none out (``busy``), as many as
    ``limits`` leave room for beside the steps out."""
    candidates = [p.steps[p.completed] for tp, p in progress.items() if tp not in busy and p.completed < len(p.steps)]
    if not candidates:
        return ()
    batch = next_batch(candidates, busy.values(), limits, backlog)
    if not batch:
        return ()
    over = exceeded(load_of([*busy.values(), *batch]), limits)
    if over:  # cannot happen (next_batch keeps every limit); never send such a batch
        raise AssertionError(f"batch would exceed limits: {over}")
    return batch


def preview_batches(
    steps: Mapping[TopicPartition, Sequence[Step]],
    limits: Limits,
    log_dirs: Mapping[int, BrokerLogDirs] | None,
) -> tuple[tuple[Step, ...], ...]:
    """The batches ``--dry-run`` shows: those the run sends when each waits for the previous
    one, chosen as the run chooses them, by the bytes each partition has left (its size as
    DescribeLogDirs lists it, ``log_dirs``: the cluster read before the run; None when not
    read). Over ZooKeeper the run sends exactly these; over the AdminClient protocol it sends
    the first one, then a step as soon as one finishes and the limits leave room, so later
    batches may group the same steps differently."""
    from kadmin.execute.incremental_progress import partition_sizes

    sizes = partition_sizes(log_dirs or {}, steps.keys())
    return plan_batches(steps, limits, sizes)


@dataclass(frozen=True)
class Sent:
    """The cluster's answer to a batch: the steps it accepted (in the batch's order) and the
    ones it refused, with why."""

    accepted: tuple[Step, ...]
    refused: dict[TopicPartition, str]


def send_batch(
    backend: Backend, batch: Sequence[Step], *, whole_batches: bool, note: Callable[[str], None]
) -> Sent | None:
    """One ``reassign_partitions`` call carrying ``batch``. None when ``whole_batches``
    (ZooKeeper) and the controller has not deleted the previous batch's node yet: try next poll
    (``note`` says so); ClusterError when that node is stuck (the controller is not carrying it
    out, it never goes)."""
    try:
        answers = backend.reassign_partitions([Assignment(s.tp.topic, s.tp.partition, s.after) for s in batch])
    except ReassignmentInProgress as e:
        if not whole_batches:
            raise
        blocked = reassignment_blocked(backend)
        if blocked is not None and blocked.stuck:
            raise ClusterError(
                f"{blocked.reason}; the run stops here (the state file keeps its place: run the same "
                "command again once the node is dealt with)",
                hint=blocked.hint,
            ) from None
        note(f"waiting for the controller to finish the previous batch ({blocked.reason if blocked else e})")
        return None
    accepted = []
    refused = {}
    for s in batch:
        err = answers.get(s.tp, None) if answers is not None else None
        if err:
            refused[s.tp] = err
        else:
            accepted.append(s)
    return Sent(tuple(accepted), refused)


def refused_error(refused: Mapping[TopicPartition, str], number: int, state_path: Path) -> ClusterError:
    """The run stops: the cluster refused steps of batch ``number`` (fixing the cause and running
    the same command again resumes)."""
    from kadmin.units import counted

    shown = [f"{tp}: {err}" for tp, err in sorted(refused.items())]
    return ClusterError(
        f"the cluster refused {counted(len(refused), 'step')} of batch {number}: " + "; ".join(shown[:5]),
        hint=f"fix the cause and run the same command again to resume (state: {state_path})",
    )
