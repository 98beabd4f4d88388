"""Throttles for a whole incremental reassignment, through kadmin's throttle maths and records.

An incremental run keeps its throttles in place from the first step to the last: the lists cover
every step at once (not Kafka's one-shot lists, where a destination is never a source), and they
are removed only after the last step, and only what this run recorded and no running move needs.
Its record's command is ``INCREMENTAL_COMMAND``: ``throttle show`` and ``throttle clear --stale``
count what its steps still to come need as needed, between batches too (``needs.run_needs``).
A command aimed at this very plan may still remove some meanwhile (``reassign verify`` of it,
``throttle clear --plan`` of it), as may ``throttle clear --all --force``, so before each batch
the run applies again what that batch needs: what is still set changes nothing, what is missing
is set and recorded again. ``run_incremental`` drives a ``ThrottleControl`` (the
protocol below); ``RecordedThrottles`` is kadmin's, through ``kadmin.throttling.operations``
(record first; remove only what nobody needs).
"""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from kadmin.backends.base import Backend, Capability
from kadmin.execute.state_file import IncrementalState
from kadmin.model import (
    FOLLOWER_RATE,
    LEADER_RATE,
    LOG_DIR_RATE,
    THROTTLE_CONFIGS,
    ClusterState,
    ConfigChange,
    ConfigResource,
    ConfigResourceType,
    ReassignmentPlan,
    TopicPartition,
)
from kadmin.plan.steps import Step, throttled_replicas
from kadmin.throttling.maths import ThrottleRates, recorded, throttle_changes
from kadmin.throttling.needs import FOLLOWER, LEADER, current_throttles, log_dir_rate_brokers, rate_targets
from kadmin.throttling.operations import apply_throttles, remove_plan_throttles
from kadmin.throttling.record import INCREMENTAL_COMMAND, now_iso, who
from kadmin.throttling.stores import MemoryRecordStore


class ThrottleControl(Protocol):
    """Sets throttles covering every step before the first batch, sets again what a batch needs
    before it is sent, removes them after the last. ``sets`` is False for a control that only
    removes (a resumed run whose earlier part set throttles, and whose state keeps no rate: a
    state written before rates were kept). ``rate`` and ``log_dir_rate``: what it sets (the
    state keeps them)."""

    rate: int | None
    log_dir_rate: int | None

    @property
    def sets(self) -> bool: ...

    @property
    def via(self) -> str:
        """The connection whose record store holds what it sets ("admin", "zookeeper")."""
        ...

    def apply(
        self,
        steps: Mapping[TopicPartition, Sequence[Step]],
        *,
        log_dirs: bool | Collection[int] = True,
        cluster: ClusterState | None = None,
    ) -> Sequence[ConfigChange]:
        """Set what ``steps`` (and, with ``log_dirs``, the plan's log-dir moves: True on every
        broker where the plan names directories, or on those of the brokers given) need and is
        not set, merged and recorded, rates only where configs can change (``cluster``: as last
        read; a down broker is left out over the AdminClient protocol); the changes made."""
        ...

    def left_out(
        self,
        steps: Mapping[TopicPartition, Sequence[Step]],
        cluster: ClusterState,
        *,
        log_dirs: bool | Collection[int] = True,
    ) -> frozenset[int]:
        """The brokers ``apply`` (with the same arguments) gives no rate because they are down
        (over the AdminClient protocol; none over ZooKeeper): once back, they need it."""
        ...

    def by_hand(self, brokers: Collection[int]) -> str:
        """The command that sets the run's rates on ``brokers``."""
        ...

    def remove(self) -> Sequence[ConfigChange] | None:
        """The config changes made; None when this connection holds no record of the plan."""
        ...


def left_with(recorded_via: Sequence[str], via: str, removed: Sequence[ConfigChange] | None) -> tuple[str, ...]:
    """The connections whose records still hold throttles of the run once ``via``'s control
    removed what it could (``removed``: None when it held no record of the plan):
    ``recorded_via``, the connections the state says earlier parts of the run set throttles
    through, other than this one; "unknown" when this connection has no record and the state
    names none (an older state: where its record is, it does not say)."""
    left = tuple(v for v in recorded_via if v != via)
    if removed is None and not left and via not in recorded_via:
        left = ("unknown",)
    return left


