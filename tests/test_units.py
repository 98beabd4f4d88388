import math
import threading

import pytest
from hypothesis import given, strategies as st

from kadmin.errors import InputError
from kadmin.units import (
    MAX_DURATION,
    counted,
    duration_like,
    format_duration,
    format_rate,
    format_size,
    parse_duration,
    parse_rate,
    parse_size,
    plural,
)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1000000", 1_000_000),
        ("50MB/s", 50_000_000),
        ("50 MB/s", 50_000_000),
        ("50MBps", 50_000_000),
        ("50M", 50_000_000),
        ("10MiB/s", 10 * 1024 * 1024),
        ("10mib/s", 10 * 1024 * 1024),
        ("1.5GB/s", 1_500_000_000),
        ("512k", 512_000),
        ("512KiB/s", 512 * 1024),
        ("400Mbit/s", 50_000_000),
        ("1000000B/s", 1_000_000),
        ("2 bytes/sec", 2),
    ],
)
def test_parse_rate(text, expected):
    assert parse_rate(text) == expected


@pytest.mark.parametrize("text", ["50Mb/s", "50mb", "10kb/s"])
def test_lowercase_b_after_a_prefix_is_refused_as_ambiguous(text):
    with pytest.raises(InputError) as e:
        parse_rate(text)
    assert "ambiguous" in e.value.message
    assert "bit" in e.value.hint


def test_rate_errors_quote_what_was_written_and_suggest_rates():
    with pytest.raises(InputError) as e:
        parse_rate("5Mbps")
    assert e.value.message == "rate '5Mbps' is ambiguous"
    assert e.value.hint == "write 5MB/s for bytes or 5Mbit/s for bits"
    with pytest.raises(InputError) as e:
        parse_rate(" -5MB/s")
    assert e.value.message == "cannot read rate '-5MB/s'"


@pytest.mark.parametrize("text", ["", "fast", "-5MB/s", "0", "0.1", "5 XB/s", "MB/s"])
def test_parse_rate_rejects_nonsense_and_zero(text):
    with pytest.raises(InputError):
        parse_rate(text)


@pytest.mark.parametrize(
    "text, expected",
    [("20GB", 20 * 10**9), ("1.5GiB", int(1.5 * 2**30)), ("100", 100), ("1TiB", 2**40), ("0", 0)],
)
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [("30s", 30.0), ("2m", 120.0), ("1h30m", 5400.0), ("500ms", 0.5), ("2.5", 2.5), ("1m 30s", 90.0)],
)
def test_parse_duration(text, expected):
    assert parse_duration(text) == pytest.approx(expected)


@pytest.mark.parametrize("text", ["", "soon", "2x", "s", "-1s"])
def test_parse_duration_rejects(text):
    with pytest.raises(InputError):
        parse_duration(text)


@pytest.mark.parametrize(
    "text, bound",
    [
        ("1000000d", "24d"),
        ("99999999999h", "576h"),  # the bound in the unit the user wrote
        ("34561m", "34560m"),
        ("2073601s", "2073600s"),
        ("1h" + "9" * 400 + "ms", "576h"),  # past a float's range: too large, not "zero or more"
        (1e300, "2073600s"),
    ],
)
def test_a_duration_over_24_days_is_refused_naming_the_bound(text, bound):
    # `reassign progress --watch --interval 1000000d` ended in "unexpected OverflowError:
    # timestamp out of range for platform time_t" (a bug in kadmin), exit 1, once it slept.
    with pytest.raises(InputError) as e:
        parse_duration(text)
    assert e.value.message == f"duration {text!r} is too large: at most {bound}"


def test_24_days_is_the_longest_duration_and_a_caller_may_bound_it_otherwise():
    assert parse_duration("24d") == MAX_DURATION == 24 * 86400
    assert parse_duration("25d", at_most=math.inf) == 25 * 86400
    with pytest.raises(InputError, match="at most 60m"):
        parse_duration("61m", at_most=3600)


