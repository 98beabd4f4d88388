"""The sandbox's listener security, through kafka-python and confluent-kafka directly: TLS, SASL
(PLAIN, SCRAM-SHA-256/512) over SASL_PLAINTEXT and SASL_SSL, Kafka's answers to a wrong password
and to requests before authentication, and CLUSTER_AUTHORIZATION_FAILED for principals without
cluster permissions (with nothing changed)."""

from __future__ import annotations

import base64
import socket
import struct
import subprocess
import sys
import time

import pytest

from kadmin.sandbox import Sandbox
from kadmin.sandbox.security import ScramServer, scram_credential
from tests.support.tls import make_tls_files

USERS = {"admin": "admin-pw-1", "reader": "reader-pw-2", "nobody": "nobody-pw-3"}
MECHANISMS = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]


@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    try:
        return make_tls_files(tmp_path_factory.mktemp("tls"))
    except (RuntimeError, OSError) as e:
        pytest.skip(f"cannot make test certificates: {e}")


def _start(**kwargs) -> Sandbox:
    sb = Sandbox(brokers=2, log_dirs=2, manual_clock=True, super_users={"admin"},
                 cluster_acls={"reader": {"DESCRIBE", "DESCRIBE_CONFIGS"}}, **kwargs).start()
    sb.create_topic("orders", assignment={0: [0, 1], 1: [1, 0]}, size_bytes=1000)
    return sb


@pytest.fixture(scope="module")
def sasl_ssl(tls):
    sb = _start(tls=(str(tls.cert), str(tls.key)), sasl_users=USERS)
    yield sb
    sb.stop()


@pytest.fixture(scope="module")
def sasl_plaintext():
    sb = _start(sasl_users=USERS)
    yield sb
    sb.stop()


def _kp(sb, user, mechanism, tls=None, password=None, **extra):
    from kafka import KafkaAdminClient

    kw = dict(bootstrap_servers=sb.bootstrap, security_protocol=sb.security_protocol, sasl_mechanism=mechanism,
              sasl_plain_username=user, sasl_plain_password=password or USERS[user], request_timeout_ms=5000,
              bootstrap_timeout_ms=5000)
    if tls is not None:
        kw["ssl_cafile"] = str(tls)
    kw.update(extra)
    return KafkaAdminClient(**kw)


def _ck(sb, user, mechanism, tls=None, password=None):
    from confluent_kafka.admin import AdminClient

    conf = {"bootstrap.servers": sb.bootstrap, "security.protocol": sb.security_protocol.lower(),
            "sasl.mechanism": mechanism, "sasl.username": user, "sasl.password": password or USERS[user]}
    if tls is not None:
        conf["ssl.ca.location"] = str(tls)
    return AdminClient(conf)


# --- SCRAM itself ---


