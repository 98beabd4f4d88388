"""Start-up is a feature: `kadmin --help` loads no client library; and a finished run ends at once."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

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


# The end of a run: kadmin.cli.main skips the interpreter's teardown once the command is done
# (~15 ms of a read command), keeping what matters of a normal exit.
_EXIT_PROBE = """
import atexit, sys
class Teardown:
    def __del__(self):
        sys.stderr.write("teardown ran\\n")
probe = Teardown()  # a module global: only the interpreter's teardown frees it
marker = sys.argv[1]
atexit.register(lambda: open(marker, "w").write("atexit ran"))
sys.argv = ["kadmin", *sys.argv[2:]]
from kadmin.cli import main
main()
"""


def _probe(tmp_path, *args: str) -> tuple[subprocess.CompletedProcess, str]:
    marker = tmp_path / "atexit"
    out = subprocess.run([sys.executable, "-c", _EXIT_PROBE, str(marker), *args], capture_output=True, text=True)
    return out, marker.read_text() if marker.exists() else ""


def test_a_finished_command_ends_without_teardown_but_runs_atexit_and_flushes(tmp_path):
    out, marker = _probe(tmp_path, "--help")
    assert out.returncode == 0
    assert "teardown ran" not in out.stderr  # the interpreter's teardown was skipped
    assert marker == "atexit ran"  # atexit handlers still ran
    assert out.stdout.startswith("Usage: kadmin")  # all of the (piped, buffered) output arrived
    assert out.stdout.rstrip().endswith("4  finished, but the cluster differs from the plan")


def test_exit_codes_are_kept_at_the_quick_exit(tmp_path):
    bad = tmp_path / "plan.json"
    bad.write_text("{not json")
    out, marker = _probe(tmp_path, "reassign", "verify", "--reassignment-json-file", str(bad),
                         "--bootstrap-server", "127.0.0.1:1")
    assert out.returncode == 2, out.stderr  # input error: the documented code
    assert out.stderr.strip().startswith("kadmin: error:") and "teardown ran" not in out.stderr
    assert marker == "atexit ran"
    usage, _ = _probe(tmp_path, "reassign", "--no-such-option")
    assert usage.returncode == 2 and "No such option" in usage.stderr


def test_a_reader_that_goes_away_ends_the_run_quietly():
    proc = subprocess.Popen([sys.executable, "-m", "kadmin", "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # before the child has written anything: its writes meet a closed pipe
    err = proc.stderr.read().decode()
    assert proc.wait() == 1
    assert err == ""  # no "Exception ignored ... BrokenPipeError"


def test_a_thread_still_working_is_waited_for(tmp_path):
    code = (
        "import sys, threading, time\n"
        "done = threading.Event()\n"
        "def work():\n"
        "    done.wait(5)\n"
        f"    open({str(tmp_path / 'thread')!r}, 'w').write('finished')\n"
        "threading.Thread(target=work).start()\n"
        "from kadmin.cli import end_process\n"
        "done.set()\n"
        "end_process(3)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 3
    assert (tmp_path / "thread").read_text() == "finished"


def test_a_profiled_run_still_writes_its_profile(tmp_path):
    out = tmp_path / "kadmin.prof"
    run = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m", "kadmin", "--version"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert out.stat().st_size > 0  # cProfile writes after the run returns: no quick exit under it


def test_a_read_command_does_not_spend_its_start_up_collecting_garbage(sandbox):
    """A command makes most of its objects while it imports, and none is garbage: at Python's
    default (a collection every 700 new objects) a read command ran two dozen collections that
    freed nothing (~4 ms); kadmin/cli.py collects every 10,000."""
    code = (
        "import atexit, gc, sys\n"
        "runs = []\n"
        "gc.callbacks.append(lambda phase, info: runs.append(1) if phase == 'stop' else None)\n"
        "atexit.register(lambda: print('collections', len(runs), file=sys.stderr))\n"
        "import kadmin.cli\n"
        f"sys.argv = ['kadmin', 'log-dirs', 'describe', '-o', 'json', '-b', {sandbox.bootstrap!r}]\n"
        "kadmin.cli.main()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["version"] == 1
    collections = int(out.stderr.strip().splitlines()[-1].split()[-1])
    assert collections <= 8, f"{collections} garbage collections during one read command"


@pytest.mark.parametrize("command", [["log-dirs", "describe"], ["reassign", "balance"]])
def test_the_disk_commands_load_nothing_of_the_throttle_model(sandbox, command):
    """Each frozen dataclass costs ~1 ms to build at import (Python 3.11): `log-dirs describe`
    reads a down broker from the cluster's replica sets (ClusterState), and `reassign balance`
    leaves kadmin's record topic in place by its name alone (kadmin.throttling), neither through
    the throttle modules (their import was ~9% of describe's instructions, see bench_cli.py
    instructions)."""
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print(sorted(m for m in sys.modules if m.startswith('kadmin.throttling.')),"
        " file=sys.stderr))\n"
        "import kadmin.cli\n"
        f"sys.argv = ['kadmin', *{command!r}, '-o', 'json', '-b', {sandbox.bootstrap!r}]\n"
        "kadmin.cli.main()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip().splitlines()[-1] == "[]"


def test_ctrl_c_while_kadmin_still_imports_is_one_line_and_130():
    # Ctrl-C arriving while the command's modules load (before the root group's handler): here
    # the import of the root group is what the interrupt meets.
    code = (
        "import sys\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'kadmin.commands.root':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        "from kadmin.cli import main\n"
        "main()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 130
    assert out.stderr == "kadmin: interrupted\n"  # no traceback
