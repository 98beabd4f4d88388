"""Kafka client properties mapped to both client libraries: librdkafka's configuration
(confluent-kafka) and KafkaAdminClient's keyword arguments (kafka-python).

The rules live in one place, ``security_config``: it checks the properties and returns what they
ask for, library-neutral; the two ``to_*`` functions only spell it. What cannot be mapped is a
ConfigError naming the property, never quoting a secret.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kadmin.errors import ConfigError
from kadmin.java_properties import PLAIN_MODULE, SCRAM_MODULE, Secret, parse_jaas_config

if TYPE_CHECKING:
    from kadmin.config import ConnectionSettings

_MODULE_FOR = {"PLAIN": PLAIN_MODULE, "SCRAM-SHA-256": SCRAM_MODULE, "SCRAM-SHA-512": SCRAM_MODULE}

SUPPORTED_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SUPPORTED_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")

# Properties that change nothing for an admin client or that we deliberately leave to the
# libraries' defaults. Any other ssl.*/sasl.* key is refused: silently dropping a security
# setting could connect differently from what the operator asked for.
_IGNORED_SECURITY_KEYS = {
    "ssl.truststore.password",
    "ssl.keystore.password",
    "ssl.protocol",
    "ssl.enabled.protocols",
    "ssl.provider",
    "ssl.keymanager.algorithm",
    "ssl.trustmanager.algorithm",
    "ssl.secure.random.implementation",
    "ssl.engine.factory.class",
    "ssl.cipher.suites",
    "sasl.login.refresh.window.factor",
    "sasl.login.refresh.window.jitter",
    "sasl.login.refresh.min.period.seconds",
    "sasl.login.refresh.buffer.seconds",
    "sasl.kerberos.service.name",
}
_MAPPED_SECURITY_KEYS = {
    "security.protocol",
    "sasl.mechanism",
    "sasl.jaas.config",
    "ssl.truststore.type",
    "ssl.truststore.location",
    "ssl.truststore.certificates",
    "ssl.keystore.type",
    "ssl.keystore.location",
    "ssl.keystore.certificate.chain",
    "ssl.keystore.key",
    "ssl.key.password",
    "ssl.endpoint.identification.algorithm",
}


@dataclass(frozen=True)
class SecurityConfig:
    """What the properties ask for, checked and library-neutral (the one place the rules live)."""

    protocol: str = "PLAINTEXT"
    mechanism: str | None = None
    username: str | None = None
    password: Secret | None = None
    ca_file: str | None = None
    ca_pem: Secret | None = None  # inline certificates (ssl.truststore.certificates)
    cert_file: str | None = None  # PEM keystore file: private key and certificate chain
    cert_pem: Secret | None = None  # ssl.keystore.certificate.chain
    key_pem: Secret | None = None  # ssl.keystore.key
    key_password: Secret | None = None
    check_hostname: bool = True
    client_id: str | None = None

    @property
    def uses_ssl(self) -> bool:
        return self.protocol in ("SSL", "SASL_SSL")

    @property
    def uses_sasl(self) -> bool:
        return self.protocol.startswith("SASL_")


def security_config(properties: Mapping[str, str]) -> SecurityConfig:
    """Check Kafka client properties and return what they ask for; ConfigError naming the
    property for anything that cannot be mapped to both libraries."""
    p = {k: v.strip() if k != "sasl.jaas.config" else v for k, v in properties.items()}
    for key in sorted(p):
        if key.startswith(("ssl.", "sasl.")) and key not in _MAPPED_SECURITY_KEYS | _IGNORED_SECURITY_KEYS:
            raise ConfigError(
                f"property {key} cannot be mapped to kadmin's Kafka clients",
                hint="remove it, or use the equivalent PEM/SASL settings kadmin supports",
            )
    protocol = p.get("security.protocol", "PLAINTEXT").upper()
    if protocol not in SUPPORTED_PROTOCOLS:
        raise ConfigError(
            f"security.protocol={protocol} is not supported", hint=f"use one of {', '.join(SUPPORTED_PROTOCOLS)}"
        )
    fields: dict[str, Any] = {"protocol": protocol, "client_id": p.get("client.id") or None}

    if protocol in ("SSL", "SASL_SSL"):
        fields.update(_ssl_fields(p))
    if protocol.startswith("SASL_"):
        fields.update(_sasl_fields(p))
    return SecurityConfig(**fields)


def _ssl_fields(p: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if p.get("ssl.truststore.certificates"):
        if p.get("ssl.truststore.type", "JKS").upper() != "PEM":
            raise ConfigError("ssl.truststore.certificates needs ssl.truststore.type=PEM")
        out["ca_pem"] = Secret(p["ssl.truststore.certificates"])
    elif p.get("ssl.truststore.location"):
        _check_pem_store(p, "ssl.truststore")
        out["ca_file"] = p["ssl.truststore.location"]
    if p.get("ssl.keystore.certificate.chain") or p.get("ssl.keystore.key"):
        if not (p.get("ssl.keystore.certificate.chain") and p.get("ssl.keystore.key")):
            missing = (
                "ssl.keystore.key" if p.get("ssl.keystore.certificate.chain") else "ssl.keystore.certificate.chain"
            )
            raise ConfigError(f"{missing} is required with inline PEM keystore settings")
        if p.get("ssl.keystore.type", "JKS").upper() != "PEM":
            raise ConfigError("ssl.keystore.certificate.chain and ssl.keystore.key need ssl.keystore.type=PEM")
        out["cert_pem"] = Secret(p["ssl.keystore.certificate.chain"])
        out["key_pem"] = Secret(p["ssl.keystore.key"])
    elif p.get("ssl.keystore.location"):
        _check_pem_store(p, "ssl.keystore")
        out["cert_file"] = p["ssl.keystore.location"]
    if p.get("ssl.key.password"):
        out["key_password"] = Secret(p["ssl.key.password"])
    algorithm = p.get("ssl.endpoint.identification.algorithm", "https").lower()
    if algorithm not in ("https", ""):
        raise ConfigError(
            f"ssl.endpoint.identification.algorithm={algorithm} is not supported (use https or an empty value)"
        )
    out["check_hostname"] = algorithm == "https"
    return out


_CONVERT = {
    "ssl.truststore": "convert it: keytool -exportcert -rfc -keystore STORE -alias ALIAS > ca.pem, "
    "then set ssl.truststore.type=PEM and ssl.truststore.location=ca.pem",
    "ssl.keystore": "convert it to one PEM file holding the private key and the certificate chain "
    "(openssl pkcs12 -in store.p12 -out client.pem), then set ssl.keystore.type=PEM",
}


def _check_pem_store(p: Mapping[str, str], store: str) -> None:
    """``{store}.location`` is read as Kafka's clients read it: as ``{store}.type``, JKS when
    that is not set (Kafka's default, whatever the file holds: its tools fail on a PEM file
    without the type too). Only PEM can be mapped; a refusal says what the type was taken to
    be, and the line to add when the file is PEM."""
    location = p[f"{store}.location"]
    written = p.get(f"{store}.type", "")
    kind = (written or "JKS").upper()
    if kind == "PEM":
        return
    if looks_like_pem(location):
        if not written:
            raise ConfigError(
                f"{store}.type is not set, so Kafka takes {store}.location for a JKS store (its default), "
                f"but {location} is a PEM file",
                hint=f"add {store}.type=PEM; Kafka's own tools need it too",
            )
        raise ConfigError(
            f"{store}.type={kind} cannot be used ({store}.location): {location} is a PEM file",
            hint=f"set {store}.type=PEM",
        )
    raise ConfigError(
        f"{store}.type={kind} cannot be used ({store}.location): only PEM stores are supported",
        hint=("" if written else f"{store}.type is not set: JKS is Kafka's default; ") + _CONVERT[store],
    )


def looks_like_pem(path: str) -> bool:
    """The file holds PEM text ("-----BEGIN ..." near its start: openssl may write "Bag
    Attributes" lines before it); False for a binary store or a file that cannot be read."""
    try:
        with open(os.path.expanduser(path), "rb") as f:
            head = f.read(1 << 16)
    except (OSError, ValueError):
        return False
    return b"-----BEGIN " in head


def _sasl_fields(p: Mapping[str, str]) -> dict[str, Any]:
    mechanism = p.get("sasl.mechanism", "").upper()
    if not mechanism:
        raise ConfigError(
            "sasl.mechanism is not set (Kafka's default, GSSAPI, is not supported)",
            hint="set sasl.mechanism=PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512",
        )
    if mechanism not in SUPPORTED_MECHANISMS:
        raise ConfigError(
            f"sasl.mechanism={mechanism} is not supported", hint=f"use one of {', '.join(SUPPORTED_MECHANISMS)}"
        )
    if not p.get("sasl.jaas.config"):
        raise ConfigError(f"sasl.jaas.config is required for sasl.mechanism={mechanism}")
    login = parse_jaas_config(p["sasl.jaas.config"])
    expected = _MODULE_FOR[mechanism]
    if login.module != expected:
        raise ConfigError(f"sasl.jaas.config: sasl.mechanism={mechanism} needs {expected}, not {login.module}")
    username, password = login.option("username"), login.option("password")
    if not username or password is None:
        raise ConfigError("sasl.jaas.config: username and password options are required")
    return {"mechanism": mechanism, "username": username, "password": Secret(password)}


def to_confluent(settings: ConnectionSettings) -> dict[str, str]:
    """librdkafka configuration (confluent-kafka AdminClient) for these settings."""
    if not settings.bootstrap_servers:
        raise ConfigError("no bootstrap servers to connect a Kafka client to")
    with named_source(settings):
        sec = security_config(settings.properties)
    conf = {"bootstrap.servers": settings.bootstrap_servers, "security.protocol": sec.protocol.lower()}
    if sec.client_id:
        conf["client.id"] = sec.client_id
    if sec.uses_ssl:
        if sec.ca_file:
            conf["ssl.ca.location"] = sec.ca_file
        if sec.ca_pem:
            conf["ssl.ca.pem"] = sec.ca_pem.reveal()
        if sec.cert_file:  # one PEM file holds both key and chain; OpenSSL reads each part from it
            conf["ssl.certificate.location"] = sec.cert_file
            conf["ssl.key.location"] = sec.cert_file
        if sec.cert_pem and sec.key_pem:
            conf["ssl.certificate.pem"] = sec.cert_pem.reveal()
            conf["ssl.key.pem"] = sec.key_pem.reveal()
        if sec.key_password:
            conf["ssl.key.password"] = sec.key_password.reveal()
        conf["ssl.endpoint.identification.algorithm"] = "https" if sec.check_hostname else "none"
    if sec.uses_sasl:
        assert sec.mechanism is not None and sec.username is not None and sec.password is not None, "set for SASL_*"
        conf["sasl.mechanism"] = sec.mechanism
        conf["sasl.username"] = sec.username
        conf["sasl.password"] = sec.password.reveal()
    return conf


def to_kafka_python(settings: ConnectionSettings) -> dict[str, Any]:
    """KafkaAdminClient keyword arguments for these settings.

    PEM files map to ssl_cafile/ssl_certfile/ssl_keyfile. Certificates given inline go into an
    ``ssl.SSLContext`` (ssl_context): CA certificates load from memory; Python can load a client
    key only from a file, so that one is written to a 0600 file in a private temporary directory
    and deleted as soon as the context has read it.
    """
    if not settings.bootstrap_servers:
        raise ConfigError("no bootstrap servers to connect a Kafka client to")
    with named_source(settings):
        sec = security_config(settings.properties)
    kw: dict[str, Any] = {
        "bootstrap_servers": [s.strip() for s in settings.bootstrap_servers.split(",") if s.strip()],
        "security_protocol": sec.protocol,
        "request_timeout_ms": int(settings.timeout * 1000),
    }
    if sec.client_id:
        kw["client_id"] = sec.client_id
    if sec.uses_ssl:
        kw["ssl_check_hostname"] = sec.check_hostname
        if sec.ca_pem or sec.cert_pem:
            with named_source(settings):
                kw["ssl_context"] = _ssl_context(sec, settings.properties_where)
        else:
            if sec.ca_file:
                kw["ssl_cafile"] = sec.ca_file
            if sec.cert_file:
                kw["ssl_certfile"] = sec.cert_file
                kw["ssl_keyfile"] = sec.cert_file
            if sec.key_password:
                kw["ssl_password"] = sec.key_password.reveal()
    if sec.uses_sasl:
        assert sec.mechanism is not None and sec.username is not None and sec.password is not None, "set for SASL_*"
        kw["sasl_mechanism"] = sec.mechanism
        kw["sasl_plain_username"] = sec.username
        kw["sasl_plain_password"] = sec.password.reveal()
    return kw


def _ssl_context(sec: SecurityConfig, where: str):
    """An ``ssl.SSLContext`` with the trust store and the client key and certificates loaded; a
    file or text that cannot be loaded is a ConfigError naming the property (and a file's path,
    never key material). ``where``: where the properties are set, to name in a message."""
    import ssl
    import tempfile

    ctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    ctx.check_hostname = sec.check_hostname
    password = sec.key_password.reveal() if sec.key_password else no_key_password("ssl.key.password", where)
    if sec.ca_pem:
        _load("ssl.truststore.certificates", None, lambda: ctx.load_verify_locations(cadata=sec.ca_pem.reveal()))
    elif sec.ca_file:
        _load("ssl.truststore.location", sec.ca_file, lambda: ctx.load_verify_locations(cafile=sec.ca_file))
    if sec.cert_pem and sec.key_pem:
        with tempfile.TemporaryDirectory(prefix="kadmin-") as d:  # mode 0700
            path = os.path.join(d, "client.pem")
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(sec.key_pem.reveal().strip() + "\n" + sec.cert_pem.reveal().strip() + "\n")
            _load(
                "ssl.keystore.key and ssl.keystore.certificate.chain",
                None,
                lambda: ctx.load_cert_chain(path, password=password),
            )
    elif sec.cert_file:
        _load("ssl.keystore.location", sec.cert_file, lambda: ctx.load_cert_chain(sec.cert_file, password=password))
    return ctx


def no_key_password(setting: str, where: str = "--command-config"):
    """What ``load_cert_chain`` gets for its password when none is set: OpenSSL calls it only for
    an encrypted key, and without it asks for a pass phrase on the terminal (Kafka's clients
    never prompt); this says which setting is missing instead (ConfigError, exit 2), and
    ``where`` to set it."""

    def refuse():
        raise ConfigError(
            f"the private key is encrypted and {setting} is not set",
            hint=f"set {setting} in {where}, or use a key that is not encrypted",
        )

    return refuse


def _load(what: str, path: str | None, load) -> None:
    import ssl

    try:
        load()
    except (ssl.SSLError, OSError, ValueError) as e:
        # The library's text names the failing step, not the key material.
        reason = e.strerror if isinstance(e, OSError) and e.strerror else getattr(e, "reason", None) or e
        trust = what.startswith("ssl.truststore")
        raise ConfigError(
            f"cannot load the PEM {'file ' + path + ' of ' if path else ''}{what}: {type(e).__name__}: {reason}",
            hint="check the PEM file or text: it must hold the CA certificates that signed the brokers' certificates"
            if trust
            else "check the PEM file or text and, for an encrypted key, ssl.key.password",
        ) from None


def tls_context(settings: ConnectionSettings):
    """The ``ssl.SSLContext`` the properties ask for (trust store, client key, hostname check),
    as kafka-python gets it; None without TLS."""
    with named_source(settings):
        sec = security_config(settings.properties)
        return _ssl_context(sec, settings.properties_where) if sec.uses_ssl else None


def check_ssl_files(settings: ConnectionSettings) -> None:
    """Load the trust store and client key the properties name, once, before any connection: a
    missing or broken file is said at once (the client libraries would retry until the timeout
    and then blame the network)."""
    stores = ("ssl.truststore.location", "ssl.truststore.certificates", "ssl.keystore.location", "ssl.keystore.key")
    if not any(settings.properties.get(k) for k in stores):
        return
    with named_source(settings):
        sec = security_config(settings.properties)
        if sec.uses_ssl:
            _ssl_context(sec, settings.properties_where)


@contextlib.contextmanager
def named_source(settings: ConnectionSettings) -> Iterator[None]:
    """A ConfigError about the properties raised inside starts with where they came from (the
    flag, the variable or the profile: ``ConnectionSettings.named_source``)."""
    try:
        yield
    except ConfigError as e:
        raise settings.named_source(e) from None
