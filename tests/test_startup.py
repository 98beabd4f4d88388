"""Start-up is a feature: `kadmin --help` loads no client library."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ["confluent_kafka", "kafka", "kazoo", "jsonschema", "pyspark", "rich"]


def _modules_after(args: list[str]) -> set[str]:
    code = (
        "import sys, json\n"
        "from kadmin.commands.root import cli\n"
        f"try:\n    cli.main(args={args!r}, prog_name='kadmin', standalone_mode=False)\n"
        "except SystemExit:\n    pass\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(out.stderr.strip().splitlines()[-1]))


def test_root_help_imports_no_heavy_library():
    loaded = _modules_after(["--help"])
    assert not loaded & set(HEAVY), f"--help imported {sorted(loaded & set(HEAVY))}"


def test_group_help_imports_no_heavy_library():
    for group in (["log-dirs", "--help"], ["reassign", "--help"], ["throttle", "--help"]):
        loaded = _modules_after(group)
        assert not loaded & set(HEAVY), f"{' '.join(group)} imported {sorted(loaded & set(HEAVY))}"


def test_version_runs_as_a_real_process():
    out = subprocess.run([sys.executable, "-m", "kadmin", "--version"], capture_output=True, text=True)
    assert out.returncode == 0
    assert out.stdout.startswith("kadmin, version ")
