"""Rendering shared by every command: two consoles (data to stdout, diagnostics to stderr),
errors, and machine output. Commands build models; this module turns them into text."""

from __future__ import annotations

import sys

import click

from kadmin.errors import InputError, KadminError


def print_error(err: KadminError) -> None:
    """One clear line on stderr (plus each listed problem, and a hint if there is one)."""
    click.echo(f"kadmin: error: {err.message}", err=True)
    if isinstance(err, InputError):
        for problem in err.problems:
            click.echo(f"  - {problem}", err=True)
    if err.hint:
        click.echo(f"  hint: {err.hint}", err=True)


def warn(message: str) -> None:
    click.echo(f"kadmin: warning: {message}", err=True)


def stdout_is_tty() -> bool:
    return sys.stdout.isatty()
