#!/usr/bin/env bash
# Build kadmin's wheel, install it into a fresh venv, prove `commands` and `schemas` are installed
# under the kadmin namespace (no generic top-level names), and run kadmin from there.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
.venv/bin/python -m build --wheel --outdir "$tmp/dist" . >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet -c constraints.txt "$tmp"/dist/kadmin-*.whl
site=$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
for generic in commands schemas; do
  if [ -e "$site/$generic" ]; then echo "wheel installs a generic top-level '$generic'" >&2; exit 1; fi
done
"$tmp/venv/bin/kadmin" --version
"$tmp/venv/bin/python" -c 'import kadmin.commands.root, kadmin.schemas; kadmin.schemas.load("log-dirs-describe"); print("kadmin.commands and kadmin.schemas import from the wheel")'
"$tmp/venv/bin/kadmin" log-dirs describe --help >/dev/null
echo "wheel check passed"
