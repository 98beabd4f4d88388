"""A step that adds a replica on a broker seen down is held until the broker is back, rather
than sent (Kafka in ZooKeeper mode refuses a target with a broker that is not live:
INVALID_REPLICA_ASSIGNMENT) and the run stopped with a refusal that does not name the cause."""

from __future__ import annotations

from kadmin.execute.incremental import run_incremental
from kadmin.model import TopicPartition
from kadmin.plan.batches import Limits
from tests.execute.fakes_incremental import FakeBackend, FakeClock
from tests.execute.test_incremental import Recorder, plan_of


class RefusesDownBrokers(FakeBackend):
    """As the ZooKeeper-mode controller over the AdminClient protocol: a target adding a broker
    that is not live is refused, per partition."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.refused: list[TopicPartition] = []
        self.go_down_on_send: set[int] = set()  # brokers that stop just before the next send

    def reassign_partitions(self, assignments, validate_only=False):
        self.down |= self.go_down_on_send
        self.go_down_on_send = set()
        bad = {
            a.tp for a in assignments if any(b in self.down and b not in self.parts[a.tp].replicas for b in a.replicas)
        }
        self.refused += sorted(bad)
        ok = [a for a in assignments if a.tp not in bad]
        answers = super().reassign_partitions(ok) if ok else {}
        return {**answers, **dict.fromkeys(bad, "INVALID_REPLICA_ASSIGNMENT")}


def _comes_back_after(clock, fake, seconds):
    real_sleep = clock.sleep
    start = {}

    def sleep(s):
        real_sleep(s)
        if fake.down:
            start.setdefault("t", clock.t)
            if clock.t - start["t"] >= seconds:
                fake.down.clear()

    clock.sleep = sleep


def test_over_zookeeper_a_step_adding_a_replica_on_a_down_broker_is_held_until_it_is_back(tmp_path):
    """Over --zookeeper the controller refuses a broker that is not live: never sent while down."""
    tp = TopicPartition("t", 0)
    fake = RefusesDownBrokers(range(4), {tp: (0, 1)}, sizes={tp: 1000}, rate=100, name="zookeeper")
    clock = FakeClock(fake)
    rec = Recorder()
    fake.down.add(3)  # down before the run: the step adding 3 is held, the one adding 2 goes
    _comes_back_after(clock, fake, 40)
    run_incremental(fake, plan_of({tp: (2, 3)}), Limits(), tmp_path / "s.json", rec, clock)
    assert fake.assignment()[tp] == (2, 3)
    assert fake.refused == []
    assert any("adds a replica on broker 3, down: held, waiting for broker 3" in n for n in rec.notes), rec.notes


def test_over_the_admin_protocol_a_cluster_that_refuses_a_down_broker_has_such_steps_held(tmp_path):
    """A ZooKeeper-mode cluster over the AdminClient protocol refuses the first such step (a
    KRaft one would accept it): it is held, and so are the next ones, until the broker is back."""
    a, b = TopicPartition("t", 0), TopicPartition("t", 1)
    fake = RefusesDownBrokers(range(4), {a: (0, 1), b: (0, 1)}, sizes={a: 1000, b: 4000}, rate=100)
    clock = FakeClock(fake)
    rec = Recorder()
    fake.down.add(3)
    _comes_back_after(clock, fake, 60)
    run_incremental(fake, plan_of({a: (0, 3), b: (2, 3)}), Limits(), tmp_path / "s.json", rec, clock)
    assert fake.assignment() == {a: (0, 3), b: (2, 3)}
    assert fake.refused == [a]  # once; b's step adding 3 comes later and is held without a refusal
    assert any("t-1: step 3/3 -> 2,3 adds a replica on broker 3, down: held" in n for n in rec.notes), rec.notes


def test_a_step_refused_because_its_broker_went_down_just_before_is_held_not_fatal(tmp_path):
    tp, other = TopicPartition("t", 0), TopicPartition("t", 1)
    fake = RefusesDownBrokers(range(4), {tp: (0, 1), other: (0, 1)}, sizes={tp: 1000, other: 1000}, rate=100)
    clock = FakeClock(fake)
    rec = Recorder()
    fake.go_down_on_send = {3}  # between the look and the send
    _comes_back_after(clock, fake, 40)
    run_incremental(fake, plan_of({tp: (0, 3), other: (0, 2)}), Limits(), tmp_path / "s.json", rec, clock)
    assert fake.assignment() == {tp: (0, 3), other: (0, 2)}
    assert fake.refused == [tp]  # once, then held until broker 3 was back
    assert any(
        "was refused (INVALID_REPLICA_ASSIGNMENT): it adds a replica on broker 3, down; held" in n for n in rec.notes
    ), rec.notes
    assert ((3,), ()) in rec.broker_events


def test_a_running_step_on_a_broker_that_goes_down_is_not_said_held(tmp_path):
    """Only a step still to send is held: the one already running waits for the broker as Kafka does."""
    a, c = TopicPartition("t", 0), TopicPartition("t", 1)
    fake = RefusesDownBrokers(range(4), {a: (0, 1), c: (0, 1)}, sizes={a: 8000, c: 100}, rate=100)
    clock = FakeClock(fake)
    rec = Recorder(on_batch=lambda n, steps: fake.down.add(3) if n == 1 else None)
    _comes_back_after(clock, fake, 60)
    run_incremental(fake, plan_of({a: (0, 3), c: (2, 3)}), Limits(), tmp_path / "s.json", rec, clock)
    assert fake.assignment() == {a: (0, 3), c: (2, 3)}
    assert fake.refused == [c]
    assert not [n for n in rec.notes if n.startswith("t-0")], rec.notes
