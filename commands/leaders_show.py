"""``kadmin leaders show``: leaders per broker against the preferred count, and the partitions
to look at (not led by their preferred replica, without a leader, under-replicated)."""

from __future__ import annotations

import click

from kadmin.commands.options import cluster_options, int_list, open_cluster, output_option, str_list

BAR_WIDTH = 20
SHOWN = 50  # partitions listed per section in the table view


@click.command()
@click.option("--topic-list", metavar="T1,T2", help="Only these topics (default: all).")
@click.option(
    "--broker-list",
    metavar="1,2,3",
    help="Only these brokers, and the partitions with a replica on one of them (default: all).",
)
@cluster_options
@output_option(("table", "json", "csv"))
def show(cluster, output, topic_list, broker_list):
    """Leaders per broker against the number of partitions whose preferred replica (the first
    of the replica list) it is, with the imbalance as a bar; then the partitions not led by
    their preferred replica, those without a leader and the under-replicated ones.

    \b
    Exit 0 whatever the balance (a report, not a check); 1 when the reassignments could not be
    listed (no DESCRIBE on CLUSTER): the report is shown without them.
    --output json prints schemas/leaders-show-result.json (every partition with a problem);
    --output csv prints one row per broker.
    """
    from kadmin.leaders import summarize

    topics = str_list(topic_list, "--topic-list")
    brokers = int_list(broker_list, "--broker-list")
    from kadmin.backends.base import read_together
    from kadmin.errors import AuthorizationError

    with open_cluster(cluster, read_only=True) as backend:

        def reassignments():  # without DESCRIBE on CLUSTER: the leaders (Metadata) are still shown
            try:
                return backend.list_partition_reassignments()
            except AuthorizationError as e:
                return e

        state, ongoing = read_together(backend, backend.describe_cluster, reassignments)
    unlisted = ongoing if isinstance(ongoing, AuthorizationError) else None
    if unlisted is None:
        state = state.with_reassignments(ongoing)  # a replica being added is not missing from the ISR
    if brokers is not None:
        unknown = sorted(set(brokers) - set(state.brokers) - {b for p in state.partitions.values() for b in p.replicas})
        if unknown:
            from kadmin.errors import NotFoundError
            from kadmin.units import plural

            raise NotFoundError(
                f"unknown {plural('broker', len(unknown))} {', '.join(map(str, unknown))}; the cluster has "
                f"{', '.join(map(str, sorted(state.brokers)))}"
            )
    if topics is not None:
        missing = sorted(set(topics) - set(state.topics))
        if missing and len(missing) == len(set(topics)):  # nothing to show: not "balanced"
            from kadmin.errors import NotFoundError
            from kadmin.units import plural

            raise NotFoundError(f"no such {plural('topic', len(missing))}: {', '.join(missing)}")
        if missing:
            from kadmin.commands import render
            from kadmin.units import plural

            render.warn(f"no such {plural('topic', len(missing))}: {', '.join(missing)}")
    summary = summarize(state, topics, brokers)

    from kadmin.commands import render

    if output == "json":
        render.print_json(show_json(summary))
    elif output == "csv":
        render.print_csv(
            ["broker", "live", "leaders", "preferred", "imbalance"],
            ([b.broker, str(b.live).lower(), b.leaders, b.preferred, b.imbalance] for b in summary.brokers),
        )
    else:
        _print_tables(summary, render)
    if unlisted is not None:  # a report that is not whole: said, exit 1
        from kadmin.leaders import WITHOUT_REASSIGNMENTS

        raise AuthorizationError(
            f"{unlisted.message}; {WITHOUT_REASSIGNMENTS}", error_code=unlisted.error_code, hint=unlisted.hint
        )


def show_json(summary) -> dict:
    """The ``--output json`` document (schemas/leaders-show-result.json)."""
    from kadmin.leaders import leader_or_none

    def part(p) -> dict:
        return {
            "topic": p.tp.topic,
            "partition": p.tp.partition,
            "leader": leader_or_none(p.leader),
            "preferred": p.preferred,
            "replicas": list(p.replicas),
            "isr": list(p.isr),
            "not_preferred": p.not_preferred,
            "leaderless": p.leaderless,
            "under_replicated": p.under_replicated,
        }

    return {
        "version": 1,
        "partition_count": len(summary.partitions),
        "balanced": summary.balanced,
        "brokers": [
            {
                "broker": b.broker,
                "live": b.live,
                "leaders": b.leaders,
                "preferred": b.preferred,
                "imbalance": b.imbalance,
            }
            for b in summary.brokers
        ],
        "partitions": [part(p) for p in summary.partitions if p.not_preferred or p.leaderless or p.under_replicated],
    }


def imbalance_bar(imbalance: int, widest: int, width: int = BAR_WIDTH) -> str:
    """A bar for a broker's imbalance, scaled to the widest one: '+' cells for leaders above its
    preferred share, '-' cells below."""
    if imbalance == 0 or widest == 0:
        return ""
    cells = max(1, round(abs(imbalance) * width / widest))
    return ("[red]" + "█" * cells + "[/]") if imbalance > 0 else ("[cyan]" + "░" * cells + "[/]")


def _print_tables(summary, render) -> None:
    from rich.table import Table

    console = render.stdout()
    widest = max((abs(b.imbalance) for b in summary.brokers), default=0)
    t = Table(title="Leaders per broker", header_style="bold", title_justify="left")
    for col in ("Broker", "Leaders", "Preferred", "Imbalance"):
        t.add_column(col, justify="right", no_wrap=True)
    t.add_column("", no_wrap=True)
    for b in summary.brokers:
        name = str(b.broker) if b.live else f"{b.broker} (down)"
        t.add_row(
            name,
            str(b.leaders),
            str(b.preferred),
            f"{b.imbalance:+d}" if b.imbalance else "0",
            imbalance_bar(b.imbalance, widest),
        )
    console.print(t)
    sections = (
        ("Not led by their preferred replica", summary.not_preferred),
        ("Without a leader", summary.leaderless),
        ("Under-replicated", summary.under_replicated),
    )
    for title, rows in sections:
        if not rows:
            continue
        p = Table(title=f"{title}: {len(rows)}", header_style="bold", title_justify="left")
        for col in ("Topic", "Partition", "Leader", "Preferred", "Replicas", "ISR"):
            p.add_column(col, no_wrap=True)
        for r in rows[:SHOWN]:
            p.add_row(
                r.tp.topic,
                str(r.tp.partition),
                "none" if r.leaderless else str(r.leader),
                str(r.preferred),
                ",".join(map(str, r.replicas)),
                ",".join(map(str, r.isr)),
            )
        if len(rows) > SHOWN:
            p.caption = f"{len(rows) - SHOWN} more (--output json lists them all)"
        console.print(p)
    if summary.balanced:  # said without kadmin.units: a read command's usual line (issue 16)
        n = len(summary.partitions)
        each = "the 1 partition" if n == 1 else f"every one of the {n} partitions"
        console.print(f"Leadership is balanced: {each} is led by its preferred replica.")
    from rich.markup import escape

    from kadmin.leaders import election_hint

    for line in election_hint(summary):
        console.print(escape(line))
