"""Rendering of ``reassign balance``: brokers and directories before and after (bars on a
terminal), the summary lines, and the --output json document (schemas/reassign-balance-result.json)."""

from __future__ import annotations

from typing import Any

from kadmin.units import format_duration, format_size


def _show(fraction, bars: bool):
    from rich.text import Text

    from kadmin.commands.render_logdirs import usage_bar

    if bars:
        return usage_bar(fraction, 16)
    return Text("-" if fraction is None else f"{fraction:.1%}")


def _unknown():
    from rich.text import Text

    return Text("unknown", style="dim")


def _before_after(before, after, show):
    """``before``, or ``before -> after`` when they differ; a None figure (an offline
    directory's, or a broker's with one) is unknown, as log-dirs describe shows it."""
    if before is None and after is None:
        return _unknown()
    text = "unknown" if before is None else show(before)
    if before != after:
        text += f" -> {'unknown' if after is None else show(after)}"
    return text


def _by_bytes(result) -> bool:
    from kadmin.plan.broker_balance import KAFKA_BYTES

    return result.balanced_on == KAFKA_BYTES


def _traffic(result):
    out: dict = {}
    inn: dict = {}
    for m in result.moves:
        if m.inter_broker:
            out[m.source_broker] = out.get(m.source_broker, 0) + m.size
            inn[m.dest_broker] = inn.get(m.dest_broker, 0) + m.size
    return out, inn


def brokers_table(result, *, bars: bool):
    from rich.markup import escape
    from rich.table import Table

    out, inn = _traffic(result)
    after = {u.broker: u for u in result.brokers_after}
    low, high = result.band
    # Without capacity the figure is a share of the Kafka bytes, not of a disk: no usage bar.
    by_bytes = _by_bytes(result)
    what, bars = ("share of the Kafka bytes", False) if by_bytes else ("used share", bars)
    word = "Share" if by_bytes else "Used"
    table = Table(
        title=f"Brokers: {what} now (before) and once the moves in flight and the plan are done (after) "
        f"(band {low:.1%}..{high:.1%}, mean {result.mean:.1%})",
        header_style="bold",
    )
    columns: list[tuple[str, dict[str, Any]]] = [
        ("Broker", {"justify": "right"}),
        ("Rack", {}),
        (f"{word} before", {}),
        (f"{word} after", {}),
        ("Out", {"justify": "right"}),
        ("In", {"justify": "right"}),
        ("Replicas", {"justify": "right"}),
    ]
    for col, kw in columns:
        table.add_column(col, no_wrap=True, **kw)
    for u in result.brokers_before:
        a = after[u.broker]
        table.add_row(
            str(u.broker),
            escape(u.rack or "-"),  # free text, not markup
            _unknown() if u.occupied is None else _show(u.share, bars),
            _unknown() if a.occupied is None else _show(a.share, bars),
            format_size(out[u.broker]) if u.broker in out else "",
            format_size(inn[u.broker]) if u.broker in inn else "",
            _before_after(u.replicas, a.replicas, str),
        )
    return table


def dirs_table(result, *, bars: bool):
    from rich.markup import escape
    from rich.table import Table

    after = {(u.broker, u.path): u for u in result.dirs_after}
    moved_out: dict = {}
    moved_in: dict = {}
    for m in result.moves:
        moved_out[m.source_broker, m.source_dir] = moved_out.get((m.source_broker, m.source_dir), 0) + 1
        moved_in[m.dest_broker, m.dest_dir] = moved_in.get((m.dest_broker, m.dest_dir), 0) + 1
    table = Table(
        title="Log directories: used share now (before) and once the moves in flight and the plan are done (after)",
        header_style="bold",
    )
    columns: list[tuple[str, dict[str, Any]]] = [
        ("Broker", {"justify": "right"}),
        ("Log dir", {}),
        ("Status", {}),
        ("Used before", {}),
        ("Used after", {}),
        ("Kafka bytes", {"justify": "right"}),
        ("Out/in", {"justify": "right"}),
    ]
    for col, kw in columns:
        table.add_column(col, no_wrap=True, **kw)
    last = None
    for u in result.dirs_before:
        a = after[u.broker, u.path]
        if last is not None and u.broker != last:
            table.add_section()
        first, last = u.broker != last, u.broker
        status = u.status.value if u.status.value == "online" else f"[red]{u.status.value}[/]"
        o, i = moved_out.get((u.broker, u.path), 0), moved_in.get((u.broker, u.path), 0)
        offline = u.replica_bytes is None  # what it holds is unknown, its used share too
        table.add_row(
            str(u.broker) if first else "",
            escape(u.path),  # free text, not markup
            status,
            _unknown() if offline else _show(u.used_fraction, bars),
            _unknown() if offline else _show(a.used_fraction, bars),
            _before_after(u.replica_bytes, a.replica_bytes, format_size),
            f"{o}/{i}" if o or i else "",
        )
    return table


