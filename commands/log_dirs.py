"""``kadmin log-dirs``: where the bytes are on each broker's disks, and how to even them out."""

from __future__ import annotations

import click

from kadmin.commands.options import LazyGroup

ACTIONS = {
    "describe": (
        "kadmin.commands.log_dirs_describe",
        "describe",
        "Show each broker's log directories: usage, replicas, moves in flight.",
    ),
    "balance": (
        "kadmin.commands.log_dirs_balance",
        "balance",
        "Plan moves between the disks of each broker to even out usage, or evacuate a disk.",
    ),
}


@click.group(cls=LazyGroup, lazy=ACTIONS)
def log_dirs() -> None:
    """Describe and balance JBOD log directories (KIP-113)."""
