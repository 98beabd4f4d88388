"""``kadmin reassign verify``: where a plan stands; removes the throttles it set once unneeded."""

from __future__ import annotations

import click

from kadmin.commands.options import cluster_options, open_cluster, output_option


@click.command()
@click.option("--reassignment-json-file", "plan_file", required=True, metavar="FILE",
              type=click.Path(dir_okay=False), help="The plan that was executed.")
@click.option("--preserve-throttles", is_flag=True, help="Leave the throttles this plan set in place.")
@cluster_options
@output_option(("table", "json"))
def verify(cluster, output, plan_file, preserve_throttles):
    """State of every partition and every log-dir replica of the plan, in Kafka's words.

    \b
    Exit 0 when complete, 3 while in progress, 4 when nothing runs but the cluster differs
    from the plan, 1 when a broker holding a log-dir replica of the plan is down or not
    answering (no verdict rather than a wrong one). Removes only the throttles this plan set,
    and only those no running move (of this plan or any other) still needs; a rate on a broker
    that is down stays recorded for the next verify. --preserve-throttles keeps them all.
    """
    from pathlib import Path

    from kadmin.execute.verification import run_verify
    from kadmin.plan.reassignment_file import read_reassignment
    from kadmin.throttling.record import plan_id

    from kadmin.commands.reassign_execute import open_records

    parsed = read_reassignment(plan_file)
    if parsed.problems:
        from kadmin.errors import InputError

        raise InputError(f"reassignment file {plan_file} is not a valid plan", [str(p) for p in parsed.problems])
    pid = plan_id(Path(plan_file).read_bytes())
    # Read-only unless throttles may be removed: verify never changes anything else.
    with open_cluster(cluster, read_only=preserve_throttles) as backend:
        records = None if preserve_throttles else open_records(backend)
        outcome = run_verify(backend, parsed.plan, plan_id=pid, records=records, preserve_throttles=preserve_throttles)
    report(output, pid, outcome)


def report(output, pid, outcome, *, compact: bool = False) -> None:
    """Print a verify outcome as verify prints it (lines, or its JSON document; ``compact``:
    on one line, for JSON-line streams) and raise its exit-3/4 errors. ``execute --wait``
    ends with this too."""
    from kadmin.commands import render
    from kadmin.commands.render_reassign import change_json
    from kadmin.errors import DiffersFromPlan, StillInProgress
    from kadmin.plan.verify import State

    result = outcome.result
    removed = list(outcome.removal.changes) if outcome.removal else []
    kept = outcome.removal.kept if outcome.removal else None
    if output == "json":
        render.print_json({
            "version": 1,
            "plan_id": pid,
            "state": result.state.value,
            "partitions": [
                {"topic": v.tp.topic, "partition": v.tp.partition, "state": v.state.value,
                 "replicas": None if v.current is None else list(v.current), "target": list(v.target),
                 "message": v.message}
                for v in result.partitions
            ],
            "replicas": [
                {"topic": v.replica.topic, "partition": v.replica.partition, "broker": v.replica.broker,
                 "state": v.state.value, "move": v.move.value, "target_dir": v.target_dir,
                 "current_dir": v.current_dir, "future_dir": v.future_dir, "message": v.message}
                for v in result.replicas
            ],
            "throttles_removed": [change_json(c) for c in removed],
            "throttles_kept": bool(kept is not None and not kept.empty),
        }, compact=compact)
    else:
        click.echo("Status of partition reassignment:")
        for v in result.partitions:
            click.echo(v.message)
        if result.replicas:
            click.echo("")
            click.echo("Status of replica log dir movement:")
            for v in result.replicas:
                click.echo(v.message)
        if removed:
            from kadmin.execute.changes import describe

            click.echo("")
            click.echo("Removed throttles this plan set:")
            for c in removed:
                click.echo(f"  {describe(c)}")
        if kept is not None and not kept.empty:
            click.echo("Throttles this plan set that running moves still need were kept; verify again later.")
    if result.state is State.IN_PROGRESS:
        raise StillInProgress(
            f"still in progress: {_count(result.partitions, State.IN_PROGRESS, 'partition')} reassigning, "
            f"{_count(result.replicas, State.IN_PROGRESS, 'log-dir replica')} moving"
        )
    if result.state is State.DIFFERS:
        raise DiffersFromPlan(
            f"nothing of this plan is moving, but {_count(result.partitions, State.DIFFERS, 'partition')} and "
            f"{_count(result.replicas, State.DIFFERS, 'log-dir replica')} differ from it"
        )


def _count(verdicts, state, noun: str) -> str:
    n = sum(1 for v in verdicts if v.state is state)
    return f"{n} {noun}{'s' if n != 1 else ''}"
