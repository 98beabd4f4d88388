"""Turn what a cluster said into fleet rows (the tables of ``tables.py``).

Two inputs give the same rows: the ``--output json`` documents of the reporting commands
(read from ``--from DIR``) and the backend's model values (live collection). Pure functions:
a document or model values in, ``{table: [row tuples]}`` out. Documents are read tolerantly: a
document that does not have the expected shape yields an error row naming the file, so one bad
file never hides the rest of the fleet.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from kadmin.fleet.tables import ROW_TABLES
from kadmin.logdirs import contents_known
from kadmin.model import DOWN_ERROR

Rows = dict[str, list[tuple]]

LOG_DIRS_KIND = "log-dirs"
REASSIGN_KIND = "reassign"
THROTTLE_KIND = "throttle"


def empty_rows() -> Rows:
    return {name: [] for name in ROW_TABLES}


def merge_rows(parts: Iterable[Rows]) -> Rows:
    out = empty_rows()
    for part in parts:
        for name, rows in part.items():
            out[name].extend(rows)
    return out


def error_rows(cluster: str, broker: int | None, source: str, error: str) -> Rows:
    rows = empty_rows()
    rows["errors"].append((cluster, broker, source, error))
    return rows


class ShapeError(ValueError):
    """A document lacks what its kind must have; the message says what."""


# ---- documents (--from DIR) ------------------------------------------------------------------


def _int_or_none(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    return int(value)


# What the reports need of each command's result, and the command that writes it.
COMMANDS = {LOG_DIRS_KIND: "log-dirs describe", REASSIGN_KIND: "reassign list", THROTTLE_KIND: "throttle show"}
INT32 = 2**31


def looks_like(doc: Any) -> str | None:
    """What a document that is not the expected result looks like, when it is something
    recognisable (another tool's output, another command's result); None otherwise."""
    if not isinstance(doc, Mapping):
        return None
    brokers, partitions = doc.get("brokers"), doc.get("partitions")
    first_broker = brokers[0] if isinstance(brokers, list) and brokers and isinstance(brokers[0], Mapping) else {}
    first_partition = (
        partitions[0] if isinstance(partitions, list) and partitions and isinstance(partitions[0], Mapping) else {}
    )
    if "logDirs" in first_broker:
        return "kafka-log-dirs.sh output (kafka-json)"
    if "log_dirs" in first_broker:
        return "a log-dirs describe result"
    if "replicas" in first_partition and not {"adding", "adding_replicas", "removing", "removing_replicas"} & set(
        first_partition
    ):
        return "a reassignment plan (kafka-reassign-partitions.sh JSON)"
    if isinstance(doc.get("reassignments"), list):
        return "a reassign list result"
    if isinstance(doc.get("throttles"), list):
        return "a throttle show result"
    return None


def not_a_result(kind: str, doc: Any, why: str) -> ShapeError:
    """The error for a document that is not ``kind``'s result: what it looks like when known
    (and then the command kadmin needs), else ``why``."""
    what = looks_like(doc)
    needed = f"kadmin needs `{COMMANDS[kind]} -o json`"
    if what is None or what == f"a {COMMANDS[kind]} result":
        return ShapeError(f"not a {COMMANDS[kind]} result: {why}; {needed}")
    return ShapeError(f"{what}: {needed}")


INT64 = 2**63


def _int(
    value: Any,
    where: str,
    doc: Any,
    low: int = 0,
    high: int = INT64,
    optional: bool = False,
    kind: str = LOG_DIRS_KIND,
) -> int | None:
    """A whole number from ``low`` to ``high - 1`` (None allowed when ``optional``), else ShapeError."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value < high:
        raise not_a_result(kind, doc, f"{where} is not a whole number from {low} to {high - 1}: {value!r}")
    return value


def _text(value: Any, where: str, doc: Any, kind: str = LOG_DIRS_KIND) -> str | None:
    if value is not None and not isinstance(value, str):
        raise not_a_result(kind, doc, f"{where} is not text: {value!r}")
    return value


