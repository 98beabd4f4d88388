"""Live collection: the tasks that read one cluster, or one broker of a cluster.

Each task opens its own read-only backend (``kadmin.backends.open_backend``) so it can run
anywhere: a thread here, a Spark executor elsewhere. A task never raises for a cluster that
cannot be reached: it returns an error row, and the rest of the fleet still reports.

``opener`` turns an inventory entry into a backend; the default resolves the entry's
connection settings (``kadmin.config.resolve_connection``). Tests pass their own.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kadmin.fleet.rows import (
    LOG_DIRS_KIND,
    Rows,
    broker_log_dirs_rows,
    empty_rows,
    error_rows,
    merge_rows,
    reassignment_rows,
    throttle_document_rows,
)
from kadmin.model import DOWN_ERROR

Opener = Callable[[Mapping[str, Any]], Any]
# One DescribeLogDirs task: (inventory entry, broker id, its rack, topics to describe or None = all).
BrokerJob = tuple[Mapping[str, Any], int, "str | None", "list[str] | None"]

# KADMIN_* variables that pick a target; an inventory entry names its own target, so these
# must not override it.
_TARGET_ENV = (
    "KADMIN_BOOTSTRAP_SERVER",
    "KADMIN_ZOOKEEPER",
    "KADMIN_CLUSTER",
    "KADMIN_COMMAND_CONFIG",
    "KADMIN_TIMEOUT",
)


def settings_for(entry: Mapping[str, Any]):
    """Connection settings of one inventory entry (its own target, or its profile). Its messages
    name the flags (no source of their own): ``in_inventory_terms`` puts them as the entry's keys,
    or its profile's."""
    from dataclasses import replace

    from kadmin.config import resolve_connection

    env = {k: v for k, v in os.environ.items() if k not in _TARGET_ENV}
    settings = resolve_connection(
        bootstrap_server=entry.get("bootstrap_server"),
        zookeeper=entry.get("zookeeper"),
        command_config=entry.get("command_config"),
        cluster=entry.get("profile"),
        timeout=entry.get("timeout"),
        env=env,
        config_path=entry.get("config"),
    )
    return replace(settings, target_from="", properties_from=())


def open_entry(entry: Mapping[str, Any]):
    from kadmin.backends import open_backend

    return open_backend(settings_for(entry), read_only=True)


# The connection flags a single-cluster command's errors name, and the inventory key that sets
# the same thing in fleet mode (which refuses the flags): ``in_inventory_terms``.
_FLAG_KEYS = {
    "bootstrap-server": "bootstrap_server",
    "zookeeper": "zookeeper",
    "command-config": "command_config",
    "timeout": "timeout",
    "cluster": "profile",
}
_FLAG = re.compile(r"(the )?--(" + "|".join(_FLAG_KEYS) + r")\b(?!-)( host:port)?")


def in_inventory_terms(text: str, entry: Mapping[str, Any]) -> str:
    """``text`` (an error or its hint) with each connection flag it names put as the key of the
    inventory entry that sets it instead: in fleet mode the flags are refused, and the entry is
    what to check. The first key named says whose it is: the entry's, or (connection settings
    an entry takes from its profile) the profile's: "check --bootstrap-server, the network ..."
    becomes "check bootstrap_server of inventory entry 'east', the network ..."."""
    named = False

    def key(m: re.Match) -> str:
        nonlocal named
        the, flag, host_port = m.group(1) or "", _FLAG_KEYS[m.group(2)], m.group(3) or ""
        if named:
            return f"{the}{flag}{host_port}"
        named = True
        whose = f"inventory entry {entry.get('name')!r}"
        if "profile" in entry and flag not in entry and flag != "profile":
            whose = f"profile {entry['profile']!r} (inventory entry {entry.get('name')!r})"
        return f"{the}{flag}{host_port} of {whose}"

    return _FLAG.sub(key, text)


