"""Pure log-dirs report functions: Kafka's JSON shape, kadmin's JSON, rows, broker checks."""

from __future__ import annotations

import json

import pytest

from kadmin import logdirs
from kadmin.backends.base import BrokerLogDirs
from kadmin.errors import NotFoundError
from kadmin.model import DOWN_ERROR, Broker, LogDir, ReplicaInfo

STORAGE = "org.apache.kafka.common.errors.KafkaStorageException"

BROKERS = {0: Broker(0, "127.0.0.1", 9092, "r0"), 1: Broker(1, "127.0.0.1", 9093, None)}
RESULT = {
    0: BrokerLogDirs(0, (
        LogDir(0, "/data0", None, 1000, 400, False, (
            ReplicaInfo("a", 0, 300, 0, False), ReplicaInfo("b", 1, 200, 0, False), ReplicaInfo("c", 0, 50, 7, True))),
        LogDir(0, "/data1", STORAGE, None, None, False, ()),
    )),
    1: BrokerLogDirs(1, (), error="KafkaConnectionError: refused"),
}


def test_kafka_json_has_exactly_kafka_log_dirs_keys():
    doc = logdirs.to_kafka_json(RESULT)
    assert list(doc) == ["version", "brokers"] and doc["version"] == 1
    [b0] = doc["brokers"]  # the unreachable broker is left out, as Kafka's tool cannot print it
    assert list(b0) == ["broker", "logDirs"] and b0["broker"] == 0
    d0, d1 = b0["logDirs"]
    assert list(d0) == ["logDir", "error", "partitions"]
    assert d0["error"] is None and d1["error"] == STORAGE and d1["partitions"] == []
    assert d0["partitions"][0] == {"partition": "a-0", "size": 300, "offsetLag": 0, "isFuture": False}
    assert d0["partitions"][2] == {"partition": "c-0", "size": 50, "offsetLag": 7, "isFuture": True}


def test_kadmin_json_matches_its_schema_and_figures():
    from jsonschema import validate

    from kadmin.schemas import load

    doc = logdirs.to_kadmin_json("cid", BROKERS, RESULT)
    validate(doc, load("log-dirs-describe"))
    d0 = doc["brokers"][0]["log_dirs"][0]
    assert (d0["used_bytes"], d0["replica_count"], d0["future_replica_count"]) == (550, 2, 1)
    assert d0["used_fraction"] == pytest.approx(0.6)
    assert doc["brokers"][0]["log_dirs"][1]["status"] == "offline"
    assert doc["brokers"][1]["error"].startswith("KafkaConnectionError")
    json.dumps(doc)


def test_unknown_brokers_name_missing_and_existing():
    with pytest.raises(NotFoundError) as e:
        logdirs.check_brokers([0, 5, 7], [0, 1, 2])
    assert "5,7" in str(e.value) and "existing brokers: 0,1,2" in str(e.value)
    assert e.value.exit_code == 2
    assert logdirs.check_brokers(None, [2, 0, 1]) == [0, 1, 2]
    assert logdirs.check_brokers([1, 1], [0, 1]) == [1]


def test_rows_show_status_largest_and_futures():
    rows = logdirs.rows(BROKERS, RESULT, top=1)
    assert [(r.broker, r.path, r.status) for r in rows] == [
        (0, "/data0", "online"), (0, "/data1", "offline"), (1, "-", "unreachable")]
    assert [x.topic for x in rows[0].largest] == ["a"]
    assert [(f.topic, f.offset_lag) for f in rows[0].futures] == [("c", 7)]


def test_filter_log_dirs_keeps_only_named_paths():
    kept = logdirs.filter_log_dirs(RESULT, ["/data1"])
    assert [d.path for d in kept[0].log_dirs] == ["/data1"]
    assert kept[1].error is not None


