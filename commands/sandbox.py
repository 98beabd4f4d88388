"""``kadmin sandbox``: run an emulated Kafka cluster on loopback (start, status, stop, fault).

Thin: options in, ``kadmin.sandbox`` does the work. The sandbox library loads only when an
action runs, so ``kadmin --help`` stays light.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import click

from kadmin.commands.options import output_option
from kadmin.units import MAX_BYTES, counted

STATE_DIR_OPTION = click.option(
    "--state-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where a running sandbox keeps its control socket and state "
    "(default: $XDG_STATE_HOME/kadmin/sandbox or ~/.local/state/kadmin/sandbox).",
)


# Kafka's int64 fields: DescribeLogDirs' TotalBytes and UsableBytes (--dir-capacity), byte rates
# (--bandwidth). Larger values were accepted, then broke every DescribeLogDirs answer.


class FiniteFloatRange(click.FloatRange):
    """A FloatRange that refuses inf and nan (click lets them through: nan compares false with
    every bound, and inf passes a lower one)."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


def _state_dir(state_dir: Path | None) -> Path:
    from kadmin.sandbox.process import default_state_dir

    return state_dir or default_state_dir()


@click.group()
def sandbox() -> None:
    """Run an emulated Kafka cluster on 127.0.0.1 that real clients (and kadmin) can use.

    \b
      kadmin sandbox start --detach        # prints the bootstrap address
      kadmin reassign ... --bootstrap-server "$(kadmin sandbox status --bootstrap)"
      kadmin sandbox fault dir-offline 1 /var/lib/kafka/data0
      kadmin sandbox stop
    """


