"""Hypothesis strategies for hostile input files: JSON values of every type, reassignment and
topics documents near the real format, and the byte-level damage files suffer (truncation,
non-UTF-8 bytes, byte-order marks, deep nesting, huge numbers, duplicate keys)."""

from __future__ import annotations

import json

from hypothesis import strategies as st

TOPICS = ["orders", "payments", "unknown-topic", "", "a" * 250, "../etc", "tópico", "x\x00y", "foo.bar_baz-1"]

huge_ints = st.sampled_from([2**31, 2**31 - 1, -(2**31) - 1, 2**63, 2**64 + 7, 10**30, -1, -(10**20)])
ints = st.integers(min_value=-3, max_value=5) | huge_ints
texts = st.text(max_size=30) | st.sampled_from(TOPICS) | st.sampled_from(["any", "/data/d0", "/data/d1", "relative/dir"])
scalars = st.none() | st.booleans() | ints | st.floats(allow_nan=True, allow_infinity=True) | texts
json_values = st.recursive(scalars, lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=10), c, max_size=4),
                           max_leaves=12)


@st.composite
def entries(draw):
    """One "partitions" entry: mostly well-typed fields with adversarial values, sometimes any
    JSON value in any field, sometimes missing or extra keys."""
    entry = {
        "topic": draw(st.sampled_from(TOPICS) | json_values),
        "partition": draw(ints | json_values),
        "replicas": draw(st.lists(ints, max_size=5) | json_values),
    }
    if draw(st.booleans()):
        entry["log_dirs"] = draw(st.lists(texts, max_size=5) | json_values)
    for key in draw(st.lists(st.sampled_from(["topic", "partition", "replicas"]), max_size=2)):
        entry.pop(key, None)
    if draw(st.integers(0, 4)) == 0:
        entry[draw(st.text(max_size=8))] = draw(json_values)
    return entry


@st.composite
def reassignment_docs(draw):
    doc = {"version": draw(st.sampled_from([1, 1, 1, 2, 0, "1", None, 1.0, True])),
           "partitions": draw(st.lists(entries(), max_size=6) | json_values)}
    for key in draw(st.lists(st.sampled_from(["version", "partitions"]), max_size=1)):
        doc.pop(key)
    return draw(st.just(doc) | json_values) if draw(st.integers(0, 9)) == 0 else doc


@st.composite
def topics_docs(draw):
    doc = {"version": draw(st.sampled_from([1, 1, 2, "1", None])),
           "topics": draw(st.lists(st.fixed_dictionaries({"topic": st.sampled_from(TOPICS) | json_values})
                                   | json_values, max_size=5) | json_values)}
    return draw(st.just(doc) | json_values) if draw(st.integers(0, 9)) == 0 else doc


def nested(depth: int) -> bytes:
    return b'{"version":1,"partitions":' + b"[" * depth + b"]" * depth + b"}"


DAMAGE = ["none", "truncate", "non_utf8", "bom", "nesting", "huge_number", "duplicate_key", "nan", "empty",
          "trailing_garbage", "utf16"]


@st.composite
def damaged(draw, doc_strategy):
    """A document serialized, then maybe damaged the way real files get damaged."""
    doc = draw(doc_strategy)
    text = json.dumps(doc, ensure_ascii=draw(st.booleans()), allow_nan=True)
    raw = text.encode("utf-8", "surrogatepass")
    kind = draw(st.sampled_from(DAMAGE))
    if kind == "truncate" and raw:
        raw = raw[:draw(st.integers(0, len(raw) - 1))]
    elif kind == "non_utf8":
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80\x80"])) + raw[at:]
    elif kind == "bom":
        raw = b"\xef\xbb\xbf" + raw
    elif kind == "nesting":
        raw = nested(draw(st.sampled_from([50, 1000, 100_000])))
    elif kind == "huge_number":
        raw = b'{"version":1,"partitions":[{"topic":"orders","partition":' + b"9" * draw(
            st.sampled_from([20, 5000, 100_000])) + b',"replicas":[0,1,2]}]}'
    elif kind == "duplicate_key":
        raw = b'{"version":1,"partitions":[],' + raw[1:] if raw.startswith(b"{") and len(raw) > 2 else raw
    elif kind == "nan":
        raw = b'{"version":NaN,"partitions":[{"topic":"orders","partition":Infinity,"replicas":[-Infinity]}]}'
    elif kind == "empty":
        raw = draw(st.sampled_from([b"", b" \n", b"\x00"]))
    elif kind == "trailing_garbage":
        raw = raw + draw(st.sampled_from([b"}", b",", b"\x00", b" // comment"]))
    elif kind == "utf16":
        raw = text.encode("utf-16", "surrogatepass")
    return raw
