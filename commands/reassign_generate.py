"""``kadmin reassign generate``: propose a reassignment of topics onto a broker list."""

from __future__ import annotations

import click

from kadmin.commands.options import cluster_options, int_list, open_cluster, output_option


@click.command()
@click.option(
    "--topics-to-move-json-file",
    "topics_file",
    required=True,
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help='Topics to move: {"version":1,"topics":[{"topic":"foo"}]} (schemas/topics-to-move.json).',
)
@click.option(
    "--broker-list",
    required=True,
    metavar="1,2,3",
    help="Brokers to place the replicas on. Brokers left out are emptied of these topics.",
)
@click.option("--disable-rack-aware", is_flag=True, help="Ignore broker racks when placing replicas.")
@click.option(
    "--strategy",
    type=click.Choice(["minimal", "kafka"]),
    default="minimal",
    show_default=True,
    help="minimal: balance replicas and leaders moving as few replicas as possible. "
    "kafka: Kafka's own round-robin, rebuilding every topic.",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed of the kafka strategy's start positions (Kafka draws them at random).",
)
@click.option(
    "--output-file",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Write the proposed plan here (Kafka's reassignment JSON); refuses to overwrite.",
)
@cluster_options
@output_option(("table", "json"))
def generate(cluster, output, topics_file, broker_list, disable_rack_aware, strategy, seed, output_file):
    """Propose a reassignment of the topics in FILE onto --broker-list.

    Prints the current assignment (keep it: it is the rollback) and the proposed one, as
    kafka-reassign-partitions.sh --generate does; --output json prints both as one object.
    Nothing in the cluster changes.
    """
    from kadmin.errors import ClusterError
    from kadmin.plan.generate import generate as plan
    from kadmin.plan.generate import leaders_moved, refuse, replicas_moved, request_problems, without_live_replica
    from kadmin.plan.reassignment_file import check_plan_path
    from kadmin.plan.topics_file import read_topics_to_move

    topics = read_topics_to_move(topics_file)
    brokers = int_list(broker_list, "--broker-list", required=True)
    if output_file:
        check_plan_path(output_file)
    try:
        with open_cluster(cluster, read_only=True) as backend:
            # a partition being reassigned counts by its target replicas
            state = backend.describe_cluster().with_reassignments(backend.list_partition_reassignments())
    except ClusterError:
        # the request's own problems (a topic or broker twice) still say what to fix; with a
        # cluster to ask, generate() reports them together with the cluster's
        refuse(request_problems(topics, brokers or [], topics_file))
        raise
    current, proposed = plan(
        state,
        topics,
        brokers or [],
        strategy=strategy,
        rack_aware=not disable_rack_aware,
        seed=seed,
        topics_file=topics_file,
    )

    from kadmin.commands import render
    from kadmin.plan.reassignment_file import format_reassignment, plan_to_json, write_reassignment

    if output_file:  # before printing: a refused write leaves no plan on stdout
        write_reassignment(output_file, proposed)
    if output == "json":
        render.print_json({"current": plan_to_json(current.partitions), "proposed": plan_to_json(proposed.partitions)})
    else:
        click.echo(f"Current partition replica assignment\n{format_reassignment(_any_dirs(current))}\n")
        click.echo(f"Proposed partition reassignment configuration\n{format_reassignment(_any_dirs(proposed))}")
    moved, leaders = replicas_moved(current, proposed), leaders_moved(current, proposed)
    click.echo(
        f"kadmin: {len(proposed.partitions)} partitions, {moved} replicas to copy, "
        f"{leaders} preferred leaders change ({strategy} strategy)",
        err=True,
    )
    if output_file:
        click.echo(f"kadmin: proposed plan written to {output_file}", err=True)
    stranded = without_live_replica(state, current)
    if stranded:
        from kadmin.units import counted

        one = len(stranded) == 1
        named = ", ".join(map(str, stranded[:10])) + (f" and {len(stranded) - 10} more" if len(stranded) > 10 else "")
        render.warn(
            f"{counted(len(stranded), 'partition')} {'has' if one else 'have'} no replica on a live broker: {named}. "
            f"A move of {'its' if one else 'theirs'} has nothing to copy from and cannot complete until a broker "
            f"holding {'it' if one else 'them'} is back "
            "(Kafka finishes a reassignment only when every target replica is in the ISR)"
        )


def _any_dirs(plan):
    """Entries with log_dirs "any" for every replica: how Kafka's tool prints its proposals."""
    from dataclasses import replace

    from kadmin.model import ANY_LOG_DIR

    return tuple(replace(a, log_dirs=(ANY_LOG_DIR,) * len(a.replicas)) for a in plan.partitions)
