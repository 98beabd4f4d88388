"""Replication throttles: the one home of kadmin's throttling (docs/throttle-records.md).

- ``record``: what kadmin set, for which plan (pure values and JSON);
- ``needs``: which lists and rates a plan or the running moves need, which throttles are set,
  and each one as ``throttle show`` lists it (pure);
- ``maths``: what to set (merged with what is set), what to remove, stale throttles (pure);
- ``stores``: where records live, reached through the backend (``Capability.THROTTLE_RECORDS``);
- ``state``: read the configs, records and running moves (all ``throttle show`` loads);
- ``operations``: apply (record first), remove (only what nobody needs; unknown counts as
  needed), and what the ``throttle`` commands decide.
"""

# kadmin's record topic (AdminClient mode): named here, where a planner that leaves it in place
# finds it without loading the record store.
RECORD_TOPIC = "__kadmin_throttle_records"
