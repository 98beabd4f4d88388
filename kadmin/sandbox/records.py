"""A partition's stored log: the record batches clients produced, kept exactly as sent.

Only magic v2 batches (what Produce v3+ carries) are accepted. Appending assigns offsets the way
Kafka's leader does: it rewrites the batch's ``baseOffset`` (and ``partitionLeaderEpoch``), which
the batch CRC does not cover, so the bytes a consumer fetches pass its CRC check. The emulator
keeps one log per partition, shared by every replica: a replica's share of it is the prefix that
fits in that replica's simulated size (followers copy bytes; see ``end_offset_within``).

Layout of a v2 batch header (DefaultRecordBatch): baseOffset int64, batchLength int32,
partitionLeaderEpoch int32, magic int8, crc uint32 (CRC-32C of everything after it),
attributes int16, lastOffsetDelta int32, ...
"""

from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass, field

LOG_OVERHEAD = 12  # baseOffset + batchLength
HEADER_SIZE = 61  # a v2 batch header with no records
MAGIC_OFFSET = 16
CRC_OFFSET = 17
ATTRIBUTES_OFFSET = 21
LAST_OFFSET_DELTA_OFFSET = 23


class InvalidBatch(ValueError):
    """A batch Kafka would refuse; ``error_code`` is Kafka's answer (CORRUPT_MESSAGE, INVALID_RECORD)."""

    def __init__(self, error_code: int, message: str):
        super().__init__(message)
        self.error_code = error_code


CORRUPT_MESSAGE = 2
INVALID_RECORD = 87


def split_batches(records: bytes) -> list[bytes]:
    """The batches of a Produce request's ``records`` field, each checked (magic v2, length, CRC)."""
    from kafka.record.util import calc_crc32c

    out, pos = [], 0
    while pos < len(records):
        if len(records) - pos < HEADER_SIZE:
            raise InvalidBatch(CORRUPT_MESSAGE, "truncated record batch")
        (length,) = struct.unpack_from(">i", records, pos + 8)
        end = pos + LOG_OVERHEAD + length
        if length < HEADER_SIZE - LOG_OVERHEAD or end > len(records):
            raise InvalidBatch(CORRUPT_MESSAGE, f"record batch length {length} does not fit the request")
        batch = records[pos:end]
        if batch[MAGIC_OFFSET] != 2:
            raise InvalidBatch(
                INVALID_RECORD, f"record batch magic {batch[MAGIC_OFFSET]}: Produce v3+ requires magic 2"
            )
        (crc,) = struct.unpack_from(">I", batch, CRC_OFFSET)
        if calc_crc32c(batch[ATTRIBUTES_OFFSET:]) != crc:
            raise InvalidBatch(CORRUPT_MESSAGE, "record batch CRC does not match its contents")
        out.append(batch)
        pos = end
    if not out:
        raise InvalidBatch(CORRUPT_MESSAGE, "no record batch in the request")
    return out


@dataclass
class PartitionRecords:
    """The batches of one partition, in offset order; ``ends[i]`` is the byte size of batches 0..i."""

    log_start_offset: int = 0
    batches: list[bytes] = field(default_factory=list)
    base_offsets: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)  # cumulative sizes
    next_offsets: list[int] = field(default_factory=list)  # offset after each batch

    @property
    def end_offset(self) -> int:
        return self.next_offsets[-1] if self.next_offsets else self.log_start_offset

    @property
    def size(self) -> int:
        return self.ends[-1] if self.ends else 0

    def append(self, batch: bytes, leader_epoch: int) -> int:
        """Store one checked batch at the log end; its base offset."""
        base = self.end_offset
        (last_delta,) = struct.unpack_from(">i", batch, LAST_OFFSET_DELTA_OFFSET)
        stored = bytearray(batch)
        struct.pack_into(">q", stored, 0, base)
        struct.pack_into(">i", stored, LOG_OVERHEAD, leader_epoch)
        self.batches.append(bytes(stored))
        self.base_offsets.append(base)
        self.ends.append(self.size + len(stored))
        self.next_offsets.append(base + last_delta + 1)
        return base

    def end_offset_within(self, size: float) -> int:
        """The end offset of a replica that holds ``size`` bytes of this log (whole batches only)."""
        n = bisect.bisect_right(self.ends, int(size))
        return self.next_offsets[n - 1] if n else self.log_start_offset

    def read(self, offset: int, max_bytes: int, *, at_least_one: bool, upper: int | None = None) -> bytes:
        """Batches from the one holding ``offset``, up to ``max_bytes`` (one batch regardless when
        ``at_least_one``: KIP-74), none at or beyond ``upper`` (the high watermark)."""
        i = bisect.bisect_right(self.next_offsets, offset)
        out: list[bytes] = []
        total = 0
        while i < len(self.batches):
            if upper is not None and self.base_offsets[i] >= upper:
                break
            b = self.batches[i]
            if total + len(b) > max_bytes and not (at_least_one and not out):
                break
            out.append(b)
            total += len(b)
            i += 1
        return b"".join(out)
