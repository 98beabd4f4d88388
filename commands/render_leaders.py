"""The preferred election that ``reassign ... --elect-preferred`` runs once a plan is complete,
as lines (Kafka's words) or as the ``preferred_election`` member of the command's JSON."""

from __future__ import annotations

import click


def election_json(report) -> dict:
    return {
        "batches": report.batches,
        "elected": [{"topic": tp.topic, "partition": tp.partition} for tp in report.elected],
        "failed": [
            {
                "topic": o.tp.topic,
                "partition": o.tp.partition,
                "error": o.error,
                "message": o.message,
                "reason": o.reason,
            }
            for o in report.failed
        ],
    }


def print_election(report) -> None:
    from kadmin.leaders import kafka_lines

    click.echo("")
    click.echo("Preferred leader election:")
    lines = kafka_lines(report)
    for line in lines or ["Every partition of the plan is led by its preferred replica."]:
        click.echo(line)


def raise_if_failed(report) -> None:
    """Exit 1 when some partition of the plan could not get its preferred leader."""
    if report is not None and report.failed:
        from kadmin.errors import ClusterError
        from kadmin.units import counted

        n = len(report.failed)
        raise ClusterError(
            f"the plan is complete, but {counted(n, 'partition')} could not get {'its' if n == 1 else 'their'} "
            "preferred leader",
            hint="see the lines above; run `kadmin leaders show`",
        )