def _describe(exc: BaseException, entry: Mapping[str, Any]) -> str:
    """Why a cluster could not be read, in one line: kadmin's own errors with their hint (what to
    set or check), as the single-cluster command prints them but in the inventory's terms
    (``in_inventory_terms``); others with their type."""
    text = str(exc) or type(exc).__name__
    if not type(exc).__module__.startswith("kadmin"):
        return f"{type(exc).__name__}: {text}"
    hint = getattr(exc, "hint", None)
    return in_inventory_terms(f"{text} ({hint})" if hint else text, entry)


def cluster_task(
    entry: Mapping[str, Any], kind: str, opener: Opener | None = None
) -> tuple[list[tuple[int, str | None]], Rows]:
    """Read what is per cluster: the broker list, and for reassign/throttle reports the
    ongoing reassignments and throttle configs. Returns ((broker id, rack) pairs, rows).

    For the log-dirs reports, a broker that is down (a replica set names it, but it is not
    among the live brokers) cannot be asked: it gets an error row, as a broker that does not
    answer does, so the report says it lacks it (as ``log-dirs describe`` does). For the
    reassignment report, so does a down broker holding a replica (adding, kept or being removed)
    of a partition being reassigned. For the throttle report, so does a down broker whose
    throttles could not be read, or a running one that did not answer for them (slow) (its
    ``unreadable_brokers``, as ``throttle show`` warns of them)."""
    name = entry["name"]
    try:
        backend = (opener or open_entry)(entry)
    except Exception as e:  # any failure to connect is this cluster's result
        return [], error_rows(name, None, "live", f"cannot connect: {_describe(e, entry)}")
    try:
        # replica_brokers first: over the AdminClient its Metadata answer serves describe_brokers too
        named = backend.replica_brokers() if kind == LOG_DIRS_KIND else set()
        brokers = backend.describe_brokers()
        parts = [empty_rows()]
        racks = {b: brokers[b].rack for b in brokers}
        if kind == "reassign":
            listed = backend.list_partition_reassignments()
            waiting = _waiting(backend, listed)
            ongoing = [r for tp, r in listed.items() if tp not in waiting]
            parts.append(reassignment_rows(name, ongoing, waiting.values()))
            # every broker of a partition being moved, adding, kept or removed: a down one is
            # named as the log-dirs reports name it, and its partitions' status says which side
            named = {b for r in ongoing for b in (*r.replicas, *r.adding, *r.removing)}
        parts.extend(error_rows(name, b, "live", DOWN_ERROR) for b in sorted(named - set(brokers)))
        if kind == "throttle":
            parts.append(throttle_document_rows(name, "live", throttle_show(backend)))
            return [], merge_rows(parts)  # throttle show reads the log dirs itself
        return [(b, racks[b]) for b in sorted(brokers)], merge_rows(parts)
    except Exception as e:
        return [], error_rows(name, None, "live", _describe(e, entry))
    finally:
        _close(backend)


def _waiting(backend, listed: Mapping) -> dict:
    """Of the reassignments ``listed``, the requests of a stuck /admin/reassign_partitions that
    no broker carries out, as ``reassign list`` finds them: partition -> (reassignment, its
    replicas now). Empty unless the node is stuck (ZooKeeper mode)."""
    from kadmin.backends.base import reassignment_blocked, requests_not_taken

    blocked = reassignment_blocked(backend)
    if blocked is None or not blocked.stuck or not listed:
        return {}
    cluster = backend.describe_cluster()  # only a stuck node's requests need the partitions' state
    return {tp: (r, cluster.partitions[tp].replicas) for tp, r in requests_not_taken(blocked, listed, cluster).items()}


