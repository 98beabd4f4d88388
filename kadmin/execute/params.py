"""``reassign execute``'s flags as one value, with its cross-flag rules in a pure ``validate()``.

The Click layer builds an ``ExecuteParams`` (``given``: the flags set on the command line rather
than left at their defaults) and calls ``validate()`` before anything is read; both the plain
and the ``--incremental`` run use the same params and the same preamble (``preamble.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmin.errors import InputError, UsageError
from kadmin.plan.batches import Limits

# Flags that shape an incremental run only; without --incremental they would be silently ignored.
INCREMENTAL_ONLY = (
    "--max-parallel-replicas",
    "--max-parallel-partitions",
    "--max-leader-movements",
    "--max-moves-per-broker",
    "--state-file",
)

DEFAULT_TIMEOUT = 10.0  # seconds execute waits for new replicas (KIP-113 retries) without --timeout


@dataclass(frozen=True)
class ExecuteParams:
    plan_file: str
    output: str = "table"
    throttle: str | None = None
    log_dir_throttle: str | None = None
    additional: bool = False
    dry_run: bool = False
    rollback_file: str | None = None
    allow_replication_factor_change: bool = False
    incremental: bool = False
    limits: Limits = field(default_factory=Limits)
    state_file: str | None = None
    wait: bool = False
    interval: str = "2s"
    elect_preferred: bool = False
    timeout: str | float | None = None  # --timeout, or KADMIN_TIMEOUT/the profile's in seconds
    given: frozenset[str] = frozenset()  # flags given on the command line, e.g. "--state-file"

    @property
    def people(self) -> bool:
        """Lines for a person (``--output table``) rather than one JSON document."""
        return self.output == "table"

    def validate(self) -> None:
        """Every rule between flags and every flag value, before anything is read. Raises
        UsageError (a flag that does not apply) or InputError (a value that cannot be used)."""
        if self.incremental:
            self.limits.validate()
        else:
            extra = [flag for flag in INCREMENTAL_ONLY if flag in self.given]
            if extra:
                raise UsageError(
                    f"{', '.join(extra)} only apply to --incremental runs (without it every replica moves at once)"
                )
        self.throttle_rate, self.log_dir_rate, self.timeout_seconds  # noqa: B018  (parsed to check)
        if self.wait:
            self.wait_interval  # noqa: B018
        if self.elect_preferred and not (self.wait or self.incremental):
            raise UsageError(
                "--elect-preferred needs --wait or --incremental (the plan must be complete first); "
                "or run `kadmin reassign verify --elect-preferred` later"
            )

    @property
    def throttle_rate(self) -> int | None:
        """--throttle in bytes/s."""
        from kadmin.units import parse_rate

        return parse_rate(self.throttle) if self.throttle is not None else None

    @property
    def log_dir_rate(self) -> int | None:
        """--replica-alter-log-dirs-throttle in bytes/s."""
        from kadmin.units import parse_rate

        return parse_rate(self.log_dir_throttle) if self.log_dir_throttle is not None else None

    @property
    def timeout_seconds(self) -> float:
        from kadmin.config import parse_timeout

        return parse_timeout(self.timeout) if self.timeout else DEFAULT_TIMEOUT

    @property
    def wait_interval(self) -> float:
        """--interval in seconds (--wait's time between samples)."""
        from kadmin.units import parse_duration

        every = parse_duration(self.interval)
        if every <= 0:
            raise InputError("--interval must be more than 0 with --wait")
        return every
