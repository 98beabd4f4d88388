"""The dir-cordon fault exists where the emulated Kafka has cordoned log directories (KIP-1066:
``cordoned.log.dirs`` and DescribeLogDirs v5's IsCordoned, Kafka 4.3) and is refused elsewhere:
on an older Kafka nothing could cordon a directory, nor show one cordoned, so a sandbox that
accepted it would keep placing nothing there while every client still saw it online."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kadmin.errors import UsageError

KADMIN = [sys.executable, "-m", "kadmin"]
D1 = "/var/lib/kafka/data1"
OLDER = [
    pytest.param("2.8", True, marks=pytest.mark.zookeeper, id="2.8-zookeeper"),
    pytest.param("3.3", False, id="3.3-kraft"),
    pytest.param("3.9", False, id="3.9-kraft"),
    pytest.param("3.9", True, marks=pytest.mark.zookeeper, id="3.9-zookeeper"),
]


def refusal(version: str) -> str:
    return f"Kafka has cordoned log directories only from 4.3 (KIP-1066); this sandbox emulates Kafka {version}"


def cordoned(sb) -> dict[tuple[int, str], bool]:
    return {(b["id"], d["path"]): d["cordoned"] for b in sb.status()["brokers"] for d in b["log_dirs"]}


@pytest.mark.parametrize(("version", "zk_mode"), OLDER)
def test_cordoning_is_refused_where_kafka_has_no_cordoned_log_dirs(sandbox_factory, request, version, zk_mode):
    zk = {"zookeeper": request.getfixturevalue("zk_connect")} if zk_mode else {}
    sb = sandbox_factory(kafka_version=version, brokers=1, manual_clock=True, **zk)
    for undo in (False, True):
        with pytest.raises(UsageError) as refused:
            sb.faults.dir_cordon(0, D1, cordoned=not undo)
        assert refused.value.message == refusal(version)
    assert not any(cordoned(sb).values())


def test_cordoning_works_on_kafka_4_3(sandbox_factory):
    sb = sandbox_factory(kafka_version="4.3", brokers=1, manual_clock=True)
    sb.faults.dir_cordon(0, D1)
    assert cordoned(sb)[(0, D1)] is True
    sb.faults.dir_cordon(0, D1, cordoned=False)
    assert cordoned(sb)[(0, D1)] is False


def run(*args):
    return subprocess.run([*KADMIN, *args], capture_output=True, text=True, timeout=60)


@pytest.fixture
def started(tmp_path):
    """started(version): a detached one-broker sandbox of that Kafka version; its state dir."""
    dirs = []

    def start(version):
        d = tmp_path / f"state-{version}"
        result = run("sandbox", "start", "--detach", "--brokers", "1", "--no-demo", "--kafka-version", version,
                     "--state-dir", str(d))
        dirs.append(d)
        assert result.returncode == 0, result.stderr
        return str(d)

    yield start
    for d in dirs:
        run("sandbox", "stop", "--state-dir", str(d))


def test_the_fault_command_refuses_cordoning_on_kafka_3_9_exit_2(started):
    state_dir = started("3.9")
    for undo in ((), ("--undo",)):
        result = run("sandbox", "fault", "--state-dir", state_dir, "dir-cordon", "0", D1, *undo)
        assert (result.returncode, result.stdout) == (2, "")
        assert result.stderr == f"kadmin: error: {refusal('3.9')}\n"
    assert "(cordoned)" not in run("sandbox", "status", "--state-dir", state_dir).stdout


def test_the_fault_command_cordons_and_uncordons_on_kafka_4_3(started):
    state_dir = started("4.3")
    cordon = run("sandbox", "fault", "--state-dir", state_dir, "dir-cordon", "0", D1)
    assert cordon.returncode == 0, cordon.stderr
    assert f"{D1} (cordoned)" in run("sandbox", "status", "--state-dir", state_dir).stdout
    undo = run("sandbox", "fault", "--state-dir", state_dir, "dir-cordon", "0", D1, "--undo")
    assert undo.returncode == 0, undo.stderr
    assert "(cordoned)" not in run("sandbox", "status", "--state-dir", state_dir).stdout
