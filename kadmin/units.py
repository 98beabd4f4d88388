"""Rates, sizes and durations as people type and read them.

Kafka's configs are plain bytes (and bytes per second); operators think in "50MB/s" or
"10MiB/s". Decimal prefixes are powers of 1000 (kB, MB, GB, TB), binary ones powers of 1024
(KiB, MiB, GiB, TiB), as disk vendors, ``df -H`` and ``df -h`` use them. A bare number is bytes
(or seconds). Bits are accepted only when spelled out ("400Mbit/s"); "Mb" is refused as
ambiguous, because an eightfold throttle mistake is expensive.

Pure functions; bad input raises ``kadmin.errors.InputError``.
"""

from __future__ import annotations

import math
import re

from kadmin.errors import InputError

MAX_BYTES = 2**63 - 1  # Long.MAX_VALUE: Kafka's rate and size configs are of type LONG
_DECIMAL = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12, "p": 10**15}
_BINARY = {"ki": 2**10, "mi": 2**20, "gi": 2**30, "ti": 2**40, "pi": 2**50}

_QUANTITY = re.compile(
    r"""^\s*(?P<num>\d+(?:\.\d*)?|\.\d+)\s*
        (?P<prefix>ki|mi|gi|ti|pi|k|m|g|t|p)?
        (?P<unit>bytes|byte|bits|bit|b)?\s*$""",
    re.IGNORECASE | re.VERBOSE,
)


def _quantity(text: str, what: str, example: str, *, as_written: str | None = None, per: str = "") -> int:
    """Bytes in ``text`` ("50MB", "1.5GiB", "400Mbit", "1000000"). Errors quote ``as_written``
    (what the user typed, when ``text`` is a part of it) and suggest units ending in ``per``."""
    raw = text if as_written is None else as_written
    m = _QUANTITY.match(text)
    if not m:
        raise InputError(f"cannot read {what} {raw!r}", hint=f"write it like {example}")
    whole, _, fraction = m.group("num").partition(".")
    whole = whole.lstrip("0")
    if len(whole) > 25:  # past any LONG whatever the unit (and past Python's int() digit limit)
        raise _too_large(what, raw, per)
    if len(fraction) > 30:  # digits past the 30th only break ties: keep whether any is set
        fraction = fraction[:30] + ("1" if fraction[30:].strip("0") else "")
    prefix = (m.group("prefix") or "").lower()
    unit = m.group("unit") or ""
    if unit == "b" and prefix and prefix not in _BINARY:
        # "Mb" is megabits by convention, but people often mean megabytes: refuse to guess.
        # ("mib" is read as MiB: nobody means mebibits.)
        raise InputError(
            f"{what} {raw!r} is ambiguous",
            hint=f"write {m.group('num')}{_canonical(prefix)}B{per} for bytes or "
            f"{m.group('num')}{_canonical(prefix)}bit{per} for bits",
        )
    factor = _BINARY[prefix] if prefix in _BINARY else _DECIMAL[prefix]
    # Exact arithmetic (no float): "9223372036854775807" is that number, not the nearest double.
    numerator = int(whole + fraction or "0") * factor
    denominator = 10 ** len(fraction) * (8 if unit.lower() in ("bit", "bits") else 1)
    value, rest = divmod(numerator, denominator)
    if 2 * rest > denominator or (2 * rest == denominator and value % 2):
        value += 1  # to the nearest byte, halves to even (as round() does)
    if value > MAX_BYTES:
        raise _too_large(what, raw, per)
    return value


def _too_large(what: str, raw: str, per: str) -> InputError:
    return InputError(
        f"{what} {raw!r} is too large: at most {MAX_BYTES} bytes{per} (Long.MAX_VALUE: Kafka's configs of "
        "rates and sizes are of type LONG)"
    )


def _canonical(prefix: str) -> str:
    return "k" if prefix == "k" else prefix[0].upper() + prefix[1:]


def parse_size(text: str | int) -> int:
    """Bytes from "20GB", "1.5GiB", "512k", "1000000"."""
    if isinstance(text, int):
        return text
    return _quantity(text, "size", '"20GB", "1.5GiB" or "1000000"')


def parse_rate(text: str | int) -> int:
    """Bytes per second from "50MB/s", "10MiB/s", "400Mbit/s", "1000000" (a whole number >= 1).

    "/s", "ps" and "/sec" are optional: a rate is always per second.
    """
    if isinstance(text, int):
        value = text
    else:
        body = re.sub(r"\s*(/\s*s(ec(ond)?)?|ps)\s*$", "", text.strip(), flags=re.IGNORECASE)
        example = '"50MB/s", "10MiB/s" or "1000000" (bytes per second)'
        value = _quantity(body, "rate", example, as_written=text.strip(), per="/s")
    if value < 1:
        raise InputError(f"rate {text!r} must be at least 1 byte per second")
    return value


