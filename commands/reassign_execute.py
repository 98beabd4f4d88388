"""``kadmin reassign execute``: validate a plan, save the rollback, set throttles, start moving."""

from __future__ import annotations

import contextlib

import click

from kadmin.commands.options import cluster_options, open_cluster, output_option


def open_records(backend):
    """Where kadmin records the throttles it sets (kadmin.throttling.stores), or None when this
    connection offers no place for them. One name, so tests can keep records in memory."""
    from kadmin.throttling.stores import open_record_store

    return open_record_store(backend)


@click.command()
@click.option("--reassignment-json-file", "plan_file", required=True, metavar="FILE",
              type=click.Path(dir_okay=False), help="The plan, in Kafka's reassignment JSON format.")
@click.option("--throttle", metavar="RATE",
              help="Inter-broker replication throttle, e.g. 50MB/s (set on every source and destination broker, "
                   "with throttled-replica lists merged into what is already set).")
@click.option("--replica-alter-log-dirs-throttle", "log_dir_throttle", metavar="RATE",
              help="Throttle of moves between the directories of one broker, e.g. 20MB/s.")
@click.option("--additional", is_flag=True,
              help="Run in addition to reassignments already running (also: change a running plan's throttle).")
@click.option("--dry-run", is_flag=True, help="Validate and print every change that would be made; change nothing.")
@click.option("--rollback-file", metavar="PATH", type=click.Path(dir_okay=False),
              help="Where to save the current assignment (default: next to the plan, with a timestamp).")
@click.option("--allow-replication-factor-change", is_flag=True, help="Accept entries that change a partition's replica count.")
@click.option("--incremental", is_flag=True,
              help="Run the plan in KIP-435 steps under the --max-* limits and wait for the end; resumable.")
@click.option("--max-parallel-replicas", type=click.IntRange(min=1), default=1, show_default=True,
              help="--incremental: replicas added to one partition at once.")
@click.option("--max-parallel-partitions", type=click.IntRange(min=1), default=None,
              help="--incremental: partitions moving at once (default: no limit).")
@click.option("--max-leader-movements", type=click.IntRange(min=1), default=None,
              help="--incremental: steps moving a leader at once (default: no limit).")
@click.option("--max-moves-per-broker", type=click.IntRange(min=1), default=5, show_default=True,
              help="--incremental: replicas moving into or out of one broker at once.")
@click.option("--state-file", metavar="PATH", type=click.Path(dir_okay=False),
              help="--incremental: where progress is kept (default: under $XDG_STATE_HOME/kadmin, keyed by the plan's path).")
@click.option("--wait", is_flag=True,
              help="Follow the progress to the end, then verify and remove the throttles this plan set "
                   "(exit codes as verify). Ctrl-C stops following, not the reassignment.")
@click.option("--interval", default="2s", show_default=True, metavar="DURATION",
              help="--wait: time between progress samples.")
