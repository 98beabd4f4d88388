"""Typed errors, each carrying the exit code the CLI returns for it.

Exit codes (documented in ``kadmin --help`` and the README):
  0 done; 1 error; 2 bad usage or bad input (nothing was changed);
  3 still in progress; 4 finished but the cluster differs from the plan.

Nothing below ``commands/`` exits the process: library code raises these, and
``kadmin.cli`` turns them into one line on stderr and the exit code.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_IN_PROGRESS = 3
EXIT_DIFFERS = 4


class KadminError(Exception):
    """Base class. ``str(err)`` is the one line shown to the user, after ``kadmin: error:``
    (after ``kadmin:`` alone for an outcome that is not a failure: ``is_error`` False)."""

    exit_code = EXIT_ERROR
    is_error = True

    def __init__(self, message: str, *, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message


class UsageError(KadminError):
    """Bad flags or flag combinations. Nothing was changed."""

    exit_code = EXIT_USAGE


class InputError(KadminError):
    """A bad input file or value. Nothing was changed.

    ``problems`` lists every problem found, each already saying where it is in the input.
    ``source``: the input file refused, as the user named it. The error line and each problem
    line then start with it (``plan.json: ...``), so a script handing kadmin several files can
    tell which one is bad; the problems themselves stay without it (``--output json``).
    """

    exit_code = EXIT_USAGE

    def __init__(
        self,
        message: str,
        problems: list[str] | None = None,
        *,
        hint: str | None = None,
        source: str | os.PathLike | None = None,
    ):
        super().__init__(f"{source}: {message}" if source else message, hint=hint)
        self.problems = list(problems or [])
        self.source = str(source) if source else None


class ConfigError(InputError):
    """Connection settings that cannot be used (profile, properties file, environment)."""


class NotFoundError(InputError):
    """Something named on the command line does not exist in the cluster (broker, topic...)."""


class ClusterError(KadminError):
    """The cluster answered with an error, or could not be reached."""

    def __init__(self, message: str, *, error_code: int | None = None, hint: str | None = None):
        super().__init__(message, hint=hint)
        self.error_code = error_code


class ConnectionFailed(ClusterError):
    """No broker (or ZooKeeper server) could be used: none answered within the timeout, or the
    bootstrap servers given turned kadmin away (not a Kafka listener, or one asking for a login)."""


class ConfigsNotAnswered(ConnectionFailed):
    """Brokers that did not answer DescribeConfigs for their own configs in time (slow, or gone
    since the Metadata named them): ``brokers`` says why for each (broker -> why), ``configs``
    holds what was answered (``{ConfigResource: {name: ConfigEntry}}``: the topics and the
    cluster-wide default were asked of a broker that answered). A caller that can report part of
    the cluster reads them; any other fails."""

    def __init__(self, configs: Mapping, brokers: Mapping[int, str]):
        from kadmin.units import plural

        self.configs = dict(configs)
        self.brokers = dict(sorted(brokers.items()))
        who = ", ".join(f"{b} ({why})" for b, why in self.brokers.items())
        super().__init__(
            f"{plural('broker', len(self.brokers))} {who} did not answer DescribeConfigs",
            hint="check the broker and run it again",
        )


class AuthorizationError(ClusterError):
    """The principal lacks a permission (e.g. CLUSTER_AUTHORIZATION_FAILED)."""


class AuthenticationError(ClusterError):
    """Wrong credentials or security settings."""


class UnsupportedOperation(KadminError):
    """The chosen backend cannot do this (e.g. an operation needing --bootstrap-server)."""


class ReassignmentInProgress(KadminError):
    """Another reassignment runs and --additional was not given. Nothing was changed."""

    exit_code = EXIT_USAGE


class StillInProgress(KadminError):
    """Verify found work still running: an outcome to wait on, not a failure."""

    exit_code = EXIT_IN_PROGRESS
    is_error = False


class DiffersFromPlan(KadminError):
    """Verify found no work running but the cluster differs from the plan."""

    exit_code = EXIT_DIFFERS
