"""``reassign execute --additional`` says a re-target of a running move as the cluster carries it
out: ZooKeeper mode from the move's original replicas (Kafka's ReplicaAssignment.reassignTo:
adding = target - original, removing = original - target), and, where a KRaft controller ends
elsewhere (it counts from the full set in flight and keeps the old removing when the new one is
empty: KAFKA-FACTS.md), what it does there."""

from __future__ import annotations

import pytest

from kadmin.execute.changes import Reassign, describe
from kadmin.model import TopicPartition


def retarget(name, full, heading_to, original, target):
    topic, partition = name.rsplit("-", 1)
    return Reassign(TopicPartition(topic, int(partition)), full, target, heading_to=heading_to, original=original)


@pytest.mark.parametrize(
    "change, line",
    [
        pytest.param(
            # [1,2,3] -> [1,2,0] in flight (replicas 1,2,0,3, adding 0, removing 3), to [1,2,3,0]:
            # ZooKeeper mode ends with 1,2,3,0 (adding 0), KRaft keeps removing 3.
            retarget("payments-4", (1, 2, 0, 3), (1, 2, 0), (1, 2, 3), (1, 2, 3, 0)),
            "reassign payments-4: re-target the running move from 1,2,0 to 1,2,3,0 (still adding 0; no longer "
            "removing 3); a KRaft controller keeps removing 3 (it counts from the replicas in flight, 1,2,0,3), "
            "so there the move ends as 1,2,0",
            id="widened-to-keep-a-replica-being-removed",
        ),
        pytest.param(
            # Back to the original replicas: nothing is copied and it finishes at once.
            retarget("payments-1", (2, 1, 0, 3), (2, 1, 0), (2, 1, 3), (2, 1, 3)),
            "reassign payments-1: re-target the running move from 2,1,0 to 2,1,3 "
            "(no longer adding 0; no longer removing 3; nothing to copy)",
            id="back-to-the-original",
        ),
        pytest.param(
            # [1,2] -> [1,3] in flight (replicas 1,3,2), to [1,4]: 3 stops, 4 is new, 2 still goes.
            retarget("foo-0", (1, 3, 2), (1, 3), (1, 2), (1, 4)),
            "reassign foo-0: re-target the running move from 1,3 to 1,4 (adding 4; no longer adding 3; still removing 2)",
            id="another-destination",
        ),
        pytest.param(
            # [1,2] -> [1,3] in flight, to [3,1]: the same move, leader first.
            retarget("foo-0", (1, 3, 2), (1, 3), (1, 2), (3, 1)),
            "reassign foo-0: re-target the running move from 1,3 to 3,1 (still adding 3; still removing 2)",
            id="reordered",
        ),
    ],
)
def test_a_re_target_says_what_the_cluster_adds_and_removes(change, line):
    assert describe(change) == line
