"""The control socket: how ``kadmin sandbox status|stop|fault`` reach a running sandbox.

A Unix socket served on the sandbox's event loop: ``control.sock`` in the state directory, or,
when that path is too long for a Unix socket address, ``control.sock`` in a private temporary
directory (``/tmp/kadmin-sandbox-XXXXXXXX``, mode 0700) whose path ``sandbox.json`` records as
``control_socket``. One JSON line in (``{"op": ..., "args": {...}}``), one JSON line out
(``{"ok": true, "result": ...}`` or ``{"ok": false, "error": "...", "kind": "NotFoundError"}``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import tempfile
from pathlib import Path

from kadmin import errors

SOCKET_NAME = "control.sock"
STATE_FILE = "sandbox.json"
PRIVATE_PREFIX = "kadmin-sandbox-"
# A Unix socket's path must fit sockaddr_un.sun_path with its NUL: 108 bytes on Linux, 104 on
# macOS and the BSDs. Longer paths go to a private temporary directory.
SOCKET_PATH_MAX = 100


def fits(path: Path) -> bool:
    return len(os.fsencode(str(path))) <= SOCKET_PATH_MAX


def socket_path(state_dir: Path) -> Path:
    """The control socket of the sandbox in ``state_dir``: the one ``sandbox.json`` records, else
    ``control.sock`` in the state directory (sandboxes of kadmin versions before the record)."""
    try:
        recorded = json.loads((Path(state_dir) / STATE_FILE).read_text()).get("control_socket")
    except (OSError, ValueError, AttributeError):
        recorded = None
    return Path(recorded) if isinstance(recorded, str) and recorded else Path(state_dir) / SOCKET_NAME


def private_socket(path: Path) -> bool:
    """Whether ``path`` is a control socket in a private directory of ours (safe to remove)."""
    return path.name == SOCKET_NAME and path.parent.name.startswith(PRIVATE_PREFIX)


def remove_private(path: Path) -> None:
    """Remove a control socket left in a private directory, and the directory."""
    if private_socket(path):
        path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            path.parent.rmdir()


def _private_dir() -> Path:
    base = tempfile.gettempdir()
    if not fits(Path(base) / (PRIVATE_PREFIX + "XXXXXXXX") / SOCKET_NAME):
        base = "/tmp"
    return Path(tempfile.mkdtemp(prefix=PRIVATE_PREFIX, dir=base))


FAULTS = {
    "broker-stop": ("broker_stop", ("broker",)),
    "broker-start": ("broker_start", ("broker",)),
    "dir-offline": ("dir_offline", ("broker", "path")),
    "dir-online": ("dir_online", ("broker", "path")),
    "dir-cordon": ("dir_cordon", ("broker", "path")),
    "dir-uncordon": ("dir_cordon", ("broker", "path")),
    "slow": ("slow", ("broker", "millis")),
    "latency": ("latency", ("broker", "millis")),
    "drop-connections": ("drop_connections", ("broker",)),
}


class ControlServer:
    def __init__(self, sandbox, state_dir: Path, on_stop):
        self.sandbox = sandbox
        self.path = Path(state_dir).absolute() / SOCKET_NAME  # where it is once started (see start)
        self.on_stop = on_stop
        self.server: asyncio.Server | None = None

    async def start(self) -> None:
        if self.path.exists():
            self.path.unlink()
        if not fits(self.path):
            self.path = _private_dir() / SOCKET_NAME
        self.server = await asyncio.start_unix_server(self._serve, path=str(self.path))
        os.chmod(self.path, 0o600)

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        if self.path.exists():
            self.path.unlink()
        remove_private(self.path)

    async def _serve(self, reader, writer) -> None:
        try:
            line = await reader.readline()
            request = json.loads(line or b"{}")
            loop = asyncio.get_running_loop()
            try:
                # Faults block on the loop; run them on a worker thread.
                result = await loop.run_in_executor(None, self._dispatch, request)
                reply = {"ok": True, "result": result}
            except errors.KadminError as e:
                reply = {"ok": False, "error": e.message, "kind": type(e).__name__}
            writer.write((json.dumps(reply) + "\n").encode())
            await writer.drain()
        finally:
            writer.close()

    def _dispatch(self, request: dict):
        op, args = request.get("op"), request.get("args") or {}
        if op == "status":
            return self.sandbox.status()
        if op == "stop":
            self.on_stop()
            return None
        if op == "fault":
            name = args.get("fault")
            if name not in FAULTS:
                raise errors.UsageError(f"unknown fault {name!r} (known: {', '.join(FAULTS)})")
            method, params = FAULTS[name]
            values = [args[p] for p in params]
            if name == "dir-uncordon":
                values.append(False)
            getattr(self.sandbox.faults, method)(*values)
            return None
        raise errors.UsageError(f"unknown control operation {op!r}")


def request(state_dir: Path, op: str, timeout: float = 30.0, **args):
    """Send one control request to the sandbox running in ``state_dir``; its result."""
    path = socket_path(state_dir)
    if not path.exists():
        raise errors.NotFoundError(
            f"no sandbox is running in {state_dir}", hint="start one with `kadmin sandbox start --detach`"
        )
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(str(path))
            s.sendall((json.dumps({"op": op, "args": args}) + "\n").encode())
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
    except (ConnectionRefusedError, FileNotFoundError):
        raise errors.NotFoundError(f"no sandbox is running in {state_dir} (stale control socket)") from None
    except OSError as e:
        raise errors.ConnectionFailed(f"cannot reach the sandbox in {state_dir}: {e}") from None
    if not data:
        if op == "stop":
            return None
        raise errors.ConnectionFailed(f"the sandbox in {state_dir} closed the control connection")
    reply = json.loads(data)
    if not reply.get("ok"):
        kind = getattr(errors, reply.get("kind", ""), errors.KadminError)
        if not (isinstance(kind, type) and issubclass(kind, errors.KadminError)):
            kind = errors.KadminError
        raise kind(reply.get("error", "the sandbox refused the request"))
    return reply.get("result")
