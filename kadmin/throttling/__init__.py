"""Replication throttles: the one home of kadmin's throttling (docs/throttle-records.md).

- ``record``: what kadmin set, for which plan (pure values and JSON);
- ``maths``: which lists and rates a plan needs, merges, what running moves need, removal,
  stale throttles (pure);
- ``stores``: where records live, reached through the backend (``Capability.THROTTLE_RECORDS``);
- ``operations``: read the state, apply (record first), remove (only what nobody needs; unknown
  counts as needed), and what the ``throttle`` commands decide.
"""