@dataclass(frozen=True)
class StepTargets:
    """What ``RecordedThrottles.apply`` throttles: the lists, the brokers given the replication
    rates and the log-dir rate, and the down brokers left out of each."""

    lists: dict[str, dict[str, set[str]]]
    rate_brokers: set[int]
    log_dir_brokers: set[int]
    down: frozenset[int]
    down_log_dir: frozenset[int]


class RecordedThrottles:
    """Throttles for a whole incremental run, through kadmin's throttle maths and records.

    Set before the first batch: leader-side entries for every replica that is a source in
    any step (a replica added early, like the new preferred leader, feeds the later steps),
    follower-side entries for every replica any step adds, rates on every broker involved, and
    the log-dir rate on the brokers where the plan names directories (over the AdminClient
    protocol not on a broker that is down: ``warning`` names it, for the command to print); merged with what is
    already set and recorded under ``plan_id``. Applied again before each batch for the steps
    of that batch (whatever another command removed meanwhile). Removed after the last step:
    only what this record set, and only what no running move still needs.
    """

    def __init__(
        self,
        backend: Backend,
        rate: int | None,
        plan_id: str,
        records=None,
        *,
        plan_file: str | None = None,
        log_dir_rate: int | None = None,
        plan: ReassignmentPlan | None = None,
    ):
        """``rate``: the inter-broker rate (None: none set); ``log_dir_rate``: the rate of moves
        between directories, set on the brokers where ``plan`` names directories."""
        self.backend = backend
        self.rate = rate
        self.plan_id = plan_id
        self.records = records if records is not None else MemoryRecordStore()
        self.plan_file = plan_file
        self.log_dir_rate = log_dir_rate
        self.log_dir_brokers = log_dir_rate_brokers(plan) if plan is not None and log_dir_rate is not None else set()
        # ZooKeeper holds a down broker's configs; over the AdminClient protocol they cannot change.
        self.down_configurable = Capability.CONFIGS_OF_DOWN_BROKERS in getattr(backend, "capabilities", frozenset())

    @property
    def via(self) -> str:
        """The connection whose store holds the record: "admin" (a topic) or "zookeeper"."""
        return str(getattr(self.backend, "name", "admin"))

    @property
    def sets(self) -> bool:
        """Whether there is any rate to set (without one, ``apply`` sets nothing and ``remove``
        still removes what this plan's record holds)."""
        return self.rate is not None or self.log_dir_rate is not None

    def preview(
        self, steps: Mapping[TopicPartition, Sequence[Step]], cluster: ClusterState | None = None
    ) -> tuple[ConfigChange, ...]:
        """The config changes ``apply(steps)`` would make now (reads only): ``--dry-run``."""
        return self.apply(steps, cluster=cluster, dry_run=True)

    def targets(
        self,
        steps: Mapping[TopicPartition, Sequence[Step]],
        cluster: ClusterState,
        *,
        log_dirs: bool | Collection[int] = True,
    ) -> StepTargets:
        """What ``apply(steps)`` throttles (pure): the lists, and the brokers given each rate,
        only where configs can change (``needs.rate_targets``: over the AdminClient protocol a
        down broker is left out and named; ZooKeeper holds a down broker's configs). Every
        broker of the steps belongs to the cluster (the plan was validated when the run began):
        one not alive is down."""
        leader, follower = throttled_replicas(steps) if self.rate is not None else ({}, {})
        # Not Kafka's one-shot lists (there a destination is never a source): here a replica
        # can be both, added by one step and copied from in the next, so it needs both entries.
        lists: dict[str, dict[str, set[str]]] = {}
        for tp in leader:
            kinds = lists.setdefault(tp.topic, {LEADER: set(), FOLLOWER: set()})
            kinds[LEADER].update(f"{tp.partition}:{b}" for b in leader[tp])
            kinds[FOLLOWER].update(f"{tp.partition}:{b}" for b in follower[tp])
        wanted = {b for tp in leader for b in (*leader[tp], *follower[tp])}
        wanted_log_dir = self.log_dir_brokers if log_dirs is True else self.log_dir_brokers & set(log_dirs or ())
        rate_brokers, down = rate_targets(wanted, cluster, down_configurable=self.down_configurable, known=wanted)
        log_dir_brokers, down_log_dir = rate_targets(
            wanted_log_dir, cluster, down_configurable=self.down_configurable, known=wanted_log_dir
        )
        return StepTargets(lists, rate_brokers, log_dir_brokers, frozenset(down), frozenset(down_log_dir))

    def left_out(
        self,
        steps: Mapping[TopicPartition, Sequence[Step]],
        cluster: ClusterState,
        *,
        log_dirs: bool | Collection[int] = True,
    ) -> frozenset[int]:
        """The down brokers ``apply(steps, log_dirs=log_dirs, cluster=cluster)`` gives no rate
        (``targets``: over the AdminClient protocol only)."""
        t = self.targets(steps, cluster, log_dirs=log_dirs)
        return t.down | t.down_log_dir

    def by_hand(self, brokers: Collection[int]) -> str:
        """The ``throttle set`` command that sets the run's rates on ``brokers``."""
        rates = [f"--rate {self.rate}"] if self.rate is not None else []
        rates += [f"--log-dir-rate {self.log_dir_rate}"] if self.log_dir_rate is not None else []
        return f"`kadmin throttle set {' '.join(rates)} --brokers {','.join(map(str, sorted(brokers)))}`"

    def warning(self, steps: Mapping[TopicPartition, Sequence[Step]], cluster: ClusterState) -> str | None:
        """The one line naming the down brokers ``apply(steps)`` gives no rate, or None: for the
        command to print before any change, ``--dry-run`` too. A broker whose rates this plan's
        record already claims at the run's values (an earlier part of the run set them before it
        went down: its configs outlive a restart) is not named (``down_rates_warning``)."""
        t = self.targets(steps, cluster)
        if not t.down and not t.down_log_dir:
            return None
        wanted: dict[int, dict[str, int]] = {}
        for b in t.down:
            wanted.setdefault(b, {}).update({LEADER_RATE: self.rate, FOLLOWER_RATE: self.rate} if self.rate else {})
        for b in t.down_log_dir:
            wanted.setdefault(b, {}).update({LOG_DIR_RATE: self.log_dir_rate} if self.log_dir_rate else {})
        record = self.records.load_all().get(self.plan_id)
        claimed = {(c.broker, c.name): c.value for c in record.rates} if record is not None else {}
        return down_rates_warning(wanted, claimed)

    def apply(
        self,
        steps: Mapping[TopicPartition, Sequence[Step]],
        *,
        log_dirs: bool | Collection[int] = True,
        cluster: ClusterState | None = None,
        dry_run: bool = False,
    ) -> tuple[ConfigChange, ...]:
        """Set what ``steps`` need and is not set (the log-dir rate too: with ``log_dirs`` True
        on every broker where the plan names directories, or on those of the brokers given),
        merged with what is set, and record it; the config changes made (none: all was set).
        Rates go only where configs can change (``targets``; ``cluster``: as last read, None:
        read now): what a down broker had set stays (removal keeps the rates of a broker it
        cannot read). ``dry_run``: change and record nothing, return the changes all the same."""
        if cluster is None:
            cluster = self.backend.describe_cluster()
        t = self.targets(steps, cluster, log_dirs=log_dirs)
        if not t.lists and not t.log_dir_brokers:
            return ()
        resources = _resources(t.lists, t.rate_brokers | t.log_dir_brokers)
        current = current_throttles(self.backend.describe_configs(resources, keys=THROTTLE_CONFIGS))
        records = self.records.load_all()
        ts = throttle_changes(
            current,
            lists=t.lists,
            rate_brokers=t.rate_brokers,
            log_dir_brokers=t.log_dir_brokers,
            rates=ThrottleRates.both(self.rate, self.log_dir_rate),
            records=records.values(),
        )
        if dry_run:
            return ts.changes
        host, user = who()
        record = recorded(
            ts,
            self.plan_id,
            records,
            created_at=now_iso(time.time()),
            host=host,
            user=user,
            plan_file=self.plan_file,
            command=INCREMENTAL_COMMAND,
        )
        earlier = records.get(self.plan_id)
        if record is not None and earlier is not None and record.dumps() == earlier.dumps():
            record = None  # recorded already (every batch after the first, normally): no write
        if record is not None or ts.changes:
            apply_throttles(self.backend, self.records, ts.changes, record)
        return ts.changes

    def remove(self) -> tuple[ConfigChange, ...] | None:
        """Remove what this plan's record set and no running move needs: the config changes
        made, or None when this connection's store holds no record of the plan."""
        removal = remove_plan_throttles(self.backend, self.records, self.plan_id)
        return None if removal is None else tuple(removal.changes)


