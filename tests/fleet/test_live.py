"""A live --fleet report over two sandboxes and a cluster that is not there (a closed
loopback port): both engines, the same rows, the dead cluster reported, the rest intact."""

from __future__ import annotations

import json
import socket

import pytest

from kadmin.fleet.run import FleetRequest, build_reports
from tests.fleet.conftest import MASTER

MiB = 2**20


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again on return: nothing listens there


@pytest.fixture
def fleet(sandbox_factory, tmp_path):
    east = sandbox_factory(brokers=3, log_dirs=2, racks=3)
    east.create_topic("orders", assignment={0: [0, 1], 1: [1, 2], 2: [2, 0]}, size_bytes=8 * MiB)
    west = sandbox_factory(brokers=2, log_dirs=3)
    west.create_topic("clicks", assignment={0: [0, 1], 1: [1, 0]}, size_bytes=3 * MiB)
    path = tmp_path / "fleet.toml"
    path.write_text(
        f'timeout = "3s"\n'
        f'[[clusters]]\nname = "east"\nbootstrap_server = "{east.bootstrap}"\n'
        f'[[clusters]]\nname = "gone"\nbootstrap_server = "127.0.0.1:{closed_port()}"\n'
        f'[[clusters]]\nname = "west"\nbootstrap_server = "{west.bootstrap}"\n'
    )
    return str(path)


@pytest.mark.spark
def test_live_fleet_on_spark_and_plain_python(spark, fleet):
    local = build_reports(FleetRequest("log-dirs", fleet=fleet))
    on_spark = build_reports(FleetRequest("log-dirs", spark=True, spark_master=MASTER, fleet=fleet))
    assert [r.rows for r in on_spark] == [r.rows for r in local]
    by = {r.name: r.records() for r in on_spark}
    usage = {r["cluster"]: r for r in by["cluster_usage"]}
    assert set(usage) == {"east", "west"}
    assert (usage["east"]["brokers"], usage["east"]["dirs"], usage["east"]["replicas"]) == (3, 6, 6)
    assert (usage["west"]["brokers"], usage["west"]["dirs"], usage["west"]["replicas"]) == (2, 6, 4)
    assert usage["east"]["used_bytes"] == 6 * 8 * MiB and usage["west"]["used_bytes"] == 4 * 3 * MiB
    assert [(r["cluster"], r["broker"], r["source"]) for r in by["unreachable"]] == [("gone", None, "live")]
    largest = [r for r in by["largest_partitions"] if r["cluster"] == "east"]
    assert {(r["topic"], r["size"]) for r in largest} == {("orders", 8 * MiB)} and len(largest) == 6


@pytest.mark.spark
def test_live_an_offline_directorys_contents_are_unknown_not_empty(spark, sandbox_factory, tmp_path):
    """Broker 1's first directory, holding replicas, goes offline: DescribeLogDirs says nothing of
    what it holds. Both engines report its used bytes and replicas as unknown, never 0, and the
    sums of broker 1 and the cluster over the directories that were read, with unknown_dirs 1."""
    from tests.fleet.test_local import check_unknown_contents

    sb = sandbox_factory(brokers=3, log_dirs=2)
    data0, data1 = sb.log_dir_paths(1)
    sb.create_topic("orders", assignment={0: [1, 0], 1: [1, 2], 2: [2, 1], 3: [0, 2]}, size_bytes=4 * MiB,
                    log_dirs={(0, 1): data0, (1, 1): data0, (2, 1): data1})
    sb.faults.dir_offline(1, data0)
    path = tmp_path / "fleet.toml"
    path.write_text(f'[[clusters]]\nname = "demo"\nbootstrap_server = "{sb.bootstrap}"\n')
    local = build_reports(FleetRequest("log-dirs", fleet=str(path)))
    on_spark = build_reports(FleetRequest("log-dirs", spark=True, spark_master=MASTER, fleet=str(path)))
    assert [r.rows for r in on_spark] == [r.rows for r in local]
    for reports in (local, on_spark):
        by = {r.name: r.records() for r in reports}
        [offline] = [d for d in by["dir_usage"] if d["status"] == "offline"]
        assert (offline["broker"], offline["path"]) == (1, data0)
        assert (offline["used_bytes"], offline["replicas"], offline["future_replicas"]) == (None, None, None)
        [b1] = [r for r in by["broker_usage"] if r["broker"] == 1]
        assert (b1["unknown_dirs"], b1["used_bytes"], b1["replicas"], b1["future_replicas"]) == (1, 4 * MiB, 1, 0)
        [c] = by["cluster_usage"]
        # orders-0 and orders-1 on broker 1's offline directory are not counted: 6 of 8 replicas
        assert (c["unknown_dirs"], c["used_bytes"], c["replicas"]) == (1, 6 * 4 * MiB, 6)

    # the same cluster's `log-dirs describe -o json`, saved and read back: the same reports
    from click.testing import CliRunner

    from kadmin.commands.root import cli

    saved = CliRunner().invoke(cli, ["log-dirs", "describe", "-b", sb.bootstrap, "-o", "json"])
    assert saved.exit_code == 0, saved.output
    doc = json.loads(saved.stdout)
    (tmp_path / "from").mkdir()
    (tmp_path / "from" / "demo.json").write_text(saved.stdout)
    from_file = build_reports(FleetRequest("log-dirs", from_dir=str(tmp_path / "from")))
    check_unknown_contents(from_file, doc)
    assert [r.rows for r in from_file] == [r.rows for r in local]


