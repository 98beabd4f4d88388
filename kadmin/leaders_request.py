"""``leaders elect``'s request: the flags as a params value with a pure ``validate()`` (Kafka's
LeaderElectionCommand rules), and the ``--path-to-json-file`` format
(``{"partitions":[{"topic":"foo","partition":1}]}``, schemas/leader-election.json)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kadmin.backends.base import ElectionType
from kadmin.errors import InputError, UsageError
from kadmin.model import TopicPartition


@dataclass(frozen=True)
class ElectParams:
    preferred: bool = False
    unclean: bool = False
    election_type: str | None = None  # --election-type PREFERRED|UNCLEAN (kafka-leader-election.sh)
    all_topic_partitions: bool = False
    topic: str | None = None
    partition: int | None = None
    path_to_json_file: str | None = None
    max_per_broker: int | None = None
    batch_size: int | None = None

    def validate(self) -> ElectionType:
        """The election type; UsageError for flags that do not go together."""
        kinds = set()
        if self.preferred:
            kinds.add(ElectionType.PREFERRED)
        if self.unclean:
            kinds.add(ElectionType.UNCLEAN)
        if self.election_type is not None:
            try:
                kinds.add(ElectionType(self.election_type.strip().upper()))
            except ValueError:
                raise UsageError(f"--election-type must be PREFERRED or UNCLEAN, not {self.election_type!r}") from None
        if not kinds:
            raise UsageError("choose the election: --preferred or --unclean (or --election-type PREFERRED|UNCLEAN)")
        if len(kinds) > 1:
            raise UsageError("--preferred and --unclean exclude each other")
        if self.partition is not None and self.topic is None:  # said before the missing source
            raise UsageError("--partition needs --topic")
        sources = [
            name
            for name, given in (
                ("--all-topic-partitions", self.all_topic_partitions),
                ("--topic", self.topic is not None),
                ("--path-to-json-file", self.path_to_json_file is not None),
            )
            if given
        ]
        if not sources:
            raise UsageError(
                "choose the partitions: --all-topic-partitions, --topic T [--partition P] or --path-to-json-file F"
            )
        if len(sources) > 1:
            raise UsageError(f"{' and '.join(sources)} exclude each other")
        for name, value in (("--max-per-broker", self.max_per_broker), ("--batch-size", self.batch_size)):
            if value is not None and value < 1:
                raise UsageError(f"{name} must be at least 1, not {value}")
        return next(iter(kinds))


def read_election_file(path: str) -> list[TopicPartition]:
    """The partitions of the file at ``path``, every problem naming it as the user did."""
    from kadmin.plan.json_text import read_text

    return parse_election_file(read_text(path), path)


def parse_election_file(text: str, source: str = "election file") -> list[TopicPartition]:
    """The partitions, in file order. InputError lists every problem with its place; duplicates
    are refused as Kafka's tool refuses them."""
    from kadmin.plan.json_text import load_json

    data = load_json(text, source)
    problems = schema_problems(data)
    if problems:
        raise InputError(
            "does not match the leader election format",
            problems,
            hint='expected {"partitions":[{"topic":"foo","partition":1}]}',
            source=source,
        )
    tps = [TopicPartition(e["topic"], e["partition"]) for e in data["partitions"]]
    seen: set[TopicPartition] = set()
    dupes = []
    for i, tp in enumerate(tps):
        if tp in seen:
            dupes.append(f"partitions[{i}]: {tp} is listed more than once")
        seen.add(tp)
    if dupes:
        raise InputError("Replica election data contains duplicate partitions", dupes, source=source)
    return tps


def schema_problems(data: Any) -> list[str]:
    from kadmin.plan.topics_file import schema_problems as problems

    return problems(data, "leader-election", "partitions")
