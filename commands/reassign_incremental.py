"""``kadmin reassign execute --incremental``: the Click side of ``kadmin.execute.incremental``.

Called by ``reassign_execute.execute`` with its checked flags (``ExecuteParams``) and the
connection's opener. Under the state file's lock (``kadmin.execute.state_file``): decide fresh,
resume or start over (``kadmin.execute.incremental_resume``), refuse what the run would refuse
before its first change (``--dry-run`` too), keep a rollback file as long as the state file,
run the steps (progress on stderr: ``render_incremental``), elect preferred leaders when asked,
and report the end (one JSON document with ``--output json``).
"""

from __future__ import annotations

import click


def run(params, opener) -> None:
    """--incremental (``kadmin.execute.incremental``). A fresh run validates the plan exactly as
    a plain run does and writes the rollback file; a run that finds its unfinished state file
    resumes (the plan was validated when it started; the state file's plan digest proves it is
    the same plan) and names the rollback file the state records, or, when there is none (it
    was removed), writes one from the state's replicas from before the first step. The
    rollback file stays as long as the state file does. A plan the cluster already matches is
    a clean no-op that says so. Progress goes to stderr; ``--output json`` prints one document
    on stdout at the end."""
    import contextlib
    from pathlib import Path

    from kadmin.execute import state_file
    from kadmin.execute.preamble import prepare
    from kadmin.execute.rollback import utc_now

    prepared = prepare(params, utc_now())
    state_path = Path(params.state_file) if params.state_file else state_file.default_state_path(params.plan_file)
    state_file.check_writable(state_path)
    from kadmin.errors import ReassignmentInProgress

    # One run of a state at a time, for the whole run (a --dry-run changes nothing: it takes none).
    with contextlib.ExitStack() as stack:
        if not params.dry_run:
            try:
                stack.enter_context(state_file.locked(state_path))
            except ReassignmentInProgress as e:
                raise _held_by_another_plan(e, state_path, prepared.parsed.plan) from None
        _run_locked(params, opener, prepared, state_path)


def _held_by_another_plan(refusal, state_path, plan):
    """The lock's refusal, said as what it is when the run holding the state file is of
    another plan (its state names another plan's digest): not "another run of this plan"."""
    import re

    from kadmin.errors import ReassignmentInProgress
    from kadmin.execute import state_file
    from kadmin.execute.incremental_resume import plan_fingerprint

    try:
        saved = state_file.load(state_path)
    except Exception:  # the refusal as the lock said it stands
        return refusal
    if saved is None or saved.plan_digest == plan_fingerprint(plan):
        return refusal
    pid = re.search(r"\(pid (\S+?),", refusal.message)
    other = saved.plan_file or "its plan file is not recorded"
    return ReassignmentInProgress(
        f"a run of another plan ({other}) holds the state file {state_path}"
        + (f" (pid {pid.group(1)})" if pid else "")
        + "; nothing was changed",
        hint="pass another --state-file for this plan",
    )


