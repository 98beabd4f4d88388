"""`leaders show | elect` over the sandbox, in KRaft mode (--bootstrap-server, ElectLeaders) and
ZooKeeper mode (--zookeeper, /admin/preferred_replica_election): every outcome a user meets."""

import json

import pytest

from kadmin.schemas import load
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)
from tests.support.cli import kadmin


class Cluster:
    def __init__(self, sb, flags):
        self.sb = sb
        self.flags = flags

    def leader(self, topic, p):
        return self.sb.snapshot().partition(topic, p).leader

    def bounce(self, broker, rejoin=True):
        """Stop and start a broker: it loses its leaderships; with ``rejoin`` it catches up and
        is back in the ISR (else it stays outside, catching up)."""
        self.sb.faults.broker_stop(broker)
        self.sb.faults.broker_start(broker)
        if rejoin:
            self.sb.clock.advance(1)
        self.sb.settle()


@pytest.fixture(params=["kraft", "zookeeper"])
def cluster(request, sandbox_factory):  # noqa: F811
    if request.param == "zookeeper":
        zk = request.getfixturevalue("zk_connect")
        sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True, zookeeper=zk)
        flags = ["--zookeeper", zk]
    else:
        sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
        flags = ["--bootstrap-server", sb.bootstrap]
    sb.create_topic("t", assignment={0: [0, 1, 2], 1: [1, 2, 0], 2: [2, 0, 1], 3: [0, 2, 1]})
    sb.settle()
    c = Cluster(sb, flags)
    c.mode = request.param
    return c


def test_show_then_elect_preferred_restores_balance(cluster, capsys):
    cluster.bounce(0)
    assert cluster.leader("t", 0) != 0 and cluster.leader("t", 3) != 0
    code, out, _ = kadmin(capsys, "leaders", "show", "-o", "json", *cluster.flags)
    assert code == 0
    doc = json.loads(out)
    import jsonschema

    jsonschema.validate(doc, load("leaders-show-result"))
    assert doc["balanced"] is False
    assert {(p["topic"], p["partition"]) for p in doc["partitions"] if p["not_preferred"]} == {("t", 0), ("t", 3)}
    assert next(b for b in doc["brokers"] if b["broker"] == 0)["imbalance"] == -2

    code, out, err = kadmin(capsys, "leaders", "elect", "--preferred", "--all-topic-partitions", *cluster.flags)
    assert code == 0, err
    assert out.strip() == "Successfully completed leader election (PREFERRED) for partitions t-0, t-3"
    assert cluster.leader("t", 0) == 0 and cluster.leader("t", 3) == 0

    code, out, _ = kadmin(capsys, "leaders", "show", *cluster.flags)
    assert code == 0 and "Leadership is balanced" in out


def test_election_not_needed_is_not_an_error(cluster, capsys):
    code, out, _ = kadmin(capsys, "leaders", "elect", "--election-type", "PREFERRED", "--topic", "t",
                          "--partition", "1", *cluster.flags)
    assert code == 0
    assert out.strip() == "Valid replica already elected for partitions t-1"


def test_preferred_broker_down_is_reported_with_the_reason(cluster, capsys):
    cluster.sb.faults.broker_stop(0)
    cluster.sb.settle()
    code, out, err = kadmin(capsys, "leaders", "elect", "--preferred", "--topic", "t", "--partition", "0",
                            *cluster.flags)
    assert code == 1
    assert "Error completing leader election (PREFERRED) for partition: t-0: PREFERRED_LEADER_NOT_AVAILABLE" in out
    assert "the preferred replica's broker 0 is down" in out
    assert "1 partition could not get the leader asked for" in err


def test_preferred_not_in_isr_is_reported_with_the_reason(cluster, capsys, tmp_path):
    cluster.bounce(0, rejoin=False)  # back, but catching up outside the ISR
    assert 0 not in cluster.sb.snapshot().partition("t", 0).isr
    f = tmp_path / "election.json"
    f.write_text(json.dumps({"partitions": [{"topic": "t", "partition": 0}, {"topic": "t", "partition": 1}]}))
    code, out, _ = kadmin(capsys, "leaders", "elect", "--preferred", "--path-to-json-file", str(f), *cluster.flags)
    assert code == 1
    assert "Valid replica already elected for partitions t-1" in out
    assert "t-0: PREFERRED_LEADER_NOT_AVAILABLE" in out and "the preferred replica 0 is not in the ISR" in out
    assert cluster.leader("t", 0) != 0


