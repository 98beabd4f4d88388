"""The Kafka versions the sandbox emulates.

A client library picks the highest protocol version both sides know, so a cluster of another
Kafka version shows kadmin other message shapes. The sandbox emulates one version per cluster:
what its brokers advertise in ApiVersions (``shared/kafka-api-versions/`` holds what real 3.3.1
and 4.3.1 brokers advertise) and the behaviours that differ between versions (KAFKA-FACTS.md).

Code that behaves differently per version asks a ``KafkaVersion`` (``cluster.version``) a
question named after the behaviour, never compares version strings itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from kadmin.errors import UsageError


@dataclass(frozen=True)
class KafkaVersion:
    name: str  # "3.3", "3.9", "4.3"
    major: int
    minor: int

    @property
    def supports_zookeeper(self) -> bool:
        """ZooKeeper mode was removed in Kafka 4.0."""
        return self.major < 4

    def at_least(self, major: int, minor: int = 0) -> bool:
        return (self.major, self.minor) >= (major, minor)

    def __str__(self) -> str:
        return self.name


VERSIONS: dict[str, KafkaVersion] = {
    v.name: v for v in (KafkaVersion("3.3", 3, 3), KafkaVersion("3.9", 3, 9), KafkaVersion("4.3", 4, 3))
}
DEFAULT = "4.3"
DEFAULT_ZOOKEEPER = "3.9"  # the newest version with ZooKeeper mode


def kafka_version(name: str | None, *, zookeeper: bool = False) -> KafkaVersion:
    """The emulated version named ``name`` ("3.3", "3.3.1" and "4.3" alike); None = the default
    for the mode. ZooKeeper mode is refused for 4.x, as Kafka removed it."""
    if name is None:
        name = DEFAULT_ZOOKEEPER if zookeeper else DEFAULT
    short = ".".join(str(name).strip().split(".")[:2])
    version = VERSIONS.get(short)
    if version is None:
        raise UsageError(f"Kafka version {name} is not emulated; choose one of {', '.join(VERSIONS)}")
    if zookeeper and not version.supports_zookeeper:
        raise UsageError(f"Kafka {version} has no ZooKeeper mode (removed in 4.0); "
                         f"use --kafka-version 3.3 or 3.9 with --zookeeper")
    return version
