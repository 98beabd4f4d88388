"""The Click tree as a user reaches it (lazy groups loaded), for tests that walk every command."""

from __future__ import annotations

import click


def walk(group: click.Group, path: tuple[str, ...] = ()):
    """(path, command) for every command and group under ``group``, depth first."""
    ctx = click.Context(group, info_name="kadmin")
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        assert cmd is not None, f"{' '.join(path + (name,))} is listed but cannot be loaded"
        yield path + (name,), cmd
        if isinstance(cmd, click.Group):
            yield from walk(cmd, path + (name,))


def long_options(cmd: click.Command) -> set[str]:
    """Every visible --long option name of ``cmd`` (both sides of --x/--no-x flags)."""
    names = set()
    for p in cmd.params:
        if isinstance(p, click.Option) and not p.hidden:
            names |= {o for o in (*p.opts, *p.secondary_opts) if o.startswith("--")}
    return names
