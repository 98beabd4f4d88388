import json
from dataclasses import replace

import pytest

from kadmin.errors import EXIT_USAGE, InputError
from kadmin.model import PartitionReassignment, TopicPartition
from kadmin.plan.reassignment_file import parse_reassignment
from kadmin.plan.validate import check_reassignment, validate_reassignment
from tests.execute.fakes import broker_log_dirs, cluster_state

CLUSTER = cluster_state({"foo": {0: [1, 2], 1: [2, 3]}, "bar": {0: [3, 1]}}, brokers=(1, 2, 3, 4))
DIRS = broker_log_dirs(
    {1: ["/d/a", "/d/b"], 2: ["/d/a", "/d/b"], 3: ["/d/a", "/d/b"], 4: ["/d/a", "/d/b"]},
    offline={(2, "/d/b")},
    cordoned={(3, "/d/b")},
)


def problems(partitions, version=1, cluster=CLUSTER, dirs=DIRS, **kw):
    doc = {"version": version, "partitions": partitions}
    parsed = parse_reassignment(json.dumps(doc))
    return [str(p) for p in validate_reassignment(parsed, cluster, dirs, **kw)]


def entry(topic="foo", partition=0, replicas=(1, 2), log_dirs=None):
    e = {"topic": topic, "partition": partition, "replicas": list(replicas)}
    if log_dirs is not None:
        e["log_dirs"] = list(log_dirs)
    return e


def test_a_sound_plan_has_no_problems():
    assert problems([entry(replicas=(4, 2), log_dirs=("/d/b", "any")), entry(partition=1, replicas=(3, 1))]) == []


def test_empty_plan():
    assert problems([]) == ["partitions: is empty: there is nothing to reassign"]


def test_version_other_than_1():
    assert problems([entry()], version=2) == ["version: must be 1, not 2"]


def test_duplicate_partition_names_both_places():
    assert problems([entry(), entry(topic="bar"), entry(replicas=(2, 1))]) == [
        "partitions[2] (foo-0): duplicate partition: foo-0 already appears at partitions[0]"
    ]


def test_broker_twice_in_a_list():
    assert problems([entry(replicas=(1, 1))]) == ["partitions[0] (foo-0) replicas: broker 1 appears more than once"]


def test_unknown_topic_partition_and_broker():
    assert problems([entry(topic="nope"), entry(partition=7), entry(partition=1, replicas=(9, 3))]) == [
        "partitions[0] (nope-0) topic: unknown topic 'nope'",
        "partitions[1] (foo-7) partition: unknown partition: topic 'foo' has partitions 0..1",
        "partitions[2] (foo-1) replicas[0]: unknown broker 9: not among the running brokers (1, 2, 3, 4)",
    ]


def test_a_broker_that_is_down_cannot_receive_a_new_replica_but_may_keep_one():
    brokers = {b: v for b, v in CLUSTER.brokers.items() if b != 3}
    down = replace(CLUSTER, brokers=brokers)
    assert problems([entry(replicas=(3, 2)), entry(partition=1, replicas=(3, 2))], cluster=down) == [
        "partitions[0] (foo-0) replicas[0]: broker 3 is not running (not in the cluster's broker list); "
        "a new replica cannot be placed there"
    ]
    # ...but its directory cannot be changed while it is down.
    assert problems([entry(partition=1, replicas=(2, 3), log_dirs=("any", "/d/a"))], cluster=down) == [
        "partitions[0] (foo-1) log_dirs[1]: cannot be checked or moved: broker 3 is not running"
    ]


def test_log_dirs_length_mismatch():
    assert problems([entry(log_dirs=("any",))]) == [
        "partitions[0] (foo-0) log_dirs: has 1 entries but replicas has 2: give one per replica"
    ]


def test_log_dir_not_any_nor_absolute_unknown_offline_cordoned():
    assert problems([entry(replicas=(1, 2, 3), log_dirs=("data", "/d/b", "/d/b")), entry(partition=1, replicas=(4, 3), log_dirs=("/d/z", "any"))],
                    allow_replication_factor_change=True) == [
        "partitions[0] (foo-0) log_dirs[0]: 'data' is neither \"any\" nor an absolute path",
        "partitions[0] (foo-0) log_dirs[1]: /d/b on broker 2 is offline (KafkaStorageException)",
        "partitions[0] (foo-0) log_dirs[2]: /d/b on broker 3 is cordoned: no new replicas may be placed there",
        "partitions[1] (foo-1) log_dirs[0]: /d/z is not a log directory of broker 4 (its directories: /d/a, /d/b)",
    ]


