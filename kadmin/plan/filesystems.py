"""What DescribeLogDirs tells about the disks under a broker's log directories, for both
balance planners (``log-dirs balance`` and ``reassign balance``): whether a directory reports
its capacity (KIP-827 total and usable bytes, DescribeLogDirs v4+, Kafka 3.3+), and whether a
broker's directories share one filesystem (common on test and cloud hosts)."""

from __future__ import annotations

from collections.abc import Sequence

from kadmin.model import LogDir


def reports_capacity(d: LogDir) -> bool:
    """Whether DescribeLogDirs gave the directory's total and usable bytes (v4+, Kafka 3.3+)."""
    return d.total_bytes is not None and d.usable_bytes is not None and d.total_bytes > 0


def share_one_filesystem(readable: Sequence[LogDir]) -> bool:
    """Whether one filesystem is under every one of a broker's readable directories: each
    reports its total and usable bytes, to the byte, while the Kafka bytes in them differ
    (separate disks equal to the byte would also hold equal Kafka bytes, or differ in other
    bytes by exactly as much: unlikely). Their used shares then cannot differ."""
    return (
        len(readable) > 1
        and all(reports_capacity(d) for d in readable)
        and len({(d.total_bytes, d.usable_bytes) for d in readable}) == 1
        and len({d.used_bytes for d in readable}) > 1
    )


def shared_filesystem_note(brokers: Sequence[int], example: LogDir) -> str:
    """The note both planners give for the brokers whose directories share one filesystem;
    ``example`` is one of their directories."""
    from kadmin.units import plural

    return (
        f"{plural('broker', len(brokers))} {', '.join(map(str, brokers))}: the log directories share one filesystem (each reports "
        f"the same total and usable bytes, e.g. {example.total_bytes:,} and {example.usable_bytes:,}), so their "
        "used share cannot differ; Kafka bytes were balanced instead"
    )


def no_capacity_note(brokers: Sequence[int]) -> str:
    """The note both planners give for the brokers whose directories report no capacity."""
    from kadmin.units import plural

    one = len(brokers) == 1
    return (
        f"{plural('broker', len(brokers))} {', '.join(map(str, brokers))} {'reports' if one else 'report'} no disk "
        f"capacity (DescribeLogDirs before v4, Kafka before 3.3), so {'its' if one else 'their'} directories were "
        "taken as equal in size and Kafka bytes balanced"
    )
