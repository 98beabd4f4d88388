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

The waits poll on the run's clock; the functions here only read and send.
"""

from __future__ import annotations

from collections.abc import Mapping

from kadmin.errors import ClusterError
from kadmin.execute.changes import REPLICA_NOT_AVAILABLE
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
