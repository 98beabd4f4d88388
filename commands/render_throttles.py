"""Throttle config changes as ``throttle set`` and ``throttle clear`` print them: one line per
change for people, one object per change in their JSON."""

from __future__ import annotations


def change_line(change, current) -> str:
    """ "broker 1 leader.replication.throttled.rate: 5000000 -> 10000000 (10.0 MB/s)"."""
    from kadmin.model import AlterOp, ConfigResourceType
    from kadmin.throttling.needs import broker_label
    from kadmin.units import format_rate

    before = _before(change, current)
    res = change.resource
    where = f"broker {broker_label(res.name)}" if res.type == ConfigResourceType.BROKER else f"topic {res.name}"
    after = "(deleted)" if change.op is AlterOp.DELETE else change.value
    if res.type == ConfigResourceType.BROKER and change.op is AlterOp.SET:
        after = f"{change.value} ({format_rate(int(change.value))})"
    return f"{where} {change.name}: {before if before is not None else '(not set)'} -> {after}"


def _before(change, current):
    from kadmin.model import ConfigResourceType, format_replica_list
    from kadmin.throttling.needs import DEFAULT_BROKER_ID

    res = change.resource
    if res.type == ConfigResourceType.BROKER:
        v = current.broker_rates.get(int(res.name) if res.name else DEFAULT_BROKER_ID, {}).get(change.name)
        return None if v is None else str(v)
    v = current.topic_replicas.get(res.name, {}).get(change.name)
    return None if v is None else format_replica_list(v)


def changes_json(changes, current) -> list[dict]:
    from kadmin.throttling.needs import broker_label

    return [
        {
            "resource_type": c.resource.type.value,
            "resource": broker_label(c.resource.name) if c.resource.type.value == "broker" else c.resource.name,
            "config": c.name,
            "op": c.op.value,
            "before": _before(c, current),
            "after": c.value,
        }
        for c in changes
    ]


def warn_not_taken(state) -> None:
    """Why the requests of a stuck reassignment node count as no move (and the way out)."""
    if not state.not_taken or state.blocked is None:
        return
    from kadmin.backends.base import not_taken_reason
    from kadmin.commands import render

    tps = sorted(state.not_taken)
    them = "them" if len(tps) > 1 else "it"
    render.warn(
        f"{not_taken_reason(state.blocked, tps)}: no throttle counts as needed for {them}. {state.blocked.hint}"
    )


def warn_down_brokers(state, done: str, *, unreadable: bool = True) -> None:
    """Brokers in scope that are down (kadmin's records name them, or they hold replicas): their
    throttles could not be read (so are not ``done``: "listed", "removed"; those kadmin recorded
    left out when not ``unreadable``: the caller says them in its error), or (ZooKeeper) were
    read from ZooKeeper."""
    from kadmin.commands import render

    for b in sorted(state.down_brokers):
        claims = sorted({(c.name, c.value) for r in state.records.values() for c in r.rates if c.broker == b})
        what = ", ".join(f"{name} {value}" for name, value in claims)
        if b in state.unreadable_brokers:
            if claims and not unreadable:  # the caller's error names them
                continue
            if claims:
                render.warn(
                    f"broker {b} is down (not in the cluster's broker list): the throttles kadmin recorded there "
                    f"({what}) could not be read and are not {done}; kadmin's records keep them until the broker "
                    "is back"
                )
            else:
                render.warn(
                    f"broker {b} is down (not in the cluster's broker list): its throttle configs could not be "
                    f"read, so any rate set there is not {done}"
                )
        else:
            seen = "listed" if done == "listed" else "read"
            recorded = f" (kadmin recorded {what})" if claims else ""
            render.warn(f"broker {b} is down: its rates are {seen} as ZooKeeper holds them{recorded}")


def left_down_message(left_down, unreadable) -> str:
    """The one error line of a ``throttle clear`` that left rates on brokers that are down
    (``left_down``: broker -> "config value"; ``unreadable``: those whose configs could not be read)."""
    parts = []
    for b, claims in sorted(left_down.items()):
        how = "could not be read and are not removed" if b in unreadable else "are not removed"
        parts.append(f"broker {b} is down: the throttles kadmin recorded there ({', '.join(claims)}) {how}")
    return (
        f"not everything was cleared: {'; '.join(parts)}; the rest was; kadmin's records keep them: "
        "run this again once the broker is back"
    )