def test_table_renders_bars_and_statuses():
    from rich.console import Console

    from kadmin.commands.render_logdirs import log_dirs_table

    console = Console(width=200, record=True, color_system=None)
    console.print(log_dirs_table(logdirs.rows(BROKERS, RESULT)))
    text = console.export_text()
    assert "/data0" in text and "offline" in text and "unreachable" in text
    assert "60.0%" in text and "c-0 (7)" in text


def test_table_shows_paths_and_racks_as_written():
    """A directory or rack named with brackets is text, not console markup (rich would drop
    "[bold]" and fail on "[/x]")."""
    from rich.console import Console

    from kadmin.commands.render_logdirs import log_dirs_table

    brokers = {0: Broker(0, "127.0.0.1", 9092, "rack[bold]")}
    result = {0: BrokerLogDirs(0, (
        LogDir(0, "/data/[bold]x", None, 1000, 400, False, (ReplicaInfo("a", 0, 300, 0, False),)),
        LogDir(0, "/data/[/x]", None, 1000, 400, False, ()),
    ))}
    console = Console(width=200, record=True, color_system=None)
    console.print(log_dirs_table(logdirs.rows(brokers, result)))
    text = console.export_text()
    assert "/data/[bold]x" in text and "/data/[/x]" in text and "rack[bold]" in text


def test_a_requested_broker_that_is_down_exists_but_is_not_queried():
    """Down: named by a replica set, not live. It is no unknown broker (exit 2); it is not asked
    either (with_down answers for it), and the unknown ones' error names it among the existing."""
    assert logdirs.check_brokers([1, 2], [0, 2, 3], down=[1]) == [2]
    assert logdirs.check_brokers(None, [0, 2, 3], down=[1]) == [0, 2, 3]
    with pytest.raises(NotFoundError) as e:
        logdirs.check_brokers([1, 9], [0, 2, 3], down=[1])
    assert str(e.value) == "the given brokers do not exist: 9; existing brokers: 0,1 (down),2,3"


def test_down_brokers_are_replica_holders_not_live():
    from kadmin.model import ClusterState, PartitionState, TopicPartition

    parts = {
        TopicPartition("t", 0): PartitionState("t", 0, leader=0, replicas=(0, 1), isr=(0,)),
        TopicPartition("t", 1): PartitionState("t", 1, leader=2, replicas=(2, 4), isr=(2,)),
    }
    cluster = ClusterState("c", 0, {b: Broker(b, "h", 9092 + b, None) for b in (0, 2, 3)}, parts)
    assert cluster.down_brokers() == {1, 4}


def test_a_down_broker_is_in_every_report_as_down():
    from jsonschema import validate
    from rich.console import Console

    from kadmin.commands.render_logdirs import log_dirs_table
    from kadmin.schemas import load

    result = logdirs.with_down({0: RESULT[0]}, down=[2, 5], requested=[0, 2])
    assert list(result) == [0, 2] and result[2] == BrokerLogDirs(2, (), error=DOWN_ERROR)
    assert list(logdirs.with_down({0: RESULT[0]}, down=[2])) == [0, 2]
    doc = logdirs.to_kadmin_json("cid", BROKERS, result)
    validate(doc, load("log-dirs-describe"))
    assert doc["brokers"][1] == {"broker": 2, "host": None, "port": None, "rack": None,
                                 "error": "down: not in the cluster's broker list", "log_dirs": []}
    assert [b["broker"] for b in logdirs.to_kafka_json(result)["brokers"]] == [0]
    rows = logdirs.rows(BROKERS, {**result, 1: RESULT[1]})
    assert [(r.broker, r.status) for r in rows if r.path == "-"] == [(1, "unreachable"), (2, "down")]
    console = Console(width=200, record=True, color_system=None)
    console.print(log_dirs_table(rows))
    [line] = [line for line in console.export_text().splitlines() if line.startswith("│      2 ")]
    cells = [c.strip() for c in line.split("│")[1:-1]]
    assert cells[:4] == ["2", "-", "down", "unknown"] and not any(cells[4:]), cells  # no "0 B", no "0" replicas


