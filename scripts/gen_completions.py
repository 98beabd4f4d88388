"""Regenerate completions/ (bash, zsh, fish) from the Click tree. `--check` exits 1 if stale."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHELLS = {"bash": "kadmin.bash", "zsh": "_kadmin", "fish": "kadmin.fish"}


def generate(shell: str) -> str:
    from click.shell_completion import get_completion_class

    from kadmin.commands.root import cli

    cls = get_completion_class(shell)
    return cls(cli, {}, "kadmin", "_KADMIN_COMPLETE").source()


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for shell, name in SHELLS.items():
        path = ROOT / "completions" / name
        text = generate(shell)
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path))
        else:
            path.parent.mkdir(exist_ok=True)
            path.write_text(text)
            print(f"wrote {path}")
    if stale:
        print("stale completion scripts (run `make completions`): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
