"""What every fuzzed run must show: an exit code from the documented set, one clear first line
on stderr (kadmin's "kadmin: error: ..." or Click's usage error), no traceback, no unexpected
exception, and, for the sandbox, no request that changes the cluster."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path

from click.testing import CliRunner, Result
from hypothesis import settings

import tests.fuzz.conftest  # noqa: F401  (registers the profiles, also outside pytest)
from kadmin.commands.root import cli

FUZZ = settings.get_profile(os.environ.get("KADMIN_FUZZ_PROFILE", "fuzz-ci"))
EXAMPLES: Counter = Counter()

# Never reach a profile or environment of the machine running the tests.
CLEAN_ENV = {name: None for name in ("KADMIN_BOOTSTRAP_SERVER", "KADMIN_ZOOKEEPER", "KADMIN_COMMAND_CONFIG",
                                     "KADMIN_CLUSTER", "KADMIN_TIMEOUT", "KADMIN_DEBUG", "KADMIN_OUTPUT")}
CLEAN_ENV["KADMIN_CONFIG"] = "/nonexistent/kadmin-fuzz/config.toml"
MAX_FIRST_LINE = 2000  # a first line longer than this is not "one clear line"


# Every fuzzed file goes under one directory per run, removed when the run ends (thousands of
# examples must not leave thousands of directories behind in /tmp).
_ROOT = Path(tempfile.mkdtemp(prefix="kadmin-fuzz-"))
atexit.register(shutil.rmtree, _ROOT, True)


def scratch_dir(prefix: str = "case-") -> Path:
    """A fresh directory for one fuzzed example."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=_ROOT))


def invoke(args: list[str], env: dict | None = None) -> Result:
    return CliRunner().invoke(cli, args, env={**CLEAN_ENV, **(env or {})}, catch_exceptions=True)


def error_lines(stderr: str) -> list[str]:
    """Lines as a terminal or ``grep`` sees them: split at line feeds only (str.splitlines also
    splits at \x1c-\x1e, \x85 and \u2028, which a quoted value may hold)."""
    lines = stderr.replace("\r\n", "\n").split("\n")
    return [line for line in lines if line and not line.startswith("kadmin: warning:")]


def check_outcome(result: Result, codes=(2,), what: str = "") -> None:
    """``result`` ended with one of ``codes``; a failure shows one clear message."""
    context = f"{what}\nexit {result.exit_code}\nstdout: {result.stdout[:2000]}\nstderr: {result.stderr[:2000]}"
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        raise AssertionError("uncaught exception\n" + "".join(traceback.format_exception(*result.exc_info)) + context)
    assert "Traceback" not in result.stdout + result.stderr, context
    assert "run with --debug for the traceback" not in result.stderr, "unexpected exception: " + context
    assert result.exit_code in codes, context
    if result.exit_code != 0:
        lines = error_lines(result.stderr)
        assert lines, "no message: " + context
        first = lines[0]
        # one line (Click's usage errors too), or a group's help for missing words
        group_help = first.startswith("Usage: ") and any(line.startswith("Commands:") for line in lines)
        assert first.startswith("kadmin: error: ") or group_help, context
        assert len(first) <= MAX_FIRST_LINE, "first line too long: " + context
        if first.startswith("kadmin: error: "):  # then only the problems, one line each
            assert all(line.startswith("  - ") for line in lines[1:]), "not one line: " + context


def check_unchanged(sandbox, what: str = "") -> None:
    changes = sandbox.mutating_requests()
    assert changes == [], f"the cluster saw changes {changes}: {what}"