@pytest.mark.spark
def test_live_a_stopped_broker_is_said_to_be_missing_from_the_sums(spark, sandbox_factory, tmp_path):
    """Broker 3 of four is stopped: DescribeLogDirs cannot ask it, and how many directories it
    has is not known. Both engines report it unreachable and leave it out of the cluster's
    sums, whose row says one broker is missing from them (unknown_brokers 1), where it said
    they were whole (unknown_dirs 0 alone). The same cluster's saved `log-dirs describe -o json`
    (broker 3 with an error and no log directories) gives the same rows on both engines."""
    from click.testing import CliRunner

    from kadmin.commands.root import cli
    from tests.fleet.test_local import check_unread_brokers

    sb = sandbox_factory(brokers=4, log_dirs=2)
    sb.create_topic("orders", assignment={0: [0, 3], 1: [1, 2], 2: [2, 0], 3: [3, 1]}, size_bytes=4 * MiB)
    sb.faults.broker_stop(3)
    path = tmp_path / "fleet.toml"
    path.write_text(f'[[clusters]]\nname = "demo"\nbootstrap_server = "{sb.bootstrap}"\n')
    local = build_reports(FleetRequest("log-dirs", fleet=str(path)))
    on_spark = build_reports(FleetRequest("log-dirs", spark=True, spark_master=MASTER, fleet=str(path)))
    assert [r.rows for r in on_spark] == [r.rows for r in local]
    for reports in (local, on_spark):
        by = {r.name: r.records() for r in reports}
        assert [(r["broker"], r["error"]) for r in by["unreachable"]] == [(3, "down: not in the cluster's broker list")]
        [c] = by["cluster_usage"]
        # orders-0 and orders-3 have a replica on broker 3: 6 of 8 replicas were read
        assert (c["brokers"], c["dirs"], c["unknown_dirs"], c["unknown_brokers"]) == (3, 6, 0, 1)
        assert (c["used_bytes"], c["replicas"]) == (6 * 4 * MiB, 6)
        assert {r["broker"]: r["unknown_brokers"] for r in by["broker_usage"]} == {0: 0, 1: 0, 2: 0}

    saved = CliRunner().invoke(cli, ["log-dirs", "describe", "-b", sb.bootstrap, "-o", "json"])
    assert saved.exit_code == 1, saved.output  # broker 3 is down: the describe says so
    doc = json.loads(saved.stdout)
    (tmp_path / "from").mkdir()
    (tmp_path / "from" / "demo.json").write_text(saved.stdout)
    from_dir = str(tmp_path / "from")
    from_file = build_reports(FleetRequest("log-dirs", from_dir=from_dir))
    check_unread_brokers(from_file, doc)
    on_spark = build_reports(FleetRequest("log-dirs", spark=True, spark_master=MASTER, from_dir=from_dir))
    assert [r.rows for r in on_spark] == [r.rows for r in from_file]
    usage = ("cluster_usage", "broker_usage", "dir_usage")
    assert [r.rows for r in from_file if r.name in usage] == [r.rows for r in local if r.name in usage]


