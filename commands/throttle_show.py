"""``kadmin throttle show``: every throttle, whether kadmin set it (for which plan), whether a
running move needs it; unneeded ones are flagged stale."""

from __future__ import annotations

import click

from kadmin.commands.fleet import fleet_options, run_fleet_report
from kadmin.commands.options import cluster_options, open_cluster, output_option
from kadmin.commands.render_throttles import warn_down_brokers, warn_not_taken


@click.command()
@cluster_options
@output_option(("table", "json"))
@fleet_options
def show(cluster, output, fleet):
    """Show the replication throttles set on brokers (rates) and topics (throttled-replica
    lists): which kadmin set, for which plan, by whom and when; and whether an ongoing
    reassignment or log-dir move needs them, or a step still to come of an incremental run
    (`reassign execute --incremental`; needed "yes (incremental run of plan ID)", between its
    batches too). Throttles no move needs are flagged STALE (`kadmin throttle clear --stale`
    removes them). Over --zookeeper, the requests of a /admin/reassign_partitions the controller
    is not acting on (stuck) are no moves: they need nothing, and a warning says why.

    \b
    --output json prints schemas/throttle-show-result.json, alone on stdout.
    """
    if fleet.requested:
        return run_fleet_report("throttle", fleet, output=output, cluster=cluster)
    from kadmin.throttling.state import read_throttle_state
    from kadmin.throttling.stores import open_record_store

    with open_cluster(cluster, read_only=True) as backend:
        store = open_record_store(backend)
        state = read_throttle_state(backend, store, partial=True)
    from kadmin.commands import render

    doc = show_json(state)
    if state.records_error:
        hint = f"; {state.records_hint}" if state.records_hint else ""
        n = len(state.unreadable_records)
        shown = "every throttle is" if not n else "what it recorded is" if n == 1 else "what they recorded is"
        render.warn(f"{state.records_error} ({shown} shown as not set by kadmin{hint})")
    if output == "json":
        _warn_invalid(doc)
        warn_down_brokers(state, "listed")
        warn_not_taken(state)
        render.print_json(doc)
        _fail_if_silent(state)
        return
    if doc["throttles"]:
        render.stdout().print(_table(doc))
    else:
        where = " on the brokers that answered" if state.silent_brokers else ""
        where = where or (" on the running brokers" if state.unreadable_brokers else "")
        click.echo(f"No replication throttles are set{where}.")  # plain text: no need to load rich
    _warn_invalid(doc)
    warn_down_brokers(state, "listed")
    warn_not_taken(state)
    if not state.log_dirs_known and not state.log_dirs_unseen and not state.silent_brokers:  # else the error names them
        render.warn("log-dir moves could not be seen on every broker: their log-dir rates count as needed")
    for r in doc["records"]:  # plain text: a plan file named "[x].json" is not rich markup
        click.echo(f"kadmin record {r['plan_id']}: {_who(r)}", err=True)
    _fail_if_silent(state)


def _fail_if_silent(state) -> None:
    """A running broker that did not answer: for its configs, the report lacks its rates; for
    its log directories (DescribeLogDirs: over --zookeeper the configs come from ZooKeeper, the
    log-dir moves from the brokers), whether its log-dir rate is needed is not known (it counts
    as needed). Exit 1 either way, over either connection, as ``log-dirs describe`` does for a
    broker that did not answer, so a script never takes the part for the whole (a down broker is
    known to be down: a warning, exit 0)."""
    silent = state.silent_brokers
    unseen = {b: why for b, why in state.log_dirs_unseen.items() if b not in silent}  # lacking its rates says more
    if not silent and not unseen:
        return
    from kadmin.errors import ClusterError
    from kadmin.units import plural

    def ids(brokers) -> str:
        return ", ".join(f"{b} ({why})" for b, why in sorted(brokers.items()))

    parts = []
    if silent:
        their = "their" if len(silent) > 1 else "its"
        parts.append(
            f"{plural('broker', len(silent))} {ids(silent)} did not answer DescribeConfigs: the report lacks "
            f"{their} throttle rates"
        )
    if unseen:
        one = len(unseen) == 1
        parts.append(
            f"{plural('broker', len(unseen))} {ids(unseen)} did not answer DescribeLogDirs: "
            f"{'its' if one else 'their'} log-dir moves could not be seen, so a log-dir rate set there counts as "
            "needed"
        )
    raise ClusterError("; ".join(parts), hint="check the broker and run it again")


