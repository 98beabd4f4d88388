"""ZooKeeper mode: the sandbox's brokers and controller live in a real ZooKeeper, in Kafka's
znode formats (core/.../zk/ZkData.scala), so ZooKeeper-mode tools see a Kafka 2.x-3.x cluster.

- each broker registers ``/brokers/ids/<id>`` (ephemeral, its own session) and leaves with it;
- the controller is elected by one multi-op creating ``/controller`` and bumping
  ``/controller_epoch``; it re-runs when ``/controller`` disappears;
- topics and partition state are written as the model changes;
- the controller watches ``/admin/reassign_partitions`` for creation only, carries it out
  (unknown partitions dropped, nothing else validated, a node with keys other than
  topic/partition/replicas ignored and left in place), and looks at it again whenever a
  reassignment completes, however it was started, and when AlterPartitionReassignments supersedes
  its entries (Kafka's maybeRemoveFromZkReassignment): it drops what is done, writes the rest back
  and deletes the node when nothing is left (a node its parser rejects reads as empty). Looking
  checks the node with an ExistsRequest, which re-arms the watch: a node deleted by hand leaves
  the controller unarmed until then, or until the next election;
- brokers apply config changes announced by ``/config/changes/config_change_<seq>``.

Kazoo callbacks run on kazoo's threads and reach the model through ``engine.call``; the model's
listener hooks run on the loop thread and only issue asynchronous writes.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from kadmin import errors
from kadmin.model import TopicPartition
from kadmin.sandbox import controller
from kadmin.sandbox.controller import ControllerError

log = logging.getLogger("kadmin.sandbox.zookeeper")

REASSIGN = "/admin/reassign_partitions"
PREFERRED = "/admin/preferred_replica_election"
CHANGES = "/config/changes"
PERSISTENT = (
    "/brokers/ids",
    "/brokers/topics",
    "/brokers/seqid",
    "/config/topics",
    "/config/brokers",
    "/config/changes",
    "/admin/delete_topics",
    "/isr_change_notification",
    "/log_dir_event_notification",
)


def _json(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def topic_id_text(u: uuid.UUID) -> str:
    """Kafka's Uuid.toString: URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(u.bytes).decode().rstrip("=")


def topic_id_of(text: object) -> uuid.UUID | None:
    """Kafka's Uuid.fromString; None for a missing or malformed id (a topic znode before
    version 3 has none: the controller gives the topic one, as Kafka's does)."""
    if not isinstance(text, str):
        return None
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        return uuid.UUID(bytes=raw)
    except ValueError:
        return None


def _brokers(value: object) -> list[int]:
    """A list of broker ids as a znode holds it; anything else is none."""
    if not isinstance(value, list):
        return []
    return [int(b) for b in value if isinstance(b, int) and not isinstance(b, bool)]


