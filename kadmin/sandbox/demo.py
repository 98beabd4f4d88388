"""Demo topics: varied sizes and uneven disk usage, so every kadmin command has something to show."""

from __future__ import annotations

GiB = 2**30
MiB = 2**20
MAX_START_USAGE = 0.85  # of a directory: room for the demo's traffic until retention levels it off


def populate(sb) -> list[str]:
    """Create the demo topics; return the names of those already there, which are kept as they
    are (a ZooKeeper-mode sandbox restarted in a chroot a stopped one used: a Kafka cluster
    restarted on its ZooKeeper comes back with its topics)."""
    existing = set(sb.snapshot().topics)
    kept = []

    def create_topic(name, **kwargs):
        if name in existing:
            kept.append(name)
        else:
            sb.create_topic(name, **kwargs)

    n = sb.broker_count
    rf = min(3, n)
    paths = sb.log_dir_paths(0)
    first = paths[0]
    # Large, slow-growing topic piled onto each broker's first directory: uneven disks. The
    # growing topics keep at most retention.bytes per partition, as operators size them, so the
    # disks fill up to a point and stay there rather than fail within hours of simulated traffic.
    orders = {p: [(p + i) % n for i in range(rf)] for p in range(12)}
    create_topic(
        "orders",
        assignment=orders,
        size_bytes=3 * GiB,
        produce_rate=256 * 1024,
        log_dirs={(p, b): first for p, rs in orders.items() for b in rs},
        configs={"retention.bytes": str(3 * GiB + 256 * MiB)},
    )
    create_topic(
        "payments",
        partitions=6,
        replication_factor=rf,
        size_bytes=800 * MiB,
        produce_rate=64 * 1024,
        configs={"retention.bytes": str(GiB)},
    )
    create_topic(
        "clicks",
        partitions=24,
        replication_factor=min(2, n),
        size_bytes=150 * MiB,
        produce_rate=512 * 1024,
        configs={"retention.bytes": str(256 * MiB)},
    )
    create_topic("audit-log", partitions=3, replication_factor=rf, size_bytes=12 * GiB, configs={"retention.ms": "-1"})
    create_topic("empty", partitions=4, replication_factor=min(2, n))
    _check_room(sb)
    return sorted(kept)


def _check_room(sb) -> None:
    """Refuse a demo that leaves its directories no room: Kafka would take an overfull directory
    offline at once (the sandbox does), and the demo's traffic needs a few more percent."""
    from kadmin.errors import UsageError

    snap = sb.snapshot()
    fills = []
    for b, broker in snap.brokers.items():
        dirs = list(broker.dirs.values())
        if sb.shared_fs:  # one filesystem: the directories fill it together
            fills.append((sum(d.used for d in dirs) / max(d.capacity for d in dirs), b, "its filesystem"))
        else:
            fills += [(d.used / d.capacity, b, path) for path, d in broker.dirs.items()]
    fill, b, where = max(fills, key=lambda f: f[0])  # the first of the fullest
    if fill > MAX_START_USAGE:
        raise UsageError(
            f"the demo topics would fill broker {b}'s {where} to {fill:.0%} of --dir-capacity "
            f"(at most {MAX_START_USAGE:.0%}, to leave room for their traffic)",
            hint="give a larger --dir-capacity (default: 100 GiB), more brokers or log directories, or --no-demo",
        )
