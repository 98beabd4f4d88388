"""``kadmin reassign cancel``: stop reassignments and log-dir moves, and say what was stopped."""

from __future__ import annotations

import click

from kadmin.commands.options import cluster_options, open_cluster, output_option


@click.command()
@click.option(
    "--reassignment-json-file",
    "plan_file",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Cancel this plan's reassignments and log-dir moves.",
)
@click.option("--all", "cancel_all", is_flag=True, help="Cancel every reassignment and log-dir move in the cluster.")
@cluster_options
@output_option(("table", "json"))
def cancel(cluster, output, plan_file, cancel_all):
    """Cancel reassignments (partitions return to their original replicas) and log-dir moves
    (replicas stay in their current directory). Give a plan, or --all.

    Throttles are left in place: `kadmin reassign verify` or `kadmin throttle clear --stale`
    removes them once nothing needs them. Running it twice is safe: the second run finds
    nothing to cancel. Exit 1 when a broker with log-dir moves of the plan is down or not
    answering: the rest is cancelled; run it again once the broker is back.

    Cancelling reassignments needs --bootstrap-server (KIP-455's API, as Kafka's own --cancel);
    over --zookeeper a plan with running reassignments is refused (exit 1, nothing changed).
    """
    from kadmin.commands import render
    from kadmin.commands.render_reassign import LineReporter, change_json
    from kadmin.errors import ClusterError, UsageError
    from kadmin.execute.cancel import apply_cancel, prepare_cancel
    from kadmin.plan.reassignment_file import read_reassignment
    from kadmin.units import plural

    if bool(plan_file) == cancel_all:
        raise UsageError("give either --reassignment-json-file FILE or --all")
    plan = None
    if plan_file:
        plan = read_reassignment(plan_file).plan  # a bad file: PlanProblems, exit 2
    people = output == "table"
    with open_cluster(cluster, read_only=False) as backend:
        cplan, unseen = prepare_cancel(backend, plan)
        if people:
            if cplan.changes():
                click.echo("Cancelling:")
            elif not unseen:
                whose = "of this plan" if plan is not None else "in the cluster"
                click.echo(f"Nothing to cancel: no reassignment or log-dir move {whose} is running.")
        result = apply_cancel(backend, cplan, LineReporter(people))
    if not people:
        render.print_json(
            {
                "version": 1,
                "cancelled": [change_json(c, e) for c, e in result.applied],
                "failures": len(result.failures),
            }
        )
    if result.failures:
        raise ClusterError(f"{len(result.failures)} cancellation(s) failed")
    if unseen:
        from kadmin.errors import ConnectionFailed

        names = ", ".join(map(str, unseen))
        raise ConnectionFailed(
            f"log-dir moves on {plural('broker', len(unseen))} {names} could not be seen (not alive, or not "
            "answering), so none there was cancelled",
            hint="run the same cancel again once the broker is back",
        )