def test_unknown_partition_is_bad_input_like_an_unknown_topic(cluster, capsys):
    """--topic t --partition 9 used to be sent and fail (exit 1, UNKNOWN_TOPIC_OR_PARTITION)
    while --topic nosuch said exit 2: both are bad input now, refused before any election."""
    cluster.sb.clear_requests()
    for extra in ([], ["--dry-run"], ["-o", "json"]):
        code, out, err = kadmin(capsys, "leaders", "elect", "--preferred", "--topic", "t", "--partition", "9",
                                *extra, *cluster.flags)
        assert (code, out) == (2, ""), out + err
        assert err.splitlines()[-1] == "kadmin: error: partition t-9 does not exist: topic 't' has partitions 0..3"
        code, out, err = kadmin(capsys, "leaders", "elect", "--preferred", "--topic", "nosuch", "--partition", "0",
                                *extra, *cluster.flags)
        assert (code, out, err.splitlines()[-1]) == (2, "", "kadmin: error: topic 'nosuch' does not exist")
    assert cluster.sb.mutating_requests() == []


def test_unknown_partition_in_an_election_file_fails_in_kafkas_words(cluster, capsys, tmp_path):
    f = tmp_path / "election.json"
    f.write_text(json.dumps({"partitions": [{"topic": "t", "partition": 9}]}))
    code, out, _ = kadmin(capsys, "leaders", "elect", "--preferred", "--path-to-json-file", str(f), *cluster.flags)
    assert code == 1
    assert "t-9: UNKNOWN_TOPIC_OR_PARTITION" in out


def test_dry_run_lists_and_changes_nothing(cluster, capsys):
    cluster.bounce(0)
    before = cluster.leader("t", 0)
    code, out, _ = kadmin(capsys, "leaders", "elect", "--preferred", "--all-topic-partitions", "--dry-run",
                          *cluster.flags)
    assert code == 0
    assert f"t-0: leader {before} -> 0" in out and f"t-3: leader {cluster.leader('t', 3)} -> 0" in out
    assert cluster.leader("t", 0) == before


def test_batches_give_a_broker_at_most_n_new_leaders_each(cluster, capsys):
    cluster.bounce(0)
    cluster.sb.clear_requests()
    code, out, _ = kadmin(capsys, "leaders", "elect", "--preferred", "--all-topic-partitions",
                          "--max-per-broker", "1", "-o", "json", *cluster.flags)
    assert code == 0
    doc = json.loads(out)
    import jsonschema

    jsonschema.validate(doc, load("leaders-elect-result"))
    assert doc["batches"] == 2 and doc["elected"] == 2
    if cluster.mode == "kraft":
        assert [r for r in cluster.sb.requests if r[1] == "ElectLeaders"].__len__() == 2


def test_bad_input_is_exit_2(cluster, capsys, tmp_path):
    f = tmp_path / "dup.json"
    f.write_text(json.dumps({"partitions": [{"topic": "t", "partition": 0}, {"topic": "t", "partition": 0}]}))
    code, _, err = kadmin(capsys, "leaders", "elect", "--preferred", "--path-to-json-file", str(f), *cluster.flags)
    assert code == 2 and "duplicate" in err
    code, _, err = kadmin(capsys, "leaders", "elect", "--preferred", *cluster.flags)
    assert code == 2 and "--all-topic-partitions" in err


def _leaderless_with_stale_survivor(sb):
    """t-0 [0,1,2]: 1 and 2 stop (ISR [0]), then 0 stops (no leader, ISR [0]), then 1 comes
    back: alive but not in the ISR, so only an unclean election gives t-0 a leader."""
    for b in (1, 2, 0):
        sb.faults.broker_stop(b)
    sb.faults.broker_start(1)
    sb.settle()