def test_no_move_within_a_broker_that_has_an_offline_directory():
    """Kafka creates no future replica on such a broker (KAFKA_STORAGE_ERROR). A replica already
    in the named directory needs none, nor does a new replica the broker is joining with."""
    foo0 = TopicPartition("foo", 0)
    dirs = broker_log_dirs({1: ["/d/a"], 2: ["/d/a", "/d/b", "/d/c"], 4: ["/d/a", "/d/b"]},
                           placement={(foo0, 2): "/d/c"}, offline={(2, "/d/b")})
    assert problems([entry(log_dirs=("any", "/d/a"))], dirs=dirs) == [
        "partitions[0] (foo-0) log_dirs[1]: broker 2 has an offline log directory (/d/b): Kafka creates no future "
        "replica there until it is back (KAFKA_STORAGE_ERROR)"
    ]
    assert problems([entry(log_dirs=("any", "/d/c"))], dirs=dirs) == []  # already there
    assert problems([entry(topic="bar", replicas=(2, 1), log_dirs=("/d/a", "any"))], dirs=dirs) == []  # joining


def test_log_dirs_that_cannot_be_checked_are_problems():
    assert problems([entry(log_dirs=("/d/a", "any"))], dirs=None) == [
        "partitions[0] (foo-0) log_dirs[0]: cannot be checked: this connection cannot describe log directories (use --bootstrap-server)"
    ]


def test_replication_factor_change_needs_the_flag():
    assert problems([entry(replicas=(1, 2, 3))]) == [
        "partitions[0] (foo-0) replicas: changes the replication factor from 2 to 3 "
        "(pass --allow-replication-factor-change if this is meant)"
    ]
    assert problems([entry(replicas=(1, 2, 3))], allow_replication_factor_change=True) == []


def test_replication_factor_compares_with_the_target_of_a_running_reassignment():
    parts = dict(CLUSTER.partitions)
    tp = TopicPartition("foo", 0)
    parts[tp] = replace(parts[tp], replicas=(3, 1, 2), adding=(3,), removing=(2,))
    assert problems([entry(replicas=(3, 4))], cluster=replace(CLUSTER, partitions=parts)) == []
    # Metadata alone shows the full set; ListPartitionReassignments says what is being removed.
    parts[tp] = replace(parts[tp], adding=(), removing=())
    ongoing = {tp: PartitionReassignment("foo", 0, (3, 1, 2), (3,), (2,))}
    assert problems([entry(replicas=(3, 4))], cluster=replace(CLUSTER, partitions=parts), ongoing=ongoing) == []


def test_replication_factor_of_a_partition_mid_step_is_its_original_or_target_size_never_the_full_set():
    """An incremental step adding 3 to [2, 0, 1] (target 3,0,1,2): Metadata lists 4 replicas,
    ListPartitionReassignments adding 3, removing none. The partition's replication factor is 3
    before the move (the original: full set minus adding, which Kafka's controller reassigns
    from) and 4 after it (the target); a plan of 3 replicas changes nothing of it, one of 5 does."""
    parts = dict(CLUSTER.partitions)
    tp = TopicPartition("foo", 0)
    parts[tp] = replace(parts[tp], replicas=(2, 1, 4, 3))
    cluster = replace(CLUSTER, partitions=parts)
    ongoing = {tp: PartitionReassignment("foo", 0, (2, 1, 4, 3), (3,), ())}
    assert problems([entry(replicas=(3, 1, 4))], cluster=cluster, ongoing=ongoing) == []
    assert problems([entry(replicas=(3, 1, 4, 2))], cluster=cluster, ongoing=ongoing) == []
    assert problems([entry(replicas=(3, 1))], cluster=cluster, ongoing=ongoing) == [
        "partitions[0] (foo-0) replicas: changes the replication factor from 3 (4 once its running reassignment "
        "ends) to 2 (pass --allow-replication-factor-change if this is meant)"
    ]
    # the same read from the topic znode (ZooKeeper: adding/removing there)
    parts[tp] = replace(parts[tp], adding=(3,))
    assert problems([entry(replicas=(3, 1, 4))], cluster=replace(CLUSTER, partitions=parts)) == []


