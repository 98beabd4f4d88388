"""Every config change the cluster accepted is printed, also when a later one fails: execute,
throttle set, throttle clear and verify say what they changed, name the resource refused with
its cause, and keep kadmin's record in line with what is set. The fake refuses one resource's
configs after writing those before it, as the ZooKeeper backend writes znodes in turn."""

import json

import pytest

from kadmin.backends.config_outcomes import ConfigChangesPartlyMade
from kadmin.errors import AuthorizationError
from kadmin.model import ConfigResource, ConfigResourceType
from tests.support.cli import kadmin, write_plan
from tests.support.throttle_commands import CONN, FOLLOWER, LEADER, MOVE, ConfigsFake, claimed, rates_set, serve

HINT = "set zookeeper.auth.digest=user:password in the --command-config properties"


def broker(b):
    return ConfigResource(ConfigResourceType.BROKER, str(b))


class Refusing(ConfigsFake):
    """Writes resources in turn (brokers, then topics) until it reaches one in ``refused``."""

    refused: set = set()

    def incremental_alter_configs(self, changes):
        made = []
        for c in sorted(changes, key=lambda c: (c.resource.type.value, c.resource.name)):
            if c.resource in self.refused:
                e = AuthorizationError(f"writing /config/{c.resource.name}: refused (znode ACLs)", hint=HINT)
                raise ConfigChangesPartlyMade(e, made) if made else e
            super().incremental_alter_configs([c])
            made.append(c)


@pytest.fixture
def fake(monkeypatch):
    be = serve(monkeypatch, Refusing)
    be.refused = set()
    return be




def test_execute_prints_the_throttles_set_before_the_refused_one_and_says_they_stay(fake, tmp_path, capsys):
    fake.refused = {broker(3)}
    plan = write_plan(tmp_path, MOVE)
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--throttle", "10MB/s", *CONN)
    assert code == 1
    assert rates_set(fake) == {("1", LEADER), ("1", FOLLOWER), ("2", LEADER), ("2", FOLLOWER)}
    for b, name in rates_set(fake):
        assert f"  done    broker {b} {name}: (not set) -> 10000000 (10.0 MB/s)\n" in out, out
    assert claimed(fake) == rates_set(fake)  # `throttle clear --plan` removes exactly what was set
    assert "writing /config/3: refused (znode ACLs)" in err
    assert HINT in err  # the error's own hint, not replaced by the rollback's
    assert f"the 4 throttle changes made (printed above) stay; nothing moves: `kadmin throttle clear --plan {plan}`" in err
    assert fake.mutating_calls().count("reassign_partitions") == 0


def test_execute_json_lists_the_throttles_made(fake, tmp_path, capsys):
    fake.refused = {broker(3)}
    plan = write_plan(tmp_path, MOVE)
    code, out, _ = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--throttle", "10MB/s",
                          "-o", "json", *CONN)
    assert code == 1
    doc = json.loads(out)
    assert {(c["resource"], c["name"]) for c in doc["changes"] if c["kind"] == "config"} == rates_set(fake)
    assert doc["aborted"].startswith("stopped: writing /config/3")


def test_a_partly_refused_execute_records_only_what_it_made_not_a_rate_it_shares(fake, tmp_path, capsys):
    """Broker 1's rates are already 10 MB/s, set by `throttle set`: execute --throttle 10MB/s
    changes nothing there, only claims them too. Refused on broker 3 after setting broker 2's,
    its record claims broker 2's rates, what it made, not broker 1's."""
    code, _, err = kadmin(capsys, "throttle", "set", "--rate", "10MB/s", "--brokers", "1", *CONN)
    assert code == 0, err
    fake.refused = {broker(3)}
    plan = write_plan(tmp_path, MOVE)
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--throttle", "10MB/s", *CONN)
    assert code == 1 and "writing /config/3" in err, err
    plan_records = [r for key, r in fake.store.records.items() if key != "manual"]
    assert [{(c.broker, c.name) for c in r.rates} for r in plan_records] == [{(2, LEADER), (2, FOLLOWER)}]
    assert {(c.broker, c.name) for c in fake.store.records["manual"].rates} == {(1, LEADER), (1, FOLLOWER)}


def test_throttle_set_prints_and_records_what_it_set_before_a_refusal(fake, tmp_path, capsys):
    fake.refused = {broker(3)}
    code, out, err = kadmin(capsys, "throttle", "set", "--rate", "3MB/s", "--brokers", "1,2,3", *CONN)
    assert code == 1
    assert rates_set(fake) == {("1", LEADER), ("1", FOLLOWER), ("2", LEADER), ("2", FOLLOWER)}
    assert "Set:\n" in out and "broker 2 follower.replication.throttled.rate: (not set) -> 3000000" in out, out
    assert "broker 3" not in out
    assert claimed(fake) == rates_set(fake)
    assert "writing /config/3" in err and HINT in err