def test_unclean_elects_out_of_isr_replica_with_yes(sandbox_factory, capsys):  # noqa: F811
    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1, 2]})
    _leaderless_with_stale_survivor(sb)
    assert sb.snapshot().partition("t", 0).leader == -1
    flags = ["--bootstrap-server", sb.bootstrap]
    code, out, err = kadmin(capsys, "leaders", "elect", "--unclean", "--all-topic-partitions", "--dry-run", *flags)
    assert code == 0 and "t-0: leader none -> 1 (unclean: broker 1 is not in the ISR [0]" in out
    # No terminal, no --yes: refused, nothing changed.
    code, out, err = kadmin(capsys, "leaders", "elect", "--unclean", "--all-topic-partitions", *flags)
    assert code == 2 and "--yes" in err and "messages it had not copied" in err
    assert sb.snapshot().partition("t", 0).leader == -1
    code, out, err = kadmin(capsys, "leaders", "elect", "--unclean", "--all-topic-partitions", "--yes", *flags)
    assert code == 0, err
    assert out.strip() == "Successfully completed leader election (UNCLEAN) for partitions t-0"
    p = sb.snapshot().partition("t", 0)
    assert p.leader == 1 and p.isr == (1,)


def test_unclean_not_needed_with_a_live_leader(sandbox_factory, capsys):  # noqa: F811
    sb = sandbox_factory(brokers=2, log_dirs=1, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]})
    code, out, _ = kadmin(capsys, "leaders", "elect", "--unclean", "--topic", "t", "--bootstrap-server", sb.bootstrap)
    assert code == 0 and out.strip() == "Valid replica already elected for partitions t-0"


def test_nothing_to_elect_reads_as_english():
    from kadmin.commands.leaders_elect import _an

    assert (_an("UNCLEAN"), _an("PREFERRED")) == ("an unclean", "a preferred")


@pytest.mark.zookeeper
def test_unclean_over_zookeeper_names_bootstrap_server(sandbox_factory, zk_connect, capsys):  # noqa: F811
    sb = sandbox_factory(brokers=2, log_dirs=1, manual_clock=True, zookeeper=zk_connect)
    sb.create_topic("t", assignment={0: [0, 1]})
    code, _, err = kadmin(capsys, "leaders", "elect", "--unclean", "--all-topic-partitions", "--yes",
                          "--zookeeper", zk_connect)
    assert code == 2 and "--bootstrap-server" in err and "ZooKeeper" in err  # bad usage, nothing done


def test_unclean_asks_at_a_terminal(sandbox_factory, monkeypatch):  # noqa: F811
    from click.testing import CliRunner

    from kadmin.commands import leaders_elect
    from kadmin.commands.root import cli

    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1, 2]})
    _leaderless_with_stale_survivor(sb)
    monkeypatch.setattr(leaders_elect, "stdin_is_tty", lambda: True)
    args = ["leaders", "elect", "--unclean", "--all-topic-partitions", "--bootstrap-server", sb.bootstrap]
    no = CliRunner().invoke(cli, args, input="n\n")
    assert no.exit_code == 1 and "Elect leaders uncleanly for 1 partition?" in no.output
    assert sb.snapshot().partition("t", 0).leader == -1
    yes = CliRunner().invoke(cli, args, input="y\n")
    assert yes.exit_code == 0 and "Successfully completed leader election (UNCLEAN) for partitions t-0" in yes.output
    assert sb.snapshot().partition("t", 0).leader == 1


def test_a_whole_topic_is_elected_from_one_read_of_the_cluster(cluster, capsys, monkeypatch):
    from kadmin.backends.admin import AdminBackend
    from kadmin.backends.zookeeper import ZooKeeperBackend

    reads = []
    for cls in (AdminBackend, ZooKeeperBackend):
        original = cls.describe_cluster
        monkeypatch.setattr(cls, "describe_cluster", lambda self, _o=original: reads.append(1) or _o(self))
    cluster.bounce(0)
    code, out, _ = kadmin(capsys, "leaders", "elect", "--election-type", "PREFERRED", "--topic", "t", *cluster.flags)
    assert code == 0, out
    assert "Successfully completed leader election (PREFERRED) for partitions t-0, t-3" in out
    assert len(reads) == 1


