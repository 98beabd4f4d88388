"""CLI figures: `kadmin --help` start-up, and `log-dirs describe` on a 3-broker and a 50-broker
sandbox (wall time and peak memory of the real process; concurrent vs one-by-one queries, with
each broker answering 10 ms late).

Read commands against a reference (issue 16): a minimal script that imports kafka-python's admin
client and makes the same DescribeLogDirs request to the same 3-broker sandbox. The reference and
every read command run interleaved (one of each per round), so a load change hits all alike;
each figure is the median, and the ratio is to the reference's median of the same run. The
machine's load average is printed beside them, and beside each throttle show / log-dirs describe
ratio the ratio of their CPU times (user + system, from each process's rusage): steadier than
wall time on a busy machine, and it tells work from waiting.

Every process runs the way an installed kadmin does: from bytecode. pip compiles a wheel's
modules when it installs them, but a source checkout under ``PYTHONDONTWRITEBYTECODE=1`` (set
on some machines, this one among them) compiles the ~30 kadmin modules a command loads from
source on every run, ~60 ms that no installed copy pays; so the bench compiles kadmin's tree
first and runs its children without that variable (pip compiled the reference's kafka-python).

Run: python bench/bench_cli.py   (or `make bench` for every figure);
     python bench/bench_cli.py read-commands [ROUNDS]   (the read commands only);
     python bench/bench_cli.py many-topics [TOPICS [ROUNDS]]   (throttle show on 2,000 topics);
     python bench/bench_cli.py far-away [ROUNDS]   (throttle show and describe, brokers 10 ms away);
     python bench/bench_cli.py instructions   (CPU instructions of each, with valgrind: steady)
"""

from __future__ import annotations

import functools
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.table import Figure, print_figures  # noqa: E402


def _kadmin(*args: str) -> list[str]:
    return [sys.executable, "-m", "kadmin", *args]


