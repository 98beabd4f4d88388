"""kadmin's record topic with a replica in a failed log directory: its records are read whole, or
the read says it could not be, never an empty topic (which shows every throttle kadmin set as
set by someone else, for good).

On KRaft before JBOD (3.3) a leader whose directory failed keeps leading and answers Fetch and
ListOffsets with KAFKA_STORAGE_ERROR; with JBOD (4.3) and in ZooKeeper mode (2.8) leadership
moves to the replica on the healthy broker, which serves the records.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kadmin.backends.admin_records import RecordTopic
from kadmin.commands.root import cli
from kadmin.errors import ClusterError
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)

RECORDS = "__kadmin_throttle_records"
D1 = "/var/lib/kafka/data1"
MODES = [
    pytest.param(("3.3", False), id="3.3-kraft"),
    pytest.param(("4.3", False), id="4.3-kraft"),
    pytest.param(("2.8", True), id="2.8-zookeeper", marks=pytest.mark.zookeeper),
]


def kadmin(sb, *args):
    return CliRunner().invoke(cli, [*args, "--bootstrap-server", sb.bootstrap, "--timeout", "5s"])


def backend(sb, *, small_client=True):
    from kadmin.backends.admin import AdminBackend
    from kadmin.config import ConnectionSettings

    b = AdminBackend(ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=5), read_only=True)
    b._wire_off = not small_client  # as with security configured: the library clients read
    return b


@pytest.fixture(params=MODES)
def recorded(request, sandbox_factory):  # noqa: F811
    """Two brokers; the record topic on D1 of both, led by broker 1; `throttle set` recorded."""
    version, zk_mode = request.param
    extra = {"zookeeper": request.getfixturevalue("zk_connect")} if zk_mode else {}
    sb = sandbox_factory(brokers=2, log_dirs=2, manual_clock=True, kafka_version=version, **extra)
    sb.create_topic(RECORDS, assignment={0: [1, 0]}, configs={"cleanup.policy": "compact"},
                    log_dirs={(0, 0): D1, (0, 1): D1})
    sb.settle()
    r = kadmin(sb, "throttle", "set", "--rate", "1MB/s", "--brokers", "0,1")
    assert r.exit_code == 0, r.output
    assert set(RecordTopic(backend(sb), RECORDS).read_all()) == {"manual"}
    return sb, version, zk_mode


def shown(sb):
    r = kadmin(sb, "throttle", "show", "-o", "json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout), r.stderr


def test_a_leader_on_its_failed_directory_makes_the_records_unreadable_not_empty(recorded):
    sb, version, zk_mode = recorded
    sb.faults.dir_offline(1, D1)  # the leader's
    sb.settle()
    if version == "3.3" and not zk_mode:  # broker 1 keeps leading and serves nothing
        for small_client in (True, False):
            with pytest.raises(ClusterError) as e:
                RecordTopic(backend(sb, small_client=small_client), RECORDS).read_all()
            assert f"{RECORDS}-0's leader, broker 1," in e.value.message
            assert ("Fetch with KAFKA_STORAGE_ERROR" if small_client else "no end offset") in e.value.message
        report, warning = shown(sb)
        assert report["records"] == [] and not any(t["set_by_kadmin"] for t in report["throttles"])
        assert "throttle records could not be read" in warning and "KAFKA_STORAGE_ERROR" in warning
        assert "broker 1" in warning
        for change in (["clear", "--stale"], ["set", "--rate", "2MB/s", "--brokers", "0"]):
            r = kadmin(sb, "throttle", *change)
            assert r.exit_code == 1 and "nothing was changed" in r.stderr, r.output
    else:  # broker 0 leads and serves the records
        report, warning = shown(sb)
        assert [r["plan_id"] for r in report["records"]] == ["manual"]
        assert all(t["set_by_kadmin"] for t in report["throttles"]), warning


def test_a_follower_on_its_failed_directory_leaves_the_records_readable(recorded):
    sb, _, _ = recorded
    sb.faults.dir_offline(0, D1)
    sb.settle()
    for small_client in (True, False):
        assert set(RecordTopic(backend(sb, small_client=small_client), RECORDS).read_all()) == {"manual"}
    report, _ = shown(sb)
    assert [r["plan_id"] for r in report["records"]] == ["manual"]


def test_no_replica_left_to_lead_makes_the_records_unreadable(recorded):
    sb, version, zk_mode = recorded
    sb.faults.dir_offline(1, D1)
    sb.settle()
    sb.faults.dir_offline(0, D1)
    sb.settle()
    for small_client in (True, False):
        with pytest.raises(ClusterError) as e:
            RecordTopic(backend(sb, small_client=small_client), RECORDS).read_all()
        if version == "3.3" and not zk_mode:  # broker 1 still leads
            assert f"{RECORDS}-0's leader, broker 1," in e.value.message
        else:
            assert f"{RECORDS}-0 has no leader" in e.value.message
    report, warning = shown(sb)
    assert report["records"] == [] and "throttle records could not be read" in warning
