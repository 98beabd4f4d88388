"""A real Ctrl-C (SIGINT to a kadmin process) part way through `throttle clear` on the sandbox,
every broker 400 ms away: what was removed is printed, the request in flight is UNKNOWN, the
run exits 130 saying to run it again, and running it again removes the rest."""

import signal
import subprocess
import sys
import time
from pathlib import Path

from kadmin.model import ConfigResource, ConfigResourceType
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

KADMIN = str(Path(sys.executable).parent / "kadmin")
LEADER = "leader.replication.throttled.rate"
BROKERS = range(6)


def _kadmin(sb, *args):
    return subprocess.run([KADMIN, *args, "--bootstrap-server", sb.bootstrap], capture_output=True, text=True,
                          timeout=120)


def _rated(sb) -> set[int]:
    """The brokers that still have a leader rate set (read directly, not through kadmin's records)."""
    from kadmin.backends.admin import AdminBackend
    from kadmin.config import ConnectionSettings

    resources = [ConfigResource(ConfigResourceType.BROKER, str(b)) for b in BROKERS]
    with AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=20)) as be:
        configs = be.describe_configs(resources, keys=[LEADER])
    return {int(r.name) for r, cfg in configs.items() if LEADER in cfg}


def test_sigint_during_throttle_clear_prints_what_was_removed(sandbox_factory):  # noqa: F811
    sb = sandbox_factory(brokers=len(BROKERS))
    done = _kadmin(sb, "throttle", "set", "--rate", "3MB/s", "--brokers", ",".join(map(str, BROKERS)))
    assert done.returncode == 0, done.stderr
    assert _rated(sb) == set(BROKERS)
    for b in BROKERS:
        sb.faults.latency(b, 400)
    p = subprocess.Popen(
        [KADMIN, "throttle", "clear", "--all", "--yes", "--bootstrap-server", sb.bootstrap],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while _rated(sb) == set(BROKERS):  # until the first removal is made
        assert p.poll() is None and time.monotonic() < deadline, p.communicate()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    for b in BROKERS:
        sb.faults.latency(b, 0)
    assert p.returncode == 130, (out, err)
    gone = set(BROKERS) - _rated(sb)
    removed = {int(line.split()[1]) for line in out.splitlines() if line.startswith("  broker ") and LEADER in line}
    unknown = {int(line.split()[2]) for line in out.splitlines() if line.startswith("  UNKNOWN broker ")}
    assert out.startswith("Removed:\n"), out
    assert removed and removed <= gone <= removed | unknown, (out, gone)
    line = err.strip().splitlines()[-1]
    assert line.startswith("kadmin: interrupted: ") and "run the same `kadmin throttle clear` again" in line, err
    again = _kadmin(sb, "throttle", "clear", "--all", "--yes")
    assert again.returncode == 0, again.stderr
    assert _rated(sb) == set()
