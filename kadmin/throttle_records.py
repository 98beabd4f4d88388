"""The record of which throttles kadmin set, and for which plan (KIP-179's removal records).

Kafka's own tool forgets what it set: on ``--verify`` it deletes the rates on every broker and
the lists on every topic of the plan, whoever set them and whatever still moves. kadmin writes
down exactly what it changed (rate values, with the value it replaced, and the throttled-replica
entries it added) so that any kadmin run, on any machine, can later remove exactly that, and
only once no ongoing move needs it.

Where the record lives (docs/throttle-records.md explains the choice):

- ZooKeeper mode: KIP-179's znodes ``/admin/throttled_rates_removal`` (brokers) and
  ``/admin/throttled_replicas_removal`` (topics), each holding the union over every record, and
  one child per plan with the full record (``ZooKeeperRecordStore``).
- AdminClient mode: a compacted topic ``__kadmin_throttle_records``, one message per plan keyed
  by plan id, a tombstone when the record is emptied (``TopicRecordStore``).

This module's top half is pure values and JSON; the stores import their client libraries lazily.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import socket
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Iterable, Mapping, Protocol

from kadmin.errors import ClusterError, InputError, KadminError
from kadmin.model import format_replica_list, parse_replica_list

RECORD_VERSION = 1


def plan_id(content: bytes | str) -> str:
    """A plan's identity: the first 16 hex digits of the SHA-256 of the plan file's bytes."""
    if isinstance(content, str):
        content = content.encode("utf-8")
    return hashlib.sha256(content).hexdigest()[:16]


@dataclass(frozen=True, order=True)
class RateClaim:
    """A broker rate kadmin set: config ``name`` on ``broker`` to ``value``; ``previous`` is the
    per-broker value it replaced (restored on removal), None when there was none."""

    broker: int
    name: str
    value: int
    previous: int | None = None


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
    def brokers(self) -> list[int]:
        return sorted({c.broker for c in self.rates})

    @property
    def topics(self) -> list[str]:
        return sorted(t for t, kinds in self.replicas.items() if any(kinds.values()))

    def merged(self, other: "ThrottleRecord") -> "ThrottleRecord":
        """This record plus what ``other`` (same plan, a later run) set. A later claim on the
        same broker rate keeps the earliest ``previous``: that is what was there before kadmin."""
        claims = {(c.broker, c.name): c for c in self.rates}
        for c in other.rates:
            old = claims.get((c.broker, c.name))
            claims[(c.broker, c.name)] = replace(c, previous=old.previous) if old else c
        replicas = {t: {k: set(v) for k, v in kinds.items()} for t, kinds in self.replicas.items()}
        for t, kinds in other.replicas.items():
            for k, entries in kinds.items():
                replicas.setdefault(t, {}).setdefault(k, set()).update(entries)
        return replace(
            self,
            rates=tuple(sorted(claims.values())),
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
            "rates": [
                {"broker": c.broker, "config": c.name, "value": c.value, "previous": c.previous}
                for c in sorted(self.rates)
            ],
            "replicas": {
                t: {k: list(v) for k, v in sorted(kinds.items()) if v}
                for t, kinds in sorted(self.replicas.items())
                if any(kinds.values())
            },
        }

    @classmethod
    def from_json(cls, data: Mapping) -> "ThrottleRecord":
        try:
            if data.get("version") != RECORD_VERSION:
                raise ValueError(f"unsupported record version {data.get('version')!r}")
            rates = tuple(
                sorted(
                    RateClaim(int(r["broker"]), str(r["config"]), int(r["value"]),
                              None if r.get("previous") is None else int(r["previous"]))
                    for r in data.get("rates", [])
                )
            )
            replicas = freeze_replicas({t: {k: set(v) for k, v in kinds.items()} for t, kinds in data.get("replicas", {}).items()})
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
    def loads(cls, raw: bytes | str) -> "ThrottleRecord":
        try:
            return cls.from_json(json.loads(raw))
        except json.JSONDecodeError as e:
            raise InputError(f"unreadable kadmin throttle record: {e}") from e


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
    try:
        user = getpass.getuser()
    except Exception:  # no passwd entry in some containers
        user = os.environ.get("USER", "unknown")
    return socket.gethostname(), user


def now_iso(epoch_seconds: float) -> str:
    return datetime.fromtimestamp(epoch_seconds, tz=timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


# --- where records live ---------------------------------------------------------------------
class RecordStore(Protocol):
    """Reads and writes throttle records where every kadmin run can see them."""

    def load_all(self) -> dict[str, ThrottleRecord]: ...

    def put(self, record: ThrottleRecord) -> None:
        """Write (replace) the record of ``record.plan_id``; an empty record deletes it."""

    def delete(self, plan_id: str) -> None: ...


class MemoryRecordStore:
    """Records in a dict: for tests and ``--dry-run``."""

    def __init__(self, records: Mapping[str, ThrottleRecord] | None = None):
        self.records: dict[str, ThrottleRecord] = dict(records or {})

    def load_all(self) -> dict[str, ThrottleRecord]:
        return dict(self.records)

    def put(self, record: ThrottleRecord) -> None:
        if record.empty:
            self.records.pop(record.plan_id, None)
        else:
            self.records[record.plan_id] = record

    def delete(self, plan_id: str) -> None:
        self.records.pop(plan_id, None)


RATES_REMOVAL = "/admin/throttled_rates_removal"
REPLICAS_REMOVAL = "/admin/throttled_replicas_removal"


class ZooKeeperRecordStore:
    """KIP-179's removal znodes, kept by a kazoo client.

    ``/admin/throttled_rates_removal`` holds ``{"version":1,"brokers":[...]}`` and
    ``/admin/throttled_replicas_removal`` holds ``{"version":1,"topics":[...]}``: the brokers and
    topics whose throttles are to be removed when the reassignment completes, as KIP-179 lays
    them out (the union over every kadmin record). Each plan's full record (values, entries,
    who, when) is a child ``/admin/throttled_replicas_removal/<plan id>``, so two plans sharing a
    topic never remove each other's entries. Writes are compare-and-set on the znode version.
    """

    def __init__(self, client, *, read_only: bool = False):
        self.zk = client  # a started kazoo.client.KazooClient
        self.read_only = read_only

    def _check_writable(self) -> None:
        from kadmin.backends.base import ReadOnlyViolation

        if self.read_only:
            raise ReadOnlyViolation("writing a throttle record through a read-only connection")

    def load_all(self) -> dict[str, ThrottleRecord]:
        from kazoo.exceptions import NoNodeError

        try:
            children = self.zk.get_children(REPLICAS_REMOVAL)
        except NoNodeError:
            return {}
        out = {}
        for child in sorted(children):
            try:
                data, _ = self.zk.get(f"{REPLICAS_REMOVAL}/{child}")
            except NoNodeError:
                continue
            record = ThrottleRecord.loads(data)
            out[record.plan_id] = record
        return out

    def put(self, record: ThrottleRecord) -> None:
        self._check_writable()
        if record.empty:
            self.delete(record.plan_id)
            return
        path = f"{REPLICAS_REMOVAL}/{record.plan_id}"
        self.zk.ensure_path(REPLICAS_REMOVAL)
        if self.zk.exists(path):
            self.zk.set(path, record.dumps())
        else:
            self.zk.create(path, record.dumps())
        self._write_unions()

    def delete(self, plan_id: str) -> None:
        from kazoo.exceptions import NoNodeError

        self._check_writable()
        try:
            self.zk.delete(f"{REPLICAS_REMOVAL}/{plan_id}")
        except NoNodeError:
            pass
        self._write_unions()

    def _write_unions(self) -> None:
        """Rewrite KIP-179's two union znodes from the children; delete them when empty."""
        from kazoo.exceptions import BadVersionError, NoNodeError, NotEmptyError

        for _ in range(10):
            records = self.load_all()
            brokers = sorted({b for r in records.values() for b in r.brokers})
            topics = sorted({t for r in records.values() for t in r.topics})
            try:
                _set_json(self.zk, RATES_REMOVAL, {"version": 1, "brokers": brokers} if records else None)
                if records:
                    _set_json(self.zk, REPLICAS_REMOVAL, {"version": 1, "topics": topics})
                else:
                    try:
                        self.zk.delete(REPLICAS_REMOVAL)
                    except NoNodeError:
                        pass
                    except NotEmptyError:  # another run just added a record: go again
                        continue
                return
            except BadVersionError:
                continue
        raise ClusterError("could not update the throttle removal znodes: concurrent writers kept winning")


