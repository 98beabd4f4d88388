"""The sandbox's listener security: TLS, SASL (PLAIN, SCRAM-SHA-256/512) and a cluster authorizer.

A SASL listener speaks Kafka's KIP-152 exchange: ApiVersions, then SaslHandshake v1 naming the
mechanism, then SaslAuthenticate frames carrying the mechanism's tokens. Anything else before
authentication closes the connection, as Kafka's SaslServerAuthenticator does. A failed
authentication answers SASL_AUTHENTICATION_FAILED with Kafka's own message, then closes.

SCRAM follows RFC 5802/7677 as Kafka's ScramSaslServer does: the server keeps only the salted
credential (salt, iterations, StoredKey, ServerKey), never the password.

Authorization models the part of Kafka's AclAuthorizer kadmin meets: operations on the CLUSTER
resource (DESCRIBE, ALTER, DESCRIBE_CONFIGS, ALTER_CONFIGS, CREATE). With no rules configured
every principal may do everything, like a broker without an authorizer.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from kadmin.sandbox import protocol as P

log = logging.getLogger("kadmin.sandbox")

SASL_HANDSHAKE = 17
SASL_AUTHENTICATE = 36
UNSUPPORTED_SASL_MECHANISM = 33
SASL_AUTHENTICATION_FAILED = 58
TOPIC_AUTHORIZATION_FAILED = 29

MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
_SCRAM_HASH = {"SCRAM-SHA-256": hashlib.sha256, "SCRAM-SHA-512": hashlib.sha512}
SCRAM_ITERATIONS = 4096  # Kafka's minimum for SCRAM credentials
ANONYMOUS = "ANONYMOUS"  # Kafka's principal on PLAINTEXT and SSL listeners without client certificates
CLUSTER_OPERATIONS = ("DESCRIBE", "ALTER", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "CREATE")

# Handed back by Session.intercept: the request goes to the ordinary handlers.
PASS = object()

_BROKER_RESOURCES = (4, 8)  # BROKER, BROKER_LOGGER


def tls_context(certfile: str, keyfile: str | None = None) -> ssl.SSLContext:
    """A server context for a PEM certificate chain and key (one file or two)."""
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(certfile, keyfile)
    return ctx


# --- SCRAM (RFC 5802) ---


@dataclass(frozen=True)
class ScramCredential:
    salt: bytes
    iterations: int
    stored_key: bytes
    server_key: bytes


def scram_credential(
    mechanism: str, password: str, salt: bytes | None = None, iterations: int = SCRAM_ITERATIONS
) -> ScramCredential:
    h = _SCRAM_HASH[mechanism]
    salt = salt if salt is not None else os.urandom(16)
    salted = hashlib.pbkdf2_hmac(h().name, password.encode(), salt, iterations)
    client_key = hmac.new(salted, b"Client Key", h).digest()
    server_key = hmac.new(salted, b"Server Key", h).digest()
    return ScramCredential(salt, iterations, h(client_key).digest(), server_key)


def _attributes(message: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in message.split(","):
        if len(part) >= 2 and part[1] == "=":
            out.setdefault(part[0], part[2:])
    return out


def _sasl_name(name: str) -> str:
    """RFC 5802 saslname: ``=2C`` is a comma, ``=3D`` an equals sign."""
    return name.replace("=2C", ",").replace("=3D", "=")


class AuthenticationFailed(Exception):
    """Kafka's SaslAuthenticationException: its message goes back to the client."""


