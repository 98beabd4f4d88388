"""For the type checker only: both backends implement the ``Backend`` protocol.

``Backend`` is a ``typing.Protocol``, so nothing at run time makes ``AdminBackend`` or
``ZooKeeperBackend`` match it; mypy (``make lint``) checks these two conversions and reports any
method whose name, parameters or result drifts from ``kadmin.backends.base``. Nothing here runs:
the imports sit under ``TYPE_CHECKING`` (they would load no client library anyway, the backends
import theirs lazily) and no code imports this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kadmin.backends.admin import AdminBackend
    from kadmin.backends.base import Backend
    from kadmin.backends.zookeeper import ZooKeeperBackend

    def _admin_is_a_backend(backend: AdminBackend) -> Backend:
        return backend

    def _zookeeper_is_a_backend(backend: ZooKeeperBackend) -> Backend:
        return backend
