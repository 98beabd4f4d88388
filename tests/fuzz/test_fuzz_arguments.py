"""Fuzzed command lines for the main commands, built from each command's real options (read
from the Click tree) with hostile values. With one certainly-bad argument the answer is exit 2
and one clear message; read-only commands given anything end with a documented exit code.
Never a traceback, never an unexpected exception, and the sandbox never sees a change."""

from __future__ import annotations

import json

import click
from hypothesis import given, settings
from hypothesis import strategies as st

from kadmin.commands.root import cli
from tests.fuzz.support import EXAMPLES, FUZZ, check_outcome, check_unchanged, error_lines, invoke, scratch_dir

MUTATING = [("reassign", "execute"), ("reassign", "verify"), ("reassign", "cancel"), ("throttle", "set"),
            ("throttle", "clear"), ("log-dirs", "balance"), ("leaders", "elect"),
            ("reassign", "balance")]
READ_ONLY = [("reassign", "generate"), ("reassign", "list"), ("reassign", "progress"), ("log-dirs", "describe"),
             ("throttle", "show"), ("leaders", "show")]
# Options that would wait, prompt or run for long, and the connection target: not fuzzed. The
# fleet flags start Spark or fan out to many clusters; inventories are fuzzed at their loader.
SKIPPED = {"--watch", "--wait", "--incremental", "--interval", "--help", "--zookeeper", "--cluster",
           "--bootstrap-server",  # the target is the test's: the sandbox, or none
           "--spark", "--fleet", "--from", "--spark-master", "--report-dir"}


def command(group: str, name: str) -> click.Command:
    ctx = click.Context(cli)
    grp = cli.get_command(ctx, group)
    return grp.get_command(click.Context(grp, parent=ctx), name)


def options(group: str, name: str) -> list[click.Option]:
    return [p for p in command(group, name).params
            if isinstance(p, click.Option) and not (set(p.opts) & SKIPPED)]


def files() -> dict[str, str]:
    d = scratch_dir("args-")
    (d / "plan.json").write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "orders", "partition": 0, "replicas": [1, 2, 0]}]}))
    (d / "topics.json").write_text('{"version":1,"topics":[{"topic":"orders"}]}')
    (d / "bad.json").write_bytes(b'{"version":1,"partitions":[{"topic":')
    return {"plan": str(d / "plan.json"), "topics": str(d / "topics.json"), "bad": str(d / "bad.json"),
            "dir": str(d), "missing": str(d / "missing.json"), "new": str(d / "new-file.json")}


FILES = files()
# Words of a real command line: an operating system's argv cannot carry a NUL byte (Click's
# runner can, and click.Path then fails inside os.stat, which no shell can reach).
words = st.text(alphabet=st.characters(blacklist_characters="\x00"), max_size=12) | st.just("caf\udce9")
VALUES = ["0", "1", "-1", "0,1,2", "1,,2", "a,b", "99999999999999999999", "10MB/s", "1KiB/s", "-5MB/s", "fast",
          "0s", "500ms", "soon", "1e9", "nan", "json", "table", "csv", "kafka-json", "xml", "", " ", "0:/data/d0",
          "x:y", "orders", "orders,payments", "--", "-", "\x01", "ü" * 3, "a" * 500, FILES["plan"], FILES["topics"],
          FILES["bad"], FILES["missing"], FILES["dir"], FILES["new"], "minimal", "kafka", "/dev/null"]


def option_args(opt: click.Option, value: str) -> list[str]:
    name = max(opt.opts, key=len)
    return [name] if opt.is_flag or opt.count else [name, value]


@st.composite
def command_lines(draw, commands):
    group, name = draw(st.sampled_from(commands))
    opts = options(group, name)
    args = [group, name]
    for opt in draw(st.lists(st.sampled_from(opts), max_size=5)) if opts else []:
        args += option_args(opt, draw(st.sampled_from(VALUES) | words))
    if draw(st.integers(0, 9)) == 0:
        args.insert(draw(st.integers(0, len(args))), draw(st.sampled_from(["--bogus", "extra", "-x", "--", "-h"])))
    return args


