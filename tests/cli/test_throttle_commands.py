"""`throttle set | show | clear` driven through the real Click tree over an in-memory backend and
record store (the sandbox tests are in test_throttle_sandbox.py): merging, recording, stale
flags, and clear never removing what a running move needs."""

import contextlib
import json

import jsonschema
import pytest
from click.testing import CliRunner

from kadmin.commands.root import cli
from kadmin.errors import KadminError
from kadmin.model import (
    FOLLOWER_RATE,
    FOLLOWER_REPLICAS,
    LEADER_RATE,
    LEADER_REPLICAS,
    LOG_DIR_RATE,
    Assignment,
    ConfigResource,
    ConfigResourceType,
)
from kadmin.schemas import load
from kadmin.throttling.record import plan_id
from kadmin.throttling.stores import MemoryRecordStore
from tests.execute.fakes import cluster_state
from tests.support.throttle_commands import ConfigsFake


@pytest.fixture
def env(monkeypatch):
    backend = ConfigsFake(cluster_state({"orders": {0: [1, 2], 1: [2, 3]}, "audit": {0: [3, 1]}}, brokers=(1, 2, 3, 4)),
                      {b: ["/d1", "/d2"] for b in (1, 2, 3, 4)})
    store = MemoryRecordStore()

    @contextlib.contextmanager
    def open_cluster(cluster, read_only=True):
        backend.read_only = read_only
        yield backend

    for mod in ("throttle_set", "throttle_show", "throttle_clear"):
        monkeypatch.setattr(f"kadmin.commands.{mod}.open_cluster", open_cluster)
    monkeypatch.setattr("kadmin.throttling.stores.open_record_store", lambda b: store)
    return backend, store


class Result:
    def __init__(self, r):
        self.output = r.output
        # kadmin's errors carry their exit code (kadmin.cli maps them the same way)
        self.exit_code = getattr(r.exception, "exit_code", r.exit_code) if r.exception else r.exit_code
        if r.exception is not None and not isinstance(r.exception, (KadminError, SystemExit)):
            raise r.exception


def run(*args):
    return Result(CliRunner(env={"COLUMNS": "200"}).invoke(cli, [*args, "--bootstrap-server", "127.0.0.1:1"]))


def broker(b):
    return ConfigResource(ConfigResourceType.BROKER, str(b))


def topic(t):
    return ConfigResource(ConfigResourceType.TOPIC, t)


def plan_file(tmp_path, *entries):
    p = tmp_path / "plan.json"
    p.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": t, "partition": n, "replicas": list(r)} for t, n, r in entries]}))
    return p


def test_set_from_plan_merges_lists_and_records_what_it_added(env, tmp_path):
    backend, store = env
    backend.configs[topic("orders")] = {LEADER_REPLICAS: "5:9"}  # someone else's entry
    plan = plan_file(tmp_path, ("orders", 0, [4, 2]))
    r = run("throttle", "set", "--rate", "10MB/s", "--from-plan", str(plan))
    assert r.exit_code == 0, r.output
    assert backend.configs[topic("orders")] == {LEADER_REPLICAS: "0:1,0:2,5:9", FOLLOWER_REPLICAS: "0:4"}
    for b in (1, 2, 4):  # sources and destination
        assert backend.configs[broker(b)] == {LEADER_RATE: "10000000", FOLLOWER_RATE: "10000000"}
    assert broker(3) not in backend.configs
    record = store.load_all()[plan_id(plan.read_bytes())]
    assert record.replicas == {"orders": {FOLLOWER_REPLICAS: ("0:4",), LEADER_REPLICAS: ("0:1", "0:2")}}
    assert record.plan_file == str(plan) and record.user and record.host
    assert "broker 4 leader.replication.throttled.rate: (not set) -> 10000000 (10.0 MB/s)" in r.output


