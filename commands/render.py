"""Rendering shared by every command: two consoles (data to stdout, diagnostics to stderr),
errors, and machine output. Commands build models; this module turns them into text."""

from __future__ import annotations

import sys
from collections.abc import Mapping

import click

from kadmin.errors import InputError, KadminError
from kadmin.model import DOWN_REASON, is_down_error

PROBLEMS_SHOWN = 50  # a malformed plan of millions of entries must not flood the terminal


def print_error(err: KadminError) -> None:
    """One clear line on stderr (the hint, if any, on the same line); a bad input file adds
    one line per problem found, each saying where it is: the first ``PROBLEMS_SHOWN``, then how
    many more (``--output json`` carries them all, see ``problems_document``). The line and
    every problem line name the file refused (``InputError.source``), as the user named it."""
    from kadmin.units import counted

    line = f"kadmin: {'error: ' if err.is_error else ''}{err.message}"
    if err.hint:
        line += f" ({err.hint})"
    click.echo(_one_line(line), err=True)
    if isinstance(err, InputError):
        file = f"{err.source}: " if err.source else ""
        for problem in err.problems[:PROBLEMS_SHOWN]:
            click.echo(f"  - {_one_line(file + str(problem))}", err=True)
        rest = len(err.problems) - PROBLEMS_SHOWN
        if rest > 0:
            click.echo(f"  ... and {counted(rest, 'more problem')} (--output json lists every one)", err=True)


def problems_document(err: InputError) -> dict:
    """Every problem of a refused input as data (schemas/reassign-plan-problems.json): what
    ``--output json`` prints on stdout when a command refuses its plan. Structured where the
    error keeps the problems' places (``details``), else one message each."""
    details = getattr(err, "details", None)
    if details is not None:
        problems = [p.to_json() for p in details]
    else:
        problems = [
            {"index": None, "topic": None, "partition": None, "field": None, "message": str(p)} for p in err.problems
        ]
    return {"version": 1, "problems": problems}


def _one_line(text: str) -> str:
    """Line breaks inside a message (a value quoted from a file may hold some) shown escaped,
    so an error stays one line."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def warn(message: str) -> None:
    click.echo(f"kadmin: warning: {message}", err=True)


def not_answering(unanswered: Mapping[int, str]) -> tuple[str, str]:
    """The words for the brokers a report lacks (broker -> why), and the pronoun for them:
    ("broker 2 is down (not in the cluster's broker list); broker 3 (REQUEST_TIMED_OUT) did not
    answer DescribeLogDirs", "their"). A down broker was not asked: it is not said to be silent."""
    from kadmin.units import plural

    down = [str(b) for b, why in unanswered.items() if is_down_error(why)]
    silent = [f"{b} ({why})" for b, why in unanswered.items() if not is_down_error(why)]
    parts = []
    if down:
        are = "is" if len(down) == 1 else "are"
        parts.append(f"{plural('broker', len(down))} {', '.join(down)} {are} down ({DOWN_REASON})")
    if silent:
        parts.append(f"{plural('broker', len(silent))} {', '.join(silent)} did not answer DescribeLogDirs")
    return "; ".join(parts), "their" if len(unanswered) > 1 else "its"


def warn_left_out(left_out: Mapping[int, str]) -> None:
    """One warning per broker a balance plan leaves out (broker -> why; logdirs.BalanceInput):
    "broker 2 is down (...) and is left out", "broker 3 did not answer DescribeLogDirs and is
    left out: REQUEST_TIMED_OUT"."""
    for b, why in left_out.items():
        if is_down_error(why):
            warn(f"broker {b} is down ({DOWN_REASON}) and is left out")
        else:
            warn(f"broker {b} did not answer DescribeLogDirs and is left out: {why}")


def stdout_is_tty() -> bool:
    return sys.stdout.isatty()


def stdout():
    """The console for data (stdout). Colour and width only on a terminal."""
    from rich.console import Console

    global _STDOUT
    if _STDOUT is None:
        # Piped or redirected tables are not cut to 80 columns: a file has no edge.
        width = None if sys.stdout.isatty() else PIPE_WIDTH
        _STDOUT = Console(soft_wrap=False, highlight=False, width=width, emoji=False)
    return _STDOUT


def stderr():
    """The console for diagnostics and progress (stderr)."""
    from rich.console import Console

    global _STDERR
    if _STDERR is None:
        _STDERR = Console(stderr=True, highlight=False, emoji=False)
    return _STDERR


_STDOUT = None
_STDERR = None
PIPE_WIDTH = 200


def print_json(data, *, compact: bool = False) -> None:
    """Machine output: JSON alone on stdout. Indented for a person at a terminal; compact when
    piped (Python's C encoder only runs without indentation: 4x faster on large documents)."""
    import json

    if compact or not sys.stdout.isatty():
        text = json.dumps(data, separators=(",", ":"))
    else:
        text = json.dumps(data, indent=2)
    click.echo(text)


def print_json_line(data) -> None:
    """One JSON document per line (for --watch style streams)."""
    import json

    click.echo(json.dumps(data, separators=(",", ":")))
    sys.stdout.flush()


def print_csv(header, rows) -> None:
    import csv

    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(header)
    for row in rows:
        w.writerow(row)
