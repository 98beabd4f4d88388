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
