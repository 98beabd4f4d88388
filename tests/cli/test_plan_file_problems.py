"""A bad reassignment file is refused alike by every command that reads one (reassign execute,
verify, progress, cancel, throttle set --from-plan): the same problems on stderr, exit 2, and
the same problems document (schemas/reassign-plan-problems.json) under --output json, each
problem with its place; the cluster (the sandbox, over the wire) is never changed. Every
refusal of an input file (a plan, a topics file, an election file) names it as the user did,
in the error line and in each problem line, so a script handing kadmin several files can tell
which one is bad."""

import json

import jsonschema
import pytest

from kadmin.schemas import load
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)
from tests.support.cli import kadmin

COMMANDS = {
    "execute": ["reassign", "execute", "--reassignment-json-file"],
    "execute --dry-run": ["reassign", "execute", "--dry-run", "--reassignment-json-file"],
    "verify": ["reassign", "verify", "--reassignment-json-file"],
    "progress": ["reassign", "progress", "--reassignment-json-file"],
    "cancel": ["reassign", "cancel", "--reassignment-json-file"],
    "throttle set": ["throttle", "set", "--rate", "1MB/s", "--from-plan"],
}

READERS = {  # every command that reads a JSON file the user names
    **COMMANDS,
    "generate": ["reassign", "generate", "--broker-list", "0,1", "--topics-to-move-json-file"],
    "leaders elect": ["leaders", "elect", "--preferred", "--path-to-json-file"],
}
NOWHERE = ["-b", "127.0.0.1:1"]  # a file that cannot be read is refused before any connection

ORDERS = {"topic": "orders", "partition": 1, "replicas": [1, 2, 0]}  # a sound entry, already in place
BAD_PLANS = {
    "a partition given as a string": {"version": 1, "partitions": [
        {"topic": "orders", "partition": "0", "replicas": [0, 1, 2]}]},
    "a relative log dir": {"version": 1, "partitions": [
        ORDERS, {"topic": "orders", "partition": 0, "replicas": [0, 1, 2], "log_dirs": ["any", "relative/dir", "any"]}]},
    "a broker twice": {"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": [0, 0, 1]}]},
    "a duplicate partition": {"version": 1, "partitions": [ORDERS, ORDERS]},
    "log_dirs of the wrong length": {"version": 1, "partitions": [
        {"topic": "orders", "partition": 0, "replicas": [0, 1, 2], "log_dirs": ["any"]}]},
    "no partitions": {"version": 1, "partitions": []},
    "a list, not an object": [],
    "not JSON": "{\"version\": 1, ",
}


@pytest.fixture
def sb(sandbox_factory):  # noqa: F811
    sb = sandbox_factory(brokers=3, log_dirs=2)
    sb.create_topic("orders", assignment={0: [0, 1, 2], 1: [1, 2, 0]}, size_bytes=1_000_000)
    sb.clear_requests()
    return sb


def test_every_command_refuses_a_bad_plan_file_alike(sb, tmp_path, capsys):
    for case, doc in BAD_PLANS.items():
        path = tmp_path / "plan.json"
        path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
        seen = {}
        for name, words in COMMANDS.items():
            code, out, err = kadmin(capsys, *words, str(path), "-b", sb.bootstrap)
            assert code == 2, f"{case}: {name} exit {code}: {out}{err}"
            assert out == "", f"{case}: {name}"
            code, as_json, err_json = kadmin(capsys, *words, str(path), "-b", sb.bootstrap, "-o", "json")
            assert code == 2, f"{case}: {name} -o json exit {code}: {as_json}{err_json}"
            assert err_json == err, f"{case}: {name}"
            problems = json.loads(as_json)
            jsonschema.validate(problems, load("reassign-plan-problems"))
            seen[name] = (err, problems)
        first = next(iter(seen.values()))
        for name, got in seen.items():
            assert got == first, f"{case}: {name} reports {got}, execute {first}"
        line, *problem_lines = first[0].splitlines()
        assert line.startswith(f"kadmin: error: {path}: the reassignment plan has "), f"{case}: {line}"
        assert problem_lines and all(p.startswith(f"  - {path}: ") for p in problem_lines), f"{case}: {first[0]}"
        assert str(path) not in as_json, f"{case}: the document's messages are the problems alone"
    assert sb.mutating_requests() == [] and list(tmp_path.glob("*.rollback-*")) == []


def test_problems_keep_their_place_in_every_command(sb, tmp_path, capsys):
    """verify used to give index, topic, partition and field as null (the place only inside the
    message), and exit 4 "differs" for a relative log dir execute refuses."""
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(BAD_PLANS["a partition given as a string"]))
    for words in (COMMANDS["verify"], COMMANDS["progress"], COMMANDS["cancel"], COMMANDS["throttle set"]):
        code, out, _ = kadmin(capsys, *words, str(path), "-b", sb.bootstrap, "-o", "json")
        assert code == 2
        assert json.loads(out)["problems"] == [{"index": 0, "topic": None, "partition": None, "field": "partition",
                                                "message": 'must be an integer >= 0, not a string ("0")'}]
    path.write_text(json.dumps(BAD_PLANS["a relative log dir"]))
    code, _, err = kadmin(capsys, *COMMANDS["verify"], str(path), "-b", sb.bootstrap)
    assert code == 2, err
    assert "partitions[1] (orders-0) log_dirs[1]: 'relative/dir' is neither \"any\" nor an absolute path" in err
    path.write_text("[]")
    code, out, err = kadmin(capsys, *COMMANDS["verify"], str(path), "-b", sb.bootstrap, "-o", "json")
    assert code == 2 and json.loads(out)["problems"] == [
        {"index": None, "topic": None, "partition": None, "field": None,
         "message": 'must be a JSON object with "version" and "partitions", not a list'}]
    assert sb.mutating_requests() == []


