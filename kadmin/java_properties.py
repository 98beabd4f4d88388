"""Kafka's Java-side text formats, parsed in pure Python: client ``.properties`` files
(``--command-config``) and the ``sasl.jaas.config`` value inside them; plus the ``Secret``
wrapper and ``redact()`` that keep passwords out of reprs, logs and errors."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kadmin.errors import ConfigError

# --- secrets -------------------------------------------------------------------------------

MASK = "******"
_SENSITIVE = re.compile(r"password|secret|jaas|token|credential|digest|(^|\.)key(\.pem)?$|keystore\.key", re.I)


class Secret:
    """A value that must not be shown: its repr and str are masked; ``reveal()`` gives it.

    Its value is also registered for masking in log records: client libraries log their own
    configuration at DEBUG (kafka-python's "Starting KafkaAdminClient with configuration: ...")
    after ``reveal()`` handed them the password, and ``--debug`` shows those logs.
    """

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value
        mask_in_logs(value)

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return f"Secret({MASK})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


_MASKED: set[str] = set()
_LOG_MASKING = False


def mask_in_logs(value: str) -> None:
    """From now on, log records of this process show ``value``, in every form a log line can
    hold it (``logged_forms``), as the mask."""
    global _LOG_MASKING
    if not value:
        return
    _MASKED.update(logged_forms(value))
    if not _LOG_MASKING:
        import logging

        previous = logging.getLogRecordFactory()

        def factory(*args, **kwargs):
            return _mask_record(previous(*args, **kwargs))

        logging.setLogRecordFactory(factory)
        _LOG_MASKING = True


def logged_forms(value: str) -> set[str]:
    """``value`` as a log line may hold it: itself; inside the repr of a str (a logged dict of
    settings); inside the repr of its UTF-8 bytes or bytearray (kafka-python logs the SASL/PLAIN
    request it sends, ``auth_bytes=b'user\\x00user\\x00P\\xc3\\xa4ss'``); inside a JSON
    string. A repr escapes backslashes and non-printable characters (``\\xNN``, ``\\u200b``)
    and escapes ``'`` only when the text around it also holds a ``"``: both forms are kept."""
    import json

    encoded = value.encode("utf-8", "surrogatepass")
    forms = {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}
    # repr of text holding both quotes uses ' as its quote and escapes each ' inside.
    forms |= {repr(value)[1:-1], repr(value + '"')[1:-2]}
    forms |= {repr(encoded)[2:-1], repr(encoded + b'"')[2:-2]}
    return forms


def mask_text(text: str) -> str:
    """``text`` with every value registered by ``mask_in_logs`` replaced by the mask."""
    for value in sorted(_MASKED, key=len, reverse=True):
        if value in text:
            text = text.replace(value, MASK)
    return text


def _mask_record(record):
    try:
        message = record.getMessage()
    except Exception:  # a bad format string: the handler reports it as usual
        return record
    masked = mask_text(message)
    if masked != message:
        record.msg, record.args = masked, None
    if record.exc_info and record.exc_info[1] is not None:
        import traceback

        record.exc_text = mask_text("".join(traceback.format_exception(*record.exc_info)).rstrip("\n"))
    return record


def is_sensitive(key: str) -> bool:
    """True for property names whose values are secrets (passwords, JAAS config, private keys)."""
    return bool(_SENSITIVE.search(key))


def redact(values: Mapping[str, Any]) -> dict[str, Any]:
    """A copy with every sensitive value masked (nested dicts too), safe to print or log."""
    out: dict[str, Any] = {}
    for k, v in values.items():
        if isinstance(v, Mapping):
            out[k] = redact(v)
        elif v is not None and (is_sensitive(str(k)) or isinstance(v, Secret)):
            out[k] = MASK
        else:
            out[k] = v
    return out


# --- Java properties ------------------------------------------------------------------------

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def read_properties_file(path: Path) -> dict[str, str]:
    """Read a Kafka client properties file (``--command-config``)."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise ConfigError(f"cannot read properties file {path}: {e.strerror or e}") from None
    except ValueError as e:  # a NUL in the path
        raise ConfigError(f"cannot read properties file {str(path)!r}: {e}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:  # Java reads .properties as ISO-8859-1
        text = raw.decode("latin-1")
    try:
        properties = parse_properties(text)
    except ValueError as e:
        raise ConfigError(f"properties file {path}: {e}") from None
    for key, value in properties.items():
        if is_sensitive(key):
            mask_in_logs(value)
    return properties


def parse_properties(text: str) -> dict[str, str]:
    """Parse Java ``.properties`` text as java.util.Properties.load does: ``#``/``!`` comments,
    ``key=value``, ``key: value`` and ``key value``, backslash line continuations, escapes
    (``\\t \\n \\r \\f \\uXXXX``, ``\\x`` = x). Later keys win."""
    out: dict[str, str] = {}
    for number, line in _logical_lines(text):
        key_raw, value_raw = _split_entry(line)
        try:
            key = _unescape(key_raw)
            out[key] = _unescape(value_raw)
        except ValueError as e:  # name the line and key, never the value: it may be a password
            raise ValueError(f"line {number}{f' ({key_raw})' if key_raw else ''}: {e}") from None
    return out


def _logical_lines(text: str):
    natural = re.split(r"\r\n|\r|\n", text)
    i = 0
    while i < len(natural):
        line = natural[i].lstrip(" \t\f")
        i += 1
        number = i
        if not line or line[0] in "#!":
            continue
        while _continues(line) and i < len(natural):
            line = line[:-1] + natural[i].lstrip(" \t\f")
            i += 1
        if _continues(line):  # a trailing backslash on the last line is dropped, as Java does
            line = line[:-1]
        yield number, line


def _continues(line: str) -> bool:
    n = len(line) - len(line.rstrip("\\"))
    return n % 2 == 1


def _split_entry(line: str) -> tuple[str, str]:
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == "\\":
            i += 2
            continue
        if c in "=: \t\f":
            break
        i += 1
    key_raw = line[:i]
    while i < n and line[i] in " \t\f":
        i += 1
    if i < n and line[i] in "=:":
        i += 1
        while i < n and line[i] in " \t\f":
            i += 1
    return key_raw, line[i:]


def _unescape(s: str) -> str:
    if "\\" not in s:
        return s
    out, i, n = [], 0, len(s)
    while i < n:
        c = s[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = s[i + 1]
        if e == "u":
            digits = s[i + 2 : i + 6]
            if len(digits) != 4 or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise ValueError("malformed \\uxxxx escape")
            out.append(chr(int(digits, 16)))
            i += 6
        else:
            out.append(_ESCAPES.get(e, e))
            i += 2
    return "".join(out)


# --- sasl.jaas.config -----------------------------------------------------------------------

PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
_JAAS_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|([^\s=;"]+)|(=)|(;))', re.S)


@dataclass(frozen=True)
class JaasLogin:
    """One login module entry of sasl.jaas.config; option values that are secrets are wrapped."""

    module: str
    flag: str
    options: Mapping[str, str | Secret]

    def option(self, name: str) -> str | None:
        v = self.options.get(name)
        return v.reveal() if isinstance(v, Secret) else v


def parse_jaas_config(text: str) -> JaasLogin:
    """Parse ``<LoginModule> <flag> key="value" ...;`` (Kafka's JaasConfig). Errors never quote
    the text, which holds a password."""
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _JAAS_TOKEN.match(text, pos)
        if not m or m.end() == pos:
            if text[pos:].strip() == "":
                break
            raise ConfigError('sasl.jaas.config: cannot parse it (expected: LoginModule required key="value" ...;)')
        pos = m.end()
        if m.group(1) is not None:
            tokens.append(("str", re.sub(r"\\(.)", r"\1", m.group(1))))
        elif m.group(2) is not None:
            tokens.append(("word", m.group(2)))
        elif m.group(3):
            tokens.append(("=", "="))
        else:
            tokens.append((";", ";"))
    if len(tokens) < 3 or tokens[0][0] != "word" or tokens[1][0] != "word" or tokens[-1][0] != ";":
        raise ConfigError("sasl.jaas.config: expected 'LoginModule required key=\"value\" ...;'")
    module, flag = tokens[0][1], tokens[1][1].lower()
    if flag not in ("required", "requisite", "sufficient", "optional"):
        # Not quoted: a misplaced token may be the password.
        raise ConfigError(
            "sasl.jaas.config: the login module name must be followed by its flag: "
            "required, requisite, sufficient or optional"
        )
    body = tokens[2:-1]
    if any(kind == ";" for kind, _ in body):
        raise ConfigError("sasl.jaas.config: only one login module is supported")
    options: dict[str, str | Secret] = {}
    if len(body) % 3:
        raise ConfigError("sasl.jaas.config: options must be key=value pairs")
    for j in range(0, len(body), 3):
        (k_kind, key), (eq, _), (v_kind, value) = body[j : j + 3]
        if k_kind != "word" or eq != "=" or v_kind not in ("str", "word"):
            raise ConfigError("sasl.jaas.config: options must be key=value pairs")
        options[key] = Secret(value) if is_sensitive(key) else value
    return JaasLogin(module, flag, options)
