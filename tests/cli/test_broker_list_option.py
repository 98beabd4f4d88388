"""--brokers / --broker-list (commands/options.py int_list): an empty list is a usage error, not
"every broker" (an unset $BROKERS in a script must not widen a command to the whole cluster)."""

import click
import pytest
from click.testing import CliRunner

from kadmin.commands.options import int_list, str_list
from kadmin.commands.root import cli


def test_a_list_of_ids_and_an_absent_option():
    assert int_list("1,2, 3,", "--brokers") == [1, 2, 3]
    assert int_list(None, "--brokers") is None  # not given: the command's default


@pytest.mark.parametrize("value", ["0,,1", ",1", "1, ,2,"])
def test_an_empty_item_is_a_usage_error_not_skipped(value):
    """ "$A,$B,$C" with $B unset: the command must not act on the others alone. A trailing comma
    is fine (Kafka's tools read lists with Java's split, which drops trailing empty items)."""
    with pytest.raises(click.BadParameter, match="has an empty item"):
        int_list(value, "--broker-list")
    with pytest.raises(click.BadParameter, match="has an empty item"):
        str_list(value.replace("1", "a"), "--topic-list")
    r = CliRunner().invoke(cli, ["log-dirs", "describe", "--broker-list", value, "--bootstrap-server", "127.0.0.1:1",
                                 "--timeout", "1s"])
    assert r.exit_code == 2 and "has an empty item" in r.output, r.output


@pytest.mark.parametrize("value", ["", " ", ",", " , "])
def test_an_empty_list_is_a_usage_error(value):
    with pytest.raises(click.BadParameter, match="names no broker"):
        int_list(value, "--broker-list")


@pytest.mark.parametrize("args", [
    ["throttle", "set", "--rate", "1MB/s", "--brokers", "", "--dry-run"],
    ["log-dirs", "describe", "--broker-list", ""],
    ["reassign", "generate", "--topics-to-move-json-file", "{topics}", "--broker-list", ""],
])
def test_commands_refuse_an_empty_list_before_connecting(args, tmp_path):
    topics = tmp_path / "topics.json"
    topics.write_text('{"version": 1, "topics": [{"topic": "orders"}]}')
    args = [a.format(topics=topics) for a in args]
    r = CliRunner().invoke(cli, [*args, "--bootstrap-server", "127.0.0.1:1", "--timeout", "1s"])
    assert r.exit_code == 2, r.output
    assert "names no broker" in r.output
    # generate's --broker-list has no default to fall back to: the option is required
    required = args[0] == "reassign"
    assert ("the option is required" in r.output) is required, r.output
    assert ("leave the option out" in r.output) is not required, r.output


@pytest.mark.parametrize("args", [
    ["log-dirs", "describe", "--log-dirs", ""],
    ["log-dirs", "describe", "--topic-list", " , "],
    ["leaders", "show", "--topic-list", ""],
])
def test_an_empty_name_list_is_a_usage_error_too(args):
    """--topic-list "" / --log-dirs "" (an unset $TOPICS): not "every one"."""
    r = CliRunner().invoke(cli, [*args, "--bootstrap-server", "127.0.0.1:1", "--timeout", "1s"])
    assert r.exit_code == 2, r.output
    assert "is empty (leave the option out to mean every one)" in r.output
