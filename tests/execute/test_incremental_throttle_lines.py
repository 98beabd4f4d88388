"""``reassign execute --incremental`` says each throttle change with the value it replaces, as
plain execute and ``throttle set`` do ("(not set) -> 20000000 (20.0 MB/s)"), in --dry-run
too (README, Throttles)."""

from __future__ import annotations

import json

from tests.execute.test_incremental_cli import PLAN, kadmin, records, sb, write_plan  # noqa: F401  (fixtures)
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

RATE = "leader.replication.throttled.rate"


def test_each_throttle_change_says_the_value_it_replaces(sb, tmp_path, capsys, records):  # noqa: F811
    plan = write_plan(tmp_path, PLAN)
    args = ["reassign", "execute", "--reassignment-json-file", plan, "--incremental", "--bootstrap-server",
            sb.bootstrap, "--throttle", "20MB/s", "--state-file", str(tmp_path / "state.json")]

    code, out, err = kadmin(capsys, *args, "--dry-run")
    assert code == 0, err
    assert f"  broker 3 {RATE}: (not set) -> 20000000 (20.0 MB/s)" in out.splitlines()
    code, out, err = kadmin(capsys, *args, "--dry-run", "--output", "json")
    [change] = [c for c in json.loads(out)["throttle_changes"] if c["resource"] == "3" and c["name"] == RATE]
    assert change["before"] is None

    code, out, err = kadmin(capsys, *args, "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 0, err
    lines = err.splitlines()
    assert f"  done    broker 3 {RATE}: (not set) -> 20000000 (20.0 MB/s)" in lines
    assert f"  done    broker 3 {RATE}: 20000000 -> (deleted)" in lines  # removed after the last step
