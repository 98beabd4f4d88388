"""``kadmin leaders``: who leads what against the preferred replicas, and leader elections
(replaces kafka-leader-election.sh)."""

from __future__ import annotations

import click

from kadmin.commands.options import LazyGroup

ACTIONS = {
    "show": (
        "kadmin.commands.leaders_show",
        "show",
        "Leaders per broker against the preferred count; partitions not led by their preferred replica.",
    ),
    "elect": (
        "kadmin.commands.leaders_elect",
        "elect",
        "Elect preferred (or, with care, unclean) leaders, in batches (kafka-leader-election.sh).",
    ),
}


@click.group(cls=LazyGroup, lazy=ACTIONS)
def leaders() -> None:
    """Show leadership balance and elect leaders (kafka-leader-election.sh)."""
