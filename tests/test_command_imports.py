"""Commands do not import each other: what two commands share lives in kadmin/ or in the
commands' helper modules (options.py, render*.py, fleet.py), so each command stays a thin
parse-call-render layer and can be loaded on its own."""

from __future__ import annotations

import ast
from pathlib import Path

COMMANDS = Path(__file__).resolve().parent.parent / "commands"

# Left for the throttling refactor (issue 13), which rewrites both modules.
KNOWN: set[tuple[str, str]] = set()


def defines_a_command(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            for d in node.decorator_list:
                target = d.func if isinstance(d, ast.Call) else d
                if isinstance(target, ast.Attribute) and target.attr in ("command", "group"):
                    return True
    return False


def imported_modules(tree: ast.Module) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "kadmin.commands":
                out |= {a.name for a in node.names}
            elif node.module.startswith("kadmin.commands."):
                out.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            out |= {a.name.split(".")[2] for a in node.names if a.name.startswith("kadmin.commands.")}
    return out


def test_no_command_imports_another_command():
    trees = {p.stem: ast.parse(p.read_text()) for p in COMMANDS.glob("*.py")}
    commands = {name for name, tree in trees.items() if defines_a_command(tree)}
    assert {"reassign_execute", "reassign_verify", "throttle_set", "root"} <= commands
    bad = sorted((name, other) for name in commands for other in imported_modules(trees[name])
                 if other in commands and other != name and (name, other) not in KNOWN)
    assert not bad, f"command modules importing other commands: {bad}"
