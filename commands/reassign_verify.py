"""``kadmin reassign verify``: where a plan stands; removes the throttles it set once unneeded."""

from __future__ import annotations

import click

from kadmin.commands.options import cluster_options, open_cluster, output_option


@click.command()
@click.option(
    "--reassignment-json-file",
    "plan_file",
    required=True,
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="The plan that was executed.",
)
@click.option("--preserve-throttles", is_flag=True, help="Leave the throttles this plan set in place.")
@click.option(
    "--elect-preferred",
    is_flag=True,
    help="Once the plan is complete, elect the preferred leader of its partitions whose leader differs.",
)
@cluster_options
@output_option(("table", "json"))
def verify(cluster, output, plan_file, preserve_throttles, elect_preferred=False):
    """State of every partition and every log-dir replica of the plan, in Kafka's words.

    \b
    Exit 0 when complete, 3 while in progress, 4 when nothing runs but the cluster differs
    from the plan, 1 when a broker holding a log-dir replica of the plan is down or not
    answering (no verdict rather than a wrong one). Removes only the throttles this plan set,
    and only those no running move (of this plan or any other) still needs; a rate on a broker
    that is down stays recorded for the next verify. --preserve-throttles keeps them all.
    """
    from pathlib import Path

    from kadmin.backends.config_outcomes import InTurn
    from kadmin.commands.options import open_records
    from kadmin.commands.render_reassign import verify_report
    from kadmin.execute.verification import run_verify
    from kadmin.plan.reassignment_file import read_reassignment
    from kadmin.throttling.operations import ThrottleRemovalFailed, ThrottleRemovalInterrupted
    from kadmin.throttling.record import plan_id

    parsed = read_reassignment(plan_file)  # a bad plan: PlanProblems, exit 2, as execute says it
    pid = plan_id(Path(plan_file).read_bytes())
    failed = None
    # Read-only unless throttles may be removed or leaders elected: verify changes nothing else.
    with open_cluster(cluster, read_only=preserve_throttles and not elect_preferred) as backend:
        records = None if preserve_throttles else open_records(backend)
        try:
            outcome = run_verify(  # a Ctrl-C while removing throttles says what was removed (InTurn)
                InTurn(backend), parsed.plan, plan_id=pid, records=records, preserve_throttles=preserve_throttles
            )
        except ThrottleRemovalInterrupted as e:  # Ctrl-C: what was removed, what may have been, exit 130
            report_interrupted_removal(output, pid, plan_file, e)
        except ThrottleRemovalFailed as e:  # the verdict still comes first, then what was and was not removed
            failed = e
            outcome = with_failed_removal(run_verify(backend, parsed.plan, plan_id=pid, records=None), e)
        election = None
        if elect_preferred:
            from kadmin.execute.elect import elect_after_plan
            from kadmin.plan.verify import State

            election = elect_after_plan(backend, parsed.plan, outcome.result.state is State.COMPLETE)
    if failed is None:
        verify_report(output, pid, outcome, election=election)
        return
    report_failed_removal(output, pid, outcome, election, failed)


def with_failed_removal(outcome, failed):
    """The verdict (read again, removing nothing) with what the failed removal did remove."""
    from dataclasses import replace

    from kadmin.units import counted

    why = f"{counted(len(failed.not_removed), 'change')} could not be made ({failed.message})"
    return replace(outcome, removal=failed.removed, kept_reason=why)


def report_failed_removal(output, pid, outcome, election, failed, *, compact: bool = False) -> None:
    """The verdict and what was removed, as usual (``compact``: as ``execute --wait`` ends);
    then what could not be removed, and exit 1 (the verdict's exit 3 or 4 is said in the error
    line)."""
    from kadmin.commands.render_reassign import verify_report
    from kadmin.errors import ClusterError, KadminError
    from kadmin.execute.changes import describe

    verdict = None
    try:
        verify_report(output, pid, outcome, compact=compact, election=election)
    except KadminError as e:  # still in progress, or differs: said with the failure below
        verdict = e
    if output != "json":
        click.echo("Throttles this plan set that could not be removed:", err=True)
        for c in failed.not_removed:
            click.echo(f"  {describe(c)}", err=True)
    said = f"{verdict.message}; " if verdict is not None else ""
    raise ClusterError(
        f"{said}removing this plan's throttles failed: {failed.message}",
        hint="; ".join(
            h for h in (failed.hint, "kadmin's record still names what is left: verify again removes it") if h
        ),
    )


def report_interrupted_removal(output, pid, plan_file, interrupted) -> None:
    """Ctrl-C while removing this plan's throttles: no verdict (nothing more is read), the
    throttles removed as verify lists them, those sent without an answer as UNKNOWN (they may
    have been removed), then one line on stderr and exit 130. kadmin's record was left as it
    was: it still names the rest, and verify again removes it."""
    from kadmin.commands import render
    from kadmin.commands.reassign_wait import EXIT_INTERRUPTED
    from kadmin.commands.render_reassign import change_json, removal_line, throttles_before_removal
    from kadmin.units import counted

    full = interrupted.removal
    before = throttles_before_removal(full)
    removed, unknown = interrupted.removed.changes, interrupted.unanswered
    if output == "json":
        render.print_json(
            {
                "version": 1,
                "plan_id": pid,
                "interrupted": True,
                "throttles_removed": [change_json(c, None, before) for c in removed],
                "throttles_unanswered": [change_json(c, None, before) for c in unknown],
                "throttles_not_sent": [change_json(c, None, before) for c in interrupted.not_removed],
            }
        )
    else:
        click.echo("Removed throttles this plan set:")
        for c in removed:
            click.echo(f"  {removal_line(c, full, before)}")
        for c in unknown:
            click.echo(f"  UNKNOWN {removal_line(c, full, before)}: sent, no answer: it may have been made")
    click.echo(
        f"kadmin: interrupted removing this plan's throttles: {counted(len(removed), 'throttle change')} made, "
        f"{len(unknown)} unknown (sent, no answer), {len(interrupted.not_removed)} not sent; kadmin's record still "
        f"names the rest: `kadmin reassign verify --reassignment-json-file {plan_file}` removes it",
        err=True,
    )
    raise click.exceptions.Exit(EXIT_INTERRUPTED)
