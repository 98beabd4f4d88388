#!/usr/bin/env bash
# Type-check kadmin with mypy (settings in pyproject.toml, [tool.mypy]).
#
# The installed package maps kadmin.commands to commands/ and kadmin.schemas to schemas/
# (pyproject's package-dir), which mypy cannot follow from the source tree. So this lays out
# build/typecheck/kadmin/ as links, shaped like the installed package, and checks that; the
# paths in mypy's messages are turned back into the repository's own.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
tree=build/typecheck
rm -rf "$tree"
mkdir -p "$tree/kadmin"
for entry in kadmin/*; do
  [ "$(basename "$entry")" = __pycache__ ] || ln -s "$root/$entry" "$tree/kadmin/"
done
ln -s "$root/commands" "$tree/kadmin/commands"
ln -s "$root/schemas" "$tree/kadmin/schemas"
MYPY="${MYPY:-.venv/bin/mypy}"
set +e
"$MYPY" "$@" "$tree/kadmin" 2>&1 | sed -e "s#^$tree/kadmin/commands/#commands/#" -e "s#^$tree/kadmin/schemas/#schemas/#" -e "s#^$tree/##"
status=${PIPESTATUS[0]}
exit "$status"
