"""Rendering for ``reassign execute | verify | cancel | list``: lines for people, JSON documents
(schemas/reassign-*.json) for scripts. The library hands over values; this turns them into text."""

from __future__ import annotations

import click

from kadmin.commands.render_throttles import change_line, changes_json
from kadmin.execute.changes import describe, to_json
from kadmin.model import ConfigChange, Throttle


def change_text(change, throttles_before: Throttle | None = None) -> str:
    """One change for people. A throttle change, given what was set before it
    (``throttles_before``), is said as ``throttle set`` says it, with the value it replaces:
    "broker 0 replica.alter.log.dirs.io.max.bytes.per.second: 1000000 -> 30000000 (30.0 MB/s)"."""
    if throttles_before is not None and isinstance(change, ConfigChange):
        return change_line(change, throttles_before)
    return describe(change)


class LineReporter:
    """Prints each change as it is made (people), or keeps quiet (JSON is printed once at the end).
    ``throttles_before``: what was set before the run, for its throttle changes (``change_text``)."""

    def __init__(self, enabled: bool, throttles_before: Throttle | None = None):
        self.enabled = enabled
        self.throttles_before = throttles_before
        self._last_wait: int | None = None

    def change(self, change, error) -> None:
        if not self.enabled:
            return
        if error is None:
            click.echo(f"  done    {change_text(change, self.throttles_before)}")
        else:
            click.echo(f"  FAILED  {change_text(change, self.throttles_before)}: {error}")

    def unanswered(self, change, why) -> None:
        """A change sent when Ctrl-C came, whose outcome is unknown."""
        if self.enabled:
            click.echo(f"  UNKNOWN {change_text(change, self.throttles_before)}: {why}")

    def waiting(self, replicas: int, seconds_left: float) -> None:
        # One line per second at most, on stderr: progress is a diagnostic, not data.
        whole = int(seconds_left)
        if whole != self._last_wait:
            from kadmin.units import counted

            self._last_wait = whole
            click.echo(
                f"kadmin: waiting for {counted(replicas, 'new replica')} to be created ({seconds_left:.0f}s left)",
                err=True,
            )


def change_json(change, error=None, throttles_before: Throttle | None = None) -> dict:
    """``to_json`` and the cluster's ``error``; given what was set before (``throttles_before``),
    a throttle change also carries the value it replaces, ``before`` (null: not set), as
    ``throttle set``'s JSON does."""
    out = to_json(change)
    if throttles_before is not None and isinstance(change, ConfigChange):
        out["before"] = changes_json([change], throttles_before)[0]["before"]
    out["error"] = error
    return out


def tp_json(tp) -> dict:
    return {"topic": tp.topic, "partition": tp.partition}


def print_plan_of_changes(xplan) -> None:
    click.echo("Plan of changes (dry run: nothing was changed):")
    for c in xplan.changes():
        click.echo(f"  {change_text(c, xplan.throttles_before)}")
    if xplan.unchanged:
        from kadmin.units import counted

        n = len(xplan.unchanged)
        has = "already has, or is already moving to, its" if n == 1 else "already have, or are already moving to, their"
        click.echo(
            f"  ({counted(n, 'partition')} {has} planned replicas and directories: "
            f"nothing to send for {'it' if n == 1 else 'them'})"
        )


