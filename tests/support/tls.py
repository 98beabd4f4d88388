"""Throwaway TLS material for tests, made with the ``openssl`` command line: a CA, a server
certificate it signs for 127.0.0.1 and localhost, and an unrelated CA (the "wrong CA")."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class TlsFiles:
    ca: Path  # the CA that signed the server certificate
    other_ca: Path  # a CA that signed nothing the sandbox serves
    cert: Path  # server certificate (127.0.0.1, localhost)
    key: Path  # its unencrypted private key


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_tls_files(directory: Path) -> TlsFiles:
    """Raises RuntimeError when openssl is missing (callers skip)."""
    if shutil.which("openssl") is None:
        raise RuntimeError("openssl is not installed")
    d = Path(directory)
    for name in ("ca", "other-ca"):
        _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                 "-keyout", f"{name}.key", "-out", f"{name}.pem", "-days", "2", "-subj", f"/CN=kadmin test {name}",
                 "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                 cwd=d)
    _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "server.key",
             "-out", "server.csr", "-subj", "/CN=localhost", cwd=d)
    (d / "server.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                                  "basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
             "-out", "server.pem", "-days", "2", "-extfile", "server.ext", cwd=d)
    return TlsFiles(ca=d / "ca.pem", other_ca=d / "other-ca.pem", cert=d / "server.pem", key=d / "server.key")
