"""``kadmin sandbox`` refusing what it cannot run, and surviving what it can: one clear line and
exit 2 for bad input, never a hung or half-started sandbox."""

from __future__ import annotations

import math

import pytest

from tests.sandbox.test_cli import run, state_dir  # noqa: F401  (fixture)


@pytest.mark.parametrize("speed", ["inf", "nan", "1e400", "-nan"])
def test_a_speed_that_is_not_a_finite_number_is_refused(state_dir, speed):  # noqa: F811
    result = run(
        "sandbox", "start", "--detach", "--brokers", "1", "--no-demo", "--speed", speed, "--state-dir", str(state_dir)
    )
    assert result.returncode == 2, result.stderr
    assert f"Invalid value for '--speed': '{speed}' is not a finite number." in result.stderr
    assert not (state_dir / "sandbox.json").exists()


@pytest.mark.parametrize("speed", [math.inf, math.nan, 0.0])
def test_the_library_refuses_a_speed_that_is_not_positive_and_finite(speed):
    from kadmin.errors import UsageError
    from kadmin.sandbox import Sandbox

    with pytest.raises(UsageError, match="--speed must be a positive finite number"):
        Sandbox(speed=speed)


def test_a_speed_faster_than_the_cpu_slows_the_simulation_instead_of_starving_the_brokers(sandbox_factory):
    """Each tick simulates (real seconds since the last) x speed in 0.25 s substeps: at 1e300 a
    tick never ended, and the loop serving the brokers and the control socket hung."""
    import time

    sb = sandbox_factory(brokers=1, log_dirs=1, speed=1e300)
    engine = sb._engine()
    deadline = time.monotonic() + 10
    while engine.cluster.now < 1.0:  # read across threads on purpose: a tick is under way
        assert time.monotonic() < deadline, "no tick ran"
        time.sleep(0.01)
    engine.call(lambda: None, timeout=5)  # the loop answers between ticks
    status = sb.status()
    assert math.isfinite(status["simulated_seconds"]) and status["speed"] == 1e300


INT64_MAX = 2**63 - 1


@pytest.mark.parametrize("option", ["--dir-capacity", "--bandwidth"])
@pytest.mark.parametrize("value", [str(2**63), "1" + "0" * 400])
def test_sizes_beyond_kafkas_int64_are_refused(state_dir, option, value):  # noqa: F811
    """--dir-capacity becomes DescribeLogDirs' TotalBytes (an int64): above it the sandbox started and
    then dropped every DescribeLogDirs connection; --bandwidth that large broke the start (exit 1)."""
    result = run(
        "sandbox", "start", "--detach", "--brokers", "1", "--no-demo", option, value, "--state-dir", str(state_dir)
    )
    assert result.returncode == 2, result.stderr
    assert f"Invalid value for '{option}': {value} is not in the range 1<=x<={INT64_MAX}." in result.stderr
    assert not (state_dir / "sandbox.json").exists()


def test_the_largest_int64_capacity_is_reported_by_describe_log_dirs(state_dir):  # noqa: F811
    import json

    started = run(
        "sandbox", "start", "--detach", "--brokers", "1", "--log-dirs", "1", "--no-demo",
        "--dir-capacity", str(INT64_MAX), "--bandwidth", str(INT64_MAX), "--state-dir", str(state_dir),
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    described = run(
        "log-dirs", "describe", "-o", "json", "--bootstrap-server", started.stdout.strip(), "--timeout", "10s"
    )
    assert described.returncode == 0, described.stderr
    assert str(INT64_MAX) in described.stdout and json.loads(described.stdout)


@pytest.mark.parametrize("kwargs", [{"dir_capacity": 2**63}, {"dir_capacity": 0}, {"bandwidth": 2**63}])
def test_the_library_refuses_sizes_beyond_kafkas_int64(kwargs):
    from kadmin.errors import UsageError
    from kadmin.sandbox import Sandbox

    with pytest.raises(UsageError, match=f"--{next(iter(kwargs)).replace('_', '-')} must be between 1 and {INT64_MAX}"):
        Sandbox(**kwargs)
