"""``kadmin reassign progress``: KIP-179's progress table with bytes, rate and ETA; live with --watch."""

from __future__ import annotations

import click

from kadmin.commands.options import cluster_options, open_cluster, output_option


@click.command()
@click.option("--reassignment-json-file", "plan_file", metavar="FILE", type=click.Path(exists=True, dir_okay=False),
              help="Only this plan's replicas (default: every ongoing reassignment and log-dir move, "
                   "whoever started it).")
@click.option("--watch", "-w", is_flag=True, help="Keep refreshing until every move is done (Ctrl-C stops watching, "
                                                  "not the moves).")
@click.option("--interval", default="2s", show_default=True, metavar="DURATION",
              help="Time between samples. Without --watch, two samples this far apart give the rate and ETA "
                   "(0: one sample, no rate).")
@cluster_options
@output_option(("table", "json"))
def progress(cluster, output, plan_file, watch, interval):
    """Show how replica moves are going: per replica KIP-179's status (In sync, Behind: N
    messages, Unknown topic/partition/broker, Broker does not host this partition), bytes moved
    and left, copy rate and ETA, and totals; for moves between brokers and between log
    directories.

    \b
    With --output json: one JSON document per line (schemas/progress-snapshot.json), one per
    interval with --watch. Exit 0 when nothing moves any more, 3 while moves are in progress.
    """
    import time

    from kadmin.errors import EXIT_IN_PROGRESS, InputError
    from kadmin.units import parse_duration

    every = parse_duration(interval)
    if watch and every <= 0:
        raise InputError("--interval must be more than 0 with --watch")
    plan = _read_plan(plan_file) if plan_file else None

    from kadmin.commands import render

    with open_cluster(cluster, read_only=True) as backend:
        sample = Sampler(backend, plan)
        snap = sample(None)
        if not watch:
            if every > 0 and not snap.done:
                time.sleep(every)
                snap = sample(snap)
            _emit(output, snap)
        elif output == "json":
            while True:
                _emit(output, snap)
                if snap.done:
                    break
                time.sleep(every)
                snap = sample(snap)
        else:
            snap = _watch_live(sample, snap, every)
    if not snap.done:
        raise click.exceptions.Exit(EXIT_IN_PROGRESS)


class Sampler:
    """Takes progress snapshots: the reads of one refresh, then the pure arithmetic."""

    def __init__(self, backend, plan, clock=None):
        import time

        self.backend = backend
        self.plan = plan
        self.clock = clock or time.monotonic

    def __call__(self, previous):
        from kadmin.backends.base import Capability
        from kadmin.execute.progress import snapshot

        b = self.backend
        cluster = b.describe_cluster()
        ongoing = b.list_partition_reassignments()
        topics = None
        if self.plan is not None:
            topics = sorted({a.topic for a in self.plan.partitions} & set(cluster.topics)) or None
        log_dirs = b.describe_log_dirs(topics=topics) if Capability.LOG_DIRS in b.capabilities else {}
        moving = set(ongoing) if self.plan is None else {a.tp for a in self.plan.partitions} & set(cluster.partitions)
        offsets = {}
        if moving and Capability.END_OFFSETS in b.capabilities:
            offsets = b.list_end_offsets(sorted(moving))
        return snapshot(self.clock(), cluster, ongoing, log_dirs, plan=self.plan, end_offsets=offsets,
                        previous=previous)


def _read_plan(plan_file):
    from kadmin.errors import InputError
    from kadmin.plan.reassignment_file import read_reassignment

    parsed = read_reassignment(plan_file)
    if parsed.problems:
        raise InputError(f"reassignment file {plan_file} is not a valid plan", [str(p) for p in parsed.problems])
    return parsed.plan


def _emit(output, snap) -> None:
    from kadmin.commands import render

    if output == "json":
        render.print_json_line(_json(snap))
    else:
        render.stdout().print(progress_table(snap))


def _json(snap) -> dict:
    import time

    from kadmin.execute.progress import snapshot_json
    from kadmin.throttle_records import now_iso

    return snapshot_json(snap, now_iso(time.time()))


def _watch_live(sample, snap, every):
    """A live table on the terminal, refreshed every interval until nothing moves."""
    import time

    from rich.live import Live

    from kadmin.commands import render

    with Live(progress_table(snap), console=render.stdout(), auto_refresh=False, transient=False) as live:
        while not snap.done:
            time.sleep(every)
            snap = sample(snap)
            live.update(progress_table(snap), refresh=True)
    return snap


def progress_table(snap):
    from rich.table import Table

    from kadmin.units import format_duration, format_rate, format_size

    t = snap.totals
    title = (f"Reassignment progress: {snap.reassigning_partitions} partitions reassigning, "
             f"{t.moving_replicas} replicas moving")
    table = Table(title=title, title_justify="left", header_style="bold")
    for col, justify in (("Topic", "left"), ("Partition", "right"), ("Broker", "right"), ("Status", "left"),
                         ("Move", "left"), ("Moved", "right"), ("Left", "right"), ("Rate", "right"), ("ETA", "right")):
        table.add_column(col, justify=justify)
    for r in snap.replicas:
        move = {"inter-broker": "broker", "log-dir": f"dir {r.log_dir} -> {r.future_log_dir}"}.get(r.move, "")
        style = "green" if r.status == "In sync" else ("yellow" if r.move != "none" else "red")
        table.add_row(r.topic, str(r.partition), str(r.broker), f"[{style}]{r.status}[/]", move,
                      format_size(r.moved_bytes) if r.move != "none" else "",
                      format_size(r.remaining_bytes) if r.move != "none" else "",
                      format_rate(r.rate) if r.move != "none" else "",
                      format_duration(r.eta) if r.move != "none" else "")
    table.add_section()
    table.add_row("[bold]total[/]", "", "", "done" if snap.done else "moving", "", format_size(t.moved_bytes),
                  format_size(t.remaining_bytes), format_rate(t.rate), format_duration(t.eta))
    return table
