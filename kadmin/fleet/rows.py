"""Turn what a cluster said into fleet rows (the tables of ``tables.py``).

Two inputs give the same rows: the ``--output json`` documents of the reporting commands
(read from ``--from DIR``) and the backend's model values (live collection). Pure functions:
a document or model values in, ``{table: [row tuples]}`` out. Documents are read tolerantly: a
document that does not have the expected shape yields an error row naming the file, so one bad
file never hides the rest of the fleet.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kadmin.fleet.tables import ROW_TABLES

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


# Both engines say this of a log-dirs file they cannot use (Spark's JSON reader cannot tell a
# syntax error from a missing key, so the plain-Python reader does not either).
BAD_LOG_DIRS = "not a log-dirs describe result (invalid JSON or no 'brokers' list)"


# ---- documents (--from DIR) ------------------------------------------------------------------


def _int_or_none(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    return int(value)


def log_dirs_document_rows(cluster: str, source: str, doc: Mapping) -> Rows:
    """Rows of a ``log-dirs describe --output json`` result (schemas/log-dirs-describe.json)."""
    brokers = doc.get("brokers") if isinstance(doc, Mapping) else None
    if not isinstance(brokers, list):
        raise ShapeError(BAD_LOG_DIRS)
    rows = empty_rows()
    rows["clusters"].append((cluster, LOG_DIRS_KIND, source))
    log_dirs, replicas, errors = rows["log_dirs"], rows["replicas"], rows["errors"]
    for b in brokers:
        broker = int(b["broker"])
        if b.get("error"):
            errors.append((cluster, broker, source, str(b["error"])))
        rack = b.get("rack")
        for d in b.get("log_dirs") or ():
            path = d["path"]
            reps = d.get("replicas") or ()
            used = d.get("used_bytes")
            if used is None:
                used = sum(int(r["size"]) for r in reps)
            count = d.get("replica_count")
            if count is None:
                count = sum(1 for r in reps if not r.get("is_future"))
            future = d.get("future_replica_count")
            if future is None:
                future = sum(1 for r in reps if r.get("is_future"))
            status = d.get("status") or ("offline" if d.get("error") else "online")
            log_dirs.append(
                (
                    cluster,
                    broker,
                    rack,
                    path,
                    status,
                    d.get("error"),
                    int(used),
                    _int_or_none(d.get("total_bytes")),
                    _int_or_none(d.get("usable_bytes")),
                    int(count),
                    int(future),
                )
            )
            for r in reps:
                replicas.append(
                    (
                        cluster,
                        broker,
                        path,
                        r["topic"],
                        int(r["partition"]),
                        int(r["size"]),
                        int(r.get("offset_lag") or 0),
                        bool(r.get("is_future")),
                    )
                )
    return rows


def _broker_list(entry: Mapping, *keys: str) -> list[int]:
    for key in keys:
        value = entry.get(key)
        if value is not None:
            return [int(b) for b in value]
    return []


def reassign_document_rows(cluster: str, source: str, doc: Any) -> Rows:
    """Rows of a ``reassign list --output json`` result.

    Accepted shapes (the schema was being written alongside): a list of entries, or an object
    holding it under ``reassignments`` or ``partitions``; each entry has topic, partition,
    replicas and adding/removing (also spelled adding_replicas/removing_replicas).
    """
    if isinstance(doc, Mapping):
        entries = doc.get("reassignments", doc.get("partitions"))
    else:
        entries = doc
    if not isinstance(entries, list):
        raise ShapeError("not a reassign list result: no 'reassignments' list")
    rows = empty_rows()
    rows["clusters"].append((cluster, REASSIGN_KIND, source))
    for e in entries:
        rows["reassignments"].append(
            (
                cluster,
                e["topic"],
                int(e["partition"]),
                _broker_list(e, "replicas"),
                _broker_list(e, "adding", "adding_replicas"),
                _broker_list(e, "removing", "removing_replicas"),
            )
        )
    return rows


def _throttle_row(
    cluster: str, resource: str, entity: Any, config: str, value: Any, plan: Any = None, stale: Any = None
) -> tuple:
    return (
        cluster,
        resource,
        str(entity),
        config,
        None if value is None else str(value),
        None if plan is None else str(plan),
        None if stale is None else bool(stale),
    )


def _entity_throttles(cluster: str, resource: str, item: Mapping) -> list[tuple]:
    """One broker or topic entry: configs as a mapping or as a list of {name, value, ...}."""
    entity = item.get("broker", item.get("topic", item.get("entity", item.get("name"))))
    if entity is None:
        raise ShapeError(f"a {resource} throttle entry names no {resource}")
    found = item.get("throttles", item.get("configs", item.get("rates", item.get("replicas"))))
    out = []
    if isinstance(found, Mapping):
        for config, value in found.items():
            if isinstance(value, Mapping):
                out.append(
                    _throttle_row(
                        cluster, resource, entity, config, value.get("value"), value.get("plan"), value.get("stale")
                    )
                )
            else:
                out.append(_throttle_row(cluster, resource, entity, config, value, item.get("plan"), item.get("stale")))
    elif isinstance(found, list):
        for c in found:
            out.append(
                _throttle_row(
                    cluster,
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
    known (a "reassign" row in ``clusters``), so its throttles count as leftover.
    """
    if not isinstance(doc, Mapping):
        raise ShapeError("not a throttle show result: not an object")
    rows = empty_rows()
    out = rows["throttles"]
    if isinstance(doc.get("throttles"), list):
        for t in doc["throttles"]:
            if "kind" in t:  # kadmin's own shape
                resource = "broker" if t["kind"] == "broker_rate" else "topic"
                plan = ",".join(t.get("plan_ids") or ()) or None
                out.append(
                    _throttle_row(cluster, resource, t["resource"], t["config"], t.get("value"), plan, t.get("stale"))
                )
                continue
            resource = t.get("resource", t.get("type"))
            entity = t.get("entity", t.get("broker", t.get("topic", t.get("name"))))
            out.append(
                _throttle_row(
                    cluster, str(resource), entity, t.get("config"), t.get("value"), t.get("plan"), t.get("stale")
                )
            )
        if (
            doc.get("reassigning_partitions") == 0
            and not doc.get("log_dir_moving_brokers")
            and doc.get("log_dir_moves_known") is True
        ):
            rows["clusters"].append((cluster, REASSIGN_KIND, source))
    elif isinstance(doc.get("brokers"), list) or isinstance(doc.get("topics"), list):
        for item in doc.get("brokers") or ():
            out.extend(_entity_throttles(cluster, "broker", item))
        for item in doc.get("topics") or ():
            out.extend(_entity_throttles(cluster, "topic", item))
    else:
        raise ShapeError("not a throttle show result: no 'throttles', 'brokers' or 'topics' list")
    rows["clusters"].append((cluster, THROTTLE_KIND, source))
    return rows


