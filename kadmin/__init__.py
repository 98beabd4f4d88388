"""kadmin: partition reassignment and JBOD log-directory administration for Apache Kafka.

The library lives here; the Click layer is ``kadmin.commands``. Nothing in this package
imports a Kafka client library at import time: backends import them when they connect.
"""

__version__ = "0.1.0"
