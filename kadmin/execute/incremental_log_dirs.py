"""The log-dir part of ``reassign execute --incremental``: a plan whose ``log_dirs`` name
directories (KIP-113) around the KIP-435 steps that move replicas between brokers.

- Before the first batch, AlterReplicaLogDirs for every replica the plan puts in a named
  directory: a replica already on its broker starts moving there (under the log-dir throttle);
  a broker remembers the directory of a replica a later step will create and answers
  REPLICA_NOT_AVAILABLE, so that replica is created in place and never copied twice.
- After the last step, the replicas not in their directory yet are sent again (a broker that
  restarted in between forgot what it was told), REPLICA_NOT_AVAILABLE retried while replicas
  are still being created; then the run waits until every one is in its directory, before its
  throttles are removed.

``send_targets`` and ``not_in_place`` only send and read; ``send_before_first_batch`` and
``finish_after_last_step`` are the run's two moments, the wait on the run's clock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from kadmin.errors import ClusterError
from kadmin.execute.changes import REPLICA_NOT_AVAILABLE
from kadmin.execute.clock import Clock
from kadmin.model import ReplicaLogDir, TopicPartitionReplica


def send_targets(backend, targets: Mapping[TopicPartitionReplica, str]) -> set[TopicPartitionReplica]:
    """AlterReplicaLogDirs for ``targets``: the replicas the brokers do not hold yet (their
    directory remembered). Any other refusal raises ClusterError naming the replicas."""
    answers = backend.alter_replica_log_dirs(dict(targets))
    answered = {r: answers.get(r, "no answer from the broker") for r in targets}
    refused = {r: e for r, e in answered.items() if e not in (None, REPLICA_NOT_AVAILABLE)}
    if refused:
        shown = [f"{r.topic}-{r.partition} on broker {r.broker}: {e}" for r, e in sorted(refused.items())]
        raise ClusterError(
            f"AlterReplicaLogDirs refused {len(refused)} replica(s): " + "; ".join(shown[:5]),
            hint="check the directories the plan names (kadmin log-dirs describe), then run the same command again",
        )
    return {r for r, e in answered.items() if e == REPLICA_NOT_AVAILABLE}


def not_in_place(
    backend, targets: Mapping[TopicPartitionReplica, str]
) -> dict[TopicPartitionReplica, ReplicaLogDir | None]:
    """The targets whose replica is not in its directory yet, with where it is (None: not on
    its broker yet); one still being copied there has a ``future_dir``."""
    if not targets:
        return {}
    where = backend.describe_replica_log_dirs(list(targets))
    out = {}
    for r, path in targets.items():
        w = where.get(r)
        if w is None or w.current_dir != path or w.future_dir is not None:
            out[r] = w
    return out


def send_before_first_batch(
    backend,
    targets: Mapping[TopicPartitionReplica, str],
    left: Mapping[TopicPartitionReplica, ReplicaLogDir | None],
    note: Callable[[str], None],
) -> None:
    """Before the first batch: the replicas not in place (``left``, of ``targets``) are sent to
    their directory; those a step will create are created there."""
    to_come = send_targets(backend, {r: targets[r] for r in left})
    note(
        f"{len(left)} replica(s) sent to their log directories"
        + (f" ({len(to_come)} to be created there by the steps)" if to_come else "")
    )


def finish_after_last_step(
    backend,
    targets: Mapping[TopicPartitionReplica, str],
    *,
    clock: Clock,
    read: Callable,
    note: Callable[[str], None],
    grace: float,
    poll_interval: float,
    note_interval: float,
    state_path: Path,
) -> None:
    """After the last step: every replica of ``targets`` is sent to its directory again unless it
    is there or on its way (REPLICA_NOT_AVAILABLE retried for ``grace`` seconds), and the run
    waits until all are in place. ``read`` calls a function reading the cluster, retrying while
    a broker restarts; ``note`` says how many are left at most every ``note_interval``."""
    first_try = clock.now()
    last_note = None
    while True:
        left = read(lambda: not_in_place(backend, targets))
        if not left:
            return
        resend = {r: targets[r] for r, w in left.items() if w is None or w.future_dir != targets[r]}
        if resend:
            missing = send_targets(backend, resend)
            if missing and clock.now() - first_try > grace:
                shown = ", ".join(f"{r.topic}-{r.partition} on broker {r.broker}" for r in sorted(missing)[:5])
                raise ClusterError(
                    f"{len(missing)} replica(s) were not on their broker {grace:g}s after the last step: {shown}",
                    hint=f"check those brokers, then run the same command again to resume (state: {state_path})",
                )
        now = clock.now()
        if last_note is None or now - last_note >= note_interval:
            copying = sum(1 for r, w in left.items() if w is not None and w.future_dir == targets[r])
            note(f"log directories: {len(left)} replica(s) not in place yet, {copying} copying")
            last_note = now
        clock.sleep(poll_interval)
