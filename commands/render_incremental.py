"""Rendering for ``kadmin reassign execute --incremental`` (``kadmin.execute.incremental``):
progress on stderr (a bar on a terminal, plain lines otherwise), the batch preview of
``--dry-run`` and the end of a run (a line, or one JSON document with ``--output json``). The
run itself is in ``reassign_incremental``."""

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
        self._paused: set[tuple[int, str]] = set()  # offline directories said to hold the run

    def _echo(self, text: str) -> None:
        if self.enabled:
            click.echo(text, err=True)

    def planned(self, state, resumed) -> None:
        from kadmin.units import counted

        verb = "Resuming" if resumed else "Planned"
        partitions = sum(1 for p in state.partitions.values() if p.steps)
        self._echo(
            f"{verb}: {counted(state.steps_total, 'step')} over {counted(partitions, 'partition')}; "
            f"{state.steps_completed} done."
        )

    def throttles(self, action, changes) -> None:
        if changes:  # none: all was set already (a resumed run), or nothing was left to remove
            from kadmin.units import counted

            self._echo(f"Throttles {action} ({counted(changes, 'config change')}):")

    def config_change(self, change, before=None) -> None:
        """Said with the value it replaces (``before``: what was set), as plain execute says it."""
        from kadmin.commands.render_reassign import change_text

        self._echo(f"  done    {change_text(change, before)}")

    def batch(self, number, steps) -> None:
        shown = ", ".join(f"{s.tp} step {s.number}/{s.of} -> {','.join(map(str, s.after))}" for s in list(steps)[:4])
        more = f" (+{len(steps) - 4} more)" if len(steps) > 4 else ""
        self._echo(f"Batch {number}: {shown}{more}")

    def progress(self, p) -> None:
        self._say_paused(p)
        now = time.monotonic()
        if now - self._last < self.every:
            return
        self._last = now
        self._echo(_progress_line(p))

    def note(self, message) -> None:
        if message != self._last_note:  # a wait repeated every poll: say it once
            self._last_note = message
            self._echo(f"note: {message}")

    def brokers(self, down, back) -> None:
        """A broker a step left needs: down (a warning, in the words of every report that lacks
        a down broker: ``render.not_answering``) and what the run does, or back (a note)."""
        from kadmin.commands.render import not_answering
        from kadmin.model import DOWN_ERROR

        if down:
            who, _ = not_answering(dict.fromkeys(down, DOWN_ERROR))
            one = len(down) == 1
            self._echo(
                f"kadmin: warning: {who}: the steps with a replica on {'it' if one else 'them'} finish only once "
                f"{'it is' if one else 'they are'} back; waiting (Ctrl-C stops the run, which the same command "
                "resumes)"
            )
        if back:
            one = len(back) == 1
            self._echo(f"note: broker{'' if one else 's'} {', '.join(map(str, back))} {'is' if one else 'are'} back")

    def _say_paused(self, p) -> None:
        """An offline directory that holds a running step or a move between directories: a
        warning once, when first seen, as a down broker is said; a note once nothing waits on
        it any more."""
        now = set(p.paused)
        for b, path in sorted(now - self._paused):
            self._echo(
                f"kadmin: warning: broker {b}'s log directory {path} is offline: what the run copies there, or from "
                "there, is paused until the broker restarts with that directory back, and resumes then; waiting "
                "(Ctrl-C stops the run, which the same command resumes)"
            )
        for b, path in sorted(self._paused - now):
            self._echo(f"note: nothing waits for broker {b}'s log directory {path} any more")
        self._paused = now

    def finished(self, p) -> None:
        self._echo("Done: " + _progress_line(p))

    def close(self) -> None:
        """Nothing to tidy for plain lines."""


class IncrementalBar(IncrementalLines):
    """On a terminal: a rich progress bar ("step x of y", bytes copied of the total, rate, ETA)
    with the batch and throttle messages printed above it."""

    def __init__(self):
        super().__init__(True)
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        from kadmin.commands import render

        self.bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            console=render.stderr(),
            transient=False,
        )
        self.task = None

    def _echo(self, text: str) -> None:
        self.bar.console.print(text, highlight=False, markup=False)

    def planned(self, state, resumed) -> None:
        super().planned(state, resumed)
        self.bar.start()

    def progress(self, p) -> None:
        self._say_paused(p)
        if self.task is None:
            self.task = self.bar.add_task(p.step_label, total=p.bytes_total or None)
        self.bar.update(
            self.task,
            description=f"{p.step_label} ({len(p.in_flight)} running{_waiting(p, ', ')}{_paused(p, ', ')})",
            completed=p.bytes_done,
            total=p.bytes_total or None,
        )

    def finished(self, p) -> None:
        self.progress(p)
        self.close()
        self._echo("Done: " + _progress_line(p))

    def close(self) -> None:
        self.bar.stop()  # also on Ctrl-C or an error: give the terminal its cursor back


