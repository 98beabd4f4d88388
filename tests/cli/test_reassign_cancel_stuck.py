"""``reassign cancel`` with a stuck /admin/reassign_partitions (ZooKeeper mode).

Its entries are requests Kafka's controller never took (KAFKA-FACTS.md: a node written after
someone deleted the node by hand is not read until the controller moves): no broker carries them
out, so there is nothing to cancel, and --bootstrap-server does not see them either. Cancel over
--zookeeper names them, says how to drop them (delete the node, then /controller) and that a
controller change would start them, and exits 1; it does not send the operator to
--bootstrap-server for them, and changes nothing.
"""

from __future__ import annotations

import json

import pytest

from kadmin.backends.zk_reassign import STUCK_AFTER_SECONDS
from tests.support.cli import kadmin
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)
from tests.support.stuck_znode import stuck  # noqa: F401  (fixture)

pytestmark = pytest.mark.zookeeper


def test_cancel_names_stuck_requests_and_the_way_out_instead_of_bootstrap_server(stuck, capsys):
    stuck.backend_clock.ahead = STUCK_AFTER_SECONDS + 1
    zk = stuck.zk[1]
    # foo-0 really moves: cancelling it needs the AdminClient (nothing changed); the stuck foo-1 is said too.
    code, out, err = kadmin(capsys, "reassign", "cancel", "--all", *stuck.zk)
    assert code == 1 and "needs the AdminClient protocol (1 to cancel)" in err, err
    assert "foo-1 is requested there, but no broker is moving it" in err
    code, out, err = kadmin(capsys, "reassign", "cancel", "--all", "-b", stuck.bootstrap, "-o", "json")
    assert code == 0, err
    assert [(c["topic"], c["partition"]) for c in json.loads(out)["cancelled"]] == [("foo", 0)]
    stuck.settle()
    for scope in (("--all",), ("--reassignment-json-file", stuck.waiting)):
        code, out, err = kadmin(capsys, "reassign", "cancel", *scope, *stuck.zk)
        assert code == 1, (scope, out, err)
        assert "Nothing to cancel" not in out and "Cancelling" not in out
        assert "/admin/reassign_partitions exists but looks stuck" in err
        assert "foo-1 is requested there, but no broker is moving it" in err
        assert "a controller change (a failover, or deleting /controller) would start it" in err
        assert f"`zookeeper-shell.sh {zk} delete /admin/reassign_partitions`; only then delete /controller" in err
        error = [ln for ln in err.splitlines() if ln.startswith("kadmin: error:")]
        assert len(error) == 1 and "AdminClient" not in error[0] and "--bootstrap-server" not in error[0], err
    code, out, err = kadmin(capsys, "reassign", "cancel", "--all", *stuck.zk, "-o", "json")
    assert code == 1 and json.loads(out)["cancelled"] == []
    # Nothing was changed: the request is still in the node, still not taken.
    code, out, err = kadmin(capsys, "reassign", "list", *stuck.zk, "-o", "json")
    assert json.loads(out)["waiting"] == [{"topic": "foo", "partition": 1, "replicas": [1, 2], "target": [3, 2]}]
