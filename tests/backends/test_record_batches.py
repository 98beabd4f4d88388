"""kadmin's reader of record batches (the throttle-record topic's Fetch answers) against batches
kafka-python's producer-side builder writes, and kafka-python's own decoder as the oracle."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kadmin.backends.record_batches import Unreadable, batches, read_batches, read_with_kafka_python

GZIP = 1


def build(records, magic=2, compression=0, offset=0, headers=()):
    from kafka.record.memory_records import MemoryRecordsBuilder

    b = MemoryRecordsBuilder(magic=magic, compression_type=compression, batch_size=2**20, offset=offset)
    for key, value in records:
        b.append(timestamp=None, key=key, value=value, headers=list(headers) if magic == 2 else None)
    b.close()
    return bytes(b.buffer())


def by_kafka_python(data):
    return [(b.next_offset, list(b.records)) for b in read_with_kafka_python(data)]


def mine(data):
    return [(b.next_offset, list(b.records)) for b in read_batches(data)]


def test_a_batch_keys_values_tombstones_and_offsets():
    data = build([(b"plan-a", b'{"a": 1}'), (b"plan-b", None), (b"", b"")], offset=40)
    [batch] = read_batches(data)
    assert batch.records == ((40, b"plan-a", b'{"a": 1}'), (41, b"plan-b", None), (42, b"", b""))
    assert (batch.next_offset, batch.is_control) == (43, False)


def test_headers_are_stepped_over():
    data = build([(b"k", b"v"), (b"k2", b"v2")], headers=[("h", b"x" * 300), ("empty", b"")])
    assert mine(data) == by_kafka_python(data) == [(2, [(0, b"k", b"v"), (1, b"k2", b"v2")])]


def test_several_batches_and_a_batch_the_answer_cuts_short():
    """KIP-74: a Fetch answer may end inside a batch; the whole batches before it are read."""
    first, second = build([(b"a", b"1")] * 3), build([(b"b", b"2")] * 2, offset=3)
    assert [b.next_offset for b in read_batches(first + second)] == [3, 5]
    for cut in (1, 11, 12, 30, len(second) - 1):
        assert mine(first + second[:cut]) == mine(first) == by_kafka_python(first + second[:cut])
    assert mine(b"") == []


def test_a_control_batch_is_marked():
    data = bytearray(build([(b"\x00\x00\x00\x00", b"")]))
    data[22] |= 0x20  # attributes (int16 at byte 21): the control flag; CRCs are not checked
    assert next(read_batches(bytes(data))).is_control


@pytest.mark.parametrize("magic,compression", [(2, GZIP), (1, 0), (0, 0)])
def test_compressed_or_older_batches_are_left_to_kafka_python(magic, compression):
    data = build([(b"plan-a", b"x" * 100), (b"plan-b", None)], magic=magic, compression=compression)
    with pytest.raises(Unreadable):
        list(read_batches(data))
    # ... which the record topic's reader then uses, with the same result.
    assert [(b.next_offset, list(b.records)) for b in batches(data)] == by_kafka_python(data)
    read = [r for b in batches(data) for r in b.records]
    assert read == [(0, b"plan-a", b"x" * 100), (1, b"plan-b", None)] and batches(data)[-1].next_offset == 2


def test_a_damaged_batch_is_an_error_not_a_wrong_answer():
    data = bytearray(build([(b"plan-a", b"value")]))
    data[61] = 0x7E  # the first record's length, far past the batch
    with pytest.raises(ValueError):
        list(read_batches(bytes(data)))
    short = bytearray(data[:12]) + bytes(4)
    short[8:12] = (4).to_bytes(4, "big")  # a batch "4 bytes long": shorter than its own header
    with pytest.raises(ValueError):
        list(read_batches(bytes(short)))


keys = st.one_of(st.none(), st.binary(max_size=300))


@given(st.lists(st.lists(st.tuples(keys, keys), min_size=1, max_size=20), min_size=1, max_size=4))
def test_reads_what_kafka_pythons_decoder_reads(batches):
    data, offset = b"", 0
    for records in batches:
        data += build(records, offset=offset)
        offset += len(records)
    assert mine(data) == by_kafka_python(data)
