"""ZooKeeper authentication and ACLs for the ``--zookeeper`` backend, from the same
``--command-config`` properties as the Kafka clients.

- ``zookeeper.auth.digest=user:password``: kadmin's property for ZooKeeper's ``digest`` scheme
  (what ``addauth digest user:password`` does in zkCli.sh). The session then acts as
  ``digest:user:<hash>`` and may touch the znodes whose ACLs grant that identity.
- ``zookeeper.set.acl=true``: Kafka's broker property of the same name and meaning: every znode
  kadmin creates gets Kafka's secure ACLs (``ZkData.defaultAcls``): all permissions for the
  creator, plus world-read except under the sensitive roots (/config/users, /config/brokers,
  /delegation_token). Like Kafka, it needs credentials: true without them is a ConfigError.

Kafka's own tools reached a secured ZooKeeper through SASL (a JAAS ``Client`` section); that, and
``zookeeper.ssl.*`` (TLS), are refused with a clear error rather than silently connecting in the
clear. The password lives in a ``Secret`` and is never part of a message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kadmin.errors import ConfigError
from kadmin.java_properties import Secret

AUTH_DIGEST = "zookeeper.auth.digest"
SET_ACL = "zookeeper.set.acl"
SENSITIVE_ROOTS = ("/config/users", "/config/brokers", "/delegation_token")


@dataclass(frozen=True)
class ZkSecurity:
    """What the properties ask of the ZooKeeper session; ``digest`` is "user:password"."""

    digest: Secret | None = None
    set_acl: bool = False

    @property
    def user(self) -> str | None:
        return self.digest.reveal().split(":", 1)[0] if self.digest else None


def zk_security(properties: Mapping[str, str]) -> ZkSecurity:
    """Check the ``zookeeper.*`` properties; ConfigError naming the property (never its value)
    for anything kadmin cannot honour."""
    for key in sorted(properties):
        if key.startswith("zookeeper.") and key not in (AUTH_DIGEST, SET_ACL):
            raise ConfigError(
                f"property {key} is not supported by kadmin's ZooKeeper backend",
                hint=f"kadmin supports {AUTH_DIGEST}=user:password and {SET_ACL}=true|false "
                     "(no SASL or TLS to ZooKeeper); or use --bootstrap-server")
    digest = None
    raw = properties.get(AUTH_DIGEST)
    if raw is not None:
        user, sep, password = raw.strip().partition(":")
        if not sep or not user or not password:
            raise ConfigError(f"{AUTH_DIGEST} must have the form user:password")
        digest = Secret(f"{user}:{password}")
    flag = (properties.get(SET_ACL) or "false").strip().lower()
    if flag not in ("true", "false"):
        raise ConfigError(f"{SET_ACL} must be true or false")
    if flag == "true" and digest is None:
        raise ConfigError(f"{SET_ACL}=true needs credentials: set {AUTH_DIGEST}=user:password",
                          hint="as with Kafka, secure ACLs are only set by an authenticated session")
    return ZkSecurity(digest=digest, set_acl=flag == "true")


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