@given(st.integers(min_value=0, max_value=10**30), st.sampled_from(["ms", "s", "m", "h", "d", ""]))
def test_every_duration_read_fits_kafkas_32_bit_milliseconds_and_pythons_waits(n, unit):
    text = f"{n}{unit}"
    try:
        seconds = parse_duration(text)
    except InputError as e:
        assert "is too large: at most" in e.message
        return
    assert 0 <= round(seconds * 1000) <= 2**31 - 1  # Kafka's INT32 timeout_ms fields
    assert seconds <= threading.TIMEOUT_MAX and seconds <= 4294967  # Python's waits (Windows: 32-bit ms)


@pytest.mark.parametrize(
    "seconds, written, shown",
    [
        (3600, "10000h", "1h"),
        (3600, "90m", "60m"),
        (3600, "5000s", "3600s"),
        (3600, "4000000ms", "3600000ms"),
        (3600, "2d", "1h"),  # not a whole number of days: the largest whole units
        (3600, "1d2h", "1h"),
        (3600, 5000, "3600s"),  # a number (a profile's) is seconds
        (90.5, "1h", "1m30s500ms"),
    ],
)
def test_duration_like_speaks_the_users_units(seconds, written, shown):
    assert duration_like(seconds, written) == shown


def test_formatting():
    assert format_size(999) == "999 B"
    assert format_size(1_500_000_000) == "1.5 GB"
    assert format_size(1_500_000_000, binary=True) == "1.4 GiB"
    assert format_rate(50_000_000) == "50.0 MB/s"
    assert format_rate(None) == "-"
    assert format_duration(45) == "45s"
    assert format_duration(125) == "2m 05s"
    assert format_duration(3 * 3600 + 20 * 60) == "3h 20m"
    assert format_duration(None) == "-"
    assert format_duration(float("inf")) == "-"


@given(st.integers(min_value=1, max_value=10**15))
def test_bare_numbers_round_trip(n):
    assert parse_rate(str(n)) == n
    assert parse_size(str(n)) == n


@given(st.integers(min_value=1, max_value=10**14))
def test_formatted_sizes_read_back_within_rounding(n):
    text = format_size(n).replace(" ", "")
    assert abs(parse_size(text) - n) <= max(0.051 * n, 1)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("9223372036854775807", 2**63 - 1),  # Long.MAX_VALUE, Kafka's largest rate
        ("9007199254740993", 2**53 + 1),  # past a double's exact integers
        ("9007199254740993B/s", 2**53 + 1),
        ("0009007199254740993", 2**53 + 1),
        ("73786976294838206456bit/s", 2**63 - 1),
    ],
)
def test_whole_numbers_are_read_exactly_up_to_kafkas_long(text, expected):
    assert parse_rate(text) == expected


@pytest.mark.parametrize("text", ["9223372036854775808", "8388608TiB/s", "9" * 5000, "73786976294838206464bit/s"])
def test_a_rate_past_long_max_value_is_refused_naming_the_maximum(text):
    with pytest.raises(InputError) as e:
        parse_rate(text)
    assert "is too large: at most 9223372036854775807 bytes/s" in e.value.message


def test_fractions_round_to_the_nearest_byte_exactly():
    assert parse_rate("1.5") == 2 and parse_rate("2.5") == 2  # halves to even, as round() did
    assert parse_rate("0.5000000000000000000000000000000000001k") == 500
    assert parse_rate("1." + "0" * 5000 + "1") == 1  # no int() digit-limit error
    assert parse_size("0.1GiB") == 107374182  # 107374182.4


def test_a_count_and_its_noun_agree():
    assert counted(1, "partition") == "1 partition"
    assert counted(0, "partition") == "0 partitions"
    assert counted(3, "log-dir replica") == "3 log-dir replicas"
    assert plural("broker", 1) == "broker" and plural("broker", 2) == "brokers"
    assert plural("batch", 1) == "batch" and counted(2, "batch") == "2 batches"
