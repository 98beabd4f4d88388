"""`reassign execute -o json` when nothing was moved and the rollback file was removed again:
`rollback_file` is null and `changes` lists no rollback_file change (a reader can rely on the
two agreeing: a path in one is a file kept). It said null while its changes still listed the
rollback file written, with its path. In-memory backend."""

import json

import jsonschema

from kadmin.model import TopicPartition
from kadmin.schemas import load
from tests.cli.test_reassign_cli import fake, plan_file  # noqa: F401  (fixture)
from tests.support.cli import kadmin


def test_a_refused_reassignment_keeps_no_rollback_file_and_the_document_says_so(fake, tmp_path, capsys):  # noqa: F811
    fake.reassign_errors[TopicPartition("foo", 0)] = "INVALID_REPLICA_ASSIGNMENT: refused"
    plan = plan_file(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 2]}])
    rollback = tmp_path / "rb.json"
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan,
                            "--rollback-file", str(rollback), "-o", "json")
    assert code == 1, err
    assert not rollback.exists()
    doc = json.loads(out)
    jsonschema.validate(doc, load("reassign-execute-result"))
    assert doc["rollback_file"] is None
    assert [c["kind"] for c in doc["changes"]] == ["reassignment"], doc["changes"]
    assert doc["failures"] == 1


def test_a_kept_rollback_file_is_named_in_both(fake, tmp_path, capsys):  # noqa: F811
    plan = plan_file(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [3, 2]}])
    rollback = tmp_path / "rb.json"
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan,
                            "--rollback-file", str(rollback), "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert rollback.exists() and doc["rollback_file"] == str(rollback)
    assert [c["path"] for c in doc["changes"] if c["kind"] == "rollback_file"] == [str(rollback)]
