"""Pause the cyclic garbage collector around bulk planning.

Planners allocate hundreds of thousands of small values that form no cycles; each automatic
collection then walks every live object, which can double a large plan's time. Reference
counting still frees everything; the collector runs again afterwards as usual.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
