"""Kafka's wire format for the small client (``wire_client``): requests encoded and responses
decoded straight from Kafka's own message definitions, the JSON specs Apache Kafka writes its
protocol in (kafka-python ships them with its package; they are read as data, nothing of
kafka-python is imported).

kafka-python's message classes cost a read command ~25 ms before the first byte is sent: its
protocol package imports its error classes, utilities and ``importlib.resources``, and each
message class is built for every version at once. Here a message is read from its spec when
first used, and only the version spoken is prepared (~0.1-0.3 ms), to a plan of steps: runs of
fixed-width fields are read by one ``struct`` call, lists of numbers by one call each.

Decoded structs are tuples with named fields (``resp.topics[0].partitions[0].leader_id``: the
names kafka-python gives, Kafka's in snake case). A field the version does not carry holds its
default, as in Kafka's generated classes. Tagged fields are skipped on reading and none are
written. Requests are dicts by the same names; a missing field is written as its default.
"""

from __future__ import annotations

import functools
import json
import operator
import os
import re
import struct
import threading
from collections.abc import Callable
from typing import Any


class CodecError(Exception):
    """A message this codec cannot encode or decode (no spec, a version it does not know, or
    bytes that do not parse)."""


# --- the specs --------------------------------------------------------------------------------


@functools.cache
def _spec_dir() -> str:
    import importlib.util

    spec = importlib.util.find_spec("kafka")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise CodecError("kafka-python's message specs are not installed")
    return os.path.join(next(iter(spec.submodule_search_locations)), "protocol", "schemas", "resources")


_COMMENT = re.compile(r"^\s*//.*$", re.MULTILINE)
_specs: dict[str, dict] = {}
_lock = threading.Lock()


def load_spec(name: str) -> dict:
    """Kafka's JSON spec of message ``name`` (e.g. "MetadataResponse"), its common structs
    resolved into the fields that use them."""
    with _lock:
        spec = _specs.get(name)
        if spec is None:
            try:
                with open(os.path.join(_spec_dir(), name + ".json"), encoding="utf-8") as f:
                    spec = json.loads(_COMMENT.sub("", f.read()))
            except (OSError, ValueError) as e:
                raise CodecError(f"no spec for {name}: {e}") from None
            common = {s["name"]: s["fields"] for s in spec.get("commonStructs", ())}
            _resolve(spec.get("fields", ()), common)
            _specs[name] = spec
        return spec


def _resolve(fields, common: dict) -> None:
    for f in fields:
        inner = f["type"].removeprefix("[]")
        if "fields" not in f and inner in common:
            f["fields"] = common[inner]
        if "fields" in f:
            _resolve(f["fields"], common)


def in_versions(versions: str | None, version: int) -> bool:
    """Whether ``version`` is in a spec's version range ("0+", "3-7", "5", "none")."""
    if not versions or versions == "none":
        return False
    if versions.endswith("+"):
        return version >= int(versions[:-1])
    low, _, high = versions.partition("-")
    return int(low) <= version <= int(high or low)


_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def snake(name: str) -> str:
    """A field's name as kafka-python gives it: "PartitionIndex" -> "partition_index"."""
    return _CAMEL.sub("_", name).lower()


# --- primitive types ----------------------------------------------------------------------------

_FIXED = {
    "bool": "?",
    "int8": "b",
    "int16": "h",
    "uint16": "H",
    "int32": "i",
    "uint32": "I",
    "int64": "q",
    "float64": "d",
}
_ZERO_UUID = bytes(16)


def _default(field: dict, version: int):
    """A field's value when absent: its spec default, else its type's zero."""
    kind = field["type"]
    given = field.get("default")
    if kind.startswith("[]"):
        return [] if given != "null" else None
    if given == "null":
        return None
    if kind == "bool":
        return given == "true"
    if kind == "float64":
        return float(given) if given else 0.0
    if kind in _FIXED:
        return int(given, 0) if given else 0
    if kind == "string":
        return given or ""
    if kind == "uuid":
        return _ZERO_UUID
    if kind in ("bytes", "records"):
        return b"" if not in_versions(field.get("nullableVersions"), version) else None
    return None  # a struct