def show_json(state) -> dict:
    """The ``--output json`` document (schemas/throttle-show-result.json)."""
    from kadmin.throttling.needs import throttle_items

    items = throttle_items(state.current, state.needs, state.records.values())
    # The records that claim a throttle set now, or one on a broker whose configs could not be
    # read (kept for a later run): a record claiming nothing that is set (left by a change the
    # cluster refused, or whose throttles were removed by hand) is none to list; clear drops it.
    claiming = {p for i in items for p in i.plan_ids}
    unreadable = state.unreadable_brokers
    records = [
        r
        for _, r in sorted(state.records.items())
        if r.plan_id in claiming or any(c.broker in unreadable for c in r.rates)
    ]
    doc = {
        "version": 1,
        "throttles": [
            {
                "kind": i.kind,
                "resource": i.resource,
                "config": i.config,
                "value": i.value,
                "set_by_kadmin": bool(i.plan_ids),
                "plan_ids": list(i.plan_ids),
                "needed": i.needed,
                "stale": i.stale,
                "unneeded_entries": list(i.unneeded_entries),
                "invalid": i.invalid,
                "needed_by_runs": list(i.runs),
            }
            for i in items
        ],
        "records": [r.to_json() for r in records],
        "reassigning_partitions": len(state.moves),
        "log_dir_moving_brokers": sorted(state.needs.log_dir_brokers),
        "log_dir_moves_known": state.log_dirs_known,
        "down_brokers": sorted(state.down_brokers),
        "unreadable_brokers": sorted(state.unreadable_brokers),
    }
    if state.silent_brokers:
        doc["silent_brokers"] = {str(b): why for b, why in sorted(state.silent_brokers.items())}
    if state.log_dirs_unseen:
        doc["log_dirs_unseen"] = {str(b): why for b, why in sorted(state.log_dirs_unseen.items())}
    if state.not_taken:
        doc["waiting"] = [
            {
                "topic": tp.topic,
                "partition": tp.partition,
                "replicas": list(state.cluster.partitions[tp].replicas),
                "target": list(r.target),
            }
            for tp, r in sorted(state.not_taken.items())
        ]
    return doc


def _warn_invalid(doc: dict) -> None:
    from kadmin.commands import render

    for t in doc["throttles"]:
        if t["invalid"]:
            render.warn(
                f"broker {t['resource']} {t['config']} is {t['value']!r}, not a rate Kafka can apply (a whole number "
                "of bytes/s, 0 to 9223372036854775807); not set by kadmin: `kadmin throttle clear --stale` removes it"
            )


def _who(r: dict) -> str:
    what = r.get("plan_file") or r.get("command") or "throttle set"
    by = f"{r.get('user') or '?'}@{r.get('host') or '?'}"
    return f"{what}, by {by} at {r.get('created_at') or '?'}"


# Past this many throttles the table shows every broker rate and the topic lists worth a look
# first (stale, or not kadmin's), MOST_ROWS in all, and counts the rest: a plan over 1,000 topics
# sets 2,000 lists (rich drew them in ~0.7 s; --output json lists every one).
FOLD_ABOVE = 50
MOST_ROWS = 100


def _shown(throttles: list[dict]) -> tuple[list[dict], list[dict]]:
    """The throttles the table lists, and those it leaves out."""
    if len(throttles) <= FOLD_ABOVE:
        return throttles, []
    rates = [t for t in throttles if t["kind"] == "broker_rate"]
    lists = [t for t in throttles if t["kind"] != "broker_rate"]
    lists.sort(key=lambda t: not (t["stale"] or not t["plan_ids"]))  # stale or not kadmin's first
    room = max(0, MOST_ROWS - len(rates))
    shown = set(map(id, rates + lists[:room]))
    return [t for t in throttles if id(t) in shown], lists[room:]


def _table(doc: dict):
    from rich.markup import escape
    from rich.table import Table

    from kadmin.units import format_rate

    table = Table(title="Replication throttles", header_style="bold", title_justify="left", caption_justify="left")
    for col in ("Resource", "Config"):
        table.add_column(col, no_wrap=True)
    for col in ("Value", "Set by", "Needed"):
        table.add_column(col, overflow="fold")
    shown, left_out = _shown(doc["throttles"])
    captions = []
    if not doc["throttles"]:
        captions.append("no replication throttles are set")
    elif not all(t["plan_ids"] for t in shown):
        captions.append(
            "not kadmin: no kadmin record of it here; set by another tool, or by kadmin through the other "
            "connection (--zookeeper and --bootstrap-server keep separate records)"
        )
    if left_out:
        what = ", each set by kadmin and needed" if all(t["plan_ids"] and not t["stale"] for t in left_out) else ""
        captions.append(f"{len(left_out)} more topic throttle lists{what} (--output json lists every throttle)")
    table.caption = "\n".join(captions) or None
    for t in shown:
        resource = f"broker {t['resource']}" if t["kind"] == "broker_rate" else f"topic {t['resource']}"
        if t["invalid"]:
            value = f"[red]{escape(repr(t['value']))}: INVALID[/] (not a rate)"
        elif t["kind"] == "broker_rate":
            value = f"{format_rate(int(t['value']))} ({t['value']})"
        else:
            value = t["value"]
        if t["plan_ids"]:
            setter = "kadmin for " + ", ".join("no plan" if p == "manual" else f"plan {p}" for p in t["plan_ids"])
        else:
            setter = "not kadmin"
        if t["invalid"]:
            needed = "no"
        elif not t["stale"]:
            runs = t.get("needed_by_runs") or []  # their steps to come need it, running or not
            needed = f"yes (incremental run of plan {', '.join(runs)})" if runs else "yes"
        elif t["kind"] == "broker_rate" or len(t["unneeded_entries"]) == len(t["value"].split(",")):
            needed = "[yellow]no: STALE[/]"
        else:
            needed = f"[yellow]partly: STALE {','.join(t['unneeded_entries'])}[/]"
        table.add_row(resource, t["config"], value, setter, needed)
    return table
