"""Running the sandbox as a process: the state directory, foreground runs that end cleanly on
Ctrl-C or ``kadmin sandbox stop``, and detached runs that return once every broker answers.

State directory: ``sandbox.json`` (pid, bootstrap, ports, mode, where the control socket is),
``control.sock`` (unless the state directory's path is too long for one: see ``control``) and
``sandbox.log`` (the detached process's output). Start and stop accept the same directories:
missing, empty, or holding only these files (a previous sandbox's); one holding other files is
refused by both (a mistyped --state-dir), before anything there is touched. Stop, status and
fault refuse a missing --state-dir too; every command a message suggests names the --state-dir.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from kadmin import errors
from kadmin.sandbox import control

STATE_FILE = control.STATE_FILE
LOG_FILE = "sandbox.log"
# A clean stop, as on Ctrl-C: SIGTERM, and SIGHUP (the terminal closed, or a supervisor's stop).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def default_state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "kadmin" / "sandbox"


def state_dir_flag(state_dir: Path) -> str:
    """What a suggested command adds to reach the sandbox in ``state_dir``: `` --state-dir DIR``,
    as the user gave it, or nothing for the default directory."""
    return "" if _is_default(state_dir) else f" --state-dir {shlex.quote(str(state_dir))}"


def _is_default(state_dir: Path) -> bool:
    return os.path.abspath(state_dir) == os.path.abspath(default_state_dir())


def make_state_dir(state_dir: Path) -> Path:
    """Create ``state_dir`` (and its parents); one that cannot be is bad input, not a bug."""
    state_dir = Path(state_dir)
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        if not os.access(state_dir, os.W_OK | os.X_OK):
            raise PermissionError(13, os.strerror(13))
    except OSError as e:
        why = e.strerror or type(e).__name__
        if isinstance(e, (FileExistsError, NotADirectoryError)):
            why = "it or a parent is a file, not a directory"
        raise errors.UsageError(f"cannot use {state_dir} as the sandbox's state directory: {why}") from None
    return state_dir


def read_state(state_dir: Path) -> dict | None:
    try:
        return json.loads((Path(state_dir) / STATE_FILE).read_text())
    except (OSError, ValueError):
        return None


def running(state_dir: Path) -> dict | None:
    """The status of the sandbox running in ``state_dir``, or None."""
    try:
        return control.request(state_dir, "status", timeout=5)
    except errors.KadminError:
        return None


def request(state_dir: Path, op: str, **args):
    """``control.request`` for status and fault. No sandbox answering there: a directory that is
    missing or holds other files is refused as stop refuses it (a mistyped --state-dir, exit 2);
    one that is a sandbox's, with none running, is ConnectionFailed (exit 1), naming how to
    start one there."""
    try:
        return control.request(state_dir, op, **args)
    except errors.NotFoundError:
        if op != "status" and running(state_dir) is not None:
            raise  # the running sandbox's own answer (a fault naming no broker of it)
    _require_sandbox_dir(Path(state_dir))
    raise errors.ConnectionFailed(
        f"no sandbox is running in {state_dir}",
        hint=f"start one with `kadmin sandbox start --detach{state_dir_flag(state_dir)}`",
    )


def _refuse_if_running(state_dir: Path) -> None:
    status = running(state_dir)
    if status is not None:
        raise errors.UsageError(
            f"a sandbox is already running in {state_dir} ({status['bootstrap']})",
            hint=f"stop it with `kadmin sandbox stop{state_dir_flag(state_dir)}`, or pass another --state-dir",
        )


def run_foreground(sandbox, state_dir: Path, *, demo: bool, on_ready: Callable[[str], None]) -> None:
    """Start, announce, serve until Ctrl-C, SIGTERM, SIGHUP or a control "stop"; always clean up."""
    state_dir = make_state_dir(state_dir)
    _refuse_if_running(state_dir)
    _refuse_other_files(state_dir)
    _discard_stale(state_dir)
    stop = threading.Event()
    previous = (
        {sig: signal.signal(sig, lambda *_: stop.set()) for sig in STOP_SIGNALS}
        if threading.current_thread() is threading.main_thread()
        else {}
    )
    server = None
    try:
        sandbox.start()
        if demo:
            sandbox.populate_demo()
        # Ready means ready: in ZooKeeper mode the demo's topics are written asynchronously, and a
        # script running a --zookeeper command right after start must find every one of them.
        sandbox.settle()
        server = control.ControlServer(sandbox, state_dir, stop.set)
        sandbox.engine.run(server.start())
        state = {
            "pid": os.getpid(),
            "bootstrap": sandbox.bootstrap,
            "ports": sandbox.ports,
            "mode": sandbox.mode,
            "zookeeper": sandbox.zookeeper,
            "control_socket": str(server.path),
            "demo_kept": list(getattr(sandbox, "demo_kept", [])),  # for the note of a detached start
        }
        tmp = state_dir / (STATE_FILE + ".tmp")
        tmp.write_text(json.dumps(state))
        tmp.replace(state_dir / STATE_FILE)
        on_ready(sandbox.bootstrap)
        while not stop.wait(0.2):
            pass
    except KeyboardInterrupt:  # Ctrl-C at any point is a clean stop
        pass
    finally:
        if server is not None and sandbox.engine is not None:
            sandbox.engine.run(server.close())
        (state_dir / STATE_FILE).unlink(missing_ok=True)
        sandbox.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _discard_stale(state_dir: Path) -> None:
    """What a sandbox killed outright left behind: its state, and a private socket directory."""
    state = read_state(state_dir) or {}
    if isinstance(state.get("control_socket"), str):
        control.remove_private(Path(state["control_socket"]))
    (state_dir / STATE_FILE).unlink(missing_ok=True)


def start_detached(argv: list[str], state_dir: Path, timeout: float = 60.0) -> dict:
    """Run ``python -m kadmin.sandbox ARGV`` in its own session; return its state once every
    broker accepts connections. A failed start raises the child's own error line."""
    state_dir = make_state_dir(state_dir)
    _refuse_if_running(state_dir)
    _refuse_other_files(state_dir)  # before its sandbox.log is truncated or its sandbox.json removed
    _discard_stale(state_dir)
    log_path = state_dir / LOG_FILE
    try:
        log = open(log_path, "wb")  # noqa: SIM115  (closed by the with below, once Popen has it)
    except OSError as e:
        raise errors.UsageError(f"cannot write the sandbox's log {log_path}: {e.strerror or e}") from None
    with log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kadmin.sandbox", *argv, "--state-dir", str(state_dir)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
        )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        code = proc.poll()
        if code is not None:
            raise _child_error(log_path, code)
        state = read_state(state_dir)
        if state and state.get("pid") == proc.pid and all(_answers(p) for p in state["ports"].values()):
            return state
        time.sleep(0.05)
    proc.kill()
    raise errors.ClusterError(f"the sandbox did not start within {timeout:.0f}s (log: {log_path})")