def test_set_refuses_mixed_rate_flags_and_bad_units(env):
    assert run("throttle", "set", "--rate", "1MB/s", "--leader-rate", "1MB/s").exit_code == 2
    assert run("throttle", "set", "--leader-rate", "1MB/s").exit_code == 2
    assert run("throttle", "set", "--rate", "50Mb/s").exit_code == 2  # ambiguous: megabits or megabytes


def test_show_flags_stale_throttles_and_names_the_plan(env, tmp_path):
    backend, _ = env
    plan = plan_file(tmp_path, ("orders", 0, [4, 2]))
    assert run("throttle", "set", "--rate", "1MB/s", "--from-plan", str(plan)).exit_code == 0
    backend.reassign_partitions([Assignment("orders", 0, (4, 2))])  # the plan's move runs
    backend.configs.setdefault(broker(3), {})[LEADER_RATE] = "777"  # set by hand, nothing needs it
    r = run("throttle", "show", "-o", "json")
    doc = json.loads(r.output)
    jsonschema.validate(doc, load("throttle-show-result"))
    by = {(t["resource"], t["config"]): t for t in doc["throttles"]}
    pid = plan_id(plan.read_bytes())
    assert by[("4", LEADER_RATE)]["plan_ids"] == [pid] and not by[("4", LEADER_RATE)]["stale"]
    assert by[("3", LEADER_RATE)] | {} == {**by[("3", LEADER_RATE)], "set_by_kadmin": False, "stale": True}
    assert not by[("orders", FOLLOWER_REPLICAS)]["stale"]
    table = run("throttle", "show").output
    assert f"kadmin for plan {pid}" in table and "STALE" in table


def test_show_table_lists_the_throttles_worth_a_look_and_counts_the_rest(env, monkeypatch, tmp_path):
    """A plan over 110 topics sets 220 lists: the table shows every broker rate, a list set by
    hand (not kadmin, stale) even though it sorts last, and counts the lists it leaves out."""
    from kadmin.commands.throttle_show import MOST_ROWS

    backend, _ = env
    names = [f"t{i:03d}" for i in range(120)]
    backend.cluster = cluster_state({t: {0: [1, 2]} for t in names}, brokers=(1, 2, 3, 4))
    plan = plan_file(tmp_path, *[(t, 0, [3, 2]) for t in names[:110]])
    assert run("throttle", "set", "--rate", "1MB/s", "--from-plan", str(plan)).exit_code == 0
    backend.reassign_partitions([Assignment(t, 0, (3, 2)) for t in names[:110]])  # the plan's moves run
    backend.configs.setdefault(topic("t119"), {})[LEADER_REPLICAS] = "0:1"  # by hand; nothing moves t119
    out = run("throttle", "show").output
    rates = [line for line in out.splitlines() if line.startswith("│ broker ")]
    lists = [line for line in out.splitlines() if line.startswith("│ topic ")]
    assert len(rates) == 6 and len(rates) + len(lists) == MOST_ROWS
    assert any("topic t119" in line and "not kadmin" in line for line in lists)
    left = 221 - len(lists)
    assert f"{left} more topic throttle lists, each set by kadmin and needed (--output json lists every throttle)" in out
    assert len(json.loads(run("throttle", "show", "-o", "json").output)["throttles"]) == 227


def test_show_names_each_record_as_written(env, tmp_path):
    """Who set each record, on stderr, word for word: a plan file named with brackets is a name,
    not console markup (rich would have eaten "[blue]")."""
    (tmp_path / "[blue]").mkdir()
    plan = plan_file(tmp_path / "[blue]", ("orders", 0, [4, 2]))
    assert run("throttle", "set", "--rate", "1MB/s", "--from-plan", str(plan)).exit_code == 0
    r = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["throttle", "show", "--bootstrap-server", "127.0.0.1:1"])
    assert r.exit_code == 0, r.output
    [line] = [x for x in r.stderr.splitlines() if x.startswith("kadmin record ")]
    pid = plan_id(plan.read_bytes())
    assert line.startswith(f"kadmin record {pid}: {plan}, by ") and "[blue]" in line
    assert "kadmin record" not in r.stdout  # diagnostics, not data


