"""Fuzzed reassignment files (reassign execute, execute --dry-run, verify) and topics-to-move
files (reassign generate) against the sandbox: exit 2 with one clear message (or 0 for a valid
file where that is allowed), never a traceback, and the cluster never changed."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.strategies import damaged, entries, reassignment_docs, topics_docs
from tests.fuzz.support import EXAMPLES, FUZZ, check_outcome, check_unchanged, invoke, scratch_dir

# Entries no cluster accepts, so a plan holding one is refused as a whole: malformed ones...
MALFORMED_ENTRIES = [
    {"topic": "orders", "partition": -1, "replicas": [0]},
    {"topic": 5, "partition": 0, "replicas": [0, 1, 2]},
    {"topic": "orders", "partition": "0", "replicas": [0, 1, 2]},
    {"topic": "orders", "partition": 2**31, "replicas": [0, 1, 2]},
    {"topic": "orders", "partition": 0, "replicas": [2**63, 1, 2]},
    {"topic": "orders", "partition": 0, "replicas": [0, 1, 2], "log_dirs": "any"},
    {"partition": 0, "replicas": [0, 1, 2]},
]
# ... and well-formed ones that this cluster cannot carry out.
BAD_ENTRIES = MALFORMED_ENTRIES + [
    {"topic": "orders", "partition": 0, "replicas": [0, 0, 1]},
    {"topic": "unknown-topic", "partition": 0, "replicas": [0]},
    {"topic": "orders", "partition": 0, "replicas": [7, 1, 2]},
    {"topic": "orders", "partition": 99, "replicas": [0, 1, 2]},
    {"topic": "orders", "partition": 1, "replicas": [0, 1, 2], "log_dirs": ["any"]},
    {"topic": "orders", "partition": 2, "replicas": [0, 1, 2], "log_dirs": ["relative", "any", "any"]},
]


def write(raw: bytes) -> str:
    d = scratch_dir()
    p = d / "plan.json"
    p.write_bytes(raw)
    return str(p)


@st.composite
def refused_plans(draw, bad_entries=tuple(BAD_ENTRIES)):
    """Bytes of a plan that must be refused: damaged, or holding at least one bad entry."""
    raw = draw(damaged(reassignment_docs()))
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError):
        return raw  # not JSON: refused
    if isinstance(doc, dict) and isinstance(doc.get("partitions"), list):
        doc["partitions"].insert(draw(st.integers(0, len(doc["partitions"]))), draw(st.sampled_from(bad_entries)))
        return json.dumps(doc, allow_nan=True).encode("utf-8", "surrogatepass")
    return raw


@FUZZ
@given(raw=refused_plans())
def test_execute_refuses_bad_plans_and_changes_nothing(fuzz_sandbox, raw):
    EXAMPLES["reassignment files"] += 1
    fuzz_sandbox.clear_requests()
    path = write(raw)
    result = invoke(["reassign", "execute", "--reassignment-json-file", path, "-b", fuzz_sandbox.bootstrap,
                     "--throttle", "10MB/s", "--timeout", "5s"])
    check_outcome(result, codes=(2,), what=repr(raw[:300]))
    check_unchanged(fuzz_sandbox, repr(raw[:300]))


@FUZZ
@given(raw=damaged(reassignment_docs()))
def test_execute_dry_run_never_crashes(fuzz_sandbox, raw):
    EXAMPLES["reassignment files"] += 1
    fuzz_sandbox.clear_requests()
    result = invoke(["reassign", "execute", "--dry-run", "--reassignment-json-file", write(raw),
                     "-b", fuzz_sandbox.bootstrap, "--timeout", "5s"])
    check_outcome(result, codes=(0, 2), what=repr(raw[:300]))
    check_unchanged(fuzz_sandbox, repr(raw[:300]))


@FUZZ
@given(raw=refused_plans())
def test_verify_refuses_bad_plans_and_changes_nothing(fuzz_sandbox, raw):
    EXAMPLES["reassignment files"] += 1
    fuzz_sandbox.clear_requests()
    result = invoke(["reassign", "verify", "--reassignment-json-file", write(raw), "-b", fuzz_sandbox.bootstrap,
                     "--timeout", "5s"])
    # A well-formed plan naming what the cluster lacks (unknown topic, partition or broker) is
    # one the cluster "differs from" (exit 4), as for Kafka's --verify; a file with problems of
    # its own (malformed, duplicate replicas or partitions) is bad input (2), as for execute.
    # Either way nothing is removed or changed.
    check_outcome(result, codes=(2, 4), what=repr(raw[:300]))
    check_unchanged(fuzz_sandbox, repr(raw[:300]))


@FUZZ
@given(raw=damaged(topics_docs()), brokers=st.sampled_from(["0,1,2", "0,1", "1", "0,9", "-1", "a,b", "", "0,,1"]))
def test_generate_with_any_topics_file(fuzz_sandbox, raw, brokers):
    EXAMPLES["topics files"] += 1
    fuzz_sandbox.clear_requests()
    result = invoke(["reassign", "generate", "--topics-to-move-json-file", write(raw), "--broker-list", brokers,
                     "-b", fuzz_sandbox.bootstrap, "--timeout", "5s"])
    check_outcome(result, codes=(0, 2), what=f"{brokers!r} {raw[:300]!r}")
    check_unchanged(fuzz_sandbox, repr(raw[:300]))


@FUZZ
@given(entry=entries())
def test_a_single_fuzzed_entry_in_a_valid_plan(fuzz_sandbox, entry):
    """Well-formed JSON, one entry of any shape: the dry run either accepts it or says why."""
    EXAMPLES["reassignment files"] += 1
    fuzz_sandbox.clear_requests()
    raw = json.dumps({"version": 1, "partitions": [entry]}, allow_nan=True).encode("utf-8", "surrogatepass")
    result = invoke(["reassign", "execute", "--dry-run", "--reassignment-json-file", write(raw),
                     "-b", fuzz_sandbox.bootstrap, "--timeout", "5s"])
    check_outcome(result, codes=(0, 2), what=repr(raw[:300]))
    check_unchanged(fuzz_sandbox, repr(raw[:300]))


@FUZZ
@given(raw=refused_plans(tuple(MALFORMED_ENTRIES)))
def test_throttle_set_from_a_malformed_plan_changes_nothing(fuzz_sandbox, raw):
    """throttle set takes a plan as a list of moves to throttle: only a malformed plan is
    refused whole (a plan naming a missing broker or topic is refused by _check_targets)."""
    EXAMPLES["reassignment files"] += 1
    fuzz_sandbox.clear_requests()
    result = invoke(["throttle", "set", "--rate", "1MB/s", "--from-plan", write(raw), "-b", fuzz_sandbox.bootstrap,
                     "--timeout", "5s"])
    check_outcome(result, codes=(2,), what=repr(raw[:300]))
    check_unchanged(fuzz_sandbox, repr(raw[:300]))


@FUZZ
@given(raw=damaged(reassignment_docs()))
def test_cancel_with_any_plan_changes_nothing_here(fuzz_sandbox, raw):
    """Nothing is moving in the sandbox: cancelling any plan, good or bad, has nothing to change."""
    EXAMPLES["reassignment files"] += 1
    fuzz_sandbox.clear_requests()
    result = invoke(["reassign", "cancel", "--reassignment-json-file", write(raw), "-b", fuzz_sandbox.bootstrap,
                     "--timeout", "5s"])
    check_outcome(result, codes=(0, 2), what=repr(raw[:300]))
    assert [r for r in fuzz_sandbox.mutating_requests() if r[1] != "AlterPartitionReassignments"] == [], raw[:300]


def test_throttle_set_refuses_a_plan_naming_a_missing_broker_before_any_change(fuzz_sandbox):
    """Found by fuzzing: throttle set --from-plan used to change brokers 0-2, then wait 30 s for
    broker 7 and fail (exit 1), leaving a partial change."""
    fuzz_sandbox.clear_requests()
    plan = write(json.dumps({"version": 1, "partitions": [
        {"topic": "orders", "partition": 0, "replicas": [7, 1, 2]},
        {"topic": "payments", "partition": 0, "replicas": [2, 1]}]}).encode())
    result = invoke(["throttle", "set", "--rate", "1MB/s", "--from-plan", plan, "-b", fuzz_sandbox.bootstrap])
    assert result.exit_code == 2
    assert result.stderr == (  # the plan validated as reassign execute validates it
        f"kadmin: error: {plan}: the reassignment plan has 1 problem; nothing was changed (fix the plan and run again)\n"
        f"  - {plan}: partitions[0] (orders-0) replicas[0]: unknown broker 7: not among the running brokers (0, 1, 2)\n")
    check_unchanged(fuzz_sandbox, "missing broker")
