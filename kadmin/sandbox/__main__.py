"""``python -m kadmin.sandbox [start options]``: a sandbox in the foreground (what ``kadmin sandbox
start --detach`` runs in the background)."""

import sys

from kadmin.commands.root import run

run(["sandbox", "start", *sys.argv[1:]])
