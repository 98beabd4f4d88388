"""Execute figures: validating a 100,000-partition plan, and executing a 10,000-partition plan
against the sandbox (every RPC real: describe, configs, reassignment, over loopback).

Validation covers what `reassign execute` does before its first change: parse the JSON, check
every entry against the cluster and the brokers' log directories, and compute the plan of
changes. The plan moves one replica of every partition and names a directory for it.

Run: python bench/bench_execute.py   (or `make bench`)
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.table import Figure, print_figures  # noqa: E402

VALIDATE_PARTITIONS = 100_000
EXECUTE_PARTITIONS = 10_000
BROKERS = 12


def _cluster(partitions: int):
    from kadmin.backends.base import BrokerLogDirs
    from kadmin.model import Broker, ClusterState, LogDir, PartitionState, ReplicaInfo, TopicPartition

    parts, by_broker = {}, {b: [] for b in range(BROKERS)}
    for i in range(partitions):
        topic, p = f"t{i % 100}", i // 100
        reps = tuple((i + k) % BROKERS for k in range(3))
        parts[TopicPartition(topic, p)] = PartitionState(topic, p, reps[0], reps, reps)
        for b in reps:
            by_broker[b].append(ReplicaInfo(topic, p, 1000, 0, False))
    log_dirs = {
        b: BrokerLogDirs(b, (LogDir(b, "/d/a", replicas=tuple(reps)), LogDir(b, "/d/b")))
        for b, reps in by_broker.items()
    }
    cluster = ClusterState("bench", 0, {b: Broker(b, "127.0.0.1", 9000 + b) for b in range(BROKERS)}, parts)
    return cluster, log_dirs


def _plan_text(partitions: int, dirs=("/d/b", "any", "any")) -> str:
    entries = []
    for i in range(partitions):
        topic, p = f"t{i % 100}", i // 100
        reps = [(i + 3) % BROKERS, (i + 1) % BROKERS, (i + 2) % BROKERS]
        entry = {"topic": topic, "partition": p, "replicas": reps}
        if dirs:
            entry["log_dirs"] = list(dirs)
        entries.append(entry)
    return json.dumps({"version": 1, "partitions": entries})


def validation_figures() -> list[Figure]:
    from kadmin.execute.executor import ClusterView, ExecuteRequest, plan_execution
    from kadmin.plan.reassignment_file import parse_reassignment
    from kadmin.plan.validate import check_reassignment

    cluster, log_dirs = _cluster(VALIDATE_PARTITIONS)
    text = _plan_text(VALIDATE_PARTITIONS)
    validate_wall, validate_cpu, plan_cpu = [], [], []
    for _ in range(3):
        w0, c0 = time.perf_counter(), time.process_time()
        parsed = parse_reassignment(text)
        check_reassignment(parsed, cluster, log_dirs)
        w1, c1 = time.perf_counter(), time.process_time()
        request = ExecuteRequest(parsed, "bench", "/tmp/unused.json", throttle=50_000_000)
        xplan = plan_execution(request, ClusterView(cluster, log_dirs, {}, {}, {}))
        c2 = time.process_time()
        validate_wall.append(w1 - w0)
        validate_cpu.append(c1 - c0)
        plan_cpu.append(c2 - c1)
    assert len(xplan.reassignments) == VALIDATE_PARTITIONS
    # CPU time is the code's cost; wall time also counts whatever else the machine is doing.
    v, w, p = statistics.median(validate_cpu), statistics.median(validate_wall), statistics.median(plan_cpu)
    return [
        Figure("execute", f"parse + validate a {VALIDATE_PARTITIONS:,}-partition plan (CPU)", v, "s", "< 1.5 s", v < 1.5),
        Figure("execute", "the same, wall clock", w, "s"),
        Figure("execute", "validate + plan of changes for it (rollback, throttle lists, moves; CPU)", p, "s"),
    ]


def sandbox_figures() -> list[Figure]:
    """`kadmin reassign execute` in-process against a sandbox holding EXECUTE_PARTITIONS partitions
    (manual clock: nothing completes while it runs). No --throttle: the sandbox does not serve
    Produce/Fetch, which kadmin's throttle record topic needs."""
    from click.testing import CliRunner

    from kadmin.commands.root import cli
    from kadmin.sandbox import Sandbox

    with Sandbox(brokers=BROKERS, log_dirs=2, manual_clock=True) as sb:
        per_topic = EXECUTE_PARTITIONS // 100
        for t in range(100):
            sb.create_topic(f"t{t}", assignment={p: [(t * per_topic + p + k) % BROKERS for k in range(3)] for p in range(per_topic)},
                            size_bytes=1000)
        entries = []
        for t in range(100):
            for p in range(per_topic):
                i = t * per_topic + p
                entries.append({"topic": f"t{t}", "partition": p,
                                "replicas": [(i + 3) % BROKERS, (i + 1) % BROKERS, (i + 2) % BROKERS]})
        with tempfile.TemporaryDirectory() as d:
            plan = Path(d) / "plan.json"
            plan.write_text(json.dumps({"version": 1, "partitions": entries}))
            t0 = time.perf_counter()
            result = CliRunner().invoke(cli, ["reassign", "execute", "--reassignment-json-file", str(plan),
                                              "--bootstrap-server", sb.bootstrap, "--output", "json"])
            elapsed = time.perf_counter() - t0
        if result.exit_code != 0:
            raise RuntimeError(f"execute failed (exit {result.exit_code}): {result.output[-500:]}")
        moving = sum(1 for p in sb.snapshot().partitions.values() if p.reassigning)
    return [
        Figure("execute", f"execute a {EXECUTE_PARTITIONS:,}-partition plan against the sandbox", elapsed, "s", "< 10 s", elapsed < 10),
        Figure("execute", "partitions reassigning afterwards", moving, "partitions"),
    ]


def figures() -> list[Figure]:
    return validation_figures() + sandbox_figures()


if __name__ == "__main__":
    print_figures("execute", figures())