def test_show_with_only_unknown_topics_is_bad_input_not_balanced(sandbox_factory, capsys):  # noqa: F811
    """--topic-list with a typo: not 'Leadership is balanced: every one of the 0 partitions'."""
    sb = sandbox_factory(brokers=2, log_dirs=1, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1]})
    code, out, err = kadmin(capsys, "leaders", "show", "--topic-list", "nope", "-b", sb.bootstrap)
    assert code == 2 and out == "" and "no such topic: nope" in err, (out, err)
    code, out, err = kadmin(capsys, "leaders", "show", "--topic-list", "t,nope", "-b", sb.bootstrap)
    assert code == 0 and "kadmin: warning: no such topic: nope" in err and "1 partition" in out, (out, err)


def test_partition_without_topic_names_the_missing_flag(capsys):
    """Seen by hand: `leaders elect --preferred --partition 1` said 'choose the partitions: ...'."""
    code, out, err = kadmin(capsys, "leaders", "elect", "--preferred", "--partition", "1")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == "kadmin: error: --partition needs --topic"


def test_no_leader_is_null_in_json_not_kafkas_minus_one(sandbox_factory, capsys):  # noqa: F811
    """Seen by hand: `leaders elect -o json` said leader_before -1 for a leaderless partition
    (Kafka's wire value for none); every leaders document says null there now, as its schema does."""
    import jsonschema

    sb = sandbox_factory(brokers=3, log_dirs=1, manual_clock=True)
    sb.create_topic("t", assignment={0: [0, 1, 2]})
    _leaderless_with_stale_survivor(sb)
    flags = ["--bootstrap-server", sb.bootstrap]

    code, out, _ = kadmin(capsys, "leaders", "show", "-o", "json", *flags)
    doc = json.loads(out)
    jsonschema.validate(doc, load("leaders-show-result"))
    assert [(p["partition"], p["leader"], p["leaderless"]) for p in doc["partitions"]] == [(0, None, True)]

    code, out, _ = kadmin(capsys, "leaders", "elect", "--preferred", "--topic", "t", "--dry-run", "-o", "json", *flags)
    doc = json.loads(out)
    jsonschema.validate(doc, load("leaders-elect-result"))
    assert code == 1 and doc["batches"][0][0]["leader"] is None  # it would fail, as the real run does

    code, out, _ = kadmin(capsys, "leaders", "elect", "--preferred", "--topic", "t", "-o", "json", *flags)
    doc = json.loads(out)
    jsonschema.validate(doc, load("leaders-elect-result"))
    assert code == 1  # broker 0, the preferred replica, is down
    assert [(p["outcome"], p["leader_before"]) for p in doc["partitions"]] == [("failed", None)]

    code, out, _ = kadmin(capsys, "leaders", "elect", "--unclean", "--all-topic-partitions", "--yes", "-o", "json",
                          *flags)
    doc = json.loads(out)
    jsonschema.validate(doc, load("leaders-elect-result"))
    assert [(p["leader_before"], p["new_leader"]) for p in doc["partitions"]] == [(None, 1)]


