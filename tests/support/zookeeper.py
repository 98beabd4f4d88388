"""A real ZooKeeper server (Debian's ``zookeeper`` package) for tests, on a free loopback port.

Started with the jars under /usr/share/java and stopped afterwards; its data lives in a
temporary directory. Skips (with the reason) when Java or the jars are missing, so a
developer without them still runs the rest of the suite; CI installs both.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

JARS = Path("/usr/share/java")


def znode_json(connect: str, path: str):
    """The JSON a znode holds (None when it does not exist), read through a short-lived client."""
    import json

    from kazoo.client import KazooClient

    zk = KazooClient(hosts=connect)
    zk.start(timeout=15)
    try:
        return json.loads(zk.get(path)[0]) if zk.exists(path) else None
    finally:
        zk.stop()
        zk.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def available() -> str | None:
    """None when a server can be started here, else why not."""
    if shutil.which("java") is None:
        return "java not installed"
    if not (JARS / "zookeeper.jar").exists():
        return "Debian's zookeeper package is not installed (/usr/share/java/zookeeper.jar)"
    return None


def _ruok(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"ruok")
            return s.recv(4) == b"imok"
    except OSError:
        return False


class ZooKeeperServer:
    """``with ZooKeeperServer() as zk: zk.connect`` -> "127.0.0.1:PORT"."""

    def __init__(self, port: int | None = None, tls: dict[str, str] | None = None):
        """``tls``: also serve TLS on ``secure_port``, with PEM files: {"keystore": server key and
        certificate, "truststore": CA certificates, "client_auth": "none" | "need"}."""
        self.port = port or free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="kadmin-zk-"))
        self.proc: subprocess.Popen | None = None
        self.tls = tls
        self.secure_port = free_port() if tls else None

    @property
    def secure_connect(self) -> str:
        return f"127.0.0.1:{self.secure_port}"

    def _tls_config(self) -> list[str]:
        if not self.tls:
            return []
        return [f"secureClientPort={self.secure_port}",
                "serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory",
                f"ssl.keyStore.location={self.tls['keystore']}", "ssl.keyStore.type=PEM",
                f"ssl.trustStore.location={self.tls['truststore']}", "ssl.trustStore.type=PEM",
                f"ssl.clientAuth={self.tls.get('client_auth', 'none')}"]

    @property
    def connect(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> "ZooKeeperServer":
        cfg = self.dir / "zoo.cfg"
        cfg.write_text(
            "\n".join(
                [
                    "tickTime=500",
                    f"dataDir={self.dir / 'data'}",
                    f"clientPort={self.port}",
                    "clientPortAddress=127.0.0.1",
                    "maxClientCnxns=0",
                    "admin.enableServer=false",
                    "4lw.commands.whitelist=ruok,stat,mntr",
                    *self._tls_config(),
                    "",
                ]
            )
        )
        (self.dir / "log4j.properties").write_text(
            "log4j.rootLogger=WARN, F\nlog4j.appender.F=org.apache.log4j.FileAppender\n"
            f"log4j.appender.F.File={self.dir / 'zookeeper.log'}\n"
            "log4j.appender.F.layout=org.apache.log4j.PatternLayout\n"
            "log4j.appender.F.layout.ConversionPattern=%d %p %c: %m%n\n"
        )
        classpath = ":".join([str(self.dir), str(JARS / "zookeeper.jar"), str(JARS / "zookeeper-jute.jar")]
                             + [str(p) for p in sorted(JARS.glob("*.jar")) if p.name.startswith(("slf4j-api", "slf4j-log4j12", "log4j-1.2", "netty-", "metrics-core", "snappy-java", "commons-cli", "commons-io", "jline"))])
        env = dict(os.environ)
        self.proc = subprocess.Popen(
            ["java", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classpath,
             "-Dzookeeper.jmx.log4j.disable=true", f"-Dlog4j.configuration=file:{self.dir / 'log4j.properties'}",
             "org.apache.zookeeper.server.quorum.QuorumPeerMain", str(cfg)],
            stdout=open(self.dir / "stdout.log", "wb"), stderr=subprocess.STDOUT, env=env,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ZooKeeper exited with {self.proc.returncode}: {self.log_tail()}")
            if _ruok(self.port):
                return self
            time.sleep(0.1)  # polling a condition with a deadline, not a guess
        self.stop()
        raise RuntimeError(f"ZooKeeper did not answer on {self.connect} within {timeout}s: {self.log_tail()}")

    def log_tail(self) -> str:
        out = []
        for name in ("stdout.log", "zookeeper.log"):
            p = self.dir / name
            if p.exists():
                out.append(p.read_text(errors="replace")[-2000:])
        return "\n".join(out)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> "ZooKeeperServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