def _set_json(zk, path: str, value: dict | None) -> None:
    from kazoo.exceptions import NoNodeError, NodeExistsError

    if value is None:
        try:
            zk.delete(path)
        except NoNodeError:
            pass
        return
    raw = json.dumps(value, separators=(",", ":")).encode("utf-8")
    stat = zk.exists(path)
    if stat is None:
        try:
            zk.create(path, raw, makepath=True)
            return
        except NodeExistsError:
            stat = zk.exists(path)
    zk.set(path, raw, version=stat.version)


RECORD_TOPIC = "__kadmin_throttle_records"
PRODUCE_API_KEY = 0
FETCH_API_KEY = 1


class TopicRecordStore:
    """Records in the compacted topic ``__kadmin_throttle_records`` (AdminClient mode).

    One partition, compacted; the key is the plan id, the value the record's JSON, a tombstone
    (null value) when the record is emptied. Reading consumes the partition from the start with
    no consumer group (nothing to clean up) and keeps the last value per key. The topic is
    created on first write, replicated like the cluster's default (up to 3), so the record
    survives a broker loss. docs/throttle-records.md explains why a topic and not a config.
    """

    def __init__(self, settings, *, read_only: bool = False, topic: str = RECORD_TOPIC):
        self.settings = settings
        self.read_only = read_only
        self.topic = topic
        self.timeout = float(getattr(settings, "timeout", None) or 30.0)

    def _client_kwargs(self) -> dict:
        from kadmin.config import to_kafka_python

        kw = to_kafka_python(self.settings)
        kw.setdefault("client_id", "kadmin-throttle-records")
        return kw

    def _unsupported(self, e: Exception) -> Exception:
        from kadmin.errors import UnsupportedOperation

        return UnsupportedOperation(
            f"cannot read or write kadmin's throttle records in topic {self.topic}: the cluster does not "
            f"serve Produce/Fetch ({type(e).__name__}: {e})",
            hint="throttles can still be set and cleared by hand; see docs/throttle-records.md",
        )

    def load_all(self) -> dict[str, ThrottleRecord]:
        import time

        from kafka import KafkaConsumer, TopicPartition as KTP
        from kafka.errors import KafkaError

        try:
            consumer = KafkaConsumer(group_id=None, enable_auto_commit=False, **self._client_kwargs())
        except KafkaError as e:
            raise ClusterError(f"reading throttle records: {type(e).__name__}: {e}") from None
        try:
            if not consumer.partitions_for_topic(self.topic):
                return {}
            tp = KTP(self.topic, 0)
            consumer.assign([tp])
            end = consumer.end_offsets([tp])[tp]
            consumer.seek_to_beginning(tp)
            values: dict[str, bytes | None] = {}
            deadline = time.monotonic() + self.timeout
            while consumer.position(tp) < end:
                if time.monotonic() > deadline:
                    raise ClusterError(f"reading throttle records from {self.topic}: no data within {self.timeout:g}s")
                for batch in consumer.poll(timeout_ms=200).values():
                    for msg in batch:
                        values[msg.key.decode("utf-8")] = msg.value
            return {k: ThrottleRecord.loads(v) for k, v in sorted(values.items()) if v is not None}
        except KafkaError as e:
            if type(e).__name__ in ("UnsupportedVersionError", "IncompatibleBrokerVersion"):
                raise self._unsupported(e) from None
            raise ClusterError(f"reading throttle records from {self.topic}: {type(e).__name__}: {e}") from None
        finally:
            consumer.close()

    def put(self, record: ThrottleRecord) -> None:
        self._send(record.plan_id, None if record.empty else record.dumps())

    def delete(self, plan_id: str) -> None:
        self._send(plan_id, None)

    def _send(self, key: str, value: bytes | None) -> None:
        from kafka import KafkaProducer
        from kafka.errors import KafkaError

        from kadmin.backends.base import ReadOnlyViolation

        if self.read_only:
            raise ReadOnlyViolation("writing a throttle record through a read-only connection")
        self._ensure_topic()
        try:
            producer = KafkaProducer(acks=-1, enable_idempotence=False, retries=5, **self._client_kwargs())
        except KafkaError as e:
            raise ClusterError(f"writing throttle records: {type(e).__name__}: {e}") from None
        try:
            producer.send(self.topic, key=key.encode("utf-8"), value=value, partition=0).get(timeout=self.timeout)
        except KafkaError as e:
            if type(e).__name__ in ("UnsupportedVersionError", "IncompatibleBrokerVersion"):
                raise self._unsupported(e) from None
            raise ClusterError(f"writing the throttle record of plan {key} to {self.topic}: {type(e).__name__}: {e}") from None
        finally:
            producer.close(timeout=self.timeout)

    def _ensure_topic(self) -> None:
        from kafka.admin import KafkaAdminClient, NewTopic
        from kafka.errors import KafkaError, TopicAlreadyExistsError

        try:
            admin = KafkaAdminClient(**self._client_kwargs())
        except KafkaError as e:
            raise ClusterError(f"connecting to create {self.topic}: {type(e).__name__}: {e}") from None
        try:
            self._check_produce_fetch(admin)
            if self.topic in admin.list_topics():
                return
            brokers = len(admin.describe_cluster().get("brokers", [])) or 1
            try:
                admin.create_topics([NewTopic(self.topic, 1, min(3, brokers),
                                              topic_configs={"cleanup.policy": "compact"})])
            except TopicAlreadyExistsError:
                pass
        except KafkaError as e:
            if getattr(e, "errno", None) in (29, 31):  # TOPIC/CLUSTER_AUTHORIZATION_FAILED: name the permission
                from kadmin.backends.admin import _cluster_error

                raise _cluster_error(e, f"creating the throttle record topic {self.topic}") from None
            raise ClusterError(f"creating the throttle record topic {self.topic}: {type(e).__name__}: {e}") from None
        finally:
            admin.close()


    def _check_produce_fetch(self, admin) -> None:
        """Refuse before creating anything when the cluster cannot store messages."""
        from kafka.errors import KafkaError
        from kafka.protocol.consumer import FetchRequest
        from kafka.protocol.producer import ProduceRequest

        versions = getattr(getattr(admin, "_manager", None), "broker_version_data", None)
        if versions is None:
            return  # unknown: the producer will say
        for request in (ProduceRequest, FetchRequest):
            try:
                versions.api_version(request)
            except KafkaError as e:
                raise self._unsupported(e) from None