def test_show_lists_no_record_that_claims_nothing_set(env):
    """A record whose claims are not set (a throttle set the cluster refused, by a kadmin that
    recorded it first and left it; or rates removed by hand) and an empty one claim nothing:
    show lists neither, in its table's lines or its JSON; a record claiming a rate set is listed."""
    from kadmin.throttling.record import RateClaim, ThrottleRecord

    backend, store = env
    backend.configs[broker(2)] = {LEADER_RATE: "7000000"}
    store.records["manual"] = ThrottleRecord("manual", rates=(RateClaim(1, LEADER_RATE, 5_000_000),), command="throttle set")
    store.records["0123456789abcdef"] = ThrottleRecord("0123456789abcdef", command="throttle set")
    store.records["fedcba9876543210"] = ThrottleRecord(
        "fedcba9876543210", rates=(RateClaim(2, LEADER_RATE, 7_000_000),), command="throttle set")
    r = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["throttle", "show", "--bootstrap-server", "127.0.0.1:1"])
    assert r.exit_code == 0, r.output
    assert [x.split(":")[0] for x in r.stderr.splitlines() if x.startswith("kadmin record ")] == [
        "kadmin record fedcba9876543210"], r.stderr
    r = run("throttle", "show", "-o", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    jsonschema.validate(doc, load("throttle-show-result"))
    assert [x["plan_id"] for x in doc["records"]] == ["fedcba9876543210"]


def test_clear_stale_leaves_a_needed_throttle_alone(env, tmp_path):
    backend, store = env
    plan = plan_file(tmp_path, ("orders", 0, [4, 2]))
    run("throttle", "set", "--rate", "1MB/s", "--from-plan", str(plan))
    backend.reassign_partitions([Assignment("orders", 0, (4, 2))])
    backend.configs.setdefault(broker(3), {})[LEADER_RATE] = "777"
    backend.configs.setdefault(topic("audit"), {})[FOLLOWER_REPLICAS] = "0:2"
    r = run("throttle", "clear", "--stale", "-o", "json")
    assert r.exit_code == 0, r.output
    removed = {(c["resource"], c["config"]) for c in json.loads(r.output)["removed"]}
    assert removed == {("3", LEADER_RATE), ("audit", FOLLOWER_REPLICAS)}
    assert backend.configs[broker(4)] == {LEADER_RATE: "1000000", FOLLOWER_RATE: "1000000"}  # needed: kept
    assert backend.configs[topic("orders")][FOLLOWER_REPLICAS] == "0:4"
    assert plan_id(plan.read_bytes()) in store.load_all()  # the plan's record is untouched


def test_each_set_names_the_clear_that_removes_it_and_that_clear_does(env, tmp_path):
    backend, store = env
    r = run("throttle", "set", "--rate", "1MB/s", "--brokers", "1,2")  # by hand: no plan
    assert r.exit_code == 0, r.output
    assert "`kadmin throttle clear --stale` removes them" in r.output and "--plan FILE" not in r.output
    assert run("throttle", "clear", "--stale").exit_code == 0
    assert backend.configs.get(broker(1), {}) == {} and backend.configs.get(broker(2), {}) == {}
    plan = plan_file(tmp_path, ("orders", 0, [4, 2]))
    r = run("throttle", "set", "--rate", "1MB/s", "--from-plan", str(plan))
    assert f"for plan {plan_id(plan.read_bytes())}: `kadmin throttle clear --plan FILE`" in r.output
    assert run("throttle", "clear", "--plan", str(plan)).exit_code == 0
    assert backend.configs.get(broker(4), {}) == {} and store.load_all() == {}


def test_clear_plan_waits_for_the_move_unless_forced(env, tmp_path):
    backend, store = env
    plan = plan_file(tmp_path, ("orders", 0, [4, 2]))
    run("throttle", "set", "--rate", "1MB/s", "--from-plan", str(plan))
    backend.reassign_partitions([Assignment("orders", 0, (4, 2))])
    r = run("throttle", "clear", "--plan", str(plan))
    assert r.exit_code == 0 and "Nothing to remove" in r.output and "--force" in r.output
    assert backend.configs[broker(4)][LEADER_RATE] == "1000000"

    backend.complete()  # the move is done: now everything the plan set goes, and only that
    backend.configs.setdefault(topic("orders"), {})[LEADER_REPLICAS] += ",7:7"
    r = run("throttle", "clear", "--plan", str(plan))
    assert r.exit_code == 0, r.output
    assert "Removed:" in r.output
    assert backend.configs[topic("orders")] == {LEADER_REPLICAS: "7:7"}
    assert all(not backend.configs.get(broker(b)) for b in (1, 2, 4))
    assert store.load_all() == {}


def test_clear_all_force_removes_even_needed(env, tmp_path):
    backend, store = env
    plan = plan_file(tmp_path, ("orders", 0, [4, 2]))
    run("throttle", "set", "--rate", "1MB/s", "--from-plan", str(plan))
    backend.reassign_partitions([Assignment("orders", 0, (4, 2))])
    assert run("throttle", "clear", "--all", "--dry-run").output.startswith("Nothing to remove")
    r = run("throttle", "clear", "--all", "--force", "--yes")
    assert r.exit_code == 0
    assert not any(backend.configs.values())
    assert store.load_all() == {}


def test_clear_needs_exactly_one_mode(env):
    assert run("throttle", "clear").exit_code == 2
    assert run("throttle", "clear", "--stale", "--all").exit_code == 2


def test_unreadable_records_show_goes_on_but_changes_are_refused(env, monkeypatch, tmp_path):
    from kadmin.errors import UnsupportedOperation

    backend, store = env

    def broken():
        raise UnsupportedOperation("the cluster does not serve Fetch")

    monkeypatch.setattr(store, "load_all", broken)
    backend.configs.setdefault(broker(3), {})[LEADER_RATE] = "777"
    r = run("throttle", "show", "-o", "json")
    assert r.exit_code == 0 and "could not be read" in r.output
    r = run("throttle", "clear", "--all", "--yes")
    assert r.exit_code == 1
    assert backend.configs[broker(3)] == {LEADER_RATE: "777"}  # nothing changed


def test_clear_asks_on_a_terminal_and_no_changes_nothing(env, monkeypatch):
    backend, _ = env
    backend.configs.setdefault(broker(3), {})[LEADER_RATE] = "777"
    monkeypatch.setattr("kadmin.commands.render.stdout_is_tty", lambda: True)
    monkeypatch.setattr("kadmin.commands.throttle_clear._stdin_is_tty", lambda: True)
    r = CliRunner().invoke(cli, ["throttle", "clear", "--stale", "-b", "x"], input="n\n")
    assert "Remove these 1 throttle settings?" in r.output and r.exit_code != 0
    assert backend.configs[broker(3)] == {LEADER_RATE: "777"}
    r = CliRunner().invoke(cli, ["throttle", "clear", "--stale", "-b", "x"], input="y\n")
    assert r.exit_code == 0 and not backend.configs[broker(3)]
    backend.configs[broker(3)][LEADER_RATE] = "777"
    r = CliRunner().invoke(cli, ["throttle", "clear", "--stale", "--yes", "-b", "x"])  # --yes: no question
    assert r.exit_code == 0 and "Remove these" not in r.output and not backend.configs[broker(3)]


def test_a_rate_kafka_cannot_read_is_shown_flagged_and_cleared_as_not_kadmins(env):
    """"abc" in /config/brokers/3 (written to ZooKeeper by hand): shown as set and flagged, never
    a crash; kadmin did not set it and no move needs it, so clear --stale removes it, and a rate
    set over it records no previous value to restore."""
    backend, store = env
    backend.configs[broker(3)] = {LEADER_RATE: "abc", FOLLOWER_RATE: "-5"}
    r = run("throttle", "show", "-o", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output[r.output.index("{"):])
    jsonschema.validate(doc, load("throttle-show-result"))
    assert [(t["resource"], t["config"], t["value"], t["invalid"], t["set_by_kadmin"]) for t in doc["throttles"]] == [
        ("3", FOLLOWER_RATE, "-5", True, False), ("3", LEADER_RATE, "abc", True, False)]
    table = run("throttle", "show").output
    assert "'abc': INVALID" in table and "not a rate Kafka can apply" in table
    r = run("throttle", "set", "--rate", "1MB/s", "--brokers", "3")
    assert r.exit_code == 0, r.output
    assert "broker 3 leader.replication.throttled.rate: abc -> 1000000 (1.0 MB/s)" in r.output
    assert [c.previous for c in store.load_all()["manual"].rates] == [None, None]  # never restores "abc"
    backend.configs[broker(3)][LEADER_RATE] = "abc"  # written over by hand again
    r = run("throttle", "clear", "--stale", "--yes")
    assert r.exit_code == 0, r.output
    assert "broker 3 leader.replication.throttled.rate: abc -> (deleted)" in r.output
    assert not backend.configs[broker(3)]
    assert store.load_all() == {}  # the record's rates are gone: nothing of kadmin's is left


def test_set_from_plan_refuses_unknown_topics_and_partitions_as_execute_does(env, tmp_path):
    """The plan is checked as `reassign execute` checks it: every problem named, exit 2, nothing
    changed, nothing recorded (the rates were dropped and "Nothing to change" said, exit 0)."""
    backend, store = env
    plan = plan_file(tmp_path, ("nosuch", 0, [1, 2]), ("orders", 99, [1, 2]), ("orders", 0, [4, 2]))
    r = run("throttle", "set", "--rate", "1MB/s", "--from-plan", str(plan))
    assert r.exit_code == 2, r.output
    assert "the reassignment plan has 2 problems; nothing was changed" in r.output
    assert "partitions[0] (nosuch-0) topic: unknown topic 'nosuch'" in r.output
    assert "partitions[1] (orders-99) partition: unknown partition: topic 'orders' has partitions 0..1" in r.output
    assert not any(backend.configs.values()) and store.load_all() == {}
    r = run("throttle", "set", "--rate", "1MB/s", "--from-plan", str(plan), "-o", "json")
    assert r.exit_code == 2
    doc = json.loads(r.output[r.output.index("{"):r.output.rindex("}") + 1])
    jsonschema.validate(doc, load("reassign-plan-problems"))
    assert [p["field"] for p in doc["problems"]] == ["topic", "partition"]
    rf = plan_file(tmp_path, ("orders", 0, [4, 2, 3]))  # the move's rule, not its throttles'
    assert run("throttle", "set", "--rate", "1MB/s", "--from-plan", str(rf), "--dry-run").exit_code == 0


def test_set_from_plan_puts_the_log_dir_rate_only_where_a_replica_moves_between_directories(env, tmp_path):
    """Kafka's calculateMovingBrokers: the log-dir rate goes on brokers with an explicit log_dirs
    target, and kadmin only where that target moves a replica; a plan without log_dirs has
    nothing for it to throttle: refused, exit 2, --dry-run too, as --rate for a plan moving
    nothing between brokers (it was set on every broker of the plan, then only warned of)."""
    backend, store = env
    plan = plan_file(tmp_path, ("orders", 0, [4, 2]))  # a move between brokers, no log_dirs
    for rates in (("--log-dir-rate", "1MB/s"), ("--rate", "1MB/s", "--log-dir-rate", "1MB/s")):
        for dry in ((), ("--dry-run",)):
            r = run("throttle", "set", "--from-plan", str(plan), *rates, *dry)
            assert r.exit_code == 2, r.output
            assert ("kadmin: error: --log-dir-rate: the plan moves no replica between log directories (no log_dirs "
                    "target that is not already in place), so --log-dir-rate has nothing to throttle; nothing was "
                    "changed") in r.output
    assert not any(backend.configs.values()) and store.load_all() == {}

    plan = tmp_path / "dirs.json"  # orders-0 on 1 and 2 in /d1: broker 2 moves to /d2, broker 1 stays
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "orders", "partition": 0, "replicas": [1, 2], "log_dirs": ["/d1", "/d2"]}]}))
    r = run("throttle", "set", "--from-plan", str(plan), "--log-dir-rate", "1MB/s")
    assert r.exit_code == 0, r.output
    rates = {r.name: c for r, c in backend.configs.items() if c and r.type == ConfigResourceType.BROKER}
    assert rates == {"2": {LOG_DIR_RATE: "1000000"}}
    assert "moves no replica" not in r.output