def test_every_problem_at_once_and_exit_2():
    parsed = parse_reassignment(json.dumps({"version": 1, "partitions": [entry(topic="nope"), entry(replicas=(1, 1)), entry(partition=1, replicas=("x",))]}))
    with pytest.raises(InputError) as err:
        check_reassignment(parsed, CLUSTER, DIRS)
    assert err.value.exit_code == EXIT_USAGE
    assert err.value.message == "the reassignment plan has 3 problems; nothing was changed"
    assert [p.index for p in err.value.details] == [2, 0, 1]


def test_file_problems_are_the_cluster_check_s_own_problems_of_the_file():
    """file_problems (what verify, progress, cancel and throttle set refuse a plan for) finds,
    with no cluster, exactly the problems validate_reassignment reports that need none: same
    words, same order; the cluster's (unknown topic, partition, broker; replication factor;
    directories that are not the broker's) are left to the cluster check."""
    from kadmin.plan.validate import file_problems

    doc = {"version": 1, "partitions": [
        entry(topic="nope"),  # cluster: unknown topic
        entry(replicas=(1, 1)),  # file: a broker twice
        entry(partition=1, replicas=(2, 3), log_dirs=("any", "relative/dir")),  # file: not absolute
        entry(partition=7),  # cluster: unknown partition
        entry(replicas=(1, 2, 9)),  # file: duplicate of partitions[1]; cluster: unknown broker, RF change
        entry(topic="bar", replicas=(3, 1), log_dirs=("any",)),  # file: log_dirs length
        entry(topic="bar", partition=1, replicas=(3, 1), log_dirs=("/d/x", "any")),  # cluster: unknown topic, dir
        {"topic": "foo", "partition": "0", "replicas": [1]},  # file: shape
    ]}
    parsed = parse_reassignment(json.dumps(doc))
    every = [str(p) for p in validate_reassignment(parsed, CLUSTER, DIRS)]
    own = [str(p) for p in file_problems(parsed)]
    assert own == [
        'partitions[7] partition: must be an integer >= 0, not a string ("0")',
        "partitions[1] (foo-0) replicas: broker 1 appears more than once",
        "partitions[2] (foo-1) log_dirs[1]: 'relative/dir' is neither \"any\" nor an absolute path",
        "partitions[4] (foo-0): duplicate partition: foo-0 already appears at partitions[1]",
        "partitions[5] (bar-0) log_dirs: has 1 entries but replicas has 2: give one per replica",
    ]
    assert [p for p in every if p in own] == own  # the same words, in the same order
    assert len(every) > len(own)
    empty = parse_reassignment('{"version":1,"partitions":[]}')
    assert file_problems(empty) == validate_reassignment(empty, CLUSTER, DIRS)


def test_a_broker_that_did_not_describe_its_directories_is_not_a_problem_of_the_plan():
    """A log_dirs target on a broker that did not answer DescribeLogDirs cannot be checked now:
    exit 1 ('check the broker and run it again'), not exit 2 'fix the plan' (the plan is fine);
    with a real problem besides, the plan's problems are listed as before (exit 2)."""
    from kadmin.backends.base import BrokerLogDirs
    from kadmin.errors import EXIT_ERROR, ConnectionFailed

    dirs = {**DIRS, 4: BrokerLogDirs(4, error="REQUEST_TIMED_OUT")}
    sound = parse_reassignment(json.dumps({"version": 1, "partitions": [entry(replicas=(4, 2), log_dirs=("/d/a", "any"))]}))
    with pytest.raises(ConnectionFailed) as e:
        check_reassignment(sound, CLUSTER, dirs)
    assert e.value.exit_code == EXIT_ERROR
    assert "broker 4 (REQUEST_TIMED_OUT) did not describe its log directories; nothing was changed" in e.value.message
    bad = parse_reassignment(json.dumps({"version": 1, "partitions": [
        entry(replicas=(4, 2), log_dirs=("/d/a", "any")), entry(topic="nope")]}))
    with pytest.raises(InputError) as e:
        check_reassignment(bad, CLUSTER, dirs)
    assert e.value.exit_code == EXIT_USAGE
