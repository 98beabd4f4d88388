"""How a backend says that some config changes of one ``incremental_alter_configs`` call were
made before one failed: over ZooKeeper each resource's znode is written in turn, over the
AdminClient protocol each resource of an IncrementalAlterConfigs batch succeeds or fails on its
own. The caller must report (and record) what the cluster accepted, not only the error."""

from __future__ import annotations

from collections.abc import Sequence

from kadmin.errors import ClusterError, KadminError
from kadmin.model import ConfigChange


class ConfigChangesPartlyMade(ClusterError):
    """``made``: the changes the cluster accepted; ``cause``: the error of the first resource
    that failed (its message names that resource; its hint and exit code are this error's).
    The changes of the call that are in neither were refused or never sent. Raised only when
    something was made: a call that made nothing raises its error as it is."""

    def __init__(self, cause: KadminError, made: Sequence[ConfigChange]):
        super().__init__(cause.message, hint=cause.hint)
        self.cause = cause
        self.made = tuple(made)
        self.exit_code = cause.exit_code


def made_before(error: KadminError) -> tuple[ConfigChange, ...]:
    """The changes ``error`` says the cluster accepted before it (none for any other error)."""
    return error.made if isinstance(error, ConfigChangesPartlyMade) else ()
