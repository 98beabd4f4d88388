"""Before the library clients connect with security configured: one attempt at each bootstrap
server, spoken to as the settings ask (TLS or not, SASL or not), to say at once a listener that
speaks another security protocol, or whose certificate the trust store refuses. The library
clients retry such a listener until --timeout, then say no broker answered; this says what it
met and what to set, within a second. ``speaks_tls`` also serves the small client, which speaks
plaintext, to tell a TLS listener from other services that turn it away.

Only requests every listener answers, or refuses by closing, are sent: ApiVersions, SaslHandshake
(naming a mechanism) and Metadata for no topic, never a login.
"""

from __future__ import annotations

from typing import Any

from kadmin.backends.wire_client import Connection, NoAnswer, TlsFailed, TurnedAway, WireUnavailable
from kadmin.backends.wire_codec import api


class Mismatch:
    """A listener kadmin cannot speak to as configured: what it did (``seen``, after its
    address; "" when ``verdict`` says it all), what it speaks or what failed (``verdict``) and
    what to set or check (``fix``, the whole hint)."""

    def __init__(self, seen: str, verdict: str, fix: str):
        self.seen, self.verdict, self.fix = seen, verdict, fix

    def said(self, where: str) -> str:
        return f"{where} {self.seen}: {self.verdict}" if self.seen else f"{where}: {self.verdict}"


class Unanswered:
    """A bootstrap server that did not answer the probe: the connection refused, or no answer
    within the wait (``silent``; ``why``: "timed out", "the TLS handshake timed out"...). It
    tells nothing about the security protocol: the other servers' probes decide."""

    def __init__(self, why: str, silent: bool):
        self.why, self.silent = why, silent


_LOGIN = "as Kafka's SASL listeners do before a login"
_SASL_FIX = "sasl.mechanism and sasl.jaas.config"


def _certificate_refused(why: str) -> Mismatch:
    """The server's certificate failed this side's checks (``why``: the ssl module's words): no
    wait changes that, and the library clients would retry until --timeout."""
    lowered = why.lower()
    if "mismatch" in lowered:  # "Hostname mismatch, ...", "IP address mismatch, ..."
        fix = (
            "the broker's certificate does not name the address given: give --bootstrap-server a name it holds, "
            "or check ssl.endpoint.identification.algorithm"
        )
    elif "expired" in lowered or "not yet valid" in lowered:
        fix = "the broker's certificate is outside its validity dates: renew it, or check this machine's clock"
    else:
        fix = "check ssl.truststore.location: it must hold the CA that signed the broker's certificate"
    return Mismatch("", f"the TLS handshake failed: certificate verify failed: {why}", fix)