def record_store_for(backend) -> RecordStore:
    """The store every kadmin run sees for this backend: KIP-179's znodes through ZooKeeper, the
    record topic through the AdminClient protocol. Read-only backends give read-only stores."""
    if getattr(backend, "name", None) == "zookeeper":
        client = getattr(backend, "zk_client", None)
        if client is None:
            raise ClusterError("the ZooKeeper backend has no open ZooKeeper client")
        return ZooKeeperRecordStore(client, read_only=backend.read_only)
    settings = getattr(backend, "settings", None)
    if settings is None or not getattr(settings, "bootstrap_servers", None):
        raise ClusterError(f"cannot find where to keep throttle records for backend {getattr(backend, 'name', backend)!r}")
    return TopicRecordStore(settings, read_only=backend.read_only)


def open_record_store(backend) -> RecordStore | None:
    """``record_store_for``, or None when this connection offers no place for records."""
    try:
        return record_store_for(backend)
    except ClusterError:
        return None


# --- what is set, who set it, what needs it (the reads `throttle show/clear/set` share) ---------
@dataclass(frozen=True)
class ThrottleState:
    """The cluster's throttles, kadmin's records of them, and what running moves need."""

    cluster: object  # kadmin.model.ClusterState
    current: object  # kadmin.model.Throttle
    needs: object  # kadmin.plan.throttles.ThrottleNeeds
    records: dict[str, ThrottleRecord]
    ongoing: dict  # TopicPartition -> PartitionReassignment
    log_dirs_known: bool  # False: log-dir moves could not be seen, so every log-dir rate counts as needed
    records_error: str | None = None  # why kadmin's records could not be read (show goes on without them)

    def require_records(self) -> None:
        """Changing throttles without knowing what kadmin set is not safe: refuse."""
        if self.records_error is not None:
            from kadmin.errors import UnsupportedOperation

            raise UnsupportedOperation(f"{self.records_error}; nothing was changed")


