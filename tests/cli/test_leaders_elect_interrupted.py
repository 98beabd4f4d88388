"""Ctrl-C during a batch of `leaders elect`: what the batches before elected is printed as a run
prints it (Kafka's lines, or the JSON), the batch in flight is named UNKNOWN (sent, no answer:
it may have elected them), and the run exits 130 saying to run it again."""

import contextlib
import dataclasses
import json

import jsonschema
import pytest

from kadmin.commands import leaders_elect
from kadmin.model import TopicPartition
from kadmin.schemas import load
from tests.execute.fakes import FakeBackend, cluster_state
from tests.support.cli import kadmin

CONN = ("--bootstrap-server", "127.0.0.1:1")


class Interrupted(FakeBackend):
    """Elects each partition sent; Ctrl-C comes during the ``interrupt_at``-th ElectLeaders,
    after the cluster acted on it (the answer was lost)."""

    interrupt_at = 0

    def elect_leaders(self, election_type, partitions):
        self.elect_calls = getattr(self, "elect_calls", 0) + 1
        for tp in partitions:
            p = self.cluster.partitions[tp]
            self.cluster.partitions[tp] = dataclasses.replace(p, leader=p.replicas[0])
        if self.elect_calls == self.interrupt_at:
            raise KeyboardInterrupt
        return dict.fromkeys(partitions)


@pytest.fixture
def fake(monkeypatch):
    be = Interrupted(cluster_state({"foo": {0: [1, 2], 1: [2, 3]}}, brokers=(1, 2, 3, 4)), {b: ["/d/a"] for b in (1, 2, 3, 4)})

    @contextlib.contextmanager
    def open_cluster(cluster, read_only=True):
        yield be

    monkeypatch.setattr(leaders_elect, "open_cluster", open_cluster)
    return be


def arm(fake, at):
    fake.elect_calls = 0
    fake.interrupt_at = at


def last_line(err):
    return err.strip().splitlines()[-1]


def _not_led_by_preferred(fake):
    parts = fake.cluster.partitions
    for tp in list(parts):
        parts[tp] = dataclasses.replace(parts[tp], leader=parts[tp].replicas[1])


@pytest.mark.parametrize("output", ["table", "json"])
def test_leaders_elect_interrupted_prints_what_earlier_batches_elected(fake, capsys, output):
    _not_led_by_preferred(fake)
    arm(fake, 2)
    code, out, err = kadmin(capsys, "leaders", "elect", "--preferred", "--all-topic-partitions", "--batch-size", "1",
                            "-o", output, *CONN)
    assert code == 130, err
    if output == "table":
        assert out.splitlines() == [
            "Successfully completed leader election (PREFERRED) for partitions foo-0",
            "UNKNOWN leader election (PREFERRED) for partition foo-1: sent, no answer: it may have been made",
        ], out
    else:
        doc = json.loads(out)
        jsonschema.validate(doc, load("leaders-elect-result"))
        assert [(p["topic"], p["partition"], p["outcome"]) for p in doc["partitions"]] == [("foo", 0, "elected")]
        assert doc["elected"] == 1
        assert doc["stopped"]["error"] == "interrupted"
        assert doc["stopped"]["in_flight"] == [{"topic": "foo", "partition": 1}]
    assert last_line(err).startswith("kadmin: interrupted at batch 2 of 2: batch 1 elected 1 partition, 1 unknown"), err
    assert "run the same `kadmin leaders elect` again" in last_line(err)
    assert fake.cluster.partitions[TopicPartition("foo", 0)].leader == 1
