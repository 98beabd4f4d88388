"""JSON Schemas of every file kadmin reads or writes (installed as ``kadmin.schemas``)."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=None)
def load(name: str) -> dict:
    """The schema ``<name>.json`` as a dict."""
    return json.loads(resources.files(__name__).joinpath(f"{name}.json").read_text("utf-8"))
