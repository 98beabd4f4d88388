"""``kadmin reassign balance``: even out used disk space across brokers and their directories,
moving the fewest bytes, in one reassignment plan (both levels of KIP-113)."""

from __future__ import annotations

import click

from kadmin.commands.options import cluster_options, int_list, open_cluster, output_option, str_list


def _percent(ctx, param, value):
    """ "5%", "5" or "2.5%" -> 0.05, 0.05, 0.025 (always percentage points)."""
    if value is None:
        return None
    text = str(value).strip().removesuffix("%").strip()
    try:
        number = float(text)
    except ValueError:
        raise click.BadParameter(f"{value!r}: expected a percentage such as 5% or 90%") from None
    return number / 100


def _size(ctx, param, value):
    if value is None:
        return None
    from kadmin.errors import InputError
    from kadmin.units import parse_size

    try:
        return parse_size(value)
    except InputError as e:
        raise click.BadParameter(str(e)) from None


def _rate(ctx, param, value):
    if value is None:
        return None
    from kadmin.errors import InputError
    from kadmin.units import parse_rate

    try:
        return parse_rate(value)
    except InputError as e:
        raise click.BadParameter(str(e)) from None


@click.command()
@click.option(
    "--topic-list",
    metavar="T1,T2",
    help="Topics whose replicas may move (default: all but kadmin's own __kadmin_throttle_records, "
    "which moves only when listed here).",
)
@click.option("--broker-list", metavar="1,2,3", help="Brokers to balance among (default: all that answer).")
@click.option(
    "--threshold",
    default="5%",
    show_default=True,
    callback=_percent,
    metavar="PCT",
    help="Balanced when every broker's used share is within this of the cluster's mean, "
    "and every directory's within this of its broker's (without disk capacity: this part of the mean "
    "share of Kafka bytes, and of the broker's mean directory).",
)
@click.option(
    "--max-moves",
    type=click.IntRange(min=0),
    metavar="N",
    help="Plan at most N replica moves (between brokers or directories). Reordering replicas to spread "
    "preferred leaders copies no data and is not counted: --max-moves 0 plans only that reordering, if any.",
)
@click.option("--max-bytes", callback=_size, metavar="SIZE", help="Move at most this many bytes, e.g. 500GB.")
@click.option("--exclude-topics", metavar="REGEX", help="Never move replicas of topics matching this.")
@click.option(
    "--max-dir-usage",
    default="90%",
    show_default=True,
    callback=_percent,
    metavar="PCT",
    help="No directory receiving replicas ends fuller than this (a filesystem that a broker's "
    "directories share: counted once, for all of them).",
)
@click.option(
    "--throttle",
    callback=_rate,
    metavar="RATE",
    help="Replication throttle you will execute with, e.g. 50MB/s: prints the estimated copy time "
    "of the moves between brokers.",
)
@click.option(
    "--replica-alter-log-dirs-throttle",
    "dir_throttle",
    callback=_rate,
    metavar="RATE",
    help="Log-dir throttle you will execute with, e.g. 100MB/s: prints the estimated copy time of the "
    "moves between the directories of one broker, which --throttle does not pace.",
)
@click.option(
    "--output-file",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Write the plan here (reassignment JSON with log_dirs, for `reassign execute`); refuses to overwrite.",
)
@cluster_options
@output_option(("table", "json"))
def balance(
    cluster,
    output,
    topic_list,
    broker_list,
    threshold,
    max_moves,
    max_bytes,
    exclude_topics,
    max_dir_usage,
    throttle,
    dir_throttle,
    output_file,
):
    """Plan moves that bring every broker's used disk share within --threshold of the cluster's
    mean and every directory within --threshold of its broker's, moving as few bytes as possible.

    Moved replicas carry the absolute directory they land in (the destination's that stays
    emptiest), so one `reassign execute` moves them between brokers and disks at once. Racks,
    replication factors and the preferred-leader spread are kept; offline and cordoned
    directories never receive; partitions being moved already and stray logs are left alone.
    Moves in flight count as done: between directories, the replica in its new directory; of a
    reassignment between brokers, a replica being removed as gone and one being added at its
    full size (its leader's), a note saying per broker what was counted.
    A broker with an offline directory (what it holds is unknown) takes no part, and partitions
    with a replica out of the ISR (a down broker's, say) are left alone: Kafka would not finish
    moving them. Notes name both.

    When a directory reports no disk capacity (Kafka before 3.3), Kafka bytes are balanced
    instead: each broker's share of them against the mean share, --threshold taken relative to
    that mean, and each directory against its broker's mean directory; a note says so.

    When a broker's directories share one filesystem (each reports the same total and usable
    bytes), its capacity, usable bytes and --max-dir-usage count once, and its directories are
    balanced on Kafka bytes, as `log-dirs balance` does; a note says so.

    Prints usage per broker and directory before (now, as `log-dirs describe` shows it) and after
    (once the moves in flight and the plan are done). Nothing in the cluster changes.
    """

    from kadmin import logdirs
    from kadmin.plan.broker_balance import BalanceRequest, balance_brokers

    requested = int_list(broker_list, "--broker-list")
    topics = str_list(topic_list, "--topic-list")
    request = BalanceRequest(
        topics=None if topics is None else tuple(topics),
        brokers=None if requested is None else tuple(requested),
        threshold=threshold,
        max_moves=max_moves,
        max_bytes=max_bytes,
        exclude_topics=exclude_topics,
        max_dir_usage=max_dir_usage,
    )
    request.validate()
    if output_file:
        from kadmin.plan.reassignment_file import check_plan_path

        check_plan_path(output_file)
    with open_cluster(cluster, read_only=True) as backend:
        # As log-dirs balance reads it: a broker that does not answer, or is down, is left out
        # (named; asked for by name, exit 1), and the reassignments under way are in the state
        # (their adding and removing replicas: Metadata does not carry them).
        got = logdirs.read_for_balance(backend, requested)
    from kadmin.commands import render

    render.warn_left_out(got.left_out)
    state, dirs = got.cluster, got.dirs
    result = balance_brokers(state, dirs, request, got.reassigning)

    from kadmin.commands.render_balance import balance_document, balance_summary, brokers_table, dirs_table
    from kadmin.plan.reassignment_file import format_reassignment, write_reassignment

    if output_file and result.plan.partitions:  # before printing: a refused write leaves no plan on stdout
        write_reassignment(output_file, result.plan)
    if output == "json":
        render.print_json(balance_document(result, state, throttle, dir_throttle))
    else:
        bars = render.stdout_is_tty()
        render.stdout().print(brokers_table(result, bars=bars))
        render.stdout().print(dirs_table(result, bars=bars))
        click.echo(balance_summary(result, state, throttle, dir_throttle))
        if result.plan.partitions and not output_file:
            click.echo(f"\nProposed partition reassignment configuration\n{format_reassignment(result.plan)}")
    if output_file:
        if result.plan.partitions:
            click.echo(f"kadmin: plan with {len(result.plan.partitions)} partitions written to {output_file}", err=True)
        else:
            click.echo(f"kadmin: nothing to move; {output_file} not written", err=True)
