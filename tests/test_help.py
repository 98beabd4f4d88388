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


@pytest.mark.parametrize("args, says", [
    (["--bogus"], "No such option '--bogus'. (kadmin --help)"),
    (["reassign", "bogus"], "No such command 'bogus'. (kadmin reassign --help)"),
    (["log-dirs", "describe", "--broker-lst", "1"], "No such option '--broker-lst'. Did you mean '--broker-list'? "
                                                      "(kadmin log-dirs describe --help)"),
    (["reassign", "execute"], "Missing option '--reassignment-json-file'. (kadmin reassign execute --help)"),
    (["throttle", "set", "--rate", "1MB/s", "--brokers", "a"], "Invalid value for --brokers: 'a' is not a broker id"),
])
def test_a_usage_error_is_one_line_naming_the_help_and_exits_2(args, says):
    """README: errors are one line on stderr. Click's own usage errors (an unknown option or
    command, a missing or bad value) too, instead of its usage block, with where help is."""
    result = CliRunner().invoke(cli, args, prog_name="kadmin")
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kadmin: error: ") and says in lines[0], result.stderr


@pytest.mark.parametrize("args", [[], ["reassign"], ["throttle"]])
def test_a_group_without_a_command_shows_its_help(args):
    result = CliRunner().invoke(cli, args, prog_name="kadmin")
    assert result.exit_code == 2 and "Commands:" in result.output and "kadmin: error" not in result.output
