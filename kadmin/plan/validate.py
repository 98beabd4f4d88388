"""Every rule a reassignment plan must pass before kadmin changes anything.

Pure: the parsed plan, the cluster as described, and the brokers' log directories in; every
problem out, each saying where it is in the file. Nothing is checked lazily later: a plan with
a mistake in its last entry must fail before its first entry touches the cluster.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kadmin.backends.base import BrokerLogDirs, ReassignmentBlocked
from kadmin.errors import InputError, ReassignmentInProgress
from kadmin.model import (
    ANY_LOG_DIR,
    ClusterState,
    LogDirStatus,
    PartitionReassignment,
    ReassignmentPlan,
    TopicPartition,
)
from kadmin.plan.gc_pause import gc_paused
from kadmin.plan.reassignment_file import ParsedPlan, PlanProblems, Problem, plan_problems

__all__ = ["PlanProblems", "check_broker_rate_applies", "check_reassignment", "file_problems", "validate_reassignment"]


def is_log_dir_spec(value: str) -> bool:
    """ "any" or an absolute path, as Kafka's tool accepts."""
    return value == ANY_LOG_DIR or value.startswith("/")


class _LogDirIndex:
    """Per broker: its directories by path, built once from DescribeLogDirs. Not ``placing``:
    only whether a path is a directory of its broker (as described), not whether a replica can
    be placed there now."""

    def __init__(self, log_dirs: Mapping[int, BrokerLogDirs] | None, placing: bool = True):
        self.placing = placing
        self.by_broker = {}
        self.errors = {}
        for broker, bld in (log_dirs or {}).items():
            if bld.error is not None:
                self.errors[broker] = bld.error
            self.by_broker[broker] = {d.path: d for d in bld.log_dirs}
        self.known = log_dirs is not None
        self._cache: dict[tuple[int, str], str | None] = {}
        self.offline = {
            b: sorted(p for p, d in dirs.items() if d.status is LogDirStatus.OFFLINE)
            for b, dirs in self.by_broker.items()
        }
        self.offline = {b: paths for b, paths in self.offline.items() if paths}

    def no_future_replica(self, broker: int, path: str, tp: TopicPartition) -> str | None:
        """Why a move of ``tp``'s replica on ``broker`` into ``path`` would fail though the
        directory is fine: Kafka creates no future replica on a broker while any of its
        directories is offline (LogManager.getOrCreateLog). A replica already in ``path`` needs
        none; a new replica (a broker joining the partition) is created there directly."""
        offline = self.offline.get(broker)
        if not offline:
            return None
        d = self.by_broker[broker][path]
        if any(r.topic == tp.topic and r.partition == tp.partition and not r.is_future for r in d.replicas):
            return None
        return (
            f"broker {broker} has an offline log directory ({', '.join(offline)}): Kafka creates no future "
            "replica there until it is back (KAFKA_STORAGE_ERROR)"
        )

    def problem(self, broker: int, path: str) -> str | None:
        key = (broker, path)
        try:
            return self._cache[key]
        except KeyError:
            why = self._cache[key] = self._problem(broker, path)
            return why

    def _problem(self, broker: int, path: str) -> str | None:
        if not self.placing and (not self.known or broker in self.errors or broker not in self.by_broker):
            return None  # not described: only a placement needs them checked
        if not self.known:
            return "cannot be checked: this connection cannot describe log directories (use --bootstrap-server)"
        if broker in self.errors:
            return unanswered_problem(broker, self.errors[broker])
        dirs = self.by_broker.get(broker)
        if dirs is None:
            return f"cannot be checked: no log directories were described for broker {broker}"
        d = dirs.get(path)
        if d is None:
            listing = ", ".join(sorted(dirs)) or "none"
            return f"{path} is not a log directory of broker {broker} (its directories: {listing})"
        if not self.placing:
            return None  # its state now (offline, cordoned) is the move's concern
        if d.status is LogDirStatus.OFFLINE:
            return f"{path} on broker {broker} is offline ({d.error})"
        if d.status is LogDirStatus.CORDONED:
            return f"{path} on broker {broker} is cordoned: no new replicas may be placed there"
        return None


