"""``kadmin leaders elect``: kafka-leader-election.sh's flags and words, plus --dry-run,
batches (--max-per-broker, --batch-size) and a confirmation before an unclean election."""

from __future__ import annotations

import sys

import click

from kadmin.commands.options import cluster_options, open_cluster, output_option


@click.command()
@click.option("--preferred", is_flag=True, help="Elect the preferred replica (the first of the replica list).")
@click.option(
    "--unclean",
    is_flag=True,
    help="Elect a leader for partitions that have none, even a replica out of the ISR (may lose data).",
)
@click.option(
    "--election-type",
    type=click.Choice(["PREFERRED", "UNCLEAN"], case_sensitive=False),  # also completes them
    help="kafka-leader-election.sh's spelling of --preferred / --unclean.",
)
@click.option(
    "--all-topic-partitions",
    is_flag=True,
    help="Every partition that needs the election (those that do not are left out, as Kafka does).",
)
@click.option("--topic", metavar="TOPIC", help="The partitions of this topic (or one, with --partition).")
@click.option("--partition", type=click.IntRange(min=0), metavar="P", help="With --topic: only this partition.")
@click.option(
    "--path-to-json-file",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help='Partitions in Kafka\'s format: {"partitions":[{"topic":"foo","partition":1}]}.',
)
@click.option("--dry-run", is_flag=True, help="List what would change, batch by batch; elect nothing.")
@click.option(
    "--max-per-broker",
    type=click.IntRange(min=1),
    metavar="N",
    help="At most N partitions change leader to one broker per batch.",
)
@click.option("--batch-size", type=click.IntRange(min=1), metavar="N", help="At most N partitions per batch.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask before an unclean election.")
@cluster_options
@output_option(("table", "json"))
def elect(
    cluster,
    output,
    preferred,
    unclean,
    election_type,
    all_topic_partitions,
    topic,
    partition,
    path_to_json_file,
    dry_run,
    max_per_broker,
    batch_size,
    yes,
):
    """Elect leaders, as kafka-leader-election.sh does, and say what happened to each partition
    in its words ("Successfully completed leader election (PREFERRED) for partitions ...",
    "Valid replica already elected for partitions ..."). A partition whose preferred replica
    cannot lead is reported with the reason (its broker is down, or it is not in the ISR).

    Batches (--max-per-broker, --batch-size) are sent one after the other, so no broker takes
    hundreds of leaders at once. --unclean asks first on a terminal and says what may be lost;
    without a terminal it needs --yes. Unclean election needs --bootstrap-server.

    \b
    Exit 0 when every partition was elected or needed no election, 1 when some could not be
    (with --dry-run: would not be), 2 for bad flags or a bad file (nothing was changed).
    --output json prints schemas/leaders-elect-result.json, alone on stdout.
    """

    from kadmin.backends.base import Capability, ElectionType
    from kadmin.errors import UsageError
    from kadmin.leaders_request import ElectParams, read_election_file

    params = ElectParams(
        preferred,
        unclean,
        election_type,
        all_topic_partitions,
        topic,
        partition,
        path_to_json_file,
        max_per_broker,
        batch_size,
    )
    etype = params.validate()
    partitions = None
    if path_to_json_file is not None:
        partitions = read_election_file(path_to_json_file)

    from kadmin.commands import render
    from kadmin.execute.elect import ElectionInterrupted, ElectionStopped, ElectReporter, prepare, run_election

    with open_cluster(cluster, read_only=dry_run) as backend:
        if etype is ElectionType.UNCLEAN and Capability.UNCLEAN_ELECTION not in backend.capabilities:
            raise UsageError(  # bad usage, nothing done: exit 2
                "unclean leader election of chosen partitions is not possible over ZooKeeper: Kafka's "
                "ZooKeeper-mode tooling could only allow it per topic (unclean.leader.election.enable)",
                hint="use --bootstrap-server (ElectLeaders, Kafka 2.4+)",
            )
        state = None
        if topic is not None:  # an unknown topic or partition: exit 2, before any election
            from kadmin.leaders import named_partitions

            state = backend.describe_cluster()
            partitions = named_partitions(state, topic, partition)
        plan = prepare(backend, etype, partitions, max_per_broker=max_per_broker, batch_size=batch_size, cluster=state)
        if dry_run:
            _print_preview(plan, output, render)
            if plan.would_fail:  # the real run would exit 1: so does its preview
                from kadmin.errors import ClusterError
                from kadmin.units import counted

                raise ClusterError(
                    f"{counted(len(plan.would_fail), 'partition')} would not get the leader asked for; nothing was changed"
                )
            return
        if etype is ElectionType.UNCLEAN and plan.changes:
            _confirm_unclean(plan, yes, render)

        class Lines(ElectReporter):
            def batch(self, number, total, candidates):
                if total > 1 and output == "table":
                    from kadmin.units import counted

                    line = f"Batch {number} of {total}: {counted(len(candidates), 'partition')}"
                    render.stderr().print(line, highlight=False)

        try:
            report = run_election(backend, plan, Lines())
        except ElectionStopped as stopped:  # what the batches before elected stands: say it first
            _print_result(stopped.report, plan, output, render, stopped)
            raise
        except ElectionInterrupted as stopped:  # Ctrl-C: the same, then the batch in flight as UNKNOWN
            _print_interrupted(stopped, plan, output, render)
    _print_result(report, plan, output, render)
    if report.failed:
        from kadmin.errors import ClusterError
        from kadmin.units import counted

        raise ClusterError(f"{counted(len(report.failed), 'partition')} could not get the leader asked for")


