"""Preferred election over ZooKeeper without a controller to act on it: the node Kafka's format
expects, outcomes judged from the partition states, and a bounded wait when nobody deletes it."""

from __future__ import annotations

import json

import pytest

from kadmin.backends import zk_paths as zp
from kadmin.backends.base import ElectionType
from kadmin.backends.zk_elect import PREFERRED_REPLICA_ELECTION, decode_election, elect_leaders, encode_election
from kadmin.errors import ClusterError, UnsupportedOperation
from kadmin.model import TopicPartition


class FakeZk:
    """Just what zk_elect uses of ZooKeeperBackend. ``controller``: called when the node is
    created, may change states and delete it."""

    timeout = 0.3

    def __init__(self, states, controller=None):
        self.states = states  # tp -> (replicas, leader, isr)
        self.nodes = {}
        self.controller = controller

    def topic_assignments(self, topics):
        out = {}
        for tp, (replicas, _, _) in self.states.items():
            if tp.topic in topics:
                out.setdefault(tp.topic, zp.TopicAssignment(tp.topic, {}, {}, {}))
                out[tp.topic].partitions[tp.partition] = replicas
        return out

    def _get_many(self, paths):
        by_path = {zp.partition_state_path(tp.topic, tp.partition): s for tp, s in self.states.items()}
        return {p: (json.dumps({"version": 1, "leader": by_path[p][1], "leader_epoch": 0, "controller_epoch": 1,
                                "isr": list(by_path[p][2])}).encode(), None) for p in paths}

    def _decode(self, fn, *args):
        return fn(*args)

    def _op(self, name, path, data, **kw):
        assert name == "create"
        from kazoo.exceptions import NodeExistsError

        if path in self.nodes:
            raise NodeExistsError()
        self.nodes[path] = data
        if self.controller:
            self.controller(self)

    def _get(self, path):
        return self.nodes.get(path)


T0, T1, T2 = TopicPartition("t", 0), TopicPartition("t", 1), TopicPartition("t", 2)


def test_node_in_kafkas_format_and_outcomes():
    def controller(zk):
        asked = decode_election(zk.nodes[PREFERRED_REPLICA_ELECTION])
        assert asked == [T0, T2]  # t-1 already has its preferred leader: not asked for
        zk.states[T0] = ((0, 1), 0, (0, 1))  # elected; t-2's preferred is not in the ISR: unchanged
        del zk.nodes[PREFERRED_REPLICA_ELECTION]

    zk = FakeZk({T0: ((0, 1), 1, (0, 1)), T1: ((1, 0), 1, (1, 0)), T2: ((2, 1), 1, (1,))}, controller)
    got = elect_leaders(zk, ElectionType.PREFERRED, [T0, T1, T2, TopicPartition("x", 0)], sleep=lambda s: None)
    assert got[T0] is None
    assert got[T1].startswith("ELECTION_NOT_NEEDED")
    assert got[T2].startswith("PREFERRED_LEADER_NOT_AVAILABLE")
    assert got[TopicPartition("x", 0)].startswith("UNKNOWN_TOPIC_OR_PARTITION")
    assert encode_election([T1, T0]) == b'{"version":1,"partitions":[{"topic":"t","partition":0},{"topic":"t","partition":1}]}'


def test_no_controller_acting_is_an_error_within_the_timeout():
    zk = FakeZk({T0: ((0, 1), 1, (0, 1))})
    clock = iter(range(100))
    with pytest.raises(ClusterError, match="did not carry out"):
        elect_leaders(zk, ElectionType.PREFERRED, [T0], sleep=lambda s: None, monotonic=lambda: next(clock) * 0.1)


def test_a_pending_node_is_not_overwritten():
    zk = FakeZk({T0: ((0, 1), 1, (0, 1))})
    zk.nodes[PREFERRED_REPLICA_ELECTION] = b"{}"
    with pytest.raises(ClusterError, match="already in progress"):
        elect_leaders(zk, ElectionType.PREFERRED, [T0], sleep=lambda s: None)
    assert zk.nodes[PREFERRED_REPLICA_ELECTION] == b"{}"


def test_unclean_is_refused_naming_bootstrap_server():
    with pytest.raises(UnsupportedOperation) as e:
        elect_leaders(FakeZk({}), ElectionType.UNCLEAN, [T0])
    assert "--bootstrap-server" in e.value.hint
