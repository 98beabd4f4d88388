"""The state file of an incremental reassignment: what lets an interrupted run resume.

It holds the steps computed at the start (they depend on the leaders, ISRs and
min.insync.replicas of that moment, so recomputing them later could give another sequence) and
how far each partition got. The cluster stays the source of truth for progress: on resume the
executor reads where each partition is and matches it against these steps; the counts here are
what the run knew when it last wrote. Written atomically (temporary file, fsync, rename), so a
crash leaves the previous version or the new one, never half a file. Format:
``schemas/incremental-state.json``. A run holds an exclusive lock (``locked``: flock on
``<state file>.lock``, which keeps the holder's pid) from start to end: two runs of one state
would both drive the plan.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from kadmin.errors import InputError, ReassignmentInProgress
from kadmin.model import TopicPartition
from kadmin.plan.batches import Limits
from kadmin.plan.steps import Step, steps_from_sets

STATE_VERSION = 1
KIND = "kadmin-incremental-reassignment"


@dataclass(frozen=True)
class PartitionProgress:
    """One partition: its replicas and leader when the run began, its steps, how far it got."""

    tp: TopicPartition
    original: tuple[int, ...]
    leader: int
    steps: tuple[Step, ...]
    completed: int = 0  # steps the cluster has finished
    submitted: int = 0  # steps sent to the cluster (completed, or the one in flight)

    @property
    def done(self) -> bool:
        return self.completed >= len(self.steps)


@dataclass(frozen=True)
class IncrementalState:
    plan_digest: str  # SHA-256 of the plan's content: a state file belongs to one plan
    limits: Limits
    partitions: Mapping[TopicPartition, PartitionProgress]
    plan_file: str | None = None
    batches: int = 0  # reassign_partitions calls made so far, over every run
    runs: int = 1  # how many times the command ran on this state (1 + resumes)
    throttles_set: bool = False
    finished: bool = False
    rollback_file: str | None = None  # the assignment from before the plan's first step, for this run
    throttles_via: tuple[str, ...] = ()  # connections ("admin", "zookeeper") holding a throttle record of this run
    throttle_rate: int | None = None  # the rates the run set (--throttle): a resumed run sets them again
    log_dir_rate: int | None = None  # --replica-alter-log-dirs-throttle
    extra: Mapping[str, object] = field(default_factory=dict)

    @property
    def steps_total(self) -> int:
        return sum(len(p.steps) for p in self.partitions.values())

    @property
    def steps_completed(self) -> int:
        return sum(min(p.completed, len(p.steps)) for p in self.partitions.values())

    def with_progress(
        self, tp: TopicPartition, *, completed: int | None = None, submitted: int | None = None
    ) -> IncrementalState:
        return self.with_counts({tp: (completed, submitted)})

    def with_counts(self, counts: Mapping[TopicPartition, tuple[int | None, int | None]]) -> IncrementalState:
        """New (completed, submitted) counts for some partitions (None keeps a count), in one copy."""
        if not counts:
            return self
        parts = dict(self.partitions)
        for tp, (completed, submitted) in counts.items():
            p = parts[tp]
            parts[tp] = replace(
                p,
                completed=p.completed if completed is None else completed,
                submitted=p.submitted if submitted is None else submitted,
            )
        return replace(self, partitions=parts)

    # --- JSON ---------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "version": STATE_VERSION,
            "kind": KIND,
            "plan_sha256": self.plan_digest,
            "plan_file": self.plan_file,
            "limits": self.limits.to_json(),
            "batches": self.batches,
            "runs": self.runs,
            "throttles_set": self.throttles_set,
            "finished": self.finished,
            **({"rollback_file": self.rollback_file} if self.rollback_file is not None else {}),
            **({"throttles_via": list(self.throttles_via)} if self.throttles_via else {}),
            **({"throttle_rate": self.throttle_rate} if self.throttle_rate is not None else {}),
            **({"log_dir_rate": self.log_dir_rate} if self.log_dir_rate is not None else {}),
            "partitions": [
                {
                    "topic": p.tp.topic,
                    "partition": p.tp.partition,
                    "original": list(p.original),
                    "leader": p.leader,
                    "steps": [list(s.after) for s in p.steps],
                    "completed": p.completed,
                    "submitted": p.submitted,
                }
                for p in sorted(self.partitions.values(), key=lambda p: p.tp)
            ],
            **({"extra": dict(self.extra)} if self.extra else {}),
        }

    @classmethod
    def from_json(cls, data: Mapping) -> IncrementalState:
        parts = {}
        for e in data["partitions"]:
            tp = TopicPartition(e["topic"], e["partition"])
            steps = steps_from_sets(tp, e["original"], e["steps"], e["leader"])
            parts[tp] = PartitionProgress(tp, tuple(e["original"]), e["leader"], steps, e["completed"], e["submitted"])
        return cls(
            plan_digest=data["plan_sha256"],
            limits=Limits.from_json(data["limits"]),
            partitions=parts,
            plan_file=data.get("plan_file"),
            batches=data["batches"],
            runs=data.get("runs", 1),
            throttles_set=data["throttles_set"],
            finished=data["finished"],
            rollback_file=data.get("rollback_file"),
            throttles_via=tuple(data.get("throttles_via", ())),
            throttle_rate=data.get("throttle_rate"),
            log_dir_rate=data.get("log_dir_rate"),
            extra=data.get("extra", {}),
        )


def plan_digest(content: bytes | str) -> str:
    if isinstance(content, str):
        content = content.encode("utf-8")
    return hashlib.sha256(content).hexdigest()


def default_state_path(plan_path: str | os.PathLike, env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/kadmin/incremental/<hash of the plan's absolute path>.json``
    (``~/.local/state`` when XDG_STATE_HOME is unset): the same command, run again from
    anywhere, finds its state."""
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".local", "state")
    key = hashlib.sha256(os.path.abspath(os.fspath(plan_path)).encode("utf-8")).hexdigest()[:16]
    return Path(base) / "kadmin" / "incremental" / f"{key}.json"


