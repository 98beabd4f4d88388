"""What a progress refresh could not read, and how every view says so: end offsets no leader
gave (the estimate of messages behind is left out, the rest is shown)."""

from kadmin.backends.base import Capability
from kadmin.errors import ConnectionFailed
from kadmin.execute.progress import INTER_BROKER
from kadmin.execute.sampler import Sampler
from kadmin.model import Assignment, PartitionState, ReassignmentPlan
from tests.execute.test_progress import FOO0, MB, ONGOING, TP, _render, cluster, dirs

BAR0 = PartitionState("bar", 0, 1, (1, 2), (1, 2))  # in sync, led by broker 1 as foo-0 is
PLAN = ReassignmentPlan((Assignment("foo", 0, (3, 2)), Assignment("bar", 0, (1, 2))))


class Backend:
    """Just the reads of a progress refresh; ``offsets`` the end offsets the leaders give, or
    the error list_end_offsets raises (no leader answered)."""

    capabilities = frozenset(Capability)

    def __init__(self, offsets):
        self.offsets = offsets
        self.asked = []

    def describe_cluster(self):
        return cluster([FOO0, BAR0])

    def list_partition_reassignments(self, partitions=None):
        return ONGOING

    def describe_log_dirs(self, brokers=None, topics=None):
        return dirs([(1, "/d1", "foo", 0, 80 * MB, 0, False), (2, "/d1", "foo", 0, 80 * MB, 0, False),
                     (3, "/d1", "foo", 0, 30 * MB, 0, False),
                     (1, "/d1", "bar", 0, 10 * MB, 0, False), (2, "/d1", "bar", 0, 10 * MB, 0, False)])

    def list_end_offsets(self, partitions):
        self.asked.append(sorted(partitions))
        if isinstance(self.offsets, Exception):
            raise self.offsets
        return {tp: o for tp, o in self.offsets.items() if tp in set(partitions)}


NO_LEADER = ConnectionFailed("reading the end offset of bar-0, foo-0: no answer from broker 1 within 2s")


def _new_replica(snap):
    return next(r for r in snap.replicas if (r.topic, r.broker) == ("foo", 3))


def test_a_refresh_goes_on_when_no_leader_gives_an_end_offset():
    """The end offsets only feed the estimate of messages behind: when no leader answers
    (list_end_offsets raises), the refresh still shows every row, sizes and bytes left, with the
    estimate unknown, and names the partitions it could not estimate and why; a partition in
    sync whose offset was not read either is not named (nothing to estimate)."""
    for plan in (PLAN, None):
        backend = Backend(NO_LEADER)
        snap = Sampler(backend, plan, clock=lambda: 0.0)(None)
        assert backend.asked, "the end offsets were not asked for"
        new = _new_replica(snap)
        assert (new.status, new.move, new.messages_behind, new.messages_estimated) == ("Behind", INTER_BROKER, None, False)
        assert (new.total_bytes, new.moved_bytes, new.remaining_bytes) == (80 * MB, 30 * MB, 50 * MB)
        assert snap.unread_end_offsets == (TP("foo", 0),)
        assert snap.end_offsets_error == str(NO_LEADER)
        assert not snap.done and snap.reassigning_partitions == 1


def test_an_end_offset_left_out_is_named_and_the_others_estimate():
    """A leader that did not answer while others did: list_end_offsets leaves its partitions
    out (no error); those are named, without a reason, and the others are estimated."""
    snap = Sampler(Backend({TP("bar", 0): 500}), PLAN, clock=lambda: 0.0)(None)
    assert _new_replica(snap).status == "Behind"
    assert snap.unread_end_offsets == (TP("foo", 0),) and snap.end_offsets_error is None
    snap = Sampler(Backend({TP("foo", 0): 8000, TP("bar", 0): 500}), PLAN, clock=lambda: 0.0)(None)
    assert _new_replica(snap).status == "Behind: ~5000 messages"
    assert snap.unread_end_offsets == () and snap.end_offsets_error is None


def test_every_view_names_the_partitions_not_estimated():
    """The table (full and live) has a caption line naming them and why; the one-shot command
    says it on stderr (tests/cli/test_progress_sandbox.py)."""
    from kadmin.commands.render_progress import progress_table, unestimated_note

    snap = Sampler(Backend(NO_LEADER), PLAN, clock=lambda: 0.0)(None)
    note = unestimated_note(snap)
    assert note == f"foo-0: messages behind not estimated ({NO_LEADER})"
    for moving_first in (False, True):
        text = " ".join(line.strip(" │") for line in _render(progress_table(snap, moving_first=moving_first)))
        assert "foo-0: messages behind not estimated (reading the end offset of bar-0, foo-0: no answer" in text
    left_out = Sampler(Backend({}), PLAN, clock=lambda: 0.0)(None)
    assert unestimated_note(left_out) == "foo-0: messages behind not estimated (its end offset could not be read)"
