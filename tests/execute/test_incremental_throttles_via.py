"""The state names a connection as holding the run's throttles only when a part of the run set
something through it."""

from __future__ import annotations

import pytest

from kadmin.backends.base import Capability
from kadmin.execute import state_file
from kadmin.execute.incremental import run_incremental
from kadmin.execute.step_throttles import RecordedThrottles
from kadmin.plan.batches import Limits
from kadmin.throttling.stores import MemoryRecordStore
from tests.execute.fakes_incremental import FakeBackend, FakeClock
from tests.execute.test_incremental import Recorder, many, plan_of


def test_a_part_through_zookeeper_that_set_nothing_is_not_named_and_the_end_warns_of_nothing(tmp_path):
    current, target = many(4)
    fake = FakeBackend(range(6), current)
    path = tmp_path / "s.json"
    topic_records = MemoryRecordStore()
    as_admin = frozenset(Capability) - {Capability.CONFIGS_OF_DOWN_BROKERS}
    through_topic = RecordedThrottles(fake, 5000, plan_id="abc", records=topic_records)
    with pytest.raises(KeyboardInterrupt):
        run_incremental(
            fake, plan_of(target), Limits(), path, Recorder(stop_after_batch=1), FakeClock(fake), throttle=through_topic
        )
    fake.name, fake.capabilities = "zookeeper", frozenset(Capability) - {Capability.CONCURRENT_REASSIGNMENTS}
    through_zk = RecordedThrottles(fake, 5000, plan_id="abc", records=MemoryRecordStore())
    with pytest.raises(KeyboardInterrupt):  # every throttle is set already: this part sets nothing
        run_incremental(
            fake, plan_of(target), Limits(), path, Recorder(stop_after_batch=1), FakeClock(fake), throttle=through_zk
        )
    assert through_zk.records.load_all() == {}
    assert state_file.load(path).throttles_via == ("admin",)
    fake.name, fake.capabilities = "admin", as_admin
    through_topic = RecordedThrottles(fake, 5000, plan_id="abc", records=topic_records)
    result = run_incremental(fake, plan_of(target), Limits(), path, Recorder(), FakeClock(fake), throttle=through_topic)
    assert fake.assignment() == target
    assert result.throttles_left_with == ()
    assert not any(fake.configs.values())
