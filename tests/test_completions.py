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
