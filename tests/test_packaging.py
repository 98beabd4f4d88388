"""Packaging: every package directory is installed, under the kadmin namespace."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
ROOTS = {"kadmin": ROOT / "kadmin", "kadmin.commands": ROOT / "commands", "kadmin.schemas": ROOT / "schemas"}


def _declared() -> set[str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return set(data["tool"]["setuptools"]["packages"])


def test_every_package_directory_is_declared():
    found = set()
    for name, path in ROOTS.items():
        for init in path.rglob("__init__.py"):
            rel = init.parent.relative_to(path)
            found.add(".".join([name, *rel.parts]) if rel.parts else name)
    missing = found - _declared()
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {sorted(missing)}"


def test_no_generic_top_level_names_are_declared():
    assert all(p == "kadmin" or p.startswith("kadmin.") for p in _declared())


def test_schemas_are_package_data_and_valid_json_schemas():
    from jsonschema import Draft202012Validator

    from kadmin.schemas import load

    names = sorted(p.stem for p in (ROOT / "schemas").glob("*.json"))
    assert names, "schemas/ holds the JSON Schemas"
    for name in names:
        Draft202012Validator.check_schema(load(name))