def test_live_leftover_throttle_and_reassignments(fleet):
    """A throttle left on a cluster where nothing moves is leftover; the dead cluster is
    reported by every report; reassign list runs over the same inventory."""
    import tomllib

    from kadmin.backends import open_backend
    from kadmin.config import ConnectionSettings
    from kadmin.model import AlterOp, ConfigChange, ConfigResource, ConfigResourceType

    with open(fleet, "rb") as f:
        west = next(c for c in tomllib.load(f)["clusters"] if c["name"] == "west")
    backend = open_backend(ConnectionSettings(bootstrap_servers=west["bootstrap_server"]), read_only=False)
    try:
        backend.incremental_alter_configs([ConfigChange(
            ConfigResource(ConfigResourceType.BROKER, "1"), "leader.replication.throttled.rate", AlterOp.SET, "1000000")])
    finally:
        backend.close()

    throttles = {r.name: r.records() for r in build_reports(FleetRequest("throttle", fleet=fleet))}
    assert [(r["cluster"], r["resource"], r["entity"], r["state"]) for r in throttles["throttle_state"]] == [
        ("west", "broker", "1", "leftover"),
    ]
    assert [r["cluster"] for r in throttles["unreachable"]] == ["gone"]

    reassign = {r.name: r.records() for r in build_reports(FleetRequest("reassign", fleet=fleet))}
    assert reassign["reassignment_status"] == [] and [r["cluster"] for r in reassign["unreachable"]] == ["gone"]


def test_live_reassignments_that_have_not_progressed(sandbox_factory, tmp_path):
    """Throttled to 1 byte/s, a move to a live broker is copying (a byte at a time); one to a
    stopped broker has not progressed; offline and cordoned directories are listed."""
    from kadmin.backends import open_backend
    from kadmin.config import ConnectionSettings
    from kadmin.model import AlterOp, Assignment, ConfigChange, ConfigResource, ConfigResourceType

    sb = sandbox_factory(brokers=4, log_dirs=2)
    sb.create_topic("orders", assignment={0: [0, 1], 1: [1, 0]}, size_bytes=4 * MiB)
    rates = [ConfigChange(ConfigResource(ConfigResourceType.BROKER, str(b)), name, AlterOp.SET, "1")
             for b in range(4) for name in ("leader.replication.throttled.rate", "follower.replication.throttled.rate")]
    topic = ConfigResource(ConfigResourceType.TOPIC, "orders")
    lists = [ConfigChange(topic, "leader.replication.throttled.replicas", AlterOp.SET, "0:0,0:1,1:0,1:1"),
             ConfigChange(topic, "follower.replication.throttled.replicas", AlterOp.SET, "0:2,1:3")]
    backend = open_backend(ConnectionSettings(bootstrap_servers=sb.bootstrap), read_only=False)
    try:
        backend.incremental_alter_configs(rates + lists)
        backend.reassign_partitions([Assignment("orders", 0, (0, 2)), Assignment("orders", 1, (1, 3))])
    finally:
        backend.close()
    sb.faults.broker_stop(3)
    sb.faults.dir_offline(0, sb.log_dir_paths(0)[1])
    sb.faults.dir_cordon(1, sb.log_dir_paths(1)[1])
    fleet = tmp_path / "fleet.toml"
    fleet.write_text(f'[[clusters]]\nname = "a"\nbootstrap_server = "{sb.bootstrap}"\ntimeout = "3s"\n')

    reports = {r.name: r.records() for r in build_reports(FleetRequest("reassign", fleet=str(fleet)))}
    status = [(r["partition"], r["adding"], r["status"], r["progressed"]) for r in reports["reassignment_status"]]
    assert status[0] == (1, [3], "target broker unreachable", False)
    assert status[1][:2] == (0, [2]) and status[1][2] in ("not started", "copying")
    assert reports["reassignment_summary"][0]["ongoing"] == 2

    dirs = {r.name: r.records() for r in build_reports(FleetRequest("log-dirs", fleet=str(fleet)))}
    assert [(r["broker"], r["path"], r["status"]) for r in dirs["unavailable_dirs"]] == [
        (0, sb.log_dir_paths(0)[1], "offline"), (1, sb.log_dir_paths(1)[1], "cordoned"),
    ]


