"""A broker back from a restart takes config changes at once through the AdminClient backend.

librdkafka sends a broker's config request to that broker and learns brokers only from Metadata
(every 5 minutes by default): a client created while broker 2 was down waited out the whole
--timeout for it once it was back ("no answer from ... within 8s"), so an incremental run could
not throttle a broker that came back mid-run. Against the sandbox, both read paths (kadmin's small
client on PLAINTEXT, and the library clients alone, as with TLS or SASL)."""

from __future__ import annotations

import pytest

from kadmin.backends.admin import AdminBackend
from kadmin.config import ConnectionSettings
from kadmin.model import FOLLOWER_RATE, AlterOp, ConfigChange, ConfigResource, ConfigResourceType
from kadmin.sandbox import Sandbox

TIMEOUT = 8.0


def rate(broker: int, value: str) -> ConfigChange:
    return ConfigChange(ConfigResource(ConfigResourceType.BROKER, str(broker)), FOLLOWER_RATE, AlterOp.SET, value)


@pytest.mark.parametrize("small_client", [True, False], ids=["small-client", "library-clients"])
def test_a_broker_back_from_a_restart_takes_config_changes_at_once(small_client):
    with Sandbox(brokers=3) as sb:
        sb.faults.broker_stop(2)
        sb.settle()
        settings = ConnectionSettings(bootstrap_servers=sb.bootstrap.split(",")[0], timeout=TIMEOUT)
        with AdminBackend(settings, read_only=False) as backend:
            backend._wire_off = not small_client
            backend.describe_cluster()
            backend.incremental_alter_configs([rate(0, "1000")])  # the client exists, broker 2 down
            sb.faults.broker_start(2)
            sb.settle()
            backend.incremental_alter_configs([rate(2, "2000")])  # it waited out TIMEOUT, then failed
            got = backend.describe_configs([ConfigResource(ConfigResourceType.BROKER, "2")], [FOLLOWER_RATE])
        assert got[ConfigResource(ConfigResourceType.BROKER, "2")][FOLLOWER_RATE].value == "2000"
        assert sb.snapshot().broker_configs["2"][FOLLOWER_RATE] == "2000"
