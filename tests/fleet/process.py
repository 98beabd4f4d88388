"""A real ``kadmin`` process, for what only a process shows: what reaches its stderr from the
Spark driver JVM it starts."""

from __future__ import annotations

import os
import subprocess
import sys

# The one line of Spark's driver JVM that reaches stderr: Spark's launcher puts
# --add-modules=jdk.incubator.vector on every driver's command line (spark-launcher's
# JavaModuleOptions), and the JDK prints this when it starts, for any incubator module, with no
# option to turn it off. Only filtering the JVM's stderr would remove it (docs/fleet.md).
JDK_INCUBATOR_WARNING = "WARNING: Using incubator modules: jdk.incubator.vector"


def kadmin_process(*args: str, debug: bool = False, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``kadmin [--debug] ARGS`` run as a process; ``env`` adds to
    this process's environment (less KADMIN_DEBUG and a Log4j configuration of the caller's)."""
    environment = {k: v for k, v in os.environ.items() if k not in ("KADMIN_DEBUG", "LOG4J_CONFIGURATION_FILE")}
    environment.update(SPARK_LOCAL_IP="127.0.0.1", **(env or {}))
    argv = [sys.executable, "-m", "kadmin", *(["--debug"] if debug else []), *args]
    done = subprocess.run(argv, capture_output=True, text=True, env=environment, timeout=300)
    return done.returncode, done.stdout, done.stderr


def kadmin_lines(stderr: str) -> list[str]:
    """The lines of a ``--spark`` run's stderr but the JDK's incubator warning, its first line."""
    lines = stderr.splitlines()
    return lines[1:] if lines[:1] == [JDK_INCUBATOR_WARNING] else lines
