"""Error translation for the AdminClient-protocol backend: kafka-python's and librdkafka's
errors as kadmin's typed errors (kadmin.errors), with the permission or setting to check."""

from __future__ import annotations

from kadmin.backends.kafka_errors import error_name
from kadmin.errors import (
    AuthenticationError,
    AuthorizationError,
    ClusterError,
    ConnectionFailed,
    KadminError,
    UnsupportedOperation,
)

# kafka-python sends to one node (a random connected one, or the cached controller) and does not
# try another when that node has just gone away; the Java AdminClient does. These failures are
# retried a few times (admin_clients), against a fresh choice of node and controller.
TRANSIENT = (
    "KafkaConnectionError",
    "NodeNotReadyError",
    "NotControllerError",
    "NoBrokersAvailable",
    "UnknownBrokerIdError",
)
UNREACHABLE = (*TRANSIENT, "RequestTimedOutError", "KafkaTimeoutError")  # reported as ConnectionFailed


def kp_error_name(err) -> str:
    """A kafka-python error class or instance -> Kafka's protocol name."""
    code = getattr(err, "errno", None)
    if code is not None:
        return error_name(code)
    return getattr(err, "__name__", type(err).__name__)


def describe_exception(e: Exception) -> str:
    code = getattr(e, "errno", None)
    if code is not None:
        return error_name(code)
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


def cluster_error(e, what: str) -> KadminError:
    code = getattr(e, "errno", None)
    name = error_name(code) if code is not None else type(e).__name__
    text = f"{what}: {name}"
    detail = str(e)
    if detail and detail != name and name not in detail:
        text += f" ({detail})"
    if code in (29, 31, 58):  # the broker's own message, without the client's wrapping
        detail = broker_message(e)
        text = f"{what}: {name}" + (f" ({detail})" if detail else "")
    if code == 29:
        return AuthorizationError(
            text,
            error_code=code,
            hint="the principal needs CREATE on CLUSTER or on the topic"
            if what.startswith("creating")
            else "the principal needs a permission on the topic",
        )
    if code == 31 or name.endswith("AUTHORIZATION_FAILED"):
        hint = permission_hint("CLUSTER_AUTHORIZATION_FAILED", what) if code == 31 else None
        return AuthorizationError(text, error_code=code, hint=hint or "the principal needs ALTER/DESCRIBE on CLUSTER")
    if code == 58 or "Authentication" in type(e).__name__:
        return AuthenticationError(text, error_code=code)
    if code == 35:
        return UnsupportedOperation(text)
    if type(e).__name__ in UNREACHABLE:
        return ConnectionFailed(
            text, error_code=code, hint="a broker did not answer; check that it is up and run again"
        )
    return ClusterError(text, error_code=code)


def broker_message(e) -> str:
    """kafka-python's text of a broker error minus its "[Error N] Class:" prefixes and request dumps."""
    import re

    detail = re.sub(r"^\[Error -?\d+\] ", "", str(e)).strip()
    cls = type(e).__name__
    while detail.startswith(cls + ":"):
        detail = detail[len(cls) + 1 :].strip()
    return "" if detail.startswith(("Request '", cls)) or detail == error_name(e.errno) else detail


# librdkafka's names for "no broker could be reached, or none answered in time".
CK_UNREACHABLE = ("_TRANSPORT", "_TIMED_OUT", "_ALL_BROKERS_DOWN")


def confluent_error(err, what: str) -> ClusterError:
    if err is None:
        return ClusterError(what + ": unknown error")
    name = err.name() if hasattr(err, "name") else str(err)
    text = f"{what}: {name}"
    msg = err.str() if hasattr(err, "str") else ""
    if msg and msg != name:
        text += f" ({msg})"
    if "AUTHORIZATION" in name:
        return AuthorizationError(text, error_code=err.code(), hint=permission_hint(name, what))
    if "AUTHENTICATION" in name or "_SSL" in name:
        return AuthenticationError(text, error_code=err.code(), hint=TRUSTSTORE_HINT if "_SSL" in name else None)
    if name in CK_UNREACHABLE or name == "_RESOLVE":
        return ConnectionFailed(text, error_code=err.code())
    return ClusterError(text, error_code=err.code())


# What each request kadmin sends needs on the CLUSTER resource, as Kafka's KafkaApis /
# ControllerApis check it (authorizeClusterOperation), by the words kadmin says the request in.
CLUSTER_PERMISSIONS = (
    ("electing leaders", "ALTER"),  # ElectLeaders
    ("starting reassignments", "ALTER"),  # AlterPartitionReassignments
    ("cancelling reassignments", "ALTER"),  # AlterPartitionReassignments
    ("moving replicas between log directories", "ALTER"),  # AlterReplicaLogDirs
    ("listing reassignments", "DESCRIBE"),  # ListPartitionReassignments
    ("describing log directories", "DESCRIBE"),  # DescribeLogDirs
    ("describing configs", "DESCRIBE_CONFIGS"),  # DescribeConfigs of a broker
    ("describing the cluster-wide default broker configs", "DESCRIBE_CONFIGS"),
    ("changing configs", "ALTER_CONFIGS"),  # IncrementalAlterConfigs of a broker
)


def permission_hint(name: str, what: str) -> str | None:
    """The ACL on CLUSTER a refused request needs, named by ``what`` kadmin was doing."""
    if name != "CLUSTER_AUTHORIZATION_FAILED":
        return None
    for doing, operation in CLUSTER_PERMISSIONS:
        if what.startswith(doing):
            return f"the principal needs {operation} on CLUSTER"
    return "the principal needs a permission on CLUSTER"


def login_error(e, what: str) -> KadminError:
    """A refused SASL login or TLS handshake seen while kafka-python bootstrapped."""
    if getattr(e, "errno", None) == 58:
        return cluster_error(e, what)
    reason = str(e).split("Handshake failed: ", 1)[-1]
    return AuthenticationError(f"{what}: TLS handshake failed ({reason})", hint=TRUSTSTORE_HINT)


TRUSTSTORE_HINT = "check ssl.truststore.location: it must hold the CA that signed the brokers' certificates"
