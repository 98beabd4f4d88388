"""Backends: the KIP-179 interface (``base``) and its two implementations.

``open_backend`` is the one place a backend is made: it chooses the implementation from the
connection settings and imports the client library only then.
"""

from __future__ import annotations

from kadmin.backends.base import Backend


def open_backend(settings, read_only: bool = True) -> Backend:
    """``settings``: ``kadmin.config.ConnectionSettings``. ZooKeeper when ``settings.zookeeper``
    is set (log-dir RPCs then go to the brokers found in ZooKeeper), else the AdminClient."""
    from kadmin.backends.admin import AdminBackend

    if getattr(settings, "zookeeper", None):
        from kadmin.backends.zookeeper import ZooKeeperBackend

        def broker_backend(bootstrap: str) -> Backend:
            return AdminBackend(settings.with_bootstrap(bootstrap), read_only=read_only)

        return ZooKeeperBackend.from_settings(settings, read_only=read_only, broker_backend_factory=broker_backend)
    return AdminBackend(settings, read_only=read_only)
