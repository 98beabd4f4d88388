"""The JSON files operators hand kadmin (plans, topic lists, election lists): read and parsed
here, so every reader refuses a file it cannot use alike, naming it. Every way the text can fail
to load is an InputError, not only a syntax error: Python's decoder also raises ValueError for
integers longer than its digit limit and RecursionError for deep nesting."""

from __future__ import annotations

import json
import os
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
    """The parsed document; InputError "[<source>: ]not valid JSON: ..." saying where or why."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}", source=source) from None
    except ValueError:  # Python's int digit limit (sys.get_int_max_str_digits)
        raise InputError("not valid JSON: a number has too many digits", source=source) from None
    except RecursionError:
        raise InputError("not valid JSON: arrays or objects nested too deeply", source=source) from None
