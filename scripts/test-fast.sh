#!/usr/bin/env bash
# `make test-fast`: the pure tests, those that start no gateway or CLI process, no chain node
# and no browser (docs/testing.md "Fast tests"). Test files are named by cost: `.test.ts` pure,
# `.e2e.test.ts` starts a gateway or a node, `.browser.test.ts` a browser; every `*.test.ts`
# but those two kinds is taken. src/testing/test-names.test.ts (one of them) fails when a
# pure-named file imports a helper of src/testing that starts a process, a node or a browser.
# Extra arguments go to `bun test` (a filter: `make test-fast ARGS=-t pickLocale`).
set -uo pipefail
BUN="${BUN:-bun}"
cd "$(dirname "$0")/.."

files=()
while IFS= read -r f; do
  files+=("./$f") # ./: a path, not a name filter
done < <(find src scripts -name '*.test.ts' ! -name '*.e2e.test.ts' ! -name '*.browser.test.ts' -not -path '*/node_modules/*' | sort)

echo "test-fast: ${#files[@]} files" >&2
start=$(date +%s)
"$BUN" test --timeout 60000 "${files[@]}" "$@"
status=$?
echo "test-fast: $(( $(date +%s) - start )) s" >&2
exit "$status"
