"""Kafka's wire protocol through kafka-python's schema-generated message classes.

kafka-python has no API key -> class registry, so one is built here by walking its protocol
modules. Requests are decoded and responses encoded by those classes; this module only frames
them, reads the request header, and knows which APIs (and versions) the sandbox serves.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import struct
import threading
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from typing import Any

# Error codes (org.apache.kafka.common.protocol.Errors) the sandbox answers with.
NONE = 0
UNKNOWN_TOPIC_OR_PARTITION = 3
NOT_LEADER_OR_FOLLOWER = 6
REPLICA_NOT_AVAILABLE = 9
CLUSTER_AUTHORIZATION_FAILED = 31
TOPIC_ALREADY_EXISTS = 36
UNSUPPORTED_VERSION = 35
INVALID_PARTITIONS = 37
INVALID_REPLICATION_FACTOR = 38
INVALID_REPLICA_ASSIGNMENT = 39
INVALID_CONFIG = 40
NOT_CONTROLLER = 41
INVALID_REQUEST = 42
POLICY_VIOLATION = 44
KAFKA_STORAGE_ERROR = 56
LOG_DIR_NOT_FOUND = 57
INVALID_TOPIC_EXCEPTION = 17
PREFERRED_LEADER_NOT_AVAILABLE = 80
ELIGIBLE_LEADERS_NOT_AVAILABLE = 83
ELECTION_NOT_NEEDED = 84
NO_REASSIGNMENT_IN_PROGRESS = 85

ERROR_NAMES = {
    NONE: "NONE",
    UNKNOWN_TOPIC_OR_PARTITION: "UNKNOWN_TOPIC_OR_PARTITION",
    NOT_LEADER_OR_FOLLOWER: "NOT_LEADER_OR_FOLLOWER",
    REPLICA_NOT_AVAILABLE: "REPLICA_NOT_AVAILABLE",
    TOPIC_ALREADY_EXISTS: "TOPIC_ALREADY_EXISTS",
    UNSUPPORTED_VERSION: "UNSUPPORTED_VERSION",
    INVALID_PARTITIONS: "INVALID_PARTITIONS",
    INVALID_REPLICATION_FACTOR: "INVALID_REPLICATION_FACTOR",
    INVALID_REPLICA_ASSIGNMENT: "INVALID_REPLICA_ASSIGNMENT",
    INVALID_CONFIG: "INVALID_CONFIG",
    INVALID_REQUEST: "INVALID_REQUEST",
    KAFKA_STORAGE_ERROR: "KAFKA_STORAGE_ERROR",
    LOG_DIR_NOT_FOUND: "LOG_DIR_NOT_FOUND",
    ELECTION_NOT_NEEDED: "ELECTION_NOT_NEEDED",
    NO_REASSIGNMENT_IN_PROGRESS: "NO_REASSIGNMENT_IN_PROGRESS",
}

# API keys the sandbox serves. ApiVersions advertises exactly these, with the version range the
# emulated Kafka version's brokers advertise (api_ranges) that kafka-python's classes (built from
# Kafka 4.x's JSON definitions) can decode.
PRODUCE = 0
FETCH = 1
API_VERSIONS = 18
METADATA = 3
LIST_OFFSETS = 2
CREATE_TOPICS = 19
DELETE_TOPICS = 20
DESCRIBE_CONFIGS = 32
ALTER_CONFIGS = 33
ALTER_REPLICA_LOG_DIRS = 34
DESCRIBE_LOG_DIRS = 35
ELECT_LEADERS = 43
INCREMENTAL_ALTER_CONFIGS = 44
ALTER_PARTITION_REASSIGNMENTS = 45
LIST_PARTITION_REASSIGNMENTS = 46
DESCRIBE_CLUSTER = 60
# Every listener advertises these and answers them (Kafka's ApiVersionManager lists
# ApiKeys.apisForListener(listenerType), whatever the security protocol): on a listener without
# SASL, or after a login, KafkaApis answers ILLEGAL_SASL_STATE (api_cluster); before a login on a
# SASL listener, security.Session takes them.
SASL_HANDSHAKE = 17
SASL_AUTHENTICATE = 36

SERVED = (
    API_VERSIONS,
    METADATA,
    LIST_OFFSETS,
    CREATE_TOPICS,
    DELETE_TOPICS,
    DESCRIBE_CONFIGS,
    ALTER_CONFIGS,
    ALTER_REPLICA_LOG_DIRS,
    DESCRIBE_LOG_DIRS,
    ELECT_LEADERS,
    INCREMENTAL_ALTER_CONFIGS,
    ALTER_PARTITION_REASSIGNMENTS,
    LIST_PARTITION_REASSIGNMENTS,
    DESCRIBE_CLUSTER,
    PRODUCE,
    FETCH,
    SASL_HANDSHAKE,
    SASL_AUTHENTICATE,
)
# Highest versions served where below kafka-python's: Produce v13 and Fetch v13+ name topics by
# id, which api_records does not (clients negotiate down).
MAX_VERSIONS = {PRODUCE: 12, FETCH: 12}

# A handler's answer meaning "send nothing back" (Produce with acks=0).
NO_RESPONSE = object()

# Requests that change the cluster: tests use these to prove "nothing reached the cluster".
MUTATING = frozenset(
    {
        "CreateTopics",
        "DeleteTopics",
        "AlterConfigs",
        "IncrementalAlterConfigs",
        "AlterReplicaLogDirs",
        "AlterPartitionReassignments",
        "ElectLeaders",
        "Produce",
    }
)


@dataclass(frozen=True)
class Api:
    key: int
    name: str  # Kafka's name without the Request suffix, e.g. "DescribeLogDirs"
    request: Any  # kafka-python's message classes (untyped)
    response: Any
    min_version: int  # the oldest version accepted
    max_version: int
    advertised_min: int | None = None  # what ApiVersions says, when below min_version (Produce on 4.x)

    @property
    def advertised(self) -> tuple[int, int]:
        return (self.min_version if self.advertised_min is None else self.advertised_min), self.max_version


_registry_lock = threading.Lock()


def registry() -> dict[int, Api]:
    """Every API kafka-python has message classes for, by key.

    Built (kafka-python imported) once, by one thread at a time: two threads importing
    kafka-python at once from different modules (sandboxes answering their first requests, each
    on its own thread; a client's imports) can each hold a module the other needs, and Python
    then hands one of them a "partially initialized module". A Sandbox calls this before its
    brokers' thread starts, so kafka-python is imported by the thread that starts it."""
    with _registry_lock:
        return _registry()


@lru_cache(maxsize=1)
def _registry() -> dict[int, Api]:
    from kafka.protocol.api_message import ApiMessage

    found: dict[int, dict[bool, Any]] = {}
    names = ["kafka.protocol.sasl"]
    for package in ("admin", "metadata", "consumer", "producer"):
        pkg = importlib.import_module(f"kafka.protocol.{package}")
        names += [f"kafka.protocol.{package}.{info.name}" for info in pkgutil.iter_modules(pkg.__path__)]
    for name in names:
        module = importlib.import_module(name)
        for obj in vars(module).values():
            if (
                inspect.isclass(obj)
                and issubclass(obj, ApiMessage)
                and obj is not ApiMessage
                and obj.__module__ == module.__name__
            ):
                cls: Any = obj  # a kafka-python message class
                found.setdefault(cls.API_KEY, {})[cls.is_request()] = cls
    apis: dict[int, Api] = {}
    for key, pair in found.items():
        if True in pair and False in pair:
            req = pair[True]
            lo, hi = req.valid_versions
            apis[key] = Api(key, req.name.removesuffix("Request"), req, pair[False], lo, hi)
    return apis


@cache
def served(kafka_version=None) -> dict[int, Api]:
    """The APIs a broker of ``kafka_version`` (a versions.KafkaVersion or its name; None = the
    default) serves, each with the versions it accepts: the range that Kafka version's brokers
    advertise, within what kafka-python's classes decode and the sandbox implements. Kafka closes
    the connection on any other version (but ApiVersions', see wire.py)."""
    from kadmin.sandbox.api_ranges import broker_ranges
    from kadmin.sandbox.versions import DEFAULT

    ranges = broker_ranges()[str(kafka_version or DEFAULT)]
    reg = registry()
    out = {}
    for k in SERVED:
        if k not in ranges:  # an API this Kafka version does not have
            continue
        advertised_lo, accepted_lo, hi = ranges[k]
        lo = max(accepted_lo, reg[k].min_version)
        hi = min(hi, reg[k].max_version, MAX_VERSIONS.get(k, hi))
        if lo > hi:
            continue
        # Advertised below the accepted range only where Kafka itself does so (Produce on 4.x).
        advertised_min = advertised_lo if advertised_lo < accepted_lo else None
        out[k] = replace(reg[k], min_version=lo, max_version=hi, advertised_min=advertised_min)
    return out


def peek_header(frame: bytes) -> tuple[int, int, int]:
    """(api_key, api_version, correlation_id) from a request frame without decoding the rest."""
    return struct.unpack_from(">hhi", frame, 0)


def decode_request(api: Api, version: int, frame: bytes):
    return api.request.decode(frame, version=version, header=True)


def encode_response(response, version: int, correlation_id: int) -> bytes:
    """Frame a response built at ``version`` (its constructor's ``version=``)."""
    if response.API_VERSION is None:
        response.API_VERSION = version
    response.with_header(correlation_id=correlation_id)
    return bytes(response.encode(header=True, framed=True))


def error_response(api: Api, version: int, error_code: int):
    """A response body carrying ``error_code`` wherever the schema has a top-level error field,
    as Kafka's ``AbstractRequest.getErrorResponse`` does for APIs it cannot serve."""
    fields: dict[str, Any] = {}
    for field in api.response._struct._fields:
        if not field.for_version_q(version):
            continue
        if field.name == "error_code":
            fields["error_code"] = error_code
        elif field.is_struct_array():
            fields[field.name] = []
    return api.response(version=version, **fields)
