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
    from kadmin.commands.render_progress import reporter_for
    from kadmin.commands.render_reassign import verify_report
    from kadmin.execute.follow import wait_for_plan
    from kadmin.execute.sampler import Sampler

    clock = follow_clock()
    sample = Sampler(backend, plan, clock=clock.now)
    try:
        with reporter_for(output) as reporter:
            outcome = wait_for_plan(
                backend,
                plan,
                sample,
                plan_id=plan_id,
                records=records,
                clock=clock,
                reporter=reporter,
                interval=interval,
            )
    except KeyboardInterrupt:
        click.echo(
            "Interrupted: the reassignment goes on and its throttles stay.\n"
            f"  Watch it:        kadmin reassign progress --reassignment-json-file {plan_file} --watch\n"
            f"  Clean up later:  kadmin reassign verify --reassignment-json-file {plan_file}  "
            "(removes the throttles this plan set once it has finished)\n"
            "  (with this run's connection options)",
            err=True,
        )
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
    election = None
    if elect_preferred:
        from kadmin.execute.elect import elect_after_plan
        from kadmin.plan.verify import State

        election = elect_after_plan(backend, plan, outcome.result.state is State.COMPLETE)
    verify_report(output, plan_id, outcome, compact=True, election=election)
