"""Entry point. Kept tiny so ``kadmin --help`` starts fast: the root group lives in
``kadmin.commands.root`` and loads each command group's module only when it runs."""

from __future__ import annotations

from typing import NoReturn

# The cyclic garbage collector runs after every 700 new container objects by default. A command
# creates most of its objects while it imports (functions, classes, dicts), and they are not
# garbage: a read command's two dozen collections (~4 ms of its ~60 ms) freed no more than the
# four left at 10,000 (~1.7 ms, most before this runs). Long runs are still collected.
GC_THRESHOLD = 10_000


def main() -> NoReturn:
    import gc

    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    try:
        from kadmin.commands.root import run

        run()
    except SystemExit as e:
        end_process(e.code)
    except KeyboardInterrupt:  # before the root group's own handler (while importing, or parsing)
        import sys

        print("kadmin: interrupted", file=sys.stderr)
        end_process(130)
    end_process(0)


def end_process(code: object) -> NoReturn:
    """Exit with ``code`` once the command is done, without the interpreter's teardown.

    Python's normal exit then frees every module and object one by one: ~15 ms of a read
    command's ~120 ms here, and nothing of it reaches the user. So, once no other thread is
    running, this does what matters of that exit (the ``atexit`` handlers, which close log
    files and delete temporary directories, then stdout and stderr flushed) and ends the
    process at once. Anything else (a message as exit status, a thread still working, a
    profiler or tracer that writes its results after the run, ``python -X dev``) exits the
    usual way."""
    import sys
    import threading

    others = [t for t in threading.enumerate() if t is not threading.current_thread() and not t.daemon]
    watched = sys.getprofile() is not None or sys.gettrace() is not None
    if not (code is None or isinstance(code, int)) or others or watched or sys.flags.dev_mode:
        raise SystemExit(code)
    import atexit
    import os

    status = code or 0
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except BrokenPipeError:  # the reader went away (`kadmin ... | head -1`)
            status = status or 1
        except (OSError, ValueError):
            status = status or 120  # what Python's own exit gives when it cannot flush stdout
    os._exit(status)
