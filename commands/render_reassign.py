"""Rendering for ``reassign execute | verify | cancel | list``: lines for people, JSON documents
(schemas/reassign-*.json) for scripts. The library hands over values; this turns them into text."""

from __future__ import annotations

import click

from kadmin.execute.changes import describe, to_json


class LineReporter:
    """Prints each change as it is made (people), or keeps quiet (JSON is printed once at the end)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self._last_wait = None

    def change(self, change, error) -> None:
        if not self.enabled:
            return
        if error is None:
            click.echo(f"  done    {describe(change)}")
        else:
            click.echo(f"  FAILED  {describe(change)}: {error}")

    def waiting(self, replicas: int, seconds_left: float) -> None:
        # One line per second at most, on stderr: progress is a diagnostic, not data.
        whole = int(seconds_left)
        if whole != self._last_wait:
            self._last_wait = whole
            click.echo(
                f"kadmin: waiting for {replicas} new replica{'s' if replicas != 1 else ''} to be created "
                f"({seconds_left:.0f}s left)", err=True,
            )


def change_json(change, error=None) -> dict:
    out = to_json(change)
    out["error"] = error
    return out


def tp_json(tp) -> dict:
    return {"topic": tp.topic, "partition": tp.partition}


def print_plan_of_changes(xplan) -> None:
    click.echo("Plan of changes (dry run: nothing was changed):")
    for c in xplan.changes():
        click.echo(f"  {describe(c)}")
    if xplan.unchanged:
        click.echo(f"  ({len(xplan.unchanged)} partition(s) already have the planned replicas: no reassignment)")


def reassignment_line(r) -> str:
    """kafka-reassign-partitions.sh --list: ``foo-1: replicas: 1,2,3. adding: 4,5. removing: 1,2.``"""
    line = f"{r.topic}-{r.partition}: replicas: {','.join(map(str, r.replicas))}."
    if r.adding:
        line += f" adding: {','.join(map(str, r.adding))}."
    if r.removing:
        line += f" removing: {','.join(map(str, r.removing))}."
    return line
