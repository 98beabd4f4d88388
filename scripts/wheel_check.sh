#!/usr/bin/env bash
# Build kadmin's wheel, install it into a fresh venv, prove `commands` and `schemas` are installed
# under the kadmin namespace (no generic top-level names), and run kadmin from there against a
# sandbox it starts itself.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap '"$tmp/venv/bin/kadmin" sandbox stop --state-dir "$tmp/sandbox" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
"$repo/.venv/bin/python" -m build --wheel --outdir "$tmp/dist" "$repo" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet -c "$repo/constraints.txt" "$tmp"/dist/kadmin-*.whl
cd "$tmp"  # not the repository: its source tree must not shadow the installed package
site=$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
for generic in commands schemas; do
  if [ -e "$site/$generic" ]; then echo "the wheel installs a generic top-level '$generic'" >&2; exit 1; fi
done
"$tmp/venv/bin/python" - <<'PY'
import kadmin, kadmin.commands.root, kadmin.schemas
assert "site-packages" in kadmin.__file__, kadmin.__file__
kadmin.schemas.load("log-dirs-describe")
print("kadmin.commands and kadmin.schemas import from the installed wheel")
PY
"$tmp/venv/bin/kadmin" --version
bootstrap=$("$tmp/venv/bin/kadmin" sandbox start --detach --brokers 2 --state-dir "$tmp/sandbox")
"$tmp/venv/bin/kadmin" log-dirs describe --bootstrap-server "$bootstrap" --output kafka-json \
  | "$tmp/venv/bin/python" -c 'import json, sys; d = json.load(sys.stdin); assert len(d["brokers"]) == 2; print("log-dirs describe from the wheel:", len(d["brokers"]), "brokers")'
echo "wheel check passed"
