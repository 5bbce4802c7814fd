#!/usr/bin/env bash
# Tests run on a real PostgreSQL (DESIGN 22): Debian's `postgresql` package, installed when its
# server binaries are missing, as Chromium is for the browser tests. scripts/test.sh then starts a
# throwaway cluster from them (src/testing/postgres.ts) as the `postgres` OS user.
set -euo pipefail
if compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null && id postgres >/dev/null 2>&1; then exit 0; fi
echo "postgres: installing Debian's postgresql for the PostgreSQL tests" >&2
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
$SUDO apt-get update -qq >&2 || true
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >&2
# The package starts a system cluster; the tests use their own, so leave the system one as the operator set it.
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null
