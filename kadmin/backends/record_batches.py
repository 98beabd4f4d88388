"""Reading the records of a Fetch answer: Kafka's record batch format (magic v2, KIP-98), for
the throttle-record topic kadmin reads.

kafka-python's decoder (``kafka.record``) imports every compression codec it could meet (gzip,
snappy, lz4, zstd probes) before it reads a byte: ~4 ms of a read command, for a topic kadmin
writes itself, uncompressed. This reads the uncompressed v2 batches, the only kind kadmin's
producer writes; a batch compressed (by a broker or topic ``compression.type``) or in an older
message format is left to kafka-python's decoder (``batches`` hands it over). Like kafka-python's
``MemoryRecords`` as kadmin used it, it does not check the batch CRCs (the broker checked them
when the batch was produced) and stops at a batch the answer cuts short (KIP-74: the fetch size
limit may end an answer inside a batch).

Layout (Kafka's DefaultRecordBatch): a 61-byte header, then ``count`` records, each a varint
length, an attributes byte, varint timestamp and offset deltas, varint-length key and value
(length -1: null) and varint-counted headers.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import NamedTuple

# Batch header: base offset (int64), batch length (int32: the bytes after it), partition leader
# epoch (int32), magic (int8), CRC (uint32), attributes (int16), last offset delta (int32), base
# and max timestamps (int64), producer id (int64) and epoch (int16), base sequence (int32),
# record count (int32).
_HEADER = struct.Struct(">qiibIhiqqqhii")
HEADER_SIZE = _HEADER.size  # 61
LOG_OVERHEAD = 12  # base offset and batch length: the bytes not counted in the batch length
MAGIC_OFFSET = 16  # where the magic byte sits in every message format (v0, v1, v2)
COMPRESSION_MASK = 0x07
CONTROL_FLAG = 0x20


class Unreadable(Exception):
    """A batch this module does not read (compressed, an older message format): kafka-python's
    decoder reads the answer instead."""


class Batch(NamedTuple):
    """One record batch: its records as (offset, key, value), and the offset after it. (A
    NamedTuple: a read command does not pay for generating a dataclass's methods.)"""

    next_offset: int
    is_control: bool
    records: tuple[tuple[int, bytes | None, bytes | None], ...]


def read_batches(data: bytes) -> Iterator[Batch]:
    """The whole batches in ``data`` (a Fetch answer's records), in order. Raises ``Unreadable``
    at a batch that is compressed or not magic v2, ``ValueError`` at one whose records do not
    fit its length."""
    view = memoryview(data)
    pos = 0
    while len(data) - pos >= LOG_OVERHEAD:
        length = struct.unpack_from(">i", data, pos + 8)[0]
        end = pos + LOG_OVERHEAD + length
        if end > len(data):
            return  # cut short by the fetch size limit
        if length < HEADER_SIZE - LOG_OVERHEAD:
            raise ValueError(f"record batch at byte {pos} is {length} bytes long, shorter than its header")
        magic = data[pos + MAGIC_OFFSET]
        if magic != 2:
            raise Unreadable(f"message format v{magic}")
        base, _, _, _, _, attributes, last_delta, _, _, _, _, _, count = _HEADER.unpack_from(data, pos)
        if attributes & COMPRESSION_MASK:
            raise Unreadable(f"compression codec {attributes & COMPRESSION_MASK}")
        records = tuple(_records(view, pos + HEADER_SIZE, end, base, count))
        yield Batch(base + last_delta + 1, bool(attributes & CONTROL_FLAG), records)
        pos = end


def _records(view: memoryview, pos: int, end: int, base: int, count: int):
    for _ in range(count):
        length, pos = _varint(view, pos, end)
        record_end = pos + length
        if length < 0 or record_end > end:
            raise ValueError("a record runs past its batch")
        pos += 1  # attributes: unused since KIP-98
        _, pos = _varint(view, pos, record_end)  # timestamp delta
        offset_delta, pos = _varint(view, pos, record_end)
        key, pos = _bytes(view, pos, record_end)
        value, pos = _bytes(view, pos, record_end)
        yield base + offset_delta, key, value
        pos = record_end  # headers: kadmin's records have none, and needs none


def _bytes(view: memoryview, pos: int, end: int) -> tuple[bytes | None, int]:
    n, pos = _varint(view, pos, end)
    if n < 0:
        return None, pos
    if pos + n > end:
        raise ValueError("a record's key or value runs past the record")
    return bytes(view[pos : pos + n]), pos + n


def _varint(view: memoryview, pos: int, end: int) -> tuple[int, int]:
    """A zig-zag varint (protobuf's encoding, as Kafka writes it) at ``pos``; the position after it."""
    shift = raw = 0
    while True:
        if pos >= end or shift > 63:
            raise ValueError("a varint runs past its record")
        b = view[pos]
        pos += 1
        raw |= (b & 0x7F) << shift
        if not b & 0x80:
            return (raw >> 1) ^ -(raw & 1), pos
        shift += 7


def batches(data: bytes) -> list[Batch]:
    """The whole record batches of a Fetch answer: read here when every one is an uncompressed
    v2 batch, else by kafka-python's decoder."""
    try:
        return list(read_batches(data))
    except Unreadable:
        return read_with_kafka_python(data)


def read_with_kafka_python(data: bytes) -> list[Batch]:
    """The record batches as kafka-python's decoder reads them (any compression, any message
    format). Rare here, so its import (every compression codec) is paid only then."""
    from kafka.record.memory_records import MemoryRecords

    out = []
    records = MemoryRecords(data)
    while records.has_next():
        batch = records.next_batch()
        if batch is None:
            break
        rows = tuple((r.offset, r.key, r.value) for r in batch)
        # a legacy (v0, v1) batch has no next_offset: it ends after its last record
        after = getattr(batch, "next_offset", None)
        if after is None:
            after = rows[-1][0] + 1 if rows else 0
        out.append(Batch(after, bool(getattr(batch, "is_control_batch", False)), rows))
    return out