class ScramServer:
    """One SCRAM exchange: client-first -> server-first, client-final -> server-final."""

    def __init__(self, mechanism: str, credentials: Mapping[str, ScramCredential], server_nonce: str | None = None):
        self.server_nonce = server_nonce or base64.b64encode(os.urandom(18)).decode()
        self.mechanism = mechanism
        self.hash = _SCRAM_HASH[mechanism]
        self.credentials = credentials
        self.state = "first"
        self.username: str | None = None

    def _fail(self) -> AuthenticationFailed:
        return AuthenticationFailed(
            "Authentication failed during authentication due to invalid credentials "
            f"with SASL mechanism {self.mechanism}"
        )

    def step(self, token: bytes) -> bytes | None:
        """The server's answer to ``token``; None once authenticated (nothing more to say)."""
        text = token.decode("utf-8", "replace")
        if self.state == "first":
            # gs2 header ("n,," or "n,a=authzid,") then client-first-message-bare.
            parts = text.split(",", 2)
            if len(parts) != 3 or parts[0] not in ("n", "y"):
                raise AuthenticationFailed(f"Invalid SCRAM client first message for {self.mechanism}")
            self.gs2_header = f"{parts[0]},{parts[1]},"
            self.client_first_bare = parts[2]
            attrs = _attributes(self.client_first_bare)
            if "n" not in attrs or "r" not in attrs:
                raise AuthenticationFailed(f"Invalid SCRAM client first message for {self.mechanism}")
            self.username = _sasl_name(attrs["n"])
            credential = self.credentials.get(self.username)
            if credential is None:  # Kafka answers an unknown user like a wrong password
                raise self._fail()
            self.credential = credential
            self.nonce = attrs["r"] + self.server_nonce
            self.server_first = (
                f"r={self.nonce},s={base64.b64encode(credential.salt).decode()},i={credential.iterations}"
            )
            self.state = "final"
            return self.server_first.encode()
        if self.state == "final":
            without_proof, _, proof_part = text.rpartition(",p=")
            attrs = _attributes(without_proof)
            if not proof_part or attrs.get("r") != self.nonce:
                raise AuthenticationFailed("Invalid client nonce in the final client message.")
            if attrs.get("c") != base64.b64encode(self.gs2_header.encode()).decode():
                raise AuthenticationFailed("Invalid channel binding in the final client message.")
            auth_message = f"{self.client_first_bare},{self.server_first},{without_proof}".encode()
            c = self.credential
            signature = hmac.new(c.stored_key, auth_message, self.hash).digest()
            try:
                proof = base64.b64decode(proof_part, validate=True)
            except ValueError:
                raise self._fail() from None
            if len(proof) != len(signature):
                raise self._fail()
            client_key = bytes(a ^ b for a, b in zip(proof, signature))
            if not hmac.compare_digest(self.hash(client_key).digest(), c.stored_key):
                raise self._fail()
            self.state = "done"
            server_signature = hmac.new(c.server_key, auth_message, self.hash).digest()
            return b"v=" + base64.b64encode(server_signature)
        raise AuthenticationFailed("Unexpected SCRAM message after authentication")

    @property
    def complete(self) -> bool:
        return self.state == "done"


class PlainServer:
    """RFC 4616: one token, ``authzid NUL authcid NUL password``."""

    mechanism = "PLAIN"

    def __init__(self, passwords: Mapping[str, str]):
        self.passwords = passwords
        self.username: str | None = None
        self.complete = False

    def step(self, token: bytes) -> bytes:
        parts = token.split(b"\0")
        if len(parts) != 3:
            raise AuthenticationFailed("Invalid SASL/PLAIN response: expected 3 tokens")
        authzid, user, password = (p.decode("utf-8", "replace") for p in parts)
        if not user:
            raise AuthenticationFailed("Authentication failed: username not specified")
        expected = self.passwords.get(user)
        if expected is None or not hmac.compare_digest(expected.encode(), password.encode()):
            raise AuthenticationFailed("Authentication failed: Invalid username or password")
        if authzid and authzid != user:
            raise AuthenticationFailed(
                "Authentication failed: Client requested an authorization id that is different from username"
            )
        self.username = user
        self.complete = True
        return b""


# --- the listener's settings ---