def interrupted_message(xplan, result, plan_file: str, rollback_file: str | None) -> str:
    """What an interrupted ``reassign execute`` leaves in the cluster and how to go on from it,
    for stderr: the moves sent (they go on), the throttles set (they stay), what was not sent.
    ``rollback_file``: the file kept (None: removed, or never written)."""
    from kadmin.execute.changes import LogDirMove, Reassign
    from kadmin.model import ConfigChange

    unknown = {c for c, _ in result.unanswered}
    touched = [*result.made(), *unknown]
    moves = _how_many(touched, unknown, (Reassign, "reassignment"), (LogDirMove, "log-dir move"))
    throttles = _how_many(touched, unknown, (ConfigChange, "change"))
    lines = []
    if moves:
        back = f"; put every replica back: `kadmin reassign execute --reassignment-json-file {rollback_file}`"
        lines.append(
            f"  - sent, and going on: {moves}. Follow: `kadmin reassign progress --reassignment-json-file {plan_file} "
            f"--watch`; stop: `kadmin reassign cancel --reassignment-json-file {plan_file}`{back if rollback_file else ''}"
        )
    if throttles:
        lines.append(
            f"  - throttles, left in place: {throttles}. "
            + (
                f"`kadmin reassign verify --reassignment-json-file {plan_file}` removes them once the plan is done"
                if moves
                else f"Nothing moves yet: `kadmin throttle clear --plan {plan_file}` removes them"
            )
        )
    if not lines:
        return "kadmin: interrupted before any change to the cluster; nothing was changed."
    unsent = _how_many(
        result.not_sent(xplan.changes()),
        set(),
        (Reassign, "reassignment"),
        (LogDirMove, "log-dir move"),
        (ConfigChange, "throttle change"),
    )
    if unsent:
        lines.append(f"  - not sent: {unsent}. Running the same command again sends what is missing")
    return "\n".join(
        ["kadmin: interrupted. What this run changed stays:", *lines, "  (with this run's connection options)"]
    )


def throttles_left(result, plan_file: str) -> str | None:
    """For a run stopped by an error: the throttle changes it made (they stay) and how to remove
    them, as the Ctrl-C path says it; None when it made none."""
    from kadmin.execute.changes import LogDirMove, Reassign
    from kadmin.model import ConfigChange

    made = result.made()
    throttles = _how_many(made, set(), (ConfigChange, "throttle change"))
    if not throttles:
        return None
    if any(isinstance(c, (Reassign, LogDirMove)) for c in made):
        how = f"`kadmin reassign verify --reassignment-json-file {plan_file}` removes them once the plan is done"
    else:
        how = f"nothing moves: `kadmin throttle clear --plan {plan_file}` removes them"
    return f"the {throttles} made (printed above) stay; {how}"


def _how_many(changes, unknown, *kinds) -> str:
    """'2 reassignments and 3 log-dir moves (1 not confirmed)': the ``changes`` of each kind
    (class, noun), and how many of them are ``unknown``."""
    from kadmin.units import counted

    said = []
    for kind, noun in kinds:
        of_kind = [c for c in changes if isinstance(c, kind)]
        if of_kind:
            doubt = sum(1 for c in of_kind if c in unknown)
            said.append(counted(len(of_kind), noun) + (f" ({doubt} not confirmed)" if doubt else ""))
    return " and ".join(said)


def reassignment_line(r) -> str:
    """kafka-reassign-partitions.sh --list: ``foo-1: replicas: 1,2,3. adding: 4,5. removing: 1,2.``"""
    line = f"{r.topic}-{r.partition}: replicas: {','.join(map(str, r.replicas))}."
    if r.adding:
        line += f" adding: {','.join(map(str, r.adding))}."
    if r.removing:
        line += f" removing: {','.join(map(str, r.removing))}."
    return line


def removal_line(change, removal, before: Throttle) -> str:
    """One change of a plan's throttle removal, said as what it removed, in ``throttle clear``'s
    words (``render_throttles.change_line``): a rate with the value it had ("broker 0 <config>:
    30000000 -> (deleted)", or back to its value from before the plan), a list deleted with its
    entries. A list that keeps other entries is written anew (a SET): the entries removed and
    those left. ``before``: ``throttles_before_removal(removal)``."""
    from kadmin.model import AlterOp, ConfigResourceType

    res = change.resource
    if res.type is ConfigResourceType.TOPIC and change.op is AlterOp.SET:
        gone = removal.removed_entries.get(res.name, {}).get(change.name, ())
        return f"topic {res.name} {change.name}: removed {','.join(gone)}, left {change.value}"
    line = change_line(change, before)
    return f"{line}, back to its value from before this plan" if change.op is AlterOp.SET else line