@functools.cache
def as_installed() -> dict[str, str]:
    """The environment of a run as installed: kadmin's bytecode written (once, here) and used."""
    import compileall

    for tree in ("kadmin", "commands"):
        compileall.compile_dir(ROOT / tree, quiet=1, force=False, legacy=False)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_once(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run of ``cmd``."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=as_installed())
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.read().decode()[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime


def timed(cmd: list[str], runs: int) -> float:
    """Median wall seconds of ``cmd`` over ``runs`` runs."""
    return statistics.median(run_once(cmd)[0] for _ in range(runs))


# Peak RSS as the kadmin process itself sees it (VmHWM), written at its exit to a pipe. A child's
# rusage is no good here: Linux carries the peak of the process it was forked from over exec, so
# from this process (a sandbox in it) ru_maxrss measured this process: `python -c pass` "peaked"
# at 214 MiB under a 200 MiB parent, and `log-dirs describe` read 36 MiB where it uses 17.
PEAK_RSS = """
import atexit, os, runpy, sys
def report():
    with open("/proc/self/status") as f:
        kib = next(line.split()[1] for line in f if line.startswith("VmHWM:"))
    os.write(int(os.environ["KADMIN_BENCH_RSS_FD"]), kib.encode())
atexit.register(report)
sys.argv[0] = "kadmin"
runpy.run_module("kadmin", run_name="__main__", alter_sys=True)
"""


def peak_rss(cmd: list[str], runs: int = 3) -> float:
    """The highest peak RSS (MiB) of ``runs`` runs of ``cmd``, a ``python -m kadmin`` command line."""
    assert cmd[1:3] == ["-m", "kadmin"], cmd
    peaks = []
    for _ in range(runs):
        read_end, write_end = os.pipe()
        env = {**as_installed(), "KADMIN_BENCH_RSS_FD": str(write_end)}
        proc = subprocess.run([cmd[0], "-c", PEAK_RSS, *cmd[3:]], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, env=env, pass_fds=(write_end,), check=False)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as f:
            kib = f.read()
        if proc.returncode != 0 or not kib:
            raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.decode()[-500:]}")
        peaks.append(int(kib) / 1024)
    return max(peaks)


# The reference: what any Python tool using kafka-python's admin client pays for this request.
REFERENCE = """
import sys
from kafka.admin import KafkaAdminClient

client = KafkaAdminClient(bootstrap_servers=sys.argv[1], client_id="reference")
client.describe_log_dirs()
client.close()
"""

READ_COMMANDS = {
    "log-dirs describe -o json": ["log-dirs", "describe", "-o", "json"],
    "reassign list": ["reassign", "list"],
    "reassign progress": ["reassign", "progress"],
    "reassign verify": ["reassign", "verify", "--preserve-throttles", "--reassignment-json-file", "{plan}"],
    "throttle show": ["throttle", "show"],
    "leaders show": ["leaders", "show"],
}
TARGET_RATIO = 0.8
FAN_OUT_LATENCY_MS = 10
# Measured beside them: throttle show's JSON form, and the default form of log-dirs describe (a
# rich table), so each form of throttle show (five reads, DescribeLogDirs to every broker among
# them) is compared with the same form of log-dirs describe (two reads). With no throttle set,
# throttle show's default form is one line of text, not a table.
EXTRA_COMMANDS = {
    "throttle show -o json": ["throttle", "show", "-o", "json"],
    "log-dirs describe (table)": ["log-dirs", "describe"],
}


def _load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def read_commands(rounds: int = 15) -> list[Figure]:
    """Every read command against the reference script, interleaved, medians.

    With KADMIN_BENCH_BASELINE=DIR (an export of another kadmin revision, e.g. `git archive`, with
    kadmin/commands linked to its commands/), each command also runs from there in the same rounds:
    before/after figures under the same load."""
    baseline = os.environ.get("KADMIN_BENCH_BASELINE")
    import json
    import tempfile

    from kadmin.sandbox import Sandbox

    out: list[Figure] = []
    with Sandbox(brokers=3, log_dirs=2) as sb, tempfile.TemporaryDirectory() as tmp:
        sb.populate_demo()
        _write_throttle_records(sb)
        snap = sb.snapshot()
        plan = Path(tmp) / "plan.json"
        parts = [{"topic": tp.topic, "partition": tp.partition, "replicas": list(p.replicas)}
                 for tp, p in sorted(snap.partitions.items())]
        plan.write_text(json.dumps({"version": 1, "partitions": parts}))
        cmds = {"reference (kafka-python admin, DescribeLogDirs)": [sys.executable, "-c", REFERENCE, sb.bootstrap]}
        for name, args in {**READ_COMMANDS, **EXTRA_COMMANDS}.items():
            cmds[name] = _kadmin(*[a.replace("{plan}", str(plan)) for a in args], "--bootstrap-server", sb.bootstrap)
            if baseline:
                cmds[f"{name} (baseline)"] = _baseline(baseline, cmds[name])
        load_before = _load()
        walls: dict[str, list[float]] = {name: [] for name in cmds}
        cpus: dict[str, list[float]] = {name: [] for name in cmds}
        for _ in range(rounds):
            for name, cmd in cmds.items():
                wall, cpu = run_once(cmd)
                walls[name].append(wall)
                cpus[name].append(cpu)
        load_after = _load()
        set_pairs = _with_throttles_set(sb, rounds)
    med = {name: statistics.median(w) for name, w in walls.items()}
    cpu_med = {name: statistics.median(c) for name, c in cpus.items()}
    ref_name = next(iter(cmds))
    ref = med[ref_name]
    out.append(Figure("read commands", f"{load_before} (before), {load_after} (after)", os.cpu_count() or 0,
                      "cores", "", None))
    out.append(Figure("read commands", f"{ref_name}: median of {rounds}", ref, "s", "", None))
    for name in READ_COMMANDS:
        ratio = med[name] / ref
        out.append(Figure("read commands", f"{name}: median of {rounds}", med[name], "s", "", None))
        out.append(Figure("read commands", f"{name} / reference", ratio, "x", f"<= {TARGET_RATIO}x",
                          ratio <= TARGET_RATIO))
        if baseline:
            before = med[f"{name} (baseline)"]
            out.append(Figure("read commands", f"{name}: baseline median", before, "s", "", None))
            out.append(Figure("read commands", f"{name}: baseline / reference", before / ref, "x", "", None))
    ts, ld, ldt = med["throttle show"], med["log-dirs describe -o json"], med["log-dirs describe (table)"]
    tsj = med["throttle show -o json"]
    out.append(Figure("read commands", f"log-dirs describe (table): median of {rounds}", ldt, "s", "", None))
    out.append(Figure("read commands", "throttle show / log-dirs describe (default forms)", ts / ldt, "x", "<= 1x", ts <= ldt))
    out.append(Figure("read commands", f"throttle show -o json: median of {rounds}", tsj, "s", "", None))
    out.append(Figure("read commands", "throttle show / log-dirs describe (-o json)", tsj / ld, "x", "<= 1x", tsj <= ld))
    # CPU time (user + system) is steadier than wall time on a busy machine, and shows whether
    # the difference is work or waiting.
    cpu_ratio = cpu_med["throttle show -o json"] / cpu_med["log-dirs describe -o json"]
    out.append(Figure("read commands", "the same, CPU time", cpu_ratio, "x", "", None))
    for form, (show, describe, cpu_ratio) in set_pairs.items():
        out.append(Figure("read commands", f"throttles set: throttle show {form}: median of {rounds}", show, "s", "", None))
        out.append(Figure("read commands", f"throttles set: throttle show / log-dirs describe ({form})",
                          show / describe, "x", "<= 1x", show <= describe))
        out.append(Figure("read commands", "the same, CPU time", cpu_ratio, "x", "", None))
    return out


def _with_throttles_set(sb, rounds: int) -> dict[str, tuple[float, float, float]]:
    """throttle show against log-dirs describe, each form, once throttles are set (`throttle set
    --rate 10MB/s` on every broker, so a record too): throttle show then draws its table and
    reads a record. {form: (throttle show median, log-dirs describe median, their CPU ratio)}."""
    run = subprocess.run(_kadmin("throttle", "set", "--rate", "10MB/s", "--brokers", "0,1,2", "--bootstrap-server",
                                 sb.bootstrap), capture_output=True, text=True, env=as_installed())
    if run.returncode != 0:
        raise RuntimeError(f"throttle set failed: {run.stderr[-500:]}")
    forms = {"default forms": [], "-o json": ["-o", "json"]}
    cmds = {(form, name): _kadmin(*args, *extra, "--bootstrap-server", sb.bootstrap)
            for form, extra in forms.items()
            for name, args in (("show", ["throttle", "show"]), ("describe", ["log-dirs", "describe"]))}
    walls: dict = {key: [] for key in cmds}
    cpus: dict = {key: [] for key in cmds}
    for _ in range(rounds):
        for key, cmd in cmds.items():
            wall, cpu = run_once(cmd)
            walls[key].append(wall)
            cpus[key].append(cpu)
    med = {key: statistics.median(v) for key, v in walls.items()}
    cpu = {key: statistics.median(v) for key, v in cpus.items()}
    return {form: (med[form, "show"], med[form, "describe"], cpu[form, "show"] / cpu[form, "describe"]) for form in forms}


def instructions() -> list[Figure]:
    """The read commands' CPU instructions (valgrind's callgrind, one run each): unlike times on
    a shared machine, the same from run to run (within ~0.2% here), so a small difference between
    two commands, or two revisions, shows. Threads are counted too; waiting is not. With
    KADMIN_BENCH_BASELINE, each command also from that tree. Needs valgrind (none: no figures)."""
    import shutil
    import tempfile

    if shutil.which("valgrind") is None:
        return [Figure("instructions", "valgrind is not installed: no figures", 0, "", "", None)]
    from kadmin.sandbox import Sandbox

    baseline = os.environ.get("KADMIN_BENCH_BASELINE")
    with Sandbox(brokers=3, log_dirs=2) as sb, tempfile.TemporaryDirectory() as tmp:
        sb.populate_demo()
        _write_throttle_records(sb)
        cmds = {"reference (kafka-python admin, DescribeLogDirs)": [sys.executable, "-c", REFERENCE, sb.bootstrap]}
        for name, args in {
            "kadmin --help": ["--help"],
            "log-dirs describe -o json": ["log-dirs", "describe", "-o", "json"],
            "throttle show -o json": ["throttle", "show", "-o", "json"],
            "log-dirs describe (table)": ["log-dirs", "describe"],
            "throttle show": ["throttle", "show"],
        }.items():
            cmds[name] = _kadmin(*args) + ([] if args == ["--help"] else ["--bootstrap-server", sb.bootstrap])
            if baseline:
                cmds[f"{name} (baseline)"] = _baseline(baseline, cmds[name])
        counts = {name: _instructions(cmd, Path(tmp) / "callgrind.out") for name, cmd in cmds.items()}
    out = [Figure("instructions", name, n / 1e6, "M", "", None) for name, n in counts.items()]
    for form, show, describe in (("-o json", "throttle show -o json", "log-dirs describe -o json"),
                                 ("default forms", "throttle show", "log-dirs describe (table)")):
        ratio = counts[show] / counts[describe]
        out.append(Figure("instructions", f"throttle show / log-dirs describe ({form})", ratio, "x", "<= 1x", ratio <= 1))
    return out


def _instructions(cmd: list[str], out: Path) -> int:
    """The instructions one run of ``cmd`` executes (callgrind's total), as installed."""
    if cmd[0] == "env":  # a baseline's `env -C ROOT PYTHONPATH=ROOT python ...`: valgrind runs the python
        cmd = [*cmd[:4], "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "-q", *cmd[4:]]
    else:
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "-q", *cmd]
    run = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=as_installed(), check=False)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {run.stderr.decode()[-500:]}")
    for line in out.read_text().splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {out}")


