"""``kadmin throttle``: replication throttles that are recorded and cleaned up safely."""

from __future__ import annotations

import click

from kadmin.commands.options import LazyGroup

ACTIONS = {
    "set": ("kadmin.commands.throttle_set", "set_", "Set replication rates and throttled-replica lists."),
    "show": ("kadmin.commands.throttle_show", "show", "Show every throttle, who set it, and whether a move needs it."),
    "clear": ("kadmin.commands.throttle_clear", "clear", "Remove throttles no move needs (or a plan's, or all)."),
}


@click.group(cls=LazyGroup, lazy=ACTIONS)
def throttle() -> None:
    """Set, show and clear replication throttles (KIP-179's automatic removal)."""