# One argument that no command accepts, and where it goes.
BAD_ARGUMENTS = {
    "--timeout": ["soon", "-1s", "0", "1 parsec"], "--throttle": ["fast", "-5MB/s", "1/0"],
    "--replica-alter-log-dirs-throttle": ["fast", "MB/s"], "--rate": ["fast", "-1"], "--leader-rate": ["x"],
    "--follower-rate": ["x"], "--log-dir-rate": ["x"], "--broker-list": ["a,b", "1;2"], "--brokers": ["a,b"],
    "--output": ["xml", ""], "--reassignment-json-file": [FILES["missing"], FILES["bad"], FILES["dir"]],
    "--topics-to-move-json-file": [FILES["missing"], FILES["bad"]], "--max-parallel-replicas": ["0", "x"],
    "--top": ["-1", "x"], "--evacuate": ["x:y", "nocolon"], "--max-moves": ["-1", "x"], "--from-plan": [FILES["missing"]],
    "--path-to-json-file": [FILES["missing"], FILES["bad"], FILES["plan"]], "--max-per-broker": ["0", "x"],
    "--batch-size": ["-1"], "--partition": ["-1", "x"], "--election-type": ["sideways"],
    "--threshold": ["lots", "150%", "nan"], "--max-dir-usage": ["0%", "x"], "--max-bytes": ["5Mb", "-1"],
    "--exclude-topics": ["(", "[z-a]"],
}


@st.composite
def bad_command_lines(draw):
    group, name = draw(st.sampled_from(MUTATING + READ_ONLY))
    args = [a for a in draw(command_lines([(group, name)])) if a != "-h"]  # help would answer 0
    known = {o for opt in options(group, name) for o in opt.opts}
    candidates = [k for k in BAD_ARGUMENTS if k in known]
    if candidates and draw(st.booleans()):
        key = draw(st.sampled_from(candidates))
        # Last, so that no later occurrence of the same option overrides it (Click keeps the last).
        return args + [key, draw(st.sampled_from(BAD_ARGUMENTS[key]))]
    at = draw(st.integers(2, len(args)))
    return args[:at] + [draw(st.sampled_from(["--no-such-option", "--bootstrap-servers", "-Z"]))] + args[at:]


@FUZZ
@given(args=bad_command_lines())
def test_a_bad_argument_is_refused_and_nothing_changes(fuzz_sandbox, args):
    EXAMPLES["command lines"] += 1
    fuzz_sandbox.clear_requests()
    args = args + ["-b", fuzz_sandbox.bootstrap]
    result = invoke(args)
    check_outcome(result, codes=(2,), what=repr(args))
    check_unchanged(fuzz_sandbox, repr(args))


@FUZZ
@given(args=command_lines(READ_ONLY), target=st.booleans())
def test_read_only_commands_with_any_arguments(fuzz_sandbox, args, target):
    EXAMPLES["command lines"] += 1
    fuzz_sandbox.clear_requests()
    if target:
        args = args + ["-b", fuzz_sandbox.bootstrap]
    result = invoke(args)
    check_outcome(result, codes=(0, 1, 2, 3, 4), what=repr(args))
    check_unchanged(fuzz_sandbox, repr(args))


@FUZZ
@given(args=st.lists(words | st.sampled_from(["reassign", "log-dirs", "throttle", "list", "show",
                                                             "describe", "--output", "json", "-b", "--debug"]),
                     max_size=6))
def test_any_words_at_the_top_level(fuzz_sandbox, args):
    """The root group with arbitrary words: usage errors, help or read-only answers."""
    if "sandbox" in args:
        args = [a for a in args if a != "sandbox"]
    EXAMPLES["command lines"] += 1
    fuzz_sandbox.clear_requests()
    result = invoke(args)
    if "--debug" in args and result.exception is not None and not isinstance(result.exception, SystemExit):
        return  # --debug lets a library error through as a traceback, by design
    check_outcome(result, codes=(0, 1, 2), what=repr(args))
    check_unchanged(fuzz_sandbox, repr(args))


@settings(FUZZ, max_examples=max(3, FUZZ.max_examples // 6))
@given(args=bad_command_lines())
def test_a_bad_argument_in_a_real_process(fuzz_sandbox, args):
    """The same as a real process with argv as bytes (non-UTF-8 words arrive as surrogate
    escapes), so what a shell can send is covered, stdout/stderr encoding included."""
    import os
    import subprocess
    import sys

    EXAMPLES["command lines"] += 1
    fuzz_sandbox.clear_requests()
    argv = [os.fsencode(a) for a in args + ["-b", fuzz_sandbox.bootstrap]]
    env = {k: v for k, v in os.environ.items() if not k.startswith("KADMIN_")}
    env["KADMIN_CONFIG"] = "/nonexistent/kadmin-fuzz/config.toml"
    proc = subprocess.run([os.fsencode(sys.executable), b"-m", b"kadmin", *argv], capture_output=True, env=env,
                          timeout=60)
    stderr = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2, (args, stderr)
    assert "Traceback" not in stderr and "run with --debug" not in stderr, (args, stderr)
    first = error_lines(stderr)[0]
    assert first.startswith(("kadmin: error: ", "Usage: ", "Error: ")), (args, stderr)
    check_unchanged(fuzz_sandbox, repr(args))
