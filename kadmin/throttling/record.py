"""The record of which throttles kadmin set, and for which plan (KIP-179's removal records): pure
values and their JSON.

Kafka's own tool forgets what it set: on ``--verify`` it deletes the rates on every broker and
the lists on every topic of the plan, whoever set them and whatever still moves. kadmin writes
down exactly what it changed (rate values, with the value it replaced, and the throttled-replica
entries it added) so that any kadmin run, on any machine, can later remove exactly that, and
only once no ongoing move needs it.

Where the record lives (docs/throttle-records.md explains the choice):

- ZooKeeper mode: KIP-179's znodes ``/admin/throttled_rates_removal`` (brokers) and
  ``/admin/throttled_replicas_removal`` (topics), each holding the union over every record, and
  one child per plan with the full record.
- AdminClient mode: a compacted topic ``__kadmin_throttle_records``, one message per plan keyed
  by plan id, a tombstone when the record is emptied.

The stores are in ``kadmin.throttling.stores``, reached through the backend.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from kadmin.errors import InputError
from kadmin.model import format_replica_list, parse_replica_list

RECORD_VERSION = 1
# The ``command`` of an incremental run's record (``kadmin.execute.step_throttles``): its
# partitions need their entries until their last copying step ends (``needs.run_needs``).
INCREMENTAL_COMMAND = "reassign execute --incremental"


def plan_id(content: bytes | str) -> str:
    """A plan's identity: the first 16 hex digits of the SHA-256 of the plan file's bytes."""
    import hashlib  # here: OpenSSL's loading is felt by every read command

    if isinstance(content, str):
        content = content.encode("utf-8")
    return hashlib.sha256(content).hexdigest()[:16]


@dataclass(frozen=True)
class RateClaim:
    """A broker rate kadmin set: config ``name`` on ``broker`` to ``value``; ``previous`` is the
    per-broker value a person had set before kadmin (restored on removal), None when there was
    none. ``replaced``: the value this claim replaced when another kadmin record claimed it (that
    record's, None otherwise): while a record still claims it, removal puts it back
    (``maths.restored_value``)."""

    broker: int
    name: str
    value: int
    previous: int | None = None
    replaced: int | None = None

    def key(self) -> tuple[int, str, int]:
        """The order records list claims in (``sorted(claims, key=RateClaim.key)``)."""
        return (self.broker, self.name, self.value)


@dataclass(frozen=True)
class ThrottleRecord:
    """What one plan (or one ``throttle set``) made kadmin set, when and by whom.

    ``replicas``: topic -> config name (leader/follower list) -> entries kadmin added
    ("partition:broker"), sorted.
    """

    plan_id: str
    rates: tuple[RateClaim, ...] = ()
    replicas: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    created_at: str = ""  # ISO 8601, UTC
    host: str = ""
    user: str = ""
    plan_file: str | None = None
    command: str = ""

    @property
    def empty(self) -> bool:
        return not self.rates and not any(any(v for v in kinds.values()) for kinds in self.replicas.values())

    @property
    def from_incremental_run(self) -> bool:
        return self.command == INCREMENTAL_COMMAND

    @property
    def brokers(self) -> list[int]:
        return sorted({c.broker for c in self.rates})

    @property
    def topics(self) -> list[str]:
        return sorted(t for t, kinds in self.replicas.items() if any(kinds.values()))

    def merged(self, other: ThrottleRecord) -> ThrottleRecord:
        """This record plus what ``other`` (same plan, a later run) set. A later claim on the
        same broker rate keeps the earliest ``previous`` and ``replaced``: what was there before
        this plan."""
        claims = {(c.broker, c.name): c for c in self.rates}
        for c in other.rates:
            old = claims.get((c.broker, c.name))
            claims[(c.broker, c.name)] = replace(c, previous=old.previous, replaced=old.replaced) if old else c
        replicas = {t: {k: set(v) for k, v in kinds.items()} for t, kinds in self.replicas.items()}
        for t, kinds in other.replicas.items():
            for k, entries in kinds.items():
                replicas.setdefault(t, {}).setdefault(k, set()).update(entries)
        return replace(
            self,
            rates=tuple(sorted(claims.values(), key=RateClaim.key)),
            replicas=freeze_replicas(replicas),
            created_at=self.created_at or other.created_at,
        )

    # --- JSON -------------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "version": RECORD_VERSION,
            "plan_id": self.plan_id,
            "plan_file": self.plan_file,
            "command": self.command,
            "created_at": self.created_at,
            "host": self.host,
            "user": self.user,
            "rates": [_claim_json(c) for c in sorted(self.rates, key=RateClaim.key)],
            "replicas": {
                t: {k: list(v) for k, v in sorted(kinds.items()) if v}
                for t, kinds in sorted(self.replicas.items())
                if any(kinds.values())
            },
        }

    @classmethod
    def from_json(cls, data: Mapping) -> ThrottleRecord:
        try:
            if data.get("version") != RECORD_VERSION:
                raise ValueError(f"unsupported record version {data.get('version')!r}")
            claims = (
                RateClaim(
                    int(r["broker"]),
                    str(r["config"]),
                    int(r["value"]),
                    None if r.get("previous") is None else int(r["previous"]),
                    None if r.get("replaced") is None else int(r["replaced"]),
                )
                for r in data.get("rates", [])
            )
            rates = tuple(sorted(claims, key=RateClaim.key))
            replicas = freeze_replicas(
                {t: {k: set(v) for k, v in kinds.items()} for t, kinds in data.get("replicas", {}).items()}
            )
            return cls(
                plan_id=str(data["plan_id"]),
                rates=rates,
                replicas=replicas,
                created_at=str(data.get("created_at", "")),
                host=str(data.get("host", "")),
                user=str(data.get("user", "")),
                plan_file=data.get("plan_file"),
                command=str(data.get("command", "")),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise InputError(f"unreadable kadmin throttle record: {e}") from e

    def dumps(self) -> bytes:
        return json.dumps(self.to_json(), separators=(",", ":"), sort_keys=True).encode("utf-8")

    @classmethod
    def loads(cls, raw: bytes | str) -> ThrottleRecord:
        try:
            return cls.from_json(json.loads(raw))
        except json.JSONDecodeError as e:
            raise InputError(f"unreadable kadmin throttle record: {e}") from e


def _claim_json(c: RateClaim) -> dict:
    """A claim's JSON; ``replaced`` only when it replaced another record's value (records
    written before it existed read the same)."""
    out = {"broker": c.broker, "config": c.name, "value": c.value, "previous": c.previous}
    if c.replaced is not None:
        out["replaced"] = c.replaced
    return out


def freeze_replicas(replicas: Mapping[str, Mapping[str, Iterable[str]]]) -> dict[str, dict[str, tuple[str, ...]]]:
    """Sorted, distinct entries; empty lists and topics left out."""
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for t in sorted(replicas):
        kinds = {k: parse_replica_list(format_replica_list(list(v))) for k, v in sorted(replicas[t].items()) if v}
        if kinds:
            out[t] = kinds
    return out


def who() -> tuple[str, str]:
    """(host, user) for a record: who ran kadmin, for `throttle show`."""
    import getpass
    import socket

    try:
        user = getpass.getuser()
    except Exception:  # no passwd entry in some containers
        user = os.environ.get("USER", "unknown")
    return socket.gethostname(), user


def now_iso(epoch_seconds: float) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(epoch_seconds, tz=timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
