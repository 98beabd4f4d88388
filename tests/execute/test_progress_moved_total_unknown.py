"""progress -o json: totals.moved_bytes is null, not the known part (a wrong 0), when a moving
replica's bytes moved are unknown (a log-dir move towards an offline destination directory:
its future replica cannot be seen); the schema allows it."""

import jsonschema

from kadmin.execute.progress import snapshot, snapshot_json
from kadmin.schemas import load
from tests.execute.test_progress_paused import PLAN, cluster, destination_offline, source_offline


def test_the_total_moved_is_null_when_a_moving_replicas_bytes_are_unknown():
    doc = snapshot_json(snapshot(0.0, cluster(), {}, destination_offline(), plan=PLAN))
    jsonschema.validate(doc, load("progress-snapshot"))
    assert doc["totals"]["moved_bytes"] is None and doc["totals"]["moving_replicas"] == 1
    assert doc["replicas"][0]["moved_bytes"] is None


def test_the_total_moved_is_the_sum_when_every_moving_replicas_bytes_are_known():
    doc = snapshot_json(snapshot(0.0, cluster(), {}, source_offline(), plan=PLAN))
    jsonschema.validate(doc, load("progress-snapshot"))
    assert doc["totals"]["moved_bytes"] == 304_478_844