def log_dirs_document_rows(cluster: str, source: str, doc: Mapping) -> Rows:
    """Rows of a ``log-dirs describe --output json`` result (schemas/log-dirs-describe.json).

    What the reports need is checked, and a document lacking it is refused whole (ShapeError
    naming where, and what the document looks like): brokers (at least one), each an integer
    id with a ``log_dirs`` list; each directory a ``path`` and a known ``status``; each replica
    a topic, partition and size. Derived counts (used bytes, replica counts) and the status may
    be left out: they are rebuilt. A directory with an error (offline) has them null, unknown
    (``logdirs.contents_known``): Kafka lists nothing in it, and a file kadmin wrote before it
    said null says 0 there. The Spark engine's reader (``arrow.py``) hands every file it
    is not sure of to this function, so both engines say the same of the same file.
    """
    k = LOG_DIRS_KIND
    brokers = doc.get("brokers") if isinstance(doc, Mapping) else None
    if not isinstance(brokers, list):
        raise not_a_result(k, doc, "no 'brokers' list")
    if not brokers:
        raise not_a_result(k, doc, "its 'brokers' list is empty")
    rows = empty_rows()
    rows["clusters"].append((cluster, LOG_DIRS_KIND, source))
    log_dirs, replicas, errors = rows["log_dirs"], rows["replicas"], rows["errors"]
    for i, b in enumerate(brokers):
        if not isinstance(b, Mapping):
            raise not_a_result(k, doc, f"brokers[{i}] is not an object")
        broker = _int(b.get("broker"), f"brokers[{i}].broker", doc, high=INT32)
        dirs = b.get("log_dirs")
        if not isinstance(dirs, list):
            raise not_a_result(k, doc, f"brokers[{i}] has no 'log_dirs' list")
        error = _text(b.get("error"), f"brokers[{i}].error", doc)
        if error:
            errors.append((cluster, broker, source, error))
        rack = _text(b.get("rack"), f"brokers[{i}].rack", doc)
        for j, d in enumerate(dirs):
            where = f"brokers[{i}].log_dirs[{j}]"
            if not isinstance(d, Mapping) or not isinstance(d.get("path"), str):
                raise not_a_result(k, doc, f"{where} has no 'path'")
            if d.get("status") not in (None, "online", "offline", "cordoned"):
                raise not_a_result(k, doc, f"{where}.status is not online, offline or cordoned: {d['status']!r}")
            reps = d.get("replicas")
            if reps is None:
                reps = []
            if not isinstance(reps, list):
                raise not_a_result(k, doc, f"{where}.replicas is not a list")
            path, dir_error = d["path"], _text(d.get("error"), f"{where}.error", doc)
            dir_replicas: list[tuple[Any, ...]] = []
            for n, r in enumerate(reps):
                at = f"{where}.replicas[{n}]"
                if not isinstance(r, Mapping) or not isinstance(r.get("topic"), str):
                    raise not_a_result(k, doc, f"{at} has no 'topic'")
                future = r.get("is_future")
                if future is not None and not isinstance(future, bool):
                    raise not_a_result(k, doc, f"{at}.is_future is not true or false: {future!r}")
                dir_replicas.append(
                    (
                        cluster,
                        broker,
                        path,
                        r["topic"],
                        _int(r.get("partition"), f"{at}.partition", doc, high=INT32),
                        _int(r.get("size"), f"{at}.size", doc),
                        _lag(_int(r.get("offset_lag"), f"{at}.offset_lag", doc, low=-INT64, optional=True)),
                        bool(future),
                    )
                )
            used = _int(d.get("used_bytes"), f"{where}.used_bytes", doc, optional=True)
            count = _int(d.get("replica_count"), f"{where}.replica_count", doc, high=INT32, optional=True)
            futures = _int(
                d.get("future_replica_count"), f"{where}.future_replica_count", doc, high=INT32, optional=True
            )
            if dir_error is None:  # a count left out is rebuilt from the replicas
                used = sum(r[5] for r in dir_replicas) if used is None else used
                count = sum(not r[7] for r in dir_replicas) if count is None else count
                futures = sum(r[7] for r in dir_replicas) if futures is None else futures
            else:  # unknown, whatever the file says (before kadmin said null, it said 0)
                used = count = futures = None
            log_dirs.append(
                (
                    cluster,
                    broker,
                    rack,
                    path,
                    d.get("status") or ("offline" if dir_error is not None else "online"),
                    dir_error,
                    used,
                    _int(d.get("total_bytes"), f"{where}.total_bytes", doc, low=-INT64, optional=True),
                    _int(d.get("usable_bytes"), f"{where}.usable_bytes", doc, low=-INT64, optional=True),
                    count,
                    futures,
                )
            )
            replicas.extend(dir_replicas)
    return rows


