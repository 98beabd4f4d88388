"""The preferred election that ``reassign ... --elect-preferred`` runs once a plan is complete,
as lines (Kafka's words) or as the ``preferred_election`` member of the command's JSON; and the
``stopped`` member both it and ``leaders elect`` give a batch that failed after others."""

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
        "stopped": None if report.stopped is None else stopped_json(report.stopped),
    }


def stopped_json(stopped) -> dict:
    """Where an election in batches stopped (an ElectionStopped or ElectionInterrupted).
    ``unanswered``: the partitions of the batch that failed or was interrupted and of the later
    ones; after a Ctrl-C, ``in_flight`` names those of the batch sent without an answer (they may
    have been elected) and ``error`` is "interrupted"."""
    from kadmin.execute.elect import ElectionInterrupted

    def tps(tps) -> list[dict]:
        return [{"topic": tp.topic, "partition": tp.partition} for tp in tps]

    if isinstance(stopped, ElectionInterrupted):
        return {
            "batch": stopped.batch,
            "of": stopped.total,
            "error": "interrupted",
            "unanswered": tps((*stopped.unanswered, *stopped.unsent)),
            "in_flight": tps(stopped.unanswered),
        }
    return {
        "batch": stopped.batch,
        "of": stopped.total,
        "error": stopped.cause.message,
        "unanswered": tps(stopped.unsent),
    }


def print_election(report) -> None:
    """The outcomes in Kafka's words; of the batches before the one that failed, when one did
    (the error follows: ``raise_if_failed``)."""
    from kadmin.leaders import kafka_lines

    click.echo("")
    click.echo("Preferred leader election:")
    lines = kafka_lines(report)
    if not lines and report.stopped is None:
        lines = ["Every partition of the plan is led by its preferred replica."]
    for line in lines:
        click.echo(line)


def raise_if_failed(report) -> None:
    """Exit 1 (or the failed batch's own code) when some partition of the plan could not get its
    preferred leader, or a batch failed after others: said after their outcomes were printed."""
    if report is None:
        return
    from kadmin.errors import ClusterError
    from kadmin.units import counted

    n = len(report.failed)
    refused = f"{counted(n, 'partition')} could not get {'its' if n == 1 else 'their'} preferred leader"
    if report.stopped is not None:
        stopped = report.stopped
        also = f"; {refused}" if n else ""
        error = ClusterError(
            f"the plan is complete, but its preferred leader election stopped at {stopped.message}{also}",
            hint=stopped.hint or "elect the rest with `kadmin reassign verify --elect-preferred` and the plan file",
        )
        error.exit_code = stopped.exit_code
        raise error from stopped.cause
    if n:
        # True whichever way the outcome was printed: as lines above, or in the JSON document
        # (its preferred_election.failed), where stderr has nothing above this line.
        raise ClusterError(
            f"the plan is complete, but {refused}",
            hint="each is named with why in the election's outcome (with -o json: preferred_election.failed); "
            "run `kadmin leaders show`",
        )