def validate_reassignment(
    parsed: ParsedPlan,
    cluster: ClusterState,
    log_dirs: Mapping[int, BrokerLogDirs] | None,
    *,
    allow_replication_factor_change: bool = False,
    ongoing: Mapping[TopicPartition, PartitionReassignment] | None = None,
    placing: bool = True,
) -> list[Problem]:
    """All problems of the plan against this cluster, in file order (file-level ones first).

    ``ongoing`` (ListPartitionReassignments) gives the target of partitions already moving, for
    the replication-factor rule: Metadata lists their full replica set, adding and removing alike.
    Not ``placing`` (``throttle set --from-plan``: its throttles, not its moves): the plan must
    name what exists (topics, partitions, brokers, directories of their broker as described),
    whatever state those are in now; a new replica on a broker that is down, a directory offline
    or cordoned, one that cannot be described, or a broker that can create no future replica is
    the move's problem, not its throttles' (a plan already running stays throttleable meanwhile).
    """
    return _problems(parsed, cluster, log_dirs, allow_replication_factor_change, ongoing, placing)


def file_problems(parsed: ParsedPlan) -> list[Problem]:
    """The problems the plan has of its own, found without a cluster: its shape, an empty plan,
    duplicates, an empty replica list or a broker twice in one, ``log_dirs`` of the wrong length,
    a directory neither "any" nor absolute. The same problems, in the same order and words, as
    ``validate_reassignment`` reports for them, so every command reading a plan refuses a bad
    file alike (``kadmin.plan.reassignment_file.read_reassignment``)."""
    with gc_paused():
        return _problems(parsed, None, None, True, None)


def _problems(
    parsed: ParsedPlan,
    cluster: ClusterState | None,
    log_dirs: Mapping[int, BrokerLogDirs] | None,
    allow_replication_factor_change: bool,
    ongoing: Mapping[TopicPartition, PartitionReassignment] | None,
    placing: bool = True,
) -> list[Problem]:
    """``validate_reassignment``'s one pass; without ``cluster``, only the rules that need none."""
    known = cluster is not None
    if cluster is None:
        cluster = ClusterState(None, None, {}, {})
    ongoing = ongoing or {}
    problems: list[Problem] = list(parsed.problems)
    if parsed.entry_count == 0 and not any(p.field == "partitions" for p in problems):
        problems.append(Problem("is empty: there is nothing to reassign", field="partitions"))

    live = cluster.brokers
    live_ids = frozenset(live)
    partitions = cluster.partitions
    topics: set[str] | None = None  # built only if a partition is unknown
    dir_index = _LogDirIndex(log_dirs, placing)
    dir_problem = dir_index.problem
    seen: dict[TopicPartition, int] = {}
    hosting: set[int] | None = None  # brokers named in any replica list, built only if needed
    counts: dict[str, int] | None = None  # partitions per topic, built only if needed
    check_rf = not allow_replication_factor_change

    # One pass; the common (sound) entry takes the fewest steps. ``found`` collects
    # (message, field) pairs of one entry.
    for index, a in parsed.entries:
        tp = a.tp
        found: list[tuple[str, str | None]] = []
        first = seen.setdefault(tp, index)
        if first != index:
            found.append((f"duplicate partition: {tp} already appears at partitions[{first}]", None))
        replicas = a.replicas
        n = len(replicas)
        distinct = n > 0 and len(set(replicas)) == n
        if n == 0:
            found.append(("is empty: a partition needs at least one replica", "replicas"))
        elif not distinct:
            twice = sorted({b for b in replicas if replicas.count(b) > 1})
            found.append((f"broker {', '.join(map(str, twice))} appears more than once", "replicas"))

        current = partitions.get(tp)
        if current is None and known:
            if topics is None:
                topics = {t.topic for t in partitions}
            if a.topic not in topics:
                found.append((f"unknown topic {a.topic!r}", "topic"))
            else:
                if counts is None:
                    counts = {}
                    for t in partitions:
                        counts[t.topic] = counts.get(t.topic, 0) + 1
                found.append(
                    (f"unknown partition: topic {a.topic!r} has partitions 0..{counts[a.topic] - 1}", "partition")
                )
        if known and not live_ids.issuperset(replicas):
            for i, b in enumerate(replicas):
                if b in live_ids or (current is not None and b in current.replicas):
                    continue  # a replica already there on a broker that is down: Kafka accepts that
                if hosting is None:
                    hosting = {r for p in partitions.values() for r in p.replicas}
                if b in hosting:
                    if not placing:
                        continue  # a broker of the cluster, down now: its throttles wait for it
                    found.append(
                        (
                            f"broker {b} is not running (not in the cluster's broker list); "
                            "a new replica cannot be placed there",
                            f"replicas[{i}]",
                        )
                    )
                else:
                    running_ids = ", ".join(map(str, sorted(live_ids))) or "none"
                    found.append(
                        (f"unknown broker {b}: not among the running brokers ({running_ids})", f"replicas[{i}]")
                    )

        if check_rf and distinct and current is not None:
            running = ongoing.get(tp) if ongoing else None
            full, adding, removing = (
                (running.replicas, running.adding, running.removing)
                if running is not None
                else (current.replicas, current.adding, current.removing)
            )
            rf = _replication_factors(full, adding, removing)
            if n not in rf:
                was = str(rf[0]) if rf[0] == rf[1] else f"{rf[0]} ({rf[1]} once its running reassignment ends)"
                found.append(
                    (
                        f"changes the replication factor from {was} to {n} "
                        "(pass --allow-replication-factor-change if this is meant)",
                        "replicas",
                    )
                )

        wanted_dirs = a.log_dirs
        if wanted_dirs is not None:
            if len(wanted_dirs) != n:
                found.append((f"has {len(wanted_dirs)} entries but replicas has {n}: give one per replica", "log_dirs"))
            for i, spec in enumerate(wanted_dirs):
                if spec == ANY_LOG_DIR:
                    continue
                if not is_log_dir_spec(spec):
                    found.append((f'{spec!r} is neither "any" nor an absolute path', f"log_dirs[{i}]"))
                elif i < n and replicas[i] in live_ids:
                    why = dir_problem(replicas[i], spec)
                    moves_within = current is not None and replicas[i] in current.replicas
                    if placing and not why and moves_within:
                        why = dir_index.no_future_replica(replicas[i], spec, tp)
                    if why:
                        found.append((why, f"log_dirs[{i}]"))
                elif placing and i < n and current is not None and replicas[i] in current.replicas:
                    # (a new replica on a broker that is down is reported under replicas above)
                    found.append((f"cannot be checked or moved: broker {replicas[i]} is not running", f"log_dirs[{i}]"))
        if found:
            problems.extend(Problem(message, index, tp, field) for message, field in found)
    return problems


