"""The secret scanner of the security tests: every text kadmin produced (stdout, stderr, log
records, tracebacks under --debug) is checked for every secret string, and the number of
checks is reported at the end of the run."""

from __future__ import annotations

import json

import pytest

CHECKS = {"secrets x outputs": 0}


def shown_forms(value: str) -> dict[str, str]:
    """The forms in which a text can show ``value``: as is, inside the repr of a str or of its
    UTF-8 bytes / bytearray (kafka-python logs the SASL/PLAIN bytes it sends), with ' escaped
    or not (repr escapes it only next to a "), and inside a JSON string. A non-ASCII or
    invisible character makes these differ from the value: P\\xc3\\xa4ss, Inv\\u200bis."""
    encoded = value.encode("utf-8", "surrogatepass")
    forms = {
        "as is": value,
        "str repr": repr(value)[1:-1],
        "str repr, ' escaped": repr(value + '"')[1:-2],
        "bytes repr": repr(encoded)[2:-1],
        "bytes repr, ' escaped": repr(encoded + b'"')[2:-2],
        "bytearray repr": repr(bytearray(encoded))[12:-2],
        "JSON": json.dumps(value)[1:-1],
        "JSON, not ASCII": json.dumps(value, ensure_ascii=False)[1:-1],
    }
    return {how: form for how, form in forms.items() if form}


class SecretScanner:
    """``scan(label, text)`` fails naming the output, the secret (by name, not by value) and the
    form it was shown in."""

    def __init__(self, secrets: dict[str, str]):
        self.secrets = {name: shown_forms(value) for name, value in secrets.items() if value}

    def scan(self, label: str, text: str) -> None:
        folded = text.casefold()  # a secret shown lower-cased is still shown
        for name, forms in self.secrets.items():
            for how, form in forms.items():
                assert form.casefold() not in folded, f"{label} shows the secret {name} ({how})"
            CHECKS["secrets x outputs"] += 1


@pytest.fixture
def scanner_factory():
    return SecretScanner


@pytest.fixture(autouse=True)
def _forget_masked_secrets():
    """Secrets read during a test are masked in the logs of the whole process from then on; the
    suite's other tests should not see their logs masked by these tests' (often short) values."""
    from kadmin import java_properties

    before = set(java_properties._MASKED)
    yield
    java_properties._MASKED.intersection_update(before)


def pytest_terminal_summary(terminalreporter):
    if CHECKS["secrets x outputs"]:
        terminalreporter.write_line(f"secret scans (secret strings x outputs checked): {CHECKS['secrets x outputs']}")


# Shared by the test files that start TLS listeners and run the CLI in-process.
@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    """Test certificates (a CA, the brokers' and a client's), made once per module."""
    from tests.support.tls import make_tls_files

    try:
        return make_tls_files(tmp_path_factory.mktemp("tls"))
    except (RuntimeError, OSError) as e:
        pytest.skip(f"cannot make test certificates: {e}")


@pytest.fixture
def env(tmp_path, monkeypatch):
    """No profile file and no KADMIN_* variable of the machine running the tests."""
    monkeypatch.setenv("KADMIN_CONFIG", str(tmp_path / "no-config.toml"))
    for var in ("KADMIN_BOOTSTRAP_SERVER", "KADMIN_ZOOKEEPER", "KADMIN_COMMAND_CONFIG", "KADMIN_CLUSTER",
                "KADMIN_TIMEOUT", "KADMIN_DEBUG"):
        monkeypatch.delenv(var, raising=False)
