"""`reassign generate` warns about partitions with no replica on a live broker: their move has
no source to copy from and cannot complete (it is still proposed)."""

import json

from tests.support.cli import kadmin
from tests.support.sandbox import sandbox_factory  # noqa: F401  (fixture)


def test_generate_warns_about_partitions_whose_every_replica_is_down(sandbox_factory, capsys, tmp_path):  # noqa: F811
    sb = sandbox_factory(brokers=3, log_dirs=1)
    sb.create_topic("solo", assignment={0: [2], 1: [0]})
    sb.settle()
    sb.faults.broker_stop(2)
    topics = tmp_path / "topics.json"
    topics.write_text(json.dumps({"version": 1, "topics": [{"topic": "solo"}]}))
    code, out, err = kadmin(capsys, "reassign", "generate", "--topics-to-move-json-file", str(topics),
                            "--broker-list", "0,1", "-o", "json", "--bootstrap-server", sb.bootstrap)
    assert code == 0
    proposed = {(p["topic"], p["partition"]): p["replicas"] for p in json.loads(out)["proposed"]["partitions"]}
    assert proposed[("solo", 0)] != [2]  # still proposed: the operator may recreate it elsewhere
    err = " ".join(err.split())
    assert "1 partition has no replica on a live broker: solo-0." in err
    assert "solo-1" not in err