def test_scram_sha_256_matches_rfc_7677_example():
    """RFC 7677 section 3: the server's messages and its signature, byte for byte."""
    cred = scram_credential("SCRAM-SHA-256", "pencil", salt=base64.b64decode("W22ZaJ0SNY7soEsUEjb6gQ=="))
    server = ScramServer("SCRAM-SHA-256", {"user": cred}, server_nonce="%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0")
    first = server.step(b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO")
    assert first == b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
    final = server.step(b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                        b"p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
    assert final == b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
    assert server.complete and server.username == "user"


def test_scram_refuses_unknown_users_and_bad_proofs_alike():
    """An unknown user and a wrong proof get the same message, so users cannot be probed."""
    from kadmin.sandbox.security import AuthenticationFailed

    creds = {"alice": scram_credential("SCRAM-SHA-512", "right")}
    expected = ("Authentication failed during authentication due to invalid credentials with SASL mechanism "
                "SCRAM-SHA-512")
    with pytest.raises(AuthenticationFailed) as unknown:
        ScramServer("SCRAM-SHA-512", creds).step(b"n,,n=mallory,r=abc")
    server = ScramServer("SCRAM-SHA-512", creds, server_nonce="xyz")
    server.step(b"n,,n=alice,r=abc")
    with pytest.raises(AuthenticationFailed) as wrong:
        server.step(b"c=biws,r=abcxyz,p=" + base64.b64encode(b"\0" * 64))
    assert str(unknown.value) == str(wrong.value) == expected
    assert not server.complete


# --- authentication through both libraries ---


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("listener", ["sasl_plaintext", "sasl_ssl"])
def test_both_libraries_authenticate(listener, mechanism, request, tls):
    sb = request.getfixturevalue(listener)
    ca = tls.ca if listener == "sasl_ssl" else None
    admin = _kp(sb, "admin", mechanism, ca)
    try:
        dirs = admin.describe_log_dirs()
        assert sorted(entry["broker"] for entry in dirs) == [0, 1]
        assert all(entry["log_dirs"] for entry in dirs)
        # Metadata advertises the listener kadmin connected to: same host and ports.
        brokers = {b.node_id: (b.host, b.port) for b in admin._manager.cluster.brokers()}
        assert brokers == {i: ("127.0.0.1", p) for i, p in sb.ports.items()}
    finally:
        admin.close()
    ck = _ck(sb, "admin", mechanism, ca)
    md = ck.list_topics(timeout=10)
    assert "orders" in md.topics
    assert {b.id: b.port for b in md.brokers.values()} == sb.ports
    described = ck.describe_cluster(request_timeout=10).result(timeout=10)  # DescribeCluster agrees
    assert {n.id: (n.host, n.port) for n in described.nodes} == {i: ("127.0.0.1", p) for i, p in sb.ports.items()}


def test_ssl_listener_and_a_wrong_ca(tls):
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient
    from kafka import KafkaAdminClient
    from kafka.errors import KafkaError

    sb = Sandbox(brokers=1, tls=(str(tls.cert), str(tls.key))).start()
    try:
        assert sb.security_protocol == "SSL"
        admin = KafkaAdminClient(bootstrap_servers=sb.bootstrap, security_protocol="SSL", ssl_cafile=str(tls.ca),
                                 request_timeout_ms=5000)
        assert admin.describe_log_dirs()[0]["broker"] == 0
        admin.close()
        ck = AdminClient({"bootstrap.servers": sb.bootstrap, "security.protocol": "ssl", "ssl.ca.location": str(tls.ca)})
        assert ck.list_topics(timeout=10).brokers
        started = time.monotonic()
        with pytest.raises(KafkaError):
            KafkaAdminClient(bootstrap_servers=sb.bootstrap, security_protocol="SSL", ssl_cafile=str(tls.other_ca),
                             request_timeout_ms=1500, bootstrap_timeout_ms=1500)
        errors = []
        wrong = AdminClient({"bootstrap.servers": sb.bootstrap, "security.protocol": "ssl",
                             "ssl.ca.location": str(tls.other_ca), "error_cb": errors.append})
        with pytest.raises(KafkaException):
            wrong.list_topics(timeout=1.5)
        wrong.poll(0)
        assert any(e.name() == "_SSL" for e in errors), errors
        assert time.monotonic() - started < 10
        del ck, wrong  # librdkafka clients retry in the background until collected
    finally:
        sb.stop()


# --- Kafka's answers on the wire ---


def _send(sock, request, version, correlation_id):
    request.with_header(correlation_id=correlation_id, client_id="test")
    frame = bytes(request.encode(version=version, header=True))
    sock.sendall(struct.pack(">i", len(frame)) + frame)
    head = sock.recv(4, socket.MSG_WAITALL)
    if len(head) < 4:
        return None
    (n,) = struct.unpack(">i", head)
    return type(request).__mro__[0], sock.recv(n, socket.MSG_WAITALL)


def _decode(response_cls, data, version):
    return response_cls.decode(data, version=version, header=True)


def test_wrong_password_gets_kafkas_error_then_the_connection_closes(sasl_plaintext):
    from kafka.protocol.sasl import (SaslAuthenticateRequest, SaslAuthenticateResponse, SaslHandshakeRequest,
                                     SaslHandshakeResponse)

    with socket.create_connection(("127.0.0.1", sasl_plaintext.ports[0]), timeout=5) as s:
        _, data = _send(s, SaslHandshakeRequest(mechanism="PLAIN"), 1, 1)
        hs = _decode(SaslHandshakeResponse, data, 1)
        assert hs.error_code == 0 and set(hs.mechanisms) == set(MECHANISMS)
        _, data = _send(s, SaslAuthenticateRequest(auth_bytes=b"\0admin\0wrong"), 2, 2)
        auth = _decode(SaslAuthenticateResponse, data, 2)
        assert (auth.error_code, auth.error_message) == (58, "Authentication failed: Invalid username or password")
        assert s.recv(1) == b""  # closed


def test_unknown_mechanism_and_requests_before_authentication(sasl_plaintext):
    from kafka.protocol.admin.cluster import DescribeLogDirsRequest
    from kafka.protocol.sasl import SaslHandshakeRequest, SaslHandshakeResponse

    with socket.create_connection(("127.0.0.1", sasl_plaintext.ports[0]), timeout=5) as s:
        _, data = _send(s, SaslHandshakeRequest(mechanism="GSSAPI"), 1, 1)
        assert _decode(SaslHandshakeResponse, data, 1).error_code == 33  # UNSUPPORTED_SASL_MECHANISM
    with socket.create_connection(("127.0.0.1", sasl_plaintext.ports[0]), timeout=5) as s:
        assert _send(s, DescribeLogDirsRequest(topics=None), 4, 1) is None  # closed, nothing served


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_scram_wrong_password_through_kafka_python(sasl_plaintext, mechanism, caplog):
    from kafka.errors import KafkaError

    with pytest.raises(KafkaError):
        _kp(sasl_plaintext, "admin", mechanism, password="wrong", bootstrap_timeout_ms=1000)
    assert (f"Authentication failed during authentication due to invalid credentials with SASL mechanism "
            f"{mechanism}") in caplog.text


# --- authorization ---


def test_cluster_operations_refused_without_permission(sasl_ssl, tls):
    from kafka.errors import ClusterAuthorizationFailedError
    from kafka.structs import TopicPartition

    before = sasl_ssl.snapshot()
    sasl_ssl.clear_requests()
    admin = _kp(sasl_ssl, "nobody", "SCRAM-SHA-512", tls.ca)
    try:
        assert "orders" in admin.list_topics()  # Metadata is not a cluster operation
        with pytest.raises(ClusterAuthorizationFailedError):
            admin.list_partition_reassignments()
        with pytest.raises(ClusterAuthorizationFailedError):
            admin.alter_partition_reassignments({TopicPartition("orders", 0): [1, 0]})
        raw = admin._manager.run(admin._manager.send, _describe_log_dirs(), 0)
        assert raw.error_code == 31 and raw.results == []
    finally:
        admin.close()
    sent = {name for _, name, _ in sasl_ssl.requests}
    assert {"ListPartitionReassignments", "AlterPartitionReassignments", "DescribeLogDirs"} <= sent
    after = sasl_ssl.snapshot()
    assert after.partitions == before.partitions


def _describe_log_dirs():
    from kafka.protocol.admin.cluster import DescribeLogDirsRequest

    return DescribeLogDirsRequest(topics=None)


def test_broker_configs_need_cluster_describe_configs_topic_configs_do_not(sasl_ssl, tls):
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import ConfigResource

    ck = _ck(sasl_ssl, "nobody", "PLAIN", tls.ca)
    futures = ck.describe_configs([ConfigResource("BROKER", "0")])
    with pytest.raises(KafkaException) as err:
        next(iter(futures.values())).result(timeout=10)
    assert err.value.args[0].name() == "CLUSTER_AUTHORIZATION_FAILED"
    topic = ck.describe_configs([ConfigResource("TOPIC", "orders")])
    assert "retention.ms" in next(iter(topic.values())).result(timeout=10)
    reader = _ck(sasl_ssl, "reader", "PLAIN", tls.ca)
    assert next(iter(reader.describe_configs([ConfigResource("BROKER", "0")]).values())).result(timeout=10)


def test_describe_permission_allows_listing_not_moving(sasl_ssl, tls):
    from kafka.errors import ClusterAuthorizationFailedError
    from kafka.structs import TopicPartition

    before = sasl_ssl.snapshot()
    admin = _kp(sasl_ssl, "reader", "SCRAM-SHA-256", tls.ca)
    try:
        assert admin.list_partition_reassignments() == {}
        with pytest.raises(ClusterAuthorizationFailedError):
            admin.alter_partition_reassignments({TopicPartition("orders", 0): [1, 0]})
    finally:
        admin.close()
    assert sasl_ssl.snapshot().partitions == before.partitions


def test_sandbox_refuses_bad_security_settings(tls):
    from kadmin.errors import InputError, UsageError

    with pytest.raises(UsageError, match="GSSAPI"):
        Sandbox(sasl_users={"a": "b"}, sasl_mechanisms=("GSSAPI",))
    with pytest.raises(UsageError, match="at least one user"):
        Sandbox(sasl_mechanisms=("PLAIN",))
    with pytest.raises(InputError, match="TLS certificate"):
        Sandbox(tls=(str(tls.ca), str(tls.ca)))  # no key in it


def test_sandbox_start_flags_serve_sasl_ssl(tls, tmp_path):
    """`kadmin sandbox start --detach` with TLS, a SASL user and a super user, then kadmin and a
    second (unauthorized) user against it."""
    state = tmp_path / "state"
    kadmin = [sys.executable, "-m", "kadmin"]
    started = subprocess.run([*kadmin, "sandbox", "start", "--detach", "--brokers", "1", "--no-demo",
                              "--tls-cert", str(tls.cert), "--tls-key", str(tls.key), "--sasl-user", "admin:adm-pw",
                              "--sasl-user", "eve:eve-pw", "--sasl-mechanism", "SCRAM-SHA-512",
                              "--super-user", "admin", "--state-dir", str(state)],
                             capture_output=True, text=True, timeout=60)
    assert started.returncode == 0, started.stderr
    bootstrap = started.stdout.strip()
    try:
        def reassign_list(user, password):
            config = tmp_path / f"{user}.properties"
            config.write_text("security.protocol=SASL_SSL\nssl.truststore.type=PEM\n"
                              f"ssl.truststore.location={tls.ca}\nsasl.mechanism=SCRAM-SHA-512\n"
                              "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                              f'username="{user}" password="{password}";\n')
            return subprocess.run([*kadmin, "reassign", "list", "--bootstrap-server", bootstrap,
                                   "--command-config", str(config), "--timeout", "5s"],
                                  capture_output=True, text=True, timeout=60)

        ok = reassign_list("admin", "adm-pw")
        assert ok.returncode == 0, ok.stderr
        refused = reassign_list("eve", "eve-pw")
        assert refused.returncode == 1 and "CLUSTER_AUTHORIZATION_FAILED" in refused.stderr, refused.stderr
    finally:
        subprocess.run([*kadmin, "sandbox", "stop", "--state-dir", str(state)], capture_output=True, timeout=60)


def test_every_cluster_operation_refused_and_nothing_changes(sasl_plaintext):
    """AlterReplicaLogDirs (per partition), ElectLeaders (top level), CreateTopics (per topic,
    TOPIC_AUTHORIZATION_FAILED) and broker IncrementalAlterConfigs (per resource), as Kafka answers
    a principal without CLUSTER permissions; a topic resource in the same request still works."""
    from kafka.protocol.admin.cluster import AlterReplicaLogDirsRequest as ARLD
    from kafka.protocol.admin.configs import IncrementalAlterConfigsRequest as IAC
    from kafka.protocol.admin.topics import CreateTopicsRequest as CT
    from kafka.protocol.admin.topics import ElectLeadersRequest as EL

    sb = sasl_plaintext
    before = sb.snapshot()
    admin = _kp(sb, "nobody", "PLAIN")

    def send(request, node=0):
        return admin._manager.run(admin._manager.send, request, node)

    try:
        moved = send(ARLD(dirs=[ARLD.AlterReplicaLogDir(path="/var/lib/kafka/data1", topics=[
            ARLD.AlterReplicaLogDir.AlterReplicaLogDirTopic(name="orders", partitions=[0])])]))
        assert [(t.topic_name, [(p.partition_index, p.error_code) for p in t.partitions]) for t in moved.results] \
            == [("orders", [(0, 31)])]
        elected = send(EL(election_type=0, topic_partitions=[EL.TopicPartitions(topic="orders", partitions=[0])],
                          timeout_ms=1000))
        assert elected.error_code == 31
        created = send(CT(topics=[CT.CreatableTopic(name="new", num_partitions=1, replication_factor=1,
                                                    assignments=[], configs=[])], timeout_ms=1000, validate_only=False))
        assert [(t.name, t.error_code) for t in created.topics] == [("new", 29)]
        Res = IAC.AlterConfigsResource
        altered = send(IAC(validate_only=False, resources=[
            Res(resource_type=4, resource_name="0", configs=[Res.AlterableConfig(
                name="leader.replication.throttled.rate", config_operation=0, value="1000")]),
            Res(resource_type=2, resource_name="orders", configs=[Res.AlterableConfig(
                name="retention.ms", config_operation=0, value="60000")])]))
        assert sorted((r.resource_type, r.resource_name, r.error_code) for r in altered.responses) \
            == [(2, "orders", 0), (4, "0", 31)]
    finally:
        admin.close()
    after = sb.snapshot()
    assert after.partitions == before.partitions and after.broker_configs == before.broker_configs
    assert "new" not in after.topics
    assert after.topic_configs["orders"].get("retention.ms") == "60000"  # the topic was allowed
    admin = _kp(sb, "admin", "PLAIN")  # the module's sandbox is shared: put the topic config back
    try:
        send(IAC(validate_only=False, resources=[Res(resource_type=2, resource_name="orders", configs=[
            Res.AlterableConfig(name="retention.ms", config_operation=1, value=None)])]))
    finally:
        admin.close()


@pytest.mark.parametrize("kafka_version", ["3.3", "4.3"])
def test_a_listener_without_sasl_lists_the_sasl_apis_and_answers_them_illegal_sasl_state(sandbox_factory,
                                                                                         kafka_version):
    """Kafka lists the APIs of a listener type whatever its security protocol (ApiVersionManager:
    ApiKeys.apisForListener), so a PLAINTEXT listener advertises SaslHandshake 0-1 and
    SaslAuthenticate 0-2 (kafka-broker-api-versions.sh against real 3.3.1 and 4.3.1:
    tests/sandbox/data/); KafkaApis.handleSaslHandshakeRequest and handleSaslAuthenticateRequest
    answer ILLEGAL_SASL_STATE there, and the connection goes on. Tester E saw the sandbox leave
    both out, where librdkafka then said 'SASL Handshake not supported by broker'."""
    from kafka.protocol.metadata import ApiVersionsRequest, ApiVersionsResponse, MetadataRequest, MetadataResponse
    from kafka.protocol.sasl import (SaslAuthenticateRequest, SaslAuthenticateResponse, SaslHandshakeRequest,
                                     SaslHandshakeResponse)

    sb = sandbox_factory(brokers=1, manual_clock=True, kafka_version=kafka_version)
    with socket.create_connection(("127.0.0.1", sb.ports[0]), timeout=5) as s:
        _, data = _send(s, ApiVersionsRequest(client_software_name="t", client_software_version="1"), 3, 1)
        ranges = {k.api_key: (k.min_version, k.max_version) for k in _decode(ApiVersionsResponse, data, 3).api_keys}
        assert (ranges[17], ranges[36]) == ((0, 1), (0, 2))
        for version in (0, 1):
            _, data = _send(s, SaslHandshakeRequest(mechanism="PLAIN"), version, 2 + version)
            hs = _decode(SaslHandshakeResponse, data, version)
            assert (hs.error_code, list(hs.mechanisms)) == (34, [])  # ILLEGAL_SASL_STATE
        _, data = _send(s, SaslAuthenticateRequest(auth_bytes=b"\0admin\0pw"), 2, 4)
        auth = _decode(SaslAuthenticateResponse, data, 2)
        assert (auth.error_code, auth.error_message) == (
            34, "SaslAuthenticate request received after successful authentication")
        _, data = _send(s, MetadataRequest(topics=[], allow_auto_topic_creation=False), 9, 5)
        assert _decode(MetadataResponse, data, 9).brokers  # still served: nothing was closed


def test_after_a_login_sasl_requests_get_illegal_sasl_state(sasl_plaintext):
    """After a login the SASL requests reach KafkaApis (no re-authentication configured):
    ILLEGAL_SASL_STATE, the connection kept."""
    from kafka.protocol.metadata import ApiVersionsRequest, ApiVersionsResponse
    from kafka.protocol.sasl import (SaslAuthenticateRequest, SaslAuthenticateResponse, SaslHandshakeRequest,
                                     SaslHandshakeResponse)

    with socket.create_connection(("127.0.0.1", sasl_plaintext.ports[0]), timeout=5) as s:
        _, data = _send(s, ApiVersionsRequest(client_software_name="t", client_software_version="1"), 3, 1)
        ranges = {k.api_key: (k.min_version, k.max_version) for k in _decode(ApiVersionsResponse, data, 3).api_keys}
        assert (ranges[17], ranges[36]) == ((0, 1), (0, 2))  # the same list as before a login, as Kafka's
        _, data = _send(s, SaslHandshakeRequest(mechanism="PLAIN"), 1, 2)
        assert _decode(SaslHandshakeResponse, data, 1).error_code == 0
        _, data = _send(s, SaslAuthenticateRequest(auth_bytes=b"\0admin\0" + USERS["admin"].encode()), 2, 3)
        assert _decode(SaslAuthenticateResponse, data, 2).error_code == 0
        _, data = _send(s, SaslHandshakeRequest(mechanism="PLAIN"), 1, 4)
        assert _decode(SaslHandshakeResponse, data, 1).error_code == 34
        _, data = _send(s, ApiVersionsRequest(client_software_name="t", client_software_version="1"), 3, 5)
        assert _decode(ApiVersionsResponse, data, 3).error_code == 0
