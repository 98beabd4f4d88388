"""``kadmin throttle set``: replication rates and throttled-replica lists, merged and recorded."""

from __future__ import annotations

import contextlib

import click

from kadmin.commands.options import cluster_options, int_list, open_cluster, output_option


@click.command("set")
@click.option("--rate", metavar="RATE", help="Leader and follower rate, e.g. 50MB/s, 10MiB/s, 1000000 (bytes/s).")
@click.option("--leader-rate", metavar="RATE", help="Rate for replicas throttled as leaders (with --follower-rate).")
@click.option("--follower-rate", metavar="RATE", help="Rate for replicas throttled as followers (with --leader-rate).")
@click.option("--log-dir-rate", metavar="RATE", help="Rate of moves between a broker's log directories.")
@click.option(
    "--brokers",
    metavar="1,2,3",
    help="Brokers to set rates on (default: the plan's source and destination brokers; "
    "for --log-dir-rate its brokers with explicit log_dirs; without a plan: every broker).",
)
@click.option(
    "--from-plan",
    "plan_file",
    metavar="FILE",
    type=click.Path(exists=True, dir_okay=False),
    help="A reassignment JSON file: add its throttled-replica lists (merged with what is set) "
    "and record the throttles under its plan id.",
)
@click.option("--dry-run", is_flag=True, help="Print the changes; change nothing.")
@cluster_options
@output_option(("table", "json"))
def set_(cluster, output, rate, leader_rate, follower_rate, log_dir_rate, brokers, plan_file, dry_run):
    """Set replication throttles, merged with what is already set, and record what kadmin set so
    it can be removed safely later (by `reassign verify`, `throttle clear`, from any machine).

    Rates accept units: 50MB/s (decimal), 10MiB/s (binary), 400Mbit/s, or plain bytes/s.
    With --from-plan, the plan's moving partitions get Kafka's throttled-replica lists (leader:
    every current replica; follower: every new one), added to the entries already there.

    \b
    --output json prints schemas/throttle-set-result.json, alone on stdout.
    """
    import time
    from pathlib import Path

    from kadmin.commands import render
    from kadmin.errors import UnsupportedOperation, UsageError
    from kadmin.throttling.maths import ThrottleRates
    from kadmin.throttling.operations import MANUAL_PLAN_ID, apply_throttles, plan_throttle_set
    from kadmin.throttling.record import now_iso, plan_id, who
    from kadmin.throttling.state import read_throttle_state
    from kadmin.throttling.stores import open_record_store

    rates = _rates(rate, leader_rate, follower_rate, log_dir_rate)
    chosen = int_list(brokers, "--brokers")
    parsed = plan = raw = None
    if plan_file:
        parsed, raw = _read_plan(plan_file)
        plan = parsed.plan
    if plan is None and rates == ThrottleRates():
        raise UsageError(
            "nothing to set: give --rate (or --leader-rate and --follower-rate), --log-dir-rate, or --from-plan"
        )
    pid = plan_id(raw) if raw is not None else MANUAL_PLAN_ID

    with _open(cluster, dry_run, parsed) as backend:
        store = open_record_store(backend)
        state = read_throttle_state(backend, store)
        # the file's own problems and the cluster's, at once (exit 2), as `reassign execute` says them
        log_dirs = _check_plan(backend, parsed, state) if parsed is not None else None
        if store is None:  # refused with --dry-run too, as the run refuses it
            raise UnsupportedOperation(
                "this connection offers no place to record the throttles kadmin sets; nothing was changed"
            )
        if plan is not None and rates == ThrottleRates():  # only the plan's lists: none when nothing moves
            from kadmin.plan.validate import check_broker_rate_applies

            check_broker_rate_applies(plan, state.cluster, state.ongoing, "--from-plan")
        if plan is not None and chosen is None:  # a rate with nothing to throttle: exit 2, nothing changed
            from kadmin.plan.validate import check_broker_rate_applies, check_log_dir_rate_applies

            if rates.leader is not None or rates.follower is not None:
                flag = "--rate" if rate is not None else "--leader-rate/--follower-rate"
                check_broker_rate_applies(plan, state.cluster, state.ongoing, flag)
            if rates.log_dir is not None:
                check_log_dir_rate_applies(plan, log_dirs, state.cluster)
        # What the run refuses before its first change, --dry-run refuses too (what kadmin set
        # decides what is set and recorded: an unreadable record leaves it unknown).
        state.require_records()
        host, user = who()
        planned = plan_throttle_set(
            state,
            rates=rates,
            plan=plan,
            plan_id=pid,
            brokers=chosen,
            log_dirs=log_dirs,
            created_at=now_iso(time.time()),
            host=host,
            user=user,
            plan_file=str(Path(plan_file)) if plan_file else None,
            command="throttle set",
        )
        result, record = planned.throttles, planned.record
        if planned.warning is not None:  # before any change, --dry-run too
            render.warn(planned.warning)
        if not dry_run and result.claims_anything:
            from kadmin.backends.config_outcomes import ConfigChangesInterrupted, ConfigChangesPartlyMade, InTurn
            from kadmin.throttling.operations import co_claimed

            earlier = state.records.get(pid)
            co = co_claimed(result)  # a refusal records them no more than what it refused
            try:
                apply_throttles(InTurn(backend), store, result.changes, record, earlier=earlier, co_claims=co)
            except ConfigChangesPartlyMade as e:  # what the cluster accepted is printed, then the error
                _print_partly_set(output, result, pid, record, earlier, e, state, co)
                raise
            except ConfigChangesInterrupted as e:  # Ctrl-C: what was set, what may have been, exit 130
                _print_interrupted(output, result, pid, record, earlier, e, state, co)
    _print(output, result, pid, record, dry_run, state)