def _brokers(entry: Mapping, at: str, doc: Any, *keys: str) -> list[int]:
    """The broker ids under the first of ``keys`` the entry has ([] for none)."""
    for key in keys:
        value = entry.get(key)
        if value is None:
            continue
        if not isinstance(value, list):
            raise not_a_result(REASSIGN_KIND, doc, f"{at}.{key} is not a list of broker ids: {value!r}")
        return [
            cast(int, _int(b, f"{at}.{key}[{n}]", doc, high=INT32, kind=REASSIGN_KIND)) for n, b in enumerate(value)
        ]
    return []


def reassign_document_rows(cluster: str, source: str, doc: Any) -> Rows:
    """Rows of a ``reassign list --output json`` result.

    Accepted shapes (the schema was being written alongside): a list of entries, or an object
    holding it under ``reassignments`` or ``partitions``; each entry has topic, partition,
    replicas and adding/removing (also spelled adding_replicas/removing_replicas). A ``waiting``
    list (topic, partition, replicas, target: the requests of a stuck /admin/reassign_partitions
    that no broker carries out) becomes ``waiting`` rows, not reassignments. What the
    reports need is checked as in a log-dirs result: a document lacking it is refused whole
    (ShapeError naming where): a topic, a partition and broker ids that are whole numbers.
    """
    k = REASSIGN_KIND
    name = ""
    if isinstance(doc, Mapping):
        name = "reassignments" if "reassignments" in doc else "partitions"
        entries = doc.get(name)
    else:
        entries = doc
    if not isinstance(entries, list):
        raise ShapeError("not a reassign list result: no 'reassignments' list")
    rows = empty_rows()
    rows["clusters"].append((cluster, REASSIGN_KIND, source))
    for i, e in enumerate(entries):
        if not isinstance(e, Mapping) or not {"adding", "adding_replicas", "removing", "removing_replicas"} & set(e):
            raise not_a_result(k, doc, f"entry {i} says nothing of the replicas being added or removed")
        at = f"{name}[{i}]"
        if not isinstance(e.get("topic"), str) or not e["topic"]:
            raise not_a_result(k, doc, f"{at} has no 'topic'")
        rows["reassignments"].append(
            (
                cluster,
                e["topic"],
                _int(e.get("partition"), f"{at}.partition", doc, high=INT32, kind=k),
                _brokers(e, at, doc, "replicas"),
                _brokers(e, at, doc, "adding", "adding_replicas"),
                _brokers(e, at, doc, "removing", "removing_replicas"),
            )
        )
    waiting = doc.get("waiting", []) if isinstance(doc, Mapping) else []
    if not isinstance(waiting, list):
        raise not_a_result(k, doc, f"'waiting' is not a list: {waiting!r}")
    for i, e in enumerate(waiting):
        at = f"waiting[{i}]"
        if not isinstance(e, Mapping) or not isinstance(e.get("topic"), str) or not e["topic"]:
            raise not_a_result(k, doc, f"{at} has no 'topic'")
        rows["waiting"].append(
            (
                cluster,
                e["topic"],
                _int(e.get("partition"), f"{at}.partition", doc, high=INT32, kind=k),
                _brokers(e, at, doc, "replicas"),
                _brokers(e, at, doc, "target"),
            )
        )
    return rows


