"""``kadmin reassign execute --wait``: the Click side of ``kadmin.execute.follow``.

Called by ``reassign_execute.execute`` once the plan has started. Progress is rendered as
``reassign progress --watch`` renders it (its sampler, table and JSON document): a live table on
stderr when stderr is a terminal, plain lines on stderr otherwise, JSON lines on stdout with
``--output json``. The end is reported as ``reassign verify`` reports it, with its exit codes.
"""

from __future__ import annotations

import click

from kadmin.execute.follow import FollowReporter

EXIT_INTERRUPTED = 130


def follow_clock():
    """The clock and sleep of the wait (one name, so tests can drive simulated time)."""
    from kadmin.execute.incremental import SystemClock

    return SystemClock()


class JsonLines(FollowReporter):
    """One progress snapshot per line on stdout (schemas/progress-snapshot.json)."""

    def snapshot(self, snap) -> None:
        from kadmin.commands import render
        from kadmin.commands.reassign_progress import _json

        render.print_json_line(_json(snap))


class PlainLines(FollowReporter):
    """A line per snapshot on stderr, for logs and CI (stderr is not a terminal)."""

    def snapshot(self, snap) -> None:
        click.echo(progress_line(snap), err=True)

    def still_running(self, outcome) -> None:
        click.echo("kadmin: nothing of the plan is copying, but the cluster still lists work running; waiting",
                   err=True)


class LiveTable(PlainLines):
    """``reassign progress --watch``'s table, refreshed in place on stderr."""

    def __init__(self):
        self.live = None

    def __enter__(self):
        return self

    def snapshot(self, snap) -> None:
        from rich.live import Live

        from kadmin.commands import render
        from kadmin.commands.reassign_progress import progress_table

        if self.live is None:
            self.live = Live(progress_table(snap), console=render.stderr(), auto_refresh=False, transient=False)
            self.live.start(refresh=True)
        else:
            self.live.update(progress_table(snap), refresh=True)

    def __exit__(self, *exc) -> None:
        if self.live is not None:
            self.live.stop()


def progress_line(snap) -> str:
    from kadmin.units import format_duration, format_rate, format_size

    t = snap.totals
    if snap.done:
        return f"kadmin: nothing of the plan moves any more ({format_size(t.moved_bytes)} moved)"
    rate = f", {format_rate(t.rate)}" if t.rate is not None else ""
    eta = f", ETA {format_duration(t.eta)}" if t.eta is not None else ""
    return (f"kadmin: {snap.reassigning_partitions} partition(s) reassigning, {t.moving_replicas} replica(s) "
            f"moving: {format_size(t.moved_bytes)} moved, {format_size(t.remaining_bytes)} left{rate}{eta}")


def reporter_for(output: str):
    import sys
    from contextlib import nullcontext

    if output == "json":
        return nullcontext(JsonLines())
    if sys.stderr.isatty():
        return LiveTable()
    return nullcontext(PlainLines())


def wait(backend, plan, plan_file: str, plan_id: str, records, output: str, interval: float) -> None:
    """Follow the started ``plan`` to its end, verify it, remove its throttles, report as verify
    does (raising its exit-4 error when the cluster differs). Ctrl-C stops following only."""
    from kadmin.commands.reassign_progress import Sampler
    from kadmin.commands.reassign_verify import report
    from kadmin.execute.follow import wait_for_plan

    clock = follow_clock()
    sample = Sampler(backend, plan, clock=clock.now)
    try:
        with reporter_for(output) as reporter:
            outcome = wait_for_plan(backend, plan, sample, plan_id=plan_id, records=records, clock=clock,
                                    reporter=reporter, interval=interval)
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
    report(output, plan_id, outcome, compact=True)
