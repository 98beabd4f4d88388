"""``reassign execute`` reports its changes in the order ``--dry-run`` lists them
(``ExecutionPlan.changes()``): the rollback file, the throttles, the moves of replicas a broker
holds, the reassignments, then the new replicas placed in their directories, which a broker
places only once the reassignment has created them. Seen by hand (2.8 ZooKeeper sandbox): the
dry run listed every 'place new replica' line before the reassignments, the run after them."""

from __future__ import annotations

from kadmin.execute.changes import describe
from kadmin.execute.executor import apply_execution, plan_execution, read_cluster
from kadmin.model import TopicPartition
from kadmin.throttling.stores import MemoryRecordStore
from tests.execute.test_executor import FOO0, Clock, backend, execute, request

FOO1 = TopicPartition("foo", 1)

# foo-0 [1,2] -> [3,2]: broker 2's replica moves to /d/b, broker 3's new one is placed in /d/b;
# foo-1 [2,3] -> [4,3]: broker 4's new one is placed in /d/b.
PLAN = [
    {"topic": "foo", "partition": 0, "replicas": [3, 2], "log_dirs": ["/d/b", "/d/b"]},
    {"topic": "foo", "partition": 1, "replicas": [4, 3], "log_dirs": ["/d/b", "any"]},
]


class Lines:
    def __init__(self):
        self.lines: list[str] = []

    def change(self, change, error):
        self.lines.append(describe(change) + (f": {error}" if error else ""))

    def waiting(self, replicas, seconds_left):
        pass


def run(be, plan=PLAN, clock=None, planned_on=None, **kw):
    """Plan on ``planned_on`` (default ``be``), apply on ``be``."""
    store = MemoryRecordStore()
    req = request(plan, **kw)
    xplan = plan_execution(req, read_cluster(planned_on or be, req.parsed, store))
    lines, clock = Lines(), clock or Clock()
    result = apply_execution(be, xplan, req, write_rollback=lambda p, plan: None, records=store, reporter=lines,
                             clock=clock, sleep=clock.sleep)
    return xplan, result, lines.lines


def test_the_dry_run_lists_the_new_replicas_places_after_the_reassignments():
    be = backend()
    xplan, _, _ = execute(be, request(PLAN, throttle=1000, log_dir_throttle=1000))
    said = [describe(c) for c in xplan.changes()]
    moves = said.index("move replica foo-0 on broker 2 from /d/a to /d/b")
    assert said[moves:] == [
        "move replica foo-0 on broker 2 from /d/a to /d/b",
        "reassign foo-0: 1,2 -> 3,2 (adding 3; removing 1)",
        "reassign foo-1: 2,3 -> 4,3 (adding 4; removing 2)",
        "place new replica foo-0 on broker 3 in /d/b",
        "place new replica foo-1 on broker 4 in /d/b",
    ]


def test_the_run_reports_every_change_in_the_dry_runs_order():
    be = backend()
    be.auto_create = True
    xplan, result, lines = run(be, throttle=1000, log_dir_throttle=1000)
    assert result.failures == [] and result.aborted is None
    assert lines == [describe(c) for c in xplan.changes()]
    assert [c for c, _ in result.applied] == xplan.changes()  # the JSON document's order too


def test_a_new_replica_answered_at_once_is_still_reported_after_the_reassignment():
    """A broker that answers a new replica's placement in the first request (here it still
    lists a stray log of the partition) is reported in the plan's place all the same."""
    be = backend()
    be.placement[(FOO0, 3)] = "/d/a"  # broker 3 is not in foo-0's replica set [1, 2]
    be.auto_create = True
    xplan, result, lines = run(be)
    assert result.failures == []
    assert lines == [describe(c) for c in xplan.changes()]
    assert lines[-3:] == [
        "reassign foo-1: 2,3 -> 4,3 (adding 4; removing 2)",
        "place new replica foo-0 on broker 3 in /d/b",
        "place new replica foo-1 on broker 4 in /d/b",
    ]


def test_new_replicas_created_out_of_order_are_reported_in_the_plans_order():
    """foo-1's replica is created a round before foo-0's: its line waits for foo-0's."""
    be = backend()

    def create(n):
        if n == 1:
            be.placement[(FOO1, 4)] = "/d/b"
        if n == 2:
            be.placement[(FOO0, 3)] = "/d/b"

    xplan, result, lines = run(be, clock=Clock(on_sleep=create))
    assert result.failures == []
    assert lines == [describe(c) for c in xplan.changes()]


def test_a_refused_directory_of_a_new_replica_stops_before_the_reassignment_in_the_plans_order():
    be = backend()
    be.dirs[3] = ["/d/a"]  # /d/b vanished on broker 3 after validation
    xplan, result, lines = run(be, planned_on=backend())
    assert result.aborted == "AlterReplicaLogDirs failed; the reassignment was not started"
    assert be.mutating_calls() == ["alter_replica_log_dirs"]
    assert lines == [
        "write rollback file /tmp/rb.json (2 partitions)",
        "move replica foo-0 on broker 2 from /d/a to /d/b",
        "place new replica foo-0 on broker 3 in /d/b: LOG_DIR_NOT_FOUND",
    ]
    assert [c for c, _ in result.applied] == [c for c in xplan.changes() if c in dict(result.applied)]

