"""ZooKeeper authentication and ACLs for the ``--zookeeper`` backend, from the same
``--command-config`` properties as the Kafka clients.

- ``zookeeper.auth.digest=user:password``: kadmin's property for ZooKeeper's ``digest`` scheme
  (what ``addauth digest user:password`` does in zkCli.sh). The session then acts as
  ``digest:user:<hash>`` and may touch the znodes whose ACLs grant that identity.
- ``zookeeper.set.acl=true``: Kafka's broker property of the same name and meaning: every znode
  kadmin creates gets Kafka's secure ACLs (``ZkData.defaultAcls``): all permissions for the
  creator, plus world-read except under the sensitive roots (/config/users, /config/brokers,
  /delegation_token). Like Kafka, it needs credentials: true without them is a ConfigError.

- TLS, with Kafka's own ZooKeeper client properties (KIP-515; what ``--zk-tls-config-file`` of
  Kafka's tools read): ``zookeeper.ssl.client.enable=true``, ``zookeeper.ssl.truststore.location``
  (PEM), ``zookeeper.ssl.keystore.location`` (PEM key and certificate chain, for servers that
  require client certificates) with ``zookeeper.ssl.keystore.password`` for an encrypted key,
  ``zookeeper.ssl.endpoint.identification.enable`` (default true). JKS/PKCS12 stores are refused
  with the conversion to PEM as hint.

Kafka's own tools reached a secured ZooKeeper through SASL (a JAAS ``Client`` section); that is
not supported, and any other ``zookeeper.*`` property is refused with a clear error rather than
silently connecting differently. Passwords live in ``Secret`` and are never part of a message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kadmin.errors import ConfigError
from kadmin.java_properties import Secret, mask_in_logs

AUTH_DIGEST = "zookeeper.auth.digest"
SET_ACL = "zookeeper.set.acl"
TLS_ENABLE = "zookeeper.ssl.client.enable"
TRUSTSTORE = "zookeeper.ssl.truststore"
KEYSTORE = "zookeeper.ssl.keystore"
HOSTNAME_CHECK = "zookeeper.ssl.endpoint.identification.enable"
NETTY_SOCKET = "org.apache.zookeeper.ClientCnxnSocketNetty"
SENSITIVE_ROOTS = ("/config/users", "/config/brokers", "/delegation_token")
_KNOWN = {
    AUTH_DIGEST,
    SET_ACL,
    TLS_ENABLE,
    HOSTNAME_CHECK,
    "zookeeper.clientCnxnSocket",
    f"{TRUSTSTORE}.location",
    f"{TRUSTSTORE}.type",
    f"{TRUSTSTORE}.password",
    f"{KEYSTORE}.location",
    f"{KEYSTORE}.type",
    f"{KEYSTORE}.password",
    # left to Python's TLS defaults, as client_config does for the Kafka clients
    "zookeeper.ssl.protocol",
    "zookeeper.ssl.enabled.protocols",
    "zookeeper.ssl.cipher.suites",
}


@dataclass(frozen=True)
class ZkSecurity:
    """What the properties ask of the ZooKeeper session; ``digest`` is "user:password"."""

    digest: Secret | None = None
    set_acl: bool = False
    tls: bool = False
    ca_file: str | None = None  # PEM trust store; None: the system's CAs
    cert_file: str | None = None  # PEM private key and certificate chain
    key_password: Secret | None = None
    check_hostname: bool = True

    @property
    def user(self) -> str | None:
        return self.digest.reveal().split(":", 1)[0] if self.digest else None


def zk_security(properties: Mapping[str, str]) -> ZkSecurity:
    """Check the ``zookeeper.*`` properties; ConfigError naming the property (never its value)
    for anything kadmin cannot honour."""
    for key in sorted(properties):
        if key.startswith("zookeeper.") and key not in _KNOWN:
            raise ConfigError(
                f"property {key} is not supported by kadmin's ZooKeeper backend",
                hint=f"kadmin supports {AUTH_DIGEST}, {SET_ACL} and zookeeper.ssl.* with PEM files "
                "(no SASL to ZooKeeper); or use --bootstrap-server",
            )
    digest = None
    raw = properties.get(AUTH_DIGEST)
    if raw is not None:
        user, sep, password = raw.strip().partition(":")
        if not sep or not user or not password:
            raise ConfigError(f"{AUTH_DIGEST} must have the form user:password")
        mask_in_logs(password)  # also on its own, should a library log just the password
        digest = Secret(f"{user}:{password}")
    set_acl = _flag(properties, SET_ACL, False)
    if set_acl and digest is None:
        raise ConfigError(
            f"{SET_ACL}=true needs credentials: set {AUTH_DIGEST}=user:password",
            hint="as with Kafka, secure ACLs are only set by an authenticated session",
        )
    return ZkSecurity(digest=digest, set_acl=set_acl, **_tls_fields(properties))


def _flag(properties: Mapping[str, str], key: str, default: bool) -> bool:
    value = (properties.get(key) or str(default)).strip().lower()
    if value not in ("true", "false"):
        raise ConfigError(f"{key} must be true or false")
    return value == "true"


def _tls_fields(p: Mapping[str, str]) -> dict[str, Any]:
    if not _flag(p, TLS_ENABLE, False):
        return {}
    socket = (p.get("zookeeper.clientCnxnSocket") or NETTY_SOCKET).strip()
    if socket != NETTY_SOCKET:
        raise ConfigError(f"zookeeper.clientCnxnSocket={socket} cannot carry TLS (Kafka needs {NETTY_SOCKET})")
    out: dict[str, Any] = {"tls": True, "check_hostname": _flag(p, HOSTNAME_CHECK, True)}
    for store, field in ((TRUSTSTORE, "ca_file"), (KEYSTORE, "cert_file")):
        location = (p.get(f"{store}.location") or "").strip()
        if not location:
            continue
        kind = (p.get(f"{store}.type") or "").strip().upper() or _type_from_name(location)
        if kind != "PEM":
            raise ConfigError(_not_pem(store, location, kind), hint=_pem_hint(store, location))
        out[field] = location
    if p.get(f"{KEYSTORE}.password") and out.get("cert_file"):
        out["key_password"] = Secret(p[f"{KEYSTORE}.password"])
    return out


# ZooKeeper's client takes a store's type from its name when .type is not set
# (X509Util, KeyStoreFileType.fromFilename), and refuses any other name.
_STORE_EXTENSIONS = {".pem": "PEM", ".jks": "JKS", ".p12": "PKCS12", ".bcfks": "BCFKS"}


def _type_from_name(location: str) -> str:
    """The type ZooKeeper gives a store without .type, from its file name ("" when it cannot)."""
    return next((kind for ext, kind in _STORE_EXTENSIONS.items() if location.lower().endswith(ext)), "")


def _not_pem(store: str, location: str, kind: str) -> str:
    if not kind:
        return (
            f"{store}.type is not set, and ZooKeeper cannot tell the type of {store}.location from its name "
            f"(it knows {', '.join(_STORE_EXTENSIONS)})"
        )
    return f"{store}.type={kind} cannot be used ({store}.location): only PEM files are supported"


def _pem_hint(store: str, location: str) -> str:
    from kadmin.client_config import looks_like_pem

    if looks_like_pem(location):
        return f"the file is PEM: set {store}.type=PEM"
    return f"convert it to PEM (keytool -exportcert -rfc, or openssl pkcs12 -nodes) and set {store}.type=PEM"


def tls_options(sec: ZkSecurity) -> dict[str, Any]:
    """kazoo's TLS keyword arguments; the PEM files are loaded once first, so an unreadable file
    or a wrong key password is a ConfigError now rather than endless reconnects later."""
    if not sec.tls:
        return {}
    import ssl

    try:
        ctx = ssl.create_default_context(cafile=sec.ca_file)
        if sec.cert_file:
            from kadmin.client_config import no_key_password

            password = sec.key_password.reveal() if sec.key_password else no_key_password(f"{KEYSTORE}.password")
            ctx.load_cert_chain(sec.cert_file, password=password)
    except (ssl.SSLError, OSError, ValueError) as e:
        raise ConfigError(
            f"cannot load the ZooKeeper TLS files: {type(e).__name__}: {getattr(e, 'reason', None) or e}",
            hint=f"check {TRUSTSTORE}.location, {KEYSTORE}.location and {KEYSTORE}.password",
        ) from None
    kw: dict[str, Any] = {"use_ssl": True, "verify_certs": True, "check_hostname": sec.check_hostname}
    if sec.ca_file:
        kw["ca"] = sec.ca_file
    if sec.cert_file:
        kw.update(certfile=sec.cert_file, keyfile=sec.cert_file)
        if sec.key_password:
            kw["keyfile_password"] = sec.key_password.reveal()
    return kw


def sensitive_path(path: str) -> bool:
    """Kafka's ``ZkData.sensitivePath``: no world-read under these roots."""
    return path.startswith(SENSITIVE_ROOTS)


def auth_data(sec: ZkSecurity) -> list[tuple[str, str]]:
    """kazoo's ``auth_data``: the credentials sent when the session starts."""
    return [("digest", sec.digest.reveal())] if sec.digest else []


def acls_for(sec: ZkSecurity, path: str) -> list[Any] | None:
    """The ACLs a znode kadmin creates at ``path`` gets; None: ZooKeeper's default (open)."""
    if not sec.set_acl:
        return None
    from kazoo.security import CREATOR_ALL_ACL, READ_ACL_UNSAFE

    return list(CREATOR_ALL_ACL) + ([] if sensitive_path(path) else list(READ_ACL_UNSAFE))
