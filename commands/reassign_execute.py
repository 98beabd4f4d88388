"""``kadmin reassign execute``: validate a plan, save the rollback, set throttles, start moving.

The flags become one ``ExecuteParams`` (``kadmin.execute.params``, cross-flag rules in its
``validate()``); a plain run and an ``--incremental`` run share one preamble
(``kadmin.execute.preamble``: read the plan, open the backend, keep the rollback file only when
something moved) and differ only in what they do in between: the plain run is here, the
``--incremental`` run in ``reassign_incremental``.
"""

from __future__ import annotations

import click

from kadmin.commands.options import cluster_options, given_timeout, open_cluster, output_option


@click.command()
@click.option(
    "--reassignment-json-file",
    "plan_file",
    required=True,
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="The plan, in Kafka's reassignment JSON format.",
)
@click.option(
    "--throttle",
    metavar="RATE",
    help="Inter-broker replication throttle, e.g. 50MB/s (set on every source and destination broker, "
    "with throttled-replica lists merged into what is already set). A plan that moves no replica between "
    "brokers takes none, with a warning.",
)
@click.option(
    "--replica-alter-log-dirs-throttle",
    "log_dir_throttle",
    metavar="RATE",
    help="Throttle of moves between the directories of one broker, e.g. 20MB/s. A plan that moves no replica "
    "between directories takes none, with a warning.",
)
@click.option(
    "--additional",
    is_flag=True,
    help="Run in addition to reassignments already running (also: change a running plan's throttle).",
)
@click.option("--dry-run", is_flag=True, help="Validate and print every change that would be made; change nothing.")
@click.option(
    "--rollback-file",
    metavar="PATH",
    type=click.Path(dir_okay=False),
    help="Where to save the current assignment (default: next to the plan, with a timestamp).",
)
@click.option(
    "--allow-replication-factor-change", is_flag=True, help="Accept entries that change a partition's replica count."
)
@click.option(
    "--incremental",
    is_flag=True,
    help="Run the plan in KIP-435 steps under the --max-* limits and wait for the end; resumable.",
)
@click.option(
    "--max-parallel-replicas",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="--incremental: replicas added to one partition at once.",
)
@click.option(
    "--max-parallel-partitions",
    type=click.IntRange(min=1),
    default=None,
    help="--incremental: partitions moving at once (default: no limit).",
)
@click.option(
    "--max-leader-movements",
    type=click.IntRange(min=1),
    default=None,
    help="--incremental: steps moving a leader at once (default: no limit).",
)
@click.option(
    "--max-moves-per-broker",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="--incremental: replicas moving into or out of one broker at once.",
)
@click.option(
    "--state-file",
    metavar="PATH",
    type=click.Path(dir_okay=False),
    help="--incremental: where progress is kept (default: under $XDG_STATE_HOME/kadmin, keyed by the plan's path).",
)
@click.option(
    "--wait",
    is_flag=True,
    help="Follow the progress to the end, then verify and remove the throttles this plan set "
    "(exit codes as verify). Ctrl-C stops following, not the reassignment.",
)
@click.option(
    "--interval", default="2s", show_default=True, metavar="DURATION", help="--wait: time between progress samples."
)
@click.option(
    "--elect-preferred",
    is_flag=True,
    help="--wait or --incremental: once the plan is complete, elect the preferred leader of its partitions "
    "whose leader differs (--incremental: at most --max-leader-movements at a time).",
)
@cluster_options
@output_option(("table", "json"))
def execute(
    cluster,
    output,
    plan_file,
    throttle,
    log_dir_throttle,
    additional,
    dry_run,
    rollback_file,
    allow_replication_factor_change,
    incremental=False,
    max_parallel_replicas=1,
    max_parallel_partitions=None,
    max_leader_movements=None,
    max_moves_per_broker=5,
    state_file=None,
    wait=False,
    interval="2s",
    elect_preferred=False,
):
    """Validate the whole plan against the cluster (every problem at once, exit 2, nothing
    changed), write the rollback file, set throttles, request log-dir moves, start the
    reassignment, and retry moves of new replicas until --timeout as KIP-113 says (10s for these
    retries when --timeout is not given, as kafka-reassign-partitions.sh; 30s for the cluster).

    Refuses while another reassignment runs, unless --additional. Every change is printed;
    --dry-run prints the same changes and makes none. Ctrl-C while the changes are made stops
    sending: what was made is printed, what was sent without an answer says UNKNOWN, then what
    is left (throttles set, moves going on) and how to clean up, exit 130; the rollback file is
    kept once a move may have been sent.

    --incremental moves a few replicas at a time (KIP-435 steps), waits for each batch, keeps a
    state file, and removes its throttles at the end; run the same command again to resume.
    Replicas with a named log_dirs entry are sent there before the first step and again after
    the last, and the run ends once all are in place.

    \b
    --wait follows the progress live (on stderr: reassign progress --watch's table on a
    terminal, a line per --interval otherwise), then verifies and removes the throttles this
    plan set, exactly as `reassign verify` would. Exit 0 complete, 4 finished but different
    from the plan. With --output json, stdout is JSON lines: the execute result, one progress
    snapshot per interval (schemas/progress-snapshot.json), the verify result. Ctrl-C leaves
    the reassignment running, prints how to watch and clean up later, exit 130.
    --incremental already waits; --dry-run starts nothing to wait for.
    """
    from kadmin.execute.params import ExecuteParams
    from kadmin.plan.batches import Limits

    params = ExecuteParams(
        plan_file=plan_file,
        output=output,
        throttle=throttle,
        log_dir_throttle=log_dir_throttle,
        additional=additional,
        dry_run=dry_run,
        rollback_file=rollback_file,
        allow_replication_factor_change=allow_replication_factor_change,
        incremental=incremental,
        limits=Limits(max_parallel_replicas, max_parallel_partitions, max_leader_movements, max_moves_per_broker),
        state_file=state_file,
        wait=wait,
        interval=interval,
        elect_preferred=elect_preferred,
        timeout=given_timeout(cluster),  # KADMIN_TIMEOUT and a profile's too, as the connection's
        given=_given_flags(),
    )
    opener = lambda read_only: open_cluster(cluster, read_only=read_only)  # noqa: E731
    if incremental:
        from kadmin.commands import reassign_incremental

        return reassign_incremental.run(params, opener)
    return _run(params, opener)