def test_set_and_clear_json_follow_their_schemas(env, tmp_path):
    """schemas/throttle-set-result.json and throttle-clear-result.json: every shape set and clear
    print (a plan's lists and rates, a dry run, one kept because a move needs it, a rate Kafka
    cannot read)."""
    backend, _ = env
    backend.configs[broker(3)] = {LEADER_RATE: "777", FOLLOWER_RATE: "abc"}  # by hand
    plan = plan_file(tmp_path, ("orders", 0, [4, 2]))
    docs = []
    for args in (("--rate", "1MB/s", "--from-plan", str(plan), "--dry-run"),
                 ("--rate", "1MB/s", "--from-plan", str(plan)),
                 ("--leader-rate", "2MB/s", "--follower-rate", "3MB/s", "--brokers", "3")):
        r = run("throttle", "set", *args, "-o", "json")
        assert r.exit_code == 0, r.output
        docs.append(json.loads(r.output[r.output.index("{"):]))
        jsonschema.validate(docs[-1], load("throttle-set-result"))
    assert docs[0]["dry_run"] and docs[0]["changes"] == docs[1]["changes"] and not docs[1]["dry_run"]
    assert {"resource_type": "broker", "resource": "3", "config": FOLLOWER_RATE, "op": "set", "before": "abc",
            "after": "3000000"} in docs[2]["changes"]
    assert docs[2]["record"]["plan_id"] == docs[2]["plan_id"] == "manual"

    backend.reassign_partitions([Assignment("orders", 0, (4, 2))])  # the plan's move runs
    docs = []
    for args in (("--plan", str(plan)), ("--stale", "--dry-run"), ("--all", "--yes")):
        r = run("throttle", "clear", *args, "-o", "json")
        assert r.exit_code == 0, r.output
        docs.append(json.loads(r.output[r.output.index("{"):r.output.rindex("}") + 1]))
        jsonschema.validate(docs[-1], load("throttle-clear-result"))
    assert docs[0]["removed"] == [] and "broker 4 leader.replication.throttled.rate" in docs[0]["kept_needed"]
    # --stale deletes it: the value set by hand, given back, would be stale too
    assert [c for c in docs[1]["removed"] if (c["resource"], c["config"]) == ("3", LEADER_RATE)] == [
        {"resource_type": "broker", "resource": "3", "config": LEADER_RATE, "op": "delete", "before": "2000000",
         "after": None}]
    assert docs[2]["removed"] and docs[2]["kept_needed"]


def test_set_without_a_record_store_is_refused_with_dry_run_too(env, monkeypatch):
    """A connection offering no place for kadmin's records: the run refuses (what it sets could
    not be removed safely), and --dry-run refuses what the run refuses."""
    backend, store = env
    monkeypatch.setattr("kadmin.throttling.stores.open_record_store", lambda b: None)
    for dry in ((), ("--dry-run",)):
        r = run("throttle", "set", "--rate", "1MB/s", "--brokers", "1", *dry)
        assert r.exit_code == 1, (dry, r.output)  # as the run exits
        assert "offers no place to record the throttles kadmin sets; nothing was changed" in r.output
    assert not any(backend.configs.values())