def _throttle_row(
    cluster: str,
    at: str,
    doc: Any,
    resource: Any,
    entity: Any,
    config: Any,
    value: Any,
    plan: Any = None,
    stale: Any = None,
) -> tuple:
    """One ``throttles`` row; ShapeError naming ``at`` when a value is not what the reports
    read: a broker or topic, a config name, a value that is text or a whole number, a plan that
    is text, a stale that is true or false."""
    k = THROTTLE_KIND
    if resource not in ("broker", "topic"):
        raise not_a_result(k, doc, f"{at} is not a broker or topic throttle: {resource!r}")
    if isinstance(entity, bool) or not isinstance(entity, (str, int)) or entity == "":
        raise not_a_result(k, doc, f"{at} names no {resource}")
    if not isinstance(config, str) or not config:
        raise not_a_result(k, doc, f"{at} names no config")
    if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int))):
        raise not_a_result(k, doc, f"{at}.value is not text or a whole number: {value!r}")
    _text(plan, f"{at}.plan", doc, kind=k)
    if stale is not None and not isinstance(stale, bool):
        raise not_a_result(k, doc, f"{at}.stale is not true or false: {stale!r}")
    return (cluster, resource, str(entity), config, None if value is None else str(value), plan, stale)


def _entity_throttles(cluster: str, resource: str, item: Any, at: str, doc: Any) -> list[tuple]:
    """One broker or topic entry: configs as a mapping or as a list of {name, value, ...}."""
    if not isinstance(item, Mapping):
        raise not_a_result(THROTTLE_KIND, doc, f"{at} is not an object")
    entity = item.get("broker", item.get("topic", item.get("entity", item.get("name"))))
    if entity is None:
        raise ShapeError(f"a {resource} throttle entry names no {resource}")
    field = next((f for f in ("throttles", "configs", "rates", "replicas") if item.get(f) is not None), "configs")
    found = item.get(field)
    at = f"{at}.{field}"
    if not isinstance(found, (Mapping, list)):
        raise ShapeError(f"not a throttle show result: {resource} {entity} carries no throttles or configs")
    out = []
    if isinstance(found, Mapping):
        for config, value in found.items():
            # {"config": {"value", "plan", "stale"}} or {"config": "value"} with the item's plan
            held = (
                value
                if isinstance(value, Mapping)
                else {"value": value, "plan": item.get("plan"), "stale": item.get("stale")}
            )
            out.append(
                _throttle_row(
                    cluster,
                    f"{at}.{config}",
                    doc,
                    resource,
                    entity,
                    config,
                    held.get("value"),
                    held.get("plan"),
                    held.get("stale"),
                )
            )
    else:
        for j, c in enumerate(found):
            where = f"{at}[{j}]"
            if not isinstance(c, Mapping):
                raise not_a_result(THROTTLE_KIND, doc, f"{where} is not an object")
            out.append(
                _throttle_row(
                    cluster,
                    where,
                    doc,
                    resource,
                    entity,
                    c.get("config", c.get("name")),
                    c.get("value"),
                    c.get("plan"),
                    c.get("stale"),
                )
            )
    return out


