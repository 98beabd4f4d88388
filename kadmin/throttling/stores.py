"""Where kadmin's throttle records live (docs/throttle-records.md explains the choice).

- ZooKeeper mode: KIP-179's znodes (``ZooKeeperRecordStore``).
- AdminClient mode: the compacted topic ``__kadmin_throttle_records`` (``TopicRecordStore``).

A store is reached through the backend (``Capability.THROTTLE_RECORDS`` and
``backend.throttle_record_store()``), which hands it a connection with the backend's timeout and
error mapping: these classes only lay records out; they open no client of their own.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from typing import Protocol

from kadmin.errors import ClusterError, InputError
from kadmin.throttling import RECORD_TOPIC  # noqa: F401 (kadmin.backends.admin takes it from here)
from kadmin.throttling.record import ThrottleRecord


class UnreadableRecords(ClusterError):
    """Some records could not be read (``keys``: their keys, each named in the message with
    where it is); ``records`` holds the others. The hint says how to remove them. Exit 1 from
    every command: what is unreadable is in the cluster, not the command's input."""

    def __init__(self, records: dict[str, ThrottleRecord], bad: list[tuple[str, str]], hint: str):
        from kadmin.units import counted

        self.records = records
        self.keys = tuple(k for k, _ in bad)
        what = "; ".join(why for _, why in bad)
        n = len(bad)
        super().__init__(f"{counted(n, 'unreadable kadmin throttle record')}: {what}", hint=hint)


def _why(e: InputError) -> str:
    return e.message.removeprefix("unreadable kadmin throttle record: ")


def _newer(bad: list[tuple[str, str]]) -> str:
    """What to say of records a newer kadmin may have written (another record version)."""
    if not any("unsupported record version" in why for _, why in bad):
        return ""
    return "; a record of another version was written by another kadmin version, which can read and remove it"


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


def _refuse_write() -> None:
    from kadmin.backends.base import ReadOnlyViolation

    raise ReadOnlyViolation("writing a throttle record through a read-only connection")


# --- ZooKeeper: KIP-179's znodes ---------------------------------------------------------------
RATES_REMOVAL = "/admin/throttled_rates_removal"
REPLICAS_REMOVAL = "/admin/throttled_replicas_removal"


class ZooKeeperRecordStore:
    """KIP-179's removal znodes.

    ``/admin/throttled_rates_removal`` holds ``{"version":1,"brokers":[...]}`` and
    ``/admin/throttled_replicas_removal`` holds ``{"version":1,"topics":[...]}``: the brokers and
    topics whose throttles are to be removed when the reassignment completes, as KIP-179 lays
    them out (the union over every kadmin record). Each plan's full record (values, entries,
    who, when) is a child ``/admin/throttled_replicas_removal/<plan id>``, so two plans sharing a
    topic never remove each other's entries. Writes are compare-and-set on the znode version.

    ``zk``: kazoo-like znode calls (get, get_children, exists, create, set, delete, ensure_path);
    the ZooKeeper backend passes ones bounded by its timeout, with its error mapping.
    """

    def __init__(self, zk, *, read_only: bool = False):
        self.zk = zk
        self.read_only = read_only

    def load_all(self) -> dict[str, ThrottleRecord]:
        """Every record; UnreadableRecords (naming each znode, with the others) if one cannot be read."""
        out, bad = self._load()
        if bad:
            from kadmin.units import plural

            paths = " ".join(f"{REPLICAS_REMOVAL}/{k}" for k, _ in bad)
            hint = (
                f"delete the {plural('znode', len(bad))}, e.g. `zookeeper-shell.sh HOST:PORT[/chroot] delete {paths}`"
            )
            raise UnreadableRecords(out, bad, hint + _newer(bad))
        return out

    def _load(self) -> tuple[dict[str, ThrottleRecord], list[tuple[str, str]]]:
        from kazoo.exceptions import NoNodeError

        try:
            children = self.zk.get_children(REPLICAS_REMOVAL)
        except NoNodeError:
            return {}, []
        out = {}
        bad = []
        for child in sorted(children):
            path = f"{REPLICAS_REMOVAL}/{child}"
            try:
                data, _ = self.zk.get(path)
            except NoNodeError:
                continue
            try:
                record = ThrottleRecord.loads(data)
            except InputError as e:
                bad.append((child, f"znode {path}: {_why(e)}"))
                continue
            out[record.plan_id] = record
        return out, bad

    def put(self, record: ThrottleRecord) -> None:
        if self.read_only:
            _refuse_write()
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

        if self.read_only:
            _refuse_write()
        with contextlib.suppress(NoNodeError):
            self.zk.delete(f"{REPLICAS_REMOVAL}/{plan_id}")
        self._write_unions()

    def _write_unions(self) -> None:
        """Rewrite KIP-179's two union znodes from the children; delete them when empty."""
        from kazoo.exceptions import BadVersionError, NoNodeError, NotEmptyError

        for _ in range(10):
            records, _unreadable = self._load()  # the unions of the records that can be read
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
    from kazoo.exceptions import NodeExistsError, NoNodeError

    if value is None:
        with contextlib.suppress(NoNodeError):
            zk.delete(path)
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


