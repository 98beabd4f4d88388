"""What status, fault, stop and start say about a state directory. Every command they suggest
carries the --state-dir the user gave (it named the default directory: `kadmin sandbox stop`
would stop another sandbox); a directory that does not exist is a mistyped --state-dir for
status and fault as for stop (exit 2), and an existing one where no sandbox runs is exit 1,
not "bad input"."""

from __future__ import annotations

import subprocess

import pytest

from tests.sandbox.test_cli import KADMIN, run

COMMANDS = {
    "status": ["sandbox", "status"],
    "fault": ["sandbox", "fault", "broker-stop", "0"],
    "stop": ["sandbox", "stop"],
}


@pytest.fixture
def started(tmp_path):
    d = tmp_path / "sbA"
    result = run("sandbox", "start", "--detach", "--brokers", "1", "--no-demo", "--state-dir", str(d))
    assert result.returncode == 0, result.stderr
    yield d
    run("sandbox", "stop", "--state-dir", str(d))


def test_every_suggested_command_names_the_state_dir(started):
    d = started
    again = run("sandbox", "start", "--detach", "--brokers", "1", "--no-demo", "--state-dir", str(d))
    assert again.returncode == 2
    assert f"(stop it with `kadmin sandbox stop --state-dir {d}`, or pass another --state-dir)" in again.stderr
    assert run("sandbox", "stop", "--state-dir", str(d)).returncode == 0
    for name in ("status", "fault"):
        result = run(*COMMANDS[name], "--state-dir", str(d))
        assert (result.returncode, result.stderr) == (
            1,
            f"kadmin: error: no sandbox is running in {d} (start one with `kadmin sandbox start --detach "
            f"--state-dir {d}`)\n",
        ), name


def test_a_running_sandboxs_own_refusal_is_kept(started):
    bad = run("sandbox", "fault", "broker-stop", "9", "--state-dir", str(started))
    assert (bad.returncode, bad.stderr) == (2, "kadmin: error: no broker 9 in the sandbox (brokers: 0)\n")


@pytest.mark.parametrize("name", COMMANDS)
def test_a_missing_state_dir_is_a_mistyped_one_for_every_command(tmp_path, name):
    missing = tmp_path / "nosuch"
    result = run(*COMMANDS[name], "--state-dir", str(missing))
    assert (result.returncode, result.stderr) == (
        2,
        f"kadmin: error: no sandbox state in {missing}: the directory does not exist (is --state-dir mistyped?)\n",
    )
    assert not missing.exists()


@pytest.mark.parametrize("name", ["status", "fault"])
def test_a_state_dir_holding_other_files_is_refused_as_stop_refuses_it(tmp_path, name):
    (tmp_path / "notes.txt").write_text("")
    result = run(*COMMANDS[name], "--state-dir", str(tmp_path))
    assert (result.returncode, result.stderr) == (
        2,
        f"kadmin: error: {tmp_path} is not a sandbox's state directory: it holds other files "
        "(is --state-dir mistyped?)\n",
    )


def test_the_default_state_dir_before_any_start_is_no_sandbox_running(own_state_home):
    default = own_state_home / "kadmin" / "sandbox"
    assert not default.exists()
    hint = "(start one with `kadmin sandbox start --detach`)"
    for name in ("status", "fault"):
        result = run(*COMMANDS[name])
        assert (result.returncode, result.stderr) == (1, f"kadmin: error: no sandbox is running in {default} {hint}\n")
    stopped = run(*COMMANDS["stop"])
    assert (stopped.returncode, stopped.stderr) == (0, f"kadmin: no sandbox running in {default}\n")


def test_a_foreground_sandbox_says_how_to_stop_it_in_its_state_dir(tmp_path):
    d = tmp_path / "fg"
    proc = subprocess.Popen(
        [*KADMIN, "sandbox", "start", "--brokers", "1", "--no-demo", "--state-dir", str(d)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().startswith("127.0.0.1:")
        ready = proc.stderr.readline()
        assert ready.endswith(f"Ctrl-C or `kadmin sandbox stop --state-dir {d}` ends it\n"), ready
    finally:
        # Stopped before this test reaps it (a zombie until then): stop sees it gone at once.
        stopped = run("sandbox", "stop", "--state-dir", str(d))
        proc.communicate(timeout=30)
    assert stopped.returncode == 0 and "sandbox stopped" in stopped.stderr, stopped.stderr
