"""Sandbox benchmark: 50 brokers x 4 log dirs x 20,000 partitions (replication factor 2).

Targets (issue 2): starts within 10 s; DescribeLogDirs answered by all 50 brokers within 2 s.
Run: python bench/bench_sandbox.py [--brokers N --dirs M --partitions P]
Prints a small table of figures.
"""

from __future__ import annotations

import argparse
import time


def describe_log_dirs_wire(sb) -> dict[int, int]:
    """One DescribeLogDirs (all topics) per broker, all in flight at once, as a backend that
    fans out would send them; broker -> response bytes."""
    import socket
    import struct

    from kafka.protocol.admin.cluster import DescribeLogDirsRequest

    req = DescribeLogDirsRequest(version=4, topics=None)
    req.with_header(correlation_id=1, client_id="bench")
    frame = bytes(req.encode(header=True))
    socks = {}
    for broker, port in sb.ports.items():
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        socks[broker] = s
    for s in socks.values():
        s.sendall(struct.pack(">i", len(frame)) + frame)
    sizes = {}
    for broker, s in socks.items():
        (n,) = struct.unpack(">i", s.recv(4, socket.MSG_WAITALL))
        sizes[broker] = len(s.recv(n, socket.MSG_WAITALL))
        s.close()
    return sizes


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--brokers", type=int, default=50)
    ap.add_argument("--dirs", type=int, default=4)
    ap.add_argument("--partitions", type=int, default=20_000)
    ap.add_argument("--topics", type=int, default=20)
    args = ap.parse_args()

    from kafka import KafkaAdminClient

    from kadmin.sandbox import Sandbox

    rows = []
    t0 = time.perf_counter()
    sb = Sandbox(brokers=args.brokers, log_dirs=args.dirs, racks=5, speed=1.0)
    sb.start()
    t_listen = time.perf_counter() - t0
    per_topic = args.partitions // args.topics
    for i in range(args.topics):
        sb.create_topic(f"bench-{i:02d}", partitions=per_topic, replication_factor=2, size_bytes=(i + 1) * 2**20)
    t_start = time.perf_counter() - t0
    rows.append(("brokers listening", f"{t_listen:.2f} s", ""))
    rows.append((f"start incl. {per_topic * args.topics} partitions", f"{t_start:.2f} s", "target < 10 s"))
    try:
        admin = KafkaAdminClient(bootstrap_servers=sb.bootstrap, request_timeout_ms=30000)
        admin.describe_log_dirs(brokers=[0])  # connect and negotiate versions once
        t1 = time.perf_counter()
        result = admin.describe_log_dirs()
        t_dld = time.perf_counter() - t1
        replicas = sum(len(t["partitions"]) for b in result for d in b["log_dirs"] for t in d["topics"])
        rows.append((f"DescribeLogDirs, all {len(result)} brokers (kafka-python, incl. its Metadata)",
                     f"{t_dld:.2f} s", "target < 2 s"))
        rows.append(("replicas reported", str(replicas), f"expected {per_topic * args.topics * 2}"))
        t2 = time.perf_counter()
        answers = describe_log_dirs_wire(sb)
        rows.append((f"DescribeLogDirs v4, all {len(answers)} brokers in parallel (wire)",
                     f"{time.perf_counter() - t2:.2f} s", f"{sum(answers.values()) // 1024} KiB of responses"))
        admin.close()
        t3 = time.perf_counter()
        snap = sb.snapshot()
        rows.append(("snapshot()", f"{(time.perf_counter() - t3) * 1000:.0f} ms", f"{len(snap.partitions)} partitions"))
        from confluent_kafka.admin import AdminClient

        c = AdminClient({"bootstrap.servers": sb.bootstrap})
        t4 = time.perf_counter()
        md = c.list_topics(timeout=30)
        rows.append(("Metadata, all topics (confluent-kafka)", f"{time.perf_counter() - t4:.2f} s",
                     f"{sum(len(t.partitions) for t in md.topics.values())} partitions"))
    finally:
        sb.stop()
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'value':>9}  note")
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>9}  {note}")


if __name__ == "__main__":
    main()