def probe_listener(
    host: str,
    port: int,
    protocol: str,
    tls: Any,
    timeout: float,
    mechanism: str = "GSSAPI",
    where: str = "--command-config",
) -> Mismatch | Unanswered | None:
    """What a bootstrap server does when spoken to as ``protocol`` (``SSL``, ``SASL_SSL`` or
    ``SASL_PLAINTEXT``; ``tls``: the configured ``ssl.SSLContext``, for the first two):
    ``Unanswered`` when it refused the connection or did not answer within ``timeout``; None
    when it does what that protocol expects, or nothing telling, so the library clients go on
    (they retry a listener of another protocol until --timeout, then say no broker answered):

    - TLS spoken, the server's certificate refused by this side (a trust store without its CA,
      a host name it does not hold, expired): said with what to check.
    - TLS spoken, no SASL (``SSL``): ApiVersions answered, the next request's connection
      closed: a SASL_SSL listener asking for a login (Kafka's SaslServerAuthenticator answers
      ApiVersions, and closes the connection at any other request before a login).
    - TLS spoken, the handshake closed or answered in plaintext (Kafka reads a ClientHello as a
      369 MB request and closes): ApiVersions in plaintext tells a PLAINTEXT listener from a
      SASL_PLAINTEXT one (which closes at the request after ApiVersions).
    - Plaintext spoken (``SASL_PLAINTEXT``), ApiVersions answered, then SaslHandshake naming
      ``mechanism`` (the configured sasl.mechanism) answered ILLEGAL_SASL_STATE: a listener
      without SASL (PLAINTEXT), where Kafka's KafkaApis.handleSaslHandshakeRequest answers it so.
      A SASL listener's SaslServerAuthenticator answers it with its mechanisms instead; the
      connection is then closed before any SaslAuthenticate, which Kafka's Selector logs at
      debug level only (a Metadata request there would count as a failed authentication). A
      listener whose ApiVersions does not list SaslHandshake has no SASL either: Metadata
      answered without a login says so.
    - Plaintext spoken (``SASL_PLAINTEXT``), the connection closed at ApiVersions (a TLS
      listener fails the handshake): a TLS handshake (certificate not checked: nothing secret
      is sent) and ApiVersions over it tell a TLS listener.
    - SASL spoken (``SASL_PLAINTEXT``, or ``SASL_SSL`` once the TLS handshake is done),
      SaslHandshake answered UNSUPPORTED_SASL_MECHANISM with the listener's mechanisms: the
      configured mechanism is not enabled there (Kafka's SaslServerAuthenticator answers so and
      closes; the library clients retry until --timeout).
    - TLS spoken with SASL (``SASL_SSL``), SaslHandshake answered ILLEGAL_SASL_STATE (or no
      SaslHandshake in ApiVersions' list, Metadata answered without a login): an SSL listener.
    - The connection closed at a TLS handshake and at ApiVersions in plaintext (a ZooKeeper
      port, another service, a broker at its max.connections.per.ip): no Kafka listener.

    Each attempt waits at most ``timeout``; only requests every listener answers, or refuses
    by closing, are sent: ApiVersions, SaslHandshake (a mechanism's name, never credentials)
    and Metadata for no topic. ``where``: where the properties were given, named in the fix
    ("--command-config", "KADMIN_COMMAND_CONFIG (FILE)", a profile's)."""
    sasl = protocol.startswith("SASL_")
    in_config = f" in {where}"
    if protocol in ("SSL", "SASL_SSL"):
        seen, why = _attempt(host, port, tls, timeout, then="sasl" if sasl else "metadata", mechanism=mechanism)
        if seen == "certificate":
            return _certificate_refused(why)
        if seen == "login":
            return Mismatch(
                f"answered TLS, then closed the connection at Kafka's second request (Metadata), {_LOGIN}",
                "it may want SASL_SSL, not SSL",
                f"set security.protocol=SASL_SSL, {_SASL_FIX}{in_config}",
            )
        if seen in ("silent", "refused"):
            return Unanswered(why, silent=seen == "silent")
        if seen == "mechanism":
            return _mechanism_refused(mechanism, why, in_config)
        if seen in _NO_SASL:
            return Mismatch(
                f"took a TLS handshake and {_NO_SASL[seen].replace('in plaintext ', '')}",
                "it speaks SSL, not SASL_SSL",
                f"set security.protocol=SSL{in_config}",
            )
        if seen != "not TLS":
            return None
        plain, why = _attempt(host, port, None, timeout, then="metadata")
        if plain == "ok":
            return Mismatch(
                "did not take a TLS handshake and answered Kafka's requests in plaintext",
                f"it speaks PLAINTEXT, not {protocol}",
                f"set security.protocol=PLAINTEXT{in_config}",
            )
        if plain == "login":
            return Mismatch(
                "did not take a TLS handshake and answered ApiVersions in plaintext, then closed the "
                f"connection at the next request, {_LOGIN}",
                f"it speaks SASL_PLAINTEXT, not {protocol}",
                "set security.protocol=SASL_PLAINTEXT" + ("" if sasl else f", {_SASL_FIX}") + in_config,
            )
        if plain == "closed":
            return _not_kafka(
                "did not take a TLS handshake and closed the connection at Kafka's first request "
                "(ApiVersions) in plaintext"
            )
        if plain in ("silent", "refused"):
            return Unanswered(why, silent=plain == "silent")
        return None
    if protocol != "SASL_PLAINTEXT":
        return None
    seen, why = _attempt(host, port, None, timeout, then="sasl", mechanism=mechanism)
    if seen in _NO_SASL:
        return Mismatch(
            _NO_SASL[seen], "it speaks PLAINTEXT, not SASL_PLAINTEXT", f"set security.protocol=PLAINTEXT{in_config}"
        )
    if seen == "mechanism":
        return _mechanism_refused(mechanism, why, in_config)
    if seen in ("silent", "refused"):
        return Unanswered(why, silent=seen == "silent")
    if seen == "closed":
        if speaks_tls(host, port, timeout):
            return Mismatch(
                "closed the connection at Kafka's first request (ApiVersions) in plaintext and answered it over TLS",
                "it speaks TLS (SASL_SSL or SSL), not SASL_PLAINTEXT",
                f"set security.protocol=SASL_SSL (or SSL), ssl.truststore.type=PEM and ssl.truststore.location{in_config}",
            )
        return _not_kafka(
            "closed the connection at Kafka's first request (ApiVersions) in plaintext and at a TLS handshake"
        )
    return None


def _not_kafka(seen: str) -> Mismatch:
    """A server that turns Kafka's first request away, in plaintext and over TLS: no wait changes that."""
    return Mismatch(
        seen,
        "no Kafka listener there",
        "a ZooKeeper address goes to --zookeeper; a broker at its max.connections.per.ip closes new connections too",
    )