def incremental_reporter() -> IncrementalLines:
    import sys

    return IncrementalBar() if sys.stderr.isatty() else IncrementalLines(True)


def _progress_line(p) -> str:
    from kadmin.units import format_duration, format_size

    left = p.steps_done < p.steps_total or p.bytes_done < p.bytes_total
    eta = f", ETA {format_duration(p.eta_seconds)}" if p.eta_seconds is not None and left else ""
    return (
        f"{p.step_label}, {len(p.in_flight)} running, {format_size(p.bytes_done)} of "
        f"{format_size(p.bytes_total)} copied{eta}{_waiting(p, ', ')}{_paused(p, ', ')}"
    )


def _paused(p, sep: str) -> str:
    """ "paused: broker 1's /var/lib/kafka/data0 is offline": the offline directories that
    hold the run (no ETA is shown meanwhile)."""
    if not p.paused:
        return ""
    dirs = [f"broker {b}'s {path}" for b, path in p.paused]
    return f"{sep}paused: {', '.join(dirs)} {'is' if len(dirs) == 1 else 'are'} offline"


def _waiting(p, sep: str) -> str:
    """ "waiting for broker 3 (down)": the down brokers a running step has a replica on."""
    from kadmin.units import plural

    if not p.waiting_for:
        return ""
    return f"{sep}waiting for {plural('broker', len(p.waiting_for))} {', '.join(map(str, p.waiting_for))} (down)"


def print_preview(people, steps, batches, render, log_dir_moves=(), throttle_changes=(), throttles_before=None) -> None:
    """The batches, the replicas sent to named log directories before the first one
    (``log_dir_moves``: the plan's LogDirMove changes) and the throttle config changes made
    before it (``throttle_changes``, each with the value it replaces: ``throttles_before``),
    each as the run prints it."""
    from kadmin.commands.render_reassign import change_json, change_text

    if not people:
        render.print_json(
            {
                "version": 1,
                "dry_run": True,
                "batches": [
                    [
                        {
                            "topic": s.tp.topic,
                            "partition": s.tp.partition,
                            "step": s.number,
                            "of": s.of,
                            "replicas": list(s.after),
                        }
                        for s in b
                    ]
                    for b in batches
                ],
                "log_dir_moves": [
                    {
                        "topic": m.replica.topic,
                        "partition": m.replica.partition,
                        "broker": m.replica.broker,
                        "log_dir": m.target_dir,
                        "replica_exists": m.current_dir is not None,
                    }
                    for m in log_dir_moves
                ],
                "throttle_changes": [change_json(c, throttles_before=throttles_before) for c in throttle_changes],
            }
        )
        return
    from kadmin.units import counted

    total = sum(len(c) for c in steps.values())
    click.echo(
        f"{counted(total, 'step')} over {counted(sum(1 for c in steps.values() if c), 'partition')}, "
        f"{counted(len(batches), 'batch')} if each waits for the previous one:"
    )
    if throttle_changes:
        click.echo(f"Throttles, set before the first batch ({counted(len(throttle_changes), 'config change')}):")
        for c in throttle_changes:
            click.echo(f"  {change_text(c, throttles_before)}")
    for i, b in enumerate(batches, 1):
        click.echo(f"Batch {i}: " + ", ".join(f"{s.tp} -> {','.join(map(str, s.after))}" for s in b))
    if log_dir_moves:
        click.echo(f"Log directories, sent before the first batch ({counted(len(log_dir_moves), 'replica')}):")
        for m in log_dir_moves:
            r = m.replica
            where = f"from {m.current_dir}" if m.current_dir is not None else "created there by its step"
            click.echo(f"  {r.topic}-{r.partition} on broker {r.broker} -> {m.target_dir} ({where})")


def note_kept_rates(kept) -> None:
    """A resumed run sets the rates its state keeps (``RunRates.kept``: (flag, rate)), and says
    so on stderr."""
    from kadmin.units import format_rate

    if kept:
        flags = ", ".join(f"{flag} {format_rate(r)}" for flag, r in kept)
        click.echo(
            f"kadmin: note: resumed with the throttles this run began with (its state file keeps them): {flags}",
            err=True,
        )


def warn_down(control, steps, cluster) -> None:
    """The one warning naming the down brokers the run's throttles leave out (as plain execute
    and ``throttle set`` say it), if any."""
    from kadmin.commands import render

    warning = control.warning(steps, cluster)
    if warning is not None:
        render.warn(warning)


