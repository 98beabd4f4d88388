"""ElectLeaders over the AdminClient protocol (confluent-kafka's ``elect_leaders``; librdkafka
has it). Kept apart from ``admin.py``, which only forwards to ``elect_leaders`` here.

Partitions are always named explicitly (kadmin works out which ones need an election), so the
answer covers every partition asked for; Kafka's ELECTION_NOT_NEEDED is one of the answers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kadmin.backends.base import ElectionType
from kadmin.backends.kafka_errors import error_name
from kadmin.model import TopicPartition


def elect_leaders(
    backend, election_type: ElectionType, partitions: Iterable[TopicPartition]
) -> Mapping[TopicPartition, str | None]:
    """``backend``: an ``AdminBackend`` (its confluent client, timeout and error mapping).
    Per partition None (elected) or "ERROR_NAME: message"."""
    from confluent_kafka import ElectionType as CKElectionType
    from confluent_kafka import TopicPartition as CKTP

    wanted = sorted(set(partitions))
    if not wanted:
        return {}
    ck = backend._confluent()
    kind = CKElectionType.PREFERRED if election_type is ElectionType.PREFERRED else CKElectionType.UNCLEAN
    # No timeout keywords: confluent-kafka 2.16's binding fails on them (SystemError); its
    # defaults come from socket.timeout.ms, which the backend sets to its --timeout.
    future = ck.elect_leaders(kind, [CKTP(tp.topic, tp.partition) for tp in wanted])
    raw = backend._ck_result(future, f"electing leaders ({election_type.value})")
    out: dict[TopicPartition, str | None] = {}
    for ktp, err in raw.items():
        out[TopicPartition(ktp.topic, ktp.partition)] = None if err is None else outcome_text(err)
    for tp in wanted:  # a partition the answer left out was not elected
        out.setdefault(tp, "UNKNOWN_SERVER_ERROR: the cluster did not answer for this partition")
    return dict(sorted(out.items()))


def outcome_text(err) -> str:
    """A librdkafka KafkaError (or a KafkaException holding one) as "NAME: message"."""
    err = err.args[0] if hasattr(err, "args") and err.args and hasattr(err.args[0], "code") else err
    code = err.code() if hasattr(err, "code") else None
    name = (
        error_name(code) if isinstance(code, int) and code >= 0 else (err.name() if hasattr(err, "name") else str(err))
    )
    msg = err.str() if hasattr(err, "str") else ""
    return f"{name}: {msg}" if msg and msg != name else name
