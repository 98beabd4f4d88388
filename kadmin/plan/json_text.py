"""The JSON files operators hand kadmin (plans, topic lists, election lists): read and parsed
here, so every reader refuses a file it cannot use alike, naming it. Every way the text can fail
to load is an InputError, not only a syntax error: Python's decoder also raises ValueError for
integers longer than its digit limit and RecursionError for deep nesting."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from kadmin.errors import InputError


def read_text(path: str | os.PathLike) -> str:
    """The text of the input file at ``path``; InputError (exit 2) "<path>: cannot read: <why>"
    when it cannot be read as UTF-8 text, naming it as the user did."""
    try:
        return Path(path).read_text("utf-8")
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", source=path) from None
    except UnicodeDecodeError as e:
        raise InputError(f"cannot read: not UTF-8 text (byte {e.start})", source=path) from None


def load_json(text: str, source: str | None = None) -> Any:
    """The parsed document; InputError "[<source>: ]<why_not_json>"."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as e:
        raise InputError(why_not_json(text, e), source=source) from None


def why_not_json(text: str | bytes, error: ValueError | RecursionError) -> str:
    """Why ``text`` is not a JSON document (``error``: what the decoder raised), for every file
    kadmin reads (plans, topic and election lists, fleet results): an empty file, and one that
    ends before its document does (cut short, or still being written), say so; so do nesting too
    deep for the decoder (a RecursionError) and a number past Python's digit limit."""
    if not text.strip():
        return "the file is empty: no JSON document"
    if isinstance(error, RecursionError):
        return "not valid JSON: arrays or objects nested too deeply"
    if not isinstance(error, json.JSONDecodeError):
        return "not valid JSON: a number has too many digits" if "digit" in str(error) else f"not valid JSON: {error}"
    at = "" if error.msg.endswith(" at") else " at"  # "Unterminated string starting at"
    why = f"not valid JSON: {error.msg}{at} line {error.lineno} column {error.colno}"
    if error.msg.startswith("Unterminated string") or _CUT_TOKEN.fullmatch(error.doc[error.pos :].rstrip()):
        why += " (the file ends before its document does: cut short, or still being written?)"
    return why


# What may follow the place a decoder stopped at in a document cut short: nothing, or the start
# of a literal or number ("fal", "12e").
_CUT_TOKEN = re.compile(r"t(r(ue?)?)?|f(a(l(se?)?)?)?|n(u(ll?)?)?|[-+0-9.eE]*")
