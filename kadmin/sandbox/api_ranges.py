"""The version ranges each emulated Kafka version's brokers advertise in ApiVersions, for the APIs
the sandbox serves.

Sources: 3.3 and 4.3 are what ``kafka-broker-api-versions.sh`` printed against real 3.3.1
(ZooKeeper mode) and 4.3.1 (KRaft) brokers; 2.8 and 3.9 are the ``validVersions`` of
apache/kafka's ``clients/src/main/resources/common/message/<Api>Request.json`` at tags 2.8.2 and
3.9.0 (none of these has an unstable latest version there).

``lo-hi(n+)``: the broker advertises lo-hi but refuses requests below n. Kafka 4.x advertises
Produce from v0 so that old librdkafka clients keep producing (KAFKA-18659), yet its oldest
accepted Produce version is 3.

The sandbox serves the intersection of these ranges with what kafka-python's message classes can
decode and what the sandbox implements (``protocol.served``).
"""

from __future__ import annotations

import re
from functools import lru_cache

TABLE = """
# key  api                           2.8    3.3    3.9    4.3
0      Produce                       0-9    0-9    0-11   0-13(3+)
1      Fetch                         0-12   0-13   0-17   4-18
2      ListOffsets                   0-6    0-7    0-9    1-11
3      Metadata                      0-11   0-12   0-12   0-13
17     SaslHandshake                 0-1    0-1    0-1    0-1
18     ApiVersions                   0-3    0-3    0-4    0-4
19     CreateTopics                  0-7    0-7    0-7    2-7
20     DeleteTopics                  0-6    0-6    0-6    1-6
32     DescribeConfigs               0-4    0-4    0-4    1-4
33     AlterConfigs                  0-2    0-2    0-2    0-2
34     AlterReplicaLogDirs           0-2    0-2    0-2    1-2
35     DescribeLogDirs               0-2    0-4    0-4    1-5
36     SaslAuthenticate              0-2    0-2    0-2    0-2
43     ElectLeaders                  0-2    0-2    0-2    0-2
44     IncrementalAlterConfigs       0-1    0-1    0-1    0-1
45     AlterPartitionReassignments   0      0      0      0-1
46     ListPartitionReassignments    0      0      0      0
60     DescribeCluster               0      0      0-1    0-2
"""

_RANGE = re.compile(r"^(\d+)(?:-(\d+))?(?:\((\d+)\+\))?$")


@lru_cache(maxsize=1)
def broker_ranges() -> dict[str, dict[int, tuple[int, int, int]]]:
    """Kafka version -> API key -> (advertised min, accepted min, max)."""
    lines = [line.split() for line in TABLE.strip().splitlines()]
    header, rows = lines[0], lines[1:]
    versions = header[3:]  # after "#", "key", "api"
    out: dict[str, dict[int, tuple[int, int, int]]] = {v: {} for v in versions}
    for row in rows:
        key = int(row[0])
        for version, cell in zip(versions, row[2:], strict=True):
            m = _RANGE.match(cell)
            if m is None:
                raise ValueError(f"api_ranges: bad range {cell!r} for key {key} in {version}")
            lo = int(m.group(1))
            hi = int(m.group(2)) if m.group(2) else lo
            out[version][key] = (lo, int(m.group(3)) if m.group(3) else lo, hi)
    return out