@sandbox.command()
@click.option(
    "--brokers", type=click.IntRange(1, 1000), default=3, show_default=True, help="Number of brokers (ids 0..N-1)."
)
@click.option(
    "--log-dirs", type=click.IntRange(1, 64), default=2, show_default=True, help="Log directories per broker."
)
@click.option(
    "--racks",
    type=click.IntRange(0, 1000),
    default=0,
    show_default=True,
    help="Spread brokers over this many racks (0: no racks).",
)
@click.option(
    "--port",
    "base_port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port of broker 0; broker i listens on PORT+i. 0 picks free ports.",
)
@click.option(
    "--speed",
    type=FiniteFloatRange(min=0, min_open=True),
    default=1.0,
    show_default=True,
    help="Simulated seconds per real second (100 makes a 20 GB move take seconds).",
)
@click.option(
    "--zookeeper",
    metavar="HOST:PORT[/chroot]",
    default=None,
    help="ZooKeeper mode: register brokers and keep topics in this ZooKeeper.",
)
@click.option(
    "--kafka-version",
    type=click.Choice(["2.8", "3.3", "3.9", "4.3"]),
    default=None,
    help="Kafka version to emulate: the protocol versions its brokers accept and its behaviours "
    "(default: 4.3; 3.9 with --zookeeper, which 4.x does not have; 2.8 only with --zookeeper).",
)
@click.option(
    "--dir-capacity",
    type=click.IntRange(1, MAX_BYTES),
    default=100 * 2**30,
    show_default=True,
    help="Bytes per log directory.",
)
@click.option(
    "--bandwidth",
    type=click.IntRange(1, MAX_BYTES),
    default=100 * 2**20,
    show_default=True,
    help="Unthrottled replication bytes/s per broker.",
)
@click.option("--demo/--no-demo", default=True, show_default=True, help="Create demo topics with uneven disk usage.")
@click.option("--detach", is_flag=True, help="Run in the background; return once every broker answers.")
@click.option(
    "--tls-cert",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Serve TLS with this PEM certificate chain (with --tls-key, or holding the key too).",
)
@click.option(
    "--tls-key", type=click.Path(exists=True, dir_okay=False), default=None, help="PEM private key of --tls-cert."
)
@click.option(
    "--sasl-user",
    "sasl_users",
    metavar="NAME:PASSWORD",
    multiple=True,
    help="Require SASL and accept this user (repeatable).",
)
@click.option(
    "--sasl-mechanism",
    "sasl_mechanisms",
    multiple=True,
    type=click.Choice(["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"], case_sensitive=False),
    help="Enabled SASL mechanisms (repeatable; default: all three).",
)
@click.option(
    "--super-user",
    "super_users",
    metavar="NAME",
    multiple=True,
    help="Turn on the authorizer: only these users may do CLUSTER operations (repeatable).",
)
@STATE_DIR_OPTION
def start(
    brokers,
    log_dirs,
    racks,
    base_port,
    speed,
    zookeeper,
    kafka_version,
    dir_capacity,
    bandwidth,
    demo,
    detach,
    tls_cert,
    tls_key,
    sasl_users,
    sasl_mechanisms,
    super_users,
    state_dir,
):
    """Start a sandbox and print its bootstrap address on stdout."""
    from kadmin.errors import UsageError
    from kadmin.sandbox import process
    from kadmin.sandbox.versions import kafka_version as kafka_version_of

    if zookeeper is not None:  # checked here too: a detached start fails at once, not in its child
        from kadmin.config import zookeeper_flag

        zookeeper = zookeeper_flag(zookeeper)
    version = kafka_version_of(kafka_version, zookeeper=bool(zookeeper))  # 4.x has no ZooKeeper mode
    if racks > brokers:
        raise UsageError(f"--racks ({racks}) cannot exceed --brokers ({brokers})")
    if tls_key and not tls_cert:
        raise UsageError("--tls-key needs --tls-cert")
    users = {}
    for entry in sasl_users:
        name, sep, password = entry.partition(":")
        if not sep or not name:
            raise UsageError("--sasl-user takes NAME:PASSWORD")
        users[name] = password
    if sasl_mechanisms and not users:
        raise UsageError("--sasl-mechanism needs at least one --sasl-user")
    state_dir = _state_dir(state_dir)
    if detach:
        argv = [
            "--brokers",
            str(brokers),
            "--log-dirs",
            str(log_dirs),
            "--racks",
            str(racks),
            "--port",
            str(base_port),
            "--speed",
            repr(speed),
            "--dir-capacity",
            str(dir_capacity),
            "--bandwidth",
            str(bandwidth),
            "--demo" if demo else "--no-demo",
            "--kafka-version",
            str(version),
        ]
        if zookeeper:
            argv += ["--zookeeper", zookeeper]
        argv += [
            a
            for path, flag in ((tls_cert, "--tls-cert"), (tls_key, "--tls-key"))
            if path
            for a in (flag, str(Path(path).resolve()))
        ]
        argv += [a for u in sasl_users for a in ("--sasl-user", u)]
        argv += [a for m in sasl_mechanisms for a in ("--sasl-mechanism", m)]
        argv += [a for u in super_users for a in ("--super-user", u)]
        state = process.start_detached(argv, state_dir)
        click.echo(state["bootstrap"])
        _note_kept(zookeeper, state.get("demo_kept"))
        return
    from kadmin.sandbox import Sandbox

    sb = Sandbox(
        brokers=brokers,
        log_dirs=log_dirs,
        racks=racks,
        base_port=base_port,
        speed=speed,
        zookeeper=zookeeper,
        kafka_version=str(version),
        dir_capacity=dir_capacity,
        bandwidth=bandwidth,
        tls=(tls_cert, tls_key) if tls_cert else None,
        sasl_users=users or None,
        sasl_mechanisms=tuple(m.upper() for m in sasl_mechanisms) or None,
        super_users=set(super_users) if super_users else None,
        format_defaults=True,  # as a freshly formatted cluster: 4.3 shows min.insync.replicas=1 set
    )

    def ready(bootstrap: str) -> None:
        click.echo(bootstrap)
        _note_kept(zookeeper, sb.demo_kept)
        click.echo(
            f"kadmin: sandbox running (Kafka {sb.version}, {sb.mode}, {brokers} brokers, {sb.security_protocol}); "
            f"Ctrl-C or `kadmin sandbox stop{process.state_dir_flag(state_dir)}` ends it",
            err=True,
        )

    process.run_foreground(sb, state_dir, demo=demo, on_ready=ready)
    click.echo("kadmin: sandbox stopped", err=True)


def _note_kept(zookeeper: str | None, kept: list[str] | None) -> None:
    if kept:
        click.echo(
            f"kadmin: note: ZooKeeper {zookeeper} already holds the demo topics {', '.join(kept)} (a cluster "
            "stopped there): kept as they are, as a restarted Kafka cluster keeps its topics (their data starts "
            "empty; a new chroot gives a fresh demo)",
            err=True,
        )


@sandbox.command()
@output_option()
@click.option("--bootstrap", "bootstrap_only", is_flag=True, help="Print only the bootstrap address.")
@STATE_DIR_OPTION
def status(output, bootstrap_only, state_dir):
    """Show the running sandbox: Kafka version, mode, brokers and ports, topics.

    --output json prints one document (schemas/sandbox-status.json): the brokers with their
    ports, racks, log directories and state, the mode, the Kafka version, the bootstrap address
    and the simulated clock.

    Exit 1 when no sandbox runs in the state directory; 2 when the directory does not exist or
    holds other files than a sandbox's (a mistyped --state-dir), as for stop and fault.
    """
    from kadmin.sandbox import process

    st = process.request(_state_dir(state_dir), "status")
    if bootstrap_only:
        click.echo(st["bootstrap"])
    elif output == "json":
        click.echo(json.dumps({"version": 1, **st}, indent=2))
    else:
        click.echo(f"kafka version: {st['kafka_version']}")
        click.echo(f"mode: {st['mode']}" + (f" ({st['zookeeper']})" if st.get("zookeeper") else ""))
        click.echo(f"bootstrap: {st['bootstrap']}")
        n = st["partitions"]
        click.echo(f"topics: {st['topics']} ({counted(n, 'partition')})")
        click.echo(f"simulated time: {st['simulated_seconds']}s at speed {st['speed']}")
        for b in st["brokers"]:
            dirs = ", ".join(
                d["path"] + ("" if d["online"] else " (offline)") + (" (cordoned)" if d["cordoned"] else "")
                for d in b["log_dirs"]
            )
            state = "up" if b["alive"] else f"halted ({b['halted']})" if b.get("halted") else "stopped"
            rack = f" rack {b['rack']}" if b["rack"] else ""
            click.echo(f"broker {b['id']}: 127.0.0.1:{b['port']} {state}{rack}: {dirs}")