def _replication_factors(full: Sequence[int], adding: Sequence[int], removing: Sequence[int]) -> tuple[int, int]:
    """A partition's replication factor as Kafka counts it: (before, after) its running
    reassignment, both the same when none runs. Metadata's replica list of a partition being
    reassigned is the full set RS, the target and the original together (KIP-435: RS = TRS ++
    ORS); the original ORS is RS minus adding (what Kafka's controller reassigns from when a new
    target replaces the running one), the target TRS is RS minus removing (the replication factor
    ``kafka-topics.sh --describe`` shows meanwhile). A plan of either size keeps the factor; the
    full set's, larger while both sides are there, is no replication factor of the partition."""
    return (sum(1 for b in full if b not in adding), sum(1 for b in full if b not in removing))


def unanswered_problem(broker: int, error: str) -> str:
    """The problem of a log_dirs target on a broker that did not describe its directories."""
    return f"cannot be checked: broker {broker} did not describe its log directories ({error})"


def check_reassignment(
    parsed: ParsedPlan,
    cluster: ClusterState,
    log_dirs: Mapping[int, BrokerLogDirs] | None,
    *,
    allow_replication_factor_change: bool = False,
    ongoing: Mapping[TopicPartition, PartitionReassignment] | None = None,
    placing: bool = True,
) -> None:
    """Raise PlanProblems (exit 2) listing every problem, or return when the plan is sound
    (``placing``: as ``validate_reassignment``)."""
    with gc_paused():
        problems = validate_reassignment(
            parsed,
            cluster,
            log_dirs,
            allow_replication_factor_change=allow_replication_factor_change,
            ongoing=ongoing,
            placing=placing,
        )
    if not problems:
        return
    unanswered = {b: bld.error for b, bld in (log_dirs or {}).items() if bld.error is not None}
    said = {unanswered_problem(b, error) for b, error in unanswered.items()}
    if all(p.message in said for p in problems):
        # Nothing wrong with the plan: a broker did not answer, which running again may mend.
        from kadmin.errors import ConnectionFailed
        from kadmin.units import plural

        who = ", ".join(f"{b} ({error})" for b, error in sorted(unanswered.items()))
        raise ConnectionFailed(
            f"the plan's log directories cannot be checked: {plural('broker', len(unanswered))} {who} did not "
            f"describe {'its' if len(unanswered) == 1 else 'their'} log directories; nothing was changed",
            hint="check the broker and run it again",
        )
    raise plan_problems(problems, source=parsed.source)