@cluster_options
@output_option(("table", "json"))
def execute(cluster, output, plan_file, throttle, log_dir_throttle, additional, dry_run, rollback_file,
            allow_replication_factor_change, incremental=False, max_parallel_replicas=1,
            max_parallel_partitions=None, max_leader_movements=None, max_moves_per_broker=5, state_file=None,
            wait=False, interval="2s"):
    """Validate the whole plan against the cluster (every problem at once, exit 2, nothing
    changed), write the rollback file, set throttles, request log-dir moves, start the
    reassignment, and retry moves of new replicas until --timeout (default 10s) as KIP-113 says.

    Refuses while another reassignment runs, unless --additional. Every change is printed;
    --dry-run prints the same changes and makes none.

    --incremental moves a few replicas at a time (KIP-435 steps), waits for each batch, keeps a
    state file, and removes its throttles at the end; run the same command again to resume.

    \b
    --wait follows the progress live (on stderr: reassign progress --watch's table on a
    terminal, a line per --interval otherwise), then verifies and removes the throttles this
    plan set, exactly as `reassign verify` would. Exit 0 complete, 4 finished but different
    from the plan. With --output json, stdout is JSON lines: the execute result, one progress
    snapshot per interval (schemas/progress-snapshot.json), the verify result. Ctrl-C leaves
    the reassignment running, prints how to watch and clean up later, exit 130.
    --incremental already waits; --dry-run starts nothing to wait for.
    """
    _only_with_incremental(incremental)
    if incremental:
        from kadmin.commands import reassign_incremental
        from kadmin.errors import UsageError
        from kadmin.plan.batches import Limits

        if log_dir_throttle is not None:
            raise UsageError("--replica-alter-log-dirs-throttle does not apply to --incremental (no log-dir moves)")
        limits = Limits(max_parallel_replicas, max_parallel_partitions, max_leader_movements, max_moves_per_broker)
        return reassign_incremental.run(cluster, output, plan_file, throttle, additional, dry_run, rollback_file,
                                        allow_replication_factor_change, limits, state_file)
    import time
    from pathlib import Path

    from kadmin.errors import ClusterError, UnsupportedOperation
    from kadmin.execute.executor import ExecuteRequest, apply_execution, plan_execution, read_cluster
    from kadmin.execute.rollback import default_rollback_path, utc_now
    from kadmin.plan.reassignment_file import read_reassignment, write_reassignment
    from kadmin.plan.validate import PlanProblems
    from kadmin.throttling.record import plan_id, who
    from kadmin.config import parse_timeout
    from kadmin.units import parse_rate

    from kadmin.commands import render
    from kadmin.commands.render_reassign import LineReporter, print_plan_of_changes

    parsed = read_reassignment(plan_file)
    request = ExecuteRequest(
        parsed=parsed,
        plan_id=plan_id(Path(plan_file).read_bytes()),
        rollback_path=str(rollback_file or default_rollback_path(plan_file, utc_now())),
        plan_file=str(Path(plan_file).resolve()),
        additional=additional,
        throttle=parse_rate(throttle) if throttle is not None else None,
        log_dir_throttle=parse_rate(log_dir_throttle) if log_dir_throttle is not None else None,
        timeout=parse_timeout(cluster.timeout) if cluster.timeout else 10.0,
        allow_replication_factor_change=allow_replication_factor_change,
    )
    if not dry_run and Path(request.rollback_path).exists():
        raise UnsupportedOperation(f"rollback file {request.rollback_path} already exists; nothing was changed",
                                   hint="choose another --rollback-file")
    people = output == "table"
    every = _wait_interval(interval) if wait else None
    with _file_problems_first(parsed, people), open_cluster(cluster, read_only=dry_run) as backend:
        throttles = request.throttle is not None or request.log_dir_throttle is not None
        records = open_records(backend) if throttles else None
        view = read_cluster(backend, parsed, records, throttles=throttles)
        try:
            xplan = plan_execution(request, view, now=time.time(), operator=who())
        except PlanProblems as e:
            if not people:  # scripts get the problems as data too (schemas/reassign-plan-problems.json)
                render.print_json({"version": 1, "problems": [p.to_json() for p in e.details]})
            raise
        if xplan.throttles.changes and records is None and not dry_run:
            raise UnsupportedOperation(
                "this connection has no place to record the throttles kadmin sets, so they could not be removed safely; nothing was changed",
                hint="run without --throttle, or set throttles with `kadmin throttle set`",
            )
        if xplan.nothing_to_change:
            if people:
                click.echo("Nothing to change: every partition of the plan already has, or is already moving to, "
                           "its replicas and directories, with the throttles asked for.")
            else:
                render.print_json({**_document(request, xplan, None, dry_run=dry_run), "changes": [], "rollback_file": None})
            if wait:
                click.echo("kadmin: --wait: nothing was started, so there is nothing to wait for", err=True)
            return
        if dry_run:
            if people:
                print_plan_of_changes(xplan)
            else:
                render.print_json(_document(request, xplan, None, dry_run=True))
            if wait:
                click.echo("kadmin: --wait: a dry run starts nothing, so there is nothing to wait for", err=True)
            return
        if people:
            click.echo(f"Saving the current assignment to {request.rollback_path} (to roll back: "
                       f"kadmin reassign execute --reassignment-json-file {request.rollback_path})")
            click.echo("Changes:")
        result = apply_execution(
            backend, xplan, request,
            write_rollback=lambda path, plan: write_reassignment(path, plan),
            records=records,
            reporter=LineReporter(people),
        )
        started = not result.failures and not result.aborted
        if people:
            if xplan.unchanged:
                click.echo(f"{len(xplan.unchanged)} partition(s) already have the planned replicas.")
            if started and not wait:
                click.echo("Started. Follow with `kadmin reassign verify --reassignment-json-file "
                           f"{plan_file}` (exit 3 while in progress).")
            elif started:
                click.echo("Started. Following it to the end (Ctrl-C stops following, not the reassignment).")
        else:
            render.print_json(_document(request, xplan, result, dry_run=False), compact=wait)
        if wait and started:
            from kadmin.commands import reassign_wait

            if records is None:  # verify's removal needs kadmin's record, even when this run set no throttle
                records = open_records(backend)
            reassign_wait.wait(backend, parsed.plan, plan_file, request.plan_id, records, output, every)
    if result.failures or result.aborted:
        n = len(result.failures)
        failed = f"{n} change{'s' if n != 1 else ''} failed" if n else ""
        raise ClusterError(
            "; ".join(x for x in (failed, result.aborted) if x),
            hint=f"the rollback file {request.rollback_path} holds the assignment from before this run",
        )


