#!/usr/bin/env bash
# `make test`: typecheck, the XSS scan of the back-office templates, then every test file, split
# into TEST_SHARDS (default 3) `bun test` processes that run at once (scripts/run-shards.sh),
# balanced by the per-file times in scripts/test-times.json (docs/testing.md "Shards"). Each
# shard logs to test-output/shard-N.log. Ends with the plain "tests: N passed, N failed,
# N skipped" line CI reads, summed over the shards.
# The files of scripts/pg-suites.txt run a second time with SG_TEST_DB=pg in the same shards
# (docs/testing.md "Both engines"), on the PostgreSQL cluster started below.
# With arguments (`make test ARGS=...`: a filter or paths) one `bun test` runs them, as before, on
# the engine SG_TEST_DB names (`SG_TEST_DB=pg make test ARGS=file`: that file on PostgreSQL).
set -uo pipefail
BUN="${BUN:-bun}"
cd "$(dirname "$0")/.."
mkdir -p test-output
# Types first: the project is TypeScript strict, and a type error fails the run. Then promise
# hygiene (eslint.config.js): no floating or misused promise, no await of a non-promise. Both on
# one TypeScript program (scripts/typecheck-lint.mjs: what `tsc --noEmit` and `eslint src` report,
# for the CPU of one type-check instead of two), under node as `bun x tsc` runs, bun without it.
echo "typecheck: tsc --noEmit; lint: eslint src (no-floating-promises, no-misused-promises, await-thenable)" >&2
if command -v node >/dev/null; then node scripts/typecheck-lint.mjs; else "$BUN" scripts/typecheck-lint.mjs; fi
case $? in
  0) ;;
  2) echo "tests: 0 passed, 1 failed (lint)"; exit 1 ;;
  *) echo "tests: 0 passed, 1 failed (typecheck)"; exit 1 ;;
esac
# JSX pages: kitajs escapes children only with `safe`; its scanner fails the run on unescaped content.
echo "xss-scan: back-office templates" >&2
"$BUN" x xss-scan -s $(find src -name '*.tsx'); xss=$?
# Exit 1: unescaped content (fails the run); 2: warnings only (e.g. a needless `safe`).
if [ "$xss" -eq 1 ]; then echo "tests: 0 passed, 1 failed (xss-scan)"; exit 1; fi
# --- PostgreSQL (src/testing/postgres.ts): one throwaway cluster for the whole run, shared by every test process.
if [ -z "${STABLEGATE_TEST_PG_URL:-}" ]; then
  pg_env=$("$BUN" src/testing/postgres.ts start) || { echo "tests: 0 passed, 1 failed (postgres)"; exit 1; }
  eval "$pg_env"
  trap '"$BUN" src/testing/postgres.ts stop "$STABLEGATE_TEST_PG_DIR"' EXIT
fi
# --- end PostgreSQL

# The last "N pass" / "N fail" / "N skip" of a bun log (0 when absent).
count() { grep -Eo "^ *[0-9]+ $1\$" "$2" | tail -1 | grep -Eo '[0-9]+' || echo 0; }

# bunfig's [test] timeout is not applied by this bun: pass it explicitly.
if [ "$#" -gt 0 ]; then
  log=test-output/bun-test.log
  "$BUN" test --timeout 60000 "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  pass=$(count pass "$log"); fail=$(count fail "$log"); skip=$(count skip "$log")
  echo
  echo "tests: ${pass} passed, ${fail} failed, ${skip} skipped"
  if [ "$status" -eq 0 ] && [ "$pass" -eq 0 ]; then echo "no test ran" >&2; exit 1; fi
  exit "$status"
fi

# Not exec: the EXIT trap above stops the PostgreSQL cluster when the shards are done.
./scripts/run-shards.sh shard "${TEST_SHARDS:-3}"
exit $?
