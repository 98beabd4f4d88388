"""``kadmin log-dirs balance``: plan moves between the disks of each broker (KIP-113)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from kadmin.commands.options import cluster_options, int_list, open_cluster, output_option

if TYPE_CHECKING:
    from rich.console import JustifyMethod


def _evacuation(ctx, param, values):
    out = []
    for value in values:
        broker, sep, path = value.partition(":")
        try:
            if not sep or not path:
                raise ValueError
            out.append((int(broker), path))
        except ValueError:
            raise click.BadParameter(f"{value!r}: expected BROKER:PATH, e.g. 1:/var/kafka/data2") from None
    return out


@click.command()
@click.option("--broker-list", metavar="1,2,3", help="Brokers to balance (default: all).")
@click.option(
    "--max-moves",
    type=click.IntRange(min=0),
    metavar="N",
    help="Plan at most N moves, the most useful first (an evacuation needs all of its own).",
)
@click.option(
    "--evacuate",
    multiple=True,
    callback=_evacuation,
    metavar="BROKER:PATH",
    help="Empty this directory of its broker (repeatable); refused when the others cannot hold it.",
)
@click.option(
    "--output-file",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Write the plan here (reassignment JSON with log_dirs, for `reassign execute`); refuses to overwrite.",
)
@cluster_options
@output_option(("table", "json"))
def balance(cluster, output, broker_list, max_moves, evacuate, output_file):
    """Plan moves between the log directories of each broker so their used share of capacity is
    even, never into an offline or cordoned directory and never beyond usable bytes.

    Replica sets do not change. Moves already in flight are left alone and counted as done:
    between directories, the replica in its new directory; of a reassignment between brokers,
    a replica being removed as gone and one being added at its full size (its leader's).
    Prints usage per directory before (now) and after (once the moves in flight and the plan
    are done); the plan goes to --output-file (or, in table output, after the table). Nothing in
    the cluster changes.
    """

    from kadmin import logdirs
    from kadmin.plan.balance import balance_log_dirs, check_broker_list

    requested = int_list(broker_list, "--broker-list")
    check_broker_list(requested)  # before reading the cluster, as reassign balance and generate do
    if output_file:
        from kadmin.plan.reassignment_file import check_plan_path

        check_plan_path(output_file)
    with open_cluster(cluster, read_only=True) as backend:
        got = logdirs.read_for_balance(backend, requested, evacuate)
    from kadmin.commands import render

    render.warn_left_out(got.left_out)
    result = balance_log_dirs(got.cluster, got.dirs, brokers=sorted(got.dirs), max_moves=max_moves, evacuate=evacuate)

    from kadmin.plan.reassignment_file import format_reassignment, write_reassignment

    if output_file and result.moves:  # before printing: a refused write leaves no plan on stdout
        write_reassignment(output_file, result.plan)
    if output == "json":
        render.print_json(balance_document(result))
    else:
        render.stdout().print(balance_table(result, bars=render.stdout_is_tty()))
        click.echo(balance_summary(result))
        for note in result.notes:
            click.echo(f"Note: {note}")
        if result.moves and not output_file:
            click.echo(f"\nProposed partition reassignment configuration\n{format_reassignment(result.plan)}")
    if output_file:
        if result.moves:
            click.echo(f"kadmin: plan with {len(result.moves)} moves written to {output_file}", err=True)
        else:
            click.echo(f"kadmin: nothing to move; {output_file} not written", err=True)


# --- rendering -------------------------------------------------------------------------------------


def balance_document(result) -> dict:
    """--output json: the plan, the moves, and one row per directory before (now) and after (once
    the moves in flight and the plan are done) (schemas/log-dirs-balance-result.json)."""
    from kadmin.plan.balance import usage_spread
    from kadmin.plan.reassignment_file import plan_to_json

    after = {(u.broker, u.path): u for u in result.after}
    rows = []
    for u in result.before:
        a = after[u.broker, u.path]
        rows.append(
            {
                "broker": u.broker,
                "path": u.path,
                "status": u.status.value,
                "total_bytes": u.total_bytes,
                "usable_bytes_before": u.usable_bytes,
                "usable_bytes_after": a.usable_bytes,
                "used_fraction_before": u.used_fraction,
                "used_fraction_after": a.used_fraction,
                "replica_bytes_before": u.replica_bytes,
                "replica_bytes_after": a.replica_bytes,
                "replicas_before": u.replicas,
                "replicas_after": a.replicas,
            }
        )
    before_spread = usage_spread(result.before)
    after_spread = usage_spread(result.after, result.evacuated)  # emptied on purpose, not uneven
    return {
        "version": 1,  # 1 (kadmin of 2026-11-26 on): the first to say; an offline directory's contents null
        "plan": plan_to_json(result.plan.partitions),
        "moves": [
            {
                "broker": m.broker,
                "topic": m.topic,
                "partition": m.partition,
                "source": m.source,
                "destination": m.destination,
                "size_bytes": m.size,
                "kind": "cancel" if m.source == m.destination else "move",
            }
            for m in result.moves
        ],
        "log_dirs": rows,
        "brokers": [
            {"broker": b, "spread_before": before_spread[b], "spread_after": after_spread.get(b)}
            for b in sorted(before_spread)
        ],
        "notes": list(result.notes),
    }


def _before_after(before: int, after: int, show) -> str:
    return show(before) if before == after else f"{show(before)} -> {show(after)}"


def _bar(fraction: float | None, width: int = 16) -> str:
    if fraction is None:
        return "-"
    filled = max(0, min(width, round(fraction * width)))
    colour = "red" if fraction >= 0.9 else "yellow" if fraction >= 0.75 else "green"
    return f"[{colour}]{'█' * filled}[/][dim]{'░' * (width - filled)}[/] {fraction:6.1%}"


def _pct(fraction: float | None) -> str:
    return "-" if fraction is None else f"{fraction:.1%}"


def balance_table(result, *, bars: bool):
    """Usage per directory before and after, with bars on a terminal."""
    from rich.markup import escape
    from rich.table import Table

    from kadmin.units import format_size

    after = {(u.broker, u.path): u for u in result.after}
    moves_out: dict = {}
    moves_in: dict = {}
    for m in result.moves:
        if m.source != m.destination:
            moves_out[m.broker, m.source] = moves_out.get((m.broker, m.source), 0) + 1
            moves_in[m.broker, m.destination] = moves_in.get((m.broker, m.destination), 0) + 1
    show = _bar if bars else _pct
    table = Table(
        title="Log directory usage now (before) and once the moves in flight and the plan are done (after)",
        header_style="bold",
    )
    columns: list[tuple[str, JustifyMethod]] = [
        ("Broker", "right"),
        ("Log dir", "left"),
        ("Status", "left"),
        ("Used before", "left"),
        ("Used after", "left"),
        ("Kafka bytes", "right"),
        ("Replicas", "right"),
        ("Out/in", "right"),
    ]
    for col, justify in columns:
        table.add_column(col, justify=justify)
    last = None
    for u in result.before:
        a = after[u.broker, u.path]
        if last is not None and u.broker != last:
            table.add_section()
        last = u.broker
        status = u.status.value if u.status.value == "online" else f"[red]{u.status.value}[/]"
        out, in_ = moves_out.get((u.broker, u.path), 0), moves_in.get((u.broker, u.path), 0)
        offline = u.replica_bytes is None  # what it holds is unknown (as log-dirs describe shows it)
        table.add_row(
            str(u.broker),
            escape(u.path),  # free text, not markup
            status,
            "[dim]unknown[/]" if offline else show(u.used_fraction),
            "[dim]unknown[/]" if offline else show(a.used_fraction),
            "[dim]unknown[/]" if offline else _before_after(u.replica_bytes, a.replica_bytes, format_size),
            "[dim]unknown[/]" if offline else _before_after(u.replicas, a.replicas, str),
            f"{out}/{in_}" if out or in_ else "",
        )
    return table


def balance_summary(result) -> str:
    from kadmin.model import LogDirStatus
    from kadmin.plan.balance import usage_spread
    from kadmin.units import counted, format_size

    moves = [m for m in result.moves if m.source != m.destination]
    cancels = len(result.moves) - len(moves)
    before, after = usage_spread(result.before), usage_spread(result.after, result.evacuated)
    text = (
        f"{counted(len(moves), 'move')} ({format_size(sum(m.size for m in moves))}) on "
        f"{counted(len({m.broker for m in moves}), 'broker')}"
    )
    if cancels:
        where = "its current directory" if cancels == 1 else "their current directory"
        text += f", {counted(cancels, 'move')} in flight sent back to {where}"
    if before:
        text += (
            f". Widest spread of used capacity within a broker: {max(before.values()):.1%} before, "
            f"{max(after.values()):.1%} after"
        )
        # Directories nothing may move into are not in the spread: say which, or a broker
        # that cannot be evened out (its emptier disk cordoned) reads as balanced.
        closed = [
            f"{u.broker}:{u.path} ({u.status.value})" for u in result.before if u.status is not LogDirStatus.ONLINE
        ]
        closed += [f"{b}:{path} (evacuated, after)" for b, path in result.evacuated]
        text += f" (not counted: {', '.join(closed)})." if closed else "."
    return text
