"""``ExecuteParams.validate()`` (every cross-flag rule, pure) and the preamble's rollback file,
kept only when a replica may have moved."""

from __future__ import annotations

import pytest

from kadmin.backends.base import ReadOnlyViolation
from kadmin.errors import ClusterError, InputError, UsageError
from kadmin.execute.params import ExecuteParams
from kadmin.execute.preamble import ChangeWatch, RollbackFile
from kadmin.model import Assignment, ReassignmentPlan, TopicPartition
from kadmin.plan.batches import Limits
from tests.execute.fakes import FakeBackend, cluster_state

FOO0 = TopicPartition("foo", 0)


@pytest.mark.parametrize("params, error, words", [
    (ExecuteParams("p.json", given=frozenset({"--state-file", "--max-moves-per-broker"})), UsageError,
     "--max-moves-per-broker, --state-file only apply to --incremental"),
    (ExecuteParams("p.json", incremental=True, log_dir_throttle="fast"), InputError, "fast"),
    (ExecuteParams("p.json", incremental=True, limits=Limits(max_moves_per_broker=0)), UsageError,
     "--max-moves-per-broker must be at least 1"),
    (ExecuteParams("p.json", throttle="fast"), InputError, "fast"),
    (ExecuteParams("p.json", wait=True, interval="0s"), InputError, "--interval must be more than 0"),
    (ExecuteParams("p.json", timeout="soon"), UsageError, "--timeout"),
])
def test_validate_refuses_flags_that_do_not_go_together(params, error, words):
    with pytest.raises(error) as e:
        params.validate()
    assert words in str(e.value) + " ".join(getattr(e.value, "problems", []))


def test_validate_accepts_sound_flags_and_parses_them():
    p = ExecuteParams("p.json", throttle="50MB/s", wait=True, interval="500ms", timeout="20s",
                      given=frozenset({"--throttle", "--wait"}))
    p.validate()
    assert (p.throttle_rate, p.wait_interval, p.timeout_seconds) == (50_000_000, 0.5, 20.0)
    ExecuteParams("p.json", incremental=True, given=frozenset({"--state-file"})).validate()
    assert ExecuteParams("p.json").interval == "2s"  # --interval without --wait is not checked
    ExecuteParams("p.json", interval="0s").validate()


def fake():
    return FakeBackend(cluster_state({"foo": {0: [1, 2]}}, brokers=(1, 2, 3)), {b: ["/d/a"] for b in (1, 2, 3)})


PLAN = ReassignmentPlan((Assignment("foo", 0, (1, 2)),))


def test_rollback_file_is_removed_when_nothing_moved(tmp_path):
    path = str(tmp_path / "rb.json")
    watch = ChangeWatch(fake())
    with pytest.raises(KeyError), RollbackFile(path, watch) as rb:
        rb.write(path, PLAN)
        raise KeyError("endpoint_type")
    assert rb.discarded and not (tmp_path / "rb.json").exists()


def test_rollback_file_is_removed_when_every_move_was_refused(tmp_path):
    be = fake()
    be.reassign_errors[FOO0] = "INVALID_REPLICA_ASSIGNMENT"
    watch = ChangeWatch(be)
    path = str(tmp_path / "rb.json")
    with RollbackFile(path, watch) as rb:
        rb.write(path, PLAN)
        assert watch.reassign_partitions([Assignment("foo", 0, (3, 2))]) == {FOO0: "INVALID_REPLICA_ASSIGNMENT"}
    assert rb.discarded and not (tmp_path / "rb.json").exists()


def test_rollback_file_stays_once_a_move_was_accepted_or_its_outcome_is_unknown(tmp_path):
    watch = ChangeWatch(fake())
    path = str(tmp_path / "rb.json")
    with RollbackFile(path, watch) as rb:
        rb.write(path, PLAN)
        watch.reassign_partitions([Assignment("foo", 0, (3, 2))])
    assert not rb.discarded and (tmp_path / "rb.json").exists()

    class Lost(FakeBackend):
        def alter_replica_log_dirs(self, moves):
            raise ClusterError("request timed out")

    lost = Lost(cluster_state({"foo": {0: [1, 2]}}), {b: ["/d/a"] for b in (1, 2, 3)})
    watch = ChangeWatch(lost)
    path = str(tmp_path / "rb2.json")
    with pytest.raises(ClusterError), RollbackFile(path, watch) as rb:
        rb.write(path, PLAN)
        watch.alter_replica_log_dirs({})
    assert (tmp_path / "rb2.json").exists()


def test_change_watch_passes_everything_else_through():
    be = fake()
    watch = ChangeWatch(be)
    assert watch.describe_cluster() is be.cluster and watch.name == "fake" and watch.backend is be
    watch.incremental_alter_configs([])
    assert not watch.moved


@pytest.mark.parametrize("method, args", [
    ("reassign_partitions", ([Assignment("foo", 0, (3, 2))],)),
    ("cancel_partition_reassignments", ([FOO0],)),
    ("alter_replica_log_dirs", ({},)),
    ("incremental_alter_configs", ([],)),
])
def test_fakes_refuse_changes_when_read_only_as_the_backends_do(method, args):
    from tests.execute import fakes_incremental

    for be in (fake(), fakes_incremental.FakeBackend((1, 2, 3), {FOO0: (1, 2)})):
        be.read_only = True
        with pytest.raises(ReadOnlyViolation):
            getattr(be, method)(*args)
        be.read_only = False
        try:
            getattr(be, method)(*args)
        except NotImplementedError:  # the incremental fake models no cancel or log-dir moves
            pass