def _wait_interval(interval: str) -> float:
    from kadmin.errors import InputError
    from kadmin.units import parse_duration

    every = parse_duration(interval)
    if every <= 0:
        raise InputError("--interval must be more than 0 with --wait")
    return every


def _document(request, xplan, result, *, dry_run: bool) -> dict:
    from kadmin.commands.render_reassign import change_json, tp_json

    if result is None:
        changes = [change_json(c) for c in xplan.changes()]
    else:
        changes = [change_json(c, e) for c, e in result.applied]
    return {
        "version": 1,
        "dry_run": dry_run,
        "plan_id": request.plan_id,
        "rollback_file": request.rollback_path,
        "changes": changes,
        "unchanged": [tp_json(tp) for tp in xplan.unchanged],
        "failures": 0 if result is None else len(result.failures),
        "aborted": None if result is None else result.aborted,
    }


_INCREMENTAL_ONLY = ("max_parallel_replicas", "max_parallel_partitions", "max_leader_movements",
                     "max_moves_per_broker", "state_file")


def _only_with_incremental(incremental: bool) -> None:
    """--max-* and --state-file shape an incremental run; given without --incremental they would
    be silently ignored while every replica moves at once, so refuse them."""
    from click.core import ParameterSource

    from kadmin.errors import UsageError

    if incremental:
        return
    ctx = click.get_current_context()
    given = [f"--{name.replace('_', '-')}" for name in _INCREMENTAL_ONLY
             if ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)]
    if given:
        raise UsageError(f"{', '.join(given)} only apply to --incremental runs (without it every replica moves at once)")


@contextlib.contextmanager
def _file_problems_first(parsed, people: bool):
    """A plan file with problems of its own is reported as such (exit 2) even when the cluster
    cannot be reached; with a reachable cluster its problems are listed with the cluster's, at once."""
    from kadmin.errors import ClusterError
    from kadmin.plan.validate import PlanProblems

    try:
        yield
    except ClusterError:
        if not parsed.problems:
            raise
        n = len(parsed.problems)
        if not people:
            from kadmin.commands import render

            render.print_json({"version": 1, "problems": [p.to_json() for p in parsed.problems]})
        raise PlanProblems(f"the reassignment plan has {n} problem{'s' if n != 1 else ''} of its own "
                           "(the cluster could not be reached to check the rest); nothing was changed",
                           list(parsed.problems)) from None
