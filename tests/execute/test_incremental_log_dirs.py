"""The log-dir part of an incremental run (kadmin/execute/incremental_log_dirs.py): what counts as
placed, and which answers stop the run. The run itself: tests/execute/test_incremental_cli.py."""

from __future__ import annotations

import pytest

from kadmin.errors import ClusterError, ConnectionFailed
from kadmin.execute.incremental_log_dirs import finish_after_last_step, not_in_place, send_before_first_batch, send_targets
from kadmin.model import ReplicaLogDir, TopicPartitionReplica

A, B, C = (TopicPartitionReplica("t", p, 1) for p in range(3))


class Brokers:
    """Brokers 0-2 live; ``where``: the replicas they answer for (a broker that did not answer:
    its replicas left out, as the protocol says)."""

    def __init__(self, answers=None, where=None, live=(0, 1, 2)):
        self.answers, self.where, self.sent, self.asked, self.live = answers or {}, where or {}, [], [], set(live)

    def alter_replica_log_dirs(self, moves):
        self.sent.append(moves)
        return {r: self.answers.get(r) for r in moves}

    def describe_replica_log_dirs(self, replicas):
        self.asked.append(set(replicas))
        return {r: self.where[r] for r in replicas if r in self.where}

    def describe_brokers(self):
        return dict.fromkeys(self.live)


def test_replicas_still_to_come_are_returned_and_refusals_stop_the_run():
    brokers = Brokers({B: "REPLICA_NOT_AVAILABLE"})
    assert send_targets(brokers, {A: "/d1", B: "/d1"}) == {B}
    refusing = Brokers({A: "KAFKA_STORAGE_ERROR", B: "REPLICA_NOT_AVAILABLE"})
    with pytest.raises(ClusterError, match="refused 1 replica.*t-0 on broker 1: KAFKA_STORAGE_ERROR"):
        send_targets(refusing, {A: "/d1", B: "/d1"})
    silent = Brokers({A: "on broker 1: no answer from broker 1 within 2s"})  # its broker could not be asked
    with pytest.raises(ClusterError) as err:
        send_targets(silent, {A: "/d1"})
    assert "t-0 on broker 1: no answer from broker 1 within 2s" in err.value.message
    assert "on broker 1: on broker 1" not in err.value.message


def test_in_place_means_in_the_directory_with_nothing_copying():
    where = {
        A: ReplicaLogDir(A, "/d1"),  # in place
        B: ReplicaLogDir(B, "/d0", future_dir="/d1"),  # on its way
        C: ReplicaLogDir(C, "/d0"),  # elsewhere
    }
    missing = TopicPartitionReplica("t", 3, 1)
    where[missing] = ReplicaLogDir(missing, None)  # not on its broker yet
    unanswered = TopicPartitionReplica("t", 4, 1)  # its broker did not answer
    left = not_in_place(Brokers(where=where), {A: "/d1", B: "/d1", C: "/d1", missing: "/d1", unanswered: "/d1"})
    assert left == {B: where[B], C: where[C], missing: where[missing], unanswered: None}
    assert not_in_place(Brokers(), {}) == {}


def test_a_broker_not_among_the_live_ones_is_not_asked_and_its_replicas_are_unknown():
    down = TopicPartitionReplica("t", 0, 3)
    brokers = Brokers(where={A: ReplicaLogDir(A, "/d0")})
    assert not_in_place(brokers, {A: "/d1", down: "/d1"}, live={0, 1, 2}) == {A: brokers.where[A], down: None}
    assert brokers.asked == [{A}]
    assert not_in_place(brokers, {down: "/d1"}, live={0, 1, 2}) == {down: None} and len(brokers.asked) == 1


def test_before_the_first_batch_a_down_brokers_replicas_are_named_not_sent():
    down = TopicPartitionReplica("t", 0, 3)
    brokers, notes = Brokers(), []
    send_before_first_batch(brokers, {A: "/d1", down: "/d1"}, {A: ReplicaLogDir(A, "/d0"), down: None}, notes.append)
    assert brokers.sent == [{A: "/d1"}]
    assert notes == ["1 replica sent to its log directory",
                     "1 replica on broker 3 (down, or not answering) not sent to their log directories "
                     "(sent after the last step, if answering by then)"]


class Clock:
    def __init__(self):
        self.t = 0.0

    def now(self):
        return self.t

    def sleep(self, seconds):
        self.t += seconds


def test_after_the_last_step_the_live_brokers_are_placed_then_the_down_ones_named(tmp_path):
    """The replicas of the live brokers are sent and waited for; once only a down broker's are
    left, the run stops naming it (exit 1: ConnectionFailed), never sending it anything."""
    down = TopicPartitionReplica("t", 0, 3)

    class Moving(Brokers):
        def alter_replica_log_dirs(self, moves):  # the broker copies it at once
            for r, d in moves.items():
                self.where[r] = ReplicaLogDir(r, d)
            return super().alter_replica_log_dirs(moves)

    brokers, notes = Moving(where={A: ReplicaLogDir(A, "/d0")}), []
    with pytest.raises(ConnectionFailed, match=r"1 replica on broker 3 \(down, or not answering\) not placed") as e:
        finish_after_last_step(brokers, {A: "/d1", down: "/d1"}, clock=Clock(), read=lambda fn: fn(),
                               note=notes.append, grace=30, poll_interval=1, note_interval=5,
                               state_path=tmp_path / "s.json", live={0, 1, 2})
    assert "run the same command again once it is back" in e.value.hint
    assert brokers.sent == [{A: "/d1"}] and brokers.where[A].current_dir == "/d1"
    assert all(down not in asked for asked in brokers.asked)