def balance_summary(result, cluster, throttle, dir_throttle=None) -> str:
    from kadmin.plan.broker_balance import max_deviation

    inter = [m for m in result.moves if m.inter_broker]
    intra = [m for m in result.moves if not m.inter_broker]
    before, after = max_deviation(result.brokers_before, result.mean), max_deviation(result.brokers_after, result.mean)
    if _by_bytes(result):
        distance = (
            f"Widest distance of a broker's share of the Kafka bytes from the mean ({result.mean:.1%}): "
            f"{before:.1%} before, {after:.1%} after (allowed {result.band[1] - result.mean:.1%}: "
            f"--threshold {result.threshold:.1%} of the mean)."
        )
    else:
        distance = (
            f"Widest distance of a broker from the mean: {before:.1%} before, {after:.1%} after "
            f"(threshold {result.threshold:.1%})."
        )
    bound = format_size(result.lower_bound_bytes)
    if result.inter_broker_bytes >= result.lower_bound_bytes:
        needed = f"at least {bound} needed"
    else:  # the plan stops short of the band (see "Stopped:"): the bound is not a contradiction
        needed = f"reaching the threshold takes at least {bound}, more than this plan moves"
    lines = [
        f"{len(inter)} replica moves between brokers ({format_size(result.inter_broker_bytes)}; {needed}), "
        f"{len(intra)} between directories ({format_size(result.intra_broker_bytes)}), "
        f"{result.leaders_changed} preferred leaders changed.",
        distance,
        *_copy_times(result, cluster, throttle, dir_throttle),
    ]
    lines.append(f"Stopped: {result.stopped}.")
    lines += [f"  - {why}" for why in result.unresolved]
    lines += [f"Note: {note}" for note in result.notes]
    return "\n".join(lines)


def _copy_times(result, cluster, throttle, dir_throttle) -> list[str]:
    """The copy time of each kind of move, at the rate that paces it: --throttle (replication)
    for moves between brokers, --replica-alter-log-dirs-throttle for moves between the
    directories of one broker, which --throttle does not slow. Work that takes time never
    reads "0s": without its rate, a kind of move is named with its bytes and left unestimated."""
    from kadmin.plan.broker_balance import dir_move_seconds, transfer_seconds

    lines = []
    if throttle and result.inter_broker_bytes:
        lines.append(
            f"Estimated copy time between brokers at {format_size(throttle)}/s (--throttle): "
            f"{format_duration(transfer_seconds(result, cluster, throttle))} (the busiest broker's bytes in or out)."
        )
    if result.intra_broker_bytes:
        if dir_throttle:
            lines.append(
                f"Estimated copy time between directories at {format_size(dir_throttle)}/s "
                f"(--replica-alter-log-dirs-throttle): {format_duration(dir_move_seconds(result, dir_throttle))} "
                "(the busiest broker's bytes)."
            )
        elif throttle:
            lines.append(
                f"Moves between directories ({format_size(result.intra_broker_bytes)}) are not paced by --throttle "
                "and not in any estimate: Kafka copies them at replica.alter.log.dirs.io.max.bytes.per.second "
                "(unlimited unless set); give --replica-alter-log-dirs-throttle to estimate them."
            )
    if dir_throttle and not throttle and result.inter_broker_bytes:
        lines.append(
            f"Moves between brokers ({format_size(result.inter_broker_bytes)}) are not paced by "
            "--replica-alter-log-dirs-throttle and not in any estimate; give --throttle to estimate them."
        )
    return lines


def balance_document(result, cluster, throttle, dir_throttle=None) -> dict:
    from kadmin.plan.broker_balance import dir_move_seconds, transfer_seconds
    from kadmin.plan.reassignment_file import plan_to_json

    after = {u.broker: u for u in result.brokers_after}
    dirs_after = {(u.broker, u.path): u for u in result.dirs_after}
    low, high = result.band
    return {
        "version": 2,  # 2: balanced_on, shares and the band; capacity null where none is reported
        "stopped": result.stopped,
        "unresolved": list(result.unresolved),
        "notes": list(result.notes),
        "balanced_on": result.balanced_on,
        "mean_used_fraction": None if _by_bytes(result) else result.mean,
        "mean_share": result.mean,
        "band": [low, high],
        "threshold": result.threshold,
        "bytes_between_brokers": result.inter_broker_bytes,
        "bytes_between_dirs": result.intra_broker_bytes,
        "lower_bound_bytes": result.lower_bound_bytes,
        "leaders_changed": result.leaders_changed,
        "throttle_bytes_per_second": throttle,
        "estimated_seconds": transfer_seconds(result, cluster, throttle) if throttle else None,
        "log_dir_throttle_bytes_per_second": dir_throttle,
        "estimated_seconds_between_dirs": dir_move_seconds(result, dir_throttle) if dir_throttle else None,
        "plan": plan_to_json(result.plan.partitions),
        "moves": [
            {
                "topic": m.topic,
                "partition": m.partition,
                "source_broker": m.source_broker,
                "source_dir": m.source_dir,
                "dest_broker": m.dest_broker,
                "dest_dir": m.dest_dir,
                "size_bytes": m.size,
            }
            for m in result.moves
        ],
        "brokers": [
            {
                "broker": u.broker,
                "rack": u.rack,
                "capacity_bytes": u.capacity,
                "used_bytes_before": u.occupied,
                "used_bytes_after": after[u.broker].occupied,
                "used_fraction_before": u.used_fraction,
                "used_fraction_after": after[u.broker].used_fraction,
                "share_before": u.share,
                "share_after": after[u.broker].share,
                "replicas_before": u.replicas,
                "replicas_after": after[u.broker].replicas,
            }
            for u in result.brokers_before
        ],
        "log_dirs": [
            {
                "broker": u.broker,
                "path": u.path,
                "status": u.status.value,
                "total_bytes": u.total_bytes,
                "usable_bytes_before": u.usable_bytes,
                "usable_bytes_after": dirs_after[u.broker, u.path].usable_bytes,
                "used_fraction_before": u.used_fraction,
                "used_fraction_after": dirs_after[u.broker, u.path].used_fraction,
                "replica_bytes_before": u.replica_bytes,
                "replica_bytes_after": dirs_after[u.broker, u.path].replica_bytes,
                "replicas_before": u.replicas,
                "replicas_after": dirs_after[u.broker, u.path].replicas,
            }
            for u in result.dirs_before
        ],
    }
