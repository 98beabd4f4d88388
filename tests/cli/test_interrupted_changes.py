"""Ctrl-C part way through throttle set, throttle clear and reassign verify's removal: what the
cluster accepted is printed as a run prints it, the request in flight is named UNKNOWN (sent, no
answer: it may have been made), kadmin's record stays in line with what was made, and the run
exits 130 with one line saying what to run to finish. The fake raises KeyboardInterrupt from the
backend call that sends the Nth resource's (or batch's) changes, as a Ctrl-C during that request
does. (leaders elect: test_leaders_elect_interrupted.py)"""

import json

import jsonschema
import pytest

from kadmin.schemas import load
from tests.support.cli import kadmin, write_plan
from tests.support.throttle_commands import CONN, FOLLOWER, LEADER, MOVE, ConfigsFake, claimed, rates_set, serve


class Interrupted(ConfigsFake):
    """Ctrl-C comes during the ``interrupt_at``-th call that changes configs (1-based; 0: never),
    after the cluster applied it when ``made_in_flight`` (the answer was lost), else before.
    Over either backend a call may carry several resources: the fake applies a call whole."""

    interrupt_at = 0
    made_in_flight = False

    def incremental_alter_configs(self, changes):
        self.alter_calls = getattr(self, "alter_calls", 0) + 1
        if self.alter_calls == self.interrupt_at:
            if self.made_in_flight:
                super().incremental_alter_configs(changes)
            raise KeyboardInterrupt
        super().incremental_alter_configs(changes)


@pytest.fixture
def fake(monkeypatch):
    return serve(monkeypatch, Interrupted)


def arm(fake, at, made_in_flight=False):
    fake.alter_calls = 0
    fake.interrupt_at = at
    fake.made_in_flight = made_in_flight


def last_line(err):
    return err.strip().splitlines()[-1]


@pytest.mark.parametrize("output", ["table", "json"])
def test_throttle_set_interrupted_prints_what_it_set_and_the_change_in_flight(fake, capsys, output):
    arm(fake, 2, made_in_flight=True)  # broker 1 answered, broker 2 sent (and made, unanswered), broker 3 not sent
    code, out, err = kadmin(capsys, "throttle", "set", "--rate", "3MB/s", "--brokers", "1,2,3", "-o", output, *CONN)
    assert code == 130, err
    if output == "table":
        assert f"Set:\n  broker 1 {LEADER}: (not set) -> 3000000 (3.0 MB/s)\n  broker 1 {FOLLOWER}" in out, out
        assert f"  UNKNOWN broker 2 {LEADER}: (not set) -> 3000000" in out
        assert "broker 3" not in out
    else:
        doc = json.loads(out)
        jsonschema.validate(doc, load("throttle-set-result"))
        assert doc["interrupted"] is True
        assert {(c["resource"], c["config"]) for c in doc["changes"]} == {("1", LEADER), ("1", FOLLOWER)}
        assert {(c["resource"], c["config"]) for c in doc["unanswered"]} == {("2", LEADER), ("2", FOLLOWER)}
    assert last_line(err) == (
        "kadmin: interrupted: 2 throttle changes made, 2 unknown (sent, no answer), 2 not sent; "
        "run the same `kadmin throttle set` again to set the rest"
    )
    # the record claims what was made and what may have been, not what was never sent
    assert claimed(fake) == {("1", LEADER), ("1", FOLLOWER), ("2", LEADER), ("2", FOLLOWER)}
    assert rates_set(fake) == claimed(fake)


