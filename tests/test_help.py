"""Every command of the Click tree, reached as a user reaches it (lazy groups included), has
help text (each option too), and its --help exits 0."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from kadmin.commands.root import cli
from tests.support.click_tree import walk


COMMANDS = list(walk(cli))


def test_the_tree_has_every_command_group():
    names = {" ".join(p) for p, _ in COMMANDS}
    assert {"reassign execute", "reassign verify", "log-dirs describe", "throttle set", "sandbox"} <= names
    assert len(names) >= 15


@pytest.mark.parametrize("path, cmd", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_every_command_has_help_and_its_help_exits_0(path, cmd):
    assert (cmd.help or "").strip(), f"kadmin {' '.join(path)} has no help text"
    result = CliRunner().invoke(cli, [*path, "--help"], prog_name="kadmin")
    assert result.exit_code == 0, result.output
    assert f"Usage: kadmin {' '.join(path)}" in result.output
    first_line = cmd.help.strip().splitlines()[0].strip()
    assert first_line[:30] in " ".join(result.output.split())
    for param in cmd.params:
        if isinstance(param, click.Option) and not param.hidden:
            assert (param.help or "").strip(), f"kadmin {' '.join(path)} {param.opts[0]} has no help text"