DOCUMENT_READERS = {
    LOG_DIRS_KIND: log_dirs_document_rows,
    REASSIGN_KIND: reassign_document_rows,
    THROTTLE_KIND: throttle_document_rows,
}


def document_rows(kind: str, cluster: str, source: str, doc: Any) -> Rows:
    """Rows of one document; a malformed one becomes an error row for its cluster."""
    if isinstance(doc, Mapping) and isinstance(doc.get("cluster"), str):
        cluster = doc["cluster"]
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
        futures = sum(1 for r in d.replicas if r.is_future)
        rows["log_dirs"].append(
            (
                cluster,
                broker,
                rack,
                d.path,
                d.status.value,
                d.error,
                d.used_bytes,
                d.total_bytes,
                d.usable_bytes,
                len(d.replicas) - futures,
                futures,
            )
        )
        for r in d.replicas:
            rows["replicas"].append((cluster, broker, d.path, r.topic, r.partition, r.size, r.offset_lag, r.is_future))
    return rows


def reassignment_rows(cluster: str, reassignments: Iterable[Any]) -> Rows:
    """Rows of ListPartitionReassignments (``kadmin.model.PartitionReassignment`` values)."""
    rows = empty_rows()
    rows["clusters"].append((cluster, REASSIGN_KIND, "live"))
    for r in sorted(reassignments, key=lambda r: (r.topic, r.partition)):
        rows["reassignments"].append(
            (cluster, r.topic, r.partition, list(r.replicas), list(r.adding), list(r.removing))
        )
    return rows