class Copying(Brokers):
    """Broker 1 copies A into /d1 for ``looks`` looks, then it is in place; ``down_after``: broker
    1 stops after that many looks (its DescribeLogDirs unanswered, gone from the broker list)."""

    def __init__(self, looks, down_after=None):
        super().__init__(where={A: ReplicaLogDir(A, "/d0", future_dir="/d1")})
        self.looks, self.down_after, self.broker_reads = looks, down_after, 0

    def describe_replica_log_dirs(self, replicas):
        if self.down_after is not None and len(self.asked) >= self.down_after:
            self.live.discard(1)
        if len(self.asked) >= self.looks:
            self.where[A] = ReplicaLogDir(A, "/d1")
        answered = [r for r in replicas if r.broker in self.live]
        self.asked.append(set(replicas))
        return {r: self.where[r] for r in answered if r in self.where}

    def describe_brokers(self):
        self.broker_reads += 1
        return super().describe_brokers()


def wait(brokers, tmp_path, targets=None):
    finish_after_last_step(brokers, targets or {A: "/d1"}, clock=Clock(), read=lambda fn: fn(), note=lambda m: None,
                           grace=30, poll_interval=1, note_interval=5, state_path=tmp_path / "s.json",
                           live={0, 1, 2})


def test_the_wait_reads_no_broker_list_while_every_broker_answers(tmp_path):
    """Every look sees every replica: the run's brokers (read when the wait began) stand, no
    Metadata request per look."""
    brokers = Copying(looks=6)
    wait(brokers, tmp_path)
    assert len(brokers.asked) == 7 and brokers.where[A].current_dir == "/d1"
    assert brokers.broker_reads == 0


def test_a_broker_going_down_during_the_wait_is_noticed_and_named(tmp_path):
    """Broker 1 stops while its replica copies: that look sees nothing of it, the next reads
    the brokers and no longer asks it; the run stops naming it (ConnectionFailed, exit 1)."""
    brokers = Copying(looks=100, down_after=2)
    with pytest.raises(ConnectionFailed, match=r"1 replica on broker 1 \(down, or not answering\) not placed"):
        wait(brokers, tmp_path)
    assert brokers.asked == [{A}] * 3  # seen twice, asked once more unanswered, then known down: not asked
    assert brokers.broker_reads == 2  # before each look after one that missed a broker


def test_a_broker_back_during_the_wait_is_asked_again(tmp_path):
    """Down when the wait began (not among the run's brokers): its replica is unseen, so the
    brokers are read again each look; once it is back it is asked and its replica placed."""
    brokers = Copying(looks=3)
    brokers.live.discard(1)
    finish_after_last_step(brokers, {A: "/d1"}, clock=Clock(), read=lambda fn: fn(), note=lambda m: None,
                           grace=30, poll_interval=1, note_interval=5, state_path=tmp_path / "s.json", live={0, 2},
                           looked=lambda left: brokers.live.add(1) if len(brokers.asked) == 0 else None)
    assert brokers.where[A].current_dir == "/d1"
    assert brokers.broker_reads >= 1


def test_a_replica_refused_while_a_directory_is_offline_is_waited_for_not_an_error():
    """KAFKA_STORAGE_ERROR: a directory of the broker is offline (a resumed run whose new
    replica's directory went offline). The run waits for it, as the first part said it would:
    a note names the replica and its directory; the others are sent."""
    brokers, notes = Brokers({A: "on broker 1: KAFKA_STORAGE_ERROR", B: "REPLICA_NOT_AVAILABLE"}), []
    send_before_first_batch(
        brokers, {A: "/d0", B: "/d1"}, {A: ReplicaLogDir(A, None), B: ReplicaLogDir(B, None)}, notes.append
    )
    assert notes == [
        "1 replica sent to its log directory (1 to be created there by the steps)",
        "not sent: t-0 on broker 1 to /d0: KAFKA_STORAGE_ERROR (a log directory of broker 1 is offline; it is "
        "copied once the broker restarts with it back); the run waits, and sends it again after the last step",
    ]


def test_after_the_last_step_a_replica_refused_while_a_directory_is_offline_is_waited_for(tmp_path):
    class Back(Brokers):  # refused twice, then the broker restarted with /d1 back and took it
        def alter_replica_log_dirs(self, moves):
            if len(self.sent) >= 2:
                self.answers, self.where[A] = {}, ReplicaLogDir(A, "/d1")
            return super().alter_replica_log_dirs(moves)

    brokers, notes = Back({A: "KAFKA_STORAGE_ERROR"}, where={A: ReplicaLogDir(A, "/d0")}), []
    finish_after_last_step(brokers, {A: "/d1"}, clock=Clock(), read=lambda fn: fn(), note=notes.append, grace=30,
                           poll_interval=1, note_interval=0, state_path=tmp_path / "s.json", live={0, 1, 2})
    assert len(brokers.sent) == 3 and brokers.where[A].current_dir == "/d1"
    assert notes[0] == (
        "log directories: 1 replica not in place yet, 0 copying; not sent: t-0 on broker 1 to /d1: "
        "KAFKA_STORAGE_ERROR (a log directory of broker 1 is offline; it is copied once the broker restarts "
        "with it back)"
    )
