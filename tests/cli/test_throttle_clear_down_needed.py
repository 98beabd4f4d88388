"""throttle clear over -b and a broker that is down in the middle of a log-dir move: the rate kadmin
recorded there counts as needed (the move resumes when the broker is back), so clear keeps it and
says so, exit 0; it is not a rate left behind (exit 1, "run this again once the broker is back")."""

from __future__ import annotations

import json

import pytest

from kadmin.model import LOG_DIR_RATE
from tests.support.cli import await_broker_gone, kadmin, write_plan
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

MB = 1_000_000


def admin(sb):
    from kadmin.backends.admin import AdminBackend
    from kadmin.config import ConnectionSettings

    return AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=10), read_only=False)


@pytest.mark.parametrize("how", [("--stale",), ("--all", "--yes"), ("--plan",)])
def test_clear_keeps_a_down_brokers_log_dir_rate_as_needed(sandbox_factory, tmp_path, capsys, how):  # noqa: F811
    sb = sandbox_factory(brokers=3, log_dirs=2, manual_clock=True)
    sb.create_topic("payments", assignment={0: [0, 1]}, size_bytes=50 * MB)
    current = sb.snapshot().replica_dir("payments", 0, 0)
    target = next(d for d in sb.log_dir_paths(0) if d != current)
    plan = write_plan(tmp_path, [{"topic": "payments", "partition": 0, "replicas": [0, 1], "log_dirs": [target, "any"]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan,
                            "--replica-alter-log-dirs-throttle", "1MB/s", "-b", sb.bootstrap,
                            "--rollback-file", str(tmp_path / "rb.json"))
    assert code == 0, err
    sb.faults.broker_stop(0)
    await_broker_gone(lambda: admin(sb), 0)

    args = ("--plan", plan) if how == ("--plan",) else how
    line = f"broker 0 {LOG_DIR_RATE} 1000000"
    for dry in (("--dry-run",), ()):
        code, out, err = kadmin(capsys, "throttle", "clear", *args, *dry, "-o", "json", "-b", sb.bootstrap)
        assert code == 0, (dry, out, err)
        doc = json.loads(out)
        assert doc["left_on_down_brokers"] == [], doc
        assert [k for k in doc["kept_needed"] if k.startswith(line)] == [
            f"{line} (broker 0 is down: a move between its log directories cannot be seen, and resumes when it is "
            "back)"
        ], doc
        assert "not everything was cleared" not in err


def test_clear_force_on_a_down_brokers_needed_rate_fails_and_dry_run_says_so(sandbox_factory, tmp_path, capsys):  # noqa: F811
    """--force would remove the rate, but the broker is down: the run exits 1 naming it, and its
    --dry-run exits 1 too (a dry run's exit code predicts the run's)."""
    sb = sandbox_factory(brokers=3, log_dirs=2, manual_clock=True)
    assert kadmin(capsys, "throttle", "set", "--log-dir-rate", "1MB/s", "--brokers", "0", "-b", sb.bootstrap)[0] == 0
    sb.faults.broker_stop(0)
    await_broker_gone(lambda: admin(sb), 0)

    code, out, err = kadmin(capsys, "throttle", "clear", "--all", "--force", "--dry-run", "-o", "json",
                            "-b", sb.bootstrap)
    assert code == 1, (out, err)
    assert json.loads(out)["left_on_down_brokers"] == [f"broker 0 {LOG_DIR_RATE} 1000000"]
    assert "nothing was changed (dry run); the run would not clear everything" in err and "broker 0" in err
    code, out, err = kadmin(capsys, "throttle", "clear", "--all", "--force", "--yes", "-b", sb.bootstrap)
    assert code == 1, (out, err)
    assert "not everything was cleared: broker 0 is down" in err
