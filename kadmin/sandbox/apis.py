"""API key -> handler. Every key here is advertised by ApiVersions (``protocol.SERVED``)."""

from __future__ import annotations

from kadmin.sandbox import api_admin, api_cluster, api_configs, api_logdirs, api_records
from kadmin.sandbox import protocol as P

HANDLERS = {
    P.API_VERSIONS: api_cluster.api_versions,
    P.METADATA: api_cluster.metadata,
    P.DESCRIBE_CLUSTER: api_cluster.describe_cluster,
    P.LIST_OFFSETS: api_cluster.list_offsets,
    P.CREATE_TOPICS: api_admin.create_topics,
    P.DELETE_TOPICS: api_admin.delete_topics,
    P.ELECT_LEADERS: api_admin.elect_leaders,
    P.ALTER_PARTITION_REASSIGNMENTS: api_admin.alter_partition_reassignments,
    P.LIST_PARTITION_REASSIGNMENTS: api_admin.list_partition_reassignments,
    P.DESCRIBE_CONFIGS: api_configs.describe_configs,
    P.ALTER_CONFIGS: api_configs.alter_configs,
    P.INCREMENTAL_ALTER_CONFIGS: api_configs.incremental_alter_configs,
    P.DESCRIBE_LOG_DIRS: api_logdirs.describe_log_dirs,
    P.ALTER_REPLICA_LOG_DIRS: api_logdirs.alter_replica_log_dirs,
    P.PRODUCE: api_records.produce,
    P.FETCH: api_records.fetch,
    P.SASL_HANDSHAKE: api_cluster.sasl_handshake,
    P.SASL_AUTHENTICATE: api_cluster.sasl_authenticate,
}
assert set(HANDLERS) == set(P.SERVED)
