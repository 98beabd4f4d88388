"""``kadmin throttle clear``: remove a plan's throttles, the stale ones, or all, never one a
running move still needs (unless --force)."""

from __future__ import annotations

import click

from kadmin.commands.options import cluster_options, open_cluster, output_option


@click.command()
@click.option(
    "--plan",
    "plan_file",
    metavar="FILE",
    type=click.Path(exists=True, dir_okay=False),
    help="Remove what kadmin recorded for this reassignment file (its plan id is the file's hash).",
)
@click.option(
    "--stale",
    is_flag=True,
    help="Remove every throttle no move needs (running, or a step still to come of an incremental run), whoever set it.",
)
@click.option("--all", "all_", is_flag=True, help="Remove every throttle, whoever set it.")
@click.option("--force", is_flag=True, help="Also remove throttles a running reassignment or log-dir move still needs.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation (only asked on a terminal).")
@click.option("--dry-run", is_flag=True, help="Print what would be removed; change nothing.")
@cluster_options
@output_option(("table", "json"))
def clear(cluster, output, plan_file, stale, all_, force, yes, dry_run):
    """Remove replication throttles: those kadmin set for a plan (--plan FILE), those no
    move needs (--stale), or all of them (--all). A throttle an ongoing reassignment or log-dir
    move still needs, or a step still to come of an incremental run (`reassign execute
    --incremental`, between its batches too), is kept, and named, unless --force; --plan FILE of
    that incremental plan itself removes what its steps to come need (the run sets it again
    before its next batch). Prints what it removed.

    \b
    --output json prints schemas/throttle-clear-result.json, alone on stdout.
    """
    from pathlib import Path

    from kadmin.errors import UsageError
    from kadmin.throttling.operations import plan_throttle_clear, remove_throttles
    from kadmin.throttling.record import plan_id
    from kadmin.throttling.state import read_throttle_state
    from kadmin.throttling.stores import open_record_store

    if sum([plan_file is not None, stale, all_]) != 1:
        raise UsageError("choose exactly one of --plan FILE, --stale or --all")

    from kadmin.commands import render

    with open_cluster(cluster, read_only=dry_run) as backend:
        store = open_record_store(backend)
        state = read_throttle_state(backend, store)
        # --all removes every throttle whoever set it: a record that cannot be read changes
        # nothing of that, and is left as it is (the others are brought in line). --plan and
        # --stale decide by what kadmin set, so they refuse, with --dry-run too (it refuses
        # whatever the run refuses before its first change).
        state.require_records(unless_only_some_records=all_)
        from kadmin.commands.render_throttles import warn_down_brokers, warn_not_taken

        # A real run ends with one error naming what it could not remove on brokers that are down.
        warn_down_brokers(state, "removed" if not dry_run else "listed", unreadable=dry_run)
        warn_not_taken(state)  # why a stuck node's requests keep no throttle
        if all_ and state.unreadable_records:
            left = "it is" if len(state.unreadable_records) == 1 else "they are"
            render.warn(f"{state.records_error}: left as {left} ({state.records_hint})")
        pid = plan_id(Path(plan_file).read_bytes()) if plan_file is not None else None
        cplan = plan_throttle_clear(state, plan_id=pid, stale=stale, force=force)
        if cplan is None:
            render.warn(
                f"kadmin has no record of throttles set for plan {pid} ({plan_file}) here: nothing to remove "
                "(records are kept per connection, ZooKeeper with --zookeeper, a topic with --bootstrap-server: "
                "if kadmin set them through the other one, clear through it; `kadmin throttle clear --stale` "
                "removes every throttle no move needs)"
            )
            _print(output, (), [], state, dry_run, left_down=())
            return
        removal = cplan.removal
        if removal.changes and not dry_run and not yes and render.stdout_is_tty() and _stdin_is_tty():
            _print("table", removal.changes, [], state, True, heading="Would remove:")
            click.confirm(f"Remove these {len(removal.changes)} throttle settings?", abort=True, err=True)
        if not dry_run:
            from kadmin.backends.config_outcomes import ConfigChangesInterrupted, ConfigChangesPartlyMade, InTurn

            try:
                remove_throttles(InTurn(backend), store, removal, state.records, cplan.updated)
            except ConfigChangesInterrupted as e:  # Ctrl-C: what was removed, what may have been, exit 130
                _print_interrupted(output, removal.changes, e, state)
            except ConfigChangesPartlyMade as e:  # what was removed is printed, then the error
                _print(output, [c for c in removal.changes if c in e.made], [], state, False)
                e.hint = "; ".join(
                    h for h in (e.hint, "kadmin's records still name the rest: the same command removes it") if h
                )
                raise
    _print(
        output, removal.changes, list(cplan.kept_needed), state, dry_run, left_down=cplan.left_down_lines(), stale=stale
    )
    if cplan.removal.shared:
        # The same rate recorded by other plans too: theirs as well, so it stays for the last of them.
        render.warn(
            "kept, because other kadmin plans set the same rate and still claim it (the last of them to be verified "
            "or cleared removes it):"
        )
        for line in cplan.kept_shared_lines():
            click.echo(f"  {line}", err=True)
    if cplan.left_down:
        from kadmin.commands.render_throttles import left_down_message
        from kadmin.errors import ClusterError

        # What is left on a down broker is not cleared: a script running `clear && ...` must not
        # be told it was (exit 1, after removing the rest); --dry-run exits as the run would.
        if dry_run:
            raise ClusterError(
                "nothing was changed (dry run); the run would not clear everything: what kadmin recorded on "
                f"{_brokers(cplan.left_down)} (named above) cannot be removed while it is down",
                hint="run it once the broker is back",
            )
        raise ClusterError(left_down_message(cplan.left_down, state.unreadable_brokers))