def throttles_before_removal(removal) -> Throttle:
    """What the throttles a removal changes held before it: each rate at the value this plan set
    (a rate is removed only while it has it), each list as the entries removed plus those its
    new value keeps (a list deleted held only the removed ones)."""
    from kadmin.model import AlterOp, ConfigResourceType, parse_replica_list

    rates: dict[int, dict[str, int]] = {}
    for c in removal.removed_rates:
        rates.setdefault(c.broker, {})[c.name] = c.value
    lists = {t: dict(kinds) for t, kinds in removal.removed_entries.items()}
    for c in removal.changes:
        if c.resource.type is ConfigResourceType.TOPIC and c.op is AlterOp.SET:
            had = lists.setdefault(c.resource.name, {}).get(c.name, ())
            lists[c.resource.name][c.name] = parse_replica_list(",".join((*had, c.value)))
    return Throttle(broker_rates=rates, topic_replicas=lists)


def left_behind_message(items) -> str:
    """Throttles a finished plan left that kadmin holds no record of (``VerifyOutcome.left_behind``)."""
    from kadmin.units import plural

    rated = {i.resource for i in items if i.kind == "broker_rate"}
    brokers = sorted((b for b in rated if b.isdigit()), key=int)
    topics = sorted({i.resource for i in items if i.kind != "broker_rate"})
    where = []
    if brokers:
        where.append(f"rates on {plural('broker', len(brokers))} {', '.join(brokers)}")
    if rated - set(brokers):
        where.append("the cluster-wide default rates")
    if topics:
        where.append(f"throttled-replica lists of {', '.join(topics)}")
    return (
        f"the plan is complete but throttles no move needs are still set ({'; '.join(where)}) and kadmin has no "
        "record of setting them here. kadmin keeps its records per connection (ZooKeeper with --zookeeper, a topic "
        "with --bootstrap-server): if kadmin ran this plan through the other one, verify through it removes what it "
        "set; otherwise `kadmin throttle show` lists them and `kadmin throttle clear --stale` removes them."
    )


def verify_report(output, pid, outcome, *, compact: bool = False, election=None) -> None:
    """Print a verify outcome as ``reassign verify`` prints it (lines, or its JSON document;
    ``compact``: on one line, for JSON-line streams) and raise its exit-3/4 errors.
    ``execute --wait`` ends with this too. ``election``: the --elect-preferred outcome, reported
    after (and its failures raised once the plan's own exit codes are)."""
    from kadmin.commands import render
    from kadmin.commands.render_leaders import election_json, print_election, raise_if_failed
    from kadmin.errors import DiffersFromPlan, StillInProgress
    from kadmin.plan.verify import State

    result = outcome.result
    removed = list(outcome.removal.changes) if outcome.removal else []
    kept = outcome.removal.kept if outcome.removal else None
    shared = outcome.removal.shared if outcome.removal else ()  # left set: other plans claim them
    before = throttles_before_removal(outcome.removal) if outcome.removal else Throttle()  # what removed replaced
    if output == "json":
        render.print_json(
            {
                "version": 1,
                "plan_id": pid,
                "state": result.state.value,
                "partitions": [
                    {
                        "topic": v.tp.topic,
                        "partition": v.tp.partition,
                        "state": v.state.value,
                        "replicas": None if v.current is None else list(v.current),
                        "target": list(v.target),
                        "message": v.message,
                    }
                    for v in result.partitions
                ],
                "replicas": [
                    {
                        "topic": v.replica.topic,
                        "partition": v.replica.partition,
                        "broker": v.replica.broker,
                        "state": v.state.value,
                        "move": v.move.value,
                        "target_dir": v.target_dir,
                        "current_dir": v.current_dir,
                        "future_dir": v.future_dir,
                        "message": v.message,
                    }
                    for v in result.replicas
                ],
                "throttles_removed": [change_json(c, None, before) for c in removed],
                "throttles_kept": bool(kept is not None and not kept.empty),
                "throttles_kept_reason": outcome.kept_reason if kept is not None and not kept.empty else None,
                "throttles_shared": [
                    {
                        "broker": s.claim.broker,
                        "config": s.claim.name,
                        "value": str(s.claim.value),
                        "plan_ids": list(s.plan_ids),
                    }
                    for s in shared
                ],
                "throttles_left_behind": [
                    {"kind": i.kind, "resource": i.resource, "config": i.config, "value": i.value}
                    for i in outcome.left_behind
                ],
                "stale_throttle_plans": list(outcome.stale_plans),
                **({"preferred_election": election_json(election)} if election is not None else {}),
                **(
                    {"reassignments_blocked": {"reason": outcome.stuck.reason, "hint": outcome.stuck.hint}}
                    if outcome.stuck is not None
                    else {}
                ),
            },
            compact=compact,
        )
    else:
        # Kafka's --verify text: partitions by topic and partition, then the log-dir replicas
        # by broker, topic and partition, in its words (ReassignPartitionsCommand.java).
        click.echo("Status of partition reassignment:")
        for v in sorted(result.partitions, key=lambda v: (v.tp.topic, v.tp.partition)):
            click.echo(v.message)
        for v in sorted(result.replicas, key=lambda v: (v.replica.broker, v.replica.topic, v.replica.partition)):
            click.echo(v.message)
        if removed:
            click.echo("")
            click.echo("Removed throttles this plan set:")
            for c in removed:
                click.echo(f"  {removal_line(c, outcome.removal, before)}")
        if shared:
            click.echo(
                "Throttles left to other plans that set the same rate (the last of them to be verified removes them):"
            )
            for s in shared:
                click.echo(f"  {s.line()}")
        if kept is not None and not kept.empty:
            if outcome.kept_reason:
                click.echo(f"Throttles this plan set were kept: {outcome.kept_reason}.")
            else:
                click.echo("Throttles this plan set that running moves still need were kept; verify again later.")
        if election is not None:
            print_election(election)
    if outcome.stuck is not None:  # as reassign list and progress say it; the verdict stands
        render.warn(f"{outcome.stuck.reason}. {outcome.stuck.hint}")
    if outcome.left_behind:
        render.warn(left_behind_message(outcome.left_behind))
    if outcome.stale_plans:
        one = len(outcome.stale_plans) == 1
        render.warn(
            f"throttles kadmin set for {'another plan' if one else 'other plans'} ({', '.join(outcome.stale_plans)}) "
            f"are no longer needed by any move: verify with {'that plan' if one else 'those plans'}, or "
            "`kadmin throttle clear --stale`, removes them (`kadmin throttle show` lists them)"
        )
    if result.state is State.IN_PROGRESS:
        raise StillInProgress(
            f"still in progress: {_count(result.partitions, State.IN_PROGRESS, 'partition')} reassigning, "
            f"{_count(result.replicas, State.IN_PROGRESS, 'log-dir replica')} moving"
        )
    if result.state is State.DIFFERS:
        raise DiffersFromPlan(_differs_line(result, outcome.paused))
    raise_if_failed(election)


