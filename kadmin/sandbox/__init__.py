"""An emulated Kafka cluster on loopback that real clients cannot tell from brokers.

``Sandbox`` (in ``sandbox.py``) is the Python API; ``python -m kadmin.sandbox`` and
``kadmin sandbox`` run it as a process. Modules, one concept each:
protocol (API registry and codec), wire (a broker's listener), apis/api_* (request handlers),
cluster (the model), configs, controller (placement, election, reassignment), replication (the
simulation), logdirs (one broker's disks), engine (event loop and time), faults, snapshot,
zookeeper (ZooKeeper mode), control (the control socket), process (state dir, detaching), demo.
"""

from __future__ import annotations


def __getattr__(name):
    if name == "Sandbox":
        from kadmin.sandbox.sandbox import Sandbox

        return Sandbox
    raise AttributeError(name)


__all__ = ["Sandbox"]