def _given_flags() -> frozenset[str]:
    """The flags set on the command line (or by environment), not left at their defaults."""
    from click.core import ParameterSource

    ctx = click.get_current_context()
    return frozenset(
        f"--{name.replace('_', '-')}"
        for name in ctx.params
        if ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)
    )


def _nothing_to_change(plan, view, throttles: bool) -> str:
    """What a run that sends nothing says: the plan in place, or on its way with its throttles
    (a rate asked for where nothing moves is set nowhere: no move needs it)."""
    from kadmin.throttling.needs import log_dir_move_brokers

    moving = any(a.tp in view.ongoing for a in plan.partitions) or (
        view.log_dirs is not None and bool(log_dir_move_brokers(plan, view.log_dirs, view.cluster))
    )
    if moving:
        return (
            "Nothing to change: every partition of the plan already has, or is already moving to, its replicas "
            "and directories" + (", with the throttles asked for." if throttles else ".")
        )
    return "Nothing to change: every partition of the plan already has its replicas and directories." + (
        " Nothing moves, so no throttle is set." if throttles else ""
    )


def _run(params, opener) -> None:
    import time

    from kadmin.commands import options, render
    from kadmin.commands.render_reassign import LineReporter, print_plan_of_changes
    from kadmin.errors import ClusterError
    from kadmin.execute.executor import apply_execution, plan_execution, read_cluster
    from kadmin.execute.preamble import (
        RollbackFile,
        check_rollback_path,
        open_for_execute,
        prepare,
        refuse_unrecorded_throttles,
    )
    from kadmin.execute.rollback import utc_now
    from kadmin.throttling.record import who
    from kadmin.units import counted

    prepared = prepare(params, utc_now())
    request, people, wait = prepared.request, params.people, params.wait
    every = params.wait_interval if wait else None
    with open_for_execute(prepared, opener, read_only=params.dry_run) as backend:
        throttles = request.throttle is not None or request.log_dir_throttle is not None
        records = options.open_records(backend.backend) if throttles else None
        view = read_cluster(backend, prepared.parsed, records, throttles=throttles)
        # raises PlanProblems, or ReassignmentInProgress (ZooKeeper: /admin/reassign_partitions exists)
        xplan = plan_execution(request, view, now=time.time(), operator=who())
        for warning in xplan.warnings:  # before any change, --dry-run too (a down broker given no rate)
            render.warn(warning)
        # Every refusal the run makes before its first change, --dry-run makes too.
        refuse_unrecorded_throttles(bool(xplan.throttles.changes), records)
        if xplan.nothing_to_change:
            if people:
                click.echo(_nothing_to_change(prepared.parsed.plan, view, throttles))
            else:
                render.print_json(
                    {**_document(request, xplan, None, dry_run=params.dry_run), "changes": [], "rollback_file": None}
                )
            if wait:
                click.echo("kadmin: --wait: nothing was started, so there is nothing to wait for", err=True)
            return
        check_rollback_path(request.rollback_path)
        if params.dry_run:
            if people:
                print_plan_of_changes(xplan)
            else:
                render.print_json(_document(request, xplan, None, dry_run=True))
            if wait:
                click.echo("kadmin: --wait: a dry run starts nothing, so there is nothing to wait for", err=True)
            return
        if people:
            click.echo(
                f"Saving the current assignment to {request.rollback_path} (to roll back: "
                f"kadmin reassign execute --reassignment-json-file {request.rollback_path})"
            )
            click.echo("Changes:")
        reporter = LineReporter(people, xplan.throttles_before)
        with RollbackFile(request.rollback_path, backend) as rollback:
            result = apply_execution(
                backend,
                xplan,
                request,
                write_rollback=rollback.write,
                records=records,
                reporter=reporter,
                earlier_record=view.records.get(request.plan_id),
            )
        started = not result.failures and not result.aborted
        for change, why in result.unanswered:  # Ctrl-C: the changes sent without an answer close the list
            reporter.unanswered(change, why)
        if rollback.discarded and people:
            click.echo(f"Nothing was moved, so the rollback file {request.rollback_path} was removed again.")
        if result.interrupted:
            _interrupted(params, request, xplan, result, rollback)
        if people:
            if xplan.unchanged:
                n = len(xplan.unchanged)
                has = (
                    "already has, or is already moving to, its"
                    if n == 1
                    else "already have, or are already moving to, their"
                )
                click.echo(
                    f"{counted(n, 'partition')} {has} planned replicas and directories: "
                    f"nothing was sent for {'it' if n == 1 else 'them'}."
                )
            if started and not wait:
                click.echo(
                    "Started. Follow with `kadmin reassign verify --reassignment-json-file "
                    f"{params.plan_file}` (exit 3 while in progress)."
                )
            elif started:
                click.echo("Started. Following it to the end (Ctrl-C stops following, not the reassignment).")
        else:
            render.print_json(_document(request, xplan, result, dry_run=False, rollback=rollback), compact=wait)
        if wait and started:
            from kadmin.commands import reassign_wait

            if records is None:  # verify's removal needs kadmin's record, even when this run set no throttle
                records = options.open_records(backend.backend)
            assert every is not None  # set whenever wait is
            reassign_wait.wait(
                backend.backend,
                prepared.parsed.plan,
                params.plan_file,
                request.plan_id,
                records,
                params.output,
                every,
                elect_preferred=params.elect_preferred,
            )
    if result.failures or result.aborted:
        n = len(result.failures)
        failed = f"{counted(n, 'change')} failed" if n else ""
        from kadmin.commands.render_reassign import throttles_left

        rollback_hint = (
            "no replica was moved, so no rollback file was kept; fix the cause and run the same command again"
            if rollback.discarded
            else f"the rollback file {request.rollback_path} holds the assignment from before this run"
        )
        # the error's own hint first (what to fix: a login, a permission), then what stays
        hints = (result.hint, throttles_left(result, params.plan_file), rollback_hint)
        raise ClusterError("; ".join(x for x in (failed, result.aborted) if x), hint="; ".join(h for h in hints if h))