def _mechanism_refused(mechanism: str, enabled: str, in_config: str) -> Mismatch:
    """SaslHandshake naming ``mechanism`` answered UNSUPPORTED_SASL_MECHANISM; ``enabled``: the
    listener's mechanisms, as it named them (comma-separated)."""
    return Mismatch(
        f"answered SaslHandshake for {mechanism} with UNSUPPORTED_SASL_MECHANISM",
        f"the SASL mechanism {mechanism} is not enabled there; it enables {enabled or 'none'}",
        ("set sasl.mechanism=" + enabled if enabled and "," not in enabled else "set sasl.mechanism to one it enables")
        + f" and sasl.jaas.config to match{in_config}",
    )


def speaks_tls(host: str, port: int, timeout: float) -> bool:
    """Whether the server takes a TLS handshake and answers ApiVersions over it (the
    certificate not checked: nothing secret is sent), waiting at most ``timeout``."""
    import ssl

    unchecked = ssl.create_default_context()
    unchecked.check_hostname = False
    unchecked.verify_mode = ssl.CERT_NONE
    return _attempt(host, port, unchecked, timeout)[0] == "ok"


ILLEGAL_SASL_STATE = 34
UNSUPPORTED_SASL_MECHANISM = 33
_NO_SASL = {  # what a listener without SASL did, by _attempt's answer
    "handshake refused": "answered ApiVersions in plaintext and SaslHandshake with ILLEGAL_SASL_STATE, "
    "as Kafka's listeners without SASL do",
    "metadata": "answered Kafka's requests in plaintext without a login, and its ApiVersions lists no SaslHandshake",
}

_NO_TOPICS = {
    "topics": [],
    "allow_auto_topic_creation": False,
    "include_cluster_authorized_operations": False,
    "include_topic_authorized_operations": False,
}


def _attempt(host: str, port: int, tls: Any, timeout: float, then: str = "", mechanism: str = "") -> tuple[str, str]:
    """One connection (over TLS with ``tls``): ApiVersions, then ``then``: "metadata" (Metadata
    for no topic), "sasl" (SaslHandshake naming ``mechanism``; Metadata when the listener's
    ApiVersions lists no SaslHandshake) or nothing. What it met, and its details (else ""):

    - "ok": answered (SaslHandshake: with the mechanism accepted, or another answer);
    - "login": ApiVersions answered, the connection closed at Metadata;
    - "handshake refused": SaslHandshake answered ILLEGAL_SASL_STATE (a listener without SASL);
    - "metadata": no SaslHandshake in ApiVersions' list, Metadata answered without a login;
    - "mechanism": SaslHandshake answered UNSUPPORTED_SASL_MECHANISM (details: the listener's
      mechanisms, comma-separated);
    - "closed": closed or garbled at ApiVersions;
    - "not TLS": the TLS handshake closed or answered bytes that are not TLS;
    - "certificate": this side refused the server's certificate (details: the ssl module's words);
    - "silent", "refused": no answer within ``timeout``, the connection refused (details: which);
    - "unknown": anything else (the server refused the handshake, ...)."""
    try:
        conn = Connection(host, port, timeout, "kadmin", tls=tls)
    except TlsFailed as e:
        if e.certificate is not None:
            return "certificate", e.certificate
        return ("unknown" if e.spoke_tls else "not TLS"), ""
    except TurnedAway:
        return "closed", ""
    except NoAnswer as e:
        return _unanswered(str(e))
    except WireUnavailable:
        return "unknown", ""
    try:
        if then == "sasl" and api("SaslHandshake").key in conn.versions:
            answer = conn.request(api("SaslHandshake"), {"mechanism": mechanism})
            if answer.error_code == ILLEGAL_SASL_STATE:
                return "handshake refused", ""
            if answer.error_code == UNSUPPORTED_SASL_MECHANISM:
                return "mechanism", ", ".join(answer.mechanisms or [])
            return "ok", ""
        if then:
            conn.request(api("Metadata"), _NO_TOPICS)
            return ("metadata" if then == "sasl" else "ok"), ""
        return "ok", ""
    except NoAnswer as e:
        return _unanswered(str(e))
    except WireUnavailable:
        return ("login" if conn.answered == 1 and conn.closed_by_peer else "unknown"), ""
    finally:
        conn.close()


def _unanswered(why: str) -> tuple[str, str]:
    """A ``NoAnswer``'s words as ``_attempt``'s answer: "silent" after a wait, else "refused"."""
    return ("silent" if "timed out" in why else "refused"), why
