"""A standalone Spark cluster (one master, one worker) on 127.0.0.1, started from the pyspark
installation's own jars, for tests: ``with StandaloneSpark(tmp) as url: ...``."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def _scala_version(home: Path) -> str:
    """The worker's launcher needs it to build executor command lines (from spark-core_2.XX)."""
    for jar in (home / "jars").glob("spark-core_*.jar"):
        return jar.name.split("_")[1].split("-")[0]
    return "2.13"


# Short-lived test JVMs spend much of their start on JIT compilation; on a 2-core CI machine
# C1 only and the serial collector bring master, worker and executor up sooner (measured: the
# standalone test ~36-45 s -> ~26 s). Also passed to the executor (and driver) by the test.
JVM_OPTS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")


class StandaloneSpark:
    def __init__(self, workdir: Path, cores: int = 2, memory: str = "1g"):
        self.workdir = Path(workdir)
        self.cores, self.memory = cores, memory
        self.port, self.ui = free_port(), free_port()
        self.procs: list[subprocess.Popen] = []

    @property
    def url(self) -> str:
        return f"spark://127.0.0.1:{self.port}"

    def _start(self, name: str, main: str, *args: str) -> None:
        home = spark_home()
        env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", SPARK_HOME=str(home), PYSPARK_PYTHON=sys.executable,
                   SPARK_NO_DAEMONIZE="1", SPARK_SCALA_VERSION=_scala_version(home))
        log = open(self.workdir / f"{name}.log", "wb")
        cmd = [shutil.which("java"), "-Xmx256m", *JVM_OPTS, "-cp", f"{home}/jars/*", main, *args]
        self.procs.append(subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=self.workdir))

    def _alive_workers(self) -> int:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.ui}/json/", timeout=1) as r:
                return int(json.load(r).get("aliveworkers", 0))
        except (OSError, ValueError):
            return 0

    def __enter__(self) -> "StandaloneSpark":
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._start("master", "org.apache.spark.deploy.master.Master",
                    "--host", "127.0.0.1", "--port", str(self.port), "--webui-port", str(self.ui))
        self._start("worker", "org.apache.spark.deploy.worker.Worker",
                    "--host", "127.0.0.1", "--port", str(free_port()), "--webui-port", str(free_port()),
                    "--cores", str(self.cores), "--memory", self.memory, "--work-dir", str(self.workdir / "work"),
                    self.url)
        deadline = time.monotonic() + 90
        while self._alive_workers() < 1:
            if time.monotonic() > deadline or any(p.poll() is not None for p in self.procs):
                logs = "\n".join((self.workdir / f"{n}.log").read_text(errors="replace")[-2000:] for n in ("master", "worker"))
                self.__exit__(None, None, None)
                raise RuntimeError(f"standalone Spark did not come up:\n{logs}")
            time.sleep(0.2)
        return self

    def __exit__(self, *exc) -> None:
        for p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs.clear()
