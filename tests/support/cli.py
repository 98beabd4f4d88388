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


def write_plan(tmp_path, partitions, name="plan.json") -> str:
    """A reassignment file of ``partitions`` in ``tmp_path``; its path."""
    import json

    p = tmp_path / name
    p.write_text(json.dumps({"version": 1, "partitions": partitions}))
    return str(p)


def await_broker_gone(open_backend, broker_id, timeout=20.0):
    """Until the cluster's broker list (as kadmin reads it) leaves ``broker_id`` out."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        with open_backend() as be:
            if broker_id not in be.describe_cluster().brokers:
                return
        assert time.monotonic() < deadline, f"broker {broker_id} still listed after {timeout}s"
        time.sleep(0.05)  # polling a condition with a deadline


def run_as(sb, tmp_path, user: str, password: str, *args):
    """Click's result of one kadmin run against the SASL sandbox ``sb`` as ``user`` (PLAIN over
    SASL_PLAINTEXT, its properties file in ``tmp_path``)."""
    from click.testing import CliRunner

    from kadmin.commands.root import cli

    config = tmp_path / f"{user}.properties"
    config.write_text(
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
        f'username="{user}" password="{password}";\n'
    )
    argv = [*args, "--bootstrap-server", sb.bootstrap, "--command-config", str(config), "--timeout", "10s"]
    return CliRunner().invoke(cli, argv)
