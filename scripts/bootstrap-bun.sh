#!/usr/bin/env bash
# Prints the path of a bun binary to use. A fresh machine has node and npm but
# no bun: install the pinned version from npm into .tools/ (project-local, no
# global changes). A bun already on PATH is used as is.
set -euo pipefail
BUN_VERSION="${BUN_VERSION:-1.4.5}"
root="$(cd "$(dirname "$0")/.." && pwd)"
if command -v bun >/dev/null 2>&1; then command -v bun; exit 0; fi
local_bun="$root/.tools/node_modules/.bin/bun"
if [ -x "$local_bun" ] && [ "$("$local_bun" --version 2>/dev/null)" = "$BUN_VERSION" ]; then
  echo "$local_bun"; exit 0
fi
echo "bootstrap: installing bun $BUN_VERSION from npm into .tools/" >&2
mkdir -p "$root/.tools"
(cd "$root/.tools" && [ -f package.json ] || echo '{"private":true}' > "$root/.tools/package.json")
npm install --prefix "$root/.tools" --no-save --no-audit --no-fund --loglevel=error "bun@$BUN_VERSION" >&2
"$local_bun" --version >/dev/null
echo "$local_bun"
