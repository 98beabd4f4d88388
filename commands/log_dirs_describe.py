"""``kadmin log-dirs describe``: per broker and directory, where the bytes are."""

from __future__ import annotations

import click

from kadmin.commands.fleet import fleet_options, run_fleet_report
from kadmin.commands.options import cluster_options, int_list, open_cluster, output_option, str_list


@click.command()
@click.option("--broker-list", metavar="1,2,3", help="Brokers to query (default: all).")
@click.option("--topic-list", metavar="T1,T2", help="Only count replicas of these topics (default: all).")
@click.option("--log-dirs", "log_dir_list", metavar="/D1,/D2", help="Only show these directories.")
@click.option(
    "--top",
    default=3,
    show_default=False,
    metavar="N",
    type=click.IntRange(min=1),  # the one range: single-cluster and fleet reports (FleetRequest: at least 1)
    help="Largest partitions to show per directory [default: 3]; in fleet reports, per cluster [default: 10].",
)
@cluster_options
@output_option(("table", "json", "csv", "kafka-json"))
@fleet_options
def describe(cluster, output, broker_list, topic_list, log_dir_list, top, fleet):
    """Show each broker's log directories: status (online, offline, cordoned), used, total and
    usable bytes, replica count, future replicas in flight with their lag, and the largest
    partitions.

    \b
    --output kafka-json prints exactly kafka-log-dirs.sh's JSON, alone on stdout.
    --output json prints kadmin's shape (schemas/log-dirs-describe.json).
    --spark / --fleet / --from report over many clusters (docs/fleet.md).
    A broker that does not answer, or is down (it holds replicas but is not live): the report has
    a row for it (status unreachable or down, its directories and bytes unknown; kafka-json has no
    place for it), stderr names it, and the exit code is 1.
    An offline directory: Kafka does not say what it holds, so its bytes and replica counts are
    unknown (JSON null, CSV empty, "unknown" in the table), not 0; the exit code is 0.
    """
    if fleet.requested:
        return run_fleet_report("log-dirs", fleet, output=output, cluster=cluster)

    from kadmin import logdirs

    requested = int_list(broker_list, "--broker-list")
    topics = str_list(topic_list, "--topic-list")
    paths = str_list(log_dir_list, "--log-dirs")
    with open_cluster(cluster, read_only=True) as backend:
        # The replica sets as well as the live brokers: a broker they name that is not live is
        # down, and the report says it lacks that broker (Kafka's tool leaves it out silently).
        named = backend.replica_brokers()
        brokers = backend.describe_brokers()
        down = named - set(brokers)
        ids = logdirs.check_brokers(requested, brokers, down)
        result = backend.describe_log_dirs(brokers=ids, topics=topics) if ids else {}
        cluster_id = backend.cluster_id
    result = logdirs.filter_log_dirs(logdirs.with_down(result, down, requested), paths)

    from kadmin.commands import render

    if output == "kafka-json":
        render.print_json(logdirs.to_kafka_json(result), compact=True)
    elif output == "json":
        render.print_json(logdirs.to_kadmin_json(cluster_id, brokers, result))
    elif output == "csv":
        render.print_csv(_CSV_HEADER, (_csv_row(r) for r in logdirs.rows(brokers, result, top)))
    else:
        from kadmin.commands.render_logdirs import log_dirs_table

        console = render.stdout()
        console.print(log_dirs_table(logdirs.rows(brokers, result, top), width=console.width))
    if topics:
        seen = {r.topic for bl in result.values() for d in bl.log_dirs for r in d.replicas}
        absent = [t for t in topics if t not in seen]
        if absent:
            # An offline directory's replicas are unknown (DescribeLogDirs lists none): it may hold them.
            offline = any(not logdirs.contents_known(d) for bl in result.values() for d in bl.log_dirs)
            if requested or paths:
                where = "the brokers and log directories described"
            elif any(bl.error for bl in result.values()):
                where = "the brokers that answered"  # it may be on one that did not (named below)
            elif offline:
                where = "the log directories that could be read"
            else:
                where = "any broker"
            guess = "an offline directory may hold it" if offline else "no such topic?"
            render.warn(f"no replica of {', '.join(absent)} on {where} ({guess})")
    unanswered = {b: bl.error for b, bl in sorted(result.items()) if bl.error}
    if unanswered:
        # The report above lacks them (kafka-json has no place to say so): exit 1, as
        # kafka-log-dirs.sh fails when a broker does not answer, so a script never takes a
        # partial report for the whole.
        from kadmin.errors import ClusterError

        who, their = render.not_answering(unanswered)
        raise ClusterError(
            f"{who}: the report lacks {their} log directories",
            hint="check the broker and run it again; --broker-list leaves a broker out",
        )


_CSV_HEADER = [
    "broker",
    "rack",
    "log_dir",
    "status",
    "used_fraction",
    "kafka_bytes",
    "total_bytes",
    "usable_bytes",
    "replicas",
    "future_replicas",
    "error",
]


def _csv_row(r) -> list:
    """One CSV line; an unknown value is an empty cell. A down or unreachable broker's
    directories were not seen: its log_dir is empty too (the table's "-" is only drawn)."""
    unseen = r.status in ("down", "unreachable")
    return [
        r.broker,
        r.rack or "",
        "" if unseen else r.path,
        r.status,
        "" if r.used_fraction is None else f"{r.used_fraction:.4f}",
        "" if r.kafka_bytes is None else r.kafka_bytes,
        "" if r.total_bytes is None else r.total_bytes,
        "" if r.usable_bytes is None else r.usable_bytes,
        "" if r.replicas is None else r.replicas,
        "" if r.futures is None else len(r.futures),
        r.error or "",
    ]
