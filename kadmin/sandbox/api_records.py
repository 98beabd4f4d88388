"""Handlers: Produce and Fetch, on the partition's stored log (``records.PartitionRecords``).

Checks in the order Kafka's ReplicaManager makes them: the partition exists, this broker leads
it, its log is online, then the batches. Partitions whose sizes the sandbox simulates
(``size_bytes`` / ``produce_rate``) hold no stored batches: Produce to them is refused with a
message saying so, and Fetch returns no records but their watermarks, so consumers do not spin
on errors. acks=0 gets no response at all (Kafka's rule).
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref

from kadmin.sandbox import protocol as P
from kadmin.sandbox.records import InvalidBatch, PartitionRecords, split_batches

OFFSET_OUT_OF_RANGE = 1
NOT_ENOUGH_REPLICAS = 19
INVALID_REQUIRED_ACKS = 21
FENCED_LEADER_EPOCH = 74
UNKNOWN_LEADER_EPOCH = 75
MAX_WAIT = 5.0  # seconds a Fetch may be held, whatever it asks (bounds a stop's wait)

# Engine -> event set when records are appended: wakes Fetches waiting for data (DelayedFetch).
_appended: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def produce(engine, broker_id, version, req):
    from kafka.protocol.producer import ProduceResponse as R

    cluster = engine.cluster
    topics = []
    for td in req.topic_data:
        parts = []
        for pd in td.partition_data:
            code, base, message = P.NONE, -1, None
            if req.acks not in (-1, 0, 1):
                code = INVALID_REQUIRED_ACKS
            else:
                code, base, message = _append(cluster, broker_id, td.name, pd.index, pd.records, req.acks)
            parts.append(
                R.TopicProduceResponse.PartitionProduceResponse(
                    index=pd.index,
                    error_code=code,
                    base_offset=base,
                    log_append_time_ms=-1,
                    log_start_offset=0 if code == P.NONE else -1,
                    record_errors=[],
                    error_message=message,
                )
            )
        topics.append(R.TopicProduceResponse(name=td.name, partition_responses=parts))
    _wake_fetches(engine)
    if req.acks == 0:
        return P.NO_RESPONSE
    return R(version=version, responses=topics, throttle_time_ms=0)


def _append(cluster, broker_id, topic, index, records, acks) -> tuple[int, int, str | None]:
    """Append a partition's batches on this broker; (error code, base offset, error message)."""
    p = cluster.partition_by(topic, index)
    if p is None:
        return P.UNKNOWN_TOPIC_OR_PARTITION, -1, None
    if p.leader != broker_id:
        return P.NOT_LEADER_OR_FOLLOWER, -1, None
    leader = cluster.leader_log(p)
    if leader is None:
        return P.KAFKA_STORAGE_ERROR, -1, None
    if p.records is None and (p.produce_rate or leader.size):
        return (
            P.INVALID_REQUEST,
            -1,
            f"sandbox: the size of {topic}-{index} is simulated; it stores no produced records",
        )
    if acks == -1 and len(p.isr) < _min_insync(cluster, topic):
        return NOT_ENOUGH_REPLICAS, -1, None
    try:
        batches = split_batches(records or b"")
    except InvalidBatch as e:
        return e.error_code, -1, str(e)
    if p.records is None:
        p.records = PartitionRecords()
    bases = [p.records.append(b, p.leader_epoch) for b in batches]
    _share(cluster, p)
    return P.NONE, bases[0], None


def _wake_fetches(engine) -> None:
    event = _appended.pop(engine, None)
    if event is not None:
        event.set()


def _share(cluster, p) -> None:
    """Every replica shares the partition's log; the leader and its ISR hold all of it (the ISR
    has it once acks=-1 is answered), followers outside the ISR catch up by size."""
    size = p.records.size
    for b in p.replicas:
        broker = cluster.brokers.get(b)
        if broker is None:
            continue
        for d in broker.dirs.values():
            for logs in (d.logs, d.futures):
                log = logs.get(p.tp)
                if log is not None:
                    log.records = p.records
        if (b == p.leader or b in p.isr) and cluster.replica_online(p.tp, b):
            broker.log(p.tp).size = size


