"""A --zookeeper or --bootstrap-server host no host name can be (spaces, '/', '@', ...): refused at
once as bad usage, exit 2, wherever it comes from. ``--zookeeper "bad zk string"`` waited the
whole 30 s timeout, then said it could not connect."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

KADMIN = [sys.executable, "-m", "kadmin"]


@pytest.mark.parametrize(
    "args, env, line",
    [
        (
            ["--zookeeper", "bad zk string"],
            {},
            "kadmin: error: --zookeeper: 'bad zk string' is not HOST[:PORT]: 'bad zk string' is not a host name",
        ),
        (
            [],
            {"KADMIN_ZOOKEEPER": "bad zk string/kafka"},
            "kadmin: error: KADMIN_ZOOKEEPER: 'bad zk string' is not HOST[:PORT]",
        ),
        (
            ["--bootstrap-server", "bad host:9092"],
            {},
            "kadmin: error: --bootstrap-server: 'bad host:9092' is not HOST:PORT: 'bad host' is not a host name",
        ),
    ],
)
def test_a_host_with_spaces_is_refused_at_once(tmp_path, args, env, line):
    started = time.monotonic()
    result = subprocess.run(
        [*KADMIN, "log-dirs", "describe", *args, "--timeout", "20s"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **env},
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(line) and result.stderr.count("\n") == 1, result.stderr
    assert time.monotonic() - started < 10  # nothing connected


def test_a_profiles_host_with_spaces_is_refused(tmp_path):
    from kadmin.config import resolve_connection
    from kadmin.errors import ConfigError

    path = tmp_path / "config.toml"
    path.write_text('[clusters.x]\nzookeeper = "bad zk string:2181/kafka"\n')
    with pytest.raises(ConfigError, match="zookeeper in profile 'x': 'bad zk string:2181' is not HOST\\[:PORT\\]"):
        resolve_connection(cluster="x", env={}, config_path=path)


def test_a_fleet_inventorys_host_with_spaces_is_refused(tmp_path):
    """The inventory checks its entries with the same functions."""
    from kadmin.fleet.inventory import validate_inventory

    problems = validate_inventory(
        {"clusters": [{"name": "a", "zookeeper": "bad zk string"}, {"name": "b", "bootstrap_server": "k x:9092"}]}
    )
    assert any(p.startswith("clusters.0.zookeeper: 'bad zk string' is not HOST[:PORT]") for p in problems), problems
    assert any(p.startswith("clusters.1.bootstrap_server: 'k x:9092' is not HOST:PORT") for p in problems), problems
