"""The sandbox builds its API registry from kafka-python's message classes. It did so lazily, on
the first request each sandbox's thread answered: several sandboxes (a fleet's clusters) answering
at once, while the client imported kafka-python too, imported it from several threads at the same
time, and one met "partially initialized module 'kafka.protocol.api_message'" and dropped the
connection. Now the thread that starts a Sandbox imports it, and the registry is built under a lock."""

from __future__ import annotations

import subprocess
import sys
import textwrap

_SCRIPT = textwrap.dedent(
    """
    import socket, struct, sys, threading

    assert not any(m == "kafka" or m.startswith("kafka.") for m in sys.modules), "kafka imported already"
    from kadmin.sandbox import Sandbox

    def api_versions(port):
        # ApiVersions v0, by hand: this side imports nothing of kafka-python
        client_id = b"race"
        body = struct.pack(">hhih", 18, 0, 7, len(client_id)) + client_id
        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
            s.sendall(struct.pack(">i", len(body)) + body)
            head = s.recv(4, socket.MSG_WAITALL)
            if len(head) < 4:
                return "closed"
            (size,) = struct.unpack(">i", head)
            answer = s.recv(size, socket.MSG_WAITALL)
            correlation, error = struct.unpack_from(">ih", answer)
            return "ok" if (correlation, error) == (7, 0) else f"answer {correlation} {error}"

    def client_import(module):  # what kadmin's library clients import, from a thread of their own
        __import__(module)
        return "ok"

    sandboxes = [Sandbox(brokers=2, manual_clock=True).start() for _ in range(4)]
    calls = [(api_versions, p) for sb in sandboxes for p in sb.ports.values()]
    calls += [(client_import, "kafka.admin"), (client_import, "kafka.errors")]
    barrier = threading.Barrier(len(calls))
    results = {}

    def run(call, arg):
        barrier.wait()
        try:
            results[arg] = call(arg)
        except Exception as e:
            results[arg] = repr(e)

    threads = [threading.Thread(target=run, args=c) for c in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for sb in sandboxes:
        sb.stop()
    bad = {k: r for k, r in results.items() if r != "ok"}
    print(bad or "all answered")
    sys.exit(1 if bad else 0)
    """
)


def test_first_requests_to_several_sandboxes_at_once():
    for _ in range(3):  # a race (it lost nearly every run): each run a fresh interpreter
        run = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stdout + run.stderr[-3000:]