def _print_interrupted(output, result, pid, record, earlier, interrupted, state, co_claims) -> None:
    """Ctrl-C while setting: the changes made printed as a run prints them, those sent without an
    answer as UNKNOWN (they may have been made; the record keeps claiming them), then one line
    on stderr and exit 130."""
    from dataclasses import replace

    from kadmin.commands.reassign_wait import EXIT_INTERRUPTED
    from kadmin.throttling.operations import claims_made
    from kadmin.units import counted

    sent = {*interrupted.made, *interrupted.unanswered}
    made = tuple(c for c in result.changes if c in interrupted.made)
    unknown = tuple(c for c in result.changes if c in interrupted.unanswered)
    kept = claims_made(record, earlier, [c for c in result.changes if c not in sent], co_claims)
    _print(output, replace(result, changes=made), pid, kept, False, state, unanswered=unknown)
    not_sent = len(result.changes) - len(sent)
    click.echo(
        f"kadmin: interrupted: {counted(len(made), 'throttle change')} made, {len(unknown)} unknown (sent, no answer), "
        f"{not_sent} not sent; run the same `kadmin throttle set` again to set the rest",
        err=True,
    )
    raise click.exceptions.Exit(EXIT_INTERRUPTED)


def _print_partly_set(output, result, pid, record, earlier, error, state, co_claims) -> None:
    """A change failed after others were made: those are printed (and recorded: the record claims
    only them, ``claims_made``), as a run that set them would print them."""
    from dataclasses import replace

    from kadmin.throttling.operations import claims_made

    made = tuple(c for c in result.changes if c in error.made)
    kept = claims_made(record, earlier, [c for c in result.changes if c not in error.made], co_claims)
    _print(output, replace(result, changes=made), pid, kept, False, state)


def _rates(rate, leader_rate, follower_rate, log_dir_rate):
    from kadmin.errors import UsageError
    from kadmin.throttling.maths import ThrottleRates
    from kadmin.units import parse_rate

    if rate is not None and (leader_rate is not None or follower_rate is not None):
        raise UsageError("give either --rate or --leader-rate/--follower-rate, not both")
    if (leader_rate is None) != (follower_rate is None):
        raise UsageError("--leader-rate and --follower-rate go together (or use --rate for both)")
    if rate is not None:
        leader = follower = parse_rate(rate)
    else:
        leader = parse_rate(leader_rate) if leader_rate is not None else None
        follower = parse_rate(follower_rate) if follower_rate is not None else None
    log_dir = parse_rate(log_dir_rate) if log_dir_rate is not None else None
    return ThrottleRates(leader, follower, log_dir)


