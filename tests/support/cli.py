"""Running kadmin in-process from a test, through its real entry point."""

from __future__ import annotations

import pytest

from kadmin.commands.root import run


def kadmin(capsys, *args):
    """(exit code, stdout, stderr) of one kadmin run (``run``, as the installed script calls it)."""
    with pytest.raises(SystemExit) as e:
        run([str(a) if not isinstance(a, str) else a for a in args])
    out, err = capsys.readouterr()
    return e.value.code, out, err
