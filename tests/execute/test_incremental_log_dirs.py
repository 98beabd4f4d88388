"""The log-dir part of an incremental run (kadmin/execute/incremental_log_dirs.py): what counts as
placed, and which answers stop the run. The run itself: tests/execute/test_incremental_cli.py."""

from __future__ import annotations

import pytest

from kadmin.errors import ClusterError
from kadmin.execute.incremental_log_dirs import not_in_place, send_targets
from kadmin.model import ReplicaLogDir, TopicPartitionReplica

A, B, C = (TopicPartitionReplica("t", p, 1) for p in range(3))


class Brokers:
    def __init__(self, answers=None, where=None):
        self.answers, self.where, self.sent = answers or {}, where or {}, []

    def alter_replica_log_dirs(self, moves):
        self.sent.append(moves)
        return {r: self.answers.get(r) for r in moves}

    def describe_replica_log_dirs(self, replicas):
        return {r: self.where[r] for r in replicas if r in self.where}


def test_replicas_still_to_come_are_returned_and_refusals_stop_the_run():
    brokers = Brokers({B: "REPLICA_NOT_AVAILABLE"})
    assert send_targets(brokers, {A: "/d1", B: "/d1"}) == {B}
    refusing = Brokers({A: "KAFKA_STORAGE_ERROR", B: "REPLICA_NOT_AVAILABLE"})
    with pytest.raises(ClusterError, match="refused 1 replica.*t-0 on broker 1: KAFKA_STORAGE_ERROR"):
        send_targets(refusing, {A: "/d1", B: "/d1"})


def test_in_place_means_in_the_directory_with_nothing_copying():
    where = {
        A: ReplicaLogDir(A, "/d1"),  # in place
        B: ReplicaLogDir(B, "/d0", future_dir="/d1"),  # on its way
        C: ReplicaLogDir(C, "/d0"),  # elsewhere
    }
    missing = TopicPartitionReplica("t", 3, 1)  # not on its broker yet
    left = not_in_place(Brokers(where=where), {A: "/d1", B: "/d1", C: "/d1", missing: "/d1"})
    assert left == {B: where[B], C: where[C], missing: None}
    assert not_in_place(Brokers(), {}) == {}