def _hint(out):
    """The lines of leaders show after its tables: the hint about partitions not led by their
    preferred replica."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if "not led by their preferred replica" in line
                 and not line.startswith("Not led"))
    return " ".join(lines[start:]).split("  ")[0], [line.strip() for line in lines[start + 1:] if line.startswith("  ")]


def _offered(first_line):
    import shlex

    assert first_line.count("`") == 2, first_line
    return shlex.split(first_line.split("`")[1])[1:]  # without "kadmin"


def test_show_offers_no_election_while_the_preferred_broker_is_down(cluster, capsys):
    """Seen by hand: with the preferred broker down, show offered `leaders elect --preferred
    --all-topic-partitions` for partitions that election can only fail for
    (PREFERRED_LEADER_NOT_AVAILABLE, exit 1). Kafka elects the preferred replica only alive and
    in the ISR: the hint offers the election once it can work, and says what to do before."""
    cluster.sb.faults.broker_stop(0)
    cluster.sb.settle()
    code, out, _ = kadmin(capsys, "leaders", "show", *cluster.flags)
    first, rest = _hint(out)
    assert code == 0 and "`" not in first and "can move none of them now" in first, out
    assert rest == ["t-0, t-3: preferred broker 0 is down: start it first"]

    cluster.sb.faults.broker_start(0)  # back, catching up outside the ISR
    cluster.sb.settle()
    code, out, _ = kadmin(capsys, "leaders", "show", *cluster.flags)
    first, rest = _hint(out)
    assert "`" not in first
    assert rest == ["t-0, t-3: preferred replica 0 is not in the ISR: elect once it has caught up and rejoined it"]

    cluster.sb.clock.advance(1)  # in the ISR again
    cluster.sb.settle()
    code, out, _ = kadmin(capsys, "leaders", "show", *cluster.flags)
    first, rest = _hint(out)
    assert first.startswith("2 partitions not led by their preferred replica: `") and rest == [], out
    code, out, err = kadmin(capsys, *_offered(first), *cluster.flags)
    assert code == 0 and out.strip() == "Successfully completed leader election (PREFERRED) for partitions t-0, t-3"


def test_show_offers_the_election_for_those_it_can_move_and_names_the_rest(cluster, capsys):
    cluster.bounce(0)  # t-0 and t-3 led by others; broker 0 back in the ISR
    cluster.sb.faults.broker_stop(1)  # t-1 led by another (its preferred broker is down), t-0 by 0 again
    cluster.sb.settle()
    code, out, _ = kadmin(capsys, "leaders", "show", *cluster.flags)
    first, rest = _hint(out)
    assert first == ("2 partitions not led by their preferred replica; t-3 can move back now: "
                     "`kadmin leaders elect --preferred --topic t --partition 3`. The others cannot yet:"), out
    assert rest == ["t-1: preferred broker 1 is down: start it first"]
    code, out, _ = kadmin(capsys, *_offered(first), *cluster.flags)
    assert code == 0 and out.strip() == "Successfully completed leader election (PREFERRED) for partitions t-3"


def test_a_filtered_show_offers_an_election_of_only_what_it_shows(cluster, capsys, tmp_path):
    """--all-topic-partitions would also move w-0, which --topic-list t,u leaves out: the offered
    commands, run as printed, elect t's and u's partitions and nothing else."""
    cluster.sb.create_topic("u", assignment={0: [0, 1, 2], 1: [0, 2, 1]})
    cluster.sb.create_topic("w", assignment={0: [0, 1]})
    cluster.sb.settle()
    cluster.bounce(0)
    led_elsewhere = {("t", 0), ("t", 3), ("u", 0), ("u", 1), ("w", 0)}
    assert all(cluster.leader(t, p) != 0 for t, p in led_elsewhere)

    code, out, _ = kadmin(capsys, "leaders", "show", "--topic-list", "u", *cluster.flags)
    assert code == 0 and "`kadmin leaders elect --preferred --topic u` moves them back" in out
    code, _, _ = kadmin(capsys, "leaders", "elect", "--preferred", "--topic", "u", *cluster.flags)
    assert code == 0 and cluster.leader("u", 0) == cluster.leader("u", 1) == 0
    assert cluster.leader("t", 0) != 0 and cluster.leader("w", 0) != 0

    code, out, _ = kadmin(capsys, "leaders", "show", "--topic-list", "t,u", *cluster.flags)
    offer = ("`kadmin leaders show --topic-list t,u -o json > election.json && "
             "kadmin leaders elect --preferred --path-to-json-file election.json` moves them back")
    assert code == 0 and offer in " ".join(out.split())
    code, out, _ = kadmin(capsys, "leaders", "show", "--topic-list", "t,u", "-o", "json", *cluster.flags)
    (tmp_path / "election.json").write_text(out)
    code, _, _ = kadmin(capsys, "leaders", "elect", "--preferred", "--path-to-json-file",
                        str(tmp_path / "election.json"), *cluster.flags)
    assert code == 0 and cluster.leader("t", 0) == cluster.leader("t", 3) == 0
    assert cluster.leader("w", 0) == 1  # outside the filter: left alone
