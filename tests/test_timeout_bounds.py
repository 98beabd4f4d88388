"""--timeout's bounds where they bite: the client libraries, and the command line.

kadmin accepts a --timeout from 1ms to 1h (``kadmin.config.MAX_TIMEOUT``): every request may wait
the whole of it, and librdkafka refuses an admin request_timeout over an hour. Within those
bounds each client must be created and answer; outside them the command ends at once, exit 2,
one line, before anything is sent.
"""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys

import pytest

from kadmin.backends.admin import AdminBackend
from kadmin.backends.admin_clients import AdminClients
from kadmin.config import MAX_TIMEOUT, ConnectionSettings
from kadmin.errors import EXIT_USAGE

QUIET = logging.getLogger("tests.librdkafka")  # librdkafka's connection errors, not on stderr
NOWHERE = "127.0.0.1:9"  # discard: nothing listens; creating a client sends nothing


def test_librdkafka_takes_a_request_timeout_of_max_timeout_and_no_more():
    """The premise of MAX_TIMEOUT, checked against the installed confluent-kafka."""
    from confluent_kafka.admin import AdminClient, ConfigResource

    client = AdminClient({"bootstrap.servers": NOWHERE, "logger": QUIET})
    client.describe_configs([ConfigResource("broker", "0")], request_timeout=MAX_TIMEOUT)
    with pytest.raises(ValueError, match=r"0\.\.3600000"):
        client.describe_configs([ConfigResource("broker", "0")], request_timeout=MAX_TIMEOUT + 0.001)


@pytest.mark.parametrize("seconds", [0.001, 0.009, 300.001, 600.0, MAX_TIMEOUT])
def test_the_confluent_client_is_created_for_any_timeout_kadmin_accepts(seconds):
    # socket.timeout.ms was the whole --timeout: librdkafka refuses it outside 10..300000 ms, so
    # `--timeout 10m` ended in "unexpected KafkaException: ... outside allowed range".
    clients = AdminClients(ConnectionSettings(bootstrap_servers=NOWHERE, timeout=seconds))
    try:
        assert clients._confluent() is not None
        assert 10 <= clients.socket_timeout_ms() <= 300_000
    finally:
        clients.close()


def test_a_timeout_of_ten_minutes_reads_the_cluster_through_librdkafka(sandbox):
    with AdminBackend(ConnectionSettings(bootstrap_servers=sandbox.bootstrap, timeout=600.0)) as backend:
        backend._wire_off = True  # through the library clients, as with security configured
        assert set(backend.describe_cluster().brokers) == {0, 1, 2}


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