def _baseline(root: str, cmd: list[str]) -> list[str]:
    """``cmd`` (a ``python -m kadmin`` command line) run from the kadmin tree at ``root``, its
    bytecode written first, as for this tree."""
    import compileall

    for tree in ("kadmin", "commands"):
        if (Path(root) / tree).is_dir():
            compileall.compile_dir(Path(root) / tree, quiet=1, force=False, legacy=False)
    return ["env", "-C", root, f"PYTHONPATH={root}", *cmd]


def _write_throttle_records(sb) -> None:
    """Two records in kadmin's throttle-record topic, so `throttle show` reads some."""
    from kadmin.backends.admin import AdminBackend
    from kadmin.backends.admin_records import RecordTopic
    from kadmin.config import ConnectionSettings
    from kadmin.throttling import RECORD_TOPIC

    with AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap), read_only=False) as backend:
        topic = RecordTopic(backend, RECORD_TOPIC)
        topic.write("bench-plan-1", None)
        topic.write("bench-plan-2", None)


def figures() -> list[Figure]:
    from kadmin.sandbox import Sandbox

    out: list[Figure] = []
    wall = timed(_kadmin("--help"), 15)
    out.append(Figure("start-up", "kadmin --help (median of 15)", wall * 1000, "ms", "< 150 ms", wall < 0.150))

    with Sandbox(brokers=3, log_dirs=2) as sb:
        sb.populate_demo()
        cmd = _kadmin("log-dirs", "describe", "--bootstrap-server", sb.bootstrap, "-o", "json")
        wall, rss = timed(cmd, 7), peak_rss(cmd)
        out.append(Figure("log-dirs describe", "3 brokers: wall (median of 7)", wall, "s", "< 0.3 s", wall < 0.3))
        out.append(Figure("log-dirs describe", "3 brokers: peak RSS", rss, "MiB", "< 60 MiB", rss < 60))

    with Sandbox(brokers=50, log_dirs=4) as sb:
        sb.create_topic("bench", partitions=20_000, replication_factor=2, size_bytes=1_000_000)
        cmd = _kadmin("log-dirs", "describe", "--bootstrap-server", sb.bootstrap, "-o", "json")
        wall, rss = timed(cmd, 3), peak_rss(cmd)
        out.append(Figure("log-dirs describe", "50 brokers x 4 dirs, 40k replicas: wall", wall, "s", "< 2 s", wall < 2))
        out.append(Figure("log-dirs describe", "50 brokers: peak RSS", rss, "MiB", "", None))
        # The sandbox's brokers share one process, which answers them one after another however
        # they are asked; real brokers answer in parallel. Each broker answering 10 ms late (the
        # sandbox's `slow` fault: a network or a busy broker) shows whether kadmin waits for
        # them one at a time.
        for b in range(50):
            sb.faults.slow(b, FAN_OUT_LATENCY_MS)
        conc, seq = _fan_out_ratio(sb.bootstrap)
        lag = f"each answering {FAN_OUT_LATENCY_MS} ms late"
        out.append(Figure("log-dirs describe", f"50 brokers {lag}: DescribeLogDirs concurrent", conc, "s", "", None))
        out.append(Figure("log-dirs describe", f"50 brokers {lag}: one by one", seq, "s", "", None))
        out.append(Figure("log-dirs describe", "one-by-one / concurrent", seq / conc, "x", "> 1", seq > conc))
    out += many_topics()
    out += far_away()
    out += read_commands()
    out += instructions()
    return out