@pytest.mark.parametrize("output", ["table", "json"])
def test_throttle_clear_interrupted_prints_what_it_removed(fake, capsys, output):
    code, _, err = kadmin(capsys, "throttle", "set", "--rate", "3MB/s", "--brokers", "1,2,3", *CONN)
    assert code == 0, err
    arm(fake, 2)
    code, out, err = kadmin(capsys, "throttle", "clear", "--all", "--yes", "-o", output, *CONN)
    assert code == 130, err
    if output == "table":
        assert f"Removed:\n  broker 1 {FOLLOWER}: 3000000 -> (deleted)\n  broker 1 {LEADER}" in out, out
        assert f"  UNKNOWN broker 2 {LEADER}: 3000000 -> (deleted)" in out
        assert "broker 3" not in out
    else:
        doc = json.loads(out)
        jsonschema.validate(doc, load("throttle-clear-result"))
        assert doc["interrupted"] is True
        assert {(c["resource"], c["config"]) for c in doc["removed"]} == {("1", LEADER), ("1", FOLLOWER)}
        assert {(c["resource"], c["config"]) for c in doc["unanswered"]} == {("2", LEADER), ("2", FOLLOWER)}
    assert "kadmin: interrupted: 2 throttle settings removed, 2 unknown (sent, no answer), 2 not sent" in err
    assert "run the same `kadmin throttle clear` again" in last_line(err)
    assert rates_set(fake) == {("2", LEADER), ("2", FOLLOWER), ("3", LEADER), ("3", FOLLOWER)}
    # the records still name the rest: the same command removes it
    arm(fake, 0)
    code, out, err = kadmin(capsys, "throttle", "clear", "--all", "--yes", *CONN)
    assert code == 0, err
    assert rates_set(fake) == set() and claimed(fake) == set()


@pytest.mark.parametrize("output", ["table", "json"])
def test_verify_interrupted_prints_the_throttles_it_removed(fake, tmp_path, capsys, output):
    plan = write_plan(tmp_path, MOVE)
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--throttle", "10MB/s", *CONN)
    assert code == 0, err
    fake.complete()
    arm(fake, 2)
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-o", output, *CONN)
    assert code == 130, err
    if output == "table":
        removed = out.split("Removed throttles this plan set:\n")[1].splitlines()
        assert removed[0].startswith("  broker 1 ") and "(deleted)" in removed[0], out
        assert any(x.startswith("  UNKNOWN broker 2 ") for x in removed), out
    else:
        doc = json.loads(out)
        jsonschema.validate(doc, load("reassign-verify-interrupted"))
        assert doc["interrupted"] is True
        assert {c["resource"] for c in doc["throttles_removed"]} == {"1"}
        assert {c["resource"] for c in doc["throttles_unanswered"]} == {"2"}
        assert doc["throttles_not_sent"]
    line = last_line(err)
    assert line.startswith("kadmin: interrupted removing this plan's throttles: 2 throttle changes made, 2 unknown"), err
    assert f"`kadmin reassign verify --reassignment-json-file {plan}` removes it" in line
    assert ("1", LEADER) not in rates_set(fake) and ("3", LEADER) in rates_set(fake)
    arm(fake, 0)  # verify again removes the rest
    code, _, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, *CONN)
    assert code == 0, err
    assert rates_set(fake) == set()


def test_changes_go_out_one_request_per_broker_and_one_for_every_topic():
    """Sent in turn to say what was made, but as the backend would batch them anyway: a plan's
    1,000 topic lists are one request, not 1,000 (each broker's own configs go to that broker)."""
    from kadmin.backends.config_outcomes import send_in_turn
    from kadmin.model import AlterOp, ConfigChange, ConfigResource, ConfigResourceType

    calls = []

    class Backend:
        def incremental_alter_configs(self, changes):
            calls.append(sorted((c.resource.type.value, c.resource.name) for c in changes))

    topic = [ConfigChange(ConfigResource(ConfigResourceType.TOPIC, f"t{i}"), "x", AlterOp.DELETE) for i in range(1000)]
    brokers = [ConfigChange(ConfigResource(ConfigResourceType.BROKER, b), "y", AlterOp.DELETE) for b in ("1", "2")]
    send_in_turn(Backend(), brokers + topic)
    assert len(calls) == 3 and sum(len(c) for c in calls) == 1002
