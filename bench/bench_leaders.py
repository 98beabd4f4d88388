"""Leadership figures: `kadmin leaders elect --preferred --all-topic-partitions` on a 50-broker
sandbox with 20,000 partitions (RF 3), half of them led by another replica than the preferred
one (every even broker was restarted, so its leaderships moved away), under a batch limit of
--max-per-broker 50 new leaders per broker per batch. Wall time of the whole command, in this
process, over loopback (describe, every ElectLeaders batch, the answers); the limit is checked on
the batches the command computes, the outcome on the cluster afterwards.

Run: python bench/bench_leaders.py   (or `make bench`)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.table import Figure, print_figures  # noqa: E402

BROKERS = 50
PARTITIONS = 20_000
TOPICS = 20
MAX_PER_BROKER = 50


def _unbalanced_sandbox():
    from kadmin.sandbox import Sandbox

    sb = Sandbox(brokers=BROKERS, log_dirs=1, manual_clock=True)
    sb.start()
    per_topic = PARTITIONS // TOPICS
    for t in range(TOPICS):
        sb.create_topic(f"lead-{t:02d}", assignment={
            p: [(t * per_topic + p + k) % BROKERS for k in range(3)] for p in range(per_topic)})
    for b in range(0, BROKERS, 2):
        sb.faults.broker_stop(b)
    for b in range(0, BROKERS, 2):
        sb.faults.broker_start(b)
    sb.clock.advance(1)  # the restarted brokers catch up and rejoin the ISRs
    return sb


def figures() -> list[Figure]:
    from click.testing import CliRunner

    from kadmin.backends.admin import AdminBackend
    from kadmin.backends.base import ElectionType
    from kadmin.commands.root import cli
    from kadmin.config import ConnectionSettings
    from kadmin.execute.elect import prepare
    from kadmin.leaders import summarize

    sb = _unbalanced_sandbox()
    try:
        with AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=60)) as be:
            plan = prepare(be, ElectionType.PREFERRED, None, max_per_broker=MAX_PER_BROKER)
        to_elect = len(plan.changes)
        worst = max(max((sum(1 for c in b if c.changes and c.new_leader == x) for x in range(BROKERS)), default=0)
                    for b in plan.batches)
        sb.clear_requests()
        t0 = time.perf_counter()
        r = CliRunner().invoke(cli, ["leaders", "elect", "--preferred", "--all-topic-partitions",
                                     "--max-per-broker", str(MAX_PER_BROKER), "--bootstrap-server", sb.bootstrap,
                                     "--timeout", "60s"])
        wall = time.perf_counter() - t0
        assert r.exit_code == 0, r.output
        sent = sum(1 for x in sb.requests if x[1] == "ElectLeaders")
        with AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=60)) as be:
            after = summarize(be.describe_cluster())
        assert after.balanced, f"{len(after.not_preferred)} partitions still not led by their preferred replica"
    finally:
        sb.stop()
    what = f"{BROKERS} brokers, {PARTITIONS:,} partitions ({to_elect:,} to elect), --max-per-broker {MAX_PER_BROKER}"
    return [
        Figure("leaders elect", f"--preferred --all-topic-partitions: {what}, wall", wall, "s", "< 10 s", wall < 10),
        Figure("leaders elect", f"batches sent ({sent} ElectLeaders requests)", len(plan.batches), "batches"),
        Figure("leaders elect", "most new leaders for one broker in one batch", worst, "leaders",
               f"<= {MAX_PER_BROKER}", worst <= MAX_PER_BROKER),
    ]


if __name__ == "__main__":
    print_figures("leaders", figures())