def throttle_document_rows(cluster: str, source: str, doc: Any) -> Rows:
    """Rows of a ``throttle show --output json`` result (schemas/throttle-show-result.json:
    ``throttles`` of {kind, resource, config, value, plan_ids, stale, ...}).

    Also accepted: a flat ``throttles`` list of {resource, entity, config, value, plan, stale},
    or ``brokers`` and ``topics`` lists whose entries carry their configs as a mapping or a list.
    A result saying no reassignment and no log-dir move runs marks the cluster's moves as
    known (a "reassign" row in ``clusters``), so its throttles count as leftover. Each throttle
    is checked (``_throttle_row``): a document with one the reports cannot read is refused whole.

    A broker in ``unreadable_brokers`` (down, over the AdminClient protocol: kadmin's records name
    throttles there that could not be read) gets the error row of a broker that is down, as the
    log-dirs reports give one (``DOWN_ERROR``): the report says it lacks that broker's throttles. Over
    ZooKeeper they are read, and the list is empty. A broker in ``silent_brokers`` ({id: error}:
    running, but it did not answer DescribeConfigs in time) gets an error row saying so.
    """
    if not isinstance(doc, Mapping):
        raise ShapeError("not a throttle show result: not an object")
    k = THROTTLE_KIND
    rows = empty_rows()
    out = rows["throttles"]
    if isinstance(doc.get("throttles"), list):
        for i, t in enumerate(doc["throttles"]):
            at = f"throttles[{i}]"
            if not isinstance(t, Mapping):
                raise not_a_result(k, doc, f"{at} is not an object")
            if "kind" in t:  # kadmin's own shape
                if t["kind"] not in ("broker_rate", "topic_replicas"):
                    raise not_a_result(k, doc, f"{at}.kind is not broker_rate or topic_replicas: {t['kind']!r}")
                plan_ids = t.get("plan_ids") or []
                if not isinstance(plan_ids, list) or not all(isinstance(p, str) for p in plan_ids):
                    raise not_a_result(k, doc, f"{at}.plan_ids is not a list of plan ids: {plan_ids!r}")
                resource = "broker" if t["kind"] == "broker_rate" else "topic"
                out.append(
                    _throttle_row(
                        cluster,
                        at,
                        doc,
                        resource,
                        t.get("resource"),
                        t.get("config"),
                        t.get("value"),
                        ",".join(plan_ids) or None,
                        t.get("stale"),
                    )
                )
                continue
            out.append(
                _throttle_row(
                    cluster,
                    at,
                    doc,
                    t.get("resource", t.get("type")),
                    t.get("entity", t.get("broker", t.get("topic", t.get("name")))),
                    t.get("config"),
                    t.get("value"),
                    t.get("plan"),
                    t.get("stale"),
                )
            )
        silent = _silent_brokers(doc)
        rows["errors"].extend(
            (cluster, b, source, silent_error(silent[b]) if b in silent else DOWN_ERROR)
            for b in sorted(set(_unreadable_brokers(doc)) | set(silent))
        )
        if (
            doc.get("reassigning_partitions") == 0
            and not doc.get("log_dir_moving_brokers")
            and doc.get("log_dir_moves_known") is True
        ):
            rows["clusters"].append((cluster, REASSIGN_KIND, source))
    elif isinstance(doc.get("brokers"), list) or isinstance(doc.get("topics"), list):
        for key, resource in (("brokers", "broker"), ("topics", "topic")):
            items = doc.get(key) or []
            if not isinstance(items, list):
                raise not_a_result(k, doc, f"'{key}' is not a list")
            for i, item in enumerate(items):
                out.extend(_entity_throttles(cluster, resource, item, f"{key}[{i}]", doc))
    else:
        raise ShapeError("not a throttle show result: no 'throttles', 'brokers' or 'topics' list")
    rows["clusters"].append((cluster, THROTTLE_KIND, source))
    return rows


def _unreadable_brokers(doc: Mapping[str, Any]) -> list[int]:
    """``unreadable_brokers`` of a throttle show result (absent before kadmin wrote it: none)."""
    brokers = doc.get("unreadable_brokers", [])
    if not isinstance(brokers, list) or not all(isinstance(b, int) and not isinstance(b, bool) for b in brokers):
        raise not_a_result(THROTTLE_KIND, doc, f"unreadable_brokers is not a list of broker ids: {brokers!r}")
    return sorted(brokers)


def silent_error(why: str) -> str:
    """The error of a running broker that did not answer DescribeConfigs (``why``: its error)."""
    return f"did not answer DescribeConfigs ({why}): its throttle rates are unknown"