def read_uvarint(buf, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7
        if shift > 28:
            raise CodecError("unsigned varint longer than 5 bytes")


def write_uvarint(out: bytearray, value: int) -> None:
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")


def _skip_tags(buf, pos: int) -> int:
    if buf[pos] == 0:  # almost always: no tagged fields
        return pos + 1
    count, pos = read_uvarint(buf, pos)
    for _ in range(count):
        _, pos = read_uvarint(buf, pos)
        size, pos = read_uvarint(buf, pos)
        pos += size
    return pos


# --- decoding -----------------------------------------------------------------------------------

Reader = Callable[[Any, int], tuple[Any, int]]


def _length_reader(compact: bool, width: struct.Struct) -> Reader:
    """A length or a count (-1: null): in flexible versions an unsigned varint of it plus one,
    else a signed int16 (strings) or int32 (bytes, arrays)."""
    if not compact:
        size = width.size
        return lambda buf, pos: (width.unpack_from(buf, pos)[0], pos + size)

    def read(buf, pos):
        n = buf[pos]
        if n < 0x80:  # almost always: one byte
            return n - 1, pos + 1
        n, pos = read_uvarint(buf, pos)
        return n - 1, pos

    return read


def _sized_reader(compact: bool, width: struct.Struct, convert: Callable) -> Reader:
    """A string or bytes: its length, then that many bytes (``convert``-ed), or null."""
    length = _length_reader(compact, width)

    def read(buf, pos):
        n, pos = length(buf, pos)
        if n < 0:
            return None, pos
        return convert(buf[pos : pos + n]), pos + n

    return read


def _utf8(data) -> str:
    return str(data, "utf-8")


def _array_reader(element: str, item: Reader | None, compact: bool) -> Reader:
    count = _length_reader(compact, _I32)
    if item is None:  # fixed-width numbers: one unpack for the whole list
        code, size = _FIXED[element], struct.calcsize(_FIXED[element])
        unpackers: dict[int, Callable] = {}

        def read_numbers(buf, pos):
            n, pos = count(buf, pos)
            if n < 0:
                return None, pos
            unpack = unpackers.get(n)
            if unpack is None:
                unpack = unpackers[n] = struct.Struct(f">{n}{code}").unpack_from
            return list(unpack(buf, pos)), pos + n * size

        return read_numbers

    def read_items(buf, pos):
        n, pos = count(buf, pos)
        if n < 0:
            return None, pos
        if n > len(buf) - pos:  # each takes a byte at least: a count no answer this long can hold
            raise CodecError(f"{n} elements in {len(buf) - pos} bytes")
        out = []
        append = out.append
        for _ in range(n):
            value, pos = item(buf, pos)
            append(value)
        return out, pos

    return read_items


def struct_reader(name: str, fields: list, version: int, flexible: bool) -> Reader:
    """A reader of one struct at ``version``: a tuple class with every field of the struct
    (those the version lacks hold their defaults), filled by a plan of steps."""
    present: list[dict] = []
    absent: list[dict] = []
    steps: list[tuple[struct.Struct | None, Reader | None]] = []  # (Struct, None) or (None, reader)
    fmt = ""
    for f in fields:
        if not in_versions(f.get("versions"), version):
            absent.append(f)
            continue
        if flexible and in_versions(f.get("taggedVersions"), version):
            absent.append(f)  # tagged: skipped with the struct's tag buffer
            continue
        present.append(f)
        kind = f["type"]
        if kind in _FIXED:
            fmt += _FIXED[kind]
            continue
        if fmt:
            steps.append((struct.Struct(">" + fmt), None))
            fmt = ""
        steps.append((None, _field_reader(f, version, flexible)))
    if fmt:
        steps.append((struct.Struct(">" + fmt), None))
    names = [snake(f["name"]) for f in present + absent]
    defaults = tuple(_default(f, version) for f in absent)
    new = tuple.__new__
    cls = None  # its tuple class, made when one is first read (many lists come back empty)

    def read(buf, pos):
        nonlocal cls
        if cls is None:
            cls = _struct_class(name, names)  # built at run time
        values: list = []
        for fixed, reader in steps:
            if fixed is not None:
                values.extend(fixed.unpack_from(buf, pos))
                pos += fixed.size
            else:
                value, pos = reader(buf, pos)
                values.append(value)
        if flexible:
            pos = _skip_tags(buf, pos)
        return new(cls, (*values, *defaults)), pos

    return read


def _struct_class(name: str, names: list[str]) -> type:
    """The tuple class of a decoded struct: a read-only attribute per field, by position.
    ``collections.namedtuple`` would serve, but it compiles code for every class it makes
    (~0.1 ms each; a command decoding five kinds of answer makes ~20 of them)."""
    members: dict[str, Any] = {n: property(operator.itemgetter(i)) for i, n in enumerate(names)}
    return type(name, (tuple,), {**members, "__slots__": (), "_fields": tuple(names), "__repr__": _struct_repr})


def _struct_repr(self) -> str:
    return f"{type(self).__name__}({', '.join(f'{n}={v!r}' for n, v in zip(self._fields, self))})"


def _field_reader(f: dict, version: int, flexible: bool) -> Reader:
    kind = f["type"]
    if kind == "string":
        return _sized_reader(flexible, _I16, _utf8)
    if kind in ("bytes", "records"):
        return _sized_reader(flexible, _I32, bytes)
    if kind == "uuid":
        return lambda buf, pos: (bytes(buf[pos : pos + 16]), pos + 16)
    if kind.startswith("[]"):
        element = kind[2:]
        if element in _FIXED:
            return _array_reader(element, None, flexible)
        if element == "string":
            return _array_reader(element, _sized_reader(flexible, _I16, _utf8), flexible)
        return _array_reader(element, struct_reader(element, f["fields"], version, flexible), flexible)
    if "fields" in f:
        return struct_reader(kind, f["fields"], version, flexible)
    raise CodecError(f"field {f['name']} has a type this codec does not read: {kind}")


# --- encoding -----------------------------------------------------------------------------------

Writer = Callable[[bytearray, Any], None]


def _write_string(out: bytearray, value, compact: bool) -> None:
    if value is None:
        out += b"\x00" if compact else b"\xff\xff"
        return
    data = value.encode("utf-8")
    if compact:
        write_uvarint(out, len(data) + 1)
    else:
        out += _I16.pack(len(data))
    out += data


def _write_bytes(out: bytearray, value, compact: bool) -> None:
    if value is None:
        out += b"\x00" if compact else b"\xff\xff\xff\xff"
        return
    if compact:
        write_uvarint(out, len(value) + 1)
    else:
        out += _I32.pack(len(value))
    out += value


def _write_count(out: bytearray, n: int | None, compact: bool) -> None:
    if compact:
        write_uvarint(out, 0 if n is None else n + 1)
    else:
        out += _I32.pack(-1 if n is None else n)


def _value_writer(f: dict, version: int, flexible: bool) -> Writer:
    kind = f["type"]
    if kind in _FIXED:
        packer = struct.Struct(">" + _FIXED[kind]).pack
        return lambda out, v: out.extend(packer(v))
    if kind == "string":
        return lambda out, v: _write_string(out, v, flexible)
    if kind in ("bytes", "records"):
        return lambda out, v: _write_bytes(out, v, flexible)
    if kind == "uuid":
        return lambda out, v: out.extend(v or _ZERO_UUID)
    if kind.startswith("[]"):
        element = kind[2:]
        item = (
            _value_writer({"type": element}, version, flexible)
            if element in _FIXED or element == "string"
            else struct_writer(f["fields"], version, flexible)
        )

        def write_list(out, values):
            if values is None:
                _write_count(out, None, flexible)
                return
            _write_count(out, len(values), flexible)
            for v in values:
                item(out, v)

        return write_list
    if "fields" in f:
        return struct_writer(f["fields"], version, flexible)
    raise CodecError(f"field {f['name']} has a type this codec does not write: {kind}")


def struct_writer(fields: list, version: int, flexible: bool) -> Writer:
    """A writer of one struct (a dict by snake-case names; a missing name: its default)."""
    plan = [
        (
            snake(f["name"]),
            _default(f, version),
            in_versions(f.get("nullableVersions"), version),
            _value_writer(f, version, flexible),
        )
        for f in fields
        if in_versions(f.get("versions"), version) and not (flexible and in_versions(f.get("taggedVersions"), version))
    ]

    def write(out, value):
        get = value.get
        for name, default, nullable, writer in plan:
            v = get(name, default)
            writer(out, default if v is None and not nullable else v)
        if flexible:
            out.append(0)  # no tagged fields

    return write


# --- messages -----------------------------------------------------------------------------------


class Api:
    """One Kafka API (its request and response specs): encode requests, decode responses."""

    def __init__(self, name: str):
        self.name = name
        self.request_spec = load_spec(name + "Request")
        self.response_spec = load_spec(name + "Response")
        self.key: int = self.request_spec["apiKey"]
        low, _, high = self.request_spec["validVersions"].partition("-")
        self.min_version, self.max_version = int(low), int(high or low)
        self._writers: dict[int, Writer] = {}
        self._readers: dict[int, Reader] = {}
        self._lock = threading.Lock()

    def flexible(self, version: int) -> bool:
        return in_versions(self.request_spec.get("flexibleVersions"), version)

    def encode_request(self, version: int, correlation_id: int, client_id: str, body: dict) -> bytes:
        """The framed request (size, header, body)."""
        if not self.min_version <= version <= self.max_version:
            raise CodecError(f"{self.name} v{version} is not in the spec's versions")
        with self._lock:
            writer = self._writers.get(version)
            if writer is None:
                writer = self._writers[version] = struct_writer(
                    self.request_spec["fields"], version, self.flexible(version)
                )
        out = bytearray(4)
        out += struct.pack(">hhi", self.key, version, correlation_id)
        _write_string(out, client_id, compact=False)  # the header's client id is never compact
        if self.flexible(version):
            out.append(0)  # request header v2: no tagged fields
        writer(out, body)
        out[:4] = _I32.pack(len(out) - 4)
        return bytes(out)

    def decode_response(self, version: int, frame: bytes):
        """A response frame (without its size prefix, with its header) at ``version``."""
        with self._lock:
            reader = self._readers.get(version)
            if reader is None:
                flexible = in_versions(self.response_spec.get("flexibleVersions"), version)
                reader = self._readers[version] = struct_reader(
                    self.response_spec["name"], self.response_spec["fields"], version, flexible
                )
        pos = 4  # the correlation id (checked by the connection)
        try:
            # ApiVersions answers with header v0 at every version, so a client that sent a
            # version the broker does not know can still read the error.
            if self.flexible(version) and self.key != API_VERSIONS_KEY:
                pos = _skip_tags(frame, pos)
            value, pos = reader(memoryview(frame), pos)
        except (struct.error, IndexError, UnicodeDecodeError) as e:
            raise CodecError(f"{self.name} v{version} answer does not parse: {e}") from None
        if pos > len(frame):
            raise CodecError(f"{self.name} v{version} answer cut short")
        if pos < len(frame):
            raise CodecError(f"{self.name} v{version} answer: {len(frame) - pos} bytes left over")
        return value


API_VERSIONS_KEY = 18
_apis: dict[str, Api] = {}


def api(name: str) -> Api:
    """The API ``name`` ("Metadata", "DescribeConfigs"...), its specs read once."""
    found = _apis.get(name)
    if found is None:
        found = _apis.setdefault(name, Api(name))
    return found
