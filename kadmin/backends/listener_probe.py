"""Before the library clients connect with security configured: one attempt at each bootstrap
server, spoken to as the settings ask (TLS or not, SASL or not), to say at once a listener that
speaks another security protocol. The library clients retry such a listener until --timeout,
then say no broker answered; this says what it met and what to set, within a second.

Only requests every listener answers, or refuses by closing, are sent: ApiVersions and Metadata
for no topic, never a login.
"""

from __future__ import annotations

from typing import Any

from kadmin.backends.wire_client import Connection, TlsFailed, TurnedAway, WireUnavailable
from kadmin.backends.wire_codec import api


class Mismatch:
    """A listener that speaks another security protocol than the one configured: what it did
    (``seen``, after its address), what it speaks (``verdict``) and what to set (``fix``)."""

    def __init__(self, seen: str, verdict: str, fix: str):
        self.seen, self.verdict, self.fix = seen, verdict, fix


_LOGIN = "as Kafka's SASL listeners do before a login"
_SASL_FIX = "sasl.mechanism and sasl.jaas.config"


def probe_listener(host: str, port: int, protocol: str, tls: Any, timeout: float) -> Mismatch | None:
    """What a bootstrap server does when spoken to as ``protocol`` (``SSL``, ``SASL_SSL`` or
    ``SASL_PLAINTEXT``; ``tls``: the configured ``ssl.SSLContext``, for the first two), or None
    when it does what that protocol expects, or nothing telling, so the library clients go on
    (they retry a listener of another protocol until --timeout, then say no broker answered):

    - TLS spoken, no SASL (``SSL``): ApiVersions answered, the next request's connection
      closed: a SASL_SSL listener asking for a login (Kafka's SaslServerAuthenticator answers
      ApiVersions, and closes the connection at any other request before a login).
    - TLS spoken, the handshake closed or answered in plaintext (Kafka reads a ClientHello as a
      369 MB request and closes): ApiVersions in plaintext tells a PLAINTEXT listener from a
      SASL_PLAINTEXT one (which closes at the request after ApiVersions).
    - Plaintext spoken (``SASL_PLAINTEXT``), the connection closed at ApiVersions (a TLS
      listener fails the handshake): a TLS handshake (certificate not checked: nothing secret
      is sent) and ApiVersions over it tell a TLS listener.

    Each attempt waits at most ``timeout``; only requests every listener answers, or refuses
    by closing, are sent: ApiVersions and Metadata for no topic."""
    sasl = protocol.startswith("SASL_")
    if protocol in ("SSL", "SASL_SSL"):
        seen = _attempt(host, port, tls, timeout, metadata=not sasl)
        if seen == "login":
            return Mismatch(
                f"answered TLS, then closed the connection at Kafka's second request (Metadata), {_LOGIN}",
                "it may want SASL_SSL, not SSL",
                f"set security.protocol=SASL_SSL, {_SASL_FIX}",
            )
        if seen != "not TLS":
            return None
        plain = _attempt(host, port, None, timeout, metadata=True)
        if plain == "ok":
            return Mismatch(
                "did not take a TLS handshake and answered Kafka's requests in plaintext",
                f"it speaks PLAINTEXT, not {protocol}",
                "set security.protocol=PLAINTEXT",
            )
        if plain == "login":
            return Mismatch(
                "did not take a TLS handshake and answered ApiVersions in plaintext, then closed the "
                f"connection at the next request, {_LOGIN}",
                f"it speaks SASL_PLAINTEXT, not {protocol}",
                "set security.protocol=SASL_PLAINTEXT" + ("" if sasl else f", {_SASL_FIX}"),
            )
        return None
    if protocol == "SASL_PLAINTEXT" and _attempt(host, port, None, timeout, metadata=False) == "closed":
        import ssl

        unchecked = ssl.create_default_context()
        unchecked.check_hostname = False
        unchecked.verify_mode = ssl.CERT_NONE
        if _attempt(host, port, unchecked, timeout, metadata=False) == "ok":
            return Mismatch(
                "closed the connection at Kafka's first request (ApiVersions) in plaintext and answered it over TLS",
                "it speaks TLS (SASL_SSL or SSL), not SASL_PLAINTEXT",
                "set security.protocol=SASL_SSL (or SSL), ssl.truststore.type=PEM and ssl.truststore.location",
            )
    return None


def _attempt(host: str, port: int, tls: Any, timeout: float, metadata: bool) -> str:
    """One connection: "ok" (answered), "login" (ApiVersions answered, the connection closed at
    Metadata), "closed" (closed or garbled at ApiVersions), "not TLS" (the TLS handshake closed
    or answered bytes that are not TLS), or "unknown" (no answer, a certificate refused...)."""
    try:
        conn = Connection(host, port, timeout, "kadmin", tls=tls)
    except TlsFailed as e:
        return "unknown" if e.spoke_tls else "not TLS"
    except TurnedAway:
        return "closed"
    except WireUnavailable:
        return "unknown"
    try:
        if metadata:
            body = {
                "topics": [],
                "allow_auto_topic_creation": False,
                "include_cluster_authorized_operations": False,
                "include_topic_authorized_operations": False,
            }
            conn.request(api("Metadata"), body)
        return "ok"
    except WireUnavailable:
        return "login" if conn.answered == 1 and conn.closed_by_peer else "unknown"
    finally:
        conn.close()