def _differs_line(result, paused) -> str:
    """verify's exit-4 line: what differs from the plan, the moves paused by an offline directory
    (``VerifyOutcome.paused``) said as such: they resume when their broker restarts with it back."""
    from kadmin.plan.verify import MoveState, State

    if not paused:
        return (
            f"nothing of this plan is moving, but {_count(result.partitions, State.DIFFERS, 'partition')} and "
            f"{_count(result.replicas, State.DIFFERS, 'log-dir replica')} differ from it"
        )
    from kadmin.units import counted

    shown = [
        f"{v.replica.topic}-{v.replica.partition} on broker {v.replica.broker} "
        + (
            "(its source directory is offline)"
            if v.move is MoveState.MISSING_LOG_DIR
            else f"(its destination directory {v.target_dir} is offline)"
        )
        for v in paused[:3]
    ]
    more = f" and {len(paused) - 3} more" if len(paused) > 3 else ""
    one = len(paused) == 1
    line = (
        f"nothing of this plan is copying: {counted(len(paused), 'log-dir move')} paused: {', '.join(shown)}{more}; "
        f"{'it resumes' if one else 'they resume'} when the broker restarts with that directory back"
    )
    partitions = sum(1 for v in result.partitions if v.state is State.DIFFERS)
    others = sum(1 for v in result.replicas if v.state is State.DIFFERS) - len(paused)
    if partitions or others:
        line += (
            f"; besides, {counted(partitions, 'partition')} and {counted(others, 'other log-dir replica')} "
            "differ from the plan"
        )
    return line


def _count(verdicts, state, noun: str) -> str:
    from kadmin.units import counted

    return counted(sum(1 for v in verdicts if v.state is state), noun)