def many_topics(topics: int = 2000, rounds: int = 5) -> list[Figure]:
    """`throttle show` where most of its reads scale with topics (every topic's throttle lists),
    beside `log-dirs describe` (every replica) on the same cluster, interleaved, medians (with
    KADMIN_BENCH_BASELINE, also throttle show from that tree)."""
    from kadmin.sandbox import Sandbox

    with Sandbox(brokers=3, log_dirs=2) as sb:
        for i in range(topics):
            sb.create_topic(f"topic-{i:05d}", partitions=3, replication_factor=2)
        cmds = {
            "throttle show -o json": _kadmin("throttle", "show", "-o", "json", "--bootstrap-server", sb.bootstrap),
            "log-dirs describe -o json": _kadmin("log-dirs", "describe", "-o", "json", "--bootstrap-server", sb.bootstrap),
        }
        baseline = os.environ.get("KADMIN_BENCH_BASELINE")  # as in read_commands
        if baseline:
            cmds["throttle show -o json (baseline)"] = _baseline(baseline, cmds["throttle show -o json"])
        walls: dict[str, list[float]] = {name: [] for name in cmds}
        for _ in range(rounds):
            for name, cmd in cmds.items():
                walls[name].append(timed(cmd, 1))
    where = f"{topics:,} topics x 3 partitions, 3 brokers"
    return [
        Figure(where, f"{name}: median of {rounds}", statistics.median(w), "s", "", None) for name, w in walls.items()
    ]