_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|m|h|d)?", re.IGNORECASE)
_SECONDS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "": 1}
# The longest duration kadmin reads (an interval, a timeout): below 2**31 - 1 ms (24.8 days), the
# most Kafka's INT32 millisecond fields hold, and below Python's longest wait on every platform
# (threading.TIMEOUT_MAX: 49.7 days on Windows). Past it a sleep or a request overflows.
MAX_DURATION = 24 * 86400.0


def parse_duration(text: str | float | int, *, at_most: float = MAX_DURATION) -> float:
    """Seconds from "30s", "2m", "1h30m", "500ms", "2.5" (bare numbers are seconds), at most
    ``at_most`` (24 days unless the caller checks its own bound: ``math.inf``)."""
    if isinstance(text, (int, float)):
        seconds = float(text)
    else:
        s = text.strip().replace(" ", "")
        pos, seconds = 0, 0.0
        for m in _DURATION_PART.finditer(s):
            if m.start() != pos:
                break
            seconds += float(m.group(1)) * _SECONDS[(m.group(2) or "").lower()]
            pos = m.end()
        if not s or pos != len(s):
            raise InputError(f"cannot read duration {text!r}", hint='write it like "30s", "2m" or "1h30m"')
    if math.isnan(seconds):
        raise InputError(f"cannot read duration {text!r}", hint='write it like "30s", "2m" or "1h30m"')
    if seconds < 0:
        raise InputError(f"duration {text!r} must be zero or more")
    if seconds > at_most:  # "99999999999h" and digits past a float's range (inf) too
        raise InputError(f"duration {text!r} is too large: at most {duration_like(at_most, text)}")
    return seconds


def duration_like(seconds: float, written: str | float | int) -> str:
    """``seconds`` in the largest unit of ``written`` (what the user typed) when it is a whole
    number of them, so a bound reads in the user's terms ("576h" for "99999999999h"); else
    in days, hours, minutes, seconds and milliseconds ("1h", "24d", "1m30s")."""
    units = [u.lower() for u in re.findall(r"[a-z]+", str(written), re.IGNORECASE)] if isinstance(written, str) else []
    unit = max((u for u in units if u in _SECONDS), key=_SECONDS.__getitem__, default="s")
    ms = round(seconds * 1000)
    per = round(_SECONDS[unit] * 1000)
    if ms % per == 0:
        return f"{ms // per}{unit}"
    parts = []
    for name in ("d", "h", "m", "s", "ms"):
        n, ms = divmod(ms, round(_SECONDS[name] * 1000))
        if n:
            parts.append(f"{n}{name}")
    return "".join(parts) or "0s"


def format_size(n: int | float | None, *, binary: bool = False) -> str:
    """ "1.5 GB" (or "1.4 GiB" with binary=True); "-" when unknown."""
    if n is None:
        return "-"
    step, names = (
        (1024, ("B", "KiB", "MiB", "GiB", "TiB", "PiB")) if binary else (1000, ("B", "kB", "MB", "GB", "TB", "PB"))
    )
    sign = "-" if n < 0 else ""
    v = float(abs(n))
    for name in names:
        if v < step or name == names[-1]:
            if name == "B":
                return f"{sign}{int(v)} B"
            return f"{sign}{v:.1f} {name}"
        v /= step
    raise AssertionError("unreachable")


def format_rate(bps: int | float | None, *, binary: bool = False) -> str:
    """ "50.0 MB/s"; "-" when unknown."""
    if bps is None:
        return "-"
    return format_size(bps, binary=binary) + "/s"


def format_duration(seconds: float | None) -> str:
    """ "45s", "2m 05s", "3h 20m", "2d 4h"; "-" when unknown (e.g. an ETA with no rate yet)."""
    if seconds is None or not math.isfinite(seconds):
        return "-"
    s = round(max(seconds, 0.0))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h {s % 3600 // 60:02d}m"
    return f"{s // 86400}d {s % 86400 // 3600}h"


def plural(noun: str, n: int) -> str:
    """``noun`` as said of ``n`` things: "broker" for one, "brokers" for any other number
    ("batches": a noun ending in s, x, z, ch or sh takes "es")."""
    if n == 1:
        return noun
    return noun + ("es" if noun.endswith(("s", "x", "z", "ch", "sh")) else "s")


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun`` as said together: "1 partition", "3 partitions"."""
    return f"{n} {plural(noun, n)}"
