"""completions/ is generated from the Click tree and kept current."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_completion_scripts_are_current():
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_completions.py"), "--check"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_bash_completion_completes_commands():
    env = {"_KADMIN_COMPLETE": "bash_complete", "COMP_WORDS": "kadmin log", "COMP_CWORD": "1",
           "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "kadmin"], capture_output=True, text=True, env=env)
    assert "log-dirs" in out.stdout


def test_bash_completion_completes_the_election_types():
    env = {"_KADMIN_COMPLETE": "bash_complete", "COMP_WORDS": "kadmin leaders elect --election-type ",
           "COMP_CWORD": "4", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "kadmin"], capture_output=True, text=True, env=env)
    assert {line.split(",")[1].upper() for line in out.stdout.split()} == {"PREFERRED", "UNCLEAN"}


# --- completion offers exactly the tree: a new command or option shows up, a removed one goes ---
import os  # noqa: E402

import click  # noqa: E402
import pytest  # noqa: E402

from tests.support.click_tree import long_options, walk  # noqa: E402

SHELLS = {"bash": "kadmin.bash", "zsh": "_kadmin", "fish": "kadmin.fish"}


def _tree():
    from kadmin.commands.root import cli

    return cli, list(walk(cli))


def complete(shell: str, words: list[str], incomplete: str, monkeypatch) -> set[str]:
    """What ``shell``'s script gets back for ``kadmin <words> <incomplete>``: the same
    environment protocol (``_KADMIN_COMPLETE=<shell>_complete``, COMP_WORDS, COMP_CWORD) and
    Click's answer for it, parsed as the script parses it."""
    from click.shell_completion import get_completion_class

    from kadmin.commands.root import cli

    line = " ".join(["kadmin", *words, incomplete])
    monkeypatch.setenv("COMP_WORDS", line)
    monkeypatch.setenv("COMP_CWORD", incomplete if shell == "fish" else str(len(words) + 1))
    text = get_completion_class(shell)(cli, {}, "kadmin", "_KADMIN_COMPLETE").complete()
    lines = text.splitlines()
    if shell == "zsh":  # type, value, help: three lines per item
        return {lines[i + 1] for i in range(0, len(lines), 3)}
    return {ln.split(",", 1)[1].split("\t")[0] for ln in lines}


@pytest.mark.parametrize("shell", SHELLS)
def test_completion_offers_every_command_and_option_of_the_tree(shell, monkeypatch):
    cli, commands = _tree()
    groups = [((), cli)] + [(p, c) for p, c in commands if isinstance(c, click.Group)]
    for path, group in groups:
        expected = set(group.list_commands(click.Context(group)))
        assert complete(shell, list(path), "", monkeypatch) >= expected, path
    for path, cmd in commands:
        if isinstance(cmd, click.Group):
            continue
        offered = complete(shell, list(path), "--", monkeypatch)
        missing = long_options(cmd) - offered
        assert not missing, f"kadmin {' '.join(path)}: {shell} completion does not offer {sorted(missing)}"


@pytest.mark.parametrize("shell, name", SHELLS.items())
def test_each_script_asks_kadmin_with_its_shells_protocol(shell, name):
    text = (ROOT / "completions" / name).read_text()
    assert f"_KADMIN_COMPLETE={shell}_complete" in text
    assert "kadmin" in text.replace("_KADMIN_COMPLETE", "")


def test_completion_sees_a_command_added_to_the_tree(monkeypatch):
    """The check above is tied to the tree: a command added to a group is offered at once."""
    from kadmin.commands import throttle

    @click.command("brand-new")
    @click.option("--brand-new-flag", is_flag=True, help="x")
    def brand_new(brand_new_flag):
        """A command added for this test."""

    monkeypatch.setitem(throttle.throttle.commands, "brand-new", brand_new)
    assert "brand-new" in complete("bash", ["throttle"], "", monkeypatch)
    assert "--brand-new-flag" in complete("bash", ["throttle", "brand-new"], "--", monkeypatch)
    assert os.environ.get("COMP_WORDS")
