"""``kadmin reassign execute --incremental``: the Click side of ``kadmin.execute.incremental``.

Called by ``reassign_execute.execute`` when ``--incremental`` is given. A fresh run validates
the plan exactly as a plain execute does and writes the rollback file; a run that finds its
state file resumes (the plan was validated when it started; the state file's plan digest
proves it is the same plan). Progress goes to stderr; ``--output json`` prints one document
on stdout at the end.
"""

from __future__ import annotations

import time

import click

from kadmin.execute.incremental import IncrementalReporter


class IncrementalLines(IncrementalReporter):
    """Progress as plain lines on stderr: each batch, and "step x of y" with bytes and ETA at
    most every ``every`` seconds."""

    def __init__(self, enabled: bool, every: float = 5.0):
        self.enabled = enabled
        self.every = every
        self._last = 0.0
        self._last_note: str | None = None

    def _echo(self, text: str) -> None:
        if self.enabled:
            click.echo(text, err=True)

    def planned(self, state, resumed) -> None:
        verb = "Resuming" if resumed else "Planned"
        self._echo(f"{verb}: {state.steps_total} step(s) over {len(state.partitions)} partition(s); "
                   f"{state.steps_completed} done.")

    def throttles(self, action, changes) -> None:
        self._echo(f"Throttles {action} ({changes} config change(s)).")

    def batch(self, number, steps) -> None:
        shown = ", ".join(f"{s.tp} step {s.number}/{s.of} -> {','.join(map(str, s.after))}" for s in list(steps)[:4])
        more = f" (+{len(steps) - 4} more)" if len(steps) > 4 else ""
        self._echo(f"Batch {number}: {shown}{more}")

    def progress(self, p) -> None:
        now = time.monotonic()
        if now - self._last < self.every:
            return
        self._last = now
        self._echo(_progress_line(p))

    def note(self, message) -> None:
        if message != self._last_note:  # a wait repeated every poll: say it once
            self._last_note = message
            self._echo(f"note: {message}")

    def finished(self, p) -> None:
        self._echo("Done: " + _progress_line(p))

    def close(self) -> None:
        """Nothing to tidy for plain lines."""


class IncrementalBar(IncrementalLines):
    """On a terminal: a rich progress bar ("step x of y", bytes copied of the total, rate, ETA)
    with the batch and throttle messages printed above it."""

    def __init__(self):
        super().__init__(True)
        from rich.progress import (BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn,
                                   TransferSpeedColumn)

        from kadmin.commands import render

        self.bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), DownloadColumn(),
                            TransferSpeedColumn(), TimeRemainingColumn(), console=render.stderr(), transient=False)
        self.task = None

    def _echo(self, text: str) -> None:
        self.bar.console.print(text, highlight=False, markup=False)

    def planned(self, state, resumed) -> None:
        super().planned(state, resumed)
        self.bar.start()

    def progress(self, p) -> None:
        if self.task is None:
            self.task = self.bar.add_task(p.step_label, total=p.bytes_total or None)
        self.bar.update(self.task, description=f"{p.step_label} ({len(p.in_flight)} running)",
                        completed=p.bytes_done, total=p.bytes_total or None)

    def finished(self, p) -> None:
        self.progress(p)
        self.close()
        self._echo("Done: " + _progress_line(p))

    def close(self) -> None:
        self.bar.stop()  # also on Ctrl-C or an error: give the terminal its cursor back


def incremental_reporter() -> IncrementalReporter:
    import sys

    return IncrementalBar() if sys.stderr.isatty() else IncrementalLines(True)


def _progress_line(p) -> str:
    from kadmin.units import format_duration, format_size

    eta = f", ETA {format_duration(p.eta_seconds)}" if p.eta_seconds is not None and p.steps_done < p.steps_total else ""
    return (f"{p.step_label}, {len(p.in_flight)} running, {format_size(p.bytes_done)} of "
            f"{format_size(p.bytes_total)} copied{eta}")


