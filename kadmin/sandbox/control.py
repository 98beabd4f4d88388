"""The control socket: how ``kadmin sandbox status|stop|fault`` reach a running sandbox.

A Unix socket in the state directory, served on the sandbox's event loop. One JSON line in
(``{"op": ..., "args": {...}}``), one JSON line out (``{"ok": true, "result": ...}`` or
``{"ok": false, "error": "...", "kind": "NotFoundError"}``).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
from pathlib import Path

from kadmin import errors

SOCKET_NAME = "control.sock"

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
        self.path = Path(state_dir) / SOCKET_NAME
        self.on_stop = on_stop
        self.server: asyncio.Server | None = None

    async def start(self) -> None:
        if self.path.exists():
            self.path.unlink()
        self.server = await asyncio.start_unix_server(self._serve, path=str(self.path))
        os.chmod(self.path, 0o600)

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        if self.path.exists():
            self.path.unlink()

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
    path = Path(state_dir) / SOCKET_NAME
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
