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
    the controller is not acting on is explained on stderr, with the way out, and the requests it
    holds are listed apart, as waiting (``foo-1: replicas: 1,2. requested: 1,3.``): no broker is
    carrying them out."""
    if fleet.requested:
        return run_fleet_report("reassign", fleet, output=output, cluster=cluster)
    from kadmin.backends.base import reassignment_blocked, requests_not_taken
    from kadmin.commands import render
    from kadmin.commands.render_reassign import reassignment_line

    with open_cluster(cluster, read_only=True) as backend:
        ongoing = backend.list_partition_reassignments()
        blocked = reassignment_blocked(backend)
        # Only a stuck node's requests need the partitions' own state (every partition: read once here)
        stuck = blocked is not None and blocked.stuck
        cluster_state = backend.describe_cluster() if stuck and ongoing else None
    waiting = requests_not_taken(blocked, ongoing, cluster_state) if cluster_state is not None else {}
    if stuck:  # listed or not, nothing will move until it is removed
        render.warn(f"{blocked.reason}. {blocked.hint}")
    items = [ongoing[tp] for tp in sorted(ongoing) if tp not in waiting]
    requests = [(r, cluster_state.partitions[tp].replicas) for tp, r in sorted(waiting.items())]
    if output == "json":
        doc = {
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
        if requests:
            doc["waiting"] = [
                {"topic": r.topic, "partition": r.partition, "replicas": list(current), "target": list(r.target)}
                for r, current in requests
            ]
        render.print_json(doc)
        return
    if not items:
        click.echo("No partition reassignments found.")
    else:
        click.echo("Current partition reassignments:")
        for r in items:
            click.echo(reassignment_line(r))
    if requests:
        click.echo("Requested, but no broker is carrying these out (stuck: see the warning):")
        for r, current in requests:
            click.echo(f"{r.tp}: replicas: {','.join(map(str, current))}. requested: {','.join(map(str, r.target))}.")