def print_in_progress(people, state_path, saved) -> None:
    """``--dry-run`` of a run in progress: how far it got."""
    from kadmin.commands import render

    if people:
        click.echo(
            f"A run of this plan is in progress (state file {state_path}); "
            f"{saved.steps_completed} of {saved.steps_total} steps done."
        )
    else:
        render.print_json(
            {
                "version": 1,
                "dry_run": True,
                "state_file": str(state_path),
                "steps_total": saved.steps_total,
                "steps_done": saved.steps_completed,
            }
        )


def print_done(people, pid, state_path, saved, rollback_file=None) -> None:
    """Every partition already has its planned replicas: nothing to run, nothing written.
    ``rollback_file``: the one the finished run of this plan recorded (``saved``), if still there."""
    from kadmin.commands import render

    total = saved.steps_total if saved is not None and saved.finished else 0
    if people:
        when = " (a run of this plan finished earlier)" if saved is not None and saved.finished else ""
        click.echo(f"Nothing to do: every partition of the plan already has its planned replicas{when}.")
        if rollback_file is not None:
            click.echo(
                f"Rollback file: {rollback_file} (the assignment from before this plan's first step; to roll back: "
                f"kadmin reassign execute --reassignment-json-file {rollback_file})"
            )
        return
    render.print_json(_run_document(pid, state_path, rollback_file, total, already_done=True))


def _run_document(
    pid,
    state_path,
    rollback_file,
    steps_total,
    *,
    resumed=False,
    steps_run=0,
    batches=0,
    bytes_total=0,
    elapsed=0.0,
    **extra,
) -> dict:
    """The --output json document of a run that ran (or found the plan done): one shape."""
    return {
        "version": 1,
        "dry_run": False,
        "plan_id": pid,
        "state_file": str(state_path),
        "rollback_file": rollback_file,
        "resumed": resumed,
        "steps_total": steps_total,
        "steps_run": steps_run,
        "batches": batches,
        "bytes_total": bytes_total,
        "elapsed_seconds": round(elapsed, 3),
        **extra,
    }


def print_finished(people, result, pid, state_path, plan_file, backend, election, rollback_discarded) -> None:
    """The end of a run (``result``: ``IncrementalResult``): the warning of throttles left with
    another connection, then a line and the election, or one JSON document."""
    from kadmin.commands import render
    from kadmin.commands.render_leaders import election_json, print_election

    if result.throttles_left_with:
        render.warn(throttles_left_message(result.throttles_left_with, plan_file, backend))
    if people:
        from kadmin.units import counted

        click.echo(
            f"Finished: {counted(result.steps_total, 'step')}, {counted(result.batches, 'batch')} in this run, "
            f"{result.elapsed:.0f}s. "
            "Run again, the same command says the plan is done."
        )
        if election is not None:
            print_election(election)
        return
    extra: dict = {}
    if result.throttles_left_with:
        extra["throttles_left_with"] = [CONNECTION_FLAGS.get(v, v) for v in result.throttles_left_with]
    if election is not None:
        extra["preferred_election"] = election_json(election)
    render.print_json(
        _run_document(
            pid,
            state_path,
            None if rollback_discarded else result.rollback_file,
            result.steps_total,
            resumed=result.resumed,
            steps_run=result.steps_run,
            batches=result.batches,
            bytes_total=result.bytes_total,
            elapsed=result.elapsed,
            **extra,
        )
    )


CONNECTION_FLAGS = {"admin": "--bootstrap-server", "zookeeper": "--zookeeper"}


def throttles_left_message(left, plan_file, backend) -> str:
    """The run's throttles this connection could not remove: their record is kept through the
    other connection (``left``: "admin", "zookeeper", or "unknown")."""
    here = CONNECTION_FLAGS.get(getattr(backend, "name", ""), "this connection")
    known = [CONNECTION_FLAGS[v] for v in left if v in CONNECTION_FLAGS]
    if not known:
        return (
            f"the plan is complete but the throttles this run set are still set: kadmin has no record of them "
            f"through {here}; if an earlier part of the run went through the other connection, "
            f"`kadmin reassign verify --reassignment-json-file {plan_file}` through it removes them; otherwise "
            "`kadmin throttle show` lists them and `kadmin throttle clear --stale` removes them"
        )
    where = " and ".join(known)
    return (
        f"the plan is complete but the throttles an earlier part of this run set through {where} are still set: "
        f"their record is kept through that connection, which this run ({here}) cannot see; "
        f"`kadmin reassign verify --reassignment-json-file {plan_file} {known[0]} ...` removes them"
    )
