#!/usr/bin/env bash
# Runs the whole suite with bun's test runner and ends with the plain
# "N passed, N failed" line CI reads.
set -uo pipefail
BUN="${BUN:-bun}"
mkdir -p test-output
log=test-output/bun-test.log
# Types first: the project is TypeScript strict, and a type error fails the run.
echo "typecheck: tsc --noEmit" >&2
if ! "$BUN" x tsc --noEmit; then echo "tests: 0 passed, 1 failed (typecheck)"; exit 1; fi
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
# bunfig's [test] timeout is not applied by this bun: pass it explicitly.
"$BUN" test --timeout 60000 "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
pass=$(grep -Eo '^ *[0-9]+ pass$' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
fail=$(grep -Eo '^ *[0-9]+ fail$' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
skip=$(grep -Eo '^ *[0-9]+ skip$' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
echo
echo "tests: ${pass} passed, ${fail} failed, ${skip} skipped"
if [ "$status" -eq 0 ] && [ "$pass" -eq 0 ]; then echo "no test ran" >&2; exit 1; fi
exit "$status"
