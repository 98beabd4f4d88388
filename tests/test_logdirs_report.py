"""Pure log-dirs report functions: Kafka's JSON shape, kadmin's JSON, rows, broker checks."""

from __future__ import annotations

import json

import pytest

from kadmin.backends.base import BrokerLogDirs
from kadmin.errors import NotFoundError
from kadmin import logdirs
from kadmin.model import Broker, LogDir, ReplicaInfo

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