# --- AdminClient: a compacted topic (RECORD_TOPIC, in kadmin.throttling) --------------------------


class KeyedLog(Protocol):
    """A compacted topic as the backend serves it: the last value per key, and writes."""

    topic: str

    def read_all(self) -> dict[str, bytes | None]:
        """The last value per key (None: a tombstone); empty when the topic does not exist."""

    def write(self, key: str, value: bytes | None) -> None:
        """Write (creating the topic on first write); None writes a tombstone."""


class TopicRecordStore:
    """Records in the compacted topic ``__kadmin_throttle_records`` (AdminClient mode).

    One partition, compacted; the key is the plan id, the value the record's JSON, a tombstone
    (null value) when the record is emptied. The backend's ``KeyedLog`` reads the partition from
    the start with no consumer group and creates the topic on first write, replicated like the
    cluster's default (up to 3), so the record survives a broker loss.
    """

    def __init__(self, log: KeyedLog, *, read_only: bool = False):
        self.log = log
        self.read_only = read_only

    @property
    def topic(self) -> str:
        return self.log.topic

    def load_all(self) -> dict[str, ThrottleRecord]:
        """Every record; UnreadableRecords (naming each key and offset, with the others) if one
        cannot be read."""
        values = self.log.read_all()
        offsets = getattr(self.log, "offsets", {})
        out = {}
        bad = []
        for k, v in sorted(values.items()):
            if v is None:
                continue
            try:
                out[k] = ThrottleRecord.loads(v)
            except InputError as e:
                at = f", offset {offsets[k]}" if k in offsets else ""
                bad.append((k, f"key {k!r} (topic {self.topic}, partition 0{at}): {_why(e)}"))
        if bad:
            import shlex

            keys = ", ".join(repr(k) for k, _ in bad)
            first = bad[0][0]
            hint = (
                f"remove {'it' if len(bad) == 1 else 'them'} with a tombstone (a null value) for {'key' if len(bad) == 1 else 'keys'} {keys} in "
                f"{self.topic}, e.g. `echo {shlex.quote(first + ':')} | kcat -b HOST:PORT -t {self.topic} -P -K: -Z`"
            )
            raise UnreadableRecords(out, bad, hint + _newer(bad))
        return out

    def put(self, record: ThrottleRecord) -> None:
        self._send(record.plan_id, None if record.empty else record.dumps())

    def delete(self, plan_id: str) -> None:
        self._send(plan_id, None)

    def _send(self, key: str, value: bytes | None) -> None:
        if self.read_only:
            _refuse_write()
        self.log.write(key, value)


def open_record_store(backend) -> RecordStore | None:
    """The store every kadmin run sees for this backend (KIP-179's znodes through ZooKeeper,
    the record topic through the AdminClient protocol), or None when this connection offers no
    place for records. Read-only backends give read-only stores."""
    from kadmin.backends.base import Capability

    if Capability.THROTTLE_RECORDS not in getattr(backend, "capabilities", ()):
        return None
    return backend.throttle_record_store()
