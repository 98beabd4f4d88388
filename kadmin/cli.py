"""Entry point. Kept tiny so ``kadmin --help`` starts fast: the root group lives in
``kadmin.commands.root`` and loads each command group's module only when it runs."""

from __future__ import annotations


def main() -> None:
    from kadmin.commands.root import run

    run()