def read_throttle_state(backend, store: RecordStore | None) -> ThrottleState:
    """Read every broker's and topic's throttle configs, the ongoing reassignments and log-dir
    moves, and kadmin's records. Where log-dir moves cannot be seen (a broker that does not
    answer, or a backend without DescribeLogDirs), their rates count as needed: unknown is not
    unneeded."""
    from kadmin.backends.base import Capability
    from kadmin.model import ConfigResource, ConfigResourceType
    from kadmin.plan.throttles import ThrottleNeeds, current_throttles

    cluster = backend.describe_cluster()
    resources = [ConfigResource(ConfigResourceType.BROKER, str(b)) for b in sorted(cluster.brokers)]
    resources += [ConfigResource(ConfigResourceType.TOPIC, t) for t in cluster.topics]
    current = current_throttles(backend.describe_configs(resources))
    ongoing = dict(backend.list_partition_reassignments())
    moving: set[int] = set()
    known = Capability.LOG_DIRS in backend.capabilities
    if known:
        for b, bld in backend.describe_log_dirs().items():
            if bld.error is not None:
                moving.add(b)
                known = False
            elif any(r.is_future for ld in bld.log_dirs for r in ld.replicas):
                moving.add(b)
    else:
        moving = set(cluster.brokers)
    records, error = {}, None
    if store is not None:
        try:
            records = store.load_all()
        except KadminError as e:
            error = f"kadmin's throttle records could not be read: {e}"
    return ThrottleState(cluster, current, ThrottleNeeds.of(ongoing, moving), records, ongoing, known, error)

