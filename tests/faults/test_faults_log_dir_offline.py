"""A log directory goes offline while a replica moves into it or out of it (AdminClient
protocol, manual clock): verify and log-dirs describe report it, nothing crashes, and once the
directory is back the plan can be run again to finish the move."""

from __future__ import annotations

import json

import pytest

from tests.faults.support import MB, injected, kadmin, settle, write_plan

DATA0, DATA1 = "/var/lib/kafka/data0", "/var/lib/kafka/data1"


@pytest.fixture
def sb(sandbox_factory):
    sb = sandbox_factory(brokers=3, log_dirs=2, manual_clock=True)
    sb.create_topic("foo", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=10 * MB,
                    log_dirs={(0, 0): DATA0, (0, 1): DATA0, (1, 1): DATA0, (1, 2): DATA0})
    return sb


@pytest.mark.parametrize("which", ["destination", "source"])
def test_log_dir_offline_during_a_move(sb, tmp_path, capsys, records, which):
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 1, "replicas": [1, 2], "log_dirs": [DATA1, "any"]}])
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "--replica-alter-log-dirs-throttle", "1MB/s")
    assert code == 0, err
    sb.clock.advance(2)
    assert sb.snapshot().future_replica("foo", 1, 1) is not None
    path = DATA1 if which == "destination" else DATA0
    sb.faults.dir_offline(1, path)
    injected()
    sb.clock.advance(1)

    code, out, err = kadmin(capsys, "log-dirs", "describe", "-b", sb.bootstrap, "--broker-list", "1",
                            "--output", "kafka-json")
    assert code == 0, err
    doc = json.loads(out)
    dirs = {d["logDir"]: d for d in doc["brokers"][0]["logDirs"]}
    assert dirs[path]["error"].endswith("KafkaStorageException") and dirs[path]["partitions"] == [], dirs

    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "-o", "json")
    assert code in (3, 4), err
    [replica] = json.loads(out)["replicas"]
    if which == "destination":  # the future replica went with the directory: the move stopped
        assert code == 4 and replica["move"] == "not_moving" and replica["current_dir"] == DATA0, replica
    else:  # the current replica is unreadable: the broker copies no more, as Kafka's tool says
        # (MissingLogDirMoveState: "not found in any live log dir ... likely an offline log directory")
        assert code == 4 and replica["move"] == "missing_log_dir" and replica["future_dir"] == DATA1, replica

    sb.faults.dir_online(1, path)
    settle(sb)
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    if code == 4:  # the move was dropped with the directory: running the plan again resumes it
        code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                                "--rollback-file", tmp_path / "rb2.json")
        assert code == 0, err
        settle(sb)
        code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0, err
    assert sb.snapshot().replica_dir("foo", 1, 1) == DATA1


@pytest.mark.parametrize("small_client", [True, False], ids=["kadmin-client", "library-clients"])
def test_a_replica_in_an_offline_directory_is_no_move_to_wait_for(sb, tmp_path, capsys, monkeypatch, small_client):
    """foo-0's replica on broker 0 sits in a directory that went offline: out of the ISR, and
    nothing copies it. progress (and execute --wait, which waits for progress to say done) must
    not count it as a move, or the wait never ends while verify already says complete.
    Metadata (v5+, kadmin's client) lists it among the offline replicas; through librdkafka,
    which does not expose that list, the broker's offline directory tells instead."""
    if not small_client:
        from kadmin.backends.admin import AdminBackend

        real_init = AdminBackend.__init__

        def library_only(self, *a, **kw):
            real_init(self, *a, **kw)
            self._wire_off = True

        monkeypatch.setattr(AdminBackend, "__init__", library_only)
    sb.faults.dir_offline(0, DATA0)
    injected()
    sb.clock.advance(1)
    plan = write_plan(tmp_path, [{"topic": "foo", "partition": 0, "replicas": [0, 1]}])
    code, out, err = kadmin(capsys, "reassign", "progress", "--reassignment-json-file", plan, "-b", sb.bootstrap,
                            "-o", "json")
    assert code == 0, (out, err)
    doc = json.loads(out)
    rows = {r["broker"]: r for r in doc["replicas"]}
    assert doc["done"] and doc["totals"]["moving_replicas"] == 0, doc
    assert rows[0]["status"] == "Offline: its log directory is offline" and rows[0]["move"] == "none", rows
    code, out, err = kadmin(capsys, "reassign", "progress", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0 and "Offline: its log directory is offline" in out, (out, err)
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", plan, "-b", sb.bootstrap)
    assert code == 0, (out, err)