def down_rates_warning(wanted: Mapping[int, Mapping[str, int]], claimed: Mapping[tuple[int, str], int]) -> str | None:
    """The warning for the down brokers an incremental run cannot give its rates now (pure), or
    None. ``wanted``: down broker -> the rates (config -> value) the run gives it; ``claimed``:
    (broker, config) -> value, the rate claims of this plan's record. A broker whose every
    wanted rate the record claims at that value is not named: an earlier part of the run set
    them, and they hold when it is back. The others get their rates from the run itself once
    back (``note: broker N is back, throttled as the running steps need``, recorded as the run's
    and removed at its end), so no ``throttle set`` by hand is advised: that one would be
    recorded as set by hand, and stay after the run."""
    missing = sorted(b for b, rates in wanted.items() if any(claimed.get((b, n)) != v for n, v in rates.items()))
    if not missing:
        return None
    earlier = [b for b in missing if any(k[0] == b for k in claimed)]
    one = len(missing) == 1
    line = (
        f"broker{'' if one else 's'} {', '.join(map(str, missing))} {'is' if one else 'are'} down: this run cannot "
        f"set {'its' if one else 'their'} rates now (a broker's configs change only while it runs; it sends "
        f"nothing while down); it sets them once {'it is' if one else 'they are'} back, while it runs or when "
        "resumed, recorded as its own and removed at its end"
    )
    if earlier:
        one = len(earlier) == 1
        line += (
            f"; until then broker{'' if one else 's'} {', '.join(map(str, earlier))} keep{'s' if one else ''} "
            "the rates an earlier part of this run set there"
        )
    return line


