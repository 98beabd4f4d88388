"""A synthetic fleet of ``log-dirs describe --output json`` results, streamed to disk.

Deterministic (seeded per cluster) and fast: each file is written piece by piece, never held
in memory, so the bench can write 20 million replica rows. Every shape the reports care about
appears: offline and cordoned directories, future replicas (moves in flight), a broker that
did not answer, unknown capacity.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

TIB = 1 << 40


def write_cluster(path: Path, cluster: int, brokers: int, dirs: int, replicas: int, seed: int = 7) -> int:
    """Write one cluster's result; returns the number of replica rows written."""
    rnd = random.Random(seed * 1_000_003 + cluster)
    rows = 0
    topics = [f"topic-{cluster}-{i}" for i in range(max(1, replicas // 10))]
    with open(path, "w", encoding="utf-8", buffering=1 << 20) as out:
        out.write('{"version":1,"cluster_id":"c%d","brokers":[' % cluster)
        for b in range(brokers):
            if b:
                out.write(",")
            if b == brokers - 1 and cluster % 5 == 4:  # a broker that did not answer
                out.write('{"broker":%d,"host":"h%d","port":9092,"rack":null,"error":"broker %d unreachable: timed out","log_dirs":[]}' % (b, b, b))
                continue
            out.write('{"broker":%d,"host":"h%d","port":9092,"rack":"r%d","error":null,"log_dirs":[' % (b, b, b % 3))
            for d in range(dirs):
                if d:
                    out.write(",")
                path_d = f"/data/{d}"
                if b == 1 and d == dirs - 1 and cluster % 3 == 0:  # an offline directory
                    out.write('{"path":"%s","status":"offline","error":"KafkaStorageException","used_bytes":0,'
                              '"total_bytes":null,"usable_bytes":null,"used_fraction":null,"replica_count":0,'
                              '"future_replica_count":0,"replicas":[]}' % path_d)
                    continue
                status = "cordoned" if (b == 2 and d == 0 and cluster % 4 == 1) else "online"
                parts, used, futures = [], 0, 0
                for i in range(replicas):
                    future = i % 97 == 0 and d > 0
                    # a future replica copies the current one at the same index of directory 0
                    pid = (b * dirs + (0 if future else d)) * replicas + i
                    topic = topics[pid % len(topics)]
                    size = rnd.randrange(1, 50_000_000)
                    lag = rnd.randrange(0, 1000) if future else 0
                    used += size
                    futures += future
                    parts.append('{"topic":"%s","partition":%d,"size":%d,"offset_lag":%d,"is_future":%s}'
                                 % (topic, pid, size, lag, "true" if future else "false"))
                rows += replicas
                total = 4 * TIB
                usable = max(0, total - used - rnd.randrange(0, TIB))
                known = not (cluster % 7 == 6 and b == 0)  # capacity unknown (old broker)
                frac = (total - usable) / total if known and status != "offline" else None
                out.write('{"path":"%s","status":"%s","error":null,"used_bytes":%d,"total_bytes":%s,'
                          '"usable_bytes":%s,"used_fraction":%s,"replica_count":%d,"future_replica_count":%d,"replicas":['
                          % (path_d, status, used, total if known else "null", usable if known else "null",
                             json.dumps(frac), replicas - futures, futures))
                out.write(",".join(parts))
                out.write("]}")
            out.write("]}")
        out.write("]}\n")
    return rows


def write_fleet(directory: Path, clusters: int, brokers: int, dirs: int, replicas: int, seed: int = 7) -> int:
    """``clusters`` files ``cluster-NNN.json`` in ``directory``; returns total replica rows."""
    directory.mkdir(parents=True, exist_ok=True)
    return sum(
        write_cluster(directory / f"cluster-{c:03d}.json", c, brokers, dirs, replicas, seed) for c in range(clusters)
    )
