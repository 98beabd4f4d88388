"""``kadmin reassign verify``: where a plan stands; removes the throttles it set once unneeded."""

from __future__ import annotations

import click

from kadmin.commands.options import cluster_options, open_cluster, output_option


@click.command()
@click.option(
    "--reassignment-json-file",
    "plan_file",
    required=True,
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="The plan that was executed.",
)
@click.option("--preserve-throttles", is_flag=True, help="Leave the throttles this plan set in place.")
@click.option(
    "--elect-preferred",
    is_flag=True,
    help="Once the plan is complete, elect the preferred leader of its partitions whose leader differs.",
)
@cluster_options
@output_option(("table", "json"))
def verify(cluster, output, plan_file, preserve_throttles, elect_preferred=False):
    """State of every partition and every log-dir replica of the plan, in Kafka's words.

    \b
    Exit 0 when complete, 3 while in progress, 4 when nothing runs but the cluster differs
    from the plan, 1 when a broker holding a log-dir replica of the plan is down or not
    answering (no verdict rather than a wrong one). Removes only the throttles this plan set,
    and only those no running move (of this plan or any other) still needs; a rate on a broker
    that is down stays recorded for the next verify. --preserve-throttles keeps them all.
    """
    from pathlib import Path

    from kadmin.commands.options import open_records
    from kadmin.commands.render_reassign import verify_report
    from kadmin.execute.verification import run_verify
    from kadmin.plan.reassignment_file import read_reassignment
    from kadmin.throttling.record import plan_id

    parsed = read_reassignment(plan_file)  # a bad plan: PlanProblems, exit 2, as execute says it
    pid = plan_id(Path(plan_file).read_bytes())
    # Read-only unless throttles may be removed or leaders elected: verify changes nothing else.
    with open_cluster(cluster, read_only=preserve_throttles and not elect_preferred) as backend:
        records = None if preserve_throttles else open_records(backend)
        outcome = run_verify(backend, parsed.plan, plan_id=pid, records=records, preserve_throttles=preserve_throttles)
        election = None
        if elect_preferred:
            from kadmin.execute.elect import elect_after_plan
            from kadmin.plan.verify import State

            election = elect_after_plan(backend, parsed.plan, outcome.result.state is State.COMPLETE)
    verify_report(output, pid, outcome, election=election)
