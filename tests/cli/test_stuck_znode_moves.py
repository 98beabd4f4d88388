"""Requests of a stuck /admin/reassign_partitions are not moves: throttles and progress.

Deleting the node by hand while a reassignment runs leaves Kafka's controller without its watch
(KAFKA-FACTS.md): a node written after that is never read, and its entries are requests no
broker carries out (``kadmin.backends.base.requests_not_taken``). Once the node is old enough to
be called stuck, they need no throttle (``throttle show``, ``clear --stale`` and ``verify`` of
another plan), and ``reassign progress`` does not count them as moves in progress. A real
ZooKeeper and the sandbox, at every Kafka version with ZooKeeper mode it emulates.
"""

from __future__ import annotations

import json

import jsonschema
import pytest

from kadmin.backends.zk_reassign import STUCK_AFTER_SECONDS
from kadmin.backends.zookeeper import ZooKeeperBackend
from kadmin.schemas import load
from tests.support.cli import kadmin
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)
from tests.support.stuck_znode import stuck  # noqa: F401  (fixture)

pytestmark = pytest.mark.zookeeper
RATES = ("follower.replication.throttled.rate", "leader.replication.throttled.rate")


def finish_running(sb):
    """Let foo-0's move end (10 MB at 1 MB/s): only the stuck request is left."""
    for _ in range(10):
        sb.clock.advance(5)
        if sb.snapshot().partition("foo", 0).replicas == (3, 1):
            return
    raise AssertionError(f"foo-0 still moving: {sb.snapshot().partition('foo', 0)}")


def show(capsys, sb):
    code, out, err = kadmin(capsys, "throttle", "show", *sb.zk, "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    jsonschema.validate(doc, load("throttle-show-result"))
    return doc, err


def needed_rates(doc) -> dict[str, bool]:
    return {f"{t['resource']} {t['config']}": t["needed"] for t in doc["throttles"] if t["kind"] == "broker_rate"}


def test_a_stuck_request_needs_no_throttle(stuck, capsys):
    finish_running(stuck)
    # Younger than the threshold the controller may still take it: its brokers' rates are needed.
    doc, _ = show(capsys, stuck)
    assert needed_rates(doc) == {f"{b} {n}": b in (1, 3) for b in (0, 1, 3) for n in RATES}
    assert doc["reassigning_partitions"] == 1 and "waiting" not in doc

    stuck.backend_clock.ahead = STUCK_AFTER_SECONDS + 1
    doc, err = show(capsys, stuck)
    assert needed_rates(doc) == {f"{b} {n}": False for b in (0, 1, 3) for n in RATES}
    assert all(t["stale"] for t in doc["throttles"])
    assert doc["reassigning_partitions"] == 0
    from kadmin.fleet.collect import throttle_show as fleet_throttle_show

    with ZooKeeperBackend(stuck.zk[1], timeout=10) as backend:  # a fleet report counts as throttle show does
        assert fleet_throttle_show(backend)["reassigning_partitions"] == 0
    assert doc["waiting"] == [{"topic": "foo", "partition": 1, "replicas": [1, 2], "target": [3, 2]}]
    assert "/admin/reassign_partitions exists but looks stuck" in err
    assert "foo-1 is requested there, but no broker is moving it: no throttle counts as needed for it" in err
    assert "delete /controller" in err
    code, out, err = kadmin(capsys, "throttle", "show", *stuck.zk)
    assert code == 0 and "│ yes" not in out and out.count("no: STALE") == 8, out + err  # the rates and lists

    code, out, err = kadmin(capsys, "throttle", "clear", "--stale", "--dry-run", *stuck.zk)
    assert code == 0, err
    assert "foo-1 is requested there, but no broker is moving it: no throttle counts as needed for it" in err
    assert all(f"broker {b} {n}: 1000000 -> (deleted)" in out for b in (0, 1, 3) for n in RATES), out

    # verify of the finished plan removes every rate it set: nothing moves.
    code, out, err = kadmin(capsys, "reassign", "verify", "--reassignment-json-file", stuck.running, *stuck.zk)
    assert code == 0, out + err
    assert all(f"broker {b} {n}: 1000000 -> (deleted)" in out for b in (1, 3) for n in RATES), out
    assert "still need" not in out
    doc, _ = show(capsys, stuck)
    assert needed_rates(doc) == {}


def progress(capsys, sb, *args):
    return kadmin(capsys, "reassign", "progress", *sb.zk, "--interval", "0", *args)


def test_progress_counts_a_stuck_request_as_no_move(stuck, capsys):
    plan = ("--reassignment-json-file", stuck.waiting)
    # Younger than the threshold the controller may simply not have read it yet: in progress.
    code, out, err = progress(capsys, stuck, *plan, "-o", "json")
    assert code == 3 and json.loads(out)["reassigning_partitions"] == 1, out + err

    stuck.backend_clock.ahead = STUCK_AFTER_SECONDS + 1
    hint = "delete /admin/reassign_partitions and force a controller election (delete /controller)"
    # The plan only requested there: an error naming the node and the way out, as verify's.
    for extra in ((), ("-o", "json"), ("--watch", "--interval", "0.1"), ("--watch", "--interval", "0.1", "-o", "json")):
        code, out, err = progress(capsys, stuck, *plan, *extra)
        assert code == 1, (extra, out, err)
        assert "kadmin: error: /admin/reassign_partitions exists but looks stuck" in err
        assert "this plan's foo-1 is requested there, but no broker is moving it (not in progress" in err, err
        assert hint in err and err.count(hint) == (2 if "--watch" in extra else 1), err  # --watch warned first
    code, out, err = progress(capsys, stuck, *plan, "-o", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, load("progress-snapshot"))
    assert doc["reassigning_partitions"] == 0 and doc["totals"]["moving_replicas"] == 0 and doc["done"]
    assert doc["waiting"] == [{"topic": "foo", "partition": 1, "replicas": [1, 2], "target": [3, 2]}]
    code, out, err = progress(capsys, stuck, *plan)
    assert "0 partitions reassigning, 0 replicas moving" in out and "requested, not moving" in out, out

    # Every move: the one running is in progress (3); the request is named, not counted.
    code, out, err = progress(capsys, stuck, "-o", "json")
    doc = json.loads(out)
    assert code == 3 and doc["reassigning_partitions"] == 1, out + err
    assert {r["partition"] for r in doc["replicas"]} == {0}
    assert doc["waiting"] == [{"topic": "foo", "partition": 1, "replicas": [1, 2], "target": [3, 2]}]
    assert "foo-1 is requested there, but no broker is moving it" in err and hint in err

    # Once it has finished, only the request is left: nothing will move it by itself.
    finish_running(stuck)
    code, out, err = progress(capsys, stuck)
    assert code == 1 and out == "No partition reassignment or log-dir move in progress.\n", out + err
    assert "; foo-1 is requested there, but no broker is moving it (not in progress" in err and hint in err
    # A plan the stuck node does not hold is done; the node is still worth a warning.
    code, out, err = progress(capsys, stuck, "--reassignment-json-file", stuck.running)
    assert code == 0 and "done" in out, out + err
    assert "looks stuck" in err and "foo-1" not in err
