"""Backends: the KIP-179 interface (``base``) and its two implementations.

``open_backend`` is the one place a command gets a backend from: it imports the client
library it needs only then.
"""
