"""How the AdminClient backend reads a broker's failed DescribeLogDirs."""

from kafka.errors import RequestTimedOutError, UnknownBrokerIdError

from kadmin.backends.admin import _log_dirs_answer
from kadmin.model import DOWN_ERROR, is_down_error


def test_a_broker_still_unknown_to_a_fresh_metadata_is_down_not_silent():
    """A broker stopped while the command ran: the library no longer knows it (after the
    retries, which refresh Metadata), so it is down, as the reports name a down broker ('broker 3
    is down (not in the cluster's broker list)'), not '(UnknownBrokerIdError: ...) did not
    answer'."""
    assert is_down_error(_log_dirs_answer(3, UnknownBrokerIdError("3"), None).error)
    assert _log_dirs_answer(3, UnknownBrokerIdError("3"), None).error == DOWN_ERROR
    assert not is_down_error(_log_dirs_answer(3, RequestTimedOutError("slow"), None).error)
