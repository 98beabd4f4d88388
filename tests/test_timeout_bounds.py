"""--timeout's bounds where they bite: the client libraries, and the command line.

kadmin accepts a --timeout from 1ms to 1h (``kadmin.config.MAX_TIMEOUT``): every request may wait
the whole of it, and librdkafka refuses an admin request_timeout over an hour. Within those
bounds each client must be created and answer; outside them the command ends at once, exit 2,
one line, before anything is sent.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest

from kadmin.errors import EXIT_USAGE


@pytest.fixture
def listener():
    """A port that accepts connections (the kernel does, without accept()) and says nothing:
    ``listener.contacted()`` tells whether anything connected."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    sock.setblocking(False)

    class Listener:
        address = f"127.0.0.1:{sock.getsockname()[1]}"

        @staticmethod
        def contacted() -> bool:
            try:
                sock.accept()[0].close()
            except BlockingIOError:
                return False
            return True

    yield Listener
    sock.close()


def kadmin(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """The real command, bounded: without the bounds some of these runs hung for hours."""
    import os

    return subprocess.run(
        [sys.executable, "-m", "kadmin", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def one_error_line(out: subprocess.CompletedProcess) -> str:
    assert out.returncode == EXIT_USAGE, out
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert out.stdout == ""
    return lines[0]


def test_a_timeout_too_long_ends_the_command_before_anything_is_sent(listener, tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [{"topic": "t", "partition": 0, "replicas": [1]}]}))
    runs = [
        (("reassign", "list", "-b", listener.address, "--timeout", "10000h"), {}, "--timeout: at most 1h "),
        (
            (
                "reassign",
                "execute",
                "-b",
                listener.address,
                "--reassignment-json-file",
                str(plan),
                "--dry-run",
                "--timeout",
                "99999999999h",
            ),
            {},
            "--timeout: at most 1h ",
        ),
        (("reassign", "list", "-b", listener.address, "--timeout", "61m"), {}, "--timeout: at most 60m "),
        (("reassign", "list", "-b", listener.address), {"KADMIN_TIMEOUT": "2h"}, "KADMIN_TIMEOUT: at most 1h "),
        (("reassign", "list", "-b", listener.address, "--timeout", "0.5ms"), {}, "--timeout: at least 1ms "),
        (
            ("reassign", "progress", "-b", listener.address, "--watch", "--interval", "1000000d"),
            {},
            "duration '1000000d' is too large: at most 24d",
        ),
    ]
    for args, env, said in runs:
        line = one_error_line(kadmin(*args, env=env))
        assert line.startswith("kadmin: error: " + said), line
        assert not listener.contacted(), args