def test_a_script_with_several_plans_is_told_which_one_is_bad(sb, tmp_path, capsys, monkeypatch):
    """The refusal names the file as given (relative here), in the line and in each problem,
    also for the problems only the cluster shows (an unknown broker: execute, throttle set) and
    when the cluster cannot be reached (execute's problems "of its own")."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plans").mkdir()
    good, bad, doubled = "plans/orders-1.json", "plans/orders-0.json", "plans/twice.json"
    (tmp_path / good).write_text(json.dumps({"version": 1, "partitions": [ORDERS]}))
    (tmp_path / bad).write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "orders", "partition": 0, "replicas": [0, 1, 9]}]}))
    (tmp_path / doubled).write_text(json.dumps({"version": 1, "partitions": [ORDERS, ORDERS]}))
    code, _, err = kadmin(capsys, *COMMANDS["execute --dry-run"], good, "-b", sb.bootstrap)
    assert code == 0 and err == ""
    for name in ("execute --dry-run", "throttle set"):
        code, _, err = kadmin(capsys, *COMMANDS[name], bad, "-b", sb.bootstrap)
        assert code == 2, f"{name}: {err}"
        assert err.splitlines() == [
            f"kadmin: error: {bad}: the reassignment plan has 1 problem; nothing was changed (fix the plan and run again)",
            f"  - {bad}: partitions[0] (orders-0) replicas[2]: unknown broker 9: not among the running brokers (0, 1, 2)",
        ], name
    code, _, err = kadmin(capsys, *COMMANDS["execute"], doubled, *NOWHERE, "--timeout", "1s")
    assert code == 2 and err.splitlines() == [
        f"kadmin: error: {doubled}: the reassignment plan has 1 problem of its own (the cluster could not be reached "
        "to check the rest); nothing was changed (fix the plan and run again)",
        f"  - {doubled}: partitions[1] (orders-1): duplicate partition: orders-1 already appears at partitions[0]",
    ]
    assert sb.mutating_requests() == [] and list(tmp_path.glob("plans/*.rollback-*")) == []


@pytest.mark.parametrize("name, doc, line, problems", [
    ("generate", {"version": 1, "topics": [{"topic": "a b"}, {"name": "x"}]},
     'does not match the topics-to-move format (expected {"version":1,"topics":[{"topic":"foo"},{"topic":"bar"}]})',
     ["topics[0].topic: 'a b' is not a valid topic name", "topics[1]: 'topic' is a required property",
      "topics[1]: unknown key: name"]),
    ("generate", {"version": 1, "topics": [{"topic": "orders"}, {"topic": "orders"}]},
     "List of topics to reassign contains duplicate entries", ["topics[1].topic: 'orders' is listed more than once"]),
    ("leaders elect", {"partitions": [{"topic": "orders", "partition": "0"}]},
     'does not match the leader election format (expected {"partitions":[{"topic":"foo","partition":1}]})',
     ["partitions[0].partition: '0' is not of type 'integer'"]),
    ("leaders elect", {"partitions": [{"topic": "orders", "partition": 0}, {"topic": "orders", "partition": 0}]},
     "Replica election data contains duplicate partitions", ["partitions[1]: orders-0 is listed more than once"]),
    ("leaders elect", "", "the file is empty: no JSON document", []),
    ("leaders elect", '{"partitions": [{"topic": "orders", "parti',
     "not valid JSON: Unterminated string starting at line 1 column 37 (the file ends before its document does: "
     "cut short, or still being written?)", []),
])
def test_topics_and_election_files_are_named_in_every_line(tmp_path, capsys, name, doc, line, problems):
    path = tmp_path / "input.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    code, out, err = kadmin(capsys, *READERS[name], str(path), *NOWHERE)
    assert code == 2 and out == ""
    first, *rest = err.splitlines()
    assert first == f"kadmin: error: {path}: {line}"
    assert len(rest) == len(problems), err
    for got, want in zip(rest, problems):
        assert got.startswith(f"  - {path}: {want}"), err


def test_generate_names_the_topics_file_of_an_unknown_topic(sb, tmp_path, capsys):
    path = tmp_path / "topics.json"
    path.write_text(json.dumps({"version": 1, "topics": [{"topic": "orders"}, {"topic": "nope"}]}))
    code, out, err = kadmin(capsys, *READERS["generate"], str(path), "-b", sb.bootstrap)
    assert (code, out, err) == (2, "", f"kadmin: error: {path}: unknown topic: nope\n")


@pytest.mark.parametrize("case", ["not UTF-8", "missing", "under a file"])
def test_every_command_names_a_file_it_cannot_read(tmp_path, capsys, case):
    """One line naming the file as given, exit 2, whichever command reads it (leaders elect used
    to fail with "unexpected UnicodeDecodeError", exit 1, on a file that is not UTF-8)."""
    (tmp_path / "bin.json").write_bytes(b'\xff{"version": 1}')
    path, why = {
        "not UTF-8": (tmp_path / "bin.json", "not UTF-8 text (byte 0)"),
        "missing": (tmp_path / "missing.json", "No such file or directory"),
        "under a file": (tmp_path / "bin.json" / "plan.json", "Not a directory"),
    }[case]
    for name, words in READERS.items():
        code, out, err = kadmin(capsys, *words, str(path), *NOWHERE)
        assert code == 2, f"{name}: exit {code}: {err}"
        if case != "not UTF-8" and name in ("progress", "throttle set"):  # Click checks that it exists
            assert f"File '{path}' does not exist." in err, f"{name}: {err}"
        else:
            assert err == f"kadmin: error: {path}: cannot read: {why}\n", name
        assert out == "", name
