"""The root ``kadmin`` group: global flags, lazy sub-groups, and the one place where errors
become a line on stderr and an exit code."""

from __future__ import annotations

import importlib
import importlib.util

import click

from kadmin import __version__

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


class LazyGroup(click.Group):
    """A group whose sub-commands are imported on first use (pip's command registry pattern).

    ``lazy`` maps a sub-command name to (module, attribute, one-line help).
    """

    def __init__(self, *args, lazy: dict[str, tuple[str, str, str]] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = lazy or {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = {n for n, spec in self.lazy.items() if _available(spec)} | set(self.commands)
        return sorted(names)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.commands:
            return self.commands[name]
        spec = self.lazy.get(name)
        if spec is None or not _available(spec):
            return None
        module, attr, _ = spec
        return getattr(importlib.import_module(module), attr)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Help text without importing the modules.
        rows = []
        for name in self.list_commands(ctx):
            if name in self.lazy:
                rows.append((name, self.lazy[name][2]))
            else:
                rows.append((name, self.commands[name].get_short_help_str(80)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _available(spec: tuple[str, str, str]) -> bool:
    return importlib.util.find_spec(spec[0]) is not None


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
    exit_code = 1

    def show(self, file=None) -> None:
        click.echo(f"kadmin: error: {self.message} (run with --debug for the traceback)", err=True)


class RootGroup(LazyGroup):
    """The root group maps every error to one line on stderr and the documented exit code, so
    the real process and Click's test runner behave alike. ``--debug`` lets tracebacks through."""

    def invoke(self, ctx: click.Context):
        from kadmin.errors import KadminError

        debug = bool(ctx.params.get("debug"))
        if debug:
            import logging

            logging.basicConfig(level=logging.DEBUG, format="%(asctime)s %(name)s %(levelname)s %(message)s")
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except KadminError as e:
            if debug:
                raise
            raise KadminFailure(e) from None
        except KeyboardInterrupt:
            click.echo("kadmin: interrupted", err=True)
            ctx.exit(130)
        except BrokenPipeError:
            ctx.exit(1)
        except Exception as e:  # a bug or an unexpected client failure: one line unless --debug
            if debug:
                raise
            raise UnexpectedFailure(f"{type(e).__name__}: {e}") from None


@click.group(
    cls=RootGroup,
    lazy=SUBCOMMANDS,
    epilog=EXIT_CODES_HELP,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "--version", "-V", prog_name="kadmin")
@click.option("--debug", is_flag=True, envvar="KADMIN_DEBUG", help="Show tracebacks and client library logs.")
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