def _min_insync(cluster, topic: str) -> int:
    t = cluster.topics.get(topic)
    value = (
        (t.configs.get("min.insync.replicas") if t else None)
        or cluster.broker_configs.get("", {}).get("min.insync.replicas")
        or "1"
    )
    return int(value)


def fetch(engine, broker_id, version, req):
    """Kafka answers at once when there are ``min_bytes`` of records or an error, else holds the
    Fetch until records arrive or ``max_wait_ms`` passes; so does this (a coroutine the wire
    server awaits), so that caught-up consumers do not spin."""
    response = _fetch_now(engine, broker_id, version, req)
    if req.max_wait_ms <= 0 or not _worth_waiting(response, req.min_bytes) or _stopped(engine, broker_id):
        return response
    return _delayed(engine, broker_id, version, req, min(req.max_wait_ms / 1000, MAX_WAIT))


def _stopped(engine, broker_id) -> bool:
    """A broker being stopped holds nothing (it is about to cancel what it holds)."""
    server = engine.servers.get(broker_id)
    return server is None or server.server is None


def _worth_waiting(response, min_bytes: int) -> bool:
    parts = [p for t in response.responses for p in t.partitions]
    if any(p.error_code != P.NONE for p in parts):
        return False
    return sum(len(p.records or b"") for p in parts) < max(min_bytes, 1)


async def _delayed(engine, broker_id, version, req, wait: float):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    while True:
        event = _appended.get(engine)
        if event is None:
            event = _appended[engine] = asyncio.Event()
        response = _fetch_now(engine, broker_id, version, req)
        remaining = deadline - loop.time()
        if remaining <= 0 or not _worth_waiting(response, req.min_bytes):
            return response
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(event.wait(), remaining)


def _fetch_now(engine, broker_id, version, req):
    from kafka.protocol.consumer import FetchResponse as R

    cluster = engine.cluster
    budget = req.max_bytes
    read_committed = version >= 4 and req.isolation_level == 1
    topics, returned = [], False
    for t in req.topics:
        parts = []
        for fp in t.partitions:
            # KIP-74: the first batch returned may exceed the limits, so a large batch still moves.
            code, hw, start, data = _read(
                cluster, broker_id, t.topic, fp, min(fp.partition_max_bytes, budget), at_least_one=not returned
            )
            returned = returned or bool(data)
            budget = max(budget - len(data), 0)
            parts.append(
                R.FetchableTopicResponse.PartitionData(
                    partition_index=fp.partition,
                    error_code=code,
                    high_watermark=hw,
                    last_stable_offset=hw,
                    log_start_offset=start,
                    aborted_transactions=[] if read_committed else None,
                    preferred_read_replica=-1,
                    records=data,
                )
            )
        topics.append(R.FetchableTopicResponse(topic=t.topic, partitions=parts))
    # session_id 0: no fetch session was created, so clients keep sending full fetches.
    return R(version=version, throttle_time_ms=0, error_code=P.NONE, session_id=0, responses=topics)


def _read(cluster, broker_id, topic, fp, max_bytes, *, at_least_one) -> tuple[int, int, int, bytes]:
    """(error code, high watermark, log start offset, batches) for one partition of a Fetch."""
    p = cluster.partition_by(topic, fp.partition)
    if p is None:
        return P.UNKNOWN_TOPIC_OR_PARTITION, -1, -1, b""
    if p.leader != broker_id:
        return P.NOT_LEADER_OR_FOLLOWER, -1, -1, b""
    epoch = getattr(fp, "current_leader_epoch", -1)
    if epoch is not None and epoch != -1 and epoch != p.leader_epoch:
        return (FENCED_LEADER_EPOCH if epoch < p.leader_epoch else UNKNOWN_LEADER_EPOCH), -1, -1, b""
    log = cluster.leader_log(p)
    if log is None:
        return P.KAFKA_STORAGE_ERROR, -1, -1, b""
    hw = log.end_offset
    start = p.records.log_start_offset if p.records is not None else 0
    if fp.fetch_offset < start or fp.fetch_offset > hw:
        return OFFSET_OUT_OF_RANGE, hw, start, b""
    if p.records is None:  # simulated size: watermarks only
        return P.NONE, hw, start, b""
    return P.NONE, hw, start, p.records.read(fp.fetch_offset, max_bytes, at_least_one=at_least_one, upper=hw)