def _print_interrupted(output, changes, interrupted, state) -> None:
    """Ctrl-C while removing: the changes made printed as a run prints them, those sent without an
    answer as UNKNOWN (they may have been made), then one line on stderr and exit 130. kadmin's
    records were left as they were: they still name the rest, and the same command removes it."""
    from kadmin.commands.reassign_wait import EXIT_INTERRUPTED
    from kadmin.units import counted

    made = [c for c in changes if c in interrupted.made]
    unknown = [c for c in changes if c in interrupted.unanswered]
    _print(output, made, [], state, False, unanswered=unknown)
    not_sent = len(changes) - len(made) - len(unknown)
    click.echo(
        f"kadmin: interrupted: {counted(len(made), 'throttle setting')} removed, {len(unknown)} unknown (sent, no "
        f"answer), {not_sent} not sent; kadmin's records still name the rest: run the same `kadmin throttle clear` "
        "again to remove it",
        err=True,
    )
    raise click.exceptions.Exit(EXIT_INTERRUPTED)


def _brokers(left_down) -> str:
    from kadmin.units import plural

    return f"{plural('broker', len(left_down))} {', '.join(map(str, sorted(left_down)))}"


def _stdin_is_tty() -> bool:
    import sys

    return sys.stdin.isatty()


def _print(output, changes, kept, state, dry_run, heading=None, left_down=(), stale=False, unanswered=None) -> None:
    """``unanswered``: after a Ctrl-C, the changes sent without an answer (JSON ``unanswered``)."""
    from kadmin.commands import render
    from kadmin.commands.render_throttles import change_line, changes_json

    if output == "json":
        render.print_json(
            {
                "version": 1,
                "dry_run": dry_run,
                "removed": changes_json(changes, state.current.as_set()),
                "kept_needed": kept,
                "left_on_down_brokers": list(left_down),
                **(
                    {"interrupted": True, "unanswered": changes_json(unanswered, state.current.as_set())}
                    if unanswered is not None
                    else {}
                ),
            }
        )
        return
    if heading is None:
        heading = "Would remove (dry run, nothing changed):" if dry_run else "Removed:"
    if changes or unanswered is not None:
        click.echo(heading)
        for c in changes:
            click.echo("  " + change_line(c, state.current.as_set()))
        for c in unanswered or ():  # after a Ctrl-C: sent, no answer
            click.echo(f"  UNKNOWN {change_line(c, state.current.as_set())}: sent, no answer: it may have been made")
    else:
        click.echo("Nothing to remove.")
    if kept:
        render.warn(
            "kept, because a running reassignment or log-dir move, or an incremental run's steps to come, still need "
            "them" + (":" if stale else " (use --force to remove):")  # --stale never removes what a move needs
        )
        for k in kept:
            click.echo(f"  {k}", err=True)
