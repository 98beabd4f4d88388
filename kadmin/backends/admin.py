"""The AdminClient-protocol backend (``--bootstrap-server``): KIP-179's operations.

confluent-kafka (librdkafka) does what it has: cluster and topic metadata, configs,
end offsets. kafka-python does the four RPCs librdkafka lacks: DescribeLogDirs,
AlterReplicaLogDirs, AlterPartitionReassignments and ListPartitionReassignments.
The clients, their retries and timeouts are in ``admin_clients``; error translation in
``admin_errors``; kadmin's throttle-record topic in ``admin_records``; the reads sent on
kadmin's own small client (PLAINTEXT clusters) in ``wire_reads``.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence

from kadmin.backends import wire_reads
from kadmin.backends.admin_clients import BACKOFF, FLOOR, TRANSIENT_ATTEMPTS, AdminClients, debug
from kadmin.backends.admin_errors import (
    CK_UNREACHABLE,
    TRANSIENT,
    describe_exception,
    kp_error_name,
    permission_hint,
)
from kadmin.backends.base import BrokerLogDirs, Capability
from kadmin.backends.kafka_errors import error_name, java_class_name
from kadmin.errors import (
    AuthenticationError,
    AuthorizationError,
    ClusterError,
    ConfigsNotAnswered,
    ConnectionFailed,
    KadminError,
    UnsupportedOperation,
)
from kadmin.model import (
    DOWN_ERROR,
    AlterOp,
    Assignment,
    Broker,
    ClusterState,
    ConfigChange,
    ConfigEntry,
    ConfigResource,
    ConfigResourceType,
    ConfigSource,
    LogDir,
    PartitionReassignment,
    PartitionState,
    ReplicaInfo,
    ReplicaLogDir,
    TopicPartition,
    TopicPartitionReplica,
)

_OFFSET_ATTEMPTS = 3


def _no_answer_reason(e: ConnectionFailed) -> str:
    """Why a broker did not answer, in Kafka's words: REQUEST_TIMED_OUT for a request that timed
    out (librdkafka's _TIMED_OUT, or no answer within --timeout), else the connection failed."""
    text = str(e)
    if "_TIMED_OUT" in text or "no answer from" in text or "TimedOut" in text:
        return "REQUEST_TIMED_OUT"
    return "connection failed"


DEFAULT_BROKER = ConfigResource(ConfigResourceType.BROKER, "")

_CONFIG_SOURCES = {
    "DYNAMIC_TOPIC_CONFIG": ConfigSource.TOPIC,
    "DYNAMIC_BROKER_CONFIG": ConfigSource.DYNAMIC_BROKER,
    "DYNAMIC_DEFAULT_BROKER_CONFIG": ConfigSource.DYNAMIC_DEFAULT_BROKER,
    "STATIC_BROKER_CONFIG": ConfigSource.STATIC_BROKER,
    "DEFAULT_CONFIG": ConfigSource.DEFAULT,
}


class AdminBackend(AdminClients):
    """KIP-179's interface over the Kafka AdminClient protocol."""

    name = "admin"
    capabilities = frozenset(Capability) - {Capability.CONFIGS_OF_DOWN_BROKERS}

    # --- reads ---------------------------------------------------------------------------
    @property
    def cluster_id(self) -> str | None:
        """From kafka-python's Metadata: it has no public call for it (its describe_cluster fails
        against brokers that serve DescribeCluster v0 only)."""
        fast = self._fast(lambda w: w.brokers().cluster_id)
        if fast is not NotImplemented:
            return fast
        return self._kafka_python()._manager.cluster.cluster_id

    def describe_brokers(self) -> Mapping[int, Broker]:
        """From Metadata (kafka-python has no public call for the brokers it knows)."""
        fast = self._fast(lambda w: w.brokers().brokers)
        if fast is not NotImplemented:
            return {
                b.node_id: Broker(id=b.node_id, host=b.host, port=b.port, rack=b.rack)
                for b in sorted(fast, key=lambda b: b.node_id)
            }
        kp = self._kafka_python()
        cluster = kp._manager.cluster
        self._refresh_metadata(kp)  # its cached brokers miss one back from a restart for minutes
        return {
            b.node_id: Broker(id=b.node_id, host=b.host, port=b.port, rack=b.rack)
            for b in sorted(cluster.brokers(), key=lambda b: b.node_id)
        }

    def replica_brokers(self) -> set[int]:
        """From an all-topics Metadata (describe_brokers then reuses it, no second request),
        read straight from the answer: no partition model built (on 20,000 partitions that took
        ~0.2 s of `log-dirs describe`'s ~0.5 s)."""
        fast = self._fast(
            lambda w: {b for t in w.metadata().topics if t.partitions for p in t.partitions for b in p.replica_nodes}
        )
        if fast is not NotImplemented:
            return fast
        return self.describe_cluster().replica_brokers()

    def describe_cluster(self) -> ClusterState:
        fast = self._fast(wire_reads.cluster)
        if fast is not NotImplemented:
            return fast
        from confluent_kafka import KafkaException

        ck = self._confluent()
        try:
            md = ck.list_topics(timeout=self.left())
            self._ck_brokers = set(md.brokers)
        except KafkaException as e:
            err = e.args[0] if e.args else None
            if err is not None and err.name() in CK_UNREACHABLE and not self._ck_login_seen():
                raise self._no_broker_answered() from None  # as kafka-python's path says it
            raise self._ck_error(err, "reading metadata") from None
        desc = self._ck_result(ck.describe_cluster(request_timeout=self.left()), "describing the cluster")
        brokers = {
            n.id: Broker(id=n.id, host=n.host, port=n.port, rack=n.rack or None)
            for n in sorted(desc.nodes, key=lambda n: n.id)
        }
        live = set(brokers)
        partitions: dict[TopicPartition, PartitionState] = {}
        for tname, t in md.topics.items():
            if t.error is not None and not t.partitions:
                continue
            for pid, p in t.partitions.items():
                replicas = tuple(p.replicas)
                partitions[TopicPartition(tname, pid)] = PartitionState(
                    topic=tname,
                    partition=pid,
                    leader=p.leader,
                    replicas=replicas,
                    isr=tuple(p.isrs),
                    # librdkafka does not expose Metadata's OfflineReplicas; replicas on brokers
                    # that are not live are offline. Offline directories show in describe_log_dirs.
                    offline_replicas=tuple(b for b in replicas if b not in live),
                )
        controller = desc.controller.id if desc.controller is not None else None
        return ClusterState(
            cluster_id=desc.cluster_id, controller_id=controller, brokers=brokers, partitions=partitions
        )

    def describe_log_dirs(
        self, brokers: Iterable[int] | None = None, topics: Iterable[str] | None = None
    ) -> Mapping[int, BrokerLogDirs]:
        """DescribeLogDirs sent to every broker at once; a broker that fails is reported, not fatal.

        Like Kafka's tool, all topics are requested and ``topics`` filters on the client, so
        directory totals stay whole.
        """
        ids = sorted(self.describe_brokers()) if brokers is None else sorted(set(brokers))
        wanted = set(topics) if topics else None
        fast = self._fast(lambda w: wire_reads.log_dirs(w, ids))
        if fast is not NotImplemented:
            return {b: _log_dirs_answer(b, fast[b], wanted) for b in ids}

        from kafka.protocol.admin.cluster import DescribeLogDirsRequest

        kp = self._kafka_python()

        async def fan_out():
            futures, out = {}, {}
            timeout_ms = self.left_ms()
            for b in ids:  # send to every broker first, then collect: the queries run at once
                try:
                    futures[b] = kp._manager.send(
                        DescribeLogDirsRequest(topics=None), node_id=b, request_timeout_ms=timeout_ms
                    )
                except Exception as e:
                    out[b] = e
            for b, fut in futures.items():
                try:
                    out[b] = await fut
                except Exception as e:
                    out[b] = e
            return out

        answers = kp._manager.run(fan_out)
        for attempt in range(1, TRANSIENT_ATTEMPTS):  # a dropped connection: ask that broker again
            failed = [b for b in ids if isinstance(answers[b], Exception) and type(answers[b]).__name__ in TRANSIENT]
            if not failed:
                break
            from kadmin.units import plural

            debug(
                "DescribeLogDirs to %s %s failed (attempt %d); retrying", plural("broker", len(failed)), failed, attempt
            )
            time.sleep(BACKOFF * attempt)
            self._refresh_metadata(kp)
            ids_all, ids = ids, failed
            answers.update(kp._manager.run(fan_out))
            ids = ids_all
        unanswered = [b for b in ids if isinstance(answers[b], Exception)]
        if not unanswered:
            self.answered(every_broker=True)  # a silent broker is back: the deadline moves on again
        elif any("Timeout" in type(answers[b]).__name__ or "TimedOut" in type(answers[b]).__name__ for b in unanswered):
            self.missed()
        return {b: _log_dirs_answer(b, answers[b], wanted) for b in ids}

    def describe_replica_log_dirs(
        self, replicas: Iterable[TopicPartitionReplica]
    ) -> Mapping[TopicPartitionReplica, ReplicaLogDir]:
        wanted = sorted(set(replicas))
        by_broker = self.describe_log_dirs(brokers={r.broker for r in wanted})
        out: dict[TopicPartitionReplica, ReplicaLogDir] = {}
        index: dict[TopicPartitionReplica, dict] = defaultdict(dict)
        unanswered = {b for b, bl in by_broker.items() if bl.error is not None}
        for b, bl in by_broker.items():
            for d in bl.log_dirs:
                for rep in d.replicas:
                    key = TopicPartitionReplica(rep.topic, rep.partition, b)
                    slot = "future" if rep.is_future else "current"
                    index[key][slot] = (d.path, rep)
        for r in wanted:
            if r.broker in unanswered:
                continue  # unknown, not absent: left out, as the protocol says
            found = index.get(r, {})
            cur = found.get("current")
            fut = found.get("future")
            out[r] = ReplicaLogDir(
                replica=r,
                current_dir=cur[0] if cur else None,
                future_dir=fut[0] if fut else None,
                current_offset_lag=cur[1].offset_lag if cur else None,
                future_offset_lag=fut[1].offset_lag if fut else None,
                current_size=cur[1].size if cur else None,
                future_size=fut[1].size if fut else None,
            )
        return out

    def list_partition_reassignments(
        self, partitions: Iterable[TopicPartition] | None = None
    ) -> Mapping[TopicPartition, PartitionReassignment]:
        tps = None if partitions is None else list(partitions)
        if tps is not None and not tps:
            return {}
        fast = self._fast(lambda w: wire_reads.reassignments(w, tps, w.timeout))
        if fast is not NotImplemented:
            return fast
        from kafka import TopicPartition as KTP

        tps = None if partitions is None else [KTP(tp.topic, tp.partition) for tp in (tps or ())]
        try:
            raw = self._kp_call(
                "listing reassignments",
                lambda kp: kp.list_partition_reassignments(tps, timeout_ms=self.left_ms()),
            )
        except ConnectionFailed as e:
            raise self._controller_silent(e, "listing reassignments") from None
        out = {}
        for ktp, r in raw.items():
            tp = TopicPartition(ktp.topic, ktp.partition)
            out[tp] = PartitionReassignment(
                topic=tp.topic,
                partition=tp.partition,
                replicas=tuple(r["replicas"]),
                adding=tuple(r["adding_replicas"]),
                removing=tuple(r["removing_replicas"]),
            )
        return dict(sorted(out.items()))

    def _controller_silent(self, e: ConnectionFailed, what: str) -> ConnectionFailed:
        """``e``, a request to the controller that had no answer, naming the controller (broker
        id and address, as a silent broker is named elsewhere), when this command learned which
        broker it is; else ``e``. ListPartitionReassignments goes to the controller only: a
        silent one lost whole `reassign list`, `progress`, `verify`, `throttle show` and
        `leaders show` reports, with no broker named."""
        controller = self._controller_address()
        if controller is None or _no_answer_reason(e) != "REQUEST_TIMED_OUT":
            return e
        return ConnectionFailed(
            f"{what}: no answer from the controller, broker {controller[0]} at {controller[1]}, "
            f"within {self.timeout:g}s (REQUEST_TIMED_OUT)",
            error_code=e.error_code,
            hint="the controller answers ListPartitionReassignments; check that broker and run again",
        )

    def _controller_address(self) -> tuple[int, str] | None:
        """(id, host:port) of the controller as this command last saw it (kadmin's small client's
        Metadata, else kafka-python's), asking nothing; None when unknown."""
        from kadmin.config import address

        seen = self._wire.controller_seen() if self._wire is not None else None
        if seen is not None:
            return seen
        controller = getattr(getattr(getattr(self._kp, "_manager", None), "cluster", None), "controller", None)
        if controller is not None and getattr(controller, "node_id", None) is not None:
            return controller.node_id, address(controller.host, controller.port)
        return None

    def describe_configs(
        self, resources: Iterable[ConfigResource], keys: Collection[str] | None = None
    ) -> Mapping[ConfigResource, Mapping[str, ConfigEntry]]:
        """Configs of topics and brokers (only ``keys``, when given). librdkafka takes at most
        one BROKER resource per call, so the resources are sent in batches that respect that
        (all topics go in the first); confluent-kafka cannot name the configs it wants, so that
        path filters the answer here."""
        resources = sorted(set(resources), key=lambda r: (r.type.value, r.name))  # their order, without __lt__ calls
        names = None if keys is None else sorted(set(keys))
        if resources:
            fast = self._fast(lambda w: wire_reads.configs(w, resources, names))
            if fast is not NotImplemented:
                return {
                    r: fast[r]
                    for r in ([DEFAULT_BROKER] if DEFAULT_BROKER in fast else [])
                    + [r for r in resources if r != DEFAULT_BROKER]
                }
        out: dict[ConfigResource, dict[str, ConfigEntry]] = {}
        silent: dict[int, str] = {}  # brokers that did not answer for their own configs -> why
        default = DEFAULT_BROKER in resources
        topics = [r for r in resources if r.type is ConfigResourceType.TOPIC]
        own = [r for r in resources if r.type is ConfigResourceType.BROKER and r.name != ""]
        # The cluster-wide resources (topics, the default) may be asked of any broker: of one
        # that answers, not one the small client found silent (a slow broker fails them all).
        quiet = self._silent_ids()
        own.sort(key=lambda r: (r.name.isdigit() and int(r.name) in quiet, r.type.value, r.name))
        if topics or own:
            from confluent_kafka.admin import ConfigResource as CKResource

            ck = self._confluent()
            self._ck_knows_brokers_of(ck, own)

            def send(batch):  # librdkafka sends a batch with a broker's resource to that broker
                futures = ck.describe_configs(
                    [CKResource(_ck_restype(r.type), r.name) for r in batch], request_timeout=self.left()
                )
                by_key = {(_ck_restype_of(k), k.name): f for k, f in futures.items()}
                return [(r, by_key[(_ck_restype(r.type), r.name)]) for r in batch]

            sent = [send(topics + own[:1])] + [send([r]) for r in own[1:]]  # all in flight at once
            topics_failed: ConnectionFailed | None = None
            for batch in sent:
                for r, fut in batch:
                    try:
                        out[r] = self._ck_entries(fut, r)
                    except ConnectionFailed as e:
                        if r.type is ConfigResourceType.TOPIC:
                            topics_failed = e
                        else:
                            silent[int(r.name)] = _no_answer_reason(e)
            if topics_failed is not None:  # ask them of a broker that answered
                carriers = [r for r in own if r in out]
                if not carriers:
                    raise topics_failed
                for r, fut in send(topics + carriers[:1]):
                    out[r] = self._ck_entries(fut, r)
        if default:
            answering = [int(r.name) for r in own if r in out]
            for i, node in enumerate(answering or [None]):
                try:
                    out[DEFAULT_BROKER] = self._describe_default_broker(node)
                    break
                except ConnectionFailed:
                    if i + 1 >= len(answering):
                        raise
            out = {DEFAULT_BROKER: out.pop(DEFAULT_BROKER), **out}
        if names is not None:
            wanted = set(names)
            out = {r: {n: e for n, e in entries.items() if n in wanted} for r, entries in out.items()}
        if silent:
            raise ConfigsNotAnswered(out, silent)
        return out

    def _ck_entries(self, fut, r: ConfigResource) -> dict[str, ConfigEntry]:
        entries = self._ck_result(fut, f"describing configs of {r.type.value} {r.name}")
        return {
            name: ConfigEntry(
                name=name,
                value=e.value,
                source=_CONFIG_SOURCES.get(_source_name(e.source), ConfigSource.UNKNOWN),
                sensitive=bool(e.is_sensitive),
            )
            for name, e in sorted(entries.items())
        }

    def _silent_ids(self) -> set[int]:
        """The brokers kadmin's small client waited for in vain this command (none when unused)."""
        wire = self._wire
        if wire is None or not wire.silent:
            return set()
        try:
            return {b.node_id for b in wire.brokers(max_age=float("inf")).brokers if (b.host, b.port) in wire.silent}
        except Exception:  # best effort: an ordering, not a fact
            return set()

    def list_end_offsets(self, partitions: Iterable[TopicPartition]) -> Mapping[TopicPartition, int]:
        """Latest offsets. Leadership moves during a reassignment, so a partition whose leader
        answers NOT_LEADER (or has none) is asked again a few times; one that still cannot be
        read is left out of the result (callers show it as unknown) rather than failing all. So is
        one whose leader does not answer in time while other leaders do (a slow broker); when no
        leader answers, the error names the leaders."""
        pending = sorted(set(partitions))
        if pending:
            fast = self._fast(lambda w: wire_reads.end_offsets(w, pending))
            if fast is not NotImplemented:
                return fast
        import concurrent.futures

        from confluent_kafka import TopicPartition as CKTP
        from confluent_kafka.admin import OffsetSpec

        out: dict[TopicPartition, int] = {}
        silent: dict[TopicPartition, ConnectionFailed] = {}  # leader did not answer
        ck = self._confluent() if pending else None
        md = self._ck_metadata(tp.topic for tp in pending) if pending else None
        for attempt in range(_OFFSET_ATTEMPTS):
            if not pending:
                break
            assert ck is not None  # created above whenever something is pending
            # One request per leader: librdkafka resolves a request's partitions together, so a
            # slow leader would hold up the answers of the others.
            by_leader: dict[int, dict] = defaultdict(dict)
            for tp in pending:
                by_leader[_ck_leader(md, tp)][CKTP(tp.topic, tp.partition)] = OffsetSpec.latest()
            futures = {}
            for group in by_leader.values():
                futures.update(ck.list_offsets(group, request_timeout=self.left()))
            # one wait for all of them (each leader answers its own), not one per partition
            concurrent.futures.wait(list(futures.values()), timeout=self.left())
            retry = []
            for ktp, fut in futures.items():
                tp = TopicPartition(ktp.topic, ktp.partition)
                what = f"reading the end offset of {tp}"
                try:
                    if not fut.done() or _ck_timed_out(fut):
                        raise (self._ck_error(None, what) if self._ck_login_seen() else self._no_answer(what))
                    out[tp] = self._ck_result(fut, what)
                except ClusterError as e:
                    if isinstance(e, (AuthorizationError, AuthenticationError)):
                        raise
                    if isinstance(e, ConnectionFailed):
                        silent[tp] = e
                    else:
                        retry.append(tp)
                    debug("end offset of %s (attempt %d): %s", tp, attempt + 1, e)
            pending = sorted(retry)
            if pending:
                time.sleep(BACKOFF * (attempt + 1))  # let metadata catch up with the new leader
                md = self._ck_metadata(tp.topic for tp in pending)
        if silent:
            self.missed()
        if silent and not out:
            tps = sorted(silent)
            leaders = _ck_leaders_text(md, tps)
            if leaders:
                shown = ", ".join(map(str, tps[:3])) + (f" and {len(tps) - 3} more" if len(tps) > 3 else "")
                raise ConnectionFailed(
                    f"reading the end offset of {shown}: no answer from {leaders} within {self.timeout:g}s"
                )
            raise silent[tps[0]]
        if silent:
            debug("end offsets of %s left out: their leaders did not answer", sorted(silent))
        return {tp: (v.offset if hasattr(v, "offset") else v) for tp, v in sorted(out.items())}

    def _ck_metadata(self, topics: Iterable[str]) -> _CkLeaders | None:
        """The leaders of ``topics``' partitions from confluent-kafka, or None: best effort, within
        ``FLOOR`` or what is left, whichever is shorter. One Metadata request naming those topics
        only (describe_topics): list_topics asks for every topic in the cluster, or for one with
        topic auto-creation allowed."""
        import concurrent.futures

        from confluent_kafka import TopicCollection

        wait = min(self.left(), FLOOR)
        try:
            futures = self._confluent().describe_topics(TopicCollection(sorted(set(topics))), request_timeout=wait)
        except Exception as e:
            debug("metadata for the leaders: %s", e)
            return None
        concurrent.futures.wait(list(futures.values()), timeout=wait)
        md = _CkLeaders()
        for name, fut in futures.items():
            if not fut.done() or fut.cancelled() or fut.exception() is not None:
                debug("metadata for the leaders of %s: %s", name, fut.exception() if fut.done() else "no answer")
                continue
            for p in fut.result().partitions:
                node = p.leader
                md.leaders[TopicPartition(name, p.id)] = node.id if node is not None else -1
                if node is not None:
                    md.brokers[node.id] = f"{node.host}:{node.port}"
        return md if md.leaders else None

    # --- changes ---------------------------------------------------------------------------
    def reassign_partitions(
        self, assignments: Sequence[Assignment], validate_only: bool = False
    ) -> Mapping[TopicPartition, str | None]:
        if validate_only:
            # AlterPartitionReassignments has no validate-only flag: kadmin validates on the
            # client (kadmin.plan.validate) and sends nothing.
            return {a.tp: None for a in assignments}
        self._check_writable("reassign_partitions")
        return self._alter_reassignments({a.tp: list(a.replicas) for a in assignments}, "starting reassignments")

    def cancel_partition_reassignments(
        self, partitions: Iterable[TopicPartition]
    ) -> Mapping[TopicPartition, str | None]:
        self._check_writable("cancel_partition_reassignments")
        return self._alter_reassignments(dict.fromkeys(partitions), "cancelling reassignments")

    def _alter_reassignments(self, targets, what: str) -> dict[TopicPartition, str | None]:
        from kafka import TopicPartition as KTP

        if not targets:
            return {}
        ktargets = {KTP(tp.topic, tp.partition): r for tp, r in targets.items()}
        raw = self._kp_call(what, lambda kp: kp.alter_partition_reassignments(ktargets, timeout_ms=self.left_ms()))
        out = {}
        for ktp, err in raw.items():
            out[TopicPartition(ktp.topic, ktp.partition)] = None if err is None else kp_error_name(err)
        return dict(sorted(out.items()))

    def alter_replica_log_dirs(
        self, moves: Mapping[TopicPartitionReplica, str]
    ) -> Mapping[TopicPartitionReplica, str | None]:
        """One request per broker, all at once (kafka-python's one call raises on the first
        broker that fails, losing the answers of those that accepted). A broker that fails
        (down, not answering) answers for its own replicas only: "on broker 2: <why>", the
        others' answers kept (their moves run). Raises when nothing can be sent for a reason
        that is not one broker's: the cluster unreachable, authorization."""
        import concurrent.futures

        from kafka import TopicPartitionReplica as KTPR
        from kafka.errors import NoError

        self._check_writable("alter_replica_log_dirs")
        if not moves:
            return {}
        by_broker: dict[int, dict] = defaultdict(dict)
        for r, path in moves.items():
            by_broker[r.broker][KTPR(r.topic, r.partition, r.broker)] = path
        what = "moving replicas between log directories"
        self._kp_call(what, lambda kp: None)  # the client, once: the cluster unreachable raises here

        def send(b: int, kmoves: dict):
            return self._kp_call(f"{what} on broker {b}", lambda kp: kp.alter_replica_log_dirs(kmoves))

        with concurrent.futures.ThreadPoolExecutor(max_workers=len(by_broker)) as pool:
            futures = {b: pool.submit(send, b, kmoves) for b, kmoves in by_broker.items()}
        out: dict[TopicPartitionReplica, str | None] = {}
        for b, fut in sorted(futures.items()):
            try:
                raw = fut.result()
            except (AuthorizationError, AuthenticationError, UnsupportedOperation):
                raise  # every broker would say the same
            except ClusterError as e:  # this broker's replicas only
                for ktpr in by_broker[b]:
                    out[TopicPartitionReplica(ktpr.topic, ktpr.partition, b)] = e.message.removeprefix(f"{what} ")
                continue
            for ktpr, err in raw.items():
                key = TopicPartitionReplica(ktpr.topic, ktpr.partition, ktpr.broker_id)
                out[key] = None if err is NoError or err is None else kp_error_name(err)
        return dict(sorted(out.items()))

    def incremental_alter_configs(self, changes: Sequence[ConfigChange]) -> None:
        """One IncrementalAlterConfigs batch per broker (``_one_broker_per_batch``). Each resource
        of a batch succeeds or fails on its own: every answer is read, and a failure after any
        accepted change is ConfigChangesPartlyMade, carrying them; later batches are not sent."""
        from confluent_kafka.admin import AlterConfigOpType
        from confluent_kafka.admin import ConfigEntry as CKEntry
        from confluent_kafka.admin import ConfigResource as CKResource

        self._check_writable("incremental_alter_configs")
        if not changes:
            return
        from kadmin.backends.config_outcomes import ConfigChangesPartlyMade

        made: list[ConfigChange] = []  # accepted so far: a later failure carries them
        grouped: dict[ConfigResource, list[ConfigChange]] = defaultdict(list)
        for c in changes:
            grouped[c.resource].append(c)
        if DEFAULT_BROKER in grouped:
            default = grouped.pop(DEFAULT_BROKER)
            self._alter_default_broker(default)
            made += default
        if not grouped:
            return
        ck = self._confluent()
        for batch in _one_broker_per_batch(sorted(grouped)):
            self._ck_knows_brokers_of(ck, batch)
            ck_resources = []
            for res in batch:
                entries = [
                    CKEntry(
                        c.name,
                        c.value if c.op is AlterOp.SET else None,
                        incremental_operation=AlterConfigOpType.SET
                        if c.op is AlterOp.SET
                        else AlterConfigOpType.DELETE,
                    )
                    for c in grouped[res]
                ]
                ck_resources.append(CKResource(_ck_restype(res.type), res.name, incremental_configs=entries))
            futures = ck.incremental_alter_configs(ck_resources, request_timeout=self.left())
            failed: KadminError | None = None
            for res, ckr in zip(batch, ck_resources, strict=True):
                try:  # each resource succeeds or fails on its own: read every answer of the batch
                    self._ck_result(futures[ckr], f"changing configs of {_ck_restype_label(ckr)} {ckr.name}")
                except KadminError as e:
                    failed = failed or e
                else:
                    made += grouped[res]
            if failed is not None:  # the batches after it are not sent
                raise ConfigChangesPartlyMade(failed, made) if made else failed

    def _ck_knows_brokers_of(self, ck, resources: Sequence[ConfigResource]) -> None:
        """librdkafka sends a broker's config request to that broker, and learns brokers only from
        Metadata (every 5 minutes, topic.metadata.refresh.interval.ms): a broker it has not seen
        since it was created (down then, back now) waited out --timeout. Read the Metadata again
        when a broker of ``resources`` is not among those it last named; best effort (the request
        then says what is wrong)."""
        from confluent_kafka import KafkaException

        wanted = {int(r.name) for r in resources if r.type is ConfigResourceType.BROKER and r.name.isdigit()}
        if not wanted or wanted <= self._ck_brokers:
            return
        try:
            self._ck_brokers = set(ck.list_topics(timeout=self.left()).brokers)
        except KafkaException as e:
            debug("metadata refresh failed: %s", e)

    def elect_leaders(self, election_type, partitions) -> Mapping[TopicPartition, str | None]:
        """ElectLeaders (kadmin.backends.admin_elect)."""
        from kadmin.backends.admin_elect import elect_leaders

        self._check_writable("elect_leaders")
        return elect_leaders(self, election_type, partitions)

    # --- kadmin's throttle records ----------------------------------------------------------
    def throttle_record_store(self):
        """kadmin's throttle records in the compacted topic ``__kadmin_throttle_records``, read
        and written over this connection (``admin_records``)."""
        from kadmin.backends.admin_records import RecordTopic
        from kadmin.throttling.stores import RECORD_TOPIC, TopicRecordStore

        return TopicRecordStore(RecordTopic(self, RECORD_TOPIC), read_only=self.read_only)

    # The cluster-wide default broker resource (name "", kafka-configs' --entity-default): neither
    # client library accepts it, so these two go as raw requests through kafka-python.
    def _describe_default_broker(self, node: int | None = None) -> dict[str, ConfigEntry]:
        """The cluster-wide default broker configs, asked of broker ``node`` (None: any)."""
        from kafka.protocol.admin.configs import DescribeConfigsRequest

        Res = DescribeConfigsRequest.DescribeConfigsResource
        req = DescribeConfigsRequest(
            resources=[Res(resource_type=4, resource_name="", configuration_keys=None)],
            include_synonyms=False,
            include_documentation=False,
        )
        what = "describing the cluster-wide default broker configs" + (
            f" (asked of broker {node})" if node is not None else ""
        )

        async def send(kp, timeout_ms: int):
            return await kp._manager.send(req, node_id=node, request_timeout_ms=timeout_ms)

        resp = (
            self._raw(req, what)
            if node is None
            else self._kp_call(what, lambda kp: kp._manager.run(send, kp, self.left_ms()))
        )
        [result] = resp.results
        if result.error_code:
            raise _default_broker_error(result.error_code, what)
        return {
            c.name: ConfigEntry(
                c.name,
                c.value,
                wire_reads.CONFIG_SOURCES.get(getattr(c, "config_source", 0), ConfigSource.UNKNOWN),
                bool(c.is_sensitive),
            )
            for c in sorted(result.configs, key=lambda c: c.name)
        }

    def _alter_default_broker(self, changes: Sequence[ConfigChange]) -> None:
        from kafka.protocol.admin.configs import IncrementalAlterConfigsRequest

        Res = IncrementalAlterConfigsRequest.AlterConfigsResource
        req = IncrementalAlterConfigsRequest(
            resources=[
                Res(
                    resource_type=4,
                    resource_name="",
                    configs=[
                        Res.AlterableConfig(
                            name=c.name,
                            config_operation=0 if c.op is AlterOp.SET else 1,
                            value=c.value if c.op is AlterOp.SET else None,
                        )
                        for c in changes
                    ],
                )
            ],
            validate_only=False,
        )
        what = "changing configs of broker <default>"
        resp = self._raw(req, what)
        for r in resp.responses:
            if r.error_code:
                raise _default_broker_error(r.error_code, what, r.error_message)


def _log_dirs_answer(b: int, resp, wanted: set[str] | None) -> BrokerLogDirs:
    """One broker's DescribeLogDirs answer (or the exception asking it raised) as kadmin's model."""
    if isinstance(resp, Exception):
        if type(resp).__name__ == "UnknownBrokerIdError":  # still unknown after a fresh Metadata: gone
            return BrokerLogDirs(broker=b, error=DOWN_ERROR)
        return BrokerLogDirs(broker=b, error=describe_exception(resp))
    top = getattr(resp, "error_code", 0) or 0
    if top == 31:  # CLUSTER_AUTHORIZATION_FAILED: the principal's, so every broker's
        raise AuthorizationError(
            f"describing log directories: {error_name(top)} from broker {b}",
            error_code=top,
            hint="the principal needs DESCRIBE on CLUSTER",
        )
    if top:
        return BrokerLogDirs(broker=b, error=f"{error_name(top)} from broker {b}")
    dirs = []
    for r in resp.results:
        replicas = []
        for t in r.topics or ():
            if wanted is not None and t.name not in wanted:
                continue
            for p in t.partitions:
                replicas.append(
                    ReplicaInfo(
                        topic=t.name,
                        partition=p.partition_index,
                        size=p.partition_size,
                        offset_lag=p.offset_lag,
                        is_future=bool(p.is_future_key),
                    )
                )
        replicas.sort(key=lambda x: (x.topic, x.partition, x.is_future))
        total = getattr(r, "total_bytes", None)
        usable = getattr(r, "usable_bytes", None)
        dirs.append(
            LogDir(
                broker=b,
                path=r.log_dir,
                error=java_class_name(r.error_code) if r.error_code else None,
                total_bytes=None if total is None or total < 0 else total,
                usable_bytes=None if usable is None or usable < 0 else usable,
                cordoned=bool(getattr(r, "is_cordoned", False)),
                replicas=tuple(replicas),
            )
        )
    dirs.sort(key=lambda d: d.path)
    return BrokerLogDirs(broker=b, log_dirs=tuple(dirs))


def _default_broker_error(code: int, what: str, message: str | None = None) -> ClusterError:
    name = error_name(code)
    text = f"{what}: {name}" + (f" ({message})" if message else "")
    cls = AuthorizationError if name.endswith("AUTHORIZATION_FAILED") else ClusterError
    return cls(text, error_code=code, hint=permission_hint(name, what))


def _one_broker_per_batch(resources: Sequence[ConfigResource]) -> list[list[ConfigResource]]:
    """Split config resources so no batch holds more than one BROKER resource (librdkafka's
    rule: broker configs go to that broker); topics ride in the first batch."""
    topics = [r for r in resources if r.type is ConfigResourceType.TOPIC]
    brokers = [r for r in resources if r.type is ConfigResourceType.BROKER]
    if not brokers:
        return [topics] if topics else []
    return [topics + brokers[:1]] + [[b] for b in brokers[1:]]


def _ck_timed_out(fut) -> bool:
    """A done ListOffsets future that holds no answer: librdkafka (2.16) resolves a partition
    whose leader did not answer within ``request_timeout`` with offset -1001 (OFFSET_INVALID)
    and no error, as if it were a result. A leader's answer to "latest" is never negative."""
    if fut.cancelled() or fut.exception() is not None:
        return False
    offset = getattr(fut.result(), "offset", 0)
    return isinstance(offset, int) and offset < 0


class _CkLeaders:
    """Partitions' leaders as confluent-kafka described them, and those leaders' addresses."""

    def __init__(self) -> None:
        self.leaders: dict[TopicPartition, int] = {}
        self.brokers: dict[int, str] = {}  # "host:port"


def _ck_leader(md: _CkLeaders | None, tp: TopicPartition) -> int:
    """``tp``'s leader in ``md``, or -1 (unknown)."""
    return md.leaders.get(tp, -1) if md is not None else -1


def _ck_leaders_text(md: _CkLeaders | None, tps: Sequence[TopicPartition]) -> str:
    """The leaders of ``tps`` ("broker 1 at host:port", ...) in ``md``, or "" when one is unknown."""
    ids = sorted({_ck_leader(md, tp) for tp in tps})
    if md is None or not ids or ids[0] < 0:
        return ""
    return ", ".join(f"broker {i} at {md.brokers[i]}" if i in md.brokers else f"broker {i}" for i in ids)


def _ck_restype_of(ckr):
    return ckr.restype


def _ck_restype_label(ckr) -> str:
    return "broker" if ckr.restype_int == 4 else "topic"


def _ck_restype(t: ConfigResourceType):
    from confluent_kafka.admin import ResourceType

    return ResourceType.TOPIC if t is ConfigResourceType.TOPIC else ResourceType.BROKER


def _source_name(source) -> str:
    name = getattr(source, "name", None)
    if name:
        return name
    from confluent_kafka.admin import ConfigSource as CKSource

    try:
        return CKSource(source).name
    except ValueError:
        return "UNKNOWN"
