"""The sandbox's state directory as users give it: long paths, bad paths, stops of stopped
sandboxes, signals that end a foreground run."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest

from tests.sandbox.test_cli import KADMIN, run


@pytest.fixture
def long_state_dir(tmp_path):
    """A state directory whose control.sock path (>100 bytes) cannot be a Unix socket address."""
    d = tmp_path / ("d" * 60) / ("e" * 60)
    yield d
    if (d / "sandbox.json").exists():
        run("sandbox", "stop", "--state-dir", str(d))


def test_a_long_state_dir_keeps_its_control_socket_in_a_private_temporary_directory(long_state_dir):
    d = long_state_dir
    started = run("sandbox", "start", "--detach", "--brokers", "1", "--no-demo", "--state-dir", str(d))
    assert started.returncode == 0, started.stderr
    sock = Path(json.loads((d / "sandbox.json").read_text())["control_socket"])
    assert len(str(sock)) <= 100 and sock.name == "control.sock"
    assert stat.S_IMODE(sock.parent.stat().st_mode) == 0o700 and stat.S_ISSOCK(sock.stat().st_mode)
    status = run("sandbox", "status", "--bootstrap", "--state-dir", str(d))
    assert (status.returncode, status.stdout) == (0, started.stdout), status.stderr
    again = run("sandbox", "start", "--detach", "--state-dir", str(d))
    assert again.returncode == 2 and "already running" in again.stderr
    stopped = run("sandbox", "stop", "--state-dir", str(d))
    assert stopped.returncode == 0, stopped.stderr
    assert not sock.parent.exists() and not (d / "sandbox.json").exists()


@pytest.mark.parametrize("detach", [["--detach"], []], ids=["detached", "foreground"])
def test_a_state_dir_under_a_regular_file_is_one_clear_line(tmp_path, detach):
    (tmp_path / "file").write_text("")
    d = tmp_path / "file" / "state"
    result = run("sandbox", "start", *detach, "--brokers", "1", "--no-demo", "--state-dir", str(d))
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        f"kadmin: error: cannot use {d} as the sandbox's state directory: it or a parent is a file, not a directory\n"
    )


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_foreground_sandbox_stopped_by_a_signal_leaves_no_state_behind(tmp_path, sig):
    d = tmp_path / "state"
    proc = subprocess.Popen(
        [*KADMIN, "sandbox", "start", "--brokers", "1", "--no-demo", "--state-dir", str(d)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().startswith("127.0.0.1:")  # running, its state written
        assert (d / "sandbox.json").exists() and (d / "control.sock").exists()
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "sandbox stopped" in err and "Traceback" not in err
    assert list(d.iterdir()) == []


def test_stopping_a_stopped_sandbox_succeeds_and_clears_what_a_killed_one_left(tmp_path):
    d = tmp_path / "state"
    started = run("sandbox", "start", "--detach", "--brokers", "1", "--no-demo", "--state-dir", str(d))
    assert started.returncode == 0, started.stderr
    pid = json.loads((d / "sandbox.json").read_text())["pid"]
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while _alive(pid):
        assert time.monotonic() < deadline, "the killed sandbox is still there"
        time.sleep(0.01)
    assert (d / "sandbox.json").exists() and (d / "control.sock").exists()
    for _ in range(2):
        stopped = run("sandbox", "stop", "--state-dir", str(d))
        assert (stopped.returncode, stopped.stderr) == (0, f"kadmin: no sandbox running in {d}\n")
        assert sorted(p.name for p in d.iterdir()) == ["sandbox.log"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie (its parent has not reaped it yet) is gone
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_a_state_dir_that_is_missing_or_not_a_sandboxs_is_refused_by_stop(tmp_path):
    missing = run("sandbox", "stop", "--state-dir", str(tmp_path / "typo"))
    assert missing.returncode == 2
    assert missing.stderr == (
        f"kadmin: error: no sandbox state in {tmp_path / 'typo'}: the directory does not exist "
        "(is --state-dir mistyped?)\n"
    )
    (tmp_path / "notes.txt").write_text("")
    foreign = run("sandbox", "stop", "--state-dir", str(tmp_path))
    assert foreign.returncode == 2
    assert foreign.stderr == (
        f"kadmin: error: {tmp_path} is not a sandbox's state directory: it holds other files "
        "(is --state-dir mistyped?)\n"
    )


@pytest.mark.parametrize("detach", [["--detach"], []], ids=["detached", "foreground"])
def test_start_refuses_a_state_dir_that_stop_would_refuse(tmp_path, detach):
    """A sandbox started in a directory holding other files could not be stopped: stop refuses it
    (exit 2). Start refuses it first, touching nothing there (no sandbox.log truncated)."""
    d = tmp_path / "notsb"
    d.mkdir()
    (d / "important.txt").write_text("x\n")
    (d / "sandbox.log").write_text("someone else's log\n")
    (d / "sandbox.json").write_text('{"mine": true}')
    result = run("sandbox", "start", *detach, "--brokers", "1", "--no-demo", "--state-dir", str(d), timeout=30)
    try:
        assert result.returncode == 2, result.stderr
        assert result.stderr == (
            f"kadmin: error: {d} is not a sandbox's state directory: it holds other files ('important.txt'); "
            "nothing was started (is --state-dir mistyped? give an empty or new directory)\n"
        )
        assert (d / "sandbox.log").read_text() == "someone else's log\n"
        assert (d / "sandbox.json").read_text() == '{"mine": true}'
        assert sorted(p.name for p in d.iterdir()) == ["important.txt", "sandbox.json", "sandbox.log"]
    finally:
        if result.returncode == 0 or (d / "control.sock").exists():
            (d / "important.txt").unlink()
            run("sandbox", "stop", "--state-dir", str(d))


def test_start_accepts_a_previous_sandboxs_state_dir(tmp_path):
    d = tmp_path / "state"
    for _ in range(2):  # the second start finds the first one's sandbox.log
        started = run("sandbox", "start", "--detach", "--brokers", "1", "--no-demo", "--state-dir", str(d))
        assert started.returncode == 0, started.stderr
        stopped = run("sandbox", "stop", "--state-dir", str(d))
        assert stopped.returncode == 0, stopped.stderr
        assert sorted(p.name for p in d.iterdir()) == ["sandbox.log"]
