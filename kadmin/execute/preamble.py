"""What every ``reassign execute`` run does first, plain or ``--incremental``: check the flags,
read the plan, open the backend (a plan file with problems of its own is reported as such even
when the cluster cannot be reached), and keep the rollback file only when it is needed.

A run that ends without having moved any replica leaves no rollback file behind: there is
nothing to roll back, and running the same command again must not be refused because of it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from kadmin.errors import (
    AuthenticationError,
    AuthorizationError,
    ClusterError,
    InputError,
    UnsupportedOperation,
)
from kadmin.execute.changes import REPLICA_NOT_AVAILABLE
from kadmin.execute.params import ExecuteParams
from kadmin.execute.plan_of_changes import ExecuteRequest
from kadmin.model import ReassignmentPlan
from kadmin.plan.reassignment_file import ParsedPlan

# Backend calls that move replicas (or put them back); a rollback file matters once one was made.
MOVING_CALLS = ("reassign_partitions", "alter_replica_log_dirs", "cancel_partition_reassignments")
_ACCEPTED = (None, REPLICA_NOT_AVAILABLE)  # per-item answers after which a move may happen


@dataclass(frozen=True)
class Prepared:
    """The checked flags, the parsed plan and the request every run builds from them."""

    params: ExecuteParams
    parsed: ParsedPlan
    plan_id: str
    request: ExecuteRequest

    @property
    def rollback_path(self) -> str:
        return self.request.rollback_path


def prepare(params: ExecuteParams, now: datetime) -> Prepared:
    """Validate the flags (``params.validate()``), read the plan (its shape problems are kept
    for the cluster check) and build the request."""
    from kadmin.execute.rollback import default_rollback_path
    from kadmin.plan.reassignment_file import read_reassignment
    from kadmin.throttling.record import plan_id

    params.validate()
    parsed = read_reassignment(params.plan_file, keep_problems=True)  # reported with the cluster's
    incremental = params.incremental  # its throttles are set per step (step_throttles), not up front
    request = ExecuteRequest(
        parsed=parsed,
        plan_id=plan_id(Path(params.plan_file).read_bytes()),
        rollback_path=str(params.rollback_file or default_rollback_path(params.plan_file, now)),
        plan_file=str(Path(params.plan_file).resolve()),
        additional=params.additional,
        throttle=None if incremental else params.throttle_rate,
        log_dir_throttle=None if incremental else params.log_dir_rate,
        timeout=params.timeout_seconds,
        allow_replication_factor_change=params.allow_replication_factor_change,
    )
    return Prepared(params, parsed, request.plan_id, request)


def check_rollback_path(path: str) -> None:
    """The rollback file can be written where asked, checked before the first change by the run
    and by ``--dry-run`` alike: it is never overwritten (it may be the only record of an earlier
    state), and its directory must exist."""
    p = Path(path)
    if p.exists():
        raise InputError(
            f"rollback file {path} already exists; nothing was changed", hint="choose another --rollback-file"
        )
    if not p.parent.is_dir():
        raise InputError(
            f"cannot write rollback file {path}: {p.parent} is not a directory; nothing was changed",
            hint="choose another --rollback-file",
        )


def refuse_unrecorded_throttles(throttles: bool, records) -> None:
    """UnsupportedOperation when the run would set ``throttles`` and the connection offers no
    place (``records`` None) for kadmin's record of them: they could not be removed safely.
    Checked before the first change by the run and by ``--dry-run`` alike."""
    if throttles and records is None:
        raise UnsupportedOperation(
            "this connection has no place to record the throttles kadmin sets, so they could not be removed safely; nothing was changed",
            hint="run without --throttle, or set throttles with `kadmin throttle set`",
        )


@contextlib.contextmanager
def open_for_execute(
    prepared: Prepared, opener: Callable[[bool], AbstractContextManager], *, read_only: bool
) -> Iterator[ChangeWatch]:
    """``opener(read_only)``'s backend, watched for moves (``ChangeWatch``). A plan file with
    problems of its own is reported as such (exit 2) even when the cluster cannot be reached;
    with a reachable cluster its problems are listed with the cluster's, at once."""
    from kadmin.plan.reassignment_file import plan_problems
    from kadmin.plan.validate import file_problems

    try:
        with opener(read_only) as backend:
            yield ChangeWatch(backend)
    except ClusterError:
        problems = file_problems(prepared.parsed)
        if not problems:
            raise
        raise plan_problems(problems, source=prepared.parsed.source, of_its_own=True) from None


class ChangeWatch:
    """A backend, unchanged, that notes whether a call that may have moved a replica was made:
    one that answered "accepted" for at least one item, or one that failed in a way that leaves
    it unknown. Everything else passes straight through.

    ``moved`` is set before such a call goes out and taken back only once its answer shows
    nothing accepted: a Ctrl-C at any moment in between (the answer on its way, or being read)
    leaves it set, and the rollback file is kept."""

    def __init__(self, backend):
        self._backend = backend
        self.moved = False

    @property
    def backend(self):
        return self._backend

    def __getattr__(self, name: str):
        attr = getattr(self._backend, name)
        if name not in MOVING_CALLS:
            return attr

        def call(*args, **kwargs):
            from kadmin.backends.base import ReadOnlyViolation

            before = self.moved
            self.moved = True  # from here on the request may reach the cluster
            try:
                answers = attr(*args, **kwargs)
            except (ReadOnlyViolation, UnsupportedOperation, AuthorizationError, AuthenticationError):
                # Refused before anything was sent, or by the cluster as a whole: Kafka checks
                # the permission (ALTER on CLUSTER) and the login before it acts on any partition.
                self.moved = before
                raise
            if kwargs.get("validate_only") or not any(err in _ACCEPTED for err in dict(answers or {}).values()):
                self.moved = before
            return answers

        return call


class RollbackFile:
    """The rollback file of one run. ``write`` refuses to overwrite a file; leaving the
    ``with`` block (normally or by an exception) removes the file again when the watched
    backend moved nothing (``discarded`` then says so), unless ``keep()`` was called (an
    incremental run whose state file stays: its resumed run moves replicas and needs it)."""

    def __init__(self, path: str, watch: ChangeWatch):
        self.path = path
        self.watch = watch
        self.written = False
        self.discarded = False
        self.kept = False

    def keep(self) -> None:
        """Keep the file even when nothing was moved."""
        self.kept = True

    def write(self, path: str, plan: ReassignmentPlan) -> None:
        from kadmin.plan.reassignment_file import write_reassignment

        write_reassignment(path, plan)  # refuses to overwrite
        self.written = True
        self.path = path

    def __enter__(self) -> RollbackFile:
        return self

    def __exit__(self, *exc) -> None:
        if self.written and not self.watch.moved and not self.kept:
            with contextlib.suppress(FileNotFoundError):
                Path(self.path).unlink()
            self.written = False
            self.discarded = True