@dataclass
class ListenerSecurity:
    """TLS, SASL users and cluster permissions of every broker's listener."""

    tls: ssl.SSLContext | None = None
    mechanisms: tuple[str, ...] = ()
    users: Mapping[str, str] = field(default_factory=dict)
    super_users: frozenset[str] | None = None  # None: no authorizer, everyone may do everything
    cluster_acls: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def __post_init__(self):
        unknown = [m for m in self.mechanisms if m not in MECHANISMS]
        if unknown:
            raise ValueError(f"unsupported SASL mechanism {unknown[0]} (use {', '.join(MECHANISMS)})")
        # The server keeps SCRAM's salted credentials only; PLAIN compares with the password.
        self._scram = {
            m: {u: scram_credential(m, p) for u, p in self.users.items()} for m in self.mechanisms if m in _SCRAM_HASH
        }

    @property
    def sasl(self) -> bool:
        return bool(self.mechanisms)

    @property
    def authorizing(self) -> bool:
        return self.super_users is not None or bool(self.cluster_acls)

    @property
    def protocol(self) -> str:
        """The listener's security.protocol, as clients must configure it."""
        if self.sasl:
            return "SASL_SSL" if self.tls else "SASL_PLAINTEXT"
        return "SSL" if self.tls else "PLAINTEXT"

    def allowed(self, user: str | None, operation: str) -> bool:
        """May ``User:user`` do ``operation`` on the CLUSTER resource?"""
        if not self.authorizing:
            return True
        if user in (self.super_users or ()):
            return True
        ops = self.cluster_acls.get(user, frozenset()) if user is not None else frozenset()
        # Kafka's implied operations: ALTER implies DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS.
        implied = {"DESCRIBE": {"ALTER"}, "DESCRIBE_CONFIGS": {"ALTER_CONFIGS"}}.get(operation, set())
        return operation in ops or bool(implied & set(ops)) or "ALL" in ops

    def mechanism_server(self, mechanism: str):
        if mechanism == "PLAIN":
            return PlainServer(self.users)
        return ScramServer(mechanism, self._scram[mechanism])

    def session(self) -> Session:
        return Session(self)


# Cluster operation each API needs (Kafka's KafkaApis / ControllerApis checks).
CLUSTER_OPERATION = {
    "DescribeLogDirs": "DESCRIBE",
    "ListPartitionReassignments": "DESCRIBE",
    "AlterReplicaLogDirs": "ALTER",
    "AlterPartitionReassignments": "ALTER",
    "ElectLeaders": "ALTER",
    "CreateTopics": "CREATE",
}
CONFIG_OPERATION = {
    "DescribeConfigs": "DESCRIBE_CONFIGS",
    "AlterConfigs": "ALTER_CONFIGS",
    "IncrementalAlterConfigs": "ALTER_CONFIGS",
}


class Session:
    """One connection's authentication state and principal."""

    def __init__(self, security: ListenerSecurity):
        self.security = security
        self.user: str | None = None if security.sasl else ANONYMOUS
        self.mechanism = None
        self.close_after = False  # set after a failed authentication: answer, then close

    @property
    def authenticated(self) -> bool:
        return self.user is not None

    def intercept(self, engine, broker_id: int, frame: bytes):
        """Encoded answer for a request the security layer handles, None to close, or PASS."""
        key, version, correlation_id = P.peek_header(frame)
        # ApiVersions is answered before a login, with every listener's list (SaslHandshake and
        # SaslAuthenticate included). After a login, SaslHandshake and SaslAuthenticate reach
        # KafkaApis, which answers ILLEGAL_SASL_STATE (no KIP-368 re-authentication here).
        if not self.security.sasl or key == P.API_VERSIONS or self.authenticated:
            return PASS
        api = sasl_apis().get(key)
        if api is None or not api.min_version <= version <= api.max_version:
            log.warning(
                "broker %d: closing connection: unexpected request (key %d) during SASL handshake", broker_id, key
            )
            return None
        if key == SASL_HANDSHAKE and self.mechanism is not None:
            log.warning("broker %d: closing connection on a second SaslHandshake", broker_id)
            return None
        request = P.decode_request(api, version, frame)
        engine.record(broker_id, api.name, version)
        if key == SASL_HANDSHAKE:
            return P.encode_response(self._handshake(api, version, request), version, correlation_id)
        return P.encode_response(self._authenticate(api, version, request), version, correlation_id)

    def _handshake(self, api, version, request):
        enabled = list(self.security.mechanisms)
        if request.mechanism not in enabled:
            return api.response(version=version, error_code=UNSUPPORTED_SASL_MECHANISM, mechanisms=enabled)
        self.mechanism = self.security.mechanism_server(request.mechanism)
        return api.response(version=version, error_code=P.NONE, mechanisms=enabled)

    def _authenticate(self, api, version, request):
        fields = {"error_code": P.NONE, "error_message": None, "auth_bytes": b"", "session_lifetime_ms": 0}
        if self.mechanism is None:
            self.close_after = True
            fields.update(error_code=34, error_message="SaslAuthenticate before SaslHandshake")  # ILLEGAL_SASL_STATE
        else:
            try:
                answer = self.mechanism.step(bytes(request.auth_bytes))
                fields["auth_bytes"] = answer or b""
                if self.mechanism.complete:
                    self.user = self.mechanism.username
            except AuthenticationFailed as e:
                self.close_after = True
                fields.update(error_code=SASL_AUTHENTICATION_FAILED, error_message=str(e))
        return api.response(version=version, **{k: v for k, v in fields.items() if _has(api, version, k)})

    def authorize(self, engine, broker_id: int, api, version: int, request, handler):
        """None when the principal may run ``request``; otherwise the response refusing it (for
        configs requests: the allowed resources answered by ``handler``, the others refused)."""
        sec = self.security
        if not sec.authorizing:
            return None
        operation = CLUSTER_OPERATION.get(api.name)
        if operation is not None:
            if sec.allowed(self.user, operation):
                return None
            return _refusal(api, version, request)
        operation = CONFIG_OPERATION.get(api.name)
        if operation is None or sec.allowed(self.user, operation):
            return None
        denied = [r for r in request.resources if r.resource_type in _BROKER_RESOURCES]
        if not denied:
            return None
        allowed = [r for r in request.resources if r.resource_type not in _BROKER_RESOURCES]
        request.resources = allowed
        response = handler(engine, broker_id, version, request) if allowed else None
        items_field = "results" if api.name == "DescribeConfigs" else "responses"
        items = list(getattr(response, items_field)) if response is not None else []
        item_cls = _item_class(api.response, items_field)
        extra: dict[str, list] = {"configs": []} if api.name == "DescribeConfigs" else {}
        for r in denied:
            items.append(
                item_cls(
                    error_code=P.CLUSTER_AUTHORIZATION_FAILED,
                    error_message="Cluster authorization failed.",
                    resource_type=r.resource_type,
                    resource_name=r.resource_name,
                    **extra,
                )
            )
        return api.response(version=version, throttle_time_ms=0, **{items_field: items})


