"""What a progress refresh could not read, and how every view says so: end offsets no leader
gave (the estimate of messages behind is left out, the rest is shown), and brokers that are
down (they hold replicas, but nothing can be asked of them: a snapshot is not done without them)."""

from kadmin.backends.base import Capability
from kadmin.errors import ConnectionFailed
from kadmin.execute.progress import DOWN, INTER_BROKER, NO_MOVE, UNKNOWN_BROKER, snapshot, snapshot_json
from kadmin.execute.sampler import Sampler
from kadmin.model import DOWN_ERROR, Assignment, PartitionState, ReassignmentPlan
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


# Broker 4 is down: Metadata still names it in baz-0's replica set (out of the ISR), but it is
# not among the live brokers (1, 2, 3). Broker 9 is in no replica set: the cluster does not know it.
BAZ0 = PartitionState("baz", 0, 1, (1, 4), (1,), offline_replicas=(4,))
LIVE = dirs([(1, "/d1", "bar", 0, 10 * MB, 0, False), (2, "/d1", "bar", 0, 10 * MB, 0, False),
             (1, "/d1", "baz", 0, 10 * MB, 0, False)])


def test_without_a_plan_a_down_broker_holding_replicas_keeps_progress_from_done():
    """Nothing is seen moving, but broker 4's log-dir moves cannot be seen (one resumes when it
    restarts): the snapshot is not done, lists it as down among the brokers not seen (the JSON's
    unanswered_brokers, schema-valid), and is "unseen only" (exit 1, --watch ends). Once it is
    live again, done."""
    import jsonschema

    from kadmin.schemas import load

    s = snapshot(0.0, cluster([BAR0, BAZ0], brokers=(1, 2, 3)), {}, LIVE)
    assert s.replicas == () and s.unanswered == {4: DOWN_ERROR}
    assert not s.done and s.unseen_only
    doc = snapshot_json(s, "2026-11-26T02:00:00Z")
    jsonschema.validate(doc, load("progress-snapshot"))
    # the document's words are the ones log-dirs describe's JSON has always carried
    assert doc["done"] is False
    assert doc["unanswered_brokers"] == [{"broker": 4, "error": "down: not in the cluster's broker list"}]
    back = snapshot(1.0, cluster([BAR0, BAZ0], brokers=(1, 2, 3, 4)), {}, LIVE)
    assert back.done and back.unanswered == {}


def test_with_a_plan_a_down_broker_counts_when_the_plan_names_it_or_its_partitions():
    """A plan's replica on a down broker says so ("Unknown: its broker is down", not "Unknown
    broker", which stays for an id the cluster does not know); the plan is not done while a
    broker it names, or one holding a replica of its partitions, is down. A plan of live
    brokers' partitions only is done whatever else is down."""
    c = cluster([BAR0, BAZ0], brokers=(1, 2, 3))
    on_down = snapshot(0.0, c, {}, LIVE, plan=ReassignmentPlan((Assignment("baz", 0, (1, 4)),)))
    assert {r.broker: (r.status, r.move) for r in on_down.replicas} == {1: ("In sync", NO_MOVE), 4: (DOWN, NO_MOVE)}
    assert on_down.unanswered == {4: DOWN_ERROR} and not on_down.done and on_down.unseen_only
    # bar-0 would go to broker 4 (it holds baz-0): named by the plan, not hosting bar-0 yet
    names_it = snapshot(0.0, c, {}, LIVE, plan=ReassignmentPlan((Assignment("bar", 0, (1, 4)),)))
    assert {r.broker: r.status for r in names_it.replicas}[4] == "Broker does not host this partition"
    assert names_it.unanswered == {4: DOWN_ERROR} and not names_it.done
    elsewhere = snapshot(0.0, c, {}, LIVE, plan=ReassignmentPlan((Assignment("bar", 0, (1, 2)),)))
    assert elsewhere.done and elsewhere.unanswered == {}
    unknown = snapshot(0.0, c, {}, LIVE, plan=ReassignmentPlan((Assignment("bar", 0, (1, 9)),)))
    assert {r.broker: r.status for r in unknown.replicas}[9] == UNKNOWN_BROKER
    assert 9 not in unknown.unanswered and unknown.unanswered == {}