def _run_locked(params, opener, prepared, state_path) -> None:
    """The run of ``run``, under the state file's lock."""
    import time
    from dataclasses import replace
    from pathlib import Path

    from kadmin.commands import options, render
    from kadmin.commands.render_incremental import (
        incremental_reporter,
        note_kept_rates,
        print_done,
        print_finished,
        print_in_progress,
        print_preview,
        warn_down,
    )
    from kadmin.execute.executor import plan_execution, read_cluster
    from kadmin.execute.incremental import run_incremental
    from kadmin.execute.incremental_batches import preview_batches
    from kadmin.execute.incremental_resume import (
        assignment_before,
        forget_unstarted_state,
        fresh_start,
        limits_of_run,
        preflight,
        recorded_rollback,
        refuse_partitions_moving,
        rollback_of,
    )
    from kadmin.execute.incremental_throttles import throttles_before
    from kadmin.execute.preamble import (
        RollbackFile,
        check_rollback_path,
        open_for_execute,
        refuse_unrecorded_throttles,
    )
    from kadmin.execute.step_throttles import rates_of_run, throttles_of_run

    plan, people, pid = prepared.parsed.plan, params.people, prepared.plan_id
    checked = preflight(state_path, plan)  # fresh, resume or start over; another plan's run refused
    saved, resuming = checked.saved, checked.resume
    if checked.started_over:  # before anything is written: history, start over
        click.echo(
            f"kadmin: note: the state file {state_path} holds a finished run of another plan: starting over", err=True
        )
        saved = None
    request = replace(prepared.request, additional=params.additional or resuming)  # a resumed run joins its own
    # A resumed run goes on under the rates it began with (its state keeps them), unless given anew.
    rates = rates_of_run(saved if resuming else None, params.throttle_rate, params.log_dir_rate)
    rate, log_dir_rate = rates.rate, rates.log_dir_rate
    if params.dry_run:  # nothing is resumed: say what a run would resume with
        _note_would_keep_rates(rates.kept)
    else:
        note_kept_rates(rates.kept)
    # ... and under the limits it began with: one not given on resume keeps the state's value.
    run_limits = limits_of_run(saved if resuming else None, params.limits, params.given)
    if resuming:
        _note_limits(run_limits, params.dry_run)
    params = replace(params, limits=run_limits.limits)
    with open_for_execute(prepared, opener, read_only=params.dry_run) as backend:
        records = options.open_records(backend.backend)
        # Every refusal the run makes before its first change, --dry-run makes too.
        refuse_unrecorded_throttles(rate is not None or log_dir_rate is not None, records)
        # Resumed from a state that keeps no rate: what an earlier part set is still removed at the end.
        control = throttles_of_run(
            backend,
            pid,
            records,
            rate=rate,
            log_dir_rate=log_dir_rate,
            inherited=checked.inherits_throttles,
            plan_file=request.plan_file,
            plan=plan,
        )
        if resuming and control is not None and control.sets:
            assert saved is not None  # resuming means a saved state
            # a down broker given no rate: said once, before any change (--dry-run too)
            warn_down(control, {tp: p.steps for tp, p in saved.partitions.items()}, backend.describe_cluster())
        if resuming and params.dry_run:
            assert saved is not None  # resuming means a saved state
            print_in_progress(people, state_path, saved)
            return
        # A run that will send a step has a rollback file of the assignment from before the
        # plan's first step: the one the state records, or one written now.
        recorded = recorded_rollback(checked)
        write_rollback = recorded is None
        if resuming and write_rollback:
            assert saved is not None  # resuming means a saved state
            check_rollback_path(request.rollback_path)
            before = assignment_before(saved)
        fresh = None  # a resumed run goes on with the steps its state keeps
        if not resuming:
            view = read_cluster(backend, prepared.parsed, records)
            # A partition moving already is refused as such first: plan_execution would say "another
            # reassignment is running ... pass --additional", which --incremental then refuses too.
            refuse_partitions_moving(plan, view.ongoing)
            # validates (ZooKeeper with /admin/reassign_partitions there too: a resumed run waits for
            # its own node instead); raises, changing nothing
            xplan = plan_execution(request, view, now=time.time())
            for warning in xplan.warnings:
                render.warn(warning)
            # what run_incremental refuses before its first step, and the rollback file
            fresh = fresh_start(backend, plan, view, xplan, params.limits, request.rollback_path)
            done, steps = fresh.done, fresh.steps
            if control is not None and not done:  # a down broker given no rate: before any change
                warn_down(control, steps, view.cluster)
            if params.dry_run:
                throttle_changes = control.preview(steps, view.cluster) if control is not None else ()
                # each said with the value it replaces, as the run says it
                set_now = throttles_before(backend, plan, steps, view.cluster.brokers) if throttle_changes else None
                print_preview(
                    people,
                    steps,
                    preview_batches(steps, params.limits, view.log_dirs),  # as the run chooses them
                    render,
                    xplan.log_dir_moves,
                    throttle_changes,
                    set_now,
                )
                return
            if done:
                print_done(people, pid, state_path, saved, rollback_of(saved))
                return
        with RollbackFile(request.rollback_path, backend) as rollback:
            if not resuming:
                rollback.write(request.rollback_path, xplan.rollback)
                if people:
                    click.echo(
                        f"Saving the current assignment to {request.rollback_path} (to roll back: "
                        f"kadmin reassign execute --reassignment-json-file {request.rollback_path})"
                    )
            elif write_rollback:
                rollback.write(request.rollback_path, before)
                if people:
                    click.echo(
                        f"No rollback file of this run found: saving the assignment from before its first step "
                        f"(the state file's; log directories not kept) to {request.rollback_path} (to roll back: "
                        f"kadmin reassign execute --reassignment-json-file {request.rollback_path})"
                    )
            elif people:
                click.echo(
                    f"Rollback file: {recorded} (the assignment from before this plan's first step; to roll back: "
                    f"kadmin reassign execute --reassignment-json-file {recorded})"
                )
            if people:
                click.echo(
                    f"State file: {state_path} (should the run stop before its end, the same command resumes it)"
                )
            reporter = incremental_reporter()
            try:
                result = run_incremental(
                    backend,
                    plan,
                    params.limits,
                    state_path,
                    reporter,
                    plan_file=request.plan_file,
                    throttle=control,
                    rollback_file=str(Path(request.rollback_path).absolute()) if write_rollback else None,
                    checked=checked,
                    fresh=fresh,  # planned once: the steps checked above are the run's
                )
            except KeyboardInterrupt as e:
                click.echo(
                    f"Interrupted. Steps already sent go on; throttles stay. Run the same command again to "
                    f"resume (state file {state_path}).",
                    err=True,
                )
                if not people:  # the document all the same, naming the state and rollback files
                    _print_interrupted(e, pid, state_path)
                raise
            finally:
                reporter.close()
                forget_unstarted_state(rollback, backend, state_path, fresh=not resuming)
        election = None
        if params.elect_preferred:  # KIP-435: leader movements at most --max-leader-movements at a time
            from kadmin.execute.elect import elect_after_plan

            election = elect_after_plan(backend.backend, plan, True, batch_size=params.limits.max_leader_movements)
    from kadmin.commands.render_leaders import raise_if_failed

    print_finished(people, result, pid, state_path, params.plan_file, backend, election, rollback.discarded)
    raise_if_failed(election)


