"""Each sandbox is its own cluster: its cluster id and log directories' ids are its own, as
`kafka-storage format` draws them. Every sandbox had the same cluster id (and directory ids),
drawn from a generator seeded with 0, so a fleet of sandboxes looked like one cluster."""

from __future__ import annotations

import pytest

from kadmin.sandbox import Sandbox


def _ids(sb: Sandbox) -> tuple[str, set[str]]:
    snap = sb.snapshot()
    return snap.cluster_id, {d.dir_id for b in snap.brokers.values() for d in b.dirs.values()}


def test_two_sandboxes_have_distinct_cluster_and_directory_ids():
    with Sandbox(brokers=2, log_dirs=2, manual_clock=True) as a, Sandbox(brokers=2, log_dirs=2, manual_clock=True) as b:
        a_cluster, a_dirs = _ids(a)
        b_cluster, b_dirs = _ids(b)
    assert a_cluster != b_cluster
    assert len(a_dirs) == len(b_dirs) == 4  # distinct within a cluster too
    assert not a_dirs & b_dirs
    assert len(a_cluster) == 22 and not a_cluster.startswith("-")  # Kafka's base64 form, never read as a flag


def test_replica_placement_stays_reproducible_for_a_seed():
    def placement():
        with Sandbox(brokers=4, log_dirs=1, manual_clock=True, seed=3) as sb:
            sb.create_topic("t", partitions=6, replication_factor=2)
            snap = sb.snapshot()
            return [snap.partition("t", p).replicas for p in range(6)]

    assert placement() == placement()


@pytest.mark.zookeeper
def test_a_zookeeper_sandbox_keeps_the_cluster_id_its_chroot_holds(zk_connect):
    with Sandbox(brokers=1, zookeeper=zk_connect, kafka_version="3.3", manual_clock=True) as first:
        kept = first.status()["cluster_id"]
    with Sandbox(brokers=1, zookeeper=zk_connect, kafka_version="3.3", manual_clock=True) as again:
        assert again.status()["cluster_id"] == kept
    with Sandbox(brokers=1, zookeeper=zk_connect + "-other", kafka_version="3.3", manual_clock=True) as other:
        assert other.status()["cluster_id"] != kept
