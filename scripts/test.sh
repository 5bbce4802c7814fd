#!/usr/bin/env bash
# `make test`: typecheck, the XSS scan of the back-office templates, then every test file, split
# into TEST_SHARDS (default 3) `bun test` processes that run at once, balanced by the per-file
# times in scripts/test-times.json (scripts/test-shards.ts; docs/testing.md "Shards"). Each
# shard logs to test-output/shard-N.log (and its files' start times to shard-N.times, which
# `bun scripts/test-shards.ts refresh` turns into new times). Ends with the plain
# "tests: N passed, N failed, N skipped" line CI reads, summed over the shards.
# With arguments (`make test ARGS=...`: a filter or paths) one `bun test` runs them, as before.
set -uo pipefail
BUN="${BUN:-bun}"
cd "$(dirname "$0")/.."
mkdir -p test-output
# Types first: the project is TypeScript strict, and a type error fails the run.
echo "typecheck: tsc --noEmit" >&2
if ! "$BUN" x tsc --noEmit; then echo "tests: 0 passed, 1 failed (typecheck)"; exit 1; fi
# JSX pages: kitajs escapes children only with `safe`; its scanner fails the run on unescaped content.
echo "xss-scan: back-office templates" >&2
"$BUN" x xss-scan -s $(find src -name '*.tsx'); xss=$?
# Exit 1: unescaped content (fails the run); 2: warnings only (e.g. a needless `safe`).
if [ "$xss" -eq 1 ]; then echo "tests: 0 passed, 1 failed (xss-scan)"; exit 1; fi

# The last "N pass" / "N fail" / "N skip" of a bun log (0 when absent).
count() { grep -Eo "^ *[0-9]+ $1\$" "$2" | tail -1 | grep -Eo '[0-9]+' || echo 0; }

# Copies bun's output to a log, stamping each file's start (and the end) into a .times file,
# and echoes failures to stderr as they happen, prefixed with the shard's name.
stamp() {
  local log=$1 times=$2 name=$3 line
  : >"$log"; : >"$times"
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    if [[ "$line" =~ ^[^\ \(].*\.test\.tsx?:$ ]]; then printf '%s %s\n' "$EPOCHREALTIME" "${line%:}" >>"$times"
    elif [[ "$line" == "(fail)"* ]]; then printf '[%s] %s\n' "$name" "$line" >&2
    fi
  done
  printf '%s END\n' "$EPOCHREALTIME" >>"$times"
}

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

shards="${TEST_SHARDS:-3}"
if ! [[ "$shards" =~ ^[1-9][0-9]?$ ]]; then echo "TEST_SHARDS must be a number from 1 to 99, got '$shards'" >&2; exit 2; fi
mapfile -t plan < <("$BUN" scripts/test-shards.ts plan "$shards")
if [ "${#plan[@]}" -ne "$shards" ]; then echo "tests: 0 passed, 1 failed (could not plan $shards shards)"; exit 1; fi
rm -f test-output/shard-*.log test-output/shard-*.times test-output/shard-*.status
# Each shard gets its own block of ports below the ephemeral range for freePort()
# (src/testing/wait.ts), so two shards never hand out the same port.
span=$(( 12000 / shards ))
start=$(date +%s)
pids=()
for i in "${!plan[@]}"; do
  n=$((i + 1)); files=(${plan[$i]})
  [ "${#files[@]}" -gt 0 ] || { echo 0 >"test-output/shard-$n.status"; continue; }
  echo "shard $n/$shards: ${#files[@]} files" >&2
  (
    base=$(( 20000 + i * span ))
    TEST_PORT_RANGE="$base-$(( base + span - 1 ))" "$BUN" test --timeout 60000 "${files[@]}" 2>&1 \
      | stamp "test-output/shard-$n.log" "test-output/shard-$n.times" "shard $n"
    code=${PIPESTATUS[0]}
    echo "$code" >"test-output/shard-$n.status"
    echo "shard $n/$shards: exit $code after $(( $(date +%s) - start )) s" >&2
  ) &
  pids+=($!)
done
wait "${pids[@]}"

pass=0; fail=0; skip=0; status=0
for n in $(seq 1 "$shards"); do
  log=test-output/shard-$n.log
  code=$(cat "test-output/shard-$n.status" 2>/dev/null || echo 1)
  [ -f "$log" ] || continue
  p=$(count pass "$log"); f=$(count fail "$log"); s=$(count skip "$log")
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
  if [ "$code" -ne 0 ]; then
    status=1
    echo
    echo "shard $n failed (exit $code; $p passed, $f failed; log: $log):"
    # Each failing test under the file it belongs to; a crash without a summary shows the log's end.
    awk '/^[^ (].*\.test\.tsx?:$/ { file = $0 } /^\(fail\)/ { if (file != shown) { print "  " file; shown = file }; print "    " $0 }' "$log"
    grep -Eq '^ *[0-9]+ fail$' "$log" || tail -20 "$log" | sed 's/^/    /'
  fi
done
echo
echo "test time: $(( $(date +%s) - start )) s in $shards shards"
echo "tests: ${pass} passed, ${fail} failed, ${skip} skipped"
if [ "$status" -eq 0 ] && [ "$pass" -eq 0 ]; then echo "no test ran" >&2; exit 1; fi
exit "$status"
