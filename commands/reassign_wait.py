"""``kadmin reassign execute --wait``: the Click side of ``kadmin.execute.follow``.

Called by ``reassign_execute.execute`` once the plan has started. Progress is rendered as
``reassign progress --watch`` renders it (its sampler, table and JSON document): a live table on
stderr when stderr is a terminal, plain lines on stderr otherwise, JSON lines on stdout with
``--output json``. The end is reported as ``reassign verify`` reports it, with its exit codes.
"""

from __future__ import annotations

import click

EXIT_INTERRUPTED = 130


def follow_clock():
    """The clock and sleep of the wait (one name, so tests can drive simulated time)."""
    from kadmin.execute.clock import SystemClock

    return SystemClock()


def wait(
    backend, plan, plan_file: str, plan_id: str, records, output: str, interval: float, *, elect_preferred: bool = False
) -> None:
    """Follow the started ``plan`` to its end, verify it, remove its throttles, report as verify
    does (raising its exit-4 error when the cluster differs). Ctrl-C stops following only.
    ``elect_preferred``: once complete, elect the preferred leaders of the plan's partitions."""
    from kadmin.commands.render_progress import AllPaused, StopWhenPaused, reporter_for
    from kadmin.commands.render_reassign import verify_report
    from kadmin.execute.follow import wait_for_plan
    from kadmin.execute.sampler import Sampler
    from kadmin.throttling.operations import ThrottleRemovalFailed

    clock = follow_clock()
    sample = Sampler(backend, plan, clock=clock.now)
    failed = None
    try:
        with reporter_for(output) as reporter:
            outcome = wait_for_plan(
                backend,
                plan,
                sample,
                plan_id=plan_id,
                records=records,
                clock=clock,
                reporter=StopWhenPaused(reporter),
                interval=interval,
            )
    except AllPaused as e:
        # Nothing copies until a broker restarts with its directory back: the wait ends here, and
        # verify (removing what no move needs; a paused move's log-dir rate stays) says why, exit 4.
        from kadmin.commands.render_progress import PlainLines, paused_note
        from kadmin.execute.verification import run_verify

        if output != "json" and type(reporter) is not PlainLines:  # plain lines just said it
            click.echo(f"kadmin: nothing copies: {paused_note(e.snap)}", err=True)
        try:
            outcome = run_verify(backend, plan, plan_id=plan_id, records=records, clock=clock)
        except ThrottleRemovalFailed as removal_failed:
            failed = removal_failed
    except ThrottleRemovalFailed as removal_failed:  # the verdict still comes first, as verify says it
        failed = removal_failed
    except KeyboardInterrupt:
        if output == "json":  # the stream ends on a document that says so, not on a progress snapshot
            from kadmin.commands import render

            render.print_json_line(interrupted_document(plan_id, plan_file))
        click.echo(
            "Interrupted: the reassignment goes on and its throttles stay.\n"
            f"  Watch it:        {_follow(plan_file)}\n"
            f"  Clean up later:  {_clean_up(plan_file)}  "
            "(removes the throttles this plan set once it has finished)\n"
            f"  Stop it:         {_cancel(plan_file)}  (partitions return to their original replicas)\n"
            "  (with this run's connection options)",
            err=True,
        )
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
    if failed is not None:
        from kadmin.commands.reassign_verify import report_failed_removal, with_failed_removal
        from kadmin.execute.verification import run_verify

        outcome = with_failed_removal(run_verify(backend, plan, plan_id=plan_id, records=None, clock=clock), failed)
        report_failed_removal(output, plan_id, outcome, None, failed, compact=True)
        return
    election = None
    if elect_preferred:
        from kadmin.execute.elect import elect_after_plan
        from kadmin.plan.verify import State

        election = elect_after_plan(backend, plan, outcome.result.state is State.COMPLETE)
    verify_report(output, plan_id, outcome, compact=True, election=election)


def interrupted_document(plan_id: str, plan_file: str) -> dict:
    """The last JSON line of a --wait interrupted by Ctrl-C (schemas/reassign-wait-interrupted.json):
    following stopped, the changes of the stream's first document stay (the moves go on, the
    throttles stay), and the commands that follow, clean up or undo them."""
    return {
        "version": 1,
        "plan_id": plan_id,
        "aborted": "interrupted",
        "follow": _follow(plan_file),
        "clean_up": _clean_up(plan_file),
        "cancel": _cancel(plan_file),
    }


def _follow(plan_file: str) -> str:
    return f"kadmin reassign progress --reassignment-json-file {plan_file} --watch"


def _clean_up(plan_file: str) -> str:
    return f"kadmin reassign verify --reassignment-json-file {plan_file}"


def _cancel(plan_file: str) -> str:
    return f"kadmin reassign cancel --reassignment-json-file {plan_file}"