def _note_would_keep_rates(kept) -> None:
    """``--dry-run`` of a run in progress: the rates a run would resume with (stderr)."""
    from kadmin.units import format_rate

    if kept:
        flags = ", ".join(f"{flag} {format_rate(r)}" for flag, r in kept)
        click.echo(
            f"kadmin: note: would resume with the throttles this run began with (its state file keeps them): {flags}",
            err=True,
        )


def _note_limits(run_limits, dry_run: bool = False) -> None:
    """A resumed run says the --max-* limits in force: those its state file keeps and those
    given now in their place (stderr)."""

    def shown(value) -> str:
        return "no limit" if value is None else str(value)

    from kadmin.execute.incremental_resume import LIMIT_FLAGS

    limits = run_limits.limits
    now = ", ".join(f"{flag} {shown(getattr(limits, name))}" for name, flag in LIMIT_FLAGS.items())
    changed = "; ".join(f"{flag} {shown(new)} replaces {shown(old)}" for flag, old, new in run_limits.replaced)
    click.echo(
        f"kadmin: note: {'would resume' if dry_run else 'resumed'} under the limits this run began with "
        "(its state file keeps them), "
        f"unless given now: {now}" + (f" ({changed})" if changed else ""),
        err=True,
    )


def _print_interrupted(interrupt, pid, state_path) -> None:
    """``--output json`` after Ctrl-C: the run's document with ``aborted: "interrupted"``, from
    how far it got (``RunInterrupted``), or from the state file when it was stopped before."""
    from kadmin.commands import render
    from kadmin.commands.render_incremental import _run_document
    from kadmin.execute import state_file
    from kadmin.execute.incremental import RunInterrupted

    if isinstance(interrupt, RunInterrupted):
        r = interrupt.result
        doc = _run_document(
            pid,
            state_path,
            r.rollback_file,
            r.steps_total,
            resumed=r.resumed,
            steps_run=r.steps_run,
            batches=r.batches,
            bytes_total=r.bytes_total,
            elapsed=r.elapsed,
        )
    else:
        saved = state_file.load(state_path)
        total = saved.steps_total if saved is not None else 0
        doc = _run_document(pid, state_path, saved.rollback_file if saved is not None else None, total)
    render.print_json({**doc, "aborted": "interrupted"})
