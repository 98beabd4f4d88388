"""The secret scanner of the security tests: every text kadmin produced (stdout, stderr, log
records, tracebacks under --debug) is checked for every secret string, and the number of
checks is reported at the end of the run."""

from __future__ import annotations

import pytest

CHECKS = {"secrets x outputs": 0}


class SecretScanner:
    """``scan(label, text)`` fails naming the output and the secret (by name, not by value)."""

    def __init__(self, secrets: dict[str, str]):
        self.secrets = {name: value for name, value in secrets.items() if value}

    def scan(self, label: str, text: str) -> None:
        folded = text.casefold()  # a secret shown lower-cased is still shown
        for name, value in self.secrets.items():
            assert value.casefold() not in folded, f"{label} shows the secret {name}"
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
