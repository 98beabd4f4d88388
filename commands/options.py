"""Option bundles shared by the commands, and the one way a command reaches a cluster.

``@cluster_options`` adds the connection flags and hands the command one ``cluster`` value;
``open_cluster(cluster, read_only=...)`` resolves it (flags > KADMIN_* > profile) and yields
a backend. ``@output_option`` adds ``--output``.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import click


@dataclass(frozen=True)
class ClusterOptions:
    """The connection flags as given; resolved by ``open_cluster``."""

    bootstrap_server: str | None
    zookeeper: str | None
    command_config: str | None
    cluster: str | None
    timeout: str | None


def cluster_options(f: Callable) -> Callable:
    """--bootstrap-server | --zookeeper, --command-config, --cluster, --timeout."""

    @click.option(
        "--bootstrap-server",
        "-b",
        metavar="HOST:PORT[,...]",
        help="Brokers to bootstrap from (the AdminClient protocol). Env: KADMIN_BOOTSTRAP_SERVER.",
    )
    @click.option(
        "--zookeeper",
        metavar="HOST:PORT[/chroot]",
        help="Deprecated: talk to ZooKeeper as Kafka's ZooKeeper-mode tools did. Env: KADMIN_ZOOKEEPER.",
    )
    @click.option(
        "--command-config",
        metavar="FILE",
        type=click.Path(dir_okay=False),
        help="Kafka client properties (security.protocol, sasl.*, ssl.* with PEM files). Env: KADMIN_COMMAND_CONFIG.",
    )
    @click.option(
        "--cluster",
        "cluster_name",
        metavar="NAME",
        help="A named cluster profile from the config file (~/.config/kadmin/config.toml). Env: KADMIN_CLUSTER.",
    )
    @click.option(
        "--timeout",
        metavar="DURATION",
        help="How long to wait for the cluster, e.g. 30s, 2m (default 30s, at most 1h). Env: KADMIN_TIMEOUT.",
    )
    @functools.wraps(f)
    def wrapper(*args, bootstrap_server, zookeeper, command_config, cluster_name, timeout, **kwargs):
        given = (bootstrap_server, zookeeper, command_config, cluster_name, timeout)
        if any(v is not None and not v.strip() for v in given):  # -b "$UNSET": refused before anything
            from kadmin.config import refuse_empty_flags

            refuse_empty_flags(*given)
        kwargs["cluster"] = ClusterOptions(*given)
        return f(*args, **kwargs)

    return wrapper


def output_option(formats: Sequence[str] = ("table", "json"), default: str = "table") -> Callable:
    """--output/-o FORMAT. ``table`` is for people; the others are pure machine output on stdout."""

    def decorator(f: Callable) -> Callable:
        return click.option(
            "--output",
            "-o",
            type=click.Choice(list(formats)),
            default=default,
            show_default=True,
            help="Output format. Machine formats print only data on stdout; diagnostics go to stderr.",
            callback=_remember_output,
        )(f)

    return decorator


def _remember_output(ctx: click.Context, param, value):
    """Keep the chosen format where the root group's error mapping finds it (``ctx.obj`` is
    shared by every context of one invocation): a refused plan's problems go to stdout as JSON
    when the output is JSON."""
    obj = ctx.ensure_object(dict)
    if isinstance(obj, dict):
        obj["output"] = value
    return value


def resolve(cluster: ClusterOptions):
    """Connection settings from flags, KADMIN_* environment and profiles (kadmin.config)."""
    from kadmin.config import resolve_connection

    return resolve_connection(
        bootstrap_server=cluster.bootstrap_server,
        zookeeper=cluster.zookeeper,
        command_config=cluster.command_config,
        cluster=cluster.cluster,
        timeout=cluster.timeout,
    )


def given_timeout(cluster: ClusterOptions) -> str | float | None:
    """The timeout the user gave, by --timeout, KADMIN_TIMEOUT or the profile (seconds), or None
    when none was: for a wait of a command's own with another default (execute's wait for new
    replicas). Settings that do not resolve give None: opening the cluster says what is wrong."""
    from kadmin.errors import KadminError

    if cluster.timeout is not None:
        return cluster.timeout
    try:
        settings = resolve(cluster)
    except KadminError:
        return None
    return settings.timeout if settings.timeout_given else None


@contextlib.contextmanager
def open_cluster(cluster: ClusterOptions, read_only: bool = True) -> Iterator:
    """Yield a backend for the resolved settings; close it afterwards.

    Read-only by default: describe, show, verify, progress, list and --dry-run never get a
    backend that can change the cluster.
    """
    from kadmin.backends import open_backend
    from kadmin.commands.render import warn

    settings = resolve(cluster)
    for note in getattr(settings, "notes", ()):  # a profile ignored, or its credentials sent elsewhere
        warn(note)
    if getattr(settings, "zookeeper", None):
        warn(
            "--zookeeper is deprecated (Kafka removed ZooKeeper mode in 4.0); "
            "use --bootstrap-server where the cluster allows it"
        )
    backend = open_backend(settings, read_only=read_only)
    try:
        yield backend
    finally:
        backend.close()


def open_records(backend):
    """Where kadmin records the throttles it sets (kadmin.throttling.stores), or None when this
    connection offers no place for them. One name, so tests can keep records in memory."""
    from kadmin.throttling.stores import open_record_store

    return open_record_store(backend)


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
        import importlib

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
    import importlib.util

    return importlib.util.find_spec(spec[0]) is not None


def int_list(value: str | None, what: str, required: bool = False) -> list[int] | None:
    """ "1,2,3" -> [1, 2, 3]; None (the option not given) stays None; a bad item is a usage error
    naming it. An empty list ("", " , ", an unset $BROKERS in a script) is a usage error too: to
    the callers None means every broker, and "none given" must not become "all". ``required``:
    the option has no default (generate's --broker-list), and the error says so."""
    if value is None:
        return None
    out = []
    items = _items(value)
    if any(items) and not all(items):
        raise _empty_item(value, what)
    for item in items:
        if not item:
            continue
        try:
            out.append(int(item))
        except ValueError:
            raise click.BadParameter(
                f"{item!r} is not a broker id (expected a comma-separated list of integers)", param_hint=what
            ) from None
    if not out:
        instead = "the option is required" if required else "leave the option out for the default"
        raise click.BadParameter(
            f"{value!r} names no broker (expected a comma-separated list of integers, like 1,2,3; {instead})",
            param_hint=what,
        )
    return out


def str_list(value: str | None, what: str) -> list[str] | None:
    """ "a,b" -> ["a", "b"]; None (the option not given) stays None. An empty list ("", an unset
    $TOPICS in a script) is a usage error, as in ``int_list``: None means every one."""
    if value is None:
        return None
    items = _items(value)
    if any(items) and not all(items):
        raise _empty_item(value, what)
    out = [x for x in items if x]
    if not out:
        raise click.BadParameter("is empty (leave the option out to mean every one)", param_hint=what)
    return out


def _items(value: str) -> list[str]:
    """The items of a comma-separated list, trailing empty ones dropped ("1,2," is 1 and 2), as
    Java's String.split reads Kafka's lists."""
    items = [x.strip() for x in value.split(",")]
    while len(items) > 1 and not items[-1]:
        items.pop()
    return items


def _empty_item(value: str, what: str) -> click.BadParameter:
    """ "1,,3": an empty item, likely an unset variable in a script ("$A,$B,$C"); read as the
    others alone, the command would act on fewer than meant (Kafka's tools refuse it too)."""
    return click.BadParameter(f"{value!r} has an empty item (a missing value between commas?)", param_hint=what)