def _print_result(report, plan, output, render, stopped=None) -> None:
    """The outcomes (of the batches sent before ``stopped``, when a batch failed)."""
    if output == "json":
        render.print_json(result_json(report, plan, stopped))
        return
    from kadmin.leaders import kafka_lines

    lines = kafka_lines(report)
    if not lines and stopped is None:
        lines = [f"Nothing to elect: no partition needs {_an(report.election_type.value)} election."]
    for line in lines:
        click.echo(line)


def _print_interrupted(stopped, plan, output, render) -> None:
    """Ctrl-C during batch N: what the batches before elected, as a run prints it; the batch in
    flight as UNKNOWN (sent, no answer: it may have elected them); one line on stderr, exit 130."""
    from kadmin.commands.reassign_wait import EXIT_INTERRUPTED
    from kadmin.units import counted

    _print_result(stopped.report, plan, output, render, stopped)
    if output != "json":
        for tp in stopped.unanswered:
            click.echo(
                f"UNKNOWN leader election ({plan.election_type.value}) for partition {tp}: sent, no answer: "
                "it may have been made"
            )
    before = "no batch" if stopped.batch == 1 else "batch 1" if stopped.batch == 2 else f"batches 1-{stopped.batch - 1}"
    click.echo(
        f"kadmin: interrupted at batch {stopped.batch} of {stopped.total}: {before} elected "
        f"{counted(len(stopped.report.elected), 'partition')}, {len(stopped.unanswered)} unknown (sent, no answer), "
        f"{len(stopped.unsent)} not sent; run the same `kadmin leaders elect` again to elect the rest "
        "(those already elected need no election)",
        err=True,
    )
    raise click.exceptions.Exit(EXIT_INTERRUPTED)


def stdin_is_tty() -> bool:
    """Whether a person can answer a prompt (one name, so tests can stand in for a terminal)."""
    return sys.stdin.isatty()


def _confirm_unclean(plan, yes: bool, render) -> None:
    from kadmin.errors import UsageError
    from kadmin.units import counted

    risky = plan.data_loss
    if risky:
        render.warn(f"unclean election of {counted(len(risky), 'partition')} elects a replica out of the ISR:")
        for c in risky[:20]:
            click.echo(f"  {c.tp}: {c.data_loss}", err=True)
        if len(risky) > 20:
            click.echo(f"  ... and {len(risky) - 20} more", err=True)
    if yes:
        return
    if not stdin_is_tty():
        raise UsageError(
            "--unclean may lose data and nobody is at a terminal to confirm it; nothing was changed",
            hint="pass --yes to go ahead",
        )
    n = len(plan.changes)
    if not click.confirm(f"Elect leaders uncleanly for {counted(n, 'partition')}?", default=False, err=True):
        raise click.exceptions.Exit(1)


def _candidate_json(c) -> dict:
    from kadmin.leaders import leader_or_none

    return {
        "topic": c.tp.topic,
        "partition": c.tp.partition,
        "leader": leader_or_none(c.leader),
        "new_leader": c.new_leader,
        "expected": c.expected,
        "reason": c.reason,
        "data_loss": c.data_loss,
    }


def _print_preview(plan, output, render) -> None:
    if output == "json":
        render.print_json(
            {
                "version": 1,
                "dry_run": True,
                "election_type": plan.election_type.value,
                "limits": {"max_per_broker": plan.max_per_broker, "batch_size": plan.batch_size},
                "batches": [[_candidate_json(c) for c in b] for b in plan.batches],
            }
        )
        return
    kind = plan.election_type.value
    if not plan.candidates:
        click.echo(f"Nothing to elect: no partition needs {_an(kind)} election.")
        return
    click.echo(f"Leader election ({kind}) would run in {len(plan.batches)} batch(es):")
    for i, b in enumerate(plan.batches, 1):
        click.echo(f"Batch {i}:")
        for c in b:
            if c.changes:
                was = "none" if c.leader in (None, -1) else str(c.leader)
                line = f"  {c.tp}: leader {was} -> {c.new_leader}"
                if c.data_loss:
                    line += f" (unclean: {c.data_loss})"
            elif c.expected == "ELECTION_NOT_NEEDED":
                line = f"  {c.tp}: valid replica already elected (leader {c.leader})"
            else:
                line = f"  {c.tp}: would fail, {c.expected}" + (f" ({c.reason})" if c.reason else "")
            click.echo(line)


def result_json(report, plan, stopped=None) -> dict:
    """The ``--output json`` document (schemas/leaders-elect-result.json). ``stopped``: the
    ElectionStopped of a batch that failed; ``report`` then holds the batches before it."""
    from kadmin.commands.render_leaders import stopped_json
    from kadmin.leaders import leader_or_none

    before = {c.tp: c for c in plan.candidates}

    def outcome(o) -> dict:
        c = before.get(o.tp)
        state = "elected" if o.elected else "not_needed" if o.not_needed else "failed"
        return {
            "topic": o.tp.topic,
            "partition": o.tp.partition,
            "outcome": state,
            "error": o.error,
            "message": o.message,
            "reason": o.reason,
            "leader_before": None if c is None else leader_or_none(c.leader),
            "new_leader": None if c is None or not o.elected else c.new_leader,
        }

    return {
        "version": 1,
        "dry_run": False,
        "election_type": report.election_type.value,
        "batches": report.batches,
        "limits": {"max_per_broker": plan.max_per_broker, "batch_size": plan.batch_size},
        "partitions": [outcome(o) for o in report.outcomes],
        "elected": len(report.elected),
        "not_needed": len(report.not_needed),
        "failed": len(report.failed),
        "stopped": None if stopped is None else stopped_json(stopped),
    }


def _an(kind: str) -> str:
    """ "a preferred", "an unclean"."""
    kind = kind.lower()
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind}"