@sandbox.command()
@STATE_DIR_OPTION
def stop(state_dir):
    """Stop the running sandbox.

    Stopping a stopped sandbox is fine, so cleanup steps can run twice: exit 0 with "no sandbox
    running in DIR" when the state directory is there but no sandbox runs in it (what a killed
    one left is removed). Exit 2 when the directory does not exist or holds other files than a
    sandbox's: a mistyped --state-dir.
    """
    from kadmin.sandbox import process

    directory = _state_dir(state_dir)
    if process.stop(directory):
        click.echo("kadmin: sandbox stopped", err=True)
    else:
        click.echo(f"kadmin: no sandbox running in {directory}", err=True)


@sandbox.group()
@STATE_DIR_OPTION
@click.pass_context
def fault(ctx: click.Context, state_dir) -> None:
    """Inject a fault into the running sandbox (for tests and demos). --state-dir goes before
    the fault's name or after it."""
    ctx.obj = state_dir


def _fault(state_dir, name: str, **args) -> None:
    from kadmin.sandbox import process

    before = click.get_current_context().parent.obj  # type: ignore[union-attr]
    if before is not None and state_dir is not None and before != state_dir:
        raise click.UsageError(f"--state-dir given twice, as {before} and as {state_dir}")
    process.request(_state_dir(state_dir or before), "fault", fault=name, **args)


@fault.command("broker-stop")
@click.argument("broker", type=int)
@STATE_DIR_OPTION
def broker_stop(broker, state_dir):
    """Stop broker BROKER: its listener closes, leadership moves away."""
    _fault(state_dir, "broker-stop", broker=broker)


@fault.command("broker-start")
@click.argument("broker", type=int)
@STATE_DIR_OPTION
def broker_start(broker, state_dir):
    """Start a stopped broker again."""
    _fault(state_dir, "broker-start", broker=broker)


@fault.command("dir-offline")
@click.argument("broker", type=int)
@click.argument("path")
@STATE_DIR_OPTION
def dir_offline(broker, path, state_dir):
    """Take log directory PATH of BROKER offline (KAFKA_STORAGE_ERROR)."""
    _fault(state_dir, "dir-offline", broker=broker, path=path)


@fault.command("dir-online")
@click.argument("broker", type=int)
@click.argument("path")
@STATE_DIR_OPTION
def dir_online(broker, path, state_dir):
    """Bring an offline log directory back (a running broker restarts, as Kafka requires)."""
    _fault(state_dir, "dir-online", broker=broker, path=path)


@fault.command("dir-cordon")
@click.argument("broker", type=int)
@click.argument("path")
@click.option("--undo", is_flag=True, help="Uncordon instead.")
@STATE_DIR_OPTION
def dir_cordon(broker, path, undo, state_dir):
    """Cordon a log directory (KIP-1066): no new replicas are placed there. Kafka 4.3 and later
    only: refused (exit 2) on a sandbox emulating an older Kafka, --undo too."""
    _fault(state_dir, "dir-uncordon" if undo else "dir-cordon", broker=broker, path=path)


@fault.command("slow")
@click.argument("broker", type=int)
@click.argument("millis", type=click.IntRange(0))
@STATE_DIR_OPTION
def slow(broker, millis, state_dir):
    """Delay every response of BROKER by MILLIS milliseconds (0 restores it)."""
    _fault(state_dir, "slow", broker=broker, millis=millis)


@fault.command("latency")
@click.argument("broker", type=int)
@click.argument("millis", type=click.IntRange(0))
@STATE_DIR_OPTION
def latency(broker, millis, state_dir):
    """Put BROKER MILLIS milliseconds away (0 restores it): its answers arrive that late while
    requests sent behind them go on, as over a long network path."""
    _fault(state_dir, "latency", broker=broker, millis=millis)


@fault.command("drop-connections")
@click.argument("broker", type=int)
@STATE_DIR_OPTION
def drop_connections(broker, state_dir):
    """Close every client connection of BROKER."""
    _fault(state_dir, "drop-connections", broker=broker)