class ZooKeeperMode:
    def __init__(self, engine, connect: str):
        self.engine = engine
        self.connect = connect
        self.zk: Any = (
            None  # a KazooClient once started: the controller's and brokers' shared session for persistent znodes
        )
        self.sessions: dict[int, Any] = {}  # broker id -> its session (ephemeral registration)
        self.controller_epoch = 0
        self._created: set[str] = set()
        # Writes of the model still on their way to ZooKeeper: a create with makepath creates the
        # parents first, so its node lands after a later sync; settle() waits for these too.
        self._inflight: set = set()
        self._inflight_lock = threading.Lock()
        self._dirty_topics: set[str] = set()
        self._dirty_partitions: set[TopicPartition] = set()
        self._flush_scheduled = False
        self._seen_changes: set[str] = set()
        self._elect_lock = threading.Lock()
        self._io = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kadmin-zk")
        self._closing = False
        self._activity = 0  # bumped by every watch callback, queued task and flush; see settle()

    # --- lifecycle ---

    def _client(self, hosts: str | None = None):
        from kazoo.client import KazooClient

        client = KazooClient(hosts=hosts or self.connect, timeout=10, connection_retry={"max_tries": 3, "delay": 0.2})
        try:
            client.start(timeout=5)
        except Exception as e:
            with contextlib.suppress(Exception):
                client.close()
            raise errors.ConnectionFailed(
                f"cannot reach ZooKeeper at {self.connect}: {e or type(e).__name__}"
            ) from None
        return client

    def start(self) -> None:
        host, slash, chroot = self.connect.partition("/")
        if slash and chroot.strip("/"):
            # Kafka creates its chroot when it is missing.
            root = self._client(host)
            root.ensure_path("/" + chroot.strip("/"))
            root.stop()
            root.close()
        self.zk = self._client()
        self._refuse_a_running_cluster()
        for path in PERSISTENT:
            self.zk.ensure_path(path)
        self._cluster_id()
        self.engine.call(self._load_existing)
        cluster = self.engine.cluster
        cluster.listeners.append(self)
        self.engine.call(self._mark_all_dirty)
        for broker_id in sorted(cluster.brokers):
            self.broker_started(broker_id)
        self._elect()
        self.zk.ChildrenWatch(CHANGES, self._on_config_changes)
        self.zk.DataWatch("/controller", self._on_controller)
        self.zk.DataWatch(PREFERRED, self._on_preferred)

    def stop(self) -> None:
        self._closing = True
        # No "connection dropped" noise while our sessions close; the level is put back after,
        # so other kazoo users in the process (and tests capturing their logs) are unaffected.
        kazoo_log = logging.getLogger("kazoo.client")
        level = kazoo_log.level
        kazoo_log.setLevel(logging.ERROR)
        try:
            self._io.shutdown(wait=True)
            for client in [*self.sessions.values(), self.zk]:
                try:
                    client.stop()
                    client.close()
                except Exception:
                    pass
            self.sessions.clear()
        finally:
            kazoo_log.setLevel(level)

    def _refuse_a_running_cluster(self) -> None:
        """Live brokers in ``/brokers/ids`` (or a ``/controller``) mean the chroot belongs to a
        running cluster. A Kafka broker joins one unless its id is taken; the sandbox's brokers
        would fight its controller over the same topics, so it refuses before writing anything."""
        from kazoo.exceptions import NoNodeError

        try:
            live = sorted(int(i) for i in self.zk.get_children("/brokers/ids") if i.isdigit())
        except NoNodeError:
            live = []
        try:
            data, _ = self.zk.get("/controller")
            controller_id = json.loads(data)["brokerid"]
        except NoNodeError:
            controller_id = None
        except (ValueError, KeyError, TypeError):
            controller_id = "unreadable"
        if not live and controller_id is None:
            return
        held = []
        if live:
            held.append(f"brokers {', '.join(map(str, live))} registered in /brokers/ids")
        if controller_id is not None:
            held.append(f"controller: broker {controller_id}")
        message = f"ZooKeeper {self.connect} belongs to a running Kafka cluster ({'; '.join(held)})"
        taken = [i for i in live if i in self.engine.cluster.brokers]
        if taken:
            message += (
                f": a Kafka broker with id {taken[0]} would fail to start there too (Error while creating "
                f"ephemeral at /brokers/ids/{taken[0]}, node already exists)"
            )
        else:
            message += ": the sandbox does not join another cluster"
        raise errors.UsageError(
            message + f"; give the sandbox a chroot of its own, e.g. --zookeeper {self._other_chroot()}"
        )

    def _other_chroot(self) -> str:
        host, _, chroot = self.connect.partition("/")
        return f"{host}/{chroot.strip('/') or 'kadmin-sandbox'}-2"

    def _cluster_id(self) -> None:
        """Adopt the cluster id already in ZooKeeper, as a broker joining a cluster does."""
        cluster = self.engine.cluster
        data, _ = self.zk.get("/cluster/id") if self.zk.exists("/cluster/id") else (None, None)
        if data:
            cluster.cluster_id = json.loads(data)["id"]
        else:
            self.zk.create("/cluster/id", _json({"version": "1", "id": cluster.cluster_id}), makepath=True)

    def _load_existing(self) -> None:
        """Topics and configs already in ZooKeeper become part of the model (sizes start at 0),
        each keeping the topic id its znode holds; partitions carry on from the state their
        znodes hold (leader epochs, reassignments in flight), as a new controller does."""
        cluster = self.engine.cluster
        for name in self.zk.get_children("/brokers/topics"):
            data, _ = self.zk.get(f"/brokers/topics/{name}")
            doc = json.loads(data)
            parts = doc.get("partitions", {})
            topic = controller.create_topic(
                cluster, name, {int(p): r for p, r in parts.items()}, topic_id=topic_id_of(doc.get("topic_id"))
            )
            self._created.add(f"/brokers/topics/{name}")
            for index, p in sorted(topic.partitions.items()):
                state = self._read_state(f"/brokers/topics/{name}/partitions/{index}/state")
                if state is None:
                    continue
                controller.resume_partition(
                    cluster,
                    p,
                    leader=state["leader"],
                    isr=state["isr"],
                    leader_epoch=state["leader_epoch"],
                    adding=_brokers((doc.get("adding_replicas") or {}).get(str(index))),
                    removing=_brokers((doc.get("removing_replicas") or {}).get(str(index))),
                )
        for name in self.zk.get_children("/config/topics"):
            if name in cluster.topics:
                cluster.topics[name].configs = self._read_config(f"/config/topics/{name}")
        for name in self.zk.get_children("/config/brokers"):
            key = "" if name == "<default>" else name
            cluster.broker_configs[key] = self._read_config(f"/config/brokers/{name}")
        self._seen_changes.update(self.zk.get_children(CHANGES))

    def _read_state(self, path: str) -> dict | None:
        """A partition's state znode (leader, isr, leader_epoch), None when missing or unreadable."""
        from kazoo.exceptions import NoNodeError

        try:
            data, _ = self.zk.get(path)
            doc = json.loads(data)
            return {"leader": int(doc["leader"]), "isr": _brokers(doc["isr"]), "leader_epoch": int(doc["leader_epoch"])}
        except (NoNodeError, ValueError, KeyError, TypeError):
            return None

    def _mark_all_dirty(self) -> None:
        for p in self.engine.cluster.all_partitions():
            self.partition_changed(p.tp, topic_changed=True)

    def _submit(self, fn, *args):
        """Queue work for the controller's thread (one at a time, in order)."""
        self._activity += 1
        return self._io.submit(fn, *args)

    def settle(self, timeout: float = 30.0) -> None:
        """Return once the controller and brokers have acted on every ZooKeeper change made
        before the call (by anyone) and their own writes have reached ZooKeeper.

        Watches fire on kazoo's thread and the controller works on its own, so a test that
        writes a znode and then advances the manual clock would otherwise race them. Each pass:
        the loop thread's pending flush; a ``sync`` round trip on the shared session (ZooKeeper
        delivers a watch event before the reply to any later request of that session, so every
        notification is then queued behind it on kazoo's single callback thread, and the
        flush's writes, sent earlier on the same session, are applied); a marker behind those
        callbacks; a no-op behind the controller's queued tasks. Passes repeat until one causes
        no new activity. With ZooKeeper unreachable there is nothing to wait for."""
        from kazoo.exceptions import KazooException
        from kazoo.protocol.states import Callback

        if self._closing or self.zk is None or not self.zk.connected:
            return  # ZooKeeper unreachable (a fault under test): no notification can come
        deadline = time.monotonic() + timeout

        def left() -> float:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"the ZooKeeper-mode controller did not settle within {timeout}s")
            return remaining

        while True:
            before = self._activity
            self.engine.call(lambda: None, timeout=left())
            try:
                self.zk.sync_async("/").get(timeout=left())
            except (KazooException, self.zk.handler.timeout_exception):
                return  # ZooKeeper unreachable (a fault under test): no notification can come
            marker = threading.Event()
            self.zk.handler.dispatch_callback(Callback("watch", marker.set, ()))
            if not marker.wait(left()):
                left()
            self._io.submit(lambda: None).result(left())
            with self._inflight_lock:
                inflight = list(self._inflight)
            for result in inflight:  # writes whose parents were created first land after the sync
                result.wait(left())
            if self._activity == before and not inflight:
                return

    # --- brokers and the controller ---

    def _broker_json(self, broker_id: int) -> bytes:
        b = self.engine.cluster.brokers[broker_id]
        security = self.engine.security
        protocol = security.protocol if security is not None else "PLAINTEXT"  # also the listener's name
        doc = {
            "version": 5,
            "host": b.host,
            "port": b.port,
            "endpoints": [f"{protocol}://{b.host}:{b.port}"],
            "jmx_port": -1,
            "timestamp": str(int(time.time() * 1000)),
            "listener_security_protocol_map": {protocol: protocol},
            "features": {},
        }
        if b.rack:
            doc["rack"] = b.rack
        return _json(doc)

    def broker_started(self, broker_id: int) -> None:
        from kazoo.exceptions import NodeExistsError

        client = self._client()
        try:
            client.create(f"/brokers/ids/{broker_id}", self._broker_json(broker_id), ephemeral=True)
        except NodeExistsError:  # registered by another cluster since start() looked
            client.stop()
            client.close()
            raise errors.UsageError(
                f"Error while creating ephemeral at /brokers/ids/{broker_id}, node already exists: another "
                f"cluster's broker {broker_id} is registered in ZooKeeper {self.connect}; give the sandbox a "
                f"chroot of its own, e.g. --zookeeper {self._other_chroot()}"
            ) from None
        self.sessions[broker_id] = client
        if self.engine.cluster.controller_id == -1:
            self._elect()

    def broker_stopped(self, broker_id: int) -> None:
        client = self.sessions.pop(broker_id, None)
        if client is not None:
            client.stop()
            client.close()

    def _elect(self) -> None:
        """Each live broker in turn tries the election multi-op; the first to win is controller."""
        from kazoo.exceptions import NodeExistsError

        with self._elect_lock:
            if self._closing or self.zk.exists("/controller"):
                return
            for broker_id in sorted(self.sessions):
                client = self.sessions[broker_id]
                stat = self.zk.exists("/controller_epoch")
                tx = client.transaction()
                if stat is None:
                    epoch = 1
                    tx.create("/controller_epoch", b"1")
                else:
                    data, stat = self.zk.get("/controller_epoch")
                    epoch = int(data or b"0") + 1
                    tx.set_data("/controller_epoch", str(epoch).encode(), version=stat.version)
                tx.create(
                    "/controller",
                    _json({"version": 1, "brokerid": broker_id, "timestamp": str(int(time.time() * 1000))}),
                    ephemeral=True,
                )
                results = tx.commit()
                if any(isinstance(r, Exception) for r in results):
                    if any(isinstance(r, NodeExistsError) for r in results):
                        return
                    continue
                self.controller_epoch = epoch
                self.engine.call(setattr, self.engine.cluster, "controller_id", broker_id)
                self.engine.call(self._mark_all_dirty)
                # A new controller reads a pending reassignment at once and watches for the next.
                self._arm_reassign()
                return
            self.engine.call(setattr, self.engine.cluster, "controller_id", -1)

    def _on_controller(self, data, stat, event=None):
        self._activity += 1
        if data is None and not self._closing:
            self._submit(self._elect)

    # --- writing the model to ZooKeeper (loop thread) ---

    def partition_changed(self, tp: TopicPartition, *, topic_changed: bool = False) -> None:
        self._dirty_partitions.add(tp)
        if topic_changed:
            self._dirty_topics.add(tp.topic)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            self._activity += 1
            self.engine.loop.call_soon(self._flush)

    def _track(self, result) -> None:
        """Count ``result`` as in flight until it completes (settle() waits for it)."""
        with self._inflight_lock:
            self._inflight.add(result)

        def done(_result):
            with self._inflight_lock:
                self._inflight.discard(result)

        result.rawlink(done)

    def _write(self, path: str, data: bytes) -> None:
        if path in self._created:
            self._track(self.zk.set_async(path, data))
        else:
            self._created.add(path)
            result = self.zk.create_async(path, data, makepath=True)

            def exists_already(async_result, path=path, data=data):
                from kazoo.exceptions import NodeExistsError

                try:
                    async_result.get()
                except NodeExistsError:
                    self._track(self.zk.set_async(path, data))
                except Exception:
                    log.exception("writing %s", path)

            result.rawlink(exists_already)  # linked first: a follow-up set is tracked before this ends
            self._track(result)

    def _flush(self) -> None:
        self._flush_scheduled = False
        if self._closing:
            return
        cluster = self.engine.cluster
        for name in sorted(self._dirty_topics):
            t = cluster.topics.get(name)
            if t is None:
                continue
            ps = sorted(t.partitions.values(), key=lambda p: p.index)
            if f"/brokers/topics/{name}" not in self._created:
                # A new topic: Kafka's AdminZkClient writes its config znode first, even empty.
                self._write(f"/config/topics/{name}", _json({"version": 1, "config": dict(t.configs)}))
            self._write(
                f"/brokers/topics/{name}",
                _json(
                    {
                        "version": 3,
                        "partitions": {str(p.index): p.replicas for p in ps},
                        "adding_replicas": {str(p.index): p.adding for p in ps if p.adding},
                        "removing_replicas": {str(p.index): p.removing for p in ps if p.removing},
                        "topic_id": topic_id_text(t.topic_id),
                    }
                ),
            )
        for tp in sorted(self._dirty_partitions):
            p = cluster.partition(tp)
            if p is None:
                continue
            self._write(
                f"/brokers/topics/{tp.topic}/partitions/{tp.partition}/state",
                _json(
                    {
                        "controller_epoch": self.controller_epoch,
                        "leader": p.leader,
                        "version": 1,
                        "leader_epoch": p.leader_epoch,
                        "isr": p.isr,
                    }
                ),
            )
        self._dirty_topics.clear()
        self._dirty_partitions.clear()

    def topic_deleted(self, name: str) -> None:
        self._created = {
            p
            for p in self._created
            if not p.startswith(f"/brokers/topics/{name}/")
            and p not in (f"/brokers/topics/{name}", f"/config/topics/{name}")
        }
        self._submit(self._delete_topic_nodes, name)

    def _delete_topic_nodes(self, name: str) -> None:
        for path in (f"/brokers/topics/{name}", f"/config/topics/{name}"):
            with contextlib.suppress(Exception):
                self.zk.delete(path, recursive=True)

    def config_written(self, entity_type: str, name: str) -> None:
        """A config changed through the AdminClient path: store it and announce it, as Kafka's
        AdminZkClient does."""
        cluster = self.engine.cluster
        if entity_type == "topics":
            config = dict(cluster.topics[name].configs)
        else:
            config = dict(cluster.broker_configs.get("" if name == "<default>" else name, {}))
        self._submit(self._write_config, entity_type, name, config)

    def _write_config(self, entity_type: str, name: str, config: dict) -> None:
        path = f"/config/{entity_type}/{name}"
        data = _json({"version": 1, "config": config})
        if self.zk.exists(path):
            self.zk.set(path, data)
        else:
            self.zk.create(path, data, makepath=True)
        self.zk.create(
            f"{CHANGES}/config_change_", _json({"version": 2, "entity_path": f"{entity_type}/{name}"}), sequence=True
        )

    def log_dir_failed(self, broker_id: int) -> None:
        """The broker announces a failed disk; the controller handles it (in the model) and deletes
        the notification, as Kafka's controller does."""

        def run():
            path = self.zk.create(
                "/log_dir_event_notification/log_dir_event_",
                _json({"version": 1, "broker": broker_id, "event": 1}),
                sequence=True,
            )
            self.zk.delete(path)

        self._submit(run)

    # --- config changes (brokers act on the notification) ---

    def _read_config(self, path: str) -> dict[str, str]:
        try:
            data, _ = self.zk.get(path)
        except Exception:
            return {}
        return dict(json.loads(data or b"{}").get("config", {}))

    def _on_config_changes(self, children) -> bool | None:  # False ends kazoo's watch
        self._activity += 1
        if self._closing:
            return False
        for child in sorted(children):
            if child in self._seen_changes:
                continue
            self._seen_changes.add(child)
            try:
                data, _ = self.zk.get(f"{CHANGES}/{child}")
                entity = json.loads(data)["entity_path"]
            except Exception:
                continue
            kind, _, name = entity.partition("/")
            config = self._read_config(f"/config/{entity}")
            if kind == "topics":
                self.engine.call(self._apply_topic_config, name, config)
            elif kind == "brokers":
                key = "" if name == "<default>" else name
                self.engine.call(self.engine.cluster.broker_configs.__setitem__, key, config)
        return None

    def _apply_topic_config(self, name: str, config: dict) -> None:
        topic = self.engine.cluster.topics.get(name)
        if topic is not None:
            topic.configs = config

    # --- /admin/reassign_partitions ---

    def _arm_reassign(self) -> None:
        if self._watch_reassign() is not None:
            self._submit(self._process_reassign_node)

    def _watch_reassign(self):
        """An ExistsRequest on the node with the controller's watch: Kafka's ZooKeeperClient sets
        the watch on every exists or read of a path its controller has a handler for."""
        return self.zk.exists(REASSIGN, watch=self._on_reassign_event)

    def _on_reassign_event(self, event) -> None:
        from kazoo.protocol.states import EventType

        self._activity += 1
        if event.type == EventType.CREATED and not self._closing:
            self._submit(self._process_reassign_node)
        # Any other event consumes the one-shot watch: the controller stays unarmed until it
        # next looks at the node.

    @staticmethod
    def _parse_reassign_node(data: bytes) -> dict[TopicPartition, list[int]] | None:
        """The node's partitions, or None when Kafka's parser rejects it ("Ignoring partition
        reassignment due to invalid json"), as it does a node with keys other than
        topic/partition/replicas."""
        try:
            entries = json.loads(data)["partitions"]
            if any(set(e) - {"topic", "partition", "replicas"} for e in entries):
                raise ValueError("unexpected keys")
            return {TopicPartition(e["topic"], int(e["partition"])): [int(b) for b in e["replicas"]] for e in entries}
        except (ValueError, KeyError, TypeError, AttributeError):
            return None

    def _process_reassign_node(self) -> None:
        try:
            data, _ = self.zk.get(REASSIGN, watch=self._on_reassign_event)
        except Exception:
            return
        wanted = self._parse_reassign_node(data)
        if wanted is None:
            log.warning("Ignoring partition reassignment due to invalid json: %r", data)
            return
        known = self.engine.call(lambda: {tp for tp in wanted if self.engine.cluster.partition(tp) is not None})
        dropped = set(wanted) - known
        for tp, replicas in wanted.items():
            if tp not in known:
                continue
            try:
                self.engine.call(controller.alter_reassignment, self.engine.cluster, tp, replicas, validate=False)
            except ControllerError:
                dropped.add(tp)
        if dropped:
            self._remove_from_node(dict.fromkeys(dropped))

    def reassignment_started(self, tps) -> None:
        """AlterPartitionReassignments supersedes the node's entries for these partitions
        (processApiPartitionReassignment), whatever replicas the node gives them."""
        self._submit(self._remove_from_node, dict.fromkeys(tps))

    def reassignment_completed(self, tp: TopicPartition) -> None:
        """Kafka's removePartitionFromReassigningPartitions, for every reassignment however it was
        started: the node loses the partition if it lists it with the replicas it now has."""
        p = self.engine.cluster.partition(tp)
        replicas = list(p.replicas) if p is not None else None
        # Kafka's controller writes the finished partition's znodes before it rewrites the reassign
        # node: a tool that sees the node gone must not still read adding/removing replicas. The
        # flush's writes go out now, ahead of the removal, on the same (ordered) session.
        if self.engine.in_loop() and self._flush_scheduled:
            self._flush()
        self._submit(self._remove_from_node, {tp: replicas})

    def _remove_from_node(self, done: dict[TopicPartition, list[int] | None]) -> None:
        """Kafka's maybeRemoveFromZkReassignment: if the node exists (an ExistsRequest, which
        re-arms the controller's watch, also after a node deleted by hand), read it, drop the
        partitions ``done`` names (with these replicas, or any when None), write the rest back,
        or delete it (and watch for the next) when nothing is left. A node Kafka's parser
        rejects reads as empty, so it is deleted."""
        from kazoo.exceptions import NoNodeError

        if self._watch_reassign() is None:
            return
        try:
            data, stat = self.zk.get(REASSIGN, watch=self._on_reassign_event)
        except NoNodeError:
            self._watch_reassign()
            return
        wanted = self._parse_reassign_node(data) or {}

        def finished(tp: TopicPartition, replicas: list[int]) -> bool:
            return tp in done and done[tp] in (None, replicas)

        rest = [
            {"topic": tp.topic, "partition": tp.partition, "replicas": replicas}
            for tp, replicas in wanted.items()
            if not finished(tp, replicas)
        ]
        try:
            if rest:
                self.zk.set(REASSIGN, _json({"version": 1, "partitions": rest}), version=stat.version)
                return
            self.zk.delete(REASSIGN, version=stat.version)
        except NoNodeError:
            self._watch_reassign()
            return
        except Exception:  # changed under us (BadVersion): the next completion looks again
            log.warning("the reassign node changed while the controller updated it")
            return
        self._arm_reassign()

    # --- /admin/preferred_replica_election ---

    def _on_preferred(self, data, stat, event=None):
        self._activity += 1
        if data is None or self._closing:
            return
        self._submit(self._preferred_election, data)

    def _preferred_election(self, data: bytes) -> None:
        try:
            entries = json.loads(data)["partitions"]
        except (ValueError, KeyError):
            entries = []

        def run():
            for e in entries:
                p = self.engine.cluster.partition_by(e.get("topic"), int(e.get("partition", -1)))
                if p is not None:
                    controller.elect_preferred(self.engine.cluster, p)
            self._flush()  # the new states reach ZooKeeper before the node goes, as Kafka's do

        self.engine.call(run)
        with contextlib.suppress(Exception):
            self.zk.delete(PREFERRED)
