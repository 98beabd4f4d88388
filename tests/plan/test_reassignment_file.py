import json

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kadmin.errors import InputError
from kadmin.model import Assignment, ReassignmentPlan
from kadmin.plan.reassignment_file import (
    format_reassignment,
    parse_reassignment,
    read_reassignment,
    write_reassignment,
)
from kadmin.schemas import load


def test_parses_kafka_format_with_and_without_log_dirs():
    parsed = parse_reassignment(
        '{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1,2],"log_dirs":["any","/d/b"]},'
        '{"topic":"bar","partition":3,"replicas":[3]}]}'
    )
    assert parsed.problems == ()
    assert parsed.plan.partitions == (
        Assignment("foo", 0, (1, 2), ("any", "/d/b")),
        Assignment("bar", 3, (3,), None),
    )
    assert [i for i, _ in parsed.entries] == [0, 1]


def test_a_file_without_a_version_is_version_1_as_kafkas_tool_reads_it():
    parsed = parse_reassignment('{"partitions":[{"topic":"foo","partition":0,"replicas":[1,2]}]}')
    assert parsed.problems == ()
    assert parsed.plan == ReassignmentPlan((Assignment("foo", 0, (1, 2)),))
    assert [str(p) for p in parse_reassignment('{"version":null,"partitions":[]}').problems][0] == (
        "version: must be 1, not null")


def test_round_trip_is_kafkas_one_line_json():
    plan = ReassignmentPlan((Assignment("foo", 1, (4, 5), ("any", "/a")), Assignment("foo", 0, (1,))))
    text = format_reassignment(plan)
    assert text == (
        '{"version":1,"partitions":[{"topic":"foo","partition":1,"replicas":[4,5],"log_dirs":["any","/a"]},'
        '{"topic":"foo","partition":0,"replicas":[1]}]}'
    )
    assert parse_reassignment(text).plan == plan
    jsonschema.validate(json.loads(text), load("reassignment"))


def test_shape_problems_are_all_reported_with_their_place():
    parsed = parse_reassignment(json.dumps({
        "version": 2,
        "partitions": [
            {"topic": "foo", "partition": 0, "replicas": [1, "x"]},
            {"topic": "", "partition": -1, "replicas": [1]},
            {"topic": "foo", "partition": 2, "replicas": [1], "log_dirs": [7]},
            "nope",
        ],
    }))
    lines = [str(p) for p in parsed.problems]
    assert lines == [
        "version: must be 1, not 2",
        'partitions[0] (foo-0) replicas[1]: must be a broker id (integer >= 0), not a string ("x")',
        'partitions[1] topic: must be a non-empty string, not a string ("")',
        "partitions[1] partition: must be an integer >= 0, not -1",
        'partitions[2] (foo-2) log_dirs[0]: must be "any" or an absolute path, not 7',
        "partitions[3]: must be an object, not a string (\"nope\")",
    ]
    assert parsed.entries == ()


def test_not_json_says_line_and_column():
    with pytest.raises(InputError) as e:
        parse_reassignment('{"version":1,\n}')
    [problem] = e.value.problems  # a problem of the whole document, as --output json lists it
    assert "not valid JSON" in problem and "line 2 column 1" in problem


def test_write_refuses_to_overwrite(tmp_path):
    plan = ReassignmentPlan((Assignment("foo", 0, (1,)),))
    path = write_reassignment(tmp_path / "rollback.json", plan)
    assert read_reassignment(path).plan == plan
    with pytest.raises(InputError, match="already exists"):
        write_reassignment(path, plan)


def test_unreadable_file_is_input_error(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        read_reassignment(tmp_path / "missing.json")


# The hand-written shape checks and schemas/reassignment.json must agree on every document.
_values = st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.text(max_size=3), st.just("/a"), st.just("any"))
_entry = st.fixed_dictionaries(
    {},
    optional={
        "topic": st.one_of(st.sampled_from(["foo", ""]), _values),
        "partition": _values,
        "replicas": st.one_of(st.lists(st.one_of(st.integers(-1, 4), _values), max_size=3), _values),
        "log_dirs": st.one_of(st.lists(st.sampled_from(["any", "/a", "rel", 5]), max_size=3), st.integers(), st.none()),
    },
)
_doc = st.fixed_dictionaries({}, optional={"version": st.one_of(st.just(1), _values), "partitions": st.lists(st.one_of(_entry, _values), max_size=3)})


@settings(max_examples=300, deadline=None)
@given(_doc)
def test_shape_checks_agree_with_the_schema(doc):
    from kadmin.plan.validate import is_log_dir_spec

    parsed = parse_reassignment(json.dumps(doc))
    # Rules the schema states that validate.py (not the parser) checks: empty lists, duplicate
    # brokers, "any"-or-absolute paths.
    semantic_ok = parsed.entry_count > 0 and all(
        a.replicas and len(set(a.replicas)) == len(a.replicas)
        and all(is_log_dir_spec(d) for d in (a.log_dirs or ()))
        for _, a in parsed.entries
    )
    ours = not parsed.problems and semantic_ok
    theirs = jsonschema.Draft202012Validator(load("reassignment")).is_valid(doc)
    assert ours == theirs, (doc, parsed.problems)
