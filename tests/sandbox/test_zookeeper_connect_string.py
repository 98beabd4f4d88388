"""``sandbox start --zookeeper`` reads the connect string as kadmin's own --zookeeper does: one it
would refuse (a chroot ending in '/', an empty part, a host with spaces) is bad usage, exit 2,
before anything starts. A trailing '/' was accepted, and `sandbox status` then printed a connect
string kadmin refused; "bad zk string" waited out kazoo's retries."""

from __future__ import annotations

import pytest

from tests.sandbox.test_cli import run, state_dir  # noqa: F401  (fixture)


@pytest.mark.parametrize(
    "connect, why",
    [
        ("127.0.0.1:1/fresh-d/", "chroot '/fresh-d/' is not a ZooKeeper path"),
        ("127.0.0.1:1/a//b", "chroot '/a//b' is not a ZooKeeper path"),
        ("bad zk string", "'bad zk string' is not HOST[:PORT]: 'bad zk string' is not a host name"),
        ("127.0.0.1:99999", "'127.0.0.1:99999' is not HOST[:PORT]"),
        ("", "no HOST[:PORT] given"),
    ],
)
@pytest.mark.parametrize("detach", [["--detach"], []], ids=["detached", "foreground"])
def test_a_connect_string_kadmin_refuses_is_refused_before_anything_starts(state_dir, connect, why, detach):  # noqa: F811
    result = run(
        "sandbox", "start", *detach, "--brokers", "1", "--no-demo", "--zookeeper", connect,
        "--state-dir", str(state_dir), timeout=30,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"kadmin: error: --zookeeper: {why}"), result.stderr
    assert result.stderr.count("\n") == 1 and result.stdout == ""
    assert not state_dir.exists()  # nothing started, not even the state directory


@pytest.mark.zookeeper
def test_status_prints_the_connect_string_as_kadmin_reads_it(zk_connect, state_dir):  # noqa: F811
    """Spaces and empty entries left out, a chroot of '/' dropped: what status prints works as
    kadmin's --zookeeper."""
    host = zk_connect.split("/", 1)[0]
    started = run(
        "sandbox", "start", "--detach", "--brokers", "1", "--no-demo", "--kafka-version", "3.3",
        "--zookeeper", f" {host} ,{zk_connect[len(host):]}", "--state-dir", str(state_dir),
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    status = run("sandbox", "status", "--state-dir", str(state_dir))
    assert f"mode: zookeeper ({zk_connect})\n" in status.stdout, status.stdout
    listed = run("log-dirs", "describe", "--zookeeper", zk_connect, "--timeout", "20s")
    assert listed.returncode == 0, listed.stderr


def test_the_library_refuses_them_too():
    from kadmin.errors import UsageError
    from kadmin.sandbox import Sandbox

    with pytest.raises(UsageError, match="--zookeeper: chroot '/fresh-d/' is not a ZooKeeper path"):
        Sandbox(zookeeper="127.0.0.1:2181/fresh-d/")
    assert Sandbox(zookeeper=" 127.0.0.1:2181 ,/").zookeeper == "127.0.0.1:2181"