def check_not_blocked(
    plan: ReassignmentPlan,
    cluster: ClusterState,
    ongoing: Mapping[TopicPartition, PartitionReassignment],
    blocked: ReassignmentBlocked | None,
) -> None:
    """Raise ReassignmentInProgress (exit 2, nothing changed) when the backend can start no
    reassignment now (``kadmin.backends.base.reassignment_blocked``: ZooKeeper while
    /admin/reassign_partitions exists, --additional or not) and the plan has a partition to
    send: one neither at its target nor already heading there. A plan of log-dir moves only, or a
    repeated run of the plan being carried out (to change its throttle), sends none."""
    if blocked is None:
        return
    sending = []
    for a in plan.partitions:
        state = cluster.partitions.get(a.tp)
        if state is None:
            continue  # reported by check_reassignment
        running = ongoing.get(a.tp)
        if tuple(a.replicas) != (running.target if running is not None else tuple(state.replicas)):
            sending.append(a.tp)
    if sending:
        shown = ", ".join(str(tp) for tp in sorted(sending)[:5]) + (", ..." if len(sending) > 5 else "")
        raise ReassignmentInProgress(
            f"{blocked.reason}; this plan would start moving {shown}; nothing was changed", hint=blocked.hint
        )


def broker_rate_problem(
    plan: ReassignmentPlan,
    cluster: ClusterState,
    ongoing: Mapping[TopicPartition, PartitionReassignment],
    flag: str,
) -> str | None:
    """Why a replication rate (``flag``) has nothing to throttle in ``plan``, or None: the rate
    goes on the brokers data is copied from and to (Kafka's calculateReassigningBrokers), and a
    plan moving no replica between brokers has none. Moves between the directories of one broker
    have a rate of their own."""
    from kadmin.throttling.needs import brokers_needing_rates

    if brokers_needing_rates(plan, cluster, ongoing):
        return None
    return f"{flag}: the plan moves no replica between brokers, so {flag} has nothing to throttle"


def check_broker_rate_applies(
    plan: ReassignmentPlan,
    cluster: ClusterState,
    ongoing: Mapping[TopicPartition, PartitionReassignment],
    flag: str,
) -> None:
    """InputError (exit 2, nothing changed) for ``broker_rate_problem``: ``throttle set`` sets
    nothing but rates, so a rate that would be silently dropped is refused."""
    problem = broker_rate_problem(plan, cluster, ongoing, flag)
    if problem is not None:
        raise InputError(
            f"{problem}; nothing was changed",
            hint="--log-dir-rate throttles moves between a broker's log directories; --brokers sets the rate on "
            "the brokers you name",
        )


def log_dir_rate_problem(
    plan: ReassignmentPlan, log_dirs: Mapping[int, BrokerLogDirs] | None, cluster: ClusterState | None, flag: str
) -> str | None:
    """Why the log-dir rate (``flag``) has nothing to throttle in ``plan``, or None: it goes on
    the brokers of moves between log directories (a ``log_dirs`` target not in place yet, as
    ``log_dirs``, DescribeLogDirs, shows; None: every target counts), and there are none."""
    from kadmin.throttling.needs import log_dir_move_brokers

    if log_dir_move_brokers(plan, log_dirs, cluster):
        return None
    return (
        f"{flag}: the plan moves no replica between log directories (no log_dirs target that is not already in "
        f"place), so {flag} has nothing to throttle"
    )


def check_log_dir_rate_applies(
    plan: ReassignmentPlan,
    log_dirs: Mapping[int, BrokerLogDirs] | None,
    cluster: ClusterState | None,
    flag: str = "--log-dir-rate",
) -> None:
    """InputError (exit 2, nothing changed) for ``log_dir_rate_problem``, as
    ``check_broker_rate_applies``."""
    problem = log_dir_rate_problem(plan, log_dirs, cluster, flag)
    if problem is not None:
        raise InputError(
            f"{problem}; nothing was changed",
            hint="--rate throttles moves between brokers; --brokers sets the rate on the brokers you name",
        )