def test_an_unseen_brokers_csv_row_has_its_bytes_and_replicas_empty_not_0():
    """A down or unreachable broker's directories were not seen: its log_dir, Kafka bytes,
    replica and future replica counts are unknown, so the CSV leaves them empty, as it does its
    total and usable bytes (not the table's "-", which a script would take for a path)."""
    from kadmin.commands.log_dirs_describe import _csv_row

    result = logdirs.with_down(RESULT, down=[2])
    unseen = [r for r in logdirs.rows(BROKERS, result) if r.path == "-"]
    assert [(r.kafka_bytes, r.replicas, r.futures) for r in unseen] == [(None, None, None), (None, None, None)]
    assert [_csv_row(r) for r in unseen] == [  # future_replicas too: unknown, not 0
        [1, "", "", "unreachable", "", "", "", "", "", "", "KafkaConnectionError: refused"],
        [2, "", "", "down", "", "", "", "", "", "", "down: not in the cluster's broker list"],
    ]


def test_a_down_broker_is_said_to_be_down_not_to_have_not_answered():
    """It was never sent DescribeLogDirs: the error, the warning and the balance refusal say it
    is down; a broker that was asked and did not answer is still said so, with why."""
    from kadmin.commands import render

    assert render.not_answering({2: DOWN_ERROR, 3: "REQUEST_TIMED_OUT"}) == (
        "broker 2 is down (not in the cluster's broker list); broker 3 (REQUEST_TIMED_OUT) did not answer "
        "DescribeLogDirs",
        "their",
    )
    assert render.not_answering({1: DOWN_ERROR, 2: DOWN_ERROR}) == (
        "brokers 1, 2 are down (not in the cluster's broker list)", "their")
    assert render.not_answering({2: DOWN_ERROR}) == ("broker 2 is down (not in the cluster's broker list)", "its")
    assert render.not_answering({3: "X", 4: "Y"}) == ("brokers 3 (X), 4 (Y) did not answer DescribeLogDirs", "their")
    assert logdirs.unseen_broker(2, DOWN_ERROR) == "broker 2 is down (not in the cluster's broker list)"
    assert logdirs.unseen_broker(3, "X") == "broker 3 did not answer DescribeLogDirs: X"


def test_both_balance_commands_warn_of_a_left_out_broker_in_one_wording(capsys):
    from kadmin.commands import render

    render.warn_left_out({2: DOWN_ERROR, 3: "REQUEST_TIMED_OUT"})
    assert capsys.readouterr().err.splitlines() == [
        "kadmin: warning: broker 2 is down (not in the cluster's broker list) and is left out",
        "kadmin: warning: broker 3 did not answer DescribeLogDirs and is left out: REQUEST_TIMED_OUT",
    ]


def test_log_dirs_describe_help_says_an_unseen_broker_has_a_row():
    from click.testing import CliRunner

    from kadmin.commands.root import cli

    text = " ".join(CliRunner().invoke(cli, ["log-dirs", "describe", "--help"]).output.split())
    assert "the report has a row for it (status unreachable or down" in text, text
    assert "printed without it" not in text


