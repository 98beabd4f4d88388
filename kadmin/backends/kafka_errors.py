"""Kafka error codes as names kadmin shows, and the Java exception class names that
Kafka's own tools print (``kafka-log-dirs.sh`` puts ``error.getClass.getName`` in its JSON)."""

from __future__ import annotations

# code -> (protocol name, Java exception class)
_ERRORS: dict[int, tuple[str, str]] = {
    0: ("NONE", ""),
    -1: ("UNKNOWN_SERVER_ERROR", "UnknownServerException"),
    3: ("UNKNOWN_TOPIC_OR_PARTITION", "UnknownTopicOrPartitionException"),
    6: ("NOT_LEADER_OR_FOLLOWER", "NotLeaderOrFollowerException"),
    7: ("REQUEST_TIMED_OUT", "TimeoutException"),
    9: ("REPLICA_NOT_AVAILABLE", "ReplicaNotAvailableException"),
    29: ("TOPIC_AUTHORIZATION_FAILED", "TopicAuthorizationException"),
    31: ("CLUSTER_AUTHORIZATION_FAILED", "ClusterAuthorizationException"),
    35: ("UNSUPPORTED_VERSION", "UnsupportedVersionException"),
    36: ("TOPIC_ALREADY_EXISTS", "TopicExistsException"),
    37: ("INVALID_PARTITIONS", "InvalidPartitionsException"),
    38: ("INVALID_REPLICATION_FACTOR", "InvalidReplicationFactorException"),
    39: ("INVALID_REPLICA_ASSIGNMENT", "InvalidReplicaAssignmentException"),
    40: ("INVALID_CONFIG", "InvalidConfigurationException"),
    41: ("NOT_CONTROLLER", "NotControllerException"),
    42: ("INVALID_REQUEST", "InvalidRequestException"),
    56: ("KAFKA_STORAGE_ERROR", "KafkaStorageException"),
    57: ("LOG_DIR_NOT_FOUND", "LogDirNotFoundException"),
    58: ("SASL_AUTHENTICATION_FAILED", "SaslAuthenticationException"),
    80: ("PREFERRED_LEADER_NOT_AVAILABLE", "PreferredLeaderNotAvailableException"),
    83: ("ELIGIBLE_LEADERS_NOT_AVAILABLE", "EligibleLeadersNotAvailableException"),
    84: ("ELECTION_NOT_NEEDED", "ElectionNotNeededException"),
    85: ("NO_REASSIGNMENT_IN_PROGRESS", "NoReassignmentInProgressException"),
}

JAVA_ERRORS_PACKAGE = "org.apache.kafka.common.errors."


def error_name(code: int) -> str:
    """Kafka's protocol name for an error code, e.g. 9 -> "REPLICA_NOT_AVAILABLE"."""
    return _ERRORS.get(code, (f"ERROR_{code}", ""))[0]


def java_class_name(code: int) -> str:
    """The fully qualified Java exception class, as Kafka's tools print it."""
    cls = _ERRORS.get(code, ("", "UnknownServerException"))[1] or "UnknownServerException"
    return JAVA_ERRORS_PACKAGE + cls


def code_of_java_class(name: str) -> int | None:
    short = name.rsplit(".", 1)[-1]
    for code, (_, cls) in _ERRORS.items():
        if cls == short:
            return code
    return None