def test_a_down_broker_being_added_is_a_move_seen_with_its_bytes_unknown():
    """The reassignment adding broker 3 is seen (exit 3 while it runs); broker 3 being down, its
    row says so, with its bytes unknown, and so are the totals' (not 0 B left)."""
    s = snapshot(0.0, cluster([FOO0], brokers=(1, 2)), ONGOING, dirs([(1, "/d1", "foo", 0, 80 * MB, 0, False),
                                                                      (2, "/d1", "foo", 0, 80 * MB, 0, False)]))
    row = next(r for r in s.replicas if r.broker == 3)
    assert (row.status, row.move, row.moved_bytes, row.remaining_bytes) == (DOWN, INTER_BROKER, None, None)
    assert s.unanswered == {3: DOWN_ERROR} and s.totals.remaining_bytes is None
    assert not s.done and not s.unseen_only and s.reassigning_partitions == 1


def test_every_view_names_the_down_broker():
    """Its rows in the table (full and folded live view) and the caption naming it (left to
    stderr by the one-shot command: notes=False); the line for logs once nothing else is left."""
    from kadmin.commands.render_progress import progress_line, progress_table

    s = snapshot(0.0, cluster([BAR0, BAZ0], brokers=(1, 2, 3)), {}, LIVE,
                 plan=ReassignmentPlan((Assignment("baz", 0, (1, 4)),)))
    for moving_first in (False, True):
        lines = _render(progress_table(s, moving_first=moving_first))
        status = {int(line.split("│")[3]): line.split("│")[4].strip() for line in lines if line.startswith("│ baz ")}
        assert status[4] == DOWN, lines
        text = " ".join(line.strip(" │") for line in lines)
        # down, not asked: never said to have not answered
        assert "broker 4 is down (not in the cluster's broker list): its replicas' state" in text, lines
        assert "did not answer" not in text, lines
    assert progress_line(s) == ("kadmin: nothing seen moving, but broker 4 is down (not in the cluster's broker "
                                "list): its replicas' state, log-dir moves and sizes are unknown")
    # The one-shot table, whose command says it on stderr: the rows only, no caption.
    lines = _render(progress_table(s, notes=False))
    assert any(line.startswith("│ baz ") and DOWN in line for line in lines), lines
    assert "is down (" not in " ".join(lines), lines


def test_progress_hint_fits_why_a_broker_was_not_seen():
    """Running progress again helps a broker that did not answer; a down broker's moves can be
    seen only once it is back (exit 1 either way: ClusterError)."""
    from kadmin.commands.reassign_progress import _unseen_error

    def said(unanswered):
        e = _unseen_error(unanswered)
        return e.message, e.hint

    assert said({3: "REQUEST_TIMED_OUT"}) == (
        "cannot tell whether every move is done: not every broker answered", "run progress again")
    assert said({2: DOWN_ERROR}) == ("cannot tell whether every move is done: broker 2 is down",
                                     "its moves resume when it restarts: run progress again once it is back")
    assert said({2: DOWN_ERROR, 3: "REQUEST_TIMED_OUT", 4: DOWN_ERROR}) == (
        "cannot tell whether every move is done: brokers 2, 4 are down and not every other broker answered",
        "their moves resume when they restart: run progress again once they are back")


def test_nothing_seen_moving_with_a_down_broker_has_its_totals_unknown_not_0():
    """Broker 4 is down and nothing else moves: its log-dir moves cannot be seen, so the bytes
    moved and left are unknown: the table's total row says '-' (not '0 B'), the JSON null."""
    import jsonschema

    from kadmin.commands.render_progress import progress_table
    from kadmin.schemas import load

    s = snapshot(0.0, cluster([BAR0, BAZ0], brokers=(1, 2, 3)), {}, LIVE,
                 plan=ReassignmentPlan((Assignment("baz", 0, (1, 4)),)))
    assert s.unseen_only
    total = next(line for line in _render(progress_table(s, notes=False)) if line.startswith("│ total"))
    cells = [c.strip() for c in total.split("│")[1:-1]]
    assert cells[3] == "unknown" and cells[6:8] == ["-", "-"], total
    doc = snapshot_json(s, "2026-11-26T02:00:00Z")
    jsonschema.validate(doc, load("progress-snapshot"))
    assert (doc["totals"]["moved_bytes"], doc["totals"]["remaining_bytes"]) == (None, None)
    back = snapshot(1.0, cluster([BAR0, BAZ0], brokers=(1, 2, 3, 4)), {}, LIVE,
                    plan=ReassignmentPlan((Assignment("baz", 0, (1, 4)),)))
    assert back.done and snapshot_json(back)["totals"]["moved_bytes"] == 0  # done: nothing left, truly 0
