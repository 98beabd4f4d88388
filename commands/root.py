"""The root ``kadmin`` group: global flags, lazy sub-groups, and the one place where errors
become a line on stderr and an exit code."""

from __future__ import annotations

import click

from kadmin import __version__
from kadmin.commands.options import LazyGroup

EXIT_CODES_HELP = """\b
Exit codes:
  0  done
  1  error
  2  bad usage or bad input (nothing was changed)
  3  still in progress (verify, progress)
  4  finished, but the cluster differs from the plan"""

# name -> (module, attribute, one-line help). Modules load only when their command runs, so
# `kadmin --help` imports no client library.
SUBCOMMANDS: dict[str, tuple[str, str, str]] = {
    "log-dirs": ("kadmin.commands.log_dirs", "log_dirs", "Describe and balance JBOD log directories (KIP-113)."),
    "reassign": ("kadmin.commands.reassign", "reassign", "Plan, execute, verify and follow partition reassignments."),
    "throttle": ("kadmin.commands.throttle", "throttle", "Set, show and clear replication throttles."),
    "leaders": ("kadmin.commands.leaders", "leaders", "Show leadership balance and elect preferred leaders."),
    "sandbox": ("kadmin.commands.sandbox", "sandbox", "Run an emulated Kafka cluster on loopback."),
}


class KadminFailure(click.ClickException):
    """A library error on its way out: Click prints it with ``show`` and exits with its code."""

    def __init__(self, error):
        super().__init__(str(error))
        self.error = error
        self.exit_code = error.exit_code

    def show(self, file=None) -> None:
        from kadmin.commands.render import print_error

        print_error(self.error)


class UnexpectedFailure(click.ClickException):
    """An exception kadmin did not expect (a bug, or a client library failing in a way kadmin
    does not know): one line naming it, never a bare ``KeyError: 'x'``."""

    exit_code = 1

    def __init__(self, error: BaseException):
        super().__init__(unexpected_message(error))
        self.error = error

    def show(self, file=None) -> None:
        from kadmin.commands.render import _one_line

        click.echo(_one_line(self.message), err=True)


def unexpected_message(error: BaseException) -> str:
    """``kadmin: error: unexpected KeyError: 'x' (a bug in kadmin ...)``: says it is kadmin's fault, names
    the exception and its message, and how to see more."""
    detail = str(error)
    what = f"{type(error).__name__}: {detail}" if detail else type(error).__name__
    return f"kadmin: error: unexpected {what} (a bug in kadmin: please report it; run with --debug for the traceback)"


class UsageFailure(click.ClickException):
    """Click's usage error (an unknown option, a bad value) as one line, like every other error:
    ``kadmin: error: No such option '--bogus'. (kadmin log-dirs describe --help)``, exit 2."""

    exit_code = 2

    def __init__(self, error: click.UsageError):
        where = f" ({error.ctx.command_path} --help)" if error.ctx is not None else ""
        super().__init__(f"kadmin: error: {error.format_message()}{where}")

    def show(self, file=None) -> None:
        from kadmin.commands.render import _one_line

        click.echo(_one_line(self.message), err=True)


def _one_line_usage(error: click.UsageError) -> click.ClickException:
    """A usage error as one line; a group called without a command keeps Click's help."""
    no_command = getattr(click.exceptions, "NoArgsIsHelpError", ())
    return error if isinstance(error, no_command) else UsageFailure(error)


class RootGroup(LazyGroup):
    """The root group maps every error to one line on stderr and the documented exit code, so
    the real process and Click's test runner behave alike. ``--debug`` adds the traceback: of a
    kadmin error before its line (the exit code stays: scripts branch on it), of anything
    unexpected instead of the one line."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, debug_first(args), parent=parent, **extra)
        except click.UsageError as e:  # the root's own options (kadmin --bogus)
            raise _one_line_usage(e) from None

    def invoke(self, ctx: click.Context):
        from kadmin.errors import KadminError

        debug = bool(ctx.params.get("debug"))
        if debug:
            import logging

            logging.basicConfig(level=logging.DEBUG, format="%(asctime)s %(name)s %(levelname)s %(message)s")
        try:
            return super().invoke(ctx)
        except click.UsageError as e:
            raise _one_line_usage(e) from None
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except KadminError as e:
            _problems_as_data(ctx, e)
            if debug:  # the traceback, then the same line and exit code as without --debug
                import traceback

                traceback.print_exc()
            raise KadminFailure(e) from None
        except KeyboardInterrupt:
            click.echo("kadmin: interrupted", err=True)
            ctx.exit(130)
        except BrokenPipeError:
            ctx.exit(1)
        except Exception as e:  # a bug or an unexpected client failure: one line unless --debug
            if debug:
                raise
            raise UnexpectedFailure(e) from None


DEBUG_FLAG = "--debug"


def debug_first(args: list[str]) -> list[str]:
    """``--debug`` anywhere on the command line (``kadmin log-dirs describe --debug``, where one
    adds it on seeing an error) is the root's flag: moved to the front, where the root parses it.
    Words after ``--`` are left alone."""
    end = args.index("--") if "--" in args else len(args)
    found = [i for i, a in enumerate(args[:end]) if a == DEBUG_FLAG]
    if found in ([], [0]):
        return args
    return [DEBUG_FLAG, *(a for i, a in enumerate(args) if i not in found)]


def _problems_as_data(ctx: click.Context, error) -> None:
    """With ``--output json``, a refused input's problems are printed on stdout as data, every
    one of them (stderr shows the first few): the one place this happens for every command."""
    from kadmin.errors import InputError

    if not isinstance(error, InputError) or not error.problems:
        return
    if not isinstance(ctx.obj, dict) or ctx.obj.get("output") != "json":
        return
    from kadmin.commands import render

    render.print_json(render.problems_document(error))


@click.group(
    cls=RootGroup,
    lazy=SUBCOMMANDS,
    epilog=EXIT_CODES_HELP,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "--version", "-V", prog_name="kadmin")
@click.option(
    "--debug",
    is_flag=True,
    envvar="KADMIN_DEBUG",
    help="Show tracebacks and client library logs (before or after the command).",
)
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """kadmin moves Kafka replicas between brokers and between the disks of one broker, shows
    where the bytes are, paces the moves with throttles, and cleans up after itself.

    Point it at a cluster with --bootstrap-server (or a --cluster profile, or
    KADMIN_BOOTSTRAP_SERVER). Try it on an emulated cluster: `kadmin sandbox start --detach`.
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


def run(argv: list[str] | None = None) -> None:
    """Run the CLI as a process (errors are mapped inside ``RootGroup``)."""
    cli.main(args=argv, prog_name="kadmin")
