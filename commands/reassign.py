"""``kadmin reassign``: Kafka's kafka-reassign-partitions.sh actions, done safely."""

from __future__ import annotations

import click

from kadmin.commands.options import LazyGroup

ACTIONS = {
    "generate": (
        "kadmin.commands.reassign_generate",
        "generate",
        "Propose a reassignment of topics onto a broker list.",
    ),
    "balance": (
        "kadmin.commands.reassign_balance",
        "balance",
        "Plan moves that even out used disk space across brokers and their disks.",
    ),
    "execute": (
        "kadmin.commands.reassign_execute",
        "execute",
        "Validate a plan, save the rollback, set throttles and start moving.",
    ),
    "verify": (
        "kadmin.commands.reassign_verify",
        "verify",
        "Check a plan's completion; remove the throttles it set once done.",
    ),
    "progress": (
        "kadmin.commands.reassign_progress",
        "progress",
        "Live progress of reassignments: bytes moved, rate, ETA.",
    ),
    "cancel": ("kadmin.commands.reassign_cancel", "cancel", "Cancel ongoing reassignments and log-dir moves."),
    "list": ("kadmin.commands.reassign_list", "list_", "List ongoing reassignments."),
}


@click.group(cls=LazyGroup, lazy=ACTIONS)
def reassign() -> None:
    """Plan, execute, verify and follow partition reassignments (KIP-179, KIP-435, KIP-455)."""