def test_an_offline_directorys_bytes_and_replicas_are_unknown_not_0():
    """Kafka answers DescribeLogDirs for a directory with an error (KAFKA_STORAGE_ERROR) with no
    topics and -1 totals (ReplicaManager.describeLogDirs): what it holds is unknown. kadmin's
    JSON says null (its schema allows it), the CSV leaves the cells empty, the table says
    "unknown", never 0; Kafka's own shape (kafka-json) is kafka-log-dirs.sh's: the error and no
    partitions."""
    from jsonschema import validate
    from rich.console import Console

    from kadmin.commands.log_dirs_describe import _csv_row
    from kadmin.commands.render_logdirs import log_dirs_table
    from kadmin.schemas import load

    doc = logdirs.to_kadmin_json("cid", BROKERS, RESULT)
    validate(doc, load("log-dirs-describe"))
    online, offline = doc["brokers"][0]["log_dirs"]
    assert offline == {"path": "/data1", "status": "offline", "error": STORAGE, "used_bytes": None,
                       "total_bytes": None, "usable_bytes": None, "used_fraction": None, "replica_count": None,
                       "future_replica_count": None, "replicas": []}
    assert (online["used_bytes"], online["replica_count"], online["future_replica_count"]) == (550, 2, 1)

    row = logdirs.rows(BROKERS, RESULT)[1]
    assert (row.path, row.kafka_bytes, row.replicas, row.futures, row.largest) == ("/data1", None, None, None, None)
    assert _csv_row(row) == [0, "r0", "/data1", "offline", "", "", "", "", "", "", STORAGE]

    for width, cells in ((200, 10), (130, 8)):  # wide, and narrow (no total, no largest partitions)
        console = Console(width=width, record=True, color_system=None)
        console.print(log_dirs_table(logdirs.rows(BROKERS, RESULT), width=width))
        [line] = [line for line in console.export_text().splitlines() if "/data1" in line]
        assert [c.strip() for c in line.split("│")[1:-1]] == ["", "/data1", "offline", *["unknown"] * (cells - 3)]

    [b0] = logdirs.to_kafka_json(RESULT)["brokers"]
    assert b0["logDirs"][1] == {"logDir": "/data1", "error": STORAGE, "partitions": []}


def test_log_dirs_describe_help_says_an_offline_directorys_contents_are_unknown():
    from click.testing import CliRunner

    from kadmin.commands.root import cli

    text = " ".join(CliRunner().invoke(cli, ["log-dirs", "describe", "--help"]).output.split())
    assert "An offline directory: Kafka does not say what it holds, so its bytes and replica counts are unknown" in text


def test_a_future_replica_whose_lag_kafka_does_not_know_is_not_shown_as_minus_1():
    """OffsetLag -1 is Kafka's INVALID_OFFSET_LAG (the partition is not online on the broker):
    with the move's source directory offline, the table says the move is paused and why, kadmin's
    JSON says null (its schema allows it); kafka-json keeps Kafka's -1, as kafka-log-dirs.sh prints it."""
    from jsonschema import validate
    from rich.console import Console

    from kadmin.commands.render_logdirs import log_dirs_table
    from kadmin.schemas import load

    paused = {
        1: BrokerLogDirs(1, (
            LogDir(1, "/data0", None, 1000, 400, False, (ReplicaInfo("t", 0, 100, -1, True),)),
            LogDir(1, "/data1", STORAGE, None, None, False, ()),
        )),
        2: BrokerLogDirs(2, (
            LogDir(2, "/data0", None, 1000, 400, False, (ReplicaInfo("u", 0, 300, 0, False),)),
            LogDir(2, "/data1", None, 1000, 400, False, (ReplicaInfo("u", 0, 100, -1, True),)),
        )),
    }
    console = Console(record=True, width=250)
    console.print(log_dirs_table(logdirs.rows(BROKERS, paused)))
    text = console.export_text()
    assert "t-0 (paused: its source directory is offline)" in text
    assert "u-0 (lag unknown)" in text and "(-1)" not in text
    doc = logdirs.to_kadmin_json("cid", BROKERS, paused)
    validate(doc, load("log-dirs-describe"))
    assert doc["brokers"][0]["log_dirs"][0]["replicas"][0]["offset_lag"] is None
    assert doc["brokers"][1]["log_dirs"][1]["replicas"][0]["offset_lag"] is None
    assert logdirs.to_kafka_json(paused)["brokers"][0]["logDirs"][0]["partitions"][0]["offsetLag"] == -1