def _read_plan(plan_file):
    from pathlib import Path

    from kadmin.plan.reassignment_file import read_reassignment

    parsed = read_reassignment(plan_file, keep_problems=True)  # reported with the cluster's (_check_plan)
    return parsed, Path(plan_file).read_bytes()


@contextlib.contextmanager
def _open(cluster, dry_run, parsed):
    """The cluster's backend. A plan file with problems of its own is refused as such (exit 2)
    when the cluster cannot be reached, as `reassign execute` refuses it
    (kadmin.execute.preamble.open_for_execute); with a reachable cluster `_check_plan` lists
    them with the cluster's, at once."""
    from kadmin.errors import ClusterError

    try:
        with open_cluster(cluster, read_only=dry_run) as backend:
            yield backend
    except ClusterError:
        if parsed is None:
            raise
        from kadmin.plan.reassignment_file import plan_problems
        from kadmin.plan.validate import file_problems

        problems = file_problems(parsed)
        if not problems:
            raise
        raise plan_problems(problems, source=parsed.source, of_its_own=True) from None


def _check_plan(backend, parsed, state):
    """The plan's problems of its own and against the cluster, found as `reassign execute` finds
    them (kadmin.plan.validate: duplicates, unknown topics, partitions and brokers, log_dirs
    naming no directory of their broker), exit 2 before any change. Left out are the rules that
    guard the move, not its throttles: the replication factor (`reassign execute
    --allow-replication-factor-change` may change it) and whether a replica can be placed now
    (``placing=False``: a broker down, a directory offline or cordoned; a plan already running
    is throttled while a directory is offline, and its paused move resumes at the rate set by
    then). Returns the log directories of the brokers the plan's log_dirs name (None when it
    names none)."""
    from kadmin.backends.base import Capability
    from kadmin.plan.validate import check_reassignment

    targets = {b for a in parsed.plan.partitions for b in a.log_dir_targets()} & set(state.cluster.brokers)
    log_dirs = None
    if targets and Capability.LOG_DIRS in backend.capabilities:
        log_dirs = backend.describe_log_dirs(brokers=sorted(targets))
    check_reassignment(
        parsed, state.cluster, log_dirs, allow_replication_factor_change=True, ongoing=state.ongoing, placing=False
    )
    return log_dirs


def _print(output, result, pid, record, dry_run, state, unanswered=None) -> None:
    """``unanswered``: after a Ctrl-C, the changes sent without an answer (JSON ``unanswered``)."""
    from kadmin.commands import render
    from kadmin.commands.render_throttles import change_line, changes_json

    if output == "json":
        render.print_json(
            {
                "version": 1,
                "dry_run": dry_run,
                "plan_id": pid,
                "changes": changes_json(result.changes, state.current.as_set()),
                "record": record.to_json(),
                **(
                    {"interrupted": True, "unanswered": changes_json(unanswered, state.current.as_set())}
                    if unanswered is not None
                    else {}
                ),
            }
        )
        return
    if not result.changes and unanswered is None:
        click.echo("Nothing to change: these throttles are already set.")
        return
    click.echo("Would set (dry run, nothing changed):" if dry_run else "Set:")
    for c in result.changes:
        click.echo("  " + change_line(c, state.current.as_set()))
    for c in unanswered or ():  # after a Ctrl-C: sent, no answer
        click.echo(f"  UNKNOWN {change_line(c, state.current.as_set())}: sent, no answer: it may have been made")
    if not dry_run:
        if pid == "manual":
            click.echo(
                "Recorded as set by kadmin for no plan: `kadmin throttle clear --stale` removes them once no move "
                "needs them (`--all` at once)."
            )
        else:
            click.echo(
                f"Recorded as set by kadmin for plan {pid}: `kadmin throttle clear --plan FILE` (or --stale) removes "
                "exactly these once no move needs them."
            )