def throttle_show(backend) -> dict:
    """What ``throttle show --output json`` says of this cluster (the parts the reports read):
    the same library calls, so stale means the same thing in both."""
    from kadmin.throttling.needs import throttle_items
    from kadmin.throttling.state import read_throttle_state
    from kadmin.throttling.stores import open_record_store

    # partial: a broker that does not answer for its configs (slow) is named, the rest is read
    state = read_throttle_state(backend, open_record_store(backend), partial=True)
    items = throttle_items(state.current, state.needs, state.records.values())
    return {
        "throttles": [
            {
                "kind": i.kind,
                "resource": i.resource,
                "config": i.config,
                "value": i.value,
                "plan_ids": list(i.plan_ids),
                "stale": i.stale,
            }
            for i in items
        ],
        "reassigning_partitions": len(state.moves),  # a stuck node's requests are no move
        "log_dir_moving_brokers": sorted(state.needs.log_dir_brokers),
        "log_dir_moves_known": state.log_dirs_known,
        "unreadable_brokers": sorted(state.unreadable_brokers),  # down, or silent
        "silent_brokers": {str(b): why for b, why in sorted(state.silent_brokers.items())},
    }


def broker_task(
    entry: Mapping[str, Any],
    broker: int,
    rack: str | None,
    topics: list[str] | None,
    opener: Opener | None = None,
) -> Rows:
    """DescribeLogDirs of one broker (``topics`` narrows it; None = all)."""
    name = entry["name"]
    try:
        backend = (opener or open_entry)(entry)
    except Exception as e:
        return error_rows(name, broker, "live", f"cannot connect: {_describe(e, entry)}")
    try:
        answer = backend.describe_log_dirs(brokers=[broker], topics=topics)
        result = answer.get(broker)
        if result is None:
            return error_rows(name, broker, "live", "broker did not answer DescribeLogDirs")
        rows = broker_log_dirs_rows(name, result, rack)
        rows["clusters"].append((name, LOG_DIRS_KIND, "live"))
        return rows
    except Exception as e:
        return error_rows(name, broker, "live", _describe(e, entry))
    finally:
        _close(backend)


def run_broker_job(job: BrokerJob, opener: Opener | None = None) -> Rows:
    """``broker_task`` of one job tuple, as both engines queue them."""
    entry, broker, rack, topics = job
    return broker_task(entry, broker, rack, topics, opener=opener)


def topics_to_describe(kind: str, rows: Rows, cluster: str) -> list[str] | None:
    """For reassign reports only the topics being moved need their sizes; None = all topics."""
    if kind == "reassign":
        return sorted({r[1] for r in rows["reassignments"] if r[0] == cluster})
    return None


def broker_jobs(
    entry: Mapping[str, Any], kind: str, brokers: list[tuple[int, str | None]], rows: Rows
) -> list[BrokerJob]:
    """The DescribeLogDirs tasks of one cluster, from what ``cluster_task`` read (its brokers
    and rows): one per broker; for the reassign reports, one per broker holding a replica
    (added, kept or removed) of a partition being moved, of those topics only, and none when
    nothing moves: the reports read no other broker's sizes (``local.reassign_unreachable``),
    so a slow broker no reassignment touches is not waited for."""
    name = entry["name"]
    topics = topics_to_describe(kind, rows, name)
    if kind == "reassign":
        moving = {b for r in rows["reassignments"] if r[0] == name for b in (*r[3], *r[4], *r[5])}
        brokers = [(b, rack) for b, rack in brokers if b in moving]
    return [(entry, broker, rack, topics) for broker, rack in brokers]


def _close(backend) -> None:
    close = getattr(backend, "close", None)
    if close is not None:
        # closing a broken connection must not hide the result
        with contextlib.suppress(Exception):
            close()


def collect_local(
    entries: Sequence[Mapping[str, Any]], kind: str, opener: Opener | None = None, workers: int = 8
) -> Rows:
    """The same tasks on a thread pool: the engine without ``--spark``."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers) as pool:
        firsts = list(pool.map(lambda e: cluster_task(e, kind, opener), entries))
        jobs = [
            job for entry, (brokers, rows) in zip(entries, firsts) for job in broker_jobs(entry, kind, brokers, rows)
        ]
        seconds = list(pool.map(lambda j: run_broker_job(j, opener), jobs))
    return merge_rows([rows for _, rows in firsts] + seconds)
