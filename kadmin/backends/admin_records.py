"""kadmin's throttle-record topic over the AdminClient protocol: a compacted topic read from the
start with no consumer group, written with acks=all, created on first write.

It is reached through ``AdminBackend.throttle_record_store()``, so it uses the backend's
settings, ``--timeout`` and error translation, and the backend's admin client for the topic
(never kafka-python's ``describe_cluster``: broken against brokers serving DescribeCluster v0 only, as
Kafka 3.3's, with ``KeyError: 'endpoint_type'``).
"""

from __future__ import annotations

import time

from kadmin.backends.admin_errors import cluster_error
from kadmin.backends.record_batches import batches
from kadmin.errors import ClusterError, KadminError, UnsupportedOperation

PRODUCE_API_KEY = 0
FETCH_API_KEY = 1
TOPIC_ALREADY_EXISTS = 36
OFFSET_OUT_OF_RANGE = 1
LEADER_NOT_AVAILABLE = 5
KAFKA_STORAGE_ERROR = 56


class _Final(Exception):
    """Carries ``error``, an answer that ends a read, out of the small client's path."""

    def __init__(self, error: ClusterError):
        super().__init__(error.message)
        self.error = error


class RecordTopic:
    """A ``kadmin.throttling.stores.KeyedLog`` on one partition of ``topic``."""

    def __init__(self, backend, topic: str):
        self.backend = backend  # an AdminBackend
        self.topic = topic
        self.offsets: dict[str, int] = {}  # key -> offset of the value read_all last gave for it

    @property
    def timeout(self) -> float:
        return self.backend.timeout

    def _client_kwargs(self) -> dict:
        from kadmin.config import to_kafka_python

        kw = to_kafka_python(self.backend.settings)
        # Without the bootstrap servers the security probe found silent: kafka-python's TLS
        # handshake waits for one with no deadline (a throttle show hung 1 run in 2).
        kw["bootstrap_servers"] = self.backend.library_bootstrap_servers()
        kw.setdefault("client_id", "kadmin-throttle-records")
        return kw

    def _error(self, e: Exception, what: str) -> KadminError:
        if type(e).__name__ in ("UnsupportedVersionError", "IncompatibleBrokerVersion"):
            return self._unsupported(e)
        return cluster_error(e, what)

    def _unsupported(self, e: Exception | str) -> UnsupportedOperation:
        why = e if isinstance(e, str) else f"{type(e).__name__}: {e}"
        return UnsupportedOperation(
            f"cannot read or write kadmin's throttle records in topic {self.topic}: the cluster does not "
            f"serve Produce/Fetch ({why})",
            hint="throttles can still be set and cleared by hand; see docs/throttle-records.md",
        )

    def _unreadable(self, why: str, *, leader: int | None = None, code: int | None = None) -> ClusterError:
        """The record partition cannot be read (``why``, of its ``leader``): never taken for an
        empty topic, which would show every throttle kadmin set as set by someone else."""
        whose = f"partition {self.topic}-0" + (f"'s leader, broker {leader}," if leader is not None else "")
        return ClusterError(
            f"reading throttle records from {self.topic}: {whose} {why}",
            error_code=code,
            hint=f"`kadmin log-dirs describe{f' --broker-list {leader}' if leader is not None else ''}` shows "
            "failed log directories; the records can be read again once the partition's leader serves it: "
            "its directory back online, or another leader",
        )

    def read_all(self) -> dict[str, bytes | None]:
        fast = self.backend._fast(self._fast_read)
        if isinstance(fast, ClusterError):  # the partition answered that it cannot be read
            raise fast
        if fast is not NotImplemented:
            return fast
        from kadmin.backends.kafka_python_logs import quiet_kafka_loggers

        quiet_kafka_loggers()
        from kafka import KafkaConsumer
        from kafka import TopicPartition as KTP
        from kafka.errors import KafkaError, KafkaTimeoutError

        what = f"reading throttle records from {self.topic}"
        kw = self._client_kwargs()
        request_ms = kw["request_timeout_ms"]
        try:
            consumer = KafkaConsumer(
                group_id=None,
                enable_auto_commit=False,
                # kafka-python wants fetch_max_wait_ms < request_timeout_ms < connections_max_idle_ms
                # (500 ms and 9 min by default); --timeout may be from 1 ms to 1 h.
                fetch_max_wait_ms=min(500, request_ms // 2),
                connections_max_idle_ms=max(540_000, request_ms + 1000),
                **kw,
            )
        except KafkaError as e:
            raise self._error(e, what) from None
        try:
            if not consumer.partitions_for_topic(self.topic):
                return {}
            tp = KTP(self.topic, 0)
            consumer.assign([tp])
            try:
                end = consumer.end_offsets([tp])[tp]
            except KafkaTimeoutError:
                # kafka-python retries every answer of the leader (KAFKA_STORAGE_ERROR among them)
                # until its timeout, and keeps why to itself.
                leader = consumer._client.cluster.leader_for_partition(tp)
                if leader is None or leader < 0:
                    raise self._unreadable(f"has no leader: no end offset within {self.timeout:g}s") from None
                raise self._unreadable(
                    f"gave no end offset within {self.timeout:g}s (a leader whose log directory failed "
                    "answers KAFKA_STORAGE_ERROR, which the client retries)",
                    leader=leader,
                ) from None
            consumer.seek_to_beginning(tp)
            values: dict[str, bytes | None] = {}
            offsets: dict[str, int] = {}
            deadline = time.monotonic() + self.timeout
            while consumer.position(tp) < end:
                if time.monotonic() > deadline:
                    raise ClusterError(f"{what}: no data within {self.timeout:g}s")
                for batch in consumer.poll(timeout_ms=200).values():
                    for msg in batch:
                        values[msg.key.decode("utf-8")] = msg.value
                        offsets[msg.key.decode("utf-8")] = msg.offset
            self.offsets = offsets
            return values
        except KafkaError as e:
            raise self._error(e, what) from None
        finally:
            consumer.close()

    def _fast_read(self, wire) -> dict[str, bytes | None] | ClusterError:
        """read_all through kadmin's small client: no consumer and no group; Metadata (a fresh
        answer the command already has serves), then Fetch from the partition leader until the
        end offset its first answer gives. An answer saying the partition cannot be read is
        returned as the error to raise (the backend would take a raised one for a reason to ask
        the library clients, which retry it until --timeout and then say a broker did not answer)."""
        try:
            return self._read_through(wire)
        except _Final as e:
            return e.error

    def _read_through(self, wire) -> dict[str, bytes | None]:
        from kadmin.backends.kafka_errors import error_name
        from kadmin.backends.wire_client import WireUnavailable

        def leaderless(part) -> bool:
            return part.leader_id < 0 or part.error_code == LEADER_NOT_AVAILABLE

        t = wire.topic_metadata(self.topic)
        part = {p.partition_index: p for p in t.partitions}.get(0)
        if part is not None and leaderless(part):
            t = wire.topic_metadata(self.topic, max_age=0)  # not an answer from before an election
        if t.error_code == 3 or (not t.error_code and not t.partitions):  # UNKNOWN_TOPIC_OR_PARTITION
            return {}
        part = {p.partition_index: p for p in t.partitions}.get(0)
        if part is not None and leaderless(part):
            offline = list(getattr(part, "offline_replicas", None) or [])
            where = f"replicas {list(part.replica_nodes)}" + (f", offline {offline}" if offline else "")
            raise _Final(self._unreadable(f"has no leader ({where})", code=part.error_code or None))
        if t.error_code or part is None or part.error_code:
            raise WireUnavailable(f"no leader for {self.topic}-0")
        leader = part.leader_id

        def check(request: str, code: int) -> None:
            """KAFKA_STORAGE_ERROR ends the read: the leader's replica is in a failed log directory
            and no retry changes that while the command runs (on KRaft before JBOD, 3.3, that
            broker even stays the leader). Other errors (a leader that just moved...) are the
            library clients' to retry."""
            if code == KAFKA_STORAGE_ERROR:
                raise _Final(
                    self._unreadable(
                        f"answered {request} with {error_name(code)}: its log directory there is offline",
                        leader=leader,
                        code=code,
                    )
                )
            if code:
                raise WireUnavailable(f"{request} error {code}")

        def offset(timestamp: int) -> int:
            req = {
                "replica_id": -1,
                "isolation_level": 0,
                "timeout_ms": int(self.timeout * 1000),
                "topics": [
                    {
                        "name": self.topic,
                        "partitions": [{"partition_index": 0, "current_leader_epoch": -1, "timestamp": timestamp}],
                    }
                ],
            }
            [rt] = wire.to_each([leader], "ListOffsets", lambda _: req)[leader].topics
            [rp] = rt.partitions
            if rp.error_code:
                raise WireUnavailable(f"ListOffsets error {rp.error_code}")
            return rp.offset

        values: dict[str, bytes | None] = {}
        offsets: dict[str, int] = {}
        # From offset 0 (a compacted topic's log starts there unless records were deleted): the
        # first answer's high watermark is the end offset a consumer's end_offsets gives.
        position, end = 0, None
        deadline = time.monotonic() + self.timeout
        while end is None or position < end:
            if time.monotonic() > deadline:
                raise WireUnavailable("the records did not arrive in time")
            req = {
                "replica_id": -1,
                "max_wait_ms": 0,
                "min_bytes": 0,
                "max_bytes": 8 << 20,
                "isolation_level": 0,
                "session_id": 0,
                "session_epoch": -1,
                "topics": [
                    {
                        "topic": self.topic,
                        "partitions": [
                            {
                                "partition": 0,
                                "current_leader_epoch": -1,
                                "fetch_offset": position,
                                "last_fetched_epoch": -1,
                                "log_start_offset": -1,
                                "partition_max_bytes": 8 << 20,
                            }
                        ],
                    }
                ],
                "forgotten_topics_data": [],
                "rack_id": "",
            }
            resp = wire.to_each([leader], "Fetch", lambda _, req=req: req)[leader]
            if getattr(resp, "error_code", 0):
                raise WireUnavailable(f"Fetch error {resp.error_code}")
            [rt] = resp.responses
            [rp] = rt.partitions
            if rp.error_code == OFFSET_OUT_OF_RANGE and end is None and position == 0:
                position = offset(-2)  # the log starts later: from its first offset
                continue
            check("Fetch", rp.error_code)
            if end is None:
                end = rp.high_watermark
                if position >= end:
                    break
            data = bytes(rp.records or b"")
            if not data:
                raise WireUnavailable("Fetch returned no records before the end offset")
            advanced = False
            for batch in batches(data):
                if not batch.is_control:
                    for at, key, value in batch.records:
                        if position <= at < end and key is not None:
                            values[key.decode("utf-8")] = value
                            offsets[key.decode("utf-8")] = at
                if batch.next_offset > position:
                    position, advanced = batch.next_offset, True
            if not advanced:
                raise WireUnavailable("Fetch returned no records before the end offset")
        self.offsets = offsets
        return values

    def write(self, key: str, value: bytes | None) -> None:
        from kadmin.backends.kafka_python_logs import quiet_kafka_loggers

        quiet_kafka_loggers()
        from kafka import KafkaProducer
        from kafka.errors import KafkaError

        self.backend._check_writable("writing a throttle record")
        self._ensure_topic()
        what = f"writing the throttle record of plan {key} to {self.topic}"
        kw = self._client_kwargs()
        try:
            producer = KafkaProducer(
                acks=-1,
                enable_idempotence=False,
                retries=5,
                max_block_ms=int(self.timeout * 1000),
                # kafka-python refuses a delivery timeout (120 s by default) under linger_ms +
                # request_timeout_ms: a --timeout over 2 minutes failed every record write.
                delivery_timeout_ms=max(120_000, kw["request_timeout_ms"] + kw.get("linger_ms", 0) + 1000),
                **kw,
            )
        except KafkaError as e:
            raise self._error(e, what) from None
        try:
            producer.send(self.topic, key=key.encode("utf-8"), value=value, partition=0).get(timeout=self.timeout)
        except KafkaError as e:
            raise self._error(e, what) from None
        finally:
            producer.close(timeout=self.timeout)

    def _ensure_topic(self) -> None:
        """Refuse before creating anything when the cluster cannot store messages; create the
        topic (one partition, compacted, replicated like the cluster's default up to 3)."""
        from kadmin.backends.kafka_python_logs import quiet_kafka_loggers

        quiet_kafka_loggers()
        from kafka.admin import NewTopic

        what = f"creating the throttle record topic {self.topic}"
        served = {int(k) for k in self.backend._kp_call(what, lambda kp: kp.api_versions())}
        missing = [name for key, name in ((PRODUCE_API_KEY, "Produce"), (FETCH_API_KEY, "Fetch")) if key not in served]
        if missing:
            raise self._unsupported(f"no {' or '.join(missing)} in ApiVersions")
        if self.topic in self.backend._kp_call(what, lambda kp: kp.list_topics()):
            return
        replicas = min(3, len(self.backend.describe_brokers()) or 1)
        topic = NewTopic(self.topic, 1, replicas, topic_configs={"cleanup.policy": "compact"})
        try:
            self.backend._kp_call(what, lambda kp: kp.create_topics([topic]))
        except ClusterError as e:
            if e.error_code != TOPIC_ALREADY_EXISTS:
                raise