def load(path: str | os.PathLike) -> IncrementalState | None:
    """The state at ``path``; None when there is none. A malformed file is an InputError."""
    p = Path(path)
    try:
        text = p.read_text("utf-8")
    except FileNotFoundError:
        return None
    except OSError as e:
        raise InputError(f"cannot read the state file {p}: {e.strerror or e}") from None
    try:
        data = json.loads(text)
    except ValueError as e:
        raise InputError(f"the state file {p} is not JSON: {e}", hint="remove it to start over") from None
    import jsonschema

    from kadmin.schemas import load as load_schema

    errors = sorted(
        jsonschema.Draft202012Validator(load_schema("incremental-state")).iter_errors(data),
        key=lambda e: list(e.absolute_path),
    )
    if errors:
        problems = [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in errors[:10]]
        raise InputError(
            f"the state file {p} is not a kadmin incremental state", problems, hint="remove it to start over"
        )
    return IncrementalState.from_json(data)


def save(path: str | os.PathLike, state: IncrementalState) -> None:
    """Write atomically: a temporary file next to ``path``, fsync, rename, fsync the directory."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        # Compact, through json's C encoder: a run of 100,000 partitions saves in a blink.
        text = json.dumps(state.to_json(), separators=(",", ":"))
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    try:
        dfd = os.open(p.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def check_writable(path: str | os.PathLike) -> None:
    """InputError (exit 2) when no state file can be written at ``path``: checked before the
    first change by the run and by ``--dry-run`` alike. Writing is tried for real where it will
    happen (a temporary file in its directory, or a temporary directory in the nearest one that
    exists, removed at once), so a read-only or virtual file system is caught too."""
    p = Path(path)

    def refuse(why: str) -> None:
        raise InputError(
            f"cannot write the state file {p}: {why}; nothing was changed", hint="choose another --state-file"
        )

    if p.is_dir():
        refuse("it is a directory")
    where = p.parent
    while not where.exists() and where != where.parent:
        where = where.parent
    if not where.is_dir():
        refuse(f"{where} is not a directory")
    try:
        if where == p.parent:
            fd, probe = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".probe", dir=where)
            os.close(fd)
            os.unlink(probe)
        else:
            os.rmdir(tempfile.mkdtemp(prefix=".kadmin-probe-", dir=where))
    except OSError as e:
        refuse(e.strerror or str(e))


def lock_path(path: str | os.PathLike) -> Path:
    p = Path(path)
    return p.with_name(p.name + ".lock")


@contextlib.contextmanager
def locked(path: str | os.PathLike) -> Iterator[None]:
    """Hold an exclusive lock on the state at ``path`` (``flock`` on ``<path>.lock``, holding the
    run's pid) until the block ends, then remove the lock file; the kernel drops the lock when
    the process dies. Another run holding it is refused at once: ReassignmentInProgress (exit 2)
    naming its pid."""
    import fcntl

    p = Path(path)
    lock = lock_path(p)
    lock.parent.mkdir(parents=True, exist_ok=True)
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise ReassignmentInProgress(
                f"another run of this plan is in progress (pid {holder}, state file {p}); nothing was changed",
                hint="let it finish, or stop it (Ctrl-C) and run the same command again to resume",
            ) from None
        try:
            same = os.stat(lock).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)  # the run before removed that file as it ended: lock the one there now
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(lock)  # still locked: a run that opened it meanwhile finds it gone and retries
        os.close(fd)
