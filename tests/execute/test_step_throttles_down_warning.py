"""``down_rates_warning``: the down brokers an incremental run cannot give its rates now,
against what this plan's record says an earlier part of the run set there."""

from kadmin.execute.step_throttles import down_rates_warning
from kadmin.model import FOLLOWER_RATE, LEADER_RATE, LOG_DIR_RATE

RATES = {LEADER_RATE: 50_000_000, FOLLOWER_RATE: 50_000_000}


def test_a_broker_whose_rates_the_record_claims_is_not_named():
    claimed = {(1, LEADER_RATE): 50_000_000, (1, FOLLOWER_RATE): 50_000_000}
    assert down_rates_warning({1: RATES}, claimed) is None


def test_a_broker_the_record_does_not_rate_is_named_without_a_by_hand_command():
    line = down_rates_warning({1: RATES, 3: RATES}, {(1, LEADER_RATE): 50_000_000, (1, FOLLOWER_RATE): 50_000_000})
    assert line == (
        "broker 3 is down: this run cannot set its rates now (a broker's configs change only while it runs; it sends "
        "nothing while down); it sets them once it is back, while it runs or when resumed, recorded as its own and "
        "removed at its end"
    )
    assert "throttle set" not in line


def test_a_rate_the_record_holds_at_another_value_is_named_with_what_stays():
    wanted = {1: {**RATES, LOG_DIR_RATE: 10}, 2: RATES}
    claimed = {(1, LEADER_RATE): 50_000_000, (1, FOLLOWER_RATE): 50_000_000, (2, LEADER_RATE): 20_000_000}
    assert down_rates_warning(wanted, claimed) == (
        "brokers 1, 2 are down: this run cannot set their rates now (a broker's configs change only while it runs; it "
        "sends nothing while down); it sets them once they are back, while it runs or when resumed, recorded as its "
        "own and removed at its end; until then brokers 1, 2 keep the rates an earlier part of this run set there"
    )
