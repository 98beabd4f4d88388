"""Handlers: DescribeLogDirs and AlterReplicaLogDirs, answered by each broker for its own disks."""

from __future__ import annotations

from kadmin.model import TopicPartition
from kadmin.sandbox import lag, logdirs
from kadmin.sandbox import protocol as P


def describe_log_dirs(engine, broker_id, version, req):
    from kafka.protocol.admin.cluster import DescribeLogDirsResponse as R

    wanted = None
    if req.topics is not None:
        wanted = {}
        for t in req.topics:
            wanted.setdefault(t.topic, set()).update(t.partitions)
    results = []
    reports = logdirs.describe_log_dirs(engine.cluster, broker_id, wanted)
    if getattr(engine, "lag", None) is not None:
        reports = lag.lagging_reports(reports, engine.lag.stale_log_dirs(broker_id), wanted)
    for d in reports:
        topics = [
            R.DescribeLogDirsResult.DescribeLogDirsTopic(
                name=name,
                partitions=[
                    R.DescribeLogDirsResult.DescribeLogDirsTopic.DescribeLogDirsPartition(
                        partition_index=i, partition_size=size, offset_lag=lag, is_future_key=future
                    )
                    for i, size, lag, future in parts
                ],
            )
            for name, parts in d.topics.items()
        ]
        results.append(
            R.DescribeLogDirsResult(
                error_code=d.error_code,
                log_dir=d.path,
                topics=topics,
                total_bytes=d.total_bytes,
                usable_bytes=d.usable_bytes,
                is_cordoned=d.cordoned,
            )
        )
    return R(version=version, throttle_time_ms=0, error_code=P.NONE, results=results)


def alter_replica_log_dirs(engine, broker_id, version, req):
    from kafka.protocol.admin.cluster import AlterReplicaLogDirsResponse as R

    by_topic: dict[str, list] = {}
    for d in req.dirs:
        for t in d.topics:
            for index in t.partitions:
                code = logdirs.alter_replica_log_dir(engine.cluster, broker_id, TopicPartition(t.name, index), d.path)
                by_topic.setdefault(t.name, []).append(
                    R.AlterReplicaLogDirTopicResult.AlterReplicaLogDirPartitionResult(
                        partition_index=index, error_code=code
                    )
                )
    results = [R.AlterReplicaLogDirTopicResult(topic_name=t, partitions=ps) for t, ps in by_topic.items()]
    return R(version=version, throttle_time_ms=0, results=results)
