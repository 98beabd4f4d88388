"""`reassign execute` waits for the replicas it places (KIP-113's REPLICA_NOT_AVAILABLE retries)
for the timeout the user gave, wherever it was given: --timeout, KADMIN_TIMEOUT or the profile,
as the connection takes it. Without any, 10 s. (Before, only --timeout counted: KADMIN_TIMEOUT=2m
still gave the replicas 10 s.)"""

import pytest

from kadmin.commands import reassign_execute
from tests.support.cli import kadmin, write_plan


@pytest.fixture
def waits(monkeypatch, tmp_path):
    """The seconds each run would wait for new replicas (the run itself is not made)."""
    seen: list[float] = []
    monkeypatch.setattr(reassign_execute, "_run", lambda params, opener: seen.append(params.timeout_seconds))
    monkeypatch.setenv("KADMIN_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.delenv("KADMIN_TIMEOUT", raising=False)
    monkeypatch.delenv("KADMIN_CLUSTER", raising=False)
    return seen


def execute(capsys, tmp_path, *args):
    plan = write_plan(tmp_path, [{"topic": "t", "partition": 0, "replicas": [1, 2]}])
    return kadmin(capsys, "reassign", "execute", "--reassignment-json-file", plan, *args)


def test_kadmin_timeout_sets_the_wait(waits, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("KADMIN_TIMEOUT", "2m")
    code, _, err = execute(capsys, tmp_path, "-b", "127.0.0.1:9092")
    assert code == 0, err
    assert waits == [120.0]


def test_a_profiles_timeout_sets_the_wait(waits, capsys, tmp_path):
    (tmp_path / "config.toml").write_text('[clusters.prod]\nbootstrap_server = "127.0.0.1:9092"\ntimeout = "45s"\n')
    code, _, err = execute(capsys, tmp_path, "--cluster", "prod")
    assert code == 0, err
    assert waits == [45.0]


def test_the_flag_wins_and_none_gives_ten_seconds(waits, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("KADMIN_TIMEOUT", "2m")
    assert execute(capsys, tmp_path, "-b", "127.0.0.1:9092", "--timeout", "5s")[0] == 0
    monkeypatch.delenv("KADMIN_TIMEOUT")
    assert execute(capsys, tmp_path, "-b", "127.0.0.1:9092")[0] == 0
    assert waits == [5.0, 10.0]
