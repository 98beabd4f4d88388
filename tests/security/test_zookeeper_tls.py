"""ZooKeeper over TLS against Debian's ZooKeeper 3.8 (Netty, PEM stores, client certificates
required), with Kafka's own ZooKeeper TLS properties in --command-config. A throwaway CA and
certificates are made with openssl for the module."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from kadmin.commands.root import run
from tests.support import zookeeper as zk

pytestmark = pytest.mark.zookeeper
KEY_PASSWORD = "zkKeyPw-6620-s3cret"


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """ca.pem; server.pem (key + certificate for 127.0.0.1); client.pem (encrypted key +
    certificate); other-ca.pem, a CA that signed nothing here."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    d = tmp_path_factory.mktemp("pki")
    for ca in ("ca", "other-ca"):
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{ca}.key", "-out", f"{ca}.pem",
                "-days", "2", "-subj", f"/CN=kadmin test {ca}", cwd=d)
    (d / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    for name, key_args in (("server", ["-nodes"]), ("client", ["-passout", f"pass:{KEY_PASSWORD}"])):
        openssl("req", "-newkey", "rsa:2048", *key_args, "-keyout", f"{name}.key", "-out", f"{name}.csr",
                "-subj", f"/CN={name}", cwd=d)
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", f"{name}.crt", "-days", "2", "-extfile", "ext.cnf", cwd=d)
        (d / f"{name}.pem").write_text((d / f"{name}.key").read_text() + (d / f"{name}.crt").read_text())
    return d


@pytest.fixture(scope="module")
def tls_zookeeper(pki):
    why_not = zk.available()
    if why_not:
        pytest.skip(why_not)
    server = zk.ZooKeeperServer(tls={"keystore": str(pki / "server.pem"), "truststore": str(pki / "ca.pem"),
                                     "client_auth": "need"})
    with server:
        yield server


def kadmin(capsys, *args):
    with pytest.raises(SystemExit) as e:
        run(list(args))
    out, err = capsys.readouterr()
    assert KEY_PASSWORD not in out + err
    assert "Traceback" not in err
    return e.value.code, out, [line for line in err.splitlines() if not line.startswith("kadmin: warning:")]


def props(tmp_path, pki, **overrides) -> str:
    values = {
        "zookeeper.ssl.client.enable": "true",
        "zookeeper.clientCnxnSocket": "org.apache.zookeeper.ClientCnxnSocketNetty",
        "zookeeper.ssl.truststore.location": str(pki / "ca.pem"), "zookeeper.ssl.truststore.type": "PEM",
        "zookeeper.ssl.keystore.location": str(pki / "client.pem"), "zookeeper.ssl.keystore.type": "PEM",
        "zookeeper.ssl.keystore.password": KEY_PASSWORD,
    }
    values.update(overrides)
    p = tmp_path / "zk-tls.properties"
    p.write_text("".join(f"{k}={v}\n" for k, v in values.items() if v is not None))
    return str(p)


def test_kadmin_reads_and_writes_over_tls_with_a_client_certificate(tls_zookeeper, pki, tmp_path, capsys,
                                                                    sandbox_factory):
    brokers = sandbox_factory(brokers=2, log_dirs=1, manual_clock=True)  # answers kadmin's broker reads
    port = brokers.ports[1]
    cfg = props(tmp_path, pki)
    code, out, err = kadmin(capsys, "reassign", "list", "--zookeeper", tls_zookeeper.secure_connect,
                            "--command-config", cfg, "--timeout", "10s")
    assert code == 0, err
    assert out == "No partition reassignments found.\n"
    from kazoo.client import KazooClient

    plain = KazooClient(hosts=tls_zookeeper.connect)  # the plaintext port, to check what was written
    plain.start(timeout=15)
    try:
        plain.create("/brokers/ids/1", json.dumps({
            "listener_security_protocol_map": {"PLAINTEXT": "PLAINTEXT"}, "endpoints": [f"PLAINTEXT://127.0.0.1:{port}"],
            "host": "127.0.0.1", "port": port, "version": 5, "jmx_port": -1, "timestamp": "1700000000000"}).encode(),
            makepath=True, ephemeral=True)
        code, out, err = kadmin(capsys, "throttle", "set", "--log-dir-rate", "1MB/s", "--brokers", "1", "--zookeeper",
                                tls_zookeeper.secure_connect, "--command-config", cfg, "--timeout", "10s")
        assert code == 0, err
        assert json.loads(plain.get("/config/brokers/1")[0])["config"] == {
            "replica.alter.log.dirs.io.max.bytes.per.second": "1000000"}
    finally:
        plain.stop()
        plain.close()


def test_the_secure_port_without_tls_settings_fails_in_one_line(tls_zookeeper, capsys):
    code, _, err = kadmin(capsys, "reassign", "list", "--zookeeper", tls_zookeeper.secure_connect, "--timeout", "2s")
    assert code == 1
    assert err[0].startswith(f"kadmin: error: could not connect to ZooKeeper at {tls_zookeeper.secure_connect} within 2s")


def test_a_server_signed_by_another_ca_is_not_trusted(tls_zookeeper, pki, tmp_path, capsys):
    cfg = props(tmp_path, pki, **{"zookeeper.ssl.truststore.location": str(pki / "other-ca.pem")})
    code, _, err = kadmin(capsys, "reassign", "list", "--zookeeper", tls_zookeeper.secure_connect,
                          "--command-config", cfg, "--timeout", "2s")
    assert code == 1
    assert err == [f"kadmin: error: could not connect to ZooKeeper at {tls_zookeeper.secure_connect} within 2s "
                   "over TLS (check that the port is the server's secureClientPort and the zookeeper.ssl.* "
                   "trust store holds the CA that signed its certificate)"]


def test_the_server_refuses_a_client_without_a_certificate(tls_zookeeper, pki, tmp_path, capsys):
    cfg = props(tmp_path, pki, **{"zookeeper.ssl.keystore.location": None, "zookeeper.ssl.keystore.password": None})
    code, _, err = kadmin(capsys, "reassign", "list", "--zookeeper", tls_zookeeper.secure_connect,
                          "--command-config", cfg, "--timeout", "2s")
    assert code == 1 and "over TLS" in err[0]


@pytest.mark.parametrize("override, message", [
    ({"zookeeper.ssl.keystore.password": "wrong-" + KEY_PASSWORD}, "kadmin: error: cannot load the ZooKeeper TLS files"),
    ({"zookeeper.ssl.truststore.location": "/nonexistent/ca.pem"}, "kadmin: error: cannot load the ZooKeeper TLS files"),
    ({"zookeeper.ssl.keystore.type": "PKCS12"}, "kadmin: error: zookeeper.ssl.keystore.type=PKCS12 cannot be used"),
    ({"zookeeper.clientCnxnSocket": "org.apache.zookeeper.ClientCnxnSocketNIO"},
     "kadmin: error: zookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNIO cannot carry TLS"),
])
def test_unusable_tls_settings_are_refused_before_connecting(override, message, pki, tmp_path, capsys):
    cfg = props(tmp_path, pki, **override)
    code, _, err = kadmin(capsys, "reassign", "list", "--zookeeper", "127.0.0.1:1", "--command-config", cfg)
    assert code == 2
    assert err[0].startswith(message)


def test_the_key_password_is_not_in_debug_logs(tls_zookeeper, pki, tmp_path, capsys, caplog):
    import logging

    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="kazoo.client")  # quietened by runs without logging set up
    cfg = props(tmp_path, pki, **{"zookeeper.ssl.truststore.location": str(pki / "other-ca.pem")})
    with pytest.raises(SystemExit) as exited:  # --debug adds the traceback, the exit code stays
        run(["--debug", "reassign", "list", "--zookeeper", tls_zookeeper.secure_connect, "--command-config", cfg,
             "--timeout", "2s"])
    out, err = capsys.readouterr()
    assert exited.value.code == 1 and "Traceback" in err and "ConnectionFailed" in err
    assert caplog.records and KEY_PASSWORD not in caplog.text + out + err
