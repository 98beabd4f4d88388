"""Planning: reassignment files, generate, broker and disk balancing, KIP-435 steps.

What every command that plans for a ``--broker-list`` shares is here."""

from __future__ import annotations

from collections.abc import Iterable


def duplicate_brokers(brokers: Iterable[int]) -> str | None:
    """What is wrong with a broker list that names a broker twice, as Kafka's tool says it
    ("Broker list contains duplicate entries: 0"), or None. Every --broker-list that picks
    brokers to plan for refuses that (log-dirs balance, reassign balance, reassign generate)."""
    from collections import Counter

    dupes = sorted(b for b, n in Counter(brokers).items() if n > 1)
    return f"Broker list contains duplicate entries: {', '.join(map(str, dupes))}" if dupes else None
