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

A broker with an offline directory refuses a replica (KAFKA_STORAGE_ERROR: the plan's directory,
or the replica's own, is offline): the run waits for it, as it waits for a copy the directory
holds (the progress line says ``paused:``), sending it again after the last step until the
broker, restarted with the directory back, takes it; a resumed run does so too.

A broker that is down (not among the live brokers: not asked) or does not answer
DescribeLogDirs hides where its replicas are: they are neither sent nor waited for. The others
are; when only such replicas are left, the run stops (exit 1) naming the brokers, its state
kept, so that the same command, run again once they are back, places them (as ``reassign
cancel`` names the brokers whose moves it could not see).

``send_targets`` and ``not_in_place`` only send and read; ``send_before_first_batch`` and
``finish_after_last_step`` are the run's two moments, the wait on the run's clock.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from pathlib import Path

from kadmin.errors import ClusterError, ConnectionFailed
from kadmin.execute.changes import REPLICA_NOT_AVAILABLE
from kadmin.execute.clock import Clock
from kadmin.execute.follow import UNSEEN_SAMPLES
from kadmin.model import ReplicaLogDir, TopicPartitionReplica

# AlterReplicaLogDirs' answer while a directory of the broker is offline: the destination, the
# replica's own directory, or (for a future replica) any other (ReplicaManager.alterReplicaLogDirs).
KAFKA_STORAGE_ERROR = "KAFKA_STORAGE_ERROR"


def send_targets(
    backend, targets: Mapping[TopicPartitionReplica, str], held: dict[TopicPartitionReplica, str] | None = None
) -> set[TopicPartitionReplica]:
    """AlterReplicaLogDirs for ``targets``: the replicas the brokers do not hold yet (their
    directory remembered). KAFKA_STORAGE_ERROR (a directory of the broker offline) goes into
    ``held`` (replica -> its target) when given: the run waits for the directory, as it does for
    a copy it holds. Any other refusal raises ClusterError naming the replicas."""
    answers = backend.alter_replica_log_dirs(dict(targets))
    answered = {r: answers.get(r, "no answer from the broker") for r in targets}
    if held is not None:
        held.clear()
        held.update((r, targets[r]) for r, e in answered.items() if e is not None and KAFKA_STORAGE_ERROR in e)
    refused = {r: e for r, e in answered.items() if e not in (None, REPLICA_NOT_AVAILABLE) and r not in (held or {})}
    if refused:
        shown = [
            f"{r.topic}-{r.partition} on broker {r.broker}: {e.removeprefix(f'on broker {r.broker}: ')}"
            for r, e in sorted(refused.items())
        ]
        from kadmin.units import counted

        raise ClusterError(
            f"AlterReplicaLogDirs refused {counted(len(refused), 'replica')}: " + "; ".join(shown[:5]),
            hint="check the directories the plan names (kadmin log-dirs describe), then run the same command again",
        )
    return {r for r, e in answered.items() if e == REPLICA_NOT_AVAILABLE}


def not_in_place(
    backend, targets: Mapping[TopicPartitionReplica, str], live: Collection[int] | None = None
) -> dict[TopicPartitionReplica, ReplicaLogDir | None]:
    """The targets whose replica is not in its directory yet, with where it is: ``current_dir``
    None when it is not on its broker yet, a ``future_dir`` while it is copied; None when that
    is not known (its broker is not among ``live``, None: all, and is not asked, or it did not
    answer)."""
    if not targets:
        return {}
    asked = [r for r in targets if live is None or r.broker in live]
    where = backend.describe_replica_log_dirs(asked) if asked else {}
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
    their directory; those a step will create are created there. Those of a broker that is
    down or did not answer are not: a note names it (after the last step they are sent if it
    is back)."""
    seen = {r: targets[r] for r, w in left.items() if w is not None}
    if seen:
        held: dict[TopicPartitionReplica, str] = {}
        to_come = send_targets(backend, seen, held)
        from kadmin.units import counted

        sent = len(seen) - len(held)
        where = "its log directory" if sent == 1 else "their log directories"
        if sent:
            note(
                f"{counted(sent, 'replica')} sent to {where}"
                + (f" ({len(to_come)} to be created there by the steps)" if to_come else "")
            )
        if held:
            note(
                f"{_held(held)}; the run waits, and sends {'it' if len(held) == 1 else 'them'} again after the last step"
            )
    if len(seen) < len(left):
        note(f"{_unseen(left)} not sent to their log directories (sent after the last step, if answering by then)")


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
    live: Collection[int],
    looked: Callable[[Mapping[TopicPartitionReplica, ReplicaLogDir | None]], None] | None = None,
    resending: Callable[[Collection[int]], None] | None = None,
) -> None:
    """After the last step: every replica of ``targets`` is sent to its directory again unless it
    is there or on its way (REPLICA_NOT_AVAILABLE retried for ``grace`` seconds), and the run
    waits until all are in place. ``read`` calls a function reading the cluster, retrying while
    a broker restarts; ``note`` says how many are left at most every ``note_interval``. When
    only replicas of brokers that are down or do not answer are left (UNSEEN_SAMPLES looks in a
    row), ConnectionFailed names them: the same command, run again once they are back, places
    them. ``looked`` is given what is left after every look (the progress figures);
    ``resending`` the brokers of the replicas about to be sent again, before they are (the
    run sets its log-dir rate there again, if another command removed it meanwhile).

    ``live``: the brokers running when the wait begins (the run's last read). The brokers are
    read again only for a look after one that did not see every replica: a broker down then,
    or not answering, may be back; one that goes down while every replica is seen is noticed
    all the same, its DescribeLogDirs unanswered, and left out from the next look on."""
    first_try = clock.now()
    last_note = None
    only_unseen = 0
    brokers, afresh = set(live), False
    while True:
        if afresh:
            brokers = set(read(backend.describe_brokers))
        left = read(lambda asked=brokers: not_in_place(backend, targets, live=asked))
        if looked is not None:
            looked(left)
        if not left:
            return
        seen = {r: w for r, w in left.items() if w is not None}
        afresh = len(seen) < len(left)  # a broker down or silent: back (or gone) by the next look?
        only_unseen = 0 if seen else only_unseen + 1
        if only_unseen >= UNSEEN_SAMPLES:
            raise ConnectionFailed(
                f"log directories: {_unseen(left)} not placed; every other replica of the plan is in place",
                hint=f"run the same command again once {_it(left)} back: it sends them and waits for them; "
                f"the throttles stay until then; state file {state_path}",
            )
        resend = {r: targets[r] for r, w in seen.items() if w.future_dir != targets[r]}
        held: dict[TopicPartitionReplica, str] = {}  # refused while a directory is offline: waited for
        if resend:
            if resending is not None:
                resending({r.broker for r in resend})
            missing = send_targets(backend, resend, held)
            if missing and clock.now() - first_try > grace:
                from kadmin.units import counted

                shown = ", ".join(f"{r.topic}-{r.partition} on broker {r.broker}" for r in sorted(missing)[:5])
                were = "was not on its" if len(missing) == 1 else "were not on their"
                raise ClusterError(
                    f"{counted(len(missing), 'replica')} {were} broker {grace:g}s after the last step: {shown}",
                    hint=f"check those brokers, then run the same command again to resume (state: {state_path})",
                )
        now = clock.now()
        if last_note is None or now - last_note >= note_interval:
            from kadmin.units import counted

            # its future replica listed, its current one not: its source directory is offline
            paused = sum(1 for r, w in seen.items() if w.future_dir == targets[r] and w.current_dir is None)
            copying = sum(1 for r, w in seen.items() if w.future_dir == targets[r]) - paused
            unseen = f"; {_unseen(left)}" if len(seen) < len(left) else ""
            stopped = f", {paused} paused (source directory offline)" if paused else ""
            waits = f"; {_held(held)}" if held else ""
            note(
                f"log directories: {counted(len(left), 'replica')} not in place yet, {copying} copying{stopped}"
                f"{waits}{unseen}"
            )
            last_note = now
        clock.sleep(poll_interval)


def _held(held: Mapping[TopicPartitionReplica, str]) -> str:
    """'payments-0 on broker 2 not sent to /var/lib/kafka/data0: KAFKA_STORAGE_ERROR (a log
    directory of broker 2 is offline)': the replicas ``send_targets`` held."""
    from kadmin.units import plural

    shown = ", ".join(f"{r.topic}-{r.partition} on broker {r.broker} to {path}" for r, path in sorted(held.items())[:5])
    brokers = sorted({r.broker for r in held})
    more = f" and {len(held) - 5} more" if len(held) > 5 else ""
    return (
        f"not sent: {shown}{more}: {KAFKA_STORAGE_ERROR} (a log directory of {plural('broker', len(brokers))} "
        f"{', '.join(map(str, brokers))} is offline; it is copied once the broker restarts with it back)"
    )


def _unseen(left: Mapping[TopicPartitionReplica, ReplicaLogDir | None]) -> str:
    """'N replicas on broker B (down, or not answering)': those of ``left`` not seen."""
    from kadmin.units import counted, plural

    unseen = [r for r, w in left.items() if w is None]
    brokers = sorted({r.broker for r in unseen})
    names = ", ".join(map(str, brokers))
    return f"{counted(len(unseen), 'replica')} on {plural('broker', len(brokers))} {names} (down, or not answering)"


def _it(left: Mapping[TopicPartitionReplica, ReplicaLogDir | None]) -> str:
    """'it is' or 'they are': the brokers of ``_unseen``."""
    return "they are" if len({r.broker for r, w in left.items() if w is None}) > 1 else "it is"
