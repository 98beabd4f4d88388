"""The promise of the rollback file: for any valid plan, executing the rollback after the plan
completes puts every replica back on its broker and in its directory."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kadmin.execute.executor import ExecuteRequest, apply_execution, plan_execution, read_cluster
from kadmin.plan.reassignment_file import format_reassignment, parse_reassignment
from tests.execute.fakes import FakeBackend, cluster_state

BROKERS = (1, 2, 3, 4, 5)
DIRS = ("/d/a", "/d/b")


@st.composite
def cluster_and_plan(draw):
    n = draw(st.integers(1, 4))
    assignment = {p: draw(st.permutations(BROKERS))[: draw(st.integers(1, 3))] for p in range(n)}
    placement = {}
    for p, reps in assignment.items():
        for b in reps:
            placement[(p, b)] = draw(st.sampled_from(DIRS))
    entries = []
    for p in draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True)):
        rf = len(assignment[p])
        replicas = draw(st.permutations(BROKERS))[:rf]
        entry = {"topic": "t", "partition": p, "replicas": list(replicas)}
        if draw(st.booleans()):
            entry["log_dirs"] = [draw(st.sampled_from(DIRS + ("any",))) for _ in replicas]
        entries.append(entry)
    return assignment, placement, {"version": 1, "partitions": entries}


def run(be, text, path):
    parsed = parse_reassignment(text)
    req = ExecuteRequest(parsed, "p", path)
    xplan = plan_execution(req, read_cluster(be, parsed, None, throttles=False))
    written = {}
    result = apply_execution(be, xplan, req, write_rollback=lambda p, plan: written.update({p: plan}),
                             records=None, sleep=lambda s: None)
    assert result.failures == []
    be.complete()
    return written[path]


@settings(max_examples=150, deadline=None)
@given(cluster_and_plan())
def test_executing_the_rollback_restores_replicas_and_directories(data):
    from kadmin.model import TopicPartition

    assignment, placement, plan = data
    be = FakeBackend(cluster_state({"t": assignment}, brokers=BROKERS), {b: list(DIRS) for b in BROKERS},
                     {(TopicPartition("t", p), b): d for (p, b), d in placement.items()})
    be.auto_create = True
    before = {tp: s.replicas for tp, s in be.cluster.partitions.items()}
    dirs_before = dict(be.placement)
    rollback = run(be, json.dumps(plan), "/rb1")
    run(be, format_reassignment(rollback), "/rb2")
    assert {tp: s.replicas for tp, s in be.cluster.partitions.items()} == before
    assert be.placement == dirs_before