def run(cluster, output, plan_file, throttle, additional, dry_run, rollback_file, allow_rf_change,
        limits, state_file_path) -> None:
    from pathlib import Path

    from kadmin.commands import render
    from kadmin.commands.reassign_execute import open_records
    from kadmin.commands.options import open_cluster
    from kadmin.errors import UnsupportedOperation
    from kadmin.execute import state_file
    from kadmin.execute.executor import ExecuteRequest, plan_execution, read_cluster
    from kadmin.execute.incremental import min_insync_of, plan_fingerprint, run_incremental
    from kadmin.execute.step_throttles import RecordedThrottles
    from kadmin.execute.rollback import default_rollback_path, utc_now
    from kadmin.plan.batches import plan_batches
    from kadmin.plan.reassignment_file import read_reassignment, write_reassignment
    from kadmin.plan.steps import plan_steps
    from kadmin.throttling.record import plan_id
    from kadmin.config import parse_timeout
    from kadmin.units import parse_rate

    limits.validate()
    parsed = read_reassignment(plan_file)
    plan = parsed.plan
    state_path = Path(state_file_path) if state_file_path else state_file.default_state_path(plan_file)
    saved = state_file.load(state_path)
    resuming = saved is not None and saved.plan_digest == plan_fingerprint(plan) and not saved.finished
    pid = plan_id(Path(plan_file).read_bytes())
    rate = parse_rate(throttle) if throttle is not None else None
    people = output == "table"
    request = ExecuteRequest(
        parsed=parsed, plan_id=pid,
        rollback_path=str(rollback_file or default_rollback_path(plan_file, utc_now())),
        plan_file=str(Path(plan_file).resolve()), additional=additional or resuming,
        timeout=parse_timeout(cluster.timeout) if cluster.timeout else 10.0,
        allow_replication_factor_change=allow_rf_change,
    )
    with open_cluster(cluster, read_only=dry_run) as backend:
        records = open_records(backend)
        if rate is not None and records is None and not dry_run:
            raise UnsupportedOperation(
                "this connection has no place to record the throttles kadmin sets, so they could not be removed safely; nothing was changed",
                hint="run without --throttle, or set throttles with `kadmin throttle set`",
            )
        if not resuming:
            view = read_cluster(backend, parsed, records)
            xplan = plan_execution(request, view, now=time.time())  # validates; raises, changing nothing
            if dry_run:
                steps = plan_steps(plan, view.cluster.partitions, limits.max_parallel_replicas, min_insync_of(view.configs))
                batches = plan_batches(steps, limits)
                _print_preview(people, steps, batches, render)
                return
            if Path(request.rollback_path).exists():
                raise UnsupportedOperation(f"rollback file {request.rollback_path} already exists; nothing was changed",
                                           hint="choose another --rollback-file")
            write_reassignment(request.rollback_path, xplan.rollback)
            if people:
                click.echo(f"Saving the current assignment to {request.rollback_path} (to roll back: "
                           f"kadmin reassign execute --reassignment-json-file {request.rollback_path})")
        elif dry_run:
            if people:
                click.echo(f"A run of this plan is in progress (state file {state_path}); "
                           f"{saved.steps_completed} of {saved.steps_total} steps done.")
            else:
                render.print_json({"version": 1, "dry_run": True, "state_file": str(state_path),
                                   "steps_total": saved.steps_total, "steps_done": saved.steps_completed})
            return
        control = RecordedThrottles(backend, rate, pid, records, plan_file=request.plan_file) if rate is not None else None
        if people:
            click.echo(f"State file: {state_path} (run the same command again to resume)")
        reporter = incremental_reporter()
        try:
            result = run_incremental(
                backend, plan, limits, state_path, reporter, plan_file=request.plan_file, throttle=control,
            )
        except KeyboardInterrupt:
            click.echo(f"Interrupted. Steps already sent go on; throttles stay. Run the same command again to "
                       f"resume (state file {state_path}).", err=True)
            raise
        finally:
            reporter.close()
    if people:
        click.echo(f"Finished: {result.steps_total} step(s), {result.batches} batch(es) in this run, "
                   f"{result.elapsed:.0f}s.")
    else:
        render.print_json({
            "version": 1, "dry_run": False, "plan_id": pid, "state_file": str(state_path),
            "resumed": result.resumed, "steps_total": result.steps_total, "steps_run": result.steps_run,
            "batches": result.batches, "bytes_total": result.bytes_total, "elapsed_seconds": round(result.elapsed, 3),
        })


def _print_preview(people, steps, batches, render) -> None:
    if not people:
        render.print_json({
            "version": 1, "dry_run": True,
            "batches": [[{"topic": s.tp.topic, "partition": s.tp.partition, "step": s.number, "of": s.of,
                          "replicas": list(s.after)} for s in b] for b in batches],
        })
        return
    total = sum(len(c) for c in steps.values())
    click.echo(f"{total} step(s) over {sum(1 for c in steps.values() if c)} partition(s), "
               f"{len(batches)} batch(es) if each waits for the previous one:")
    for i, b in enumerate(batches, 1):
        click.echo(f"Batch {i}: " + ", ".join(f"{s.tp} -> {','.join(map(str, s.after))}" for s in b))