def _interrupted(params, request, xplan, result, rollback) -> None:
    """Ctrl-C stopped the run: the document (JSON), then what the run leaves in the cluster and
    how to go on (stderr); exit 130."""
    from kadmin.commands import render
    from kadmin.commands.reassign_wait import EXIT_INTERRUPTED
    from kadmin.commands.render_reassign import interrupted_message

    if not params.people:
        render.print_json(_document(request, xplan, result, dry_run=False, rollback=rollback))
    kept = None if rollback.discarded or not rollback.written else request.rollback_path
    click.echo(interrupted_message(xplan, result, params.plan_file, kept), err=True)
    raise click.exceptions.Exit(EXIT_INTERRUPTED)


def _document(request, xplan, result, *, dry_run: bool, rollback=None) -> dict:
    """The JSON document of a run (``result``) or a plan of changes (None). A rollback file
    removed again (``rollback.discarded``: nothing moved) is neither named nor listed among the
    changes: a path in the document is a file kept."""
    from kadmin.commands.render_reassign import change_json, tp_json
    from kadmin.execute.changes import WriteRollback

    before = xplan.throttles_before
    if result is None:
        made = [(c, None) for c in xplan.changes()]
    else:
        made = [*result.applied, *result.unanswered]
    discarded = rollback is not None and rollback.discarded
    changes = [change_json(c, e, before) for c, e in made if not (discarded and isinstance(c, WriteRollback))]
    return {
        "version": 1,
        "dry_run": dry_run,
        "plan_id": request.plan_id,
        "rollback_file": None if discarded else request.rollback_path,
        "changes": changes,
        "unchanged": [tp_json(tp) for tp in xplan.unchanged],
        "failures": 0 if result is None else len(result.failures),
        "aborted": None if result is None else result.aborted,
    }