FAR_AWAY_MS = 10


def far_away(rounds: int = 9) -> list[Figure]:
    """Read commands with every broker of the 3-broker sandbox FAR_AWAY_MS away (the sandbox's
    `latency` fault: answers arrive that late while the broker goes on with the requests behind
    them), interleaved, medians; with KADMIN_BENCH_BASELINE, each from that tree too. Where every
    round trip costs, the number of them a command waits for is its speed. `throttle show` is
    compared with `log-dirs describe` (issue 16: no slower)."""
    import json
    import tempfile

    from kadmin.sandbox import Sandbox

    baseline = os.environ.get("KADMIN_BENCH_BASELINE")
    with Sandbox(brokers=3, log_dirs=2) as sb, tempfile.TemporaryDirectory() as tmp:
        sb.populate_demo()
        _write_throttle_records(sb)
        plan = Path(tmp) / "plan.json"
        parts = [{"topic": tp.topic, "partition": tp.partition, "replicas": list(p.replicas)}
                 for tp, p in sorted(sb.snapshot().partitions.items())]
        plan.write_text(json.dumps({"version": 1, "partitions": parts}))
        for b in range(3):
            sb.faults.latency(b, FAR_AWAY_MS)
        cmds = {}
        for name, args in {
            "log-dirs describe -o json": ["log-dirs", "describe", "-o", "json"],
            "throttle show -o json": ["throttle", "show", "-o", "json"],
            "reassign progress (a plan)": ["reassign", "progress", "--reassignment-json-file", str(plan)],
            "reassign verify (a plan, records read)": ["reassign", "verify", "--reassignment-json-file", str(plan)],
        }.items():
            cmds[name] = _kadmin(*args, "--bootstrap-server", sb.bootstrap)
            if baseline and name != "log-dirs describe -o json":
                cmds[f"{name} (baseline)"] = _baseline(baseline, cmds[name])
        walls: dict[str, list[float]] = {name: [] for name in cmds}
        for _ in range(rounds):
            for name, cmd in cmds.items():
                walls[name].append(run_once(cmd)[0])
    med = {name: statistics.median(w) for name, w in walls.items()}
    where = f"3 brokers, each {FAR_AWAY_MS} ms away"
    out = [Figure(where, f"{name}: median of {rounds}", m, "s", "", None) for name, m in med.items()]
    ratio = med["throttle show -o json"] / med["log-dirs describe -o json"]
    out.append(Figure(where, "throttle show / log-dirs describe", ratio, "x", "<= 1x", ratio <= 1))
    return out


def _fan_out_ratio(bootstrap: str) -> tuple[float, float]:
    """Time the backend's concurrent fan-out against querying the brokers one at a time."""
    from kadmin.backends.admin import AdminBackend
    from kadmin.config import ConnectionSettings

    with AdminBackend(ConnectionSettings(bootstrap_servers=bootstrap), read_only=True) as backend:
        ids = sorted(backend.describe_brokers())
        backend.describe_log_dirs()  # connect to every broker first: compare queries, not connects
        t0 = time.perf_counter()
        backend.describe_log_dirs()
        conc = time.perf_counter() - t0
        t0 = time.perf_counter()
        for b in ids:
            backend.describe_log_dirs(brokers=[b])
        seq = time.perf_counter() - t0
    return conc, seq


if __name__ == "__main__":
    if sys.argv[1:2] == ["read-commands"]:  # [ROUNDS]
        print_figures("CLI read commands", read_commands(*map(int, sys.argv[2:3])))
    elif sys.argv[1:2] == ["instructions"]:
        print_figures("CLI read commands: instructions", instructions())
    elif sys.argv[1:2] == ["far-away"]:  # [ROUNDS]
        print_figures("CLI with brokers far away", far_away(*map(int, sys.argv[2:3])))
    elif sys.argv[1:2] == ["many-topics"]:  # [TOPICS [ROUNDS]]
        print_figures("CLI on many topics", many_topics(*map(int, sys.argv[2:4])))
    else:
        print_figures("CLI", figures())
