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
    nothing to cancel. Exit 1 when a move in scope cannot be stopped or seen now: a broker with
    log-dir moves is down or not answering, a log-dir move is paused (its source directory is
    offline), or a directory a move may be copying into is offline. The rest is cancelled; run it
    again once the broker or directory is back.

    Cancelling reassignments needs --bootstrap-server (KIP-455's API, as Kafka's own --cancel);
    over --zookeeper a plan with running reassignments is refused (exit 1, nothing changed).
    Requests only written in a stuck /admin/reassign_partitions (see `kadmin reassign list`)
    are no running reassignment: nothing is cancelled, the node is left alone and the way to
    remove it is said (exit 1); a controller change would start them.
    """
    from kadmin.commands import render
    from kadmin.commands.render_reassign import LineReporter, change_json
    from kadmin.errors import ClusterError, UsageError
    from kadmin.execute.cancel import apply_cancel, prepare_cancel
    from kadmin.plan.reassignment_file import read_reassignment
    from kadmin.units import counted

    if bool(plan_file) == cancel_all:
        raise UsageError("give either --reassignment-json-file FILE or --all")
    plan = None
    if plan_file:
        plan = read_reassignment(plan_file).plan  # a bad file: PlanProblems, exit 2
    people = output == "table"
    with open_cluster(cluster, read_only=False) as backend:
        cplan, left = prepare_cancel(backend, plan)
        zookeeper = getattr(backend, "zookeeper", None)
        if people:
            if cplan.changes():
                click.echo("Cancelling:")
            elif not left:
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
    problems = _left_running(left, plan is not None, zookeeper)
    if result.failures:
        problems.insert(0, ClusterError(f"{counted(len(result.failures), 'cancellation')} failed"))
    for later in problems[1:]:
        render.warn(f"{later.message} ({later.hint})" if later.hint else later.message)
    if problems:
        raise problems[0]


def _left_running(left, of_plan: bool, zookeeper: str | None) -> list:
    """The errors for what a cancel left running (``kadmin.execute.cancel.Uncancelled``), most
    pressing first: a stuck request (a controller change starts it), a paused or unseen log-dir
    move (it resumes when its directory comes back), a broker that could not be asked."""
    from kadmin.errors import ClusterError, ConnectionFailed
    from kadmin.units import plural

    again = "run the same cancel again once the {} back"
    out = []
    if left.stuck:
        from kadmin.backends.base import not_taken_reason
        from kadmin.backends.zk_paths import CONTROLLER, REASSIGN_PARTITIONS

        them = "them" if len(left.stuck) > 1 else "it"
        whose = "this plan's " if of_plan else ""
        out.append(
            ClusterError(
                f"{not_taken_reason(left.blocked, left.stuck, whose)}: "
                f"nothing runs to cancel, and the request stays in the node, where a controller change (a "
                f"failover, or deleting {CONTROLLER}) would start {them}",
                hint=f"to drop {them}, delete the node (every request in it goes): `zookeeper-shell.sh "
                f"{zookeeper or 'HOST:PORT[/chroot]'} delete {REASSIGN_PARTITIONS}`; only then delete {CONTROLLER}, "
                "so that the new controller watches for new reassignments again",
            )
        )
    if left.paused:
        moves = ", ".join(f"{r.topic}-{r.partition} on broker {r.broker} (to {d})" for r, d in left.paused)
        out.append(
            ClusterError(
                f"the log-dir {plural('move', len(left.paused))} of {moves} "
                f"{'is' if len(left.paused) == 1 else 'are'} paused: the source directory is offline, and Kafka "
                "refuses to put a replica back into an offline directory (KAFKA_STORAGE_ERROR), so none was "
                "cancelled; the restart that brings the directory back resumes it",
                hint=again.format("directory is"),
            )
        )
    if left.offline_dirs:
        where = "; ".join(f"broker {b}: {', '.join(dirs)}" for b, dirs in left.offline_dirs.items())
        one = sum(map(len, left.offline_dirs.values())) == 1
        out.append(
            ClusterError(
                f"{'an offline log directory' if one else 'offline log directories'} ({where}) {'lists' if one else 'list'} no "
                f"replica, so a log-dir move into {'it' if one else 'one'} cannot be seen, and none there was cancelled; the broker's "
                "restart that brings the directory back resumes such a move",
                hint=again.format("directory is"),
            )
        )
    if left.unseen:
        names = ", ".join(map(str, left.unseen))
        out.append(
            ConnectionFailed(
                f"log-dir moves on {plural('broker', len(left.unseen))} {names} could not be seen (not alive, or not "
                "answering), so none there was cancelled",
                hint=again.format("broker is"),
            )
        )
    return out