@pytest.mark.spark
@pytest.mark.parametrize("mode", ["kraft", pytest.param("zookeeper", marks=pytest.mark.zookeeper)])
def test_a_down_broker_is_named_as_a_broker_that_did_not_answer(spark, sandbox_factory, tmp_path, capsys, request,
                                                                 mode):
    """A stopped broker (a replica set names it, it is not live) is no longer silently missing
    from a live fleet report: like a broker that does not answer, it has its unreachable row, a
    warning on stderr, and the error line counts it (exit 1); on both engines, over the
    AdminClient protocol and over ZooKeeper (replica_brokers reads the topic znodes)."""
    from kadmin.backends import open_backend
    from kadmin.config import ConnectionSettings
    from kadmin.model import DOWN_ERROR
    from tests.support.cli import await_broker_gone, kadmin

    zookeeper = request.getfixturevalue("zk_connect") if mode == "zookeeper" else None
    sb = sandbox_factory(brokers=4, log_dirs=2, zookeeper=zookeeper)
    sb.create_topic("t", assignment={0: [0, 1], 1: [1, 2], 2: [2, 3], 3: [3, 0]}, size_bytes=MiB)
    sb.faults.broker_stop(1)
    settings = ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=10)
    await_broker_gone(lambda: open_backend(settings, read_only=True), 1)
    target = f'zookeeper = "{zookeeper}"' if zookeeper else f'bootstrap_server = "{sb.bootstrap}"'
    fleet = tmp_path / "fleet.toml"
    fleet.write_text(f'[[clusters]]\nname = "east"\n{target}\ntimeout = "5s"\n')

    documents = []
    for engine in ([], ["--spark", "--spark-master", MASTER]):
        code, out, err = kadmin(capsys, "log-dirs", "describe", "--fleet", str(fleet), "-o", "json", *engine)
        assert code == 1, err
        assert [line for line in err.splitlines() if "deprecated" not in line] == [
            f"kadmin: warning: cluster east broker 1 could not be read (live): {DOWN_ERROR}",
            "kadmin: error: the report is incomplete: 1 broker could not be read "
            "(named above, and in the unreachable report)",
        ]
        doc = json.loads(out)
        reports = {r["name"]: r["rows"] for r in doc.pop("reports")}
        assert reports["unreachable"] == [{"cluster": "east", "broker": 1, "source": "live", "error": DOWN_ERROR}]
        assert [(r["cluster"], r["brokers"], r["replicas"]) for r in reports["cluster_usage"]] == [("east", 3, 6)]
        documents.append(reports)
    assert documents[0] == documents[1]


@pytest.mark.spark
@pytest.mark.parametrize("mode", ["kraft", pytest.param("zookeeper", marks=pytest.mark.zookeeper)])
def test_a_down_brokers_throttles_that_could_not_be_read_are_named(spark, sandbox_factory, tmp_path, capsys, request,
                                                                   mode):
    """kadmin set a rate on broker 1, then it stopped. Over the AdminClient protocol a broker
    answers for its own configs: its rates cannot be read, and the throttle report says so as it
    says a down broker's log dirs are missing (its unreachable row, a warning, counted, exit 1)
    where it left them out without a word. Over ZooKeeper /config/brokers/1 holds them: they are
    reported, nothing is missing (exit 0). The same on both engines."""
    from kadmin.backends import open_backend
    from kadmin.config import ConnectionSettings
    from kadmin.model import DOWN_ERROR
    from tests.support.cli import await_broker_gone, kadmin

    zookeeper = request.getfixturevalue("zk_connect") if mode == "zookeeper" else None
    sb = sandbox_factory(brokers=3, log_dirs=1, zookeeper=zookeeper)
    target = ["--zookeeper", zookeeper] if zookeeper else ["-b", sb.bootstrap]
    code, _, err = kadmin(capsys, "throttle", "set", "--rate", "5MB/s", "--brokers", "1", *target)
    assert code == 0, err
    sb.faults.broker_stop(1)
    settings = ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=10)
    await_broker_gone(lambda: open_backend(settings, read_only=True), 1)
    fleet = tmp_path / "fleet.toml"
    where = f'zookeeper = "{zookeeper}"' if zookeeper else f'bootstrap_server = "{sb.bootstrap}"'
    fleet.write_text(f'[[clusters]]\nname = "east"\n{where}\ntimeout = "5s"\n')

    documents = []
    for engine in ([], ["--spark", "--spark-master", MASTER]):
        code, out, err = kadmin(capsys, "throttle", "show", "--fleet", str(fleet), "-o", "json", *engine)
        lines = [line for line in err.splitlines() if "deprecated" not in line]
        reports = {r["name"]: r["rows"] for r in json.loads(out)["reports"]}
        rates = {(r["entity"], r["config"], r["value"]) for r in reports["throttle_state"] if r["resource"] == "broker"}
        if zookeeper:
            assert (code, lines, reports["unreachable"]) == (0, [], [])
            assert rates == {("1", "leader.replication.throttled.rate", "5000000"),
                             ("1", "follower.replication.throttled.rate", "5000000")}
        else:
            assert code == 1, err
            assert lines == [
                f"kadmin: warning: cluster east broker 1 could not be read (live): {DOWN_ERROR}",
                "kadmin: error: the report is incomplete: 1 broker could not be read "
                "(named above, and in the unreachable report)",
            ]
            assert reports["unreachable"] == [{"cluster": "east", "broker": 1, "source": "live", "error": DOWN_ERROR}]
            assert rates == set()
        documents.append(reports)
    assert documents[0] == documents[1]


