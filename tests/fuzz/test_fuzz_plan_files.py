"""Fuzzed reassignment files (reassign execute, execute --dry-run, verify) and topics-to-move
files (reassign generate) against the sandbox: exit 2 with one clear message (or 0 for a valid
file where that is allowed), never a traceback, and the cluster never changed."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.strategies import damaged, entries, reassignment_docs, topics_docs
from tests.fuzz.support import EXAMPLES, FUZZ, check_outcome, check_unchanged, invoke

# An entry that no cluster accepts, so a plan holding it is refused as a whole.
BAD_ENTRIES = [
    {"topic": "orders", "partition": -1, "replicas": [0]},
    {"topic": "orders", "partition": 0, "replicas": [0, 0, 1]},
    {"topic": "unknown-topic", "partition": 0, "replicas": [0]},
    {"topic": "orders", "partition": 0, "replicas": [7, 1, 2]},
    {"topic": "orders", "partition": 99, "replicas": [0, 1, 2]},
    {"topic": "orders", "partition": 1, "replicas": [0, 1, 2], "log_dirs": ["any"]},
    {"topic": "orders", "partition": 2, "replicas": [0, 1, 2], "log_dirs": ["relative", "any", "any"]},
    {"topic": 5, "partition": 0, "replicas": [0, 1, 2]},
    {"topic": "orders", "partition": "0", "replicas": [0, 1, 2]},
    {"topic": "orders", "partition": 0, "replicas": [2**63, 1, 2]},
]


def write(raw: bytes) -> str:
    d = Path(tempfile.mkdtemp(prefix="kadmin-fuzz-"))
    p = d / "plan.json"
    p.write_bytes(raw)
    return str(p)


@st.composite
def refused_plans(draw):
    """Bytes of a plan that must be refused: damaged, or holding at least one bad entry."""
    raw = draw(damaged(reassignment_docs()))
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError):
        return raw  # not JSON: refused
    if isinstance(doc, dict) and isinstance(doc.get("partitions"), list):
        doc["partitions"].insert(draw(st.integers(0, len(doc["partitions"]))), draw(st.sampled_from(BAD_ENTRIES)))
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
    # A well-formed plan naming what the cluster lacks (unknown topic, partition or broker,
    # duplicate replicas) is one the cluster "differs from" (exit 4), as for Kafka's --verify;
    # a malformed one is bad input (2). Either way nothing is removed or changed.
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
