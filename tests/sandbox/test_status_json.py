"""`kadmin sandbox status -o json`: one document that follows schemas/sandbox-status.json."""

from __future__ import annotations

import json

import jsonschema

from kadmin.schemas import load
from tests.sandbox.test_cli import run, state_dir  # noqa: F401  (fixture)


def test_status_json_follows_its_schema_and_says_what_the_table_says(state_dir):  # noqa: F811
    d = str(state_dir)
    started = run(
        "sandbox",
        "start",
        "--detach",
        "--brokers",
        "2",
        "--racks",
        "2",
        "--log-dirs",
        "2",
        "--kafka-version",
        "3.3",
        "--speed",
        "2.5",
        "--state-dir",
        d,
    )
    assert started.returncode == 0, started.stderr
    assert run("sandbox", "fault", "dir-offline", "1", "/var/lib/kafka/data0", "--state-dir", d).returncode == 0
    assert run("sandbox", "fault", "broker-stop", "0", "--state-dir", d).returncode == 0

    short, long = (run("sandbox", "status", flag, "json", "--state-dir", d) for flag in ("-o", "--output"))
    assert short.returncode == 0, short.stderr
    doc = json.loads(short.stdout)
    jsonschema.validate(doc, load("sandbox-status"))
    assert json.loads(long.stdout).keys() == doc.keys()
    assert (doc["version"], doc["kafka_version"], doc["mode"], doc["zookeeper"]) == (1, "3.3", "kraft", None)
    assert (doc["bootstrap"], doc["speed"], doc["topics"]) == (started.stdout.strip(), 2.5, 5)
    assert [(b["id"], b["rack"], b["alive"]) for b in doc["brokers"]] == [(0, "rack-0", False), (1, "rack-1", True)]
    assert [f"127.0.0.1:{b['port']}" for b in doc["brokers"]] == doc["bootstrap"].split(",")
    assert doc["brokers"][1]["log_dirs"] == [
        {"path": "/var/lib/kafka/data0", "online": False, "cordoned": False},
        {"path": "/var/lib/kafka/data1", "online": True, "cordoned": False},
    ]
    assert doc["controller"] == 1  # broker 0 is stopped

    table = run("sandbox", "status", "--state-dir", d).stdout
    assert "simulated time: " in table and f"at speed {doc['speed']}" in table
    assert f"broker 0: 127.0.0.1:{doc['brokers'][0]['port']} stopped rack rack-0" in table
    # A broker halted by Kafka (its last log directory failed) says so, in both forms.
    assert run("sandbox", "fault", "dir-offline", "1", "/var/lib/kafka/data1", "--state-dir", d).returncode == 0
    doc = json.loads(run("sandbox", "status", "-o", "json", "--state-dir", d).stdout)
    jsonschema.validate(doc, load("sandbox-status"))
    assert [(b["alive"], b["halted"]) for b in doc["brokers"]] == [
        (False, None),
        (False, "all log dirs in /var/lib/kafka/data0, /var/lib/kafka/data1 have failed"),
    ]
    table = run("sandbox", "status", "--state-dir", d).stdout
    assert "halted (all log dirs in /var/lib/kafka/data0, /var/lib/kafka/data1 have failed)" in table
