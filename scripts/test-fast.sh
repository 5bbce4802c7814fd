#!/usr/bin/env bash
# `make test-fast`: the pure tests, those that start no gateway or CLI process, no chain node
# and no browser (docs/testing.md "Fast tests"). Test files are named by cost: `.test.ts` pure,
# `.e2e.test.ts` starts a gateway or a node, `.browser.test.ts` a browser; every `*.test.ts`
# but those two kinds is taken. src/testing/test-names.test.ts (one of them) fails when a
# pure-named file imports a helper of src/testing that starts a process, a node or a browser.
# They run in TEST_SHARDS (default 2) processes at once (scripts/run-shards.sh, logs
# test-output/fast-N.log). Extra arguments go to one `bun test` over the same files (a filter:
# `make test-fast ARGS=-t pickLocale`).
set -uo pipefail
BUN="${BUN:-bun}"
cd "$(dirname "$0")/.."

start=$(date +%s)
if [ "$#" -eq 0 ]; then
  BUN="$BUN" ./scripts/run-shards.sh fast "${TEST_SHARDS:-2}" pure
  status=$?
else
  files=()
  while IFS= read -r f; do
    files+=("./$f") # ./: a path, not a name filter
  done < <(find src scripts -name '*.test.ts' ! -name '*.e2e.test.ts' ! -name '*.browser.test.ts' -not -path '*/node_modules/*' | sort)
  echo "test-fast: ${#files[@]} files" >&2
  "$BUN" test --timeout 60000 "${files[@]}" "$@"
  status=$?
fi
echo "test-fast: $(( $(date +%s) - start )) s" >&2
exit "$status"
