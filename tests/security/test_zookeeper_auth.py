"""ZooKeeper digest authentication and ACLs against a real server (Debian's ZooKeeper 3.8).

The test writes a Kafka cluster's znodes with a digest ACL granting only user "kafka" (no
world access), as a secured cluster's brokers would have them. kadmin without credentials is
refused in one clear line (exit 1); with ``zookeeper.auth.digest`` in --command-config it reads
and writes; with ``zookeeper.set.acl=true`` what it creates carries Kafka's secure ACLs. The
password never appears in anything kadmin prints.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kadmin.backends.zk_auth import ZkSecurity, acls_for, zk_security
from kadmin.backends.zookeeper import ZooKeeperBackend
from kadmin.commands.root import run
from kadmin.errors import AuthorizationError, ConfigError
from kadmin.model import AlterOp, ConfigChange, ConfigResource, ConfigResourceType

pytestmark = pytest.mark.zookeeper

USER = "kafka"
PASSWORD = "zk-S3cret-pw-7781"


def broker_json(i: int, port: int) -> bytes:
    return json.dumps({"features": {}, "listener_security_protocol_map": {"PLAINTEXT": "PLAINTEXT"},
                       "endpoints": [f"PLAINTEXT://127.0.0.1:{port}"], "jmx_port": -1, "port": port,
                       "host": "127.0.0.1", "version": 5, "timestamp": "1700000000000"}).encode()


def kazoo(zk_connect, auth: bool):
    from kazoo.client import KazooClient

    client = KazooClient(hosts=zk_connect, auth_data=[("digest", f"{USER}:{PASSWORD}")] if auth else None)
    client.start(timeout=15)
    return client


@pytest.fixture
def brokers(sandbox_factory):
    """Brokers 0-3 that answer the log-dir requests kadmin sends to the endpoints it finds in
    ZooKeeper (the znodes themselves are written by the test)."""
    sb = sandbox_factory(brokers=4, log_dirs=2, manual_clock=True)
    sb.create_topic("foo", assignment={0: [1, 2]}, size_bytes=1_000_000)
    sb.clear_requests()
    return sb


@pytest.fixture
def secured(zk_connect, brokers):
    """Four brokers and topic "foo" whose znodes only user "kafka" may read or write."""
    from kazoo.security import make_digest_acl

    acl = [make_digest_acl(USER, PASSWORD, all=True)]
    zk = kazoo(zk_connect, auth=True)
    for path in ("/brokers/ids", "/brokers/topics", "/config/topics", "/config/brokers", "/config/changes",
                 "/admin/delete_topics"):
        zk.create(path, b"", acl=acl, makepath=True)
    for i, port in brokers.ports.items():
        zk.create(f"/brokers/ids/{i}", broker_json(i, port), acl=acl, ephemeral=True)
    zk.create("/brokers/topics/foo", b'{"version":1,"partitions":{"0":[1,2]}}', acl=acl)
    zk.create("/brokers/topics/foo/partitions/0/state",
              b'{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2]}', acl=acl, makepath=True)
    for path in ("/brokers", "/config", "/admin", "/brokers/topics/foo/partitions"):
        zk.set_acls(path, acl)
    yield zk
    zk.stop()
    zk.close()


def kadmin(capsys, *args):
    with pytest.raises(SystemExit) as e:
        run(list(args))
    out, err = capsys.readouterr()
    assert PASSWORD not in out + err
    return e.value.code, out, err


def props(tmp_path, **values) -> str:
    p = tmp_path / "zk.properties"
    p.write_text("".join(f"{k}={v}\n" for k, v in values.items()))
    return str(p)


def plan(tmp_path) -> str:
    p = tmp_path / "plan.json"
    p.write_text(json.dumps({"version": 1, "partitions": [{"topic": "foo", "partition": 0, "replicas": [3, 2]}]}))
    return str(p)


def errors(err: str) -> list[str]:
    return [line for line in err.splitlines() if not line.startswith("kadmin: warning:")]


def test_without_credentials_the_cli_is_refused_in_one_line(secured, brokers, zk_connect, tmp_path, capsys):
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan(tmp_path),
                            "--zookeeper", zk_connect)
    assert code == 1
    assert errors(err) == [
        f"kadmin: error: ZooKeeper at {zk_connect} refused access to an unauthenticated session (znode ACLs) "
        "(set zookeeper.auth.digest=user:password in --command-config)"]
    assert "Traceback" not in err and out == ""
    assert not secured.exists("/admin/reassign_partitions")
    assert brokers.mutating_requests() == []


def test_without_credentials_the_process_exits_1_without_a_traceback(secured, zk_connect, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "kadmin", "log-dirs", "describe", "--zookeeper", zk_connect,
                           "--timeout", "10s"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert errors(proc.stderr)[0].startswith(f"kadmin: error: ZooKeeper at {zk_connect} refused access")


def test_a_wrong_password_is_refused_and_named_by_user_only(secured, zk_connect, tmp_path, capsys):
    wrong = "not-the-" + PASSWORD[::-1]
    cfg = props(tmp_path, **{"zookeeper.auth.digest": f"{USER}:{wrong}"})
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan(tmp_path),
                            "--zookeeper", zk_connect, "--command-config", cfg)
    assert code == 1
    assert errors(err) == [f"kadmin: error: ZooKeeper at {zk_connect} refused access to user 'kafka' (znode ACLs)"]
    assert wrong not in out + err


def test_with_credentials_reads_and_writes_work_and_set_acl_applies_kafkas_acls(secured, zk_connect, tmp_path, capsys):
    from kazoo.exceptions import NoAuthError

    cfg = props(tmp_path, **{"zookeeper.auth.digest": f"{USER}:{PASSWORD}", "zookeeper.set.acl": "true"})
    code, out, err = kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan(tmp_path),
                            "--zookeeper", zk_connect, "--command-config", cfg)
    assert code == 0, err
    assert "reassign foo-0: 1,2 -> 3,2" in out
    assert json.loads(secured.get("/admin/reassign_partitions")[0])["partitions"] == [
        {"topic": "foo", "partition": 0, "replicas": [3, 2]}]
    acls, _ = secured.get_acls("/admin/reassign_partitions")
    assert {(a.id.scheme, a.id.id.split(":")[0], a.perms) for a in acls} == {("digest", USER, 31), ("world", "anyone", 1)}

    # A session without credentials can read it (world-read) but not remove it.
    anonymous = kazoo(zk_connect, auth=False)
    try:
        assert anonymous.get("/admin/reassign_partitions")[0]
        with pytest.raises(NoAuthError):
            anonymous.delete("/admin/reassign_partitions")
    finally:
        anonymous.stop()
        anonymous.close()

    code, out, err = kadmin(capsys, "reassign", "list", "--zookeeper", zk_connect, "--command-config", cfg)
    assert code == 0 and "foo" in out


def test_throttles_under_config_brokers_get_no_world_read(secured, zk_connect, tmp_path, capsys):
    cfg = props(tmp_path, **{"zookeeper.auth.digest": f"{USER}:{PASSWORD}", "zookeeper.set.acl": "true"})
    code, out, err = kadmin(capsys, "throttle", "set", "--rate", "1MB/s", "--brokers", "1",
                            "--zookeeper", zk_connect, "--command-config", cfg)
    assert code == 0, err
    assert json.loads(secured.get("/config/brokers/1")[0])["config"]["leader.replication.throttled.rate"] == "1000000"
    acls, _ = secured.get_acls("/config/brokers/1")
    assert [(a.id.scheme, a.perms) for a in acls] == [("digest", 31)]  # sensitive root: creator only
    change = sorted(secured.get_children("/config/changes"))[-1]
    assert ("world", 1) in [(a.id.scheme, a.perms) for a in secured.get_acls(f"/config/changes/{change}")[0]]


def test_backend_maps_a_refused_write_to_authorization_error(secured, zk_connect):
    """World-readable znodes, writable only by "kafka": an anonymous writer is refused."""
    from kazoo.security import READ_ACL_UNSAFE, make_digest_acl

    secured.set_acls("/config/brokers", [make_digest_acl(USER, PASSWORD, all=True)] + list(READ_ACL_UNSAFE))
    with ZooKeeperBackend(zk_connect, timeout=10) as backend:
        with pytest.raises(AuthorizationError) as e:
            backend.incremental_alter_configs(
                [ConfigChange(ConfigResource(ConfigResourceType.BROKER, "1"), "follower.replication.throttled.rate",
                              "1000", AlterOp.SET)])
    assert e.value.exit_code == 1
    assert not secured.exists("/config/brokers/1")


@pytest.mark.parametrize("properties, message", [
    ({"zookeeper.set.acl": "true"}, "zookeeper.set.acl=true needs credentials"),
    ({"zookeeper.auth.digest": PASSWORD}, "zookeeper.auth.digest must have the form user:password"),
    ({"zookeeper.auth.digest": f":{PASSWORD}"}, "zookeeper.auth.digest must have the form user:password"),
    ({"zookeeper.auth.digest": f"{USER}:{PASSWORD}", "zookeeper.set.acl": "yes"}, "zookeeper.set.acl must be true or false"),
    ({"zookeeper.ssl.crl.enable": "true"}, "property zookeeper.ssl.crl.enable is not supported"),
    ({"zookeeper.ssl.client.enable": "true", "zookeeper.ssl.truststore.location": "/x/ca.jks"},
     "zookeeper.ssl.truststore.type=JKS cannot be used"),  # ZooKeeper's type for a .jks name
    ({"zookeeper.ssl.client.enable": "true", "zookeeper.ssl.truststore.location": "/x/ca.crt"},
     "zookeeper.ssl.truststore.type is not set, and ZooKeeper cannot tell the type"),  # it refuses .crt
])
def test_unusable_zookeeper_properties_are_refused_without_their_values(properties, message):
    with pytest.raises(ConfigError) as e:
        zk_security(properties)
    assert e.value.exit_code == 2
    assert str(e.value).startswith(message)
    assert PASSWORD not in str(e.value) + str(e.value.hint)


def test_bad_zookeeper_properties_exit_2_on_the_cli_before_connecting(tmp_path, capsys):
    cfg = props(tmp_path, **{"zookeeper.set.acl": "true"})
    code, _, err = kadmin(capsys, "reassign", "list", "--zookeeper", "127.0.0.1:1", "--command-config", cfg)
    assert code == 2
    assert errors(err)[0].startswith("kadmin: error: zookeeper.set.acl=true needs credentials")


def test_acls_follow_kafkas_default_acls():
    sec = ZkSecurity(set_acl=True)
    assert acls_for(ZkSecurity(), "/admin/reassign_partitions") is None
    assert [a.id.scheme for a in acls_for(sec, "/admin/reassign_partitions")] == ["auth", "world"]
    for path in ("/config/brokers/1", "/config/users/alice", "/delegation_token/tokens/x"):
        assert [a.id.scheme for a in acls_for(sec, path)] == ["auth"]


def test_the_digest_is_masked_wherever_settings_are_shown():
    from kadmin.config import ConnectionSettings, redact

    props = {"zookeeper.auth.digest": f"{USER}:{PASSWORD}", "zookeeper.set.acl": "true"}
    assert redact(props) == {"zookeeper.auth.digest": "******", "zookeeper.set.acl": "true"}
    assert PASSWORD not in repr(ConnectionSettings(zookeeper="127.0.0.1:2181", properties=props))
    assert PASSWORD not in repr(zk_security(props))


def test_a_pem_file_whose_name_zookeeper_cannot_type_is_refused_with_the_line_to_add(tmp_path):
    """ZooKeeper's client types a store without .type by its name (.pem, .jks, .p12, .bcfks) and
    refuses a .crt; kadmin did too little (took .crt as PEM) and then named JKS "the default"."""
    ca = tmp_path / "ca.crt"
    ca.write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    with pytest.raises(ConfigError) as e:
        zk_security({"zookeeper.ssl.client.enable": "true", "zookeeper.ssl.truststore.location": str(ca)})
    assert "zookeeper.ssl.truststore.type is not set" in str(e.value) and ".crt" not in str(e.value)
    assert e.value.hint == "the file is PEM: set zookeeper.ssl.truststore.type=PEM"
