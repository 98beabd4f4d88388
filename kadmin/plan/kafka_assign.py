"""Kafka's own replica placement (``AdminUtils.assignReplicasToBrokers``), for parity.

``kafka-reassign-partitions.sh --generate`` rebuilds every topic with this round-robin: the first
replica of each partition goes round-robin over the broker list from a start index, the others
follow at an increasing shift. With racks, the broker list is first alternated by rack
(``getRackAlternatedBrokerList``) and followers skip racks (and brokers) that already hold a
replica until every rack (broker) has one.

Kafka draws the start index and the first shift at random on every call. Here both are
parameters, so callers choose them from a seeded generator and output is reproducible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kadmin.errors import InputError


def rack_alternated_brokers(racks: Mapping[int, str]) -> list[int]:
    """Brokers ordered rack by rack: racks sorted by name, brokers of a rack sorted by id.

    {0: "r1", 1: "r3", 2: "r3", 3: "r2", 4: "r2", 5: "r1"} -> [0, 3, 1, 5, 4, 2].
    """
    by_rack: dict[str, list[int]] = {}
    for broker, rack in racks.items():
        by_rack.setdefault(rack, []).append(broker)
    columns = [sorted(by_rack[r]) for r in sorted(by_rack)]
    result: list[int] = []
    depth = 0
    while len(result) < len(racks):
        for column in columns:
            if depth < len(column):
                result.append(column[depth])
        depth += 1
    return result


def _replica_index(first: int, shift: int, j: int, n: int) -> int:
    return (first + 1 + (shift + j) % (n - 1)) % n


def assign_replicas_to_brokers(
    brokers: Mapping[int, str | None],
    n_partitions: int,
    replication_factor: int,
    start_index: int,
    replica_shift: int,
    start_partition: int = 0,
) -> dict[int, list[int]]:
    """Partition id -> replicas, exactly as Kafka places them for the given start index and shift.

    ``brokers`` maps broker id to rack (None when unknown). Rack aware when every broker has a
    rack; a mix of racked and rackless brokers is refused, as Kafka does. Without racks the
    broker list is taken in ascending id order (Kafka uses DescribeCluster's node order).
    """
    if n_partitions <= 0:
        raise InputError("Number of partitions must be larger than 0.")
    if replication_factor <= 0:
        raise InputError("Replication factor must be larger than 0.")
    if replication_factor > len(brokers):
        raise InputError(f"Replication factor: {replication_factor} larger than available brokers: {len(brokers)}.")
    racked = {b: r for b, r in brokers.items() if r is not None}
    if not racked:
        return _rack_unaware(
            sorted(brokers), n_partitions, replication_factor, start_index, replica_shift, start_partition
        )
    if len(racked) != len(brokers):
        missing = sorted(b for b, r in brokers.items() if r is None)
        raise InputError(
            f"Not all brokers have rack information (no rack: {', '.join(map(str, missing))}).",
            hint="use --disable-rack-aware to place replicas without rack information",
        )
    return _rack_aware(racked, n_partitions, replication_factor, start_index, replica_shift, start_partition)


def _rack_unaware(
    brokers: Sequence[int], n_partitions: int, rf: int, start_index: int, shift: int, start_partition: int
) -> dict[int, list[int]]:
    n = len(brokers)
    result: dict[int, list[int]] = {}
    partition = max(0, start_partition)
    for _ in range(n_partitions):
        if partition > 0 and partition % n == 0:
            shift += 1
        first = (partition + start_index) % n
        result[partition] = [brokers[first]] + [brokers[_replica_index(first, shift, j, n)] for j in range(rf - 1)]
        partition += 1
    return result


def _rack_aware(
    racks: Mapping[int, str], n_partitions: int, rf: int, start_index: int, shift: int, start_partition: int
) -> dict[int, list[int]]:
    arranged = rack_alternated_brokers(racks)
    n = len(arranged)
    n_racks = len(set(racks.values()))
    result: dict[int, list[int]] = {}
    partition = max(0, start_partition)
    for _ in range(n_partitions):
        if partition > 0 and partition % n == 0:
            shift += 1
        first = (partition + start_index) % n
        leader = arranged[first]
        replicas = [leader]
        racks_used = {racks[leader]}
        k = 0
        for _ in range(rf - 1):
            while True:
                broker = arranged[_replica_index(first, shift * n_racks, k, n)]
                k += 1
                rack = racks[broker]
                rack_ok = rack not in racks_used or len(racks_used) == n_racks
                broker_ok = broker not in replicas or len(replicas) == n
                if rack_ok and broker_ok:
                    replicas.append(broker)
                    racks_used.add(rack)
                    break
        result[partition] = replicas
        partition += 1
    return result
