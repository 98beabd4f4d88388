"""kafka-python's loggers, for the library clients only: quiet unless ``--debug`` configures
logging, and watched for the SASL or TLS failure its bootstrap only logs.

Read commands that kadmin's small client serves never import ``logging`` (~5 ms with what it
imports); kafka-python's clients call ``quiet_kafka_loggers()`` before they are created, which
is what ``kafka/__init__.py`` does (kadmin imports the clients by module, which may not run it).
"""

from __future__ import annotations

import logging

_quiet = False


def quiet_kafka_loggers() -> None:
    """kafka-python's records go nowhere unless logging is configured (``--debug``). Once."""
    global _quiet
    if not _quiet:
        logging.getLogger("kafka").addHandler(logging.NullHandler())
        _quiet = True


class AuthFailureWatch(logging.Handler):
    """Notes a SASL failure kafka-python's bootstrap only logs (it retries until its timeout), so a
    wrong password is reported as one, not as "no broker answered"."""

    _logger = logging.getLogger("kafka.net.manager")

    def __init__(self):
        super().__init__(logging.WARNING)
        self.error = None

    def emit(self, record: logging.LogRecord) -> None:
        from kafka.errors import KafkaConnectionError, SaslAuthenticationFailedError

        for arg in record.args if isinstance(record.args, tuple) else ():
            if isinstance(arg, SaslAuthenticationFailedError) or (
                isinstance(arg, KafkaConnectionError) and "[SSL" in str(arg)
            ):
                self.error = arg

    def __enter__(self) -> AuthFailureWatch:
        self._level = self._logger.level
        if not self._logger.isEnabledFor(logging.WARNING):
            self._logger.setLevel(logging.WARNING)
        self._logger.addHandler(self)
        return self

    def __exit__(self, *exc) -> None:
        self._logger.removeHandler(self)
        self._logger.setLevel(self._level)
