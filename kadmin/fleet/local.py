"""The fleet reports in plain Python: the reference the Spark engine must match, and the engine
used without ``--spark``.

Arithmetic rules both engines follow (docs/fleet.md):
- a directory's used fraction is (total - usable) / total, for a directory that is not offline
  and reports total_bytes > 0 and usable_bytes; otherwise null;
- a broker's (a cluster's) used fraction is the sum of (total - usable) over those directories
  divided by the sum of their totals, computed from integer sums so both engines agree exactly;
- skew is max - min: of the directory fractions within a broker (``dir_skew``), of the broker
  fractions within a cluster (``broker_skew``);
- a broker's (a cluster's) used bytes, replicas and future replicas are the sums over its
  directories whose contents are known; ``unknown_dirs`` counts the others (a directory with an
  error: offline), and a sum over none is null. Spark's ``sum`` skips nulls and is null over
  nulls alone: ``_known_sum`` does the same;
- a broker a log-dirs result names as not read (down, or no answer to DescribeLogDirs: a row of
  ``errors`` with its id) is in none of its cluster's sums, and how many directories it has is
  not known: ``unknown_brokers`` counts such brokers (``unanswered``), so the cluster's sums are
  whole only when both ``unknown_dirs`` and ``unknown_brokers`` are 0.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from kadmin.fleet import tables as t
from kadmin.fleet.report import Report
from kadmin.fleet.rows import LOG_DIRS_KIND, REASSIGN_KIND, THROTTLE_KIND, Rows

DEFAULT_TOP = 10


def measurable(status: str, total: int | None, usable: int | None) -> bool:
    return status != "offline" and total is not None and total > 0 and usable is not None


def dir_fraction(status: str, total: int | None, usable: int | None) -> float | None:
    if total is None or usable is None or not measurable(status, total, usable):
        return None
    return (total - usable) / total


def _skew(values: Iterable[float | None]) -> tuple[float | None, float | None, float | None]:
    present = [v for v in values if v is not None]
    if not present:
        return None, None, None
    lo, hi = min(present), max(present)
    return lo, hi, hi - lo


def _known_sum(values: Iterable[int | None]) -> int | None:
    """The sum of the values that are known; None when none is (Spark's ``F.sum``)."""
    present = [v for v in values if v is not None]
    return sum(present) if present else None


# ---- log-dirs ----------------------------------------------------------------------------


def unanswered(errors: Iterable[tuple], clusters: Iterable[tuple]) -> set[tuple[str, int]]:
    """(cluster, broker) of each broker whose log directories a log-dirs result lacks: an error
    row naming the broker (down, or no answer to DescribeLogDirs) from a log-dirs result (its
    ``clusters`` row: the same cluster and source). Another command's result beside it (a
    ``throttle show`` naming a broker whose throttles it could not read) says nothing of log
    directories."""
    results = {(c, source) for c, kind, source in clusters if kind == LOG_DIRS_KIND}
    return {(c, b) for c, b, source, _error in errors if b is not None and (c, source) in results}


def dir_usage(log_dirs: list[tuple]) -> list[tuple]:
    out = []
    for cluster, broker, _rack, path, status, _err, used, total, usable, count, futures in log_dirs:
        out.append(
            (cluster, broker, path, status, used, total, usable, dir_fraction(status, total, usable), count, futures)
        )
    return out


def broker_usage(log_dirs: list[tuple], unread: Iterable[tuple[str, int]] = ()) -> list[tuple]:
    """``unread``: ``unanswered``; a broker in it with some directories read (another file of its
    cluster holds them) has ``unknown_brokers`` 1."""
    unread = set(unread)
    groups: dict[tuple, list[tuple]] = defaultdict(list)
    for row in log_dirs:
        groups[(row[0], row[1])].append(row)
    out = []
    for (cluster, broker), dirs in groups.items():
        m = [d for d in dirs if measurable(d[4], d[7], d[8])]
        total = sum(d[7] for d in m)
        taken = sum(d[7] - d[8] for d in m)
        lo, hi, skew = _skew(dir_fraction(d[4], d[7], d[8]) for d in dirs)
        out.append(
            (
                cluster,
                broker,
                len(dirs),
                sum(d[4] == "offline" for d in dirs),
                sum(d[4] == "cordoned" for d in dirs),
                _known_sum(d[6] for d in dirs),
                total if m else None,
                taken / total if m else None,
                lo,
                hi,
                skew,
                _known_sum(d[9] for d in dirs),
                _known_sum(d[10] for d in dirs),
                sum(d[6] is None for d in dirs),
                int((cluster, broker) in unread),
            )
        )
    return out


def cluster_usage(log_dirs: list[tuple], brokers: list[tuple], unread: Iterable[tuple[str, int]] = ()) -> list[tuple]:
    """``brokers``: ``broker_usage``; ``unread``: ``unanswered``, counted per cluster."""
    unknown_brokers: dict[str, int] = defaultdict(int)
    for c, _broker in set(unread):
        unknown_brokers[c] += 1
    groups: dict[str, list[tuple]] = defaultdict(list)
    for row in log_dirs:
        groups[row[0]].append(row)
    by_cluster: dict[str, list[tuple]] = defaultdict(list)
    for row in brokers:
        by_cluster[row[0]].append(row)
    out = []
    for cluster, dirs in groups.items():
        b = by_cluster[cluster]
        m = [d for d in dirs if measurable(d[4], d[7], d[8])]
        total = sum(d[7] for d in m)
        taken = sum(d[7] - d[8] for d in m)
        lo, hi, skew = _skew(r[7] for r in b)
        dir_skews = [r[10] for r in b if r[10] is not None]
        out.append(
            (
                cluster,
                len(b),
                len(dirs),
                sum(d[4] == "offline" for d in dirs),
                sum(d[4] == "cordoned" for d in dirs),
                _known_sum(d[6] for d in dirs),
                total if m else None,
                taken / total if m else None,
                lo,
                hi,
                skew,
                max(dir_skews) if dir_skews else None,
                _known_sum(d[9] for d in dirs),
                _known_sum(d[10] for d in dirs),
                sum(d[6] is None for d in dirs),
                unknown_brokers[cluster],
            )
        )
    return out


def largest_partitions(replicas: list[tuple], top: int) -> list[tuple]:
    groups: dict[str, list[tuple]] = defaultdict(list)
    for r in replicas:
        groups[r[0]].append(r)
    out = []
    for reps in groups.values():
        # size desc, then topic, partition, broker, path, is_future: the Spark window's order
        reps.sort(key=lambda r: (-r[5], r[3], r[4], r[1], r[2], r[7]))
        for rank, (c, broker, path, topic, partition, size, _lag, fut) in enumerate(reps[:top], 1):
            out.append((c, rank, topic, partition, broker, path, size, fut))
    return out


def moves_in_flight(replicas: list[tuple]) -> list[tuple]:
    current: dict[tuple, list[tuple]] = defaultdict(list)
    for r in replicas:
        if not r[7]:
            current[(r[0], r[1], r[3], r[4])].append(r)
    out = []
    for r in replicas:
        if r[7]:
            found = current.get((r[0], r[1], r[3], r[4]))
            sources: list[tuple | None] = list(found) if found else [None]
            for s in sources:
                out.append((r[0], r[1], r[3], r[4], s[2] if s else None, r[2], s[5] if s else None, r[5], r[6]))
    return out


def unavailable_dirs(log_dirs: list[tuple]) -> list[tuple]:
    return [(d[0], d[1], d[3], d[4], d[5]) for d in log_dirs if d[4] in ("offline", "cordoned")]


def unreachable(errors: list[tuple]) -> list[tuple]:
    return list(errors)


def log_dirs_reports(rows: Rows, top: int = DEFAULT_TOP) -> list[Report]:
    unread = unanswered(rows["errors"], rows["clusters"])
    brokers = broker_usage(rows["log_dirs"], unread)
    return [
        Report.of(t.CLUSTER_USAGE, cluster_usage(rows["log_dirs"], brokers, unread)),
        Report.of(t.BROKER_USAGE, brokers),
        Report.of(t.DIR_USAGE, dir_usage(rows["log_dirs"])),
        Report.of(t.LARGEST_PARTITIONS, largest_partitions(rows["replicas"], top)),
        Report.of(t.MOVES_IN_FLIGHT, moves_in_flight(rows["replicas"])),
        Report.of(t.UNAVAILABLE_DIRS, unavailable_dirs(rows["log_dirs"])),
        Report.of(t.UNREACHABLE, unreachable(rows["errors"])),
    ]


# ---- reassign and throttle: per cluster, shared with the Spark engine ----------------------


def cluster_facts(rows: Rows) -> dict[str, dict]:
    """What each cluster's small tables say, grouped: the input of the per-cluster functions.

    ``sizes`` holds only current replicas of partitions being reassigned (the Spark engine
    narrows the replica table to those with a join before grouping).
    """
    facts: dict[str, dict] = defaultdict(new_facts)
    for cluster, kind, _src in rows["clusters"]:
        facts[cluster]["kinds"].add(kind)
    for d in rows["log_dirs"]:
        facts[d[0]]["log_dir_brokers"].add(d[1])
    for e in rows["errors"]:
        facts[e[0]]["unreachable"].add(e[1])
    for r in rows["reassignments"]:
        facts[r[0]]["reassignments"].append(r)
    for th in rows["throttles"]:
        facts[th[0]]["throttles"].append(th)
    moving = {(r[0], r[1], r[2]) for r in rows["reassignments"]}
    for r in rows["replicas"]:
        if r[7]:
            facts[r[0]]["future_brokers"].add(r[1])
        elif (r[0], r[3], r[4]) in moving:
            facts[r[0]]["sizes"][(r[3], r[4], r[1])] = r[5]
    return facts


def new_facts() -> dict:
    return {
        "kinds": set(),
        "log_dir_brokers": set(),
        "unreachable": set(),
        "reassignments": [],
        "throttles": [],
        "future_brokers": set(),
        "sizes": {},
    }


def _replica_size(f: dict, topic: str, partition: int, broker: int) -> int | None:
    """Bytes of one replica; 0 when its broker's log dirs were read without it; None = unknown."""
    if (topic, partition, broker) in f["sizes"]:
        return f["sizes"][(topic, partition, broker)]
    return 0 if broker in f["log_dir_brokers"] else None


# ``progressed`` of the statuses that are not progress: False (it waits), None (cannot tell).
NOT_PROGRESSED: dict[str, bool | None] = {
    "target broker unreachable": False,
    "source broker unreachable": None,
    "not started": False,
    "unknown": None,
}


def reassignment_status(cluster: str, f: dict) -> list[tuple]:
    """Each ongoing reassignment with the bytes its adding replicas hold, and whether it moves.

    From one snapshot: "not started" when the adding replicas hold no bytes while the source
    does; "unknown" when no log-dir data covers the adding brokers.

    A partition one of whose brokers could not be read (it did not answer, or is down: an
    ``unreachable`` row names it) says so, rather than a status from the replicas that were:
    "target broker unreachable" when the broker is one the reassignment ends on (adding, or
    kept: it completes only once every one of them is in the ISR, so it waits for that broker),
    "source broker unreachable" when it is one being removed (the bytes it holds, maybe the only
    source's, are not in the snapshot).
    """
    out = []
    unread = f["unreachable"]
    for _c, topic, partition, replicas, adding, removing in f["reassignments"]:
        sources = [_replica_size(f, topic, partition, b) for b in replicas if b not in adding]
        known_sources = [s for s in sources if s is not None]
        source_size = max(known_sources) if known_sources else None
        adds = [_replica_size(f, topic, partition, b) for b in adding]
        known_adds = [a for a in adds if a is not None]
        # unknown unless every adding replica's size is known
        adding_size = min(known_adds) if adds and len(known_adds) == len(adds) else None
        if any(b in unread for b in (*replicas, *adding) if b not in removing):
            status = "target broker unreachable"
        elif not adding:
            status = "finishing"
        elif any(b in unread for b in removing):
            status = "source broker unreachable"
        elif adding_size is None or (adding_size == 0 and source_size is None):
            status = "unknown"  # nothing added yet, and no source read: nothing says it has begun
        elif adding_size == 0 and (source_size or 0) > 0:
            status = "not started"
        elif source_size is not None and adding_size >= source_size:
            status = "caught up"
        else:
            status = "copying"
        progressed = NOT_PROGRESSED.get(status, True)
        out.append(
            (
                cluster,
                topic,
                partition,
                list(replicas),
                list(adding),
                list(removing),
                source_size,
                adding_size,
                status,
                progressed,
            )
        )
    return out


def read_clusters(clusters: Iterable[tuple], kind: str) -> set[str]:
    """The clusters whose ``kind`` result was read (rows of ``clusters``): each has a row in its
    summary, with 0s when nothing is listed, so "read, nothing there" differs from "not read"."""
    return {c[0] for c in clusters if c[1] == kind}


def reassignment_summary(
    status_rows: list[tuple], waiting_rows: Iterable[tuple] = (), read: Iterable[str] = ()
) -> list[tuple]:
    """Per cluster: its ongoing reassignments (``status_rows``) and the requests of a stuck
    /admin/reassign_partitions no broker carries out (``waiting_rows``), counted apart; a
    cluster ``read`` with neither has a row of 0s."""
    groups: dict[str, list[tuple]] = {c: [] for c in read}
    waiting: dict[str, int] = defaultdict(int)
    for r in status_rows:
        groups.setdefault(r[0], []).append(r)
    for w in waiting_rows:
        waiting[w[0]] += 1
    return [
        (
            c,
            len(rs),
            sum(r[9] is False for r in rs),
            sum(len(r[4]) for r in rs),
            sum(len(r[5]) for r in rs),
            waiting.get(c, 0),
        )
        for c, rs in ((c, groups.get(c, [])) for c in sorted(groups.keys() | waiting.keys()))
    ]


def throttle_state(cluster: str, f: dict) -> list[tuple]:
    """Each throttle and whether a move needs it.

    leftover: nothing moves in the cluster (no reassignment, no future replica), so no throttle
    is needed there; stale: something moves, but not what this throttle is for (or the source
    said so); needed: a move uses it; unknown: the cluster's reassignments were not read, or
    the log directories of the broker a log-dir rate paces (a down broker's moves resume when it
    restarts). A cluster with a broker (or file) that could not be read is never one where
    nothing moves: what that broker moves is not known.
    """
    knows_moves = "reassign" in f["kinds"]
    moving_topics = {r[1] for r in f["reassignments"]}
    moving_brokers = {b for r in f["reassignments"] for b in r[3]}
    unread = f["unreachable"]
    nothing_moves = knows_moves and not f["reassignments"] and not f["future_brokers"] and not unread
    seen_moving = bool(f["reassignments"] or f["future_brokers"])
    out = []
    for _c, resource, entity, config, value, plan, stale in f["throttles"]:
        if nothing_moves:
            state = "leftover"
        elif stale is not None:
            state = "stale" if stale else "needed"
        elif not knows_moves:
            state = "unknown"
        else:
            state = "stale"
            if resource == "topic":
                state = "needed" if entity in moving_topics else "stale"
            elif entity == "<default>":
                state = "needed" if seen_moving else "unknown"
            elif config == "replica.alter.log.dirs.io.max.bytes.per.second":
                broker = int(entity) if entity.isdigit() else None
                if broker in f["future_brokers"]:
                    state = "needed"
                else:
                    state = "unknown" if None in unread or broker in unread else "stale"
            else:
                state = "needed" if entity.isdigit() and int(entity) in moving_brokers else "stale"
        out.append((cluster, resource, entity, config, value, plan, state))
    return out


def throttle_summary(state_rows: list[tuple], read: Iterable[str] = ()) -> list[tuple]:
    """Per cluster: its throttles by state; a cluster ``read`` with none has a row of 0s."""
    groups: dict[str, list[tuple]] = {c: [] for c in read}
    for r in state_rows:
        groups.setdefault(r[0], []).append(r)
    out = []
    for c, rs in groups.items():
        states = [r[6] for r in rs]
        out.append(
            (
                c,
                len(rs),
                states.count("needed"),
                states.count("stale"),
                states.count("leftover"),
                states.count("unknown"),
            )
        )
    return out


def reassign_unreachable(errors: Iterable[tuple], clusters: Iterable[tuple], status: Iterable[tuple]) -> list[tuple]:
    """The ``errors`` rows the reassign reports count: a cluster or file that could not be read;
    a broker only when it holds a replica (added, kept or removed) of a partition being
    reassigned (``status``), or when its cluster's reassignments were not read (``clusters``
    has no ``reassign`` row of it: what moves there is not known). A broker no reassignment
    touches lacks nothing these reports show: live collection names only the down brokers of
    the partitions being moved, and a ``log-dirs describe`` result beside a ``reassign list``
    result names every broker that did not answer, moving or not (docs/fleet.md)."""
    known = {c[0] for c in clusters if c[1] == REASSIGN_KIND}
    moving = {(r[0], b) for r in status for b in (*r[3], *r[4], *r[5])}
    return [e for e in errors if e[1] is None or e[0] not in known or (e[0], e[1]) in moving]


def reassign_reports(rows: Rows) -> list[Report]:
    status = [r for c, f in cluster_facts(rows).items() for r in reassignment_status(c, f)]
    return finish_reassign_reports(status, rows["errors"], rows["waiting"], rows["clusters"])


def finish_reassign_reports(
    status: list[tuple], errors: list[tuple], waiting: Iterable[tuple] = (), clusters: Iterable[tuple] = ()
) -> list[Report]:
    """The reassign reports: ``waiting`` (rows of ``tables.WAITING``) are listed apart, not as
    ongoing reassignments; of the ``errors``, those ``reassign_unreachable`` keeps."""
    waiting_rows = [(w[0], w[1], w[2], list(w[3] or []), list(w[4] or [])) for w in waiting]
    return [
        Report.of(
            t.REASSIGNMENT_SUMMARY, reassignment_summary(status, waiting_rows, read_clusters(clusters, REASSIGN_KIND))
        ),
        Report.of(t.REASSIGNMENT_STATUS, status),
        Report.of(t.REASSIGNMENT_WAITING, waiting_rows),
        Report.of(t.UNREACHABLE, unreachable(reassign_unreachable(errors, clusters, status))),
    ]


def throttle_reports(rows: Rows) -> list[Report]:
    states = [r for c, f in cluster_facts(rows).items() for r in throttle_state(c, f)]
    return finish_throttle_reports(states, rows["errors"], rows["clusters"])


def finish_throttle_reports(states: list[tuple], errors: list[tuple], clusters: Iterable[tuple] = ()) -> list[Report]:
    return [
        Report.of(t.THROTTLE_SUMMARY, throttle_summary(states, read_clusters(clusters, THROTTLE_KIND))),
        Report.of(t.THROTTLE_STATE, states),
        Report.of(t.UNREACHABLE, unreachable(errors)),
    ]


def reports(kind: str, rows: Rows, top: int = DEFAULT_TOP) -> list[Report]:
    if kind == "log-dirs":
        return log_dirs_reports(rows, top)
    if kind == "reassign":
        return reassign_reports(rows)
    if kind == "throttle":
        return throttle_reports(rows)
    raise ValueError(f"unknown fleet report kind {kind!r}")
