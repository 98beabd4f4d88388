"""A fleet cluster that cannot be reached is named with what to check in the inventory: the
entry's ``bootstrap_server`` or ``zookeeper`` (or its profile's), not the ``--bootstrap-server``
or ``--zookeeper`` flag a single-cluster command's error names, which fleet mode refuses
(exit 2)."""

from __future__ import annotations

import json

import pytest

from kadmin.fleet.collect import in_inventory_terms
from tests.fleet.test_live import closed_port
from tests.support.cli import kadmin


def test_an_unreachable_entry_is_named_by_its_inventory_key(tmp_path, capsys):
    dead, zk, profiled = closed_port(), closed_port(), closed_port()
    (tmp_path / "kadmin.toml").write_text(f'[clusters.p]\nbootstrap_server = "127.0.0.1:{profiled}"\n')
    inventory = tmp_path / "fleet.toml"
    inventory.write_text(
        'timeout = "2s"\nconfig = "kadmin.toml"\n'
        f'[[clusters]]\nname = "dead"\nbootstrap_server = "127.0.0.1:{dead}"\n'
        f'[[clusters]]\nname = "old"\nzookeeper = "127.0.0.1:{zk}"\n'
        '[[clusters]]\nname = "named"\nprofile = "p"\n'
    )
    code, out, err = kadmin(capsys, "reassign", "list", "--fleet", str(inventory), "-o", "json")
    assert code == 1, err
    errors = {r["cluster"]: r["error"] for r in next(
        r["rows"] for r in json.loads(out)["reports"] if r["name"] == "unreachable")}
    assert "(check bootstrap_server of inventory entry 'dead', the network" in errors["dead"]
    assert "(check the zookeeper host:port of inventory entry 'old' (and that the server is up), " \
           "or use bootstrap_server)" in errors["old"]
    assert "(check bootstrap_server of profile 'p' (inventory entry 'named'), the network" in errors["named"]
    assert "--bootstrap-server" not in out + err and "--zookeeper" not in out + err


@pytest.mark.parametrize("text, entry, expected", [
    ("set security.protocol in --command-config to match, or use --bootstrap-server",
     {"name": "old", "zookeeper": "z:2181", "command_config": "/c.properties"},
     "set security.protocol in command_config of inventory entry 'old' to match, or use bootstrap_server"),
    ("a Kafka broker's address goes to --bootstrap-server", {"name": "p1", "profile": "p"},
     "a Kafka broker's address goes to bootstrap_server of profile 'p' (inventory entry 'p1')"),
    ("give --timeout or --cluster, not --cluster-name", {"name": "e", "profile": "p", "timeout": "2s"},
     "give timeout of inventory entry 'e' or profile, not --cluster-name"),
    ("no flag here", {"name": "e"}, "no flag here"),
])
def test_flags_are_put_as_the_inventory_keys_that_set_them(text, entry, expected):
    assert in_inventory_terms(text, entry) == expected
