"""The record of what kadmin set: JSON round trip, merging, and KIP-179's znodes in a real
ZooKeeper, seen by a second client (another kadmin run)."""

import json

import pytest

from kadmin.errors import InputError
from kadmin.model import FOLLOWER_REPLICAS, LEADER_RATE, LEADER_REPLICAS, LOG_DIR_RATE
from kadmin.throttling.record import RateClaim, ThrottleRecord, plan_id
from kadmin.throttling.stores import MemoryRecordStore, RATES_REMOVAL, REPLICAS_REMOVAL, ZooKeeperRecordStore


def sample(pid="a1b2c3d4e5f60718", **kw):
    return ThrottleRecord(
        pid,
        rates=(RateClaim(2, LEADER_RATE, 10_000_000, previous=5), RateClaim(1, LOG_DIR_RATE, 70)),
        replicas={"foo": {LEADER_REPLICAS: ("0:1", "10:1", "2:1")}, "bar": {FOLLOWER_REPLICAS: ()}},
        created_at="2026-11-21T13:00:00Z", host="ops1", user="alice", plan_file="plan.json",
        command="throttle set", **kw,
    )


def test_round_trip_and_shape():
    r = sample()
    again = ThrottleRecord.loads(r.dumps())
    assert again == ThrottleRecord.from_json(json.loads(r.dumps()))
    assert again.replicas == {"foo": {LEADER_REPLICAS: ("0:1", "2:1", "10:1")}}  # empty lists dropped, sorted
    assert again.brokers == [1, 2] and again.topics == ["foo"]
    assert (again.host, again.user, again.plan_file) == ("ops1", "alice", "plan.json")


def test_unreadable_record_is_an_input_error():
    with pytest.raises(InputError):
        ThrottleRecord.loads(b"{not json")
    with pytest.raises(InputError):
        ThrottleRecord.loads(json.dumps({"version": 99, "plan_id": "x"}))


def test_plan_id_is_a_content_hash():
    assert plan_id(b'{"version":1}') == plan_id('{"version":1}')
    assert plan_id(b'{"version":1}') != plan_id(b'{"version":1} ')
    assert len(plan_id(b"x")) == 16


def test_merging_a_later_run_keeps_the_first_previous_value():
    first = ThrottleRecord("p", rates=(RateClaim(1, LEADER_RATE, 10, previous=3),), replicas={"t": {LEADER_REPLICAS: ("0:1",)}})
    later = ThrottleRecord("p", rates=(RateClaim(1, LEADER_RATE, 20, previous=10),), replicas={"t": {LEADER_REPLICAS: ("1:1",)}})
    m = first.merged(later)
    assert m.rates == (RateClaim(1, LEADER_RATE, 20, previous=3),)
    assert m.replicas == {"t": {LEADER_REPLICAS: ("0:1", "1:1")}}


def test_memory_store_drops_empty_records():
    store = MemoryRecordStore()
    store.put(sample())
    assert list(store.load_all()) == ["a1b2c3d4e5f60718"]
    store.put(ThrottleRecord("a1b2c3d4e5f60718"))
    assert store.load_all() == {}


@pytest.mark.zookeeper
def test_zookeeper_store_writes_kip179_znodes_seen_by_a_second_client(zk_connect):
    from kazoo.client import KazooClient

    one, two = KazooClient(hosts=zk_connect), KazooClient(hosts=zk_connect)
    one.start(timeout=15)
    two.start(timeout=15)
    try:
        ZooKeeperRecordStore(one).put(sample())
        ZooKeeperRecordStore(one).put(ThrottleRecord(
            "ffff000011112222", rates=(RateClaim(3, LEADER_RATE, 1),), replicas={"baz": {LEADER_REPLICAS: ("0:3",)}}))

        # KIP-179's znodes: the brokers and topics whose throttles are to be removed
        rates_node = json.loads(two.get(RATES_REMOVAL)[0])
        replicas_node = json.loads(two.get(REPLICAS_REMOVAL)[0])
        assert rates_node == {"version": 1, "brokers": [1, 2, 3]}
        assert replicas_node == {"version": 1, "topics": ["baz", "foo"]}

        seen = ZooKeeperRecordStore(two).load_all()  # another kadmin run, another connection
        assert seen["a1b2c3d4e5f60718"] == ThrottleRecord.loads(sample().dumps())
        assert seen["a1b2c3d4e5f60718"].user == "alice"

        ZooKeeperRecordStore(two).delete("a1b2c3d4e5f60718")
        assert json.loads(one.get(RATES_REMOVAL)[0])["brokers"] == [3]
        assert json.loads(one.get(REPLICAS_REMOVAL)[0])["topics"] == ["baz"]

        ZooKeeperRecordStore(one).put(ThrottleRecord("ffff000011112222"))  # emptied: removed
        assert one.exists(RATES_REMOVAL) is None and one.exists(REPLICAS_REMOVAL) is None
        assert ZooKeeperRecordStore(two).load_all() == {}
    finally:
        for c in (one, two):
            c.stop()
            c.close()
