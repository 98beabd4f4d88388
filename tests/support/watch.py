"""A clock for the executors that drives a manual-clock sandbox and watches what it shows.

``sleep`` advances the sandbox in small ticks and takes a snapshot after each, so a test (or the
incremental benchmark) sees the concurrency the cluster itself shows at every moment: partitions
reassigning, replicas being added, moves into or out of each broker, extra replicas per
partition (|RS| - |target|) and leader movements. ``peak`` holds the highest of each.
"""

from __future__ import annotations

from collections import Counter


class Watch:
    def __init__(self, sb, tick: float = 0.25):
        self.sb = sb
        self.tick = tick
        self.peak: Counter = Counter()
        self.samples = 0

    def now(self) -> float:
        return self.sb.clock.now

    def sleep(self, seconds: float) -> None:
        left = seconds
        while left > 1e-9:
            dt = min(self.tick, left)
            self.sb.clock.advance(dt)
            left -= dt
            self.observe()

    def observe(self) -> None:
        snap = self.sb.snapshot()
        moving = [p for p in snap.partitions.values() if p.reassigning]
        per_broker = Counter(b for p in moving for b in (*p.adding, *p.removing))
        leaders = 0
        for p in moving:
            target = [b for b in p.replicas if b not in p.removing]
            leaders += p.leader in p.removing or target[0] != p.leader
        self.samples += 1
        for name, value in (
            ("partitions", len(moving)),
            ("replicas", sum(len(p.adding) for p in moving)),
            ("per_broker", max(per_broker.values(), default=0)),
            ("adding_per_partition", max((len(p.adding) for p in moving), default=0)),
            ("extra_per_partition", max((len(p.removing) for p in moving), default=0)),
            ("leader_movements", leaders),
        ):
            self.peak[name] = max(self.peak[name], value)