def test_a_refused_throttle_set_records_nothing_not_even_a_rate_it_shares(fake, tmp_path, capsys):
    """Broker 1's rate is already 3 MB/s, claimed by a plan's record: `throttle set --rate 3MB/s`
    changes nothing there, only claims it too. Refused on broker 2, it made nothing, so it
    records nothing: no "manual" record claiming broker 1 (it was left, listed by show)."""
    plan = write_plan(tmp_path, MOVE)
    code, _, err = kadmin(capsys, "throttle", "set", "--rate", "3MB/s", "--brokers", "1", "--from-plan", plan, *CONN)
    assert code == 0, err
    before = dict(fake.store.records)
    fake.refused = {broker(2)}
    code, out, err = kadmin(capsys, "throttle", "set", "--rate", "3MB/s", "--brokers", "1,2", *CONN)
    assert code == 1 and "writing /config/2" in err, err
    assert "Set:" not in out, out
    assert fake.store.records == before  # no "manual" record; the plan's as it was
    assert rates_set(fake) == {("1", LEADER), ("1", FOLLOWER)}


def test_a_partly_refused_throttle_set_records_exactly_what_it_made_and_prints_that_record(fake, tmp_path, capsys):
    plan = write_plan(tmp_path, MOVE)
    code, _, err = kadmin(capsys, "throttle", "set", "--rate", "3MB/s", "--brokers", "1", "--from-plan", plan, *CONN)
    assert code == 0, err
    fake.refused = {broker(3)}
    code, out, err = kadmin(capsys, "throttle", "set", "--rate", "3MB/s", "--brokers", "1,2,3", "-o", "json", *CONN)
    assert code == 1 and "writing /config/3" in err, err
    doc = json.loads(out)
    made = {(c["resource"], c["config"]) for c in doc["changes"]}
    assert made == {("2", LEADER), ("2", FOLLOWER)}
    manual = fake.store.records["manual"]
    assert {(str(c.broker), c.name) for c in manual.rates} == made  # not broker 1: it set nothing there
    assert doc["record"] == manual.to_json()  # printed as recorded


def test_throttle_clear_prints_what_it_removed_before_a_refusal(fake, tmp_path, capsys):
    code, _, err = kadmin(capsys, "throttle", "set", "--rate", "3MB/s", "--brokers", "1,2,3", *CONN)
    assert code == 0, err
    fake.refused = {broker(2)}
    code, out, err = kadmin(capsys, "throttle", "clear", "--all", "--yes", *CONN)
    assert code == 1
    assert "Removed:\n" in out and "broker 1 leader.replication.throttled.rate: 3000000 -> (deleted)" in out, out
    assert "broker 2" not in out and "broker 3" not in out
    assert rates_set(fake) == {("2", LEADER), ("2", FOLLOWER), ("3", LEADER), ("3", FOLLOWER)}
    assert "writing /config/2" in err and "the same command removes it" in err


@pytest.mark.parametrize("output", ["table", "json"])
def test_verify_prints_its_verdict_and_what_it_removed_when_a_removal_is_refused(fake, tmp_path, capsys, output):
    plan = write_plan(tmp_path, MOVE)
    code, _, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--throttle", "10MB/s", *CONN)
    assert code == 0, err
    fake.complete()
    fake.refused = {broker(3)}
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-o", output, *CONN)
    assert code == 1
    if output == "table":
        assert "Reassignment of partition foo-0 is completed." in out, out
        assert f"  broker 1 {LEADER}: 10000000 -> (deleted)" in out
        assert "broker 3" not in out.split("Removed throttles this plan set:")[1]
        assert f"delete broker 3 {LEADER}" in err
    else:
        doc = json.loads(out)
        assert doc["state"] == "complete"
        assert ("1", LEADER) in {(c["resource"], c["name"]) for c in doc["throttles_removed"]}
        assert "writing /config/3" in doc["throttles_kept_reason"]
    assert "removing this plan's throttles failed: writing /config/3" in err
    assert rates_set(fake) == {("3", LEADER), ("3", FOLLOWER)}
    # the record still names what is left: verify again, once allowed, removes it
    fake.refused = set()
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, *CONN)
    assert code == 0, err
    assert rates_set(fake) == set()


def test_execute_wait_ends_as_verify_does_when_a_removal_is_refused(fake, tmp_path, capsys, monkeypatch):
    """--wait ends with verify's report: the verdict and what was removed first, then what could
    not be removed, exit 1 (it ended with the error alone, no verdict)."""
    from kadmin.commands import reassign_wait

    class Clock:  # the move finishes at the first wait; then broker 3's configs are refused
        t = 0.0

        def now(self):
            return self.t

        def sleep(self, seconds):
            self.t += seconds
            fake.complete()
            fake.refused = {broker(3)}

    monkeypatch.setattr(reassign_wait, "follow_clock", Clock)
    plan = write_plan(tmp_path, MOVE)
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "--throttle", "10MB/s",
                            "--wait", *CONN)
    assert code == 1, err
    assert "Reassignment of partition foo-0 is completed." in out, out
    assert f"broker 1 {LEADER}: 10000000 -> (deleted)" in out, out
    assert f"delete broker 3 {LEADER}" in err
    assert "removing this plan's throttles failed: writing /config/3" in err
    assert rates_set(fake) == {("3", LEADER), ("3", FOLLOWER)}
