"""``kadmin reassign progress``: KIP-179's progress table with bytes, rate and ETA; live with --watch."""

from __future__ import annotations

import sys

import click

from kadmin.commands.options import cluster_options, open_cluster, output_option


@click.command()
@click.option(
    "--reassignment-json-file",
    "plan_file",
    metavar="FILE",
    type=click.Path(exists=True, dir_okay=False),
    help="Only this plan's replicas (default: every ongoing reassignment and log-dir move, whoever started it).",
)
@click.option(
    "--watch",
    "-w",
    is_flag=True,
    help="Keep refreshing until every move is done (Ctrl-C stops watching, not the moves).",
)
@click.option(
    "--interval",
    default=None,
    metavar="DURATION",
    help="Time between samples (default 2s with --watch). Without --watch, when anything moves, a "
    "second sample this far after the first (default 1s) gives the rate and ETA "
    "(0: one sample, no rate).",
)
@cluster_options
@output_option(("table", "json"))
def progress(cluster, output, plan_file, watch, interval):
    """Show how replica moves are going: per replica KIP-179's status (In sync, Behind: N
    messages, Unknown topic/partition/broker, Broker does not host this partition; kadmin's
    Offline, Unknown: its broker did not answer, and Unknown: its broker is down), bytes moved
    and left, copy rate and ETA, and totals; for moves between brokers and between log
    directories.

    \b
    With --output json: one JSON document per line (schemas/progress-snapshot.json), one per
    interval with --watch. Exit 0 when nothing moves any more, 3 while moves are in progress, 1
    when nothing is seen moving but a broker did not answer or is down (its moves cannot be
    seen). With --reassignment-json-file, when nothing moves but the cluster differs from the
    plan (a cancelled move), a note says so (JSON: differs_from_plan); still exit 0: verify
    says what differs (exit 4). Exit 4 too when every move left is a paused log-dir move (its
    source or destination directory offline): nothing copies until the broker restarts with
    that directory back, as verify says (--watch ends there).

    \b
    Over --zookeeper, the requests of a /admin/reassign_partitions the controller is not acting
    on (stuck) are not moves: no broker carries them out. They are named apart (JSON: waiting),
    and once nothing else in scope moves, progress is an error naming the node and the way out
    (exit 1), as verify is: they will not finish by themselves.
    """
    from kadmin.errors import EXIT_IN_PROGRESS, ClusterError, InputError
    from kadmin.execute.follow import ONE_SHOT_GAP, follow, sample_once
    from kadmin.units import parse_duration

    every = parse_duration(interval) if interval is not None else (2.0 if watch else ONE_SHOT_GAP)
    if watch and every <= 0:
        raise InputError("--interval must be more than 0 with --watch")
    plan = _read_plan(plan_file) if plan_file else None

    from kadmin.backends.base import reassignment_blocked
    from kadmin.commands import render
    from kadmin.commands.render_progress import AllPaused, JsonLines, StopWhenPaused, progress_table, reporter_for
    from kadmin.execute.clock import SystemClock
    from kadmin.execute.sampler import Sampler

    clock = SystemClock()
    with open_cluster(cluster, read_only=True) as backend:
        sample = Sampler(backend, plan, clock=clock.now)
        if watch:
            blocked = reassignment_blocked(backend)
            if blocked is not None and blocked.stuck:  # what it lists will not move until it is removed
                render.warn(f"{blocked.reason}. {blocked.hint}")
            with reporter_for(output, err=False) as reporter:
                try:
                    snap = follow(sample, clock, every, StopWhenPaused(reporter))
                except AllPaused as e:  # nothing copies until a broker restarts: following would not end
                    snap = e.snap
            if output != "json" and not sys.stdout.isatty():
                render.stdout().print(progress_table(snap, moving_first=True))  # the end state, after the lines
        else:
            snap = sample_once(sample, clock, every)
            if output == "json":
                JsonLines().snapshot(snap)
            elif not snap.replicas and not snap.unanswered:
                click.echo("No partition reassignment or log-dir move in progress.")  # plain text: no need to load rich
            else:
                render.stdout().print(progress_table(snap, notes=False))  # said once, on stderr (below)
            # Said once: in the error when the requests not taken are all that is left (below).
            blocked = sample.blocked if snap.waiting else reassignment_blocked(backend)
            if blocked is not None and blocked.stuck and not (snap.waiting and _stopped(snap)):
                render.warn(_not_taken_message(blocked, snap.waiting, plan) + f". {blocked.hint}")
    if not watch:  # --watch's views said it as it went
        from kadmin.commands.render_progress import (
            differs_note,
            differs_when_done,
            held_note,
            unanswered_note,
            unestimated_note,
        )

        if snap.unanswered:
            render.warn(unanswered_note(snap))
        if held := held_note(snap):
            render.warn(held)
        if snap.unread_end_offsets:
            render.warn(unestimated_note(snap))
        if differs_when_done(snap):  # the exit stays 0: nothing moves (verify exits 4)
            render.warn(differs_note(snap))
    if snap.waiting and _stopped(snap) and sample.blocked is not None:
        raise ClusterError(_not_taken_message(sample.blocked, snap.waiting, plan), hint=sample.blocked.hint)
    if snap.done:
        return
    if snap.paused_only:  # as verify says of it: nothing runs, the cluster differs (exit 4)
        from kadmin.commands.render_progress import paused_note
        from kadmin.errors import DiffersFromPlan

        raise DiffersFromPlan(f"nothing copies: {paused_note(snap)}")
    if snap.unseen_only:
        raise _unseen_error(snap.unanswered)
    raise click.exceptions.Exit(EXIT_IN_PROGRESS)


def _stopped(snap) -> bool:
    """Nothing in scope is seen moving (what is unseen aside)."""
    return snap.done or snap.unseen_only


def _not_taken_message(blocked, waiting, plan) -> str:
    """What blocks new reassignments and is stuck, and which requests in scope it holds that no
    broker is moving (verify's words); just the reason when there are none."""
    from kadmin.backends.base import not_taken_reason

    if not waiting:
        return blocked.reason
    whose = "this plan's " if plan is not None else ""
    return not_taken_reason(blocked, [w.tp for w in waiting], whose) + " (not in progress, not finished)"


def _unseen_error(unanswered):
    """Nothing seen moving, but the moves of the brokers ``unanswered`` names (broker -> why)
    cannot be seen: the hint fits why. Asking again helps a broker that did not answer; a down
    broker's moves resume, and can be seen, only once it is back."""
    from kadmin.errors import ClusterError
    from kadmin.model import is_down_error
    from kadmin.units import plural

    down = [b for b, why in unanswered.items() if is_down_error(why)]
    if not down:
        return ClusterError(
            "cannot tell whether every move is done: not every broker answered", hint="run progress again"
        )
    are = "is" if len(down) == 1 else "are"
    which = f"{plural('broker', len(down))} {', '.join(map(str, down))} {are} down"
    also = " and not every other broker answered" if len(down) < len(unanswered) else ""
    return ClusterError(
        f"cannot tell whether every move is done: {which}{also}",
        hint="their moves resume when they restart: run progress again once they are back"
        if len(down) > 1
        else "its moves resume when it restarts: run progress again once it is back",
    )


def _read_plan(plan_file):
    from kadmin.plan.reassignment_file import read_reassignment

    return read_reassignment(plan_file).plan  # a bad file: PlanProblems, exit 2