@dataclass(frozen=True)
class RunRates:
    """The rates of an incremental run (``rates_of_run``)."""

    rate: int | None  # --throttle
    log_dir_rate: int | None  # --replica-alter-log-dirs-throttle
    kept: tuple[tuple[str, int], ...] = ()  # (flag, rate) taken from the state: not given on resume


def rates_of_run(saved: IncrementalState | None, rate: int | None, log_dir_rate: int | None) -> RunRates:
    """The rates a run sets: those given, and, for a resumed run (``saved``: its state), the
    rates its state keeps for those not given. A run goes on under the throttles it began with:
    each batch sets again what another command removed meanwhile (``reassign verify`` or
    ``throttle clear --plan`` of this plan), and so does a resumed run before it sends anything;
    a rate given on resume replaces the one kept."""
    kept: list[tuple[str, int]] = []
    if saved is not None and rate is None and saved.throttle_rate is not None:
        rate = saved.throttle_rate
        kept.append(("--throttle", rate))
    if saved is not None and log_dir_rate is None and saved.log_dir_rate is not None:
        log_dir_rate = saved.log_dir_rate
        kept.append(("--replica-alter-log-dirs-throttle", log_dir_rate))
    return RunRates(rate, log_dir_rate, tuple(kept))


def throttles_of_run(
    backend: Backend,
    plan_id: str,
    records,
    *,
    rate: int | None,
    log_dir_rate: int | None,
    inherited: bool,
    plan_file: str | None,
    plan: ReassignmentPlan,
) -> RecordedThrottles | None:
    """The throttles of an incremental run: the rates it sets (``rates_of_run``), or,
    ``inherited`` (a resumed run whose earlier part set some) with none (its state keeps no
    rate), none set but what was set still removed at the end; None when there is neither."""
    if rate is None and log_dir_rate is None and not inherited:
        return None
    return RecordedThrottles(backend, rate, plan_id, records, plan_file=plan_file, log_dir_rate=log_dir_rate, plan=plan)


def _resources(topics, brokers) -> list[ConfigResource]:
    return [ConfigResource(ConfigResourceType.TOPIC, t) for t in sorted(topics)] + [
        ConfigResource(ConfigResourceType.BROKER, str(b)) for b in sorted(brokers)
    ]
