"""``kadmin reassign list``: the reassignments running now."""

from __future__ import annotations

import click

from kadmin.commands.fleet import fleet_options, run_fleet_report
from kadmin.commands.options import cluster_options, open_cluster, output_option


@click.command("list")
@cluster_options
@output_option(("table", "json"))
@fleet_options
def list_(cluster, output, fleet):
    """Ongoing reassignments with the replicas being added and removed, one line per partition
    as kafka-reassign-partitions.sh --list prints them (``foo-1: replicas: 1,2,3. adding: 4.
    removing: 1.``), or JSON with --output json. Over --zookeeper, a /admin/reassign_partitions
    the controller is not acting on is explained on stderr, with the way out."""
    if fleet.requested:
        return run_fleet_report("reassign", fleet, output=output, cluster=cluster)
    from kadmin.backends.base import reassignment_blocked
    from kadmin.commands import render
    from kadmin.commands.render_reassign import reassignment_line

    with open_cluster(cluster, read_only=True) as backend:
        ongoing = backend.list_partition_reassignments()
        blocked = reassignment_blocked(backend)
    if blocked is not None and blocked.stuck:  # listed or not, nothing will move until it is removed
        render.warn(f"{blocked.reason}. {blocked.hint}")
    items = [ongoing[tp] for tp in sorted(ongoing)]
    if output == "json":
        render.print_json(
            {
                "version": 1,
                "reassignments": [
                    {
                        "topic": r.topic,
                        "partition": r.partition,
                        "replicas": list(r.replicas),
                        "adding": list(r.adding),
                        "removing": list(r.removing),
                    }
                    for r in items
                ],
            }
        )
        return
    if not items:
        click.echo("No partition reassignments found.")
        return
    click.echo("Current partition reassignments:")
    for r in items:
        click.echo(reassignment_line(r))