def _has(api, version: int, name: str) -> bool:
    return any(f.name == name and f.for_version_q(version) for f in api.response._struct._fields)


def _item_class(response_cls, field_name: str):
    if field_name == "results":
        return response_cls.DescribeConfigsResult
    return response_cls.AlterConfigsResourceResponse


def _refusal(api, version: int, request):
    """Kafka's answer to an unauthorized cluster operation: CLUSTER_AUTHORIZATION_FAILED at the top
    level where the schema has it, per item where it does not."""
    if api.name == "AlterReplicaLogDirs":
        R = api.response
        results = [
            R.AlterReplicaLogDirTopicResult(
                topic_name=t.name,
                partitions=[
                    R.AlterReplicaLogDirTopicResult.AlterReplicaLogDirPartitionResult(
                        partition_index=i, error_code=P.CLUSTER_AUTHORIZATION_FAILED
                    )
                    for i in t.partitions
                ],
            )
            for d in request.dirs
            for t in d.topics
        ]
        return R(version=version, throttle_time_ms=0, results=results)
    if api.name == "CreateTopics":
        R = api.response
        topics = [
            R.CreatableTopicResult(
                name=t.name,
                error_code=TOPIC_AUTHORIZATION_FAILED,
                error_message="Authorization failed.",
                topic_config_error_code=0,
                num_partitions=-1,
                replication_factor=-1,
                configs=None,
            )
            for t in request.topics
        ]
        return R(version=version, throttle_time_ms=0, topics=topics)
    response = P.error_response(api, version, P.CLUSTER_AUTHORIZATION_FAILED)
    if _has(api, version, "error_message"):
        response.error_message = "Cluster authorization failed."
    return response


@lru_cache(maxsize=1)
def sasl_apis() -> dict[int, P.Api]:
    """SaslHandshake (v1 only: v0's unframed tokens are not served) and SaslAuthenticate."""
    from kafka.protocol.sasl import (
        SaslAuthenticateRequest,
        SaslAuthenticateResponse,
        SaslHandshakeRequest,
        SaslHandshakeResponse,
    )

    lo, hi = SaslAuthenticateRequest.valid_versions
    return {
        SASL_HANDSHAKE: P.Api(SASL_HANDSHAKE, "SaslHandshake", SaslHandshakeRequest, SaslHandshakeResponse, 1, 1),
        SASL_AUTHENTICATE: P.Api(
            SASL_AUTHENTICATE, "SaslAuthenticate", SaslAuthenticateRequest, SaslAuthenticateResponse, lo, hi
        ),
    }