@pytest.mark.spark
def test_a_down_broker_that_is_not_adding_a_replica_is_named_with_its_partitions(spark, sandbox_factory, tmp_path,
                                                                                 capsys):
    """Broker 1 holds a kept replica of t-0 and a replica t-1 is removing, then stops. The
    reassignment report names it (its unreachable row, a warning, counted, exit 1), and says
    which side of each partition it is on: t-0 waits for it; t-1 lacks one of its sources. It
    was left out without a word (exit 0), and both partitions said "copying". Both engines."""
    from kadmin.backends import open_backend
    from kadmin.config import ConnectionSettings
    from kadmin.model import DOWN_ERROR, AlterOp, Assignment, ConfigChange, ConfigResource, ConfigResourceType
    from tests.support.cli import await_broker_gone, kadmin

    sb = sandbox_factory(brokers=4, log_dirs=1)
    sb.create_topic("t", assignment={0: [0, 1], 1: [1, 2]}, size_bytes=MiB)
    rates = [ConfigChange(ConfigResource(ConfigResourceType.BROKER, str(b)), name, AlterOp.SET, "1")
             for b in range(4) for name in ("leader.replication.throttled.rate", "follower.replication.throttled.rate")]
    topic = ConfigResource(ConfigResourceType.TOPIC, "t")
    lists = [ConfigChange(topic, "leader.replication.throttled.replicas", AlterOp.SET, "0:0,0:1,1:1,1:2"),
             ConfigChange(topic, "follower.replication.throttled.replicas", AlterOp.SET, "0:2,1:3,1:0")]
    settings = ConnectionSettings(bootstrap_servers=sb.bootstrap, timeout=10)
    backend = open_backend(settings, read_only=False)
    try:
        backend.incremental_alter_configs(rates + lists)
        backend.reassign_partitions([Assignment("t", 0, (2, 1)), Assignment("t", 1, (3, 0))])
    finally:
        backend.close()
    sb.faults.broker_stop(1)
    await_broker_gone(lambda: open_backend(settings, read_only=True), 1)
    fleet = tmp_path / "fleet.toml"
    fleet.write_text(f'[[clusters]]\nname = "east"\nbootstrap_server = "{sb.bootstrap}"\ntimeout = "5s"\n')

    documents = []
    for engine in ([], ["--spark", "--spark-master", MASTER]):
        code, out, err = kadmin(capsys, "reassign", "list", "--fleet", str(fleet), "-o", "json", *engine)
        assert code == 1, err
        assert err.splitlines() == [
            f"kadmin: warning: cluster east broker 1 could not be read (live): {DOWN_ERROR}",
            "kadmin: error: the report is incomplete: 1 broker could not be read "
            "(named above, and in the unreachable report)",
        ]
        reports = {r["name"]: r["rows"] for r in json.loads(out)["reports"]}
        assert [(r["partition"], r["adding"], r["removing"], r["status"], r["progressed"])
                for r in reports["reassignment_status"]] == [
            (0, [2], [0], "target broker unreachable", False),
            (1, [0, 3], [1, 2], "source broker unreachable", None),
        ]
        assert reports["unreachable"] == [{"cluster": "east", "broker": 1, "source": "live", "error": DOWN_ERROR}]
        for row in reports["reassignment_status"]:  # still copying at 1 byte/s from broker 0
            row.pop("adding_size")
        documents.append(reports)
    assert documents[0] == documents[1]
