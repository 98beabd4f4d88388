"""Handlers: DescribeConfigs, AlterConfigs, IncrementalAlterConfigs, for TOPIC (2) and BROKER (4)
resources, including the "" cluster-wide broker default."""

from __future__ import annotations

from kadmin.sandbox import configs as C
from kadmin.sandbox import protocol as P

SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3


def _broker_check(engine, broker_id: int, name: str, *, describing: bool) -> tuple[int, str] | None:
    if name == "":
        return None
    try:
        target = int(name)
    except ValueError:
        return P.INVALID_REQUEST, f"Failed to parse broker name as an integer: {name}"
    if describing and target != broker_id:
        return P.INVALID_REQUEST, f"Unexpected broker id, expected {broker_id} or empty string, but received {name}"
    return None


def describe_configs(engine, broker_id, version, req):
    from kafka.protocol.admin.configs import DescribeConfigsResponse as R

    cluster = engine.cluster
    results = []
    for res in req.resources:
        error = None
        entries = []
        if res.resource_type == C.RESOURCE_TOPIC:
            if res.resource_name not in cluster.topics:
                error = (P.UNKNOWN_TOPIC_OR_PARTITION, f"The topic '{res.resource_name}' does not exist.")
            else:
                entries = C.describe_topic(cluster, res.resource_name, res.configuration_keys)
        elif res.resource_type == C.RESOURCE_BROKER:
            error = _broker_check(engine, broker_id, res.resource_name, describing=True)
            if error is None:
                entries = C.describe_broker(cluster, res.resource_name, engine.static_configs(broker_id))
        else:
            error = (P.INVALID_REQUEST, f"Unsupported resource type {res.resource_type}")
        if error:
            results.append(
                R.DescribeConfigsResult(
                    error_code=error[0],
                    error_message=error[1],
                    resource_type=res.resource_type,
                    resource_name=res.resource_name,
                    configs=[],
                )
            )
            continue
        if res.configuration_keys is not None:
            keys = set(res.configuration_keys)
            entries = [e for e in entries if e.name in keys]
        out = []
        for e in entries:
            synonyms = []
            if version >= 1 and req.include_synonyms:
                synonyms = [
                    R.DescribeConfigsResult.DescribeConfigsResourceResult.DescribeConfigsSynonym(
                        name=n, value=v, source=s
                    )
                    for n, v, s in e.synonyms
                ]
            out.append(
                R.DescribeConfigsResult.DescribeConfigsResourceResult(
                    name=e.name,
                    value=e.value,
                    read_only=e.read_only,
                    config_source=e.source,
                    is_default=e.source == C.DEFAULT,
                    is_sensitive=False,
                    synonyms=synonyms,
                    config_type=e.config_type,
                    documentation=None,
                )
            )
        results.append(
            R.DescribeConfigsResult(
                error_code=P.NONE,
                error_message=None,
                resource_type=res.resource_type,
                resource_name=res.resource_name,
                configs=out,
            )
        )
    return R(version=version, throttle_time_ms=0, results=results)


def _current(engine, rtype: int, name: str) -> dict[str, str]:
    if rtype == C.RESOURCE_TOPIC:
        return engine.cluster.topics[name].configs
    return engine.cluster.broker_configs.get(name, {})


def _validate(engine, broker_id, rtype: int, name: str, new: dict[str, str]) -> tuple[int, str] | None:
    if rtype == C.RESOURCE_TOPIC:
        if name not in engine.cluster.topics:
            return P.UNKNOWN_TOPIC_OR_PARTITION, f"The topic '{name}' does not exist."
        for k, v in new.items():
            why = C.validate_topic_config(k, v)
            if why:
                return P.INVALID_CONFIG, why
        return None
    if rtype == C.RESOURCE_BROKER:
        error = _broker_check(engine, broker_id, name, describing=False)
        if error:
            return error
        for k, v in new.items():
            error = C.validate_broker_config(k, v)
            if error:
                return error
        return None
    return P.INVALID_REQUEST, f"Unsupported resource type {rtype}"


def _apply(engine, rtype: int, name: str, new: dict[str, str]) -> None:
    if rtype == C.RESOURCE_TOPIC:
        engine.cluster.topics[name].configs = new
        engine.configs_changed("topics", name)
    else:
        engine.cluster.broker_configs[name] = new
        engine.configs_changed("brokers", name or "<default>")


def alter_configs(engine, broker_id, version, req):
    """Replaces the whole dynamic config set of each resource."""
    from kafka.protocol.admin.configs import AlterConfigsResponse as R

    out = []
    for res in req.resources:
        new = {c.name: c.value for c in res.configs if c.value is not None}
        error = _validate(engine, broker_id, res.resource_type, res.resource_name, new)
        if error is None and not req.validate_only:
            _apply(engine, res.resource_type, res.resource_name, new)
        code, msg = error or (P.NONE, None)
        out.append(
            R.AlterConfigsResourceResponse(
                error_code=code, error_message=msg, resource_type=res.resource_type, resource_name=res.resource_name
            )
        )
    return R(version=version, throttle_time_ms=0, responses=out)


def _incremental(engine, rtype: int, name: str, ops) -> tuple[dict[str, str] | None, tuple[int, str] | None]:
    names = [c.name for c in ops]
    if len(set(names)) != len(names):
        return None, (P.INVALID_REQUEST, "Error due to duplicate config keys")
    exists = name in engine.cluster.topics if rtype == C.RESOURCE_TOPIC else True
    new = dict(_current(engine, rtype, name)) if exists else {}
    for c in ops:
        if c.config_operation == SET:
            new[c.name] = c.value
        elif c.config_operation == DELETE:
            new.pop(c.name, None)
        elif c.config_operation in (APPEND, SUBTRACT):
            if rtype != C.RESOURCE_TOPIC or not C.is_list_config(c.name):
                verb = "append" if c.config_operation == APPEND else "subtract"
                return None, (P.INVALID_CONFIG, f"Config value {verb} is not allowed for config key: {c.name}")
            default = C.TOPIC_DEFAULTS[c.name][0]
            items = [i for i in new.get(c.name, default).split(",") if i]
            change = [i for i in (c.value or "").split(",") if i]
            if c.config_operation == APPEND:
                items += [i for i in change if i not in items]
            else:
                items = [i for i in items if i not in change]
            new[c.name] = ",".join(items)
        else:
            return None, (P.INVALID_REQUEST, f"Unknown operation type {c.config_operation}")
    return new, None


def incremental_alter_configs(engine, broker_id, version, req):
    from kafka.protocol.admin.configs import IncrementalAlterConfigsResponse as R

    out = []
    for res in req.resources:
        new, error = _incremental(engine, res.resource_type, res.resource_name, res.configs)
        if error is None:
            changed = {c.name: new.get(c.name) for c in res.configs}
            error = _validate(engine, broker_id, res.resource_type, res.resource_name, dict(changed))
        if error is None and not req.validate_only:
            _apply(engine, res.resource_type, res.resource_name, new)
        code, msg = error or (P.NONE, None)
        out.append(
            R.AlterConfigsResourceResponse(
                error_code=code, error_message=msg, resource_type=res.resource_type, resource_name=res.resource_name
            )
        )
    return R(version=version, throttle_time_ms=0, responses=out)