SANDBOX_FILES = {STATE_FILE, STATE_FILE + ".tmp", control.SOCKET_NAME, LOG_FILE}


def stop(state_dir: Path, timeout: float = 30.0) -> bool:
    """Stop the sandbox running in ``state_dir``: True once it has stopped, False when none was
    running (stopping twice is fine; what a killed one left is removed). A directory that is
    missing or holds other files is not a sandbox's (a mistyped --state-dir): NotFoundError."""
    state_dir = Path(state_dir)
    _require_sandbox_dir(state_dir)
    state = read_state(state_dir)
    path = control.socket_path(state_dir)
    try:
        control.request(state_dir, "stop")
    except errors.NotFoundError:  # no control socket, or nobody listening on it
        _discard_stale(state_dir)
        (state_dir / control.SOCKET_NAME).unlink(missing_ok=True)
        return False
    deadline = time.monotonic() + timeout
    pid = state.get("pid") if state else None
    while time.monotonic() < deadline:
        if not path.exists() and (pid is None or not _alive(pid)):
            return True
        time.sleep(0.05)
    raise errors.ClusterError(f"the sandbox in {state_dir} did not stop within {timeout:.0f}s")


def _require_sandbox_dir(state_dir: Path) -> None:
    """Refuse a --state-dir that is missing or holds other files. The default directory, missing
    until a first start creates it, is one where no sandbox runs: nothing was mistyped."""
    if _is_default(state_dir) and not state_dir.exists():
        return
    try:
        names = {p.name for p in state_dir.iterdir()}
    except OSError:
        raise errors.NotFoundError(
            f"no sandbox state in {state_dir}: the directory does not exist (is --state-dir mistyped?)"
        ) from None
    if names - SANDBOX_FILES:
        raise errors.NotFoundError(
            f"{state_dir} is not a sandbox's state directory: it holds other files (is --state-dir mistyped?)"
        )


def _refuse_other_files(state_dir: Path) -> None:
    """Start uses only the directories stop accepts: empty, new, or a previous sandbox's. In one
    holding other files (a mistyped --state-dir) stop would refuse the sandbox started there."""
    try:
        others = sorted({p.name for p in state_dir.iterdir()} - SANDBOX_FILES)
    except OSError as e:
        raise errors.UsageError(
            f"cannot use {state_dir} as the sandbox's state directory: {e.strerror or type(e).__name__}"
        ) from None
    if others:
        shown = ", ".join(repr(name) for name in others[:3]) + (
            f" and {len(others) - 3} more" if len(others) > 3 else ""
        )
        raise errors.UsageError(
            f"{state_dir} is not a sandbox's state directory: it holds other files ({shown}); nothing was started "
            "(is --state-dir mistyped? give an empty or new directory)"
        )


def _answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", int(port)), timeout=1).close()
        return True
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie counts as gone: a child of ours is reaped here; another process's (a sandbox in
    # the foreground, started by a script that has not waited for it yet) is seen in /proc.
    try:
        return os.waitpid(pid, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """Whether ``pid`` has exited and waits for its parent to reap it (Linux's /proc; False
    where there is none)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] == ["Z"]  # the state follows the command's name


def _child_error(log_path: Path, code: int) -> errors.KadminError:
    lines = [line for line in log_path.read_text(errors="replace").splitlines() if line.strip()]
    message = next((line for line in reversed(lines) if line.startswith("kadmin: error: ")), None)
    message = message[len("kadmin: error: ") :] if message else (lines[-1] if lines else f"exit code {code}")
    err = errors.UsageError(message) if code == errors.EXIT_USAGE else errors.ClusterError(message)
    return err
