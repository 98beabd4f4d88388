"""`leaders elect` in batches when a later batch fails: what the batches before it elected is
said (Kafka's lines, or the JSON with `stopped`) before the error, and nothing claims that
nothing was changed. Over --bootstrap-server the second ElectLeaders meets a controller too far
away to answer within --timeout; over --zookeeper it finds /admin/preferred_replica_election
already there."""

import json

import jsonschema

from kadmin.backends import admin_elect, zk_elect
from kadmin.schemas import load
from tests.cli.test_leaders_sandbox import cluster  # noqa: F401  (fixture)
from tests.support.cli import kadmin
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)


def _second_batch_fails(cluster, monkeypatch):  # noqa: F811
    """The second elect_leaders call of the run meets the failure of this cluster's mode."""
    module = zk_elect if cluster.mode == "zookeeper" else admin_elect
    real = module.elect_leaders
    calls = []

    def elect(backend, *args, **kwargs):
        calls.append(args)
        if len(calls) == 2:
            if cluster.mode == "zookeeper":  # another tool's election, pending (the sandbox's
                _node_exists(backend, monkeypatch)  # controller would act on a node written here at once)
            else:
                for b in range(3):
                    cluster.sb.faults.latency(b, 6000)
        return real(backend, *args, **kwargs)

    monkeypatch.setattr(module, "elect_leaders", elect)
    return calls


def _node_exists(backend, monkeypatch):
    """ZooKeeper answers the creation of /admin/preferred_replica_election with NodeExists."""
    from kazoo.exceptions import NodeExistsError

    real = backend._op

    def op(name, path, *args, **kwargs):
        if name == "create" and path == zk_elect.PREFERRED_REPLICA_ELECTION:
            raise NodeExistsError()
        return real(name, path, *args, **kwargs)

    monkeypatch.setattr(backend, "_op", op)


def _cleanup(cluster):  # noqa: F811
    if cluster.mode == "kraft":
        for b in range(3):
            cluster.sb.faults.latency(b, 0)


def test_a_failed_later_batch_still_reports_what_earlier_batches_elected(cluster, capsys, monkeypatch):  # noqa: F811
    cluster.bounce(0)  # t-0 and t-3 not led by their preferred replica 0
    _second_batch_fails(cluster, monkeypatch)
    code, out, err = kadmin(capsys, "leaders", "elect", "--preferred", "--all-topic-partitions", "--batch-size", "1",
                            "--timeout", "2s", *cluster.flags)
    _cleanup(cluster)
    assert code == 1, err
    assert out.strip() == "Successfully completed leader election (PREFERRED) for partitions t-0"
    error = err.strip().splitlines()[-1]
    assert error.startswith("kadmin: error: batch 2 of 2: "), err
    assert "batch 1 elected 1 partition" in error, err
    assert "nothing was changed" not in err
    assert cluster.leader("t", 0) == 0


def test_the_json_of_a_stopped_run_holds_what_was_elected_and_the_failure(cluster, capsys, monkeypatch):  # noqa: F811
    cluster.bounce(0)
    _second_batch_fails(cluster, monkeypatch)
    code, out, err = kadmin(capsys, "leaders", "elect", "--preferred", "--all-topic-partitions", "--batch-size", "1",
                            "--timeout", "2s", "-o", "json", *cluster.flags)
    _cleanup(cluster)
    assert code == 1, err
    doc = json.loads(out)
    jsonschema.validate(doc, load("leaders-elect-result"))
    assert doc["batches"] == 1 and doc["elected"] == 1
    assert [(p["topic"], p["partition"], p["outcome"]) for p in doc["partitions"]] == [("t", 0, "elected")]
    stopped = doc["stopped"]
    assert stopped["batch"] == 2 and stopped["of"] == 2
    assert stopped["unanswered"] == [{"topic": "t", "partition": 3}]
    assert stopped["error"] and stopped["error"] in err


def test_a_dry_run_exits_as_the_real_run_would(cluster, capsys):  # noqa: F811
    cluster.sb.faults.broker_stop(0)  # the preferred replica of t-0 and t-3 is down
    cluster.sb.settle()
    args = ["leaders", "elect", "--preferred", "--all-topic-partitions", *cluster.flags]
    code, out, err = kadmin(capsys, *args, "--dry-run")
    assert code == 1, err
    assert "t-0: would fail, PREFERRED_LEADER_NOT_AVAILABLE" in out
    assert err.strip().splitlines()[-1] == "kadmin: error: 2 partitions would not get the leader asked for; nothing was changed"
    code, out, err = kadmin(capsys, *args, "--dry-run", "-o", "json")
    assert code == 1 and json.loads(out)["dry_run"] is True
    code, _, err = kadmin(capsys, *args)
    assert code == 1, err  # what the dry run said