def _silent_brokers(doc: Mapping[str, Any]) -> dict[int, str]:
    """``silent_brokers`` of a throttle result ({broker id: why}: running, but they did not answer
    for their configs); absent: none."""
    found = doc.get("silent_brokers", {})
    if not isinstance(found, Mapping) or not all(
        isinstance(b, str) and b.isdigit() and isinstance(why, str) for b, why in found.items()
    ):
        raise not_a_result(THROTTLE_KIND, doc, f"silent_brokers is not a mapping of broker ids to errors: {found!r}")
    return {int(b): why for b, why in found.items()}


DOCUMENT_READERS = {
    LOG_DIRS_KIND: log_dirs_document_rows,
    REASSIGN_KIND: reassign_document_rows,
    THROTTLE_KIND: throttle_document_rows,
}


def document_rows(kind: str, cluster: str, source: str, doc: Any) -> Rows:
    """Rows of one document; a malformed one becomes an error row for its cluster."""
    if isinstance(doc, Mapping) and isinstance(doc.get("cluster"), str) and doc["cluster"]:
        cluster = doc["cluster"]
    what = looks_like(doc)
    if what is not None and what != f"a {COMMANDS[kind]} result":  # another tool's or command's output
        return error_rows(cluster, None, source, f"{what}: kadmin needs `{COMMANDS[kind]} -o json`")
    try:
        return DOCUMENT_READERS[kind](cluster, source, doc)
    except ShapeError as e:
        return error_rows(cluster, None, source, str(e))
    except (KeyError, TypeError, ValueError) as e:
        return error_rows(cluster, None, source, f"unexpected {kind} result shape: {type(e).__name__}: {e}")


# ---- model values (live collection) -------------------------------------------------------


def broker_log_dirs_rows(cluster: str, broker_log_dirs: Any, rack: str | None = None) -> Rows:
    """Rows of one broker's DescribeLogDirs answer (``kadmin.backends.base.BrokerLogDirs``)."""
    rows = empty_rows()
    broker = broker_log_dirs.broker
    if broker_log_dirs.error:
        rows["errors"].append((cluster, broker, "live", broker_log_dirs.error))
    for d in broker_log_dirs.log_dirs:
        known = contents_known(d)  # a directory with an error: Kafka said nothing of what it holds
        futures = sum(1 for r in d.replicas if r.is_future)
        rows["log_dirs"].append(
            (
                cluster,
                broker,
                rack,
                d.path,
                d.status.value,
                d.error,
                d.used_bytes if known else None,
                d.total_bytes,
                d.usable_bytes,
                len(d.replicas) - futures if known else None,
                futures if known else None,
            )
        )
        for r in d.replicas:
            rows["replicas"].append(
                (cluster, broker, d.path, r.topic, r.partition, r.size, _lag(r.offset_lag), r.is_future)
            )
    return rows


def reassignment_rows(
    cluster: str, reassignments: Iterable[Any], waiting: Iterable[tuple[Any, Iterable[int]]] = ()
) -> Rows:
    """Rows of ListPartitionReassignments (``kadmin.model.PartitionReassignment`` values), less
    the requests no broker carries out (``waiting``: (reassignment, the partition's replicas now)
    pairs, from ``kadmin.backends.base.requests_not_taken``), which become ``waiting`` rows."""
    rows = empty_rows()
    rows["clusters"].append((cluster, REASSIGN_KIND, "live"))
    for r in sorted(reassignments, key=lambda r: (r.topic, r.partition)):
        rows["reassignments"].append(
            (cluster, r.topic, r.partition, list(r.replicas), list(r.adding), list(r.removing))
        )
    for r, current in sorted(waiting, key=lambda w: (w[0].topic, w[0].partition)):
        rows["waiting"].append((cluster, r.topic, r.partition, list(current), list(r.target)))
    return rows


def _lag(offset_lag: int | None) -> int | None:
    """A replica's offset lag, None when unknown: Kafka's -1 (a future replica whose partition is
    offline on its broker) or, in a saved result, null or left out (not 0: "caught up")."""
    return None if offset_lag is None or offset_lag < 0 else offset_lag
