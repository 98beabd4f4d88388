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


class ConfigChangesInterrupted(KeyboardInterrupt):
    """Ctrl-C while config changes were being sent (``send_in_turn``): ``made`` the changes the
    cluster accepted, ``unanswered`` those of the request in flight (sent, no answer: they may
    have been made). The rest were not sent. A KeyboardInterrupt still, so a caller that does
    not report it stops as on any Ctrl-C."""

    def __init__(self, made: Sequence[ConfigChange], unanswered: Sequence[ConfigChange]):
        super().__init__()
        self.made = tuple(made)
        self.unanswered = tuple(unanswered)


def send_in_turn(backend, changes: Sequence[ConfigChange]) -> None:
    """``backend.incremental_alter_configs`` one request at a time, so that a Ctrl-C or a failure
    part way says what the cluster accepted: ConfigChangesInterrupted, or ConfigChangesPartlyMade
    (the same error as the backend's when nothing was made before it). A request is what the
    backend would send anyway: each broker's own configs (a broker answers for them), and every
    topic's together (any broker answers for those), so a plan over 1,000 topics is one request
    for its lists, not 1,000."""
    from kadmin.model import ConfigResourceType

    made: list[ConfigChange] = []
    by_request: dict = {}
    for c in changes:
        key = "topics" if c.resource.type is ConfigResourceType.TOPIC else c.resource
        by_request.setdefault(key, []).append(c)
    for batch in by_request.values():
        try:
            backend.incremental_alter_configs(batch)
        except KeyboardInterrupt as e:
            raise ConfigChangesInterrupted(made + list(_made_before_interrupt(e)), _unanswered(e, batch)) from e
        except KadminError as e:
            if not made:
                raise
            cause = e.cause if isinstance(e, ConfigChangesPartlyMade) else e
            raise ConfigChangesPartlyMade(cause, made + list(made_before(e))) from e
        made += batch


def _made_before_interrupt(e: KeyboardInterrupt) -> tuple[ConfigChange, ...]:
    return e.made if isinstance(e, ConfigChangesInterrupted) else ()


def _unanswered(e: KeyboardInterrupt, batch: Sequence[ConfigChange]) -> tuple[ConfigChange, ...]:
    return e.unanswered if isinstance(e, ConfigChangesInterrupted) else tuple(batch)


class InTurn:
    """``backend`` whose ``incremental_alter_configs`` sends one request at a time
    (``send_in_turn``): for a command that reports a Ctrl-C part way (``reassign verify``'s
    removal) through code that calls the backend as it is. Everything else is ``backend``'s."""

    def __init__(self, backend):
        self._backend = backend

    def __getattr__(self, name):
        return getattr(self._backend, name)

    def incremental_alter_configs(self, changes: Sequence[ConfigChange]) -> None:
        send_in_turn(self._backend, changes)
